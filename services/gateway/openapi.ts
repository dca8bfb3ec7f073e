/** The OpenAPI 3.1 document, built from the public actions' own schemas (./public-actions.ts) and the settings. */
import type { AppConfig } from '../../config';
import { ErrorBodySchema, LimiterBodySchema } from '../../lib/api-schemas';
import { ACCEPTED_CONTENT_ENCODINGS, formatBytes } from '../../lib/errors';
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

export function buildOpenApiDocument(config: Pick<AppConfig, 'maxBodyBytes'>): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const action of publicActions()) {
    const pathParams = [...action.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const params = (action.schema.params ?? {}) as { properties?: Record<string, unknown>; required?: string[] };
    const openapi = action.schema.openapi ?? { summary: action.name, successStatus: 200, response: {} };
    const operation: Record<string, unknown> = {
      operationId: action.name.replace('.', '_'),
      summary: openapi.summary,
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
      parameters: pathParams.map((name) => ({ name, in: 'path', required: true, schema: params.properties?.[name] ?? { type: 'string' } })),
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
            'Retry-After': { description: 'Seconds to wait (request limiter only).', schema: { type: 'integer' } },
          },
          content: {
            'application/json': {
              schema: { oneOf: [{ $ref: '#/components/schemas/ErrorBody' }, { $ref: '#/components/schemas/LimiterBody' }] },
            },
          },
        },
        500: errorResponse('internal: failure on our side; retry with backoff.'),
        503: errorResponse('internal: rate-limit infrastructure unreachable; retry with backoff.'),
      },
    };
    if (action.schema.scope) operation['x-required-scope'] = action.schema.scope;
    if (action.method === 'POST' || action.method === 'PUT' || action.method === 'PATCH') {
      const bodyProps = Object.fromEntries(Object.entries(params.properties ?? {}).filter(([name]) => !pathParams.includes(name)));
      if (Object.keys(bodyProps).length) {
        operation.requestBody = { required: true, content: { 'application/json': { schema: { ...params, properties: bodyProps } } } };
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
    } else {
      Object.assign(operation.responses as object, { 404: errorResponse("not_found: unknown id, or another organization's.") });
    }
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
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer sk_live_…' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
      schemas: { ErrorBody: ErrorBodySchema, LimiterBody: LimiterBodySchema },
    },
  };
}
