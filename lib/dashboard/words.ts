/**
 * The dashboard's words for the product's own names: campaign and video states, the timeline's
 * steps, platforms, languages, where a script came from, the create options, webhook events and render outcomes, said
 * as a customer says them. One table per vocabulary, each keyed by the source list it words (CAMPAIGN_STATES,
 * STAGE_ACTIONS, PLATFORM_NAMES, SUPPORTED_LANGUAGES, CAPTION_MODES, …), so a new state or platform without its words
 * is a type error rather than an internal name on screen. Pure: the views and their tests use it alike.
 */
import {
  CAPTION_MODES,
  isOneOf,
  PLATFORM_NAMES,
  RENDER_QUALITIES,
  VIDEO_VARIANTS,
  type CaptionMode,
  type PlatformName,
  type RenderQuality,
} from '../../config/catalog';
import { VOICE_OPTIONS_BY_ID, isDefaultVoice, type VoiceEngineName } from '../../config/voices';
import {
  CAMPAIGN_STATES,
  GENERATING_STATES,
  STAGE_ACTIONS,
  VIDEO_STATES,
  type CampaignState,
  type GeneratingState,
  type VideoState,
} from '../campaign/states';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../net/webhooks';
import type { RenderAttempt } from '../db/models';
import { QUALITY_FLAG_CODES, REPAIR_ACTIONS, type QualityFlagCode, type RepairAction } from '../quality/report';

/** A campaign's state as its status line says it. */
const STATE_WORDS: Record<CampaignState, string> = {
  collecting: 'Capturing the page',
  processing: 'Reading the page',
  scripting: 'Writing scripts',
  voiceover: 'Recording voices',
  rendering: 'Rendering videos',
  review: 'Ready for review',
  published: 'Published',
  failed: 'Failed',
};

/** What each generating state's stage (STAGE_ACTIONS) has done when the campaign moves on. */
const STEP_DONE_WORDS: Record<GeneratingState, string> = {
  collecting: 'Page captured',
  processing: 'Page read and scenes chosen',
  scripting: 'Scripts written',
  voiceover: 'Voices recorded',
  rendering: 'Videos rendered',
};

const VIDEO_STATE_WORDS: Record<VideoState, string> = {
  queued: 'Waiting',
  rendering: 'Rendering',
  ready: 'Ready',
  failed: 'Failed',
};

const PLATFORM_WORDS: Record<PlatformName, string> = {
  tiktok: 'TikTok',
  instagram_reels: 'Instagram Reels',
  youtube_shorts: 'YouTube Shorts',
  youtube: 'YouTube',
  linkedin: 'LinkedIn',
};

/** The create form's choices (CREATIVE_OPTIONS' enums): a name and a line saying what it does. */
export const CAPTION_WORDS: Record<CaptionMode, { label: string; hint: string }> = {
  burned: { label: 'On the video', hint: 'Captions drawn on the picture, line by line, and as WebVTT and SRT files.' },
  file_only: { label: 'As files only', hint: 'A clean picture; the captions as WebVTT and SRT files beside it.' },
  words: { label: 'Word by word', hint: 'Short-form style: the word being said is highlighted as it is spoken.' },
};
export const QUALITY_WORDS: Record<RenderQuality, { label: string; hint: string }> = {
  full: { label: 'Full', hint: "The platform's frame size (e.g. 1080×1920)." },
  draft: { label: 'Draft', hint: 'Half the pixels and a faster encoding: a cheap preview.' },
};

/** The video's own check (decisions §13): each flag's name, and each repair said as what was done to the scene. */
const FLAG_WORDS: Record<QualityFlagCode, string> = {
  blank_scene: 'Empty screen',
  duplicate_screen: 'Same screen twice',
  cut_text: 'Text cut at the edge',
  wrong_language: 'Another language',
  repeated_narration: 'Sentence said twice',
  boilerplate: 'Page furniture, not content',
  cut_narration: 'Narration cut short',
};
const REPAIR_WORDS: Record<RepairAction, string> = {
  replaced: 'shown another section of the page instead',
  reframed: 'framed again',
  dropped: 'removed',
  renarrated: 'given other words from the page',
};

