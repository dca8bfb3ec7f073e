/**
 * JSON Schemas of the public API. Actions use the request schemas as their `params` (validated by
 * lib/http/validator.ts); services/gateway/openapi.ts builds the OpenAPI document from all of them.
 */
import {
  CAPTION_MODES,
  DEFAULT_LANGUAGES,
  DEFAULT_PLATFORMS,
  PLATFORM_NAMES,
  RENDER_QUALITIES,
  SUPPORTED_LANGUAGES,
  VIDEO_VARIANTS,
} from '../../config/catalog';
import { VOICE_OPTIONS_BY_ID, voiceIdsFor } from '../../config/voices';
import { MAX_BATCH_ITEMS, MAX_VARIANTS, PLAN_NAMES, PLANS } from '../../config/plans';
import { CAMPAIGN_STATES, GENERATING_STATES, VIDEO_STATES } from '../campaign/states';
import { VIDEO_WARNING_CODES } from '../campaign/view';
import { API_ERROR_CODES, CAMPAIGN_FAILURE_CODES } from '../errors';
import { HEX_COLOR_PATTERN, METADATA_MAX_CHARACTERS, METADATA_MAX_PAIRS, MUSIC_DEFAULT_VOLUME } from '../campaign/options';
import { MONTH_PATTERN, REPORT_ID_PREFIX } from '../ops/reports';
import { CAMPAIGN_WEBHOOK_EVENTS, DEFAULT_WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES } from '../net/webhooks';
import { SCREENSHOT_ID_PATTERN } from '../storage/keys';
import { QUALITY_FLAG_CODES, REPAIR_ACTIONS } from '../quality/report';

/** "Growth 5, Business 8, Enterprise 8": each API plan's language cap, from the plan table. */
function languageCapsInWords(): string {
  return PLAN_NAMES.filter((plan) => PLANS[plan].apiAccess)
    .map((plan) => `${plan[0].toUpperCase()}${plan.slice(1)} ${PLANS[plan].languagesPerCampaign}`)
    .join(', ');
}

/** "Growth 2, Business 3, Enterprise 3": each API plan's hook variants per campaign, from the plan table. */
function variantCapsInWords(): string {
  return PLAN_NAMES.filter((plan) => PLANS[plan].apiAccess)
    .map((plan) => `${plan[0].toUpperCase()}${plan.slice(1)} ${PLANS[plan].variantsPerCampaign}`)
    .join(', ');
}

/** decisions §1: a title is 1–200 characters (Unicode code points, as ajv counts them) after trimming. */
export const TITLE_MAX_CHARACTERS = 200;
/** One line of text: no control characters (U+0000–U+001F, U+007F). lib/http/validator.ts words its error. */
export const SINGLE_LINE_PATTERN = '^[^\\u0000-\\u001F\\u007F]*$';

/** The creative options of a create (lib/campaign/options.ts), echoed by GET as given. */
const CREATIVE_OPTIONS = {
  variants: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_VARIANTS,
    description:
      `Hook variants (extension, decisions §15; default 1): this many videos per language and platform, labelled ${VIDEO_VARIANTS.map((v) => `"${v}"`).join(', ')} (each video's variant), whose openings differ: the title scene's narration and headline (a question, a benefit, a number, drawn from the page in the video's language); the rest of each video is the same. ` +
      `Capped by plan (${variantCapsInWords()}; more answers 400 invalid_input naming variants). Variants draw nothing extra from the monthly quota: a campaign counts once.`,
  },
  voice: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: Object.fromEntries(
      SUPPORTED_LANGUAGES.map((language) => {
        const ids = voiceIdsFor(language);
        return [
          language,
          {
            type: 'string',
            enum: ids,
            description: ids.map((id) => `${id}: ${VOICE_OPTIONS_BY_ID.get(id)?.description}`).join('; '),
          },
        ];
      }),
    ),
    description:
      "The voice per language (lower-case codes among the campaign's languages). A language not listed gets the default voice; a voice whose engine a node lacks is spoken by the language's espeak-ng voice (the report names the voice used).",
  },
  captions: {
    type: 'string',
    enum: CAPTION_MODES,
    description:
      'burned (default): captions drawn on the video, and as files; file_only: the WebVTT and SubRip files only; words: short-form style, the word being said highlighted as it is spoken (word-level WebVTT timestamps and SubRip cues).',
  },
  quality: {
    type: 'string',
    enum: RENDER_QUALITIES,
    description: "full (default): the platform's frame; draft: half the pixels, faster encoding, for a cheap preview.",
  },
  brand: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      primary_color: {
        type: 'string',
        pattern: HEX_COLOR_PATTERN,
        description: "#rrggbb: the title and closing cards' colour, instead of the one read from the page.",
      },
      logo_url: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        description:
          'Public http(s) URL of your logo (PNG, JPEG, GIF or SVG, at most 5 MB), drawn on the title and closing cards. Checked against private networks like every URL; fetched when the campaign is created (an unreadable image answers 422) and again when its page is collected.',
      },
    },
  },
  music: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        description:
          'Public http(s) URL of a music track (MP3, AAC, WAV or OGG, at most 20 MB, at least 1 s), played under the narration: looped or cut to each video, faded in and out, ducked while the voice speaks. Checked against private networks like every URL; fetched when the campaign is created (a file that is not audio answers 422) and again when its page is collected.',
      },
      volume: {
        type: 'number',
        exclusiveMinimum: 0,
        maximum: 1,
        default: MUSIC_DEFAULT_VOLUME,
        description: `The music between sentences as a fraction of the narration's amplitude: 1 as loud as the voice, ${MUSIC_DEFAULT_VOLUME} (default) 8 dB below it, 0.1 20 dB below. While the voice speaks the music is ducked some 15 dB further. The mix is mastered to −14 LUFS, true peak ≤ −1 dBTP.`,
      },
    },
    description: 'Music under the voice; without it, the videos have the narration alone.',
  },
} as const;

