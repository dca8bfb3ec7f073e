/**
 * Our stable error codes (campaign-api.md §7) and the one mapping from any error to the documented body.
 * Services throw ApiError subclasses of MoleculerClientError; the database or a service unreachable becomes 503
 * `internal` with Retry-After (RETRY_AFTER_SECONDS); everything else becomes 500 `internal`.
 */
import { Errors } from 'moleculer';

/** Every `error.code` the API answers with (campaign-api.md §7): the type, the mapping and the OpenAPI enum derive from it. */
export const API_ERROR_CODES = [
  'invalid_input',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'rate_limited',
  'internal',
  'timeout',
] as const;
export type ErrorCode = (typeof API_ERROR_CODES)[number];

export interface ErrorBody {
  success: false;
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

const { MoleculerClientError, MoleculerRetryableError } = Errors;

/** Request bodies may come compressed with these (body-parser inflates them; `zstd` where Node has it). */
export const ACCEPTED_CONTENT_ENCODINGS = ['gzip', 'deflate', 'br', 'zstd'] as const;

export const invalidInput = (message: string, status: 400 | 405 | 413 | 422 = 400) =>
  new MoleculerClientError(message, status, 'invalid_input');
/**
 * The page cannot be captured (a login wall, a challenge, an error status, nothing on it, not reachable): 422
 * `invalid_input` with the reason when a create is checked; at collection the capture stage fails the campaign with
 * `capture_failed` and the same reason.
 */
export class PageRefusedError extends MoleculerClientError {
  constructor(reason: string) {
    super(reason, 422, 'invalid_input');
  }
}
export const unauthorized = (message = 'A valid API key is required (Authorization: Bearer <API_KEY> or X-API-Key).') =>
  new MoleculerClientError(message, 401, 'unauthorized');
export const forbidden = (message: string) => new MoleculerClientError(message, 403, 'forbidden');
export const notFound = (message = 'Campaign not found.') => new MoleculerClientError(message, 404, 'not_found');
export const conflict = (message: string) => new MoleculerClientError(message, 409, 'conflict');
export const quotaExceeded = (details: { used: number; limit: number; resets_at: string; requested?: number }) =>
  new MoleculerClientError(
    details.requested === undefined
      ? `Monthly video quota reached (${details.used} of ${details.limit} campaigns used this month). Overage is never billed.`
      : `Monthly video quota too low for this batch: it asks for ${details.requested} campaigns and ${Math.max(0, details.limit - details.used)} of ${details.limit} are left this month; nothing was created. Overage is never billed.`,
    429,
    'rate_limited',
    { details },
  );
/**
 * 429 in the standard body for an allowance of our own (not the request limiter): `details.retry_after_seconds`
 * also becomes the Retry-After header. Plain data, so it survives the transporter between nodes.
 */
export const allowanceExhausted = (message: string, details: { limit: number; retry_after_seconds: number }) =>
  new MoleculerClientError(message, 429, 'rate_limited', { details });
/** 415: the gateway cannot read a body sent with this Content-Encoding. */
export const unsupportedContentEncoding = (encoding: string) =>
  new MoleculerClientError(
    `Content-Encoding ${JSON.stringify(encoding)} is not supported; send the body as it is or compressed with ${ACCEPTED_CONTENT_ENCODINGS.join(', ')}.`,
    415,
    'invalid_input',
  );
/** 408: the gateway's HTTP server did not receive the request's headers, or all of it, in time (a slow client). */
export const requestTimedOut = (message: string) => new MoleculerClientError(message, 408, 'timeout');
/** Retryable: the retry policy keys off `retryable`, never off messages. */
export const serviceUnavailable = (message: string) => new MoleculerRetryableError(message, 503, 'internal');

/**
 * The Retry-After (seconds) of every 503 we answer: a PostgreSQL restart, a Redis failover or a node rejoining
 * takes seconds, and a client waiting this long does not pile onto a dependency that is coming back.
 */
export const RETRY_AFTER_SECONDS = 5;

/**
 * The database cannot be reached (down, restarting, refusing or dropping connections). Retryable, and never the
 * campaign's fault: the API answers 503 `internal` with Retry-After, and the campaign actor waits (STAGE_WAITS_ON).
 * DbMixin turns the driver's errors into this one in the service that met them (mixins/db.mixin.ts).
 */
export class DatabaseUnavailableError extends MoleculerRetryableError {
  static readonly TYPE = 'DATABASE_UNAVAILABLE';
  static readonly MESSAGE = "We can't reach our database right now; try again in a few seconds.";
  /** `reason`: the driver's message, for the logs (never shown to customers). */
  constructor(reason?: string) {
    super(DatabaseUnavailableError.MESSAGE, 503, DatabaseUnavailableError.TYPE, reason ? { reason } : undefined);
  }
}

/** Sequelize's "no connection" family (AccessDenied and InvalidConnection are settings, not an outage). */
const SEQUELIZE_CONNECTION_ERROR =
  /^Sequelize(Connection|ConnectionRefused|ConnectionAcquireTimeout|ConnectionTimedOut|HostNotFound|HostNotReachable)Error$/;
/**
 * PostgreSQL's SQLSTATEs for it: class 08 (connection exception), 57P01–57P03 (admin shutdown, crash shutdown,
 * cannot connect now: starting up or shutting down), 53300 (too many connections).
 */
const PG_UNAVAILABLE_STATE = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;
/** pg's own errors when its connection drops; they carry no code. */
const PG_CONNECTION_LOST = /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable)/;
/** Node's socket errors: the database's only when the driver passed them on (another client's would read the same). */
const SOCKET_ERROR = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE)$/;