const EVENT_WORDS: Record<WebhookEventType, string> = {
  'campaign.completed': 'Campaign completed',
  'campaign.failed': 'Campaign failed',
  'video.updated': 'Video updated',
  'video.ready': 'Video ready',
  // Recorded under the campaign whose outcome completed its batch (decisions §14).
  'batch.completed': 'Batch completed (this campaign was its last)',
};

const DELIVERY_WORDS: Record<'pending' | 'delivered' | 'failed', string> = {
  pending: 'Being sent',
  delivered: 'Delivered',
  failed: 'Not delivered',
};

const RENDER_OUTCOME_WORDS: Record<RenderAttempt['outcome'], string> = {
  rendering: 'Rendering',
  ready: 'Rendered',
  failed: 'Failed',
  lost: 'Lost with its node',
  busy: 'Node busy',
  canceled: 'Canceled',
};

const SCRIPT_SOURCE_SENTENCES: Record<'localized_page' | 'translated' | 'source_text', (language: string) => string> = {
  localized_page: (language) => `From the page's ${language} version`,
  translated: (language) => `Translated into ${language}`,
  source_text: (language) => `The page's own words, with an opening and a closing line in ${language}`,
};

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** "Japanese" for `ja`; an unknown code as given. */
export function languageName(code: string): string {
  try {
    return languageNames.of(code) ?? code;
  } catch {
    return code;
  }
}

export function stateLabel(state: string): string {
  return isOneOf(CAMPAIGN_STATES, state) ? STATE_WORDS[state] : state;
}

export function videoStateLabel(state: string): string {
  return isOneOf(VIDEO_STATES, state) ? VIDEO_STATE_WORDS[state] : state;
}

export function platformLabel(platform: string): string {
  return isOneOf(PLATFORM_NAMES, platform) ? PLATFORM_WORDS[platform] : platform;
}

/** "From the page's Japanese version" for a Japanese script read off the page's own Japanese version. */
export function scriptSourceSentence(source: string | null, language: string): string {
  if (source === null) return 'Not written yet';
  const sentence = (SCRIPT_SOURCE_SENTENCES as Record<string, ((language: string) => string) | undefined>)[source];
  return sentence ? sentence(languageName(language)) : source;
}

/** A timeline event in words: what was done ("Scripts written"), or what happened ("Canceled", "Published"). */
export interface TimelineStep {
  from_status: string | null;
  to_status: string;
  detail: string | null;
}
export function stepLabel(step: TimelineStep): string {
  const { from_status: from, to_status: to, detail } = step;
  if (from === null) return detail?.startsWith('retry of ') ? 'Retry started' : 'Campaign created';
  if (to === 'failed') {
    if (detail === 'canceled by the customer') return 'Canceled';
    return isOneOf(GENERATING_STATES, from) ? `Failed while ${STATE_WORDS[from].toLowerCase()}` : 'Failed';
  }
  if (to === 'published') return 'Published';
  if (isOneOf(GENERATING_STATES, from) && detail === `${STAGE_ACTIONS[from]} done`) return STEP_DONE_WORDS[from];
  return stateLabel(to);
}

export function eventLabel(event: string): string {
  return isOneOf(WEBHOOK_EVENT_TYPES, event) ? EVENT_WORDS[event] : event;
}

export function deliveryStatusLabel(status: string): string {
  return (DELIVERY_WORDS as Record<string, string | undefined>)[status] ?? status;
}

export function renderOutcomeLabel(outcome: string): string {
  return (RENDER_OUTCOME_WORDS as Record<string, string | undefined>)[outcome] ?? outcome;
}

export function captionsLabel(mode: string): string {
  return isOneOf(CAPTION_MODES, mode) ? CAPTION_WORDS[mode].label : mode;
}

export function qualityLabel(quality: string): string {
  return isOneOf(RENDER_QUALITIES, quality) ? QUALITY_WORDS[quality].label : quality;
}

