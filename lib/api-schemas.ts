/**
 * JSON Schemas of the public API. Actions use the request schemas as their `params` (validated by
 * lib/validator.ts); services/gateway/openapi.ts builds the OpenAPI document from all of them.
 */
import { SUPPORTED_LANGUAGES, PLATFORM_NAMES, DEFAULT_LANGUAGES, DEFAULT_PLATFORMS } from '../config/catalog';
import { PLAN_NAMES, PLANS } from '../config/plans';
import { CAMPAIGN_STATES, VIDEO_STATES } from './campaign-states';
import { API_ERROR_CODES, CAMPAIGN_FAILURE_CODES } from './errors';
import { WEBHOOK_EVENT_TYPES } from './webhooks';

/** "Growth 5, Business 8, Enterprise 8": each API plan's language cap, from the plan table. */
function languageCapsInWords(): string {
  return PLAN_NAMES.filter((plan) => PLANS[plan].apiAccess)
    .map((plan) => `${plan[0].toUpperCase()}${plan.slice(1)} ${PLANS[plan].languagesPerCampaign}`)
    .join(', ');
}

/** decisions §1: a title is 1–200 characters (Unicode code points, as ajv counts them) after trimming. */
export const TITLE_MAX_CHARACTERS = 200;
/** One line of text: no control characters (U+0000–U+001F, U+007F). lib/validator.ts words its error. */
export const SINGLE_LINE_PATTERN = '^[^\\u0000-\\u001F\\u007F]*$';

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
      description: 'Public https URL that receives campaign.completed or campaign.failed.',
    },
    platforms: {
      type: 'array',
      minItems: 1,
      maxItems: PLATFORM_NAMES.length,
      uniqueItems: true,
      items: { type: 'string', enum: PLATFORM_NAMES },
      description: 'Target platforms (extension). One video per language and platform.',
      default: DEFAULT_PLATFORMS,
    },
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

export const VideoSchema = {
  type: 'object',
  required: [
    'id',
    'platform',
    'language',
    'status',
    'file_url',
    'captions_url',
    'captions_srt_url',
    'thumbnail_url',
    'duration_seconds',
    'published_at',
    'script_source',
  ],
  properties: {
    id: { type: 'string' },
    platform: { type: 'string', enum: PLATFORM_NAMES },
    language: { type: 'string' },
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
    script_source: { type: ['string', 'null'], enum: ['localized_page', 'translated', 'source_text', null] },
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
          description: 'On a quota 429: { used, limit, resets_at }.',
          properties: { used: { type: 'integer' }, limit: { type: 'integer' }, resets_at: { type: 'string', format: 'date-time' } },
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