/**
 * The one definition of "the database is unreachable". Works on the errors themselves and on their plain copies
 * after the transporter (name, type, code and message survive; classes and causes do not), so it never relies on
 * instanceof. Follows Sequelize's `original`/`parent`, `cause`, and umzug's `jse_cause`. `fromDatabase`: `err`
 * came from a database call itself (a connect, a raw query), so a bare socket error counts too.
 */
export function isDatabaseUnavailable(err: unknown, fromDatabase = false): boolean {
  type Link = {
    name?: unknown;
    type?: unknown;
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    original?: unknown;
    parent?: unknown;
    jse_cause?: unknown;
  };
  let viaDriver = fromDatabase;
  for (let e = err as Link | undefined, depth = 0; e && typeof e === 'object' && depth < 8; depth += 1) {
    if (e.name === 'DatabaseUnavailableError' || e.type === DatabaseUnavailableError.TYPE) return true;
    const name = typeof e.name === 'string' ? e.name : '';
    if (SEQUELIZE_CONNECTION_ERROR.test(name)) return true;
    if (typeof e.code === 'string' && (PG_UNAVAILABLE_STATE.test(e.code) || (viaDriver && SOCKET_ERROR.test(e.code)))) return true;
    if (typeof e.message === 'string' && PG_CONNECTION_LOST.test(e.message)) return true;
    // Below a Sequelize error, what is wrapped is the driver's.
    if (name.startsWith('Sequelize')) viaDriver = true;
    e = (e.original ?? e.parent ?? (typeof e.cause === 'object' ? e.cause : undefined) ?? e.jse_cause) as Link | undefined;
  }
  return false;
}

/** What a caught value says: an Error's message, or the value as text (anything can be thrown). */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A pipeline stage could not do its work. `code` becomes the failed campaign's error.code; retryable
 * failures are retried by the broker's retry policy first (it keys off `retryable`).
 */
export const STAGE_ERROR_CODES = ['capture_failed', 'translation_failed', 'speech_failed', 'render_failed', 'timeout'] as const;
export type StageErrorCode = (typeof STAGE_ERROR_CODES)[number];
export function stageFailure(code: StageErrorCode, message: string, retryable: boolean, data?: Record<string, unknown>) {
  return retryable ? new MoleculerRetryableError(message, 503, code, data) : new Errors.MoleculerError(message, 500, code, data);
}

/** Every code a failed campaign's `error.code` can hold: a stage's, `canceled` by its customer, or `internal` for anything else. */
export const CAMPAIGN_FAILURE_CODES = [...STAGE_ERROR_CODES, 'canceled', 'internal'] as const;

/**
 * The work of a campaign its customer canceled (decisions §11), stopped where it stood. Not retryable; the campaign
 * is already `failed` with `canceled` when a stage throws this, so the actor records nothing more.
 */