const METADATA_SCHEMA = {
  type: 'object',
  maxProperties: METADATA_MAX_PAIRS,
  propertyNames: { type: 'string', minLength: 1, maxLength: METADATA_MAX_CHARACTERS },
  additionalProperties: { type: 'string', maxLength: METADATA_MAX_CHARACTERS },
  description: `Your own string pairs (at most ${METADATA_MAX_PAIRS}, keys and values ≤ ${METADATA_MAX_CHARACTERS} characters), never interpreted; echoed in GET, the list and the webhooks.`,
} as const;

/** decisions §15: the events a campaign wants at its webhook_url, named from the event vocabulary (lib/net/webhooks.ts). */
const WEBHOOK_EVENTS_SCHEMA = {
  type: 'array',
  minItems: 1,
  maxItems: CAMPAIGN_WEBHOOK_EVENTS.length,
  uniqueItems: true,
  items: { type: 'string', enum: CAMPAIGN_WEBHOOK_EVENTS },
  default: DEFAULT_WEBHOOK_EVENTS,
  description:
    "The events sent to webhook_url; any other is not sent (nor recorded). video.ready (extension, opt-in) sends one event per video as soon as it is ready in the campaign's render, before the campaign reaches review.",
} as const;

export const CreateCampaignBody = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description:
        'Public page to read. Without a scheme, https:// is assumed. http and https only; the host must resolve to public addresses.',
      examples: ['https://www.acme.io/pricing'],
    },
    languages: {
      type: 'array',
      minItems: 1,
      maxItems: 64,
      items: { type: 'string', minLength: 2, maxLength: 5, pattern: SINGLE_LINE_PATTERN },
      description:
        `Target language codes, case-insensitive, duplicates removed. Supported: ${SUPPORTED_LANGUAGES.join(', ')}. ` +
        `The count is capped by plan (${languageCapsInWords()}).`,
      default: DEFAULT_LANGUAGES,
    },
    title: {
      type: 'string',
      // ajv-keywords: leading and trailing white space is removed before the limits below are checked.
      transform: ['trim'],
      minLength: 1,
      maxLength: TITLE_MAX_CHARACTERS,
      pattern: SINGLE_LINE_PATTERN,
      description:
        `Campaign title: 1–${TITLE_MAX_CHARACTERS} characters (Unicode code points) once leading and trailing white space is removed; ` +
        'one line, no control characters. Defaults to the page host name without www.',
    },
    webhook_url: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description: "Public https URL that receives the campaign's webhook events: those listed in webhook_events.",
    },
    webhook_events: WEBHOOK_EVENTS_SCHEMA,
    platforms: {
      type: 'array',
      minItems: 1,
      maxItems: PLATFORM_NAMES.length,
      uniqueItems: true,
      items: { type: 'string', enum: PLATFORM_NAMES },
      description: 'Target platforms (extension). One video per language and platform.',
      default: DEFAULT_PLATFORMS,
    },
    ...CREATIVE_OPTIONS,
    metadata: METADATA_SCHEMA,
  },
} as const;

export const CampaignIdParams = {
  type: 'object',
  required: ['id'],
  // No length or format limit here: decisions §2 answers any malformed id 404 not_found, like an unknown one.
  properties: { id: { type: 'string', description: 'The campaign_id (a UUID; anything else answers 404).' } },
} as const;

export const CreatedCampaign = {
  type: 'object',
  required: ['success', 'campaign_id', 'job_id', 'status'],
  properties: {
    success: { const: true },
    campaign_id: { type: 'string', format: 'uuid' },
    job_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', const: 'collecting' },
  },
} as const;

/** POST /campaigns/{id}/retry's answer: the new campaign, in the state it starts in (the one its original failed in). */
export const RetriedCampaign = {
  type: 'object',
  required: ['success', 'campaign_id', 'job_id', 'status', 'retry_of'],
  properties: {
    success: { const: true },
    campaign_id: { type: 'string', format: 'uuid' },
    job_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: GENERATING_STATES },
    retry_of: { type: 'string', format: 'uuid', description: 'The failed campaign this one retries.' },
  },
} as const;

/** POST /campaigns/{id}/webhook/redeliver's answer (decisions §11). */
export const WebhookRedelivery = {
  type: 'object',
  required: ['success', 'campaign_id', 'event_id', 'event', 'status', 'redeliveries_left'],
  properties: {
    success: { const: true },
    campaign_id: { type: 'string', format: 'uuid' },
    event_id: { type: 'string', description: 'The X-Service-Event-Id of the first delivery, sent again unchanged.' },
    event: { type: 'string', enum: WEBHOOK_EVENT_TYPES },
    status: { type: 'string', const: 'pending', description: 'Queued: it is sent at once, signed with a fresh timestamp.' },
    redeliveries_left: { type: 'integer', minimum: 0, description: 'Redeliveries this campaign has left in the last 24 hours.' },
  },
} as const;

