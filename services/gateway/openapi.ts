/** The OpenAPI 3.1 document, built from the public actions' own schemas (./public-actions.ts) and the settings. */
import type { AppConfig } from '../../config';
import { ErrorBodySchema, LimiterBodySchema, UniversalVideoJsonSchema, webhookBodySchema } from '../../lib/http/api-schemas';
import { ACCEPTED_CONTENT_ENCODINGS, formatBytes, RETRY_AFTER_SECONDS } from '../../lib/errors';
import { FILE_PATHS, SCREEN_PATH, type FileKind } from '../../lib/storage/file-links';
import { SCREENSHOT_ID_PATTERN } from '../../lib/storage/keys';
import type { WebhookEventType } from '../../lib/net/webhooks';
import { publicActions } from './public-actions';

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
});
const rateHeaders = {
  'X-RateLimit-Limit': { description: 'The limit that applied.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Reset time, Unix milliseconds.', schema: { type: 'integer' } },
};

const DOWNLOAD_SUMMARIES: Record<FileKind, string> = {
  video: 'Download a video (file_url)',
  captions: "Download a video's WebVTT captions (captions_url)",
  captions_srt: "Download a video's SubRip captions (captions_srt_url)",
  thumbnail: "Download a video's poster frame (thumbnail_url)",
};

/**
 * The signed download links a ready video carries: outside /api/v1, no API key (the link's signature is the
 * credential), served with Range by the gateway's /files route.
 */
function downloadPaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const kind of Object.keys(FILE_PATHS) as FileKind[]) {
    const { dir, extension, contentType } = FILE_PATHS[kind];
    const operation = (method: string) => ({
      operationId: `download_${kind}${method === 'head' ? '_head' : ''}`,
      summary: DOWNLOAD_SUMMARIES[kind],
      tags: ['Downloads'],
      description: `Served as \`${contentType}\`. The link comes signed in the campaign's video; it expires (FILE_URL_TTL, 7 days by default).`,
      security: [],
      parameters: [
        { name: 'video_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
        { name: 'expires', in: 'query', required: true, description: 'Unix seconds, as signed.', schema: { type: 'string' } },
        { name: 'signature', in: 'query', required: true, description: 'HMAC-SHA256, hex.', schema: { type: 'string' } },
        { name: 'Range', in: 'header', required: false, description: 'One byte range (bytes=a-b, a-, -n).', schema: { type: 'string' } },
        {
          name: 'If-Range',
          in: 'header',
          required: false,
          description:
            "The file's ETag (or Last-Modified) from an earlier answer: the range is served only if the file is still that one; otherwise the whole file (an edit replaces a video's files under the same link).",
          schema: { type: 'string' },
        },
      ],
      responses: {
        200: { description: 'The whole file.', content: { [contentType.split(';')[0]]: {} } },
        206: { description: 'The requested byte range.', content: { [contentType.split(';')[0]]: {} } },
        400: errorResponse('invalid_input: the path is not valid percent-encoding.'),
        403: errorResponse('forbidden: the link was altered, is malformed, or has expired.'),
        404: errorResponse('not_found: the video is not ready, or has no such file.'),
        416: errorResponse('invalid_input: the range starts past the end of the file.'),
      },
    });
    paths[`/files/${dir}/{video_id}.${extension}`] = { get: operation('get'), head: operation('head') };
  }
  // A campaign's screenshots, linked from a video document's assets.screens.
  const screen = (method: string) => ({
    operationId: `download_screen${method === 'head' ? '_head' : ''}`,
    summary: "Download a campaign's captured screenshot (a video document's assets.screens[].url)",
    tags: ['Downloads'],
    description: `Served as \`${SCREEN_PATH.contentType}\`. The link comes signed in the video document; it expires (FILE_URL_TTL, 7 days by default).`,
    security: [],
    parameters: [
      { name: 'campaign_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      { name: 'screen_id', in: 'path', required: true, schema: { type: 'string', pattern: SCREENSHOT_ID_PATTERN } },
      { name: 'expires', in: 'query', required: true, description: 'Unix seconds, as signed.', schema: { type: 'string' } },
      { name: 'signature', in: 'query', required: true, description: 'HMAC-SHA256, hex.', schema: { type: 'string' } },
      { name: 'Range', in: 'header', required: false, description: 'One byte range (bytes=a-b, a-, -n).', schema: { type: 'string' } },
    ],
    responses: {
      200: { description: 'The whole file.', content: { [SCREEN_PATH.contentType]: {} } },
      206: { description: 'The requested byte range.', content: { [SCREEN_PATH.contentType]: {} } },
      400: errorResponse('invalid_input: the path is not valid percent-encoding.'),
      403: errorResponse('forbidden: the link was altered, is malformed, or has expired.'),
      404: errorResponse('not_found: no such file.'),
      416: errorResponse('invalid_input: the range starts past the end of the file.'),
    },
  });
  paths[`/files/${SCREEN_PATH.dir}/{campaign_id}/{screen_id}.${SCREEN_PATH.extension}`] = { get: screen('get'), head: screen('head') };
  return paths;
}

const DOCUMENT_TAGS = [
  { name: 'Campaigns', description: 'Create, read, list, publish and cancel campaigns.' },
  { name: 'Batches', description: 'Create many campaigns in one request, and follow them together.' },
  { name: 'Reports', description: "Usage by month, and each finished campaign's report (scope reports:read)." },
  { name: 'Webhooks', description: "The events sent to a campaign's webhook_url, and asking for one again." },
  { name: 'Downloads', description: 'The signed links of a ready video: no API key, the signature is the credential.' },
];

const WEBHOOK_HEADERS = [
  {
    name: 'X-Service-Event-Id',
    description: 'Unique per event, the same on every attempt and redelivery: deduplicate on it.',
    example: 'evt_0b4f2c4e-8d1a-4c55-9a77-3f1e2d5c6b7a',
  },
  {
    name: 'X-Service-Timestamp',
    description: 'Unix seconds when this attempt was signed; reject ones too far from now.',
    example: '1764000000',
  },
  {
    name: 'X-Service-Signature',
    description: "Hex HMAC-SHA256, keyed with the organization's webhook secret, of `{timestamp}.{event id}.{raw body}`.",
    example: '5d41402abc4b2a76b9719d911017c592…',
  },
  { name: 'X-Service-Signature-Alg', description: 'Always HMAC-SHA256.', example: 'HMAC-SHA256' },
];

/**
 * OpenAPI 3.1's `webhooks`: what we POST to a campaign's webhook_url (contract §6). Generators make the receiver's
 * types from these; the headers are the ones lib/net/webhooks.ts signs.
 */
function webhookOperations(): Record<string, unknown> {
  const operation = (event: WebhookEventType, summary: string, description: string) => ({
    post: {
      operationId: `webhook_${event.replace('.', '_')}`,
      summary,
      description: `${description} Sent at most 3 times automatically (same event id, fresh timestamp and signature); answer 2xx within a few seconds — a redirect is a failure. Handlers must be idempotent.`,
      tags: ['Webhooks'],
      security: [],
      parameters: WEBHOOK_HEADERS.map(({ name, description: text, example }) => ({
        name,
        in: 'header',
        required: true,
        description: text,
        schema: { type: 'string' },
        example,
      })),
      requestBody: { required: true, content: { 'application/json': { schema: webhookBodySchema(event) } } },
      responses: { '2XX': { description: 'Received: no further attempt is made.' } },
    },
  });
  return {
    'campaign.completed': operation(
      'campaign.completed',
      'A campaign reached review: its videos are ready',
      'The campaign finished generating; status is review and every video is ready, with its signed links.',
    ),
    'campaign.failed': operation(
      'campaign.failed',
      'A campaign failed',
      'The campaign failed (or was canceled, or timed out); error says why, with the same code and message as GET.',
    ),
    'video.updated': operation(
      'video.updated',
      "An edited video's re-render ended (an extension of the contract's events)",
      "After PUT …/videos/{video_id}/document: the video is ready at the new revision (file_revision equals revision), or its re-render failed and the previous revision stays in place, the video's error saying why. Its own event id per edit.",
    ),
    'video.ready': operation(
      'video.ready',
      "One video of a campaign's render is ready (an extension of the contract's events; opt-in)",
      "Sent only when the campaign's webhook_events lists it: once per video, as soon as it is ready in the campaign's render, before the campaign reaches review: the last one is written with campaign.completed at the latest, though deliveries are independent and may arrive in either order. The video as GET shows it, with its signed links. Its event id is derived from the video's id, so one video never makes two events; redelivery does not send it again.",
    ),
    'batch.completed': operation(
      'batch.completed',
      "Every campaign of a batch settled (an extension of the contract's events)",
      "Sent to the batch's webhook_url (POST /api/v1/batches) once each of its campaigns is in review, published or failed: the counts by status and each campaign's status. The items' own webhook_urls get their campaign events as usual.",
    ),
  };
}

export function buildOpenApiDocument(config: Pick<AppConfig, 'maxBodyBytes'>): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const action of publicActions()) {
    const pathParams = [...action.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const params = (action.schema.params ?? {}) as { properties?: Record<string, unknown>; required?: string[] };
    const openapi = action.schema.openapi;
    // Every public action documents itself: a missing one is a programming error, found by the first test.
    if (!openapi) throw new Error(`public action ${action.name} has no openapi description`);
    const service = action.name.split('.')[0];
    const operation: Record<string, unknown> = {
      operationId: action.name.replace('.', '_'),
      summary: openapi.summary,
      description: openapi.description,
      tags: [openapi.tag ?? service.charAt(0).toUpperCase() + service.slice(1)],
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
      parameters: [
        ...pathParams.map((name) => ({ name, in: 'path', required: true, schema: params.properties?.[name] ?? { type: 'string' } })),
        // A GET's other parameters are its query string's (the gateway types them by the same schema).
        ...(action.method === 'GET'
          ? Object.entries(params.properties ?? {})
              .filter(([name]) => !pathParams.includes(name))
              .map(([name, schema]) => {
                const { description, ...rest } = schema as { description?: string };
                return { name, in: 'query', required: !!params.required?.includes(name), description, schema: rest };
              })
          : []),
      ],
      responses: {
        [String(openapi.successStatus)]: {
          description: 'Success.',
          headers: {
            ...rateHeaders,
            'X-Service-Api-Scopes': { description: "The key's scopes, comma-separated.", schema: { type: 'string' } },
          },
          content: { 'application/json': { schema: openapi.response } },
        },
        400: errorResponse('invalid_input: the request is malformed or a field is invalid; the message names the field.'),
        401: errorResponse('unauthorized: missing, invalid or revoked API key.'),
        403: errorResponse('forbidden: the key lacks the required scope, or the plan has no API access.'),
        429: {
          description:
            'rate_limited: a request limit (body { error: "Too many requests" }, Retry-After header) or the monthly quota (standard error body with details).',
          headers: {
            ...rateHeaders,
            'Retry-After': {
              description: 'Seconds to wait: the request limiter, or an allowance whose details carry retry_after_seconds.',
              schema: { type: 'integer' },
            },
          },
          content: {
            'application/json': {
              schema: { oneOf: [{ $ref: '#/components/schemas/ErrorBody' }, { $ref: '#/components/schemas/LimiterBody' }] },
            },
          },
        },
        500: errorResponse('internal: failure on our side; retry with backoff.'),
        503: {
          ...errorResponse(
            'internal: a dependency is unreachable (the database, the rate-limit infrastructure) or a service is briefly unavailable; retry after Retry-After.',
          ),
          headers: {
            'Retry-After': { description: `Seconds to wait (${RETRY_AFTER_SECONDS}).`, schema: { type: 'integer' } },
          },
        },
      },
    };
    if (action.schema.scope) operation['x-required-scope'] = action.schema.scope;
    if (action.method === 'POST' || action.method === 'PUT' || action.method === 'PATCH') {
      const bodyProps = Object.fromEntries(Object.entries(params.properties ?? {}).filter(([name]) => !pathParams.includes(name)));
      if (Object.keys(bodyProps).length) {
        const schema = openapi.requestBody ?? {
          ...params,
          properties: bodyProps,
          required: params.required?.filter((n) => !pathParams.includes(n)),
        };
        operation.requestBody = { required: true, content: { 'application/json': { schema } } };
        // Only a create replays by Idempotency-Key; a PUT carries its own guard (a document's revision).
        if (action.method === 'POST')
          (operation.parameters as unknown[]).push({
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'Same key and body within 24 h returns the first response again; same key with another body gives 409.',
            schema: { type: 'string', maxLength: 255 },
          });
        Object.assign(operation.responses as object, {
          409: errorResponse('conflict: Idempotency-Key reused with a different body, or the request conflicts with the current state.'),
          413: errorResponse(`invalid_input: body larger than ${formatBytes(config.maxBodyBytes)}.`),
          415: errorResponse(
            `invalid_input: a Content-Encoding other than ${ACCEPTED_CONTENT_ENCODINGS.join(', ')}, or a charset other than UTF-8.`,
          ),
          422: errorResponse('invalid_input: the page could not be captured, or its host name did not resolve in time.'),
        });
      }
    }
    if (pathParams.length) {
      Object.assign(operation.responses as object, { 404: errorResponse("not_found: unknown id, or another organization's.") });
      // An action on one campaign (publish) depends on its state.
      if (action.method === 'POST')
        Object.assign(operation.responses as object, { 409: errorResponse("conflict: the campaign's state does not allow this.") });
    }
    // An operation's own reasons (e.g. redelivery's daily allowance) replace the generic descriptions of a status.
    const responses = operation.responses as Record<string, { description: string }>;
    for (const [status, description] of Object.entries(openapi.responses ?? {}))
      responses[status] = responses[status] ? { ...responses[status], description } : errorResponse(description);
    const path = `/api/v1${action.path.replace(/:(\w+)/g, '{$1}')}`;
    paths[path] = { ...paths[path], [action.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Campaign Video Generation API',
      version: '1.0.0',
      description:
        'Submit a public page URL; receive narrated demo videos per language and platform. Version is carried in the /api/v1 path prefix.',
      // No address of its own: the document is the same for every deployment (and committed as openapi.json).
      contact: { name: "Your deployment's operators (sign in to /dashboard)" },
    },
    servers: [{ url: '/' }],
    tags: DOCUMENT_TAGS,
    paths: { ...paths, ...downloadPaths() },
    webhooks: webhookOperations(),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer sk_live_…' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
      schemas: { ErrorBody: ErrorBodySchema, LimiterBody: LimiterBodySchema, UniversalVideoJson: UniversalVideoJsonSchema },
    },
  };
}