export class CampaignCanceledError extends Errors.MoleculerError {
  static readonly TYPE = 'canceled';
  constructor(campaignId: string) {
    super(`Campaign ${campaignId} was canceled.`, 409, CampaignCanceledError.TYPE, { campaignId });
  }
}

/**
 * A stage stopped through no fault of the campaign (its node is stopping, or a stage service left):
 * the actor keeps the campaign waiting in its state and resumes it when the stage is back.
 */
export class StageInterruptedError extends MoleculerRetryableError {
  static readonly TYPE = 'STAGE_INTERRUPTED';
  constructor(message: string) {
    super(message, 503, StageInterruptedError.TYPE);
  }
}

/** A render node refused: every slot is taken; the caller waits for a free slot (not a failed attempt). */
export class RendererBusyError extends MoleculerRetryableError {
  static readonly TYPE = 'RENDERER_BUSY';
  constructor(nodeID: string) {
    super(`Render node ${nodeID} has no free slot.`, 503, RendererBusyError.TYPE, { nodeID });
  }
}
/** A render node stopped rendering (stopping, the cluster unreachable, or its answer lost): the render is abandoned, to be redone on another node. */
export class RenderInterruptedError extends MoleculerRetryableError {
  static readonly TYPE = 'RENDER_INTERRUPTED';
  constructor(nodeID: string, message = `Render node ${nodeID} stopped during the render.`) {
    super(message, 503, RenderInterruptedError.TYPE, { nodeID });
  }
}

/*
 * "A node is gone", in Moleculer's error types, defined once here and composed below for each decision that keys off
 * it (the campaign actor's wait, the rendering stage's lost render, the gateway's 503).
 */
/** No node offers the action: its service left, or never came. */
const NO_NODE = ['SERVICE_NOT_FOUND', 'SERVICE_NOT_AVAILABLE'];
/** This node's own transporter is down (Moleculer's BrokerDisconnectedError: a Redis restart); the call never left. */
const TRANSPORTER_DOWN = ['BAD_GATEWAY'];
export const isTransporterDown = (err: unknown): boolean => TRANSPORTER_DOWN.includes((err as { type?: string } | null)?.type ?? '');
/** The call was sent and no answer came in time, or it was dropped past its deadline. */
const NO_ANSWER = ['REQUEST_TIMEOUT', 'REQUEST_SKIPPED'];

/**
 * Errors after which the stage is retried later rather than failing the campaign: its node stopping, a stage gone,
 * the database down, or this node's transporter down.
 */
export const STAGE_WAITS_ON = new Set<string>([StageInterruptedError.TYPE, ...NO_NODE, ...TRANSPORTER_DOWN, DatabaseUnavailableError.TYPE]);

/**
 * A render lost with its node, to be sent again elsewhere rather than counted as the video's failure: the render node
 * stopped (RENDER_INTERRUPTED) or left, its answer never came (timed out, or refused by a node going down), or the
 * stage that sent it was interrupted.
 */
export const RENDER_LOST_ON = new Set<string>([
  RenderInterruptedError.TYPE,
  StageInterruptedError.TYPE,
  ...NO_NODE,
  'REQUEST_TIMEOUT',
  'REQUEST_REJECTED',
]);

/**
 * Moleculer's errors for a call that could not reach the cluster: the node's own transporter down, no node offering
 * the action, or no answer in time. Work that failed on one of these failed through no fault of its own and is redone,
 * not counted as a failure.
 */
const CLUSTER_UNREACHABLE = new Set([...TRANSPORTER_DOWN, ...NO_NODE, ...NO_ANSWER]);