/** A video's own check (decisions §13, lib/quality/report.ts): what it flagged and what it mended before the video was ready. */
export const QualityReportSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['checked_at', 'passed', 'flags', 'repaired'],
  description:
    "The product's own check of the finished video, made as a customer would look at it (a frame of each scene, its page text read, the narration and captions) before the video was ready; an edited revision is checked again. passed: nothing is flagged. flags: what is still wrong and in which scene (blank_scene, duplicate_screen, cut_text, wrong_language, repeated_narration, boilerplate, cut_narration), in words. repaired: what was flagged and mended before delivery (the scene replaced by another section, reframed, dropped, or its narration replaced). Flags never fail a campaign. Null until the video's first render is checked.",
  properties: {
    checked_at: { type: 'string', format: 'date-time' },
    passed: { type: 'boolean', description: 'No flag left after repair.' },
    flags: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'scene_id', 'message'],
        properties: {
          code: { type: 'string', enum: [...QUALITY_FLAG_CODES] },
          scene_id: { type: 'string', description: "The scene (the video document's scene id) it was seen in." },
          message: { type: 'string', description: 'What is wrong and where, in plain words.' },
        },
      },
    },
    repaired: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'scene_id', 'action'],
        properties: {
          code: { type: 'string', enum: [...QUALITY_FLAG_CODES] },
          scene_id: { type: 'string' },
          action: { type: 'string', enum: [...REPAIR_ACTIONS] },
        },
      },
    },
  },
} as const;

/** A video's hook variant, as a video and its document show it. */
const VARIANT_PROPERTY = {
  type: 'string',
  enum: VIDEO_VARIANTS,
  description:
    'The hook variant (extension, decisions §15): "a" for a campaign without variants; with variants, one video per language, platform and variant, each opening differently and each with its own document.',
} as const;

export const VideoSchema = {
  type: 'object',
  required: [
    'id',
    'platform',
    'language',
    'variant',
    'status',
    'file_url',
    'captions_url',
    'captions_srt_url',
    'thumbnail_url',
    'duration_seconds',
    'published_at',
    'script_source',
    'warnings',
    'revision',
    'file_revision',
    'error',
    'quality',
  ],
  properties: {
    id: { type: 'string' },
    platform: { type: 'string', enum: PLATFORM_NAMES },
    language: { type: 'string' },
    variant: VARIANT_PROPERTY,
    status: { type: 'string', enum: [...VIDEO_STATES] },
    file_url: { type: ['string', 'null'], description: 'Signed, expiring download link (video/mp4); null until ready.' },
    captions_url: { type: ['string', 'null'], description: 'WebVTT captions (text/vtt), signed like file_url; null until ready.' },
    captions_srt_url: {
      type: ['string', 'null'],
      description: 'The same captions as SubRip (application/x-subrip, UTF-8, CRLF), signed like file_url; null until ready.',
    },
    thumbnail_url: {
      type: ['string', 'null'],
      description:
        "Poster frame (image/jpeg, the video's frame size): a frame of the hero scene, the first screen after the title card. Signed like file_url; null until ready.",
    },
    duration_seconds: { type: ['number', 'null'] },
    published_at: { type: ['string', 'null'], format: 'date-time' },
    script_source: {
      type: ['string', 'null'],
      enum: ['localized_page', 'translated', 'source_text', null],
      description:
        "Where the narration's text came from: the page's own version in this language (localized_page), the configured translation provider (translated), or, with neither, the page's text in its own language between an opening and a closing line in this language (source_text; see warnings). Null until the script is written.",
    },
    warnings: {
      type: 'array',
      description:
        "What is not quite as asked about this video, in plain words; empty when nothing is. narration_not_in_language: the scenes are narrated in the page's language, not this video's (script_source source_text); the message says how to get a video narrated in this language. opening_not_distinct: a hook variant (b or c) whose page gave too few words for an opening of its own, so it opens as variant a does (the video is made, as asked; decisions §15).",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: [...VIDEO_WARNING_CODES] },
          message: { type: 'string' },
        },
      },
    },
    revision: {
      type: 'integer',
      minimum: 1,
      description:
        "The video document's revision (GET …/videos/{video_id}/document): 1 for the first render, +1 per accepted edit. While an edit renders (status rendering), the one being rendered.",
    },
    file_revision: {
      type: ['integer', 'null'],
      minimum: 1,
      description:
        'The revision the download links are of: while an edit renders, the previous one keeps being served; null before the first render.',
    },
    error: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['code', 'message'],
      description:
        "Why this video's last render failed: a campaign's render (render_failed), or an edit's re-render or narration (render_failed, speech_failed), after which the previous revision stays in place. Null otherwise.",
      properties: { code: { type: 'string', maxLength: 40 }, message: { type: 'string' } },
    },
    quality: QualityReportSchema,
  },
} as const;