/** A voice of config/voices.ts as a customer reads it: its description, with espeak-ng's language code named. */
export function voiceLabel(id: string): string {
  const option = VOICE_OPTIONS_BY_ID.get(id);
  if (!option) return id;
  const description = option.description.replace(
    `espeak-ng's ${option.language} voice`,
    `Basic ${languageName(option.language)} voice (eSpeak NG)`,
  );
  return description;
}

const ENGINE_WORDS: Record<VoiceEngineName | 'openai', string> = {
  espeak: 'eSpeak NG',
  'open-jtalk': 'Open JTalk',
  festival: 'Festival',
  flite: 'Flite',
  pico: 'SVOX Pico',
  rhvoice: 'RHVoice',
  openai: 'OpenAI-compatible speech',
};

/** The voice a storyboard records as spoken ({ engine, name }), e.g. "mei_normal (Open JTalk)". */
export function spokenVoiceLabel(voice: { engine: string; name: string }): string {
  const engine = (ENGINE_WORDS as Record<string, string | undefined>)[voice.engine] ?? voice.engine;
  return voice.name ? `${voice.name} (${engine})` : engine;
}

/** The voice a language gets when none is asked for. */
export function defaultVoiceOf(language: string): string | undefined {
  for (const option of VOICE_OPTIONS_BY_ID.values()) if (option.language === language && isDefaultVoice(option)) return option.id;
  return undefined;
}

/** "12 s", "3 min 05 s": a duration in seconds as read at a glance. */
export function durationWords(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '—';
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
}

/** A quality flag's name ("Empty screen"). */
export function flagLabel(code: string): string {
  return isOneOf(QUALITY_FLAG_CODES, code) ? FLAG_WORDS[code] : code;
}

/** A repair as a sentence ("Empty screen: shown another section of the page instead."). */
export function repairSentence(repair: { code: string; action: string }): string {
  const done = isOneOf(REPAIR_ACTIONS, repair.action) ? REPAIR_WORDS[repair.action] : repair.action;
  return `${flagLabel(repair.code)}: ${done}.`;
}

/**
 * A batch's counts by status in words, in the states' own order and without the states it has none in:
 * "3 campaigns: 2 ready for review, 1 rendering videos". With `settled`, how many are done (in review, published or failed).
 */
export function batchCountsWords(counts: Record<string, number>): string {
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const parts = CAMPAIGN_STATES.filter((state) => (counts[state] ?? 0) > 0).map(
    (state) => `${counts[state]} ${STATE_WORDS[state].charAt(0).toLowerCase()}${STATE_WORDS[state].slice(1)}`,
  );
  return `${total} ${total === 1 ? 'campaign' : 'campaigns'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/** Every word function the views get (lib/dashboard/render.ts passes them to every template). */
export const words = {
  stateLabel,
  videoStateLabel,
  stepLabel,
  platformLabel,
  languageName,
  scriptSourceSentence,
  eventLabel,
  deliveryStatusLabel,
  renderOutcomeLabel,
  captionsLabel,
  qualityLabel,
  voiceLabel,
  spokenVoiceLabel,
  durationWords,
  flagLabel,
  repairSentence,
  batchCountsWords,
};

/** A number of hook variants (decisions §15) in words: "One opening", "2 variants (A, B)". */
export function variantsLabel(count: number): string {
  if (count <= 1) return 'One opening';
  const letters = VIDEO_VARIANTS.slice(0, count)
    .map((variant) => variant.toUpperCase())
    .join(', ');
  return `${count} variants (${letters})`;
}

/**
 * A webhook event sent again from the dashboard, and the allowance left: a campaign's last event ("Sent again, …") or
 * the event named (`event`: "batch.completed sent again, …").
 */
export function sentAgainWords(left: number, event?: string): string {
  const sent = event ? `${event} sent again` : 'Sent again';
  return `${sent}, with the same event id and a fresh signature. ${left} more ${left === 1 ? 'redelivery' : 'redeliveries'} allowed in the next 24 hours.`;
}
