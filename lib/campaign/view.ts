/** The public JSON of a campaign (GET /api/v1/campaigns/{id}), from its row and its video rows. */
import type { operations } from '../../clients/typescript/src/schema';
import type { CampaignMetadata, CampaignOptions } from './options';
import { reportIdOf } from '../ops/reports';
import type { QualityReport } from '../quality/report';
import { NO_FILE_LINKS, type FileLinks } from '../storage/file-links';
import { DEFAULT_WEBHOOK_EVENTS } from '../net/webhooks';

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
  /** The language the page's own text is in (the plan's), as recorded when a video is narrated in it; else null. */
  page_language?: string | null;
  /** The failed campaign this one retries; null or absent otherwise. */
  retry_of?: string | null;
  /** The batch that made it (decisions §14); null or absent otherwise. */
  batch_id?: string | null;
  webhook_url?: string | null;
  /** The events wanted at webhook_url (decisions §15); null on campaigns made before they existed: the default list. */
  webhook_events?: string[] | null;
}
export interface VideoRow {
  id: string;
  platform: string;
  language: string;
  /** The hook variant (decisions §15); absent on rows read without it: "a". */
  variant?: string | null;
  /** This variant opens as variant a does (too few page words for its own opening); absent: false. */
  opening_repeated?: boolean | null;
  status: string;
  duration_seconds?: number | null;
  published_at?: Date | string | null;
  script_source?: string | null;
  file_key?: string | null;
  captions_key?: string | null;
  captions_srt_key?: string | null;
  thumbnail_key?: string | null;
  /** decisions §12: the document's revision, and the one the files are of (absent on rows read without them: 1, and 1 once ready). */
  revision?: number | null;
  file_revision?: number | null;
  error_code?: string | null;
  error_message?: string | null;
  /** The video's own check (decisions §13); null or absent until checked. */
  quality?: QualityReport | null;
}
export type VideoLinks = (video: VideoRow) => FileLinks;

/**
 * A campaign as the API presents it (GET, publish, cancel; the list's items without `success`; the webhooks' videos):
 * the type the typed client has, generated from openapi.json (clients/typescript/src/schema.d.ts, `npm run openapi`),
 * itself written from the response schemas of lib/http/api-schemas.ts. One shape, typed once.
 */
export type CampaignView = operations['campaigns_get']['responses'][200]['content']['application/json'];
/** One video of a campaign, as the API presents it. */
export type VideoView = CampaignView['videos'][number];
/** GET /api/v1/campaigns' answer. */
export type CampaignListView = operations['campaigns_list']['responses'][200]['content']['application/json'];

/**
 * The codes of a video's `warnings`: the video was made, but is not quite what was asked for. The OpenAPI enum
 * derives from this list.
 * - `narration_not_in_language`: no version of the page in the video's language was found and no translation
 *   provider is configured, so its scenes are narrated in the page's own language, framed by an opening and a
 *   closing line in the video's language. By construction that is exactly `script_source === 'source_text'`
 *   (decisions §5), so the warning is derived from that one fact and never stored.
 * - `opening_not_distinct`: a hook variant (b or c, decisions §15) whose page gave too few words of its own, in the
 *   video's language, for an opening that differs from the others (lib/script/hooks.ts chooseOpenings never makes
 *   the same opening twice): the video is made, as asked, but opens as variant a does. Recorded by the scripting
 *   stage (videos.opening_repeated).
 */
export const VIDEO_WARNING_CODES = ['narration_not_in_language', 'opening_not_distinct'] as const;
export type VideoWarningCode = (typeof VIDEO_WARNING_CODES)[number];
export interface VideoWarning {
  code: VideoWarningCode;
  message: string;
}

/** A page's declared language is page text: only a plain language code (`en`, `pt`, `fil`) is kept, lower-cased. */
export function pageLanguageCode(declared: unknown): string | null {
  if (typeof declared !== 'string') return null;
  const code = declared.trim().toLowerCase().split(/[-_]/)[0];
  return /^[a-z]{2,3}$/.test(code) ? code : null;
}