export const CampaignSchema = {
  type: 'object',
  required: ['success', 'campaign_id', 'status', 'url', 'title', 'languages', 'platforms', 'progress', 'created_at', 'videos'],
  properties: {
    success: { const: true },
    campaign_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: CAMPAIGN_STATES },
    url: { type: 'string' },
    title: { type: 'string' },
    languages: { type: 'array', items: { type: 'string' } },
    platforms: { type: 'array', items: { type: 'string' } },
    progress: { type: 'integer', minimum: 0, maximum: 100 },
    created_at: { type: 'string', format: 'date-time' },
    videos: { type: 'array', items: VideoSchema },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string', enum: [...CAMPAIGN_FAILURE_CODES] }, message: { type: 'string' } },
      description: 'Present when status is failed.',
    },
    webhook_events: {
      type: 'array',
      items: { type: 'string', enum: CAMPAIGN_WEBHOOK_EVENTS },
      description: 'The events sent to webhook_url, as given at creation or the default list.',
    },
    ...CREATIVE_OPTIONS,
    metadata: METADATA_SCHEMA,
    report_id: {
      type: 'string',
      pattern: `^${REPORT_ID_PREFIX}`,
      description: 'Present once the campaign has an outcome (review, published or failed): GET /api/v1/reports/{report_id}.',
    },
    retry_of: {
      type: 'string',
      format: 'uuid',
      description: 'Present on a campaign made by POST /api/v1/campaigns/{id}/retry: the failed campaign it retries.',
    },
    batch_id: {
      type: 'string',
      format: 'uuid',
      description: 'Present on a campaign made by POST /api/v1/batches: its batch (GET /api/v1/batches/{id}).',
    },
  },
} as const;

/** decisions §11: GET /api/v1/campaigns takes these query parameters (query strings are coerced by the gateway). */
export const LIST_LIMIT_DEFAULT = 20;
export const LIST_LIMIT_MAX = 100;
export const ListCampaignsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: LIST_LIMIT_MAX,
      description: `Campaigns per page, 1–${LIST_LIMIT_MAX} (default ${LIST_LIMIT_DEFAULT}).`,
    },
    cursor: {
      type: 'string',
      maxLength: 200,
      description: "Opaque: the previous page's next_cursor. Keep the other parameters as they were for that page.",
    },
    status: { type: 'string', enum: CAMPAIGN_STATES, description: 'Only campaigns in this state.' },
    created_after: {
      type: 'string',
      format: 'date-time',
      description: 'Only campaigns created strictly after this ISO 8601 date-time with its offset, e.g. 2026-11-01T00:00:00Z.',
    },
    created_before: {
      type: 'string',
      format: 'date-time',
      description: 'Only campaigns created strictly before this ISO 8601 date-time with its offset.',
    },
    batch_id: {
      type: 'string',
      maxLength: 64,
      description: "Only the campaigns of this batch (POST /api/v1/batches); an unknown or another organization's batch answers 404.",
    },
  },
} as const;

/** A campaign in a list: GET's body without its `success` (the list's envelope carries it). */
const { success: _listedSuccess, ...listedProperties } = CampaignSchema.properties;
export const ListedCampaignSchema = {
  type: 'object',
  required: CampaignSchema.required.filter((name) => name !== 'success'),
  properties: listedProperties,
} as const;

export const CampaignListSchema = {
  type: 'object',
  required: ['success', 'campaigns', 'has_more', 'next_cursor'],
  properties: {
    success: { const: true },
    campaigns: { type: 'array', items: ListedCampaignSchema, description: 'Newest first (created_at, then campaign_id, descending).' },
    has_more: { type: 'boolean', description: 'Whether older campaigns match beyond this page.' },
    next_cursor: { type: ['string', 'null'], description: 'Pass as cursor for the next page; null on the last page.' },
  },
} as const;

export const ErrorBodySchema = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { const: false },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: [...API_ERROR_CODES] },
        message: { type: 'string' },
        details: {
          type: 'object',
          description: 'On a quota 429: { used, limit, resets_at }, and for a batch requested (the campaigns it asked for).',
          properties: {
            used: { type: 'integer' },
            limit: { type: 'integer' },
            resets_at: { type: 'string', format: 'date-time' },
            requested: { type: 'integer', description: 'A batch: its items, one campaign of the quota each, all or none.' },
          },
        },
      },
    },
  },
} as const;

export const LimiterBodySchema = {
  type: 'object',
  required: ['error'],
  properties: { error: { const: 'Too many requests' } },
} as const;

/** decisions §11: GET /api/v1/reports/usage?month=YYYY-MM. */
export const UsageReportQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    month: { type: 'string', pattern: MONTH_PATTERN, description: 'A UTC month, YYYY-MM (default: the current one).' },
  },
} as const;

const figures = {
  videos: { type: 'integer', minimum: 0, description: 'Videos rendered (ready).' },
  seconds: { type: 'number', minimum: 0, description: 'Seconds of video rendered.' },
} as const;

export const UsageReportSchema = {
  type: 'object',
  required: ['success', 'month', 'used', 'limit', 'resets_at', 'campaigns', 'videos', 'by_language', 'by_platform'],
  properties: {
    success: { const: true },
    month: { type: 'string', pattern: MONTH_PATTERN },
    used: { type: 'integer', minimum: 0, description: "Campaigns counted against the month's quota (failed ones are refunded)." },
    limit: { type: 'integer', minimum: 0, description: "The plan's campaigns per month." },
    resets_at: { type: 'string', format: 'date-time', description: 'When the next month begins (UTC).' },
    campaigns: {
      type: 'object',
      required: ['total', 'by_status'],
      properties: {
        total: { type: 'integer', minimum: 0, description: 'Campaigns created in the month.' },
        by_status: {
          type: 'object',
          description: 'Those campaigns by their state now; every state is listed.',
          properties: Object.fromEntries(CAMPAIGN_STATES.map((state) => [state, { type: 'integer', minimum: 0 }])),
        },
      },
    },
    videos: {
      type: 'object',
      required: ['rendered', 'seconds'],
      properties: { rendered: figures.videos, seconds: figures.seconds },
    },
    by_language: {
      type: 'array',
      items: { type: 'object', required: ['language', 'videos', 'seconds'], properties: { language: { type: 'string' }, ...figures } },
    },
    by_platform: {
      type: 'array',
      items: { type: 'object', required: ['platform', 'videos', 'seconds'], properties: { platform: { type: 'string' }, ...figures } },
    },
  },
} as const;

