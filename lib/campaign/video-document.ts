/**
 * A video as our Universal Video JSON draft (decisions §12): the pure assembly of the document from what its owners
 * keep — the storyboard the voice stage stored (scenes, measured times, settings), the screenshots the capture stage
 * took (the assets a scene may show) — and the campaign's options. Its schema is UniversalVideoJsonSchema
 * (lib/http/api-schemas.ts); its type is the typed client's, generated from that schema through openapi.json.
 *
 * Ids: a scene's is the one the voice stage stored (`scene_<position>`), or, for a storyboard stored before scenes had
 * ids, the same derived from its position, so the document of a video never changes its scenes' ids. A screenshot's is
 * its storage file name (`<page>-<viewport>-<n>`, lib/storage/keys.ts).
 */
import type { components } from '../../clients/typescript/src/schema';
import { PLATFORMS, type LanguageCode, type RenderQuality } from '../../config/catalog';
import { isDefaultVoice, VOICE_OPTIONS, VOICE_OPTIONS_BY_ID } from '../../config/voices';
import type { ScreenshotRef } from '../db/models';
import type { QualityReport } from '../quality/report';
import { ENCODING } from '../render/plan';
import { screenshotIdOf } from '../storage/keys';
import type { CampaignOptions } from './options';
import { sceneIdAt, type Storyboard } from './storyboard';

export type VideoDocument = components['schemas']['UniversalVideoJson'];
export type VideoDocumentScene = VideoDocument['scenes'][number];
export type VideoDocumentScreen = VideoDocument['assets']['screens'][number];

/** One captured version of the page's screenshots (capture.screenshots). */
export interface CapturedScreens {
  variant: string;
  language: string | null;
  screenshots: ScreenshotRef[];
}

export interface VideoDocumentInput {
  storyboard: Storyboard;
  /** Every version of the page the capture stage took: the source first or not, they are ordered here. */
  captures: CapturedScreens[];
  /** The campaign's create options (voice, brand.logo_url); null: none. */
  options: CampaignOptions | null;
  /** The render quality of a storyboard that names none (the node's RENDER_QUALITY). */
  defaultQuality: RenderQuality;
  /** A screenshot's signed link (lib/storage/file-links.ts screenLink). */
  screenUrl: (screenId: string) => string;
  /** The video's own check of this revision (the video row's quality); null: not checked. */
  qualityReport?: QualityReport | null;
}

/** The voice id a language gets when the campaign asks for none (config/voices.ts). */
export function defaultVoiceId(language: LanguageCode): string {
  const option = VOICE_OPTIONS.find((v) => v.language === language && isDefaultVoice(v));
  return option?.id ?? `${language}-espeak`;
}

/** `#rgb` or `#rrggbb`, lower-cased to `#rrggbb`; anything else (a named or rgb() colour) null. */
export function hexColor(colour: string | null | undefined): string | null {
  const text = (colour ?? '').trim().toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(text)) return text;
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/.exec(text);
  return short ? `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}` : null;
}

/** Every screenshot of the campaign, the source page's first, then each language's own page; desktop before phone. */
export function screensOf(campaignId: string, captures: CapturedScreens[], screenUrl: (id: string) => string): VideoDocumentScreen[] {
  const pageOrder = (c: CapturedScreens) => (c.variant === 'source' ? '' : c.variant);
  return [...captures]
    .sort((a, b) => pageOrder(a).localeCompare(pageOrder(b)))
    .flatMap((capture) =>
      [...capture.screenshots]
        .sort((a, b) => (a.viewport === b.viewport ? a.index - b.index : a.viewport === 'desktop' ? -1 : 1))
        .flatMap((shot) => {
          const id = screenshotIdOf(campaignId, shot.key);
          if (!id) return [];
          return [
            {
              id,
              language: capture.language ?? (capture.variant === 'source' ? null : capture.variant),
              viewport: shot.viewport,
              heading: shot.heading ?? null,
              width: shot.width,
              height: shot.height,
              url: screenUrl(id),
            },
          ];
        }),
    );
}

export function buildVideoDocument(input: VideoDocumentInput): VideoDocument {
  const { storyboard, options } = input;
  const quality = storyboard.quality ?? input.defaultQuality;
  const frame = PLATFORMS[storyboard.platform] ?? storyboard.frame;
  const screens = screensOf(storyboard.campaignId, input.captures, input.screenUrl);
  const scenes: VideoDocumentScene[] = storyboard.scenes.map((scene, position) => {
    const screen = scene.kind === 'screen' && scene.screenshotKey ? screenshotIdOf(storyboard.campaignId, scene.screenshotKey) : undefined;
    if (scene.kind === 'screen' && !screen)
      throw new Error(`storyboard of video ${storyboard.videoId}: screen scene ${position} shows no captured screenshot`);
    return {
      id: scene.id ?? sceneIdAt(position),
      kind: scene.kind,
      narration: scene.narration
        .map((segment) => segment.text.trim())
        .filter(Boolean)
        .join(' '),
      headline: scene.onScreenText ?? '',
      ...(screen ? { screen } : {}),
      start_seconds: scene.startSeconds,
      duration_seconds: scene.durationSeconds,
    };
  });
  // An edit records the voice it chose; a first render's is the create's, else the language's default.
  const asked = storyboard.voiceId ?? options?.voice?.[storyboard.language];
  return {
    format: 'universal-video-json',
    format_version: '0.1',
    revision: storyboard.revision ?? 1,
    campaign_id: storyboard.campaignId,
    video_id: storyboard.videoId,
    language: storyboard.language,
    platform: storyboard.platform,
    variant: storyboard.variant ?? 'a',
    frame: { width: frame.width, height: frame.height, fps: ENCODING[quality].fps },
    voice: {
      // One of config/voices.ts's ids by construction: the create's schema took only those, and the default is one.
      id: (asked && VOICE_OPTIONS_BY_ID.has(asked) ? asked : defaultVoiceId(storyboard.language)) as VideoDocument['voice']['id'],
      engine: storyboard.voice?.engine ?? null,
      name: storyboard.voice?.name ?? null,
    },
    captions: storyboard.captions ?? 'burned',
    quality,
    brand: { primary_color: hexColor(storyboard.brand.primary), logo_url: options?.brand?.logo_url ?? null },
    scenes,
    assets: { screens },
    quality_report: input.qualityReport ?? null,
  };
}
