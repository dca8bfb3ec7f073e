/** The public JSON of a campaign (GET /api/v1/campaigns/{id}), from its row and its video rows. */
import { UUID_TEXT } from './ids';
import type { CampaignMetadata, CampaignOptions } from './campaign-options';
import { reportIdOf } from './reports';
import { NO_FILE_LINKS, type FileLinks } from './signing';

export interface CampaignRow {
  id: string;
  status: string;
  url: string;
  title: string;
  languages: string[];
  platforms: string[];
  progress: number;
  created_at: Date | string;
  error_code?: string | null;
  error_message?: string | null;
  options?: CampaignOptions | null;
  metadata?: CampaignMetadata | null;
}
export interface VideoRow {
  id: string;
  platform: string;
  language: string;
  status: string;
  duration_seconds?: number | null;
  published_at?: Date | string | null;
  script_source?: string | null;
  file_key?: string | null;
  captions_key?: string | null;
  captions_srt_key?: string | null;
  thumbnail_key?: string | null;
}
export type VideoLinks = (video: VideoRow) => FileLinks;

/** `links` signs a video's download links (lib/signing.ts); without it every link is null. */
export function presentCampaign(campaign: CampaignRow, videos: VideoRow[], links?: VideoLinks): Record<string, unknown> {
  const order = (v: VideoRow) => campaign.languages.indexOf(v.language) * 100 + campaign.platforms.indexOf(v.platform);
  const body: Record<string, unknown> = {
    success: true,
    campaign_id: campaign.id,
    status: campaign.status,
    url: campaign.url,
    title: campaign.title,
    languages: campaign.languages,
    platforms: campaign.platforms,
    progress: campaign.progress,
    created_at: new Date(campaign.created_at).toISOString(),
    videos: [...videos]
      .sort((a, b) => order(a) - order(b))
      .map((video) => ({
        id: video.id,
        platform: video.platform,
        language: video.language,
        status: video.status,
        ...(links ? links(video) : NO_FILE_LINKS),
        duration_seconds: video.duration_seconds ?? null,
        published_at: video.published_at ? new Date(video.published_at).toISOString() : null,
        script_source: video.script_source ?? null,
      })),
  };
  if (campaign.status === 'failed')
    body.error = { code: campaign.error_code ?? 'internal', message: campaign.error_message ?? 'Generation failed.' };
  // The create's options and metadata, as given (absent when not given).
  Object.assign(body, campaign.options ?? {});
  if (campaign.metadata) body.metadata = campaign.metadata;
  const reportId = reportIdOf(campaign);
  if (reportId) body.report_id = reportId;
  return body;
}

/** decisions.md §1: the default title is the page's host name without a leading `www.`. */
export function defaultTitle(url: URL): string {
  return url.hostname.replace(/^www\./i, '');
}

/**
 * The list's cursor (decisions §11): opaque to customers; here the id of the page's last campaign, in base64url
 * so that nobody builds one by hand. Undefined when the text is not one of ours.
 */
const CURSOR_PREFIX = 'c1:';

export function encodeListCursor(campaignId: string): string {
  return Buffer.from(`${CURSOR_PREFIX}${campaignId}`, 'utf8').toString('base64url');
}

export function decodeListCursor(cursor: string): string | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = text.startsWith(CURSOR_PREFIX) ? text.slice(CURSOR_PREFIX.length) : '';
  return UUID_TEXT.test(id) ? id : undefined;
}