export const ReportIdParams = {
  type: 'object',
  additionalProperties: false,
  required: ['report_id'],
  properties: { report_id: { type: 'string', maxLength: 100, description: "A campaign's report_id (GET shows it)." } },
} as const;

const nullableNumber = { type: ['number', 'null'] } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;

export const CampaignReportSchema = {
  type: 'object',
  required: ['success', 'report_id', 'campaign_id', 'status', 'url', 'created_at', 'finished_at', 'states', 'languages', 'videos'],
  properties: {
    success: { const: true },
    report_id: { type: 'string' },
    campaign_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: CAMPAIGN_STATES },
    url: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    finished_at: { ...nullableTime, description: 'When the campaign reached review or failed.' },
    error: CampaignSchema.properties.error,
    states: {
      type: 'array',
      description: 'Each state the campaign went through, in order, and the time spent in it (null for the current one).',
      items: {
        type: 'object',
        required: ['state', 'entered_at', 'left_at', 'seconds'],
        properties: {
          state: { type: 'string', enum: CAMPAIGN_STATES },
          entered_at: { type: 'string', format: 'date-time' },
          left_at: nullableTime,
          seconds: nullableNumber,
        },
      },
    },
    languages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['language', 'script_source', 'voice', 'total_seconds', 'scenes'],
        properties: {
          language: { type: 'string' },
          script_source: { type: 'string', description: 'As in the video: where the script came from.' },
          voice: {
            type: ['object', 'null'],
            required: ['engine', 'name'],
            properties: { engine: { type: 'string' }, name: { type: 'string' } },
            description: 'The engine and voice that spoke it; null when the campaign ended before its voiceover.',
          },
          total_seconds: nullableNumber,
          scenes: {
            type: 'array',
            items: {
              type: 'object',
              required: ['index', 'kind', 'on_screen_text', 'narration', 'start_seconds', 'duration_seconds'],
              properties: {
                index: { type: 'integer', minimum: 0 },
                kind: { type: 'string', enum: ['title', 'screen', 'closing'] },
                on_screen_text: { type: 'string' },
                narration: { type: 'string', description: 'What the voice said (the script as spoken).' },
                start_seconds: { ...nullableNumber, description: 'Null when the campaign ended before its voiceover.' },
                duration_seconds: nullableNumber,
              },
            },
          },
        },
      },
    },
    videos: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'language', 'platform', 'status', 'duration_seconds', 'render_attempts'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          language: { type: 'string' },
          platform: { type: 'string' },
          status: { type: 'string', enum: VIDEO_STATES },
          duration_seconds: nullableNumber,
          render_attempts: {
            type: 'array',
            items: {
              type: 'object',
              required: ['node_id', 'outcome', 'started_at', 'finished_at', 'seconds', 'error'],
              properties: {
                node_id: { type: ['string', 'null'] },
                outcome: { type: 'string' },
                started_at: { type: 'string', format: 'date-time' },
                finished_at: nullableTime,
                seconds: nullableNumber,
                error: { type: ['string', 'null'] },
              },
            },
          },
        },
      },
    },
  },
} as const;

/** The body POSTed to a campaign's webhook_url for `event` (contract §6; `error` for campaign.failed, decisions §11). */
export function webhookBodySchema(event: (typeof WEBHOOK_EVENT_TYPES)[number]) {
  if (event === 'video.updated') return VideoUpdatedBodySchema;
  if (event === 'video.ready') return VideoReadyBodySchema;
  if (event === 'batch.completed') return BatchCompletedBodySchema;
  const failed = event === 'campaign.failed';
  return {
    type: 'object',
    required: ['event', 'campaign_id', 'status', 'videos', 'timestamp', ...(failed ? ['error'] : [])],
    properties: {
      event: { const: event },
      campaign_id: { type: 'string', format: 'uuid' },
      status: { const: failed ? 'failed' : 'review', description: 'The campaign status at delivery time.' },
      videos: { type: 'array', items: VideoSchema, description: 'As in GET /api/v1/campaigns/{id}.' },
      ...(failed ? { error: CampaignSchema.properties.error } : {}),
      metadata: { ...METADATA_SCHEMA, description: 'As given at creation; absent when none was.' },
      timestamp: { type: 'string', format: 'date-time', description: 'When the event happened (ISO 8601, UTC).' },
    },
  };
}

/** decisions §12: GET /api/v1/campaigns/{id}/videos/{video_id}/document's path parameters. */
export const VideoDocumentParams = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'video_id'],
  properties: {
    id: CampaignIdParams.properties.id,
    video_id: { type: 'string', description: "One of the campaign's videos' id (a UUID; anything else answers 404)." },
  },
} as const;

export const VIDEO_DOCUMENT_FORMAT = 'universal-video-json';
export const VIDEO_DOCUMENT_FORMAT_VERSION = '0.1';
/** What a video document, and so an edit (PUT) and the scene editor, may hold: 1–12 scenes (decisions §12). */
export const VIDEO_DOCUMENT_MAX_SCENES = 12;
const SCENE_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const readOnlySeconds = (description: string) => ({ type: 'number', minimum: 0, readOnly: true, description }) as const;