/** The warnings of one video, in plain words; empty when none. `pageLanguage` names the page's language if known. */
export function videoWarnings(
  video: Pick<VideoRow, 'language' | 'script_source' | 'variant' | 'opening_repeated'>,
  pageLanguage?: string | null,
): VideoWarning[] {
  const repeated: VideoWarning[] = video.opening_repeated
    ? [
        {
          code: 'opening_not_distinct',
          message:
            `The page gave too few words in ${video.language} for a different opening, so variant ${video.variant ?? 'a'} opens as ` +
            'variant a does; the rest of the video is the same too. A page that says more of its product (its features, a ' +
            "figure, a question it answers) gives each variant its own opening; or edit this video's title scene.",
        },
      ]
    : [];
  return [...languageWarnings(video, pageLanguage), ...repeated];
}

function languageWarnings(video: Pick<VideoRow, 'language' | 'script_source'>, pageLanguage?: string | null): VideoWarning[] {
  if (video.script_source !== 'source_text') return [];
  const language = video.language;
  const page = pageLanguageCode(pageLanguage);
  const spoken = page ? `the page's language (${page})` : "the page's own language";
  return [
    {
      code: 'narration_not_in_language',
      message:
        `No ${language} version of this page was found and no translation provider is configured, so the scenes are narrated ` +
        `in ${spoken}; only the opening and closing lines are in ${language}. Add a ${language} page linked with hreflang, ` +
        'or configure TRANSLATION_BASE_URL, then create the campaign again.',
    },
  ];
}

/** `links` signs a video's download links (lib/storage/file-links.ts); without it every link is null. */
export function presentCampaign(campaign: CampaignRow, videos: VideoRow[], links?: VideoLinks): CampaignView {
  // By language, then platform, then variant (a, b, c side by side).
  const order = (v: VideoRow) =>
    campaign.languages.indexOf(v.language) * 1000 + campaign.platforms.indexOf(v.platform) * 10 + (v.variant ?? 'a').charCodeAt(0);
  // The row's text columns hold one of the API's values by construction (written only from lib/campaign/states.ts,
  // config/catalog.ts and lib/errors.ts's lists): named as such here, where the row becomes the document.
  const body: CampaignView = {
    success: true,
    campaign_id: campaign.id,
    status: campaign.status as CampaignView['status'],
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
        platform: video.platform as VideoView['platform'],
        language: video.language,
        variant: (video.variant ?? 'a') as VideoView['variant'],
        status: video.status as VideoView['status'],
        ...(links ? links(video) : NO_FILE_LINKS),
        duration_seconds: video.duration_seconds ?? null,
        published_at: video.published_at ? new Date(video.published_at).toISOString() : null,
        script_source: (video.script_source ?? null) as VideoView['script_source'],
        warnings: videoWarnings(video, campaign.page_language),
        revision: video.revision ?? 1,
        file_revision: video.file_revision ?? (video.status === 'ready' ? 1 : null),
        error: video.error_code ? { code: video.error_code, message: video.error_message ?? 'The render failed.' } : null,
        quality: video.quality ?? null,
      })),
  };
  if (campaign.status === 'failed')
    body.error = {
      code: (campaign.error_code ?? 'internal') as NonNullable<CampaignView['error']>['code'],
      message: campaign.error_message ?? 'Generation failed.',
    };
  // What its webhook_url is sent (decisions §15), when it has one.
  if (campaign.webhook_url) body.webhook_events = (campaign.webhook_events ?? DEFAULT_WEBHOOK_EVENTS) as CampaignView['webhook_events'];
  // The create's options and metadata, as given (absent when not given).
  Object.assign(body, campaign.options ?? {});
  if (campaign.metadata) body.metadata = campaign.metadata;
  const reportId = reportIdOf(campaign);
  if (reportId) body.report_id = reportId;
  if (campaign.retry_of) body.retry_of = campaign.retry_of;
  if (campaign.batch_id) body.batch_id = campaign.batch_id;
  return body;
}

/** decisions.md §1: the default title is the page's host name without a leading `www.`. */
export function defaultTitle(url: URL): string {
  return url.hostname.replace(/^www\./i, '');
}