/** Whether `err` (or what it wraps) is a call that did not reach the cluster (CLUSTER_UNREACHABLE). */
export function isClusterUnreachable(err: unknown): boolean {
  for (let e = err as { type?: unknown; cause?: unknown } | undefined, depth = 0; e && typeof e === 'object' && depth < 8; depth += 1) {
    if (typeof e.type === 'string' && CLUSTER_UNREACHABLE.has(e.type)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

/** The request limiter's 429 has its own documented body and headers. */
export class TooManyRequestsError extends MoleculerClientError {
  constructor(public readonly retryAfterSeconds: number) {
    super('Too many requests', 429, 'rate_limited', { retryAfterSeconds });
  }

  /**
   * The seconds to wait of a rate limiter's refusal, on this node or rebuilt by the transporter from another (the plan's
   * rate is refused where the action runs: mixins/action-rules.ts); undefined for any other error (a quota's 429 says
   * its wait in `details`).
   */
  static retryAfterOf(err: unknown): number | undefined {
    if (err instanceof TooManyRequestsError) return err.retryAfterSeconds;
    const e = err as { code?: unknown; type?: unknown; data?: { retryAfterSeconds?: unknown } } | null;
    const seconds = e?.data?.retryAfterSeconds;
    return e?.code === 429 && e.type === 'rate_limited' && typeof seconds === 'number' ? seconds : undefined;
  }
}

const PUBLIC_CODES = new Set<string>(API_ERROR_CODES);

export interface ErrorResponse {
  status: number;
  body: ErrorBody | { error: string };
  headers: Record<string, string>;
}

/** 65536 → "64 KiB" (binary units, as the limits are set). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && value % 1024 === 0 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value} ${units[unit]}`;
}

/** The single mapping from an error to the HTTP answer the customer sees. */
export function toErrorResponse(err: unknown): ErrorResponse {
  const retryAfter = TooManyRequestsError.retryAfterOf(err);
  if (retryAfter !== undefined) {
    return { status: 429, body: { error: 'Too many requests' }, headers: { 'Retry-After': String(retryAfter) } };
  }
  const e = err as {
    code?: unknown;
    type?: unknown;
    message?: string;
    data?: { details?: Record<string, unknown> };
    name?: string;
    status?: number;
    statusCode?: number;
  };
  // Body-parser errors (raw-body): too large, malformed JSON, unsupported charset.
  if (e && e.type === 'entity.too.large') {
    const limit = (e as { limit?: unknown }).limit;
    return errorBody(413, 'invalid_input', `Request body is larger than ${typeof limit === 'number' ? formatBytes(limit) : 'the limit'}.`);
  }
  if (e && e.type === 'entity.parse.failed') {
    return errorBody(400, 'invalid_input', 'Request body is not valid JSON.');
  }
  // A body we cannot read at all: 415, as HTTP says (RFC 9110 §15.5.16), in the standard body.
  if (e && (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')) {
    return errorBody(415, 'invalid_input', 'Request body must be UTF-8 JSON without an unsupported charset or Content-Encoding.');
  }
  if (e && e.name === 'ValidationError' && Array.isArray(e.data)) {
    return errorBody(400, 'invalid_input', e.message || 'Invalid request.');
  }
  // The database down: 503, whichever service met it, before or after the transporter.
  if (isDatabaseUnavailable(err)) return unavailable(DatabaseUnavailableError.MESSAGE);
  if (e && typeof e.code === 'number' && typeof e.type === 'string' && PUBLIC_CODES.has(e.type) && e.code < 600) {
    const answer = errorBody(e.code, e.type as ErrorCode, e.message ?? 'Error', e.data?.details);
    const retryAfter = e.data?.details?.retry_after_seconds;
    if (e.code === 429 && typeof retryAfter === 'number') answer.headers['Retry-After'] = String(retryAfter);
    if (e.code === 503) answer.headers['Retry-After'] = String(RETRY_AFTER_SECONDS);
    return answer;
  }
  // moleculer-web: no route or alias matched.
  if (e && e.type === 'NOT_FOUND' && e.code === 404) return errorBody(404, 'not_found', 'No such endpoint.');
  // The action behind a route is not running on any node right now, did not answer in time, or this node's
  // transporter is down (a Redis restart): the cluster could not be reached.
  if (e && (e.code === 503 || isClusterUnreachable(err))) {
    return unavailable('The service is temporarily unavailable. Retry with backoff.');
  }
  return errorBody(500, 'internal', 'Internal error. Safe to retry with backoff.');
}

/** Every 503 says when to come back. */
function unavailable(message: string): ErrorResponse {
  const answer = errorBody(503, 'internal', message);
  answer.headers['Retry-After'] = String(RETRY_AFTER_SECONDS);
  return answer;
}

function errorBody(status: number, code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorResponse {
  const error: ErrorBody['error'] = { code, message };
  if (details) error.details = details;
  return { status, body: { success: false, error }, headers: {} };
}