/**
 * Our draft of Universal Video JSON (decisions §12): one video as a document, written once here. It is the OpenAPI
 * document's components.schemas.UniversalVideoJson, the file served at GET /api/v1/schemas/universal-video-json.json
 * (universalVideoJsonFile), and the schema the edit (PUT) will validate with. The typed client's type of it is
 * components['schemas']['UniversalVideoJson'] (lib/campaign/video-document.ts builds one).
 */
export const UniversalVideoJsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'format',
    'format_version',
    'revision',
    'campaign_id',
    'video_id',
    'language',
    'platform',
    'variant',
    'frame',
    'voice',
    'captions',
    'quality',
    'brand',
    'scenes',
    'assets',
    'quality_report',
  ],
  properties: {
    format: { type: 'string', const: VIDEO_DOCUMENT_FORMAT },
    format_version: { type: 'string', const: VIDEO_DOCUMENT_FORMAT_VERSION },
    revision: {
      type: 'integer',
      minimum: 1,
      description: '1 for the first render, +1 per accepted edit; an edit must carry the revision it was made from.',
    },
    campaign_id: { type: 'string', format: 'uuid', readOnly: true },
    video_id: { type: 'string', format: 'uuid', readOnly: true },
    language: { type: 'string', enum: SUPPORTED_LANGUAGES, readOnly: true },
    platform: { type: 'string', enum: PLATFORM_NAMES, readOnly: true },
    variant: { ...VARIANT_PROPERTY, readOnly: true },
    frame: {
      type: 'object',
      additionalProperties: false,
      required: ['width', 'height', 'fps'],
      readOnly: true,
      description: "The platform's frame in pixels (a draft renders at half its sides) and the frames per second of the render.",
      properties: {
        width: { type: 'integer', minimum: 1 },
        height: { type: 'integer', minimum: 1 },
        fps: { type: 'integer', minimum: 1 },
      },
    },
    voice: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'engine', 'name'],
      properties: {
        id: {
          type: 'string',
          enum: [...VOICE_OPTIONS_BY_ID.keys()],
          description: "The voice asked for (the create's voice per language, else the language's default): one of config/voices.ts's ids.",
        },
        engine: {
          type: ['string', 'null'],
          readOnly: true,
          description: 'The engine that spoke it (a node lacking the asked one uses espeak-ng).',
        },
        name: { type: ['string', 'null'], readOnly: true, description: "That engine's voice." },
      },
    },
    captions: CREATIVE_OPTIONS.captions,
    quality: CREATIVE_OPTIONS.quality,
    brand: {
      type: 'object',
      additionalProperties: false,
      required: ['primary_color', 'logo_url'],
      properties: {
        primary_color: {
          type: ['string', 'null'],
          pattern: HEX_COLOR_PATTERN,
          description:
            "#rrggbb: the title and closing cards' colour (the create's brand.primary_color, else the page's); null when the page's is not a plain colour.",
        },
        logo_url: {
          type: ['string', 'null'],
          maxLength: 2048,
          readOnly: true,
          description: "The create's brand.logo_url, drawn on the title and closing cards; null: none. An edit cannot change it.",
        },
      },
    },
    scenes: {
      type: 'array',
      minItems: 1,
      maxItems: VIDEO_DOCUMENT_MAX_SCENES,
      description: 'In the order they play: one title scene first, screen scenes, one closing scene last.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'kind', 'narration', 'headline', 'start_seconds', 'duration_seconds'],
        properties: {
          id: {
            type: 'string',
            pattern: SCENE_ID_PATTERN,
            description:
              "Stable for the life of the video: an edit keeps a scene by its id (a scene of the first render is scene_<position>); a new scene gets an id of the editor's choosing, unused in this video.",
          },
          kind: { type: 'string', enum: ['title', 'screen', 'closing'] },
          narration: { type: 'string', maxLength: 1000, description: 'The words spoken and captioned.' },
          headline: { type: 'string', maxLength: 200, description: 'The on-screen text band; may be empty.' },
          screen: {
            type: 'string',
            pattern: SCREENSHOT_ID_PATTERN,
            description: "Screen scenes only: the id of one of assets.screens, the campaign's captured screenshots.",
          },
          start_seconds: readOnlySeconds('Measured: where the scene starts in the video.'),
          duration_seconds: readOnlySeconds("Measured: the scene's spoken audio and its pause."),
        },
        if: { required: ['kind'], properties: { kind: { const: 'screen' } } },
        then: { required: ['screen'] },
        else: { not: { required: ['screen'] } },
      },
    },
    assets: {
      type: 'object',
      additionalProperties: false,
      required: ['screens'],
      readOnly: true,
      properties: {
        screens: {
          type: 'array',
          description: "Every screenshot the campaign captured (the page, and each language's own page), for a scene to show.",
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'language', 'viewport', 'heading', 'width', 'height', 'url'],
            properties: {
              id: { type: 'string', pattern: SCREENSHOT_ID_PATTERN, description: '<page>-<viewport>-<n>: stable, unique in the campaign.' },
              language: {
                type: ['string', 'null'],
                description:
                  "The language of the page it shows (a language's own page, or the page's declared language); null: not declared.",
              },
              viewport: { type: 'string', enum: ['desktop', 'mobile'] },
              heading: { type: ['string', 'null'], description: "The heading of the section it shows; null: the page's top, or none." },
              width: { type: 'integer', minimum: 1, description: 'Pixels.' },
              height: { type: 'integer', minimum: 1, description: 'Pixels.' },
              url: { type: 'string', format: 'uri', description: 'Signed, expiring link to the PNG (FILE_URL_TTL), no API key needed.' },
            },
          },
        },
      },
    },
    quality_report: {
      ...QualityReportSchema,
      readOnly: true,
      description:
        "The video's own check of the revision its files are of, as GET shows it in the video's quality (named quality_report here: this document's quality is the render quality). Flags name the scenes by this document's scene ids. An edited revision is checked again; its flags are reported, not repaired.",
    },
  },
} as const;

