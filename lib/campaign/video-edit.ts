/**
 * Editing a video (decisions §12): what a PUT of the video document may change, checked against the
 * document as it is (readEdit), and which scenes keep their audio (keepsAudio). Pure: the campaign actor reads the
 * document and records the edit (services/campaigns/edits.ts), the voice stage speaks what changed (voice.respeak), the
 * rendering stage renders the one video (rendering.renderEdit).
 *
 * The PUT's schema is the document's own (UniversalVideoJsonSchema) with its read-only members optional
 * (lib/http/api-schemas.ts requestSchemaOf); what a schema cannot say (a screenshot of this campaign, one title first
 * and one closing last, a read-only member changed) is said here, each refusal naming its field.
 */
import { PLATFORM_MAX_SECONDS, type CaptionMode, type LanguageCode, type PlatformName } from '../../config/catalog';
import { VOICE_OPTIONS_BY_ID } from '../../config/voices';
import { invalidInput } from '../errors';
import type { StoryboardScene, VideoEditDocument, VideoEditScene } from './storyboard';
import type { VideoDocument, VideoDocumentScene } from './video-document';

/** An edit's states: its scenes spoken (only those that changed), its video rendered, then one of the two ends. */
export const VIDEO_EDIT_STATES = ['speaking', 'rendering', 'ready', 'failed'] as const;
export type VideoEditState = (typeof VIDEO_EDIT_STATES)[number];
export const VIDEO_EDIT_RUNNING: readonly VideoEditState[] = ['speaking', 'rendering'];

/** decisions §12: at most this many accepted edits per video in any 24 hours, then 429 with Retry-After. */
export const EDITS_PER_VIDEO_PER_DAY = 30;
export const EDIT_WINDOW_MS = 24 * 60 * 60_000;

export type { VideoEditDocument, VideoEditScene };

/** A PUT's body as its schema lets it through: the document, its read-only members optional. */
export type VideoEditInput = Omit<
  VideoDocument,
  'campaign_id' | 'video_id' | 'language' | 'platform' | 'variant' | 'frame' | 'assets' | 'quality_report' | 'voice' | 'brand' | 'scenes'
> &
  Partial<Pick<VideoDocument, 'campaign_id' | 'video_id' | 'language' | 'platform' | 'variant' | 'frame' | 'assets' | 'quality_report'>> & {
    voice: { id: string; engine?: string | null; name?: string | null };
    brand: { primary_color: string | null; logo_url?: string | null };
    scenes: Array<Omit<VideoDocumentScene, 'start_seconds' | 'duration_seconds'> & { start_seconds?: number; duration_seconds?: number }>;
  };

/**
 * The edit `input` asks of the video whose document is `current`, checked; throws 400 `invalid_input` naming the
 * field. The revision is the caller's to compare (409, not 400). Read-only members are ignored when they say what the
 * document says (a client sends back what it read), refused when they say otherwise; measured times are ignored.
 */
export function readEdit(current: VideoDocument, input: VideoEditInput): VideoEditDocument {
  for (const field of ['campaign_id', 'video_id', 'language', 'platform', 'variant'] as const) {
    const given = input[field];
    if (given !== undefined && given !== current[field])
      throw invalidInput(
        `${field}: is read-only; this video's is "${current[field]}" (a video is edited in its own language, platform and variant).`,
      );
  }
  if (input.brand.logo_url !== undefined && input.brand.logo_url !== current.brand.logo_url)
    throw invalidInput("brand.logo_url: is read-only; the logo is the campaign's (brand.logo_url at create).");
  const voice = VOICE_OPTIONS_BY_ID.get(input.voice.id);
  if (!voice || voice.language !== current.language)
    throw invalidInput(
      `voice.id: "${input.voice.id}" is ${voice ? `a ${voice.language} voice` : 'not a voice'}; this video is in ${current.language}.`,
    );

  const screens = new Set(current.assets.screens.map((s) => s.id));
  const kinds = new Map(current.scenes.map((s) => [s.id, s.kind]));
  const seen = new Set<string>();
  const last = input.scenes.length - 1;
  const scenes = input.scenes.map((scene, position): VideoEditScene => {
    const field = `scenes[${position}]`;
    if (seen.has(scene.id)) throw invalidInput(`${field}.id: "${scene.id}" is given twice; each scene has its own id.`);
    seen.add(scene.id);
    const was = kinds.get(scene.id);
    if (was && was !== scene.kind)
      throw invalidInput(`${field}.kind: scene "${scene.id}" is a ${was} scene; a scene keeps its kind (add a new scene instead).`);
    if (scene.kind === 'title' && position !== 0) throw invalidInput(`${field}.kind: the title scene can only be the first.`);
    if (scene.kind === 'closing' && position !== last) throw invalidInput(`${field}.kind: the closing scene can only be the last.`);
    const narration = scene.narration.replace(/\s+/g, ' ').trim();
    const headline = scene.headline.replace(/\s+/g, ' ').trim();
    if (scene.kind !== 'screen') return { id: scene.id, kind: scene.kind, narration, headline, screen: null };
    if (!narration) throw invalidInput(`${field}.narration: a screen scene says something; it is empty.`);
    const screen = scene.screen ?? '';
    if (!screens.has(screen))
      throw invalidInput(`${field}.screen: "${screen}" is not one of this campaign's screenshots (the document's assets.screens).`);
    return { id: scene.id, kind: 'screen', narration, headline, screen };
  });
  return {
    voice_id: voice.id,
    captions: input.captions,
    quality: input.quality,
    primary_color: input.brand.primary_color?.toLowerCase() ?? null,
    scenes,
  };
}

/** A scene's narration as the document shows it: its segments' text, trimmed, joined by a space. */
export function narrationText(scene: Pick<StoryboardScene, 'narration'>): string {
  return scene.narration
    .map((segment) => segment.text.trim())
    .filter(Boolean)
    .join(' ')
    .replace(/\s+/g, ' ');
}

/**
 * Whether an edited scene keeps the audio its base scene was spoken with: the same words in the same voice, and, when
 * the captions follow the words, the words' times were kept with it. Anything else is spoken again.
 */
export function keepsAudio(
  base: Pick<StoryboardScene, 'narration' | 'words'> | undefined,
  edited: Pick<VideoEditScene, 'narration'>,
  voices: { base: string; edited: string },
  captions: CaptionMode,
): boolean {
  if (!base || voices.base !== voices.edited) return false;
  if (narrationText(base) !== edited.narration) return false;
  return captions !== 'words' || (edited.narration === '' ? true : Boolean(base.words?.length));
}

/** The language a voice id speaks (config/voices.ts); undefined for an unknown id. */
export function voiceLanguage(voiceId: string): LanguageCode | undefined {
  return VOICE_OPTIONS_BY_ID.get(voiceId)?.language;
}

/**
 * Why an edited video cannot be posted where it is for: longer than its platform takes (PLATFORM_MAX_SECONDS). The
 * customer's words are spoken as written, so only once spoken is the length known; null when it fits.
 */
export function durationRefusal(platform: PlatformName, seconds: number): string | null {
  const longest = PLATFORM_MAX_SECONDS[platform];
  if (seconds <= longest) return null;
  return `The edited video would last ${Math.round(seconds)} s, and ${platform} takes at most ${longest} s: shorten the narration and edit again.`;
}