/**
 * A schema as a request takes it: every member marked readOnly is optional (a client may send back what it read, or
 * leave it out), at every depth. So the PUT of a video document is checked by the document's own schema.
 */
export function requestSchemaOf<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map((item: unknown) => requestSchemaOf(item)) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = requestSchemaOf(value);
  const properties = copy.properties as Record<string, { readOnly?: boolean }> | undefined;
  if (properties && Array.isArray(copy.required)) copy.required = (copy.required as string[]).filter((name) => !properties[name]?.readOnly);
  return copy as T;
}

/**
 * decisions §12: PUT /api/v1/campaigns/{id}/videos/{video_id}/document — the document (its read-only members
 * optional) and the path's ids. The path's video_id is the document's own (read-only) member.
 */
const EditableDocument = requestSchemaOf(UniversalVideoJsonSchema);
export const EditVideoDocumentParams = {
  ...EditableDocument,
  required: [...EditableDocument.required, 'id', 'video_id'],
  properties: {
    ...EditableDocument.properties,
    id: CampaignIdParams.properties.id,
    video_id: VideoDocumentParams.properties.video_id,
  },
} as const;

export const EditedVideo = {
  type: 'object',
  required: ['success', 'video'],
  properties: {
    success: { const: true },
    video: {
      ...VideoSchema,
      description: 'The video as GET shows it: status rendering, revision the new one, the previous files still served.',
    },
  },
} as const;

/** The body POSTed to a campaign's webhook_url for `video.updated` (decisions §12): an edit's re-render finished or failed. */
export const VideoUpdatedBodySchema = {
  type: 'object',
  required: ['event', 'campaign_id', 'video', 'revision', 'timestamp'],
  properties: {
    event: { const: 'video.updated' },
    campaign_id: { type: 'string', format: 'uuid' },
    video: {
      ...VideoSchema,
      description:
        'The video as GET shows it: ready at the new revision (file_revision equals revision), or, when the re-render failed, the previous revision in place with error saying why.',
    },
    revision: { type: 'integer', minimum: 2, description: 'The revision the edit made (whether it was rendered or failed).' },
    metadata: { ...METADATA_SCHEMA, description: 'As given at creation; absent when none was.' },
    timestamp: { type: 'string', format: 'date-time', description: 'When the re-render finished (ISO 8601, UTC).' },
  },
} as const;

/** The body POSTed to a campaign's webhook_url for `video.ready` (decisions §15): one video of the campaign's render is ready. */
export const VideoReadyBodySchema = {
  type: 'object',
  required: ['event', 'campaign_id', 'video', 'timestamp'],
  properties: {
    event: { const: 'video.ready' },
    campaign_id: { type: 'string', format: 'uuid' },
    video: {
      ...VideoSchema,
      description: 'The video as GET shows it at that moment: status ready, revision 1, its download links (signed, expiring).',
    },
    metadata: { ...METADATA_SCHEMA, description: 'As given at creation; absent when none was.' },
    timestamp: { type: 'string', format: 'date-time', description: 'When the video was recorded ready (ISO 8601, UTC).' },
  },
} as const;

/** The schema as its own file (GET /api/v1/schemas/universal-video-json.json): the same object, named and dated. */
export function universalVideoJsonFile() {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: `Universal Video JSON ${VIDEO_DOCUMENT_FORMAT_VERSION} (draft)`,
    description: 'One video of a campaign as a document: its settings, its scenes in order, and the screenshots a scene may show.',
    ...UniversalVideoJsonSchema,
  };
}

export const VideoDocumentResponse = {
  type: 'object',
  required: ['success', 'document'],
  properties: {
    success: { const: true },
    document: { $ref: '#/components/schemas/UniversalVideoJson' },
  },
} as const;

/**
 * decisions §14: POST /api/v1/batches. An item names its page and may set its own title, languages, platforms, metadata
 * and webhook_url; `defaults` holds any create field but url, merged under each item's own. Each merged item is then
 * checked as a create is (its errors name items[i].field).
 */
const { url: _defaultsUrl, ...defaultProperties } = CreateCampaignBody.properties;
const itemFields = CreateCampaignBody.properties;
export const BatchItemSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: itemFields.url,
    title: itemFields.title,
    languages: itemFields.languages,
    platforms: itemFields.platforms,
    variants: itemFields.variants,
    metadata: itemFields.metadata,
    webhook_url: {
      ...itemFields.webhook_url,
      description: "Public https URL that receives this campaign's own webhook events (those listed in webhook_events).",
    },
    webhook_events: itemFields.webhook_events,
  },
} as const;

/** "Growth 20, Business 100, Enterprise 100": each API plan's items per batch, from the plan table. */
function batchCapsInWords(): string {
  return PLAN_NAMES.filter((plan) => PLANS[plan].apiAccess)
    .map((plan) => `${plan[0].toUpperCase()}${plan.slice(1)} ${PLANS[plan].batchItems}`)
    .join(', ');
}

export const CreateBatchBody = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BATCH_ITEMS,
      items: BatchItemSchema,
      description: `One campaign per item, in this order. Items per batch by plan (${batchCapsInWords()}).`,
    },
    defaults: {
      type: 'object',
      additionalProperties: false,
      properties: defaultProperties,
      description: "Any create field but url, applied to every item; an item's own fields win.",
    },
    webhook_url: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description: 'Public https URL that receives batch.completed once every campaign of the batch is in review, published or failed.',
    },
  },
} as const;

export const CreatedBatch = {
  type: 'object',
  required: ['success', 'batch_id', 'campaigns'],
  properties: {
    success: { const: true },
    batch_id: { type: 'string', format: 'uuid' },
    campaigns: {
      type: 'array',
      description: 'One per item, in the order of items.',
      items: {
        type: 'object',
        required: ['index', 'campaign_id', 'url'],
        properties: {
          index: { type: 'integer', minimum: 0, description: "The item's position in items." },
          campaign_id: { type: 'string', format: 'uuid' },
          url: { type: 'string', description: 'The page URL as normalized.' },
        },
      },
    },
  },
} as const;

export const BatchIdParams = {
  type: 'object',
  required: ['id'],
  // Like a campaign id: anything malformed answers 404 not_found, as an unknown one does.
  properties: { id: { type: 'string', description: 'The batch_id (a UUID; anything else answers 404).' } },
} as const;

/** POST /api/v1/batches/{id}/webhook/redeliver's answer: the batch's batch.completed queued again. */
export const BatchWebhookRedelivery = {
  type: 'object',
  required: ['success', 'batch_id', 'event_id', 'event', 'status', 'redeliveries_left'],
  properties: {
    success: { const: true },
    batch_id: { type: 'string', format: 'uuid' },
    event_id: { type: 'string', description: 'The X-Service-Event-Id of the first delivery, sent again unchanged.' },
    event: { type: 'string', const: 'batch.completed' },
    status: { type: 'string', const: 'pending', description: 'Queued: it is sent at once, signed with a fresh timestamp.' },
    redeliveries_left: { type: 'integer', minimum: 0, description: 'Redeliveries this batch has left in the last 24 hours.' },
  },
} as const;

/** A batch's campaigns counted by status: every status, 0 when none. */
const BatchCountsSchema = {
  type: 'object',
  required: [...CAMPAIGN_STATES],
  additionalProperties: false,
  properties: Object.fromEntries(CAMPAIGN_STATES.map((state) => [state, { type: 'integer', minimum: 0 }])),
  description: "The batch's campaigns by status.",
} as const;

export const BatchSchema = {
  type: 'object',
  required: ['success', 'batch_id', 'created_at', 'completed_at', 'counts', 'campaigns'],
  properties: {
    success: { const: true },
    batch_id: { type: 'string', format: 'uuid' },
    created_at: { type: 'string', format: 'date-time' },
    completed_at: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When every campaign was in review, published or failed (batch.completed was sent then); null before.',
    },
    counts: BatchCountsSchema,
    campaigns: {
      type: 'array',
      description: 'In the order of the items; GET /api/v1/campaigns/{id} (or the list with batch_id) for the rest of each.',
      items: {
        type: 'object',
        required: ['campaign_id', 'url', 'status'],
        properties: {
          campaign_id: { type: 'string', format: 'uuid' },
          url: { type: 'string' },
          status: { type: 'string', enum: CAMPAIGN_STATES },
        },
      },
    },
  },
} as const;

export const ListBatchesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: ListCampaignsQuery.properties.limit,
    cursor: ListCampaignsQuery.properties.cursor,
  },
} as const;

const { success: _listedBatchSuccess, ...listedBatchProperties } = BatchSchema.properties;
export const BatchListSchema = {
  type: 'object',
  required: ['success', 'batches', 'has_more', 'next_cursor'],
  properties: {
    success: { const: true },
    batches: {
      type: 'array',
      items: { type: 'object', required: BatchSchema.required.filter((name) => name !== 'success'), properties: listedBatchProperties },
      description: 'Newest first (created_at, then batch_id, descending).',
    },
    has_more: { type: 'boolean', description: 'Whether older batches exist beyond this page.' },
    next_cursor: { type: ['string', 'null'], description: 'Pass as cursor for the next page; null on the last page.' },
  },
} as const;

/** The body POSTed to a batch's webhook_url (decisions §14) once each of its campaigns is in review, published or failed. */
export const BatchCompletedBodySchema = {
  type: 'object',
  required: ['event', 'batch_id', 'counts', 'campaigns', 'timestamp'],
  properties: {
    event: { const: 'batch.completed' },
    batch_id: { type: 'string', format: 'uuid' },
    counts: BatchCountsSchema,
    campaigns: {
      type: 'array',
      description: 'In the order of the items.',
      items: {
        type: 'object',
        required: ['campaign_id', 'status'],
        properties: {
          campaign_id: { type: 'string', format: 'uuid' },
          status: { type: 'string', enum: ['review', 'published', 'failed'] },
        },
      },
    },
    timestamp: { type: 'string', format: 'date-time', description: "When the batch's last campaign settled (ISO 8601, UTC)." },
  },
} as const;
