/**
 * The public gateway (moleculer-web) under /api/v1. Every request passes, in order:
 *   per-IP rate limit → API key (401) and plan access (403) → JSON body checks (400/413)
 *   → route → `authorize`: the action's declared scope (403) and per-plan rate (429) → the action (ajv params, 400).
 * Every failure is answered through lib/errors.ts's single mapping.
 * Under /files it serves rendered videos, their posters and captions to anyone holding a signed link (lib/storage/file-links.ts).
 * Its HTTP server bounds slow clients: header, request and keep-alive timeouts, connections per address (gateway/http-limits.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { pipeline } from 'node:stream/promises';
import bodyParser from 'body-parser';
import ApiGateway, { type Alias, type ApiSettingsSchema, type ContextResponseMeta, type Route } from 'moleculer-web';
import { Errors, type ActionSchema, type Context, type Service, type ServiceSchema } from 'moleculer';
import { configOf } from '../config';
import { keyFromHeaders, KEY_PATTERN, type AuthContext } from '../lib/http/auth';
import { clientIp, fromTrustedProxy, parseTrustedProxies, type TrustedProxies } from '../lib/http/client-ip';
import { DASHBOARD_HEADERS, renderView } from '../lib/dashboard/render';
import { coerceQueryParams } from '../lib/http/validator';
import { cookieValue, SESSION_COOKIE } from '../lib/http/session';
import {
  forbidden,
  invalidInput,
  notFound,
  RETRY_AFTER_SECONDS,
  serviceUnavailable,
  toErrorResponse,
  TooManyRequestsError,
  unauthorized,
  unsupportedContentEncoding,
} from '../lib/errors';
import { moleculerMetricsText, opsMetricsText, PROMETHEUS_CONTENT_TYPE } from '../lib/ops/metrics';
import { boundSlowClients } from './gateway/http-limits';
import { buildOpenApiDocument } from './gateway/openapi';
import { publicActions } from './gateway/public-actions';
import {
  createRateLimiter,
  mostConstrained,
  RateLimiterUnavailableError,
  type LayerCheck,
  type LayerState,
  type RateDecision,
  type RateLimiter,
} from '../lib/http/rate-limiter';
import { acquireDatabase, releaseDatabase, type Database } from '../lib/db/database';
import { FILE_PATHS, fileKindOf, loadSigningKey, verifyFileLink } from '../lib/storage/file-links';
import { call } from '../lib/net/calls';
import { storageFor } from '../lib/storage/storage';
import type { ByteRange, FileStorage } from '../lib/storage/files';
import type { DashboardHttp, DashboardMeta } from './dashboard.service';

/**
 * A request as moleculer-web hands it to route middlewares, alias functions, hooks and error handlers: node's
 * IncomingMessage with the gateway's own fields (typed as loosely as moleculer-web's IncomingRequest declares
 * them, so these functions fit its route schema), and the two this gateway adds.
 */
interface Req extends IncomingMessage {
  /** The api.rest call's context: the parent of the calls made while answering. */
  $ctx?: Context;
  /** The action the alias resolved to; its scope and rateLimit are what `authorize` enforces. */
  $action?: ActionSchema;
  /** The call's params as moleculer-web merged them: body, query, then the alias's path parameters. */
  $params: Record<string, unknown>;
  $route?: Route;
  /** process.hrtime() when moleculer-web received the request. */
  $startTime?: number[];
  /** The URL as received (moleculer-web rewrites `url` to the part after the route's path). */
  originalUrl?: string;
  /** The URL's path, without the query string. */
  parsedUrl?: string;
  /** The API key's organization, plan and scopes (authenticateKey). */
  $auth?: AuthContext;
  /** The most constrained rate-limit layer seen so far (checkRate), shown in the X-RateLimit-* headers. */
  $rate?: LayerState;
  /** The parsed JSON body (parseJsonBody); moleculer-web reads it into the params. */
  body?: unknown;
}
type Res = ServerResponse;
type Next = (err?: unknown) => void;

/** The call's meta as the public actions receive it (set in `authorize`). */
export interface GatewayMeta {
  auth?: AuthContext;
  idempotencyKey?: string;
}

/** What moleculer-web's resolveAlias answers: the matching alias and its path parameters, or false. */
type ResolvedAlias = { alias: Alias; params: Record<string, string> } | false;

/** moleculer-web's settings schema covers all of this gateway's settings. */
export type ApiSettings = ApiSettingsSchema;

type ApiMethods = {
  database(): Promise<Database>;
  /** Settles when the answer is sent (its value, the ended response or nothing, is not used). */
  serveDownload(dir: string, req: Req, res: Res): Promise<unknown>;
  resolveAlias(url: string, method?: string): ResolvedAlias;
  logRequest(req: Req): void;
  logResponse(req: Req, res: Res): void;
  answerError(req: Req, res: Res, err: unknown): void;
  checkRate(req: Req, res: Res, layers: LayerCheck[]): Promise<void>;
  limitByIp(req: Req, res: Res, next: Next): void;
  authenticateKey(req: Req, res: Res, next: Next): void;
  parseJsonBody(req: Req, res: Res, next: Next): void;
  authorize(ctx: Context<unknown, GatewayMeta>, route: Route, req: Req, res: Res): Promise<void>;
  dashboardHttp(req: Req): DashboardHttp;
  answerDashboardError(req: Req, res: Res, err: unknown): void;
};

interface ApiLocalVars {
  limiter: RateLimiter;
  trustedProxies: TrustedProxies;
  jsonParser: ReturnType<typeof bodyParser.json>;
  signingKey: Buffer;
  storage: FileStorage;
  /** The database, acquired on first use (readyz); undefined until then and after a failed connection. */
  db?: Promise<Database>;
  /** moleculer-web's HTTP server (undefined in middleware mode). */
  server?: Server;
}

type ApiThis = Service<ApiSettings> & ApiMethods & ApiLocalVars;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** A path segment that decodeURIComponent accepts (moleculer-web decodes path parameters with it). */
function decodable(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** The path without its query string: a signed download's query is its credential and never reaches a log. */
function loggablePath(req: IncomingMessage & { originalUrl?: string }): string {
  const url = req.originalUrl ?? req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : `${url.slice(0, query)}?…`;
}

/** Names of the query parameters as sent (`languages[]`, not qs's parsed `languages`). */
function queryParameterNames(req: IncomingMessage & { originalUrl?: string }): string[] {
  const url = req.originalUrl ?? req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? [] : [...new Set(new URLSearchParams(url.slice(query + 1)).keys())];
}

/** Customer-sent names echoed in an error message: a few, each kept short. */
function shortList(names: string[], most = 10): string {
  const shown = names.slice(0, most).map((name) => (name.length > 40 ? `${name.slice(0, 40)}…` : name));
  return names.length > most ? `${shown.join(', ')} and ${names.length - most} more` : shown.join(', ');
}

/** `<video id>.<extension>`: ids are lowercase UUIDs, exactly as they were signed. */
const DOWNLOAD_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([a-z0-9]+)$/;

/**
 * One `bytes=` range (RFC 9110 §14.1.2). undefined: answer with the whole file, which the RFC allows for
 * a missing, malformed or multi-range header; 'unsatisfiable': 416. Not range-parser (issue 16 item 7 asked for it):
 * version 1.3 answers 416 (-1) to a suffix longer than the file, where the RFC serves the whole file, and to an
 * invalid `bytes=9-3`, which the RFC lets a server ignore; downloads.test.ts pins both.
 */
function parseByteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = header ? /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffixLength = Number(match[2]);
    return suffixLength === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffixLength), end: size - 1 };
  }
  const start = Number(match[1]);
  const last = match[2] === '' ? Infinity : Number(match[2]);
  if (last < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(last, size - 1) };
}

/** A moleculer-web function alias: the file is streamed straight to the response (Range needs the raw response). */
function serveDownload(dir: string) {
  return function (this: ApiThis, req: Req, res: Res, next: Next) {
    this.serveDownload(dir, req, res).catch(next);
  };
}

/** GET and HEAD of `/files/<dir>/:file` for each directory of lib/storage/file-links.ts's FILE_PATHS (captions holds .vtt and .srt). */
const downloadAliases = () =>
  Object.fromEntries(
    [...new Set(Object.values(FILE_PATHS).map((p) => p.dir))].flatMap((dir) => [
      [`GET ${dir}/:file`, serveDownload(dir)],
      [`HEAD ${dir}/:file`, serveDownload(dir)],
    ]),
  );

/** The dashboard's pages and forms (services/dashboard.service.ts), relative to /dashboard; `campaigns/new` before `campaigns/:id`. */
const DASHBOARD_ALIASES: Record<string, string> = {
  'GET /': 'dashboard.home',
  'GET static/:file': 'dashboard.asset',
  'GET sign-in': 'dashboard.signInPage',
  'POST sign-in': 'dashboard.signIn',
  'POST sign-out': 'dashboard.signOut',
  'GET campaigns': 'dashboard.campaigns',
  'GET campaigns/new': 'dashboard.newCampaign',
  'POST campaigns': 'dashboard.createCampaign',
  'GET campaigns/:id': 'dashboard.campaign',
  'GET campaigns/:id/status': 'dashboard.campaignStatus',
  'POST campaigns/:id/publish': 'dashboard.publish',
  'GET keys': 'dashboard.keys',
  'POST keys': 'dashboard.createKey',
  'GET keys/:id/revoke': 'dashboard.revokeKeyPage',
  'POST keys/:id/revoke': 'dashboard.revokeKey',
  'POST webhook-secret/rotate': 'dashboard.rotateWebhookSecret',
};

/**
 * How long the gateway waits for an action's answer, then 503 (REQUEST_TIMEOUT) with Retry-After. A request or answer
 * lost in transit (Redis pub/sub keeps nothing for a node reconnecting after a restart) would otherwise hold the
 * customer's request open for good: the broker's own requestTimeout is 0, since renders take minutes. Not retried
 * (a create must not run twice); the key check, read-only, is retried by the broker's policy after its shorter wait.
 */
const API_CALL_TIMEOUT_MS = 60_000;
const AUTHENTICATE_TIMEOUT_MS = 10_000;

/** How long /readyz waits on each dependency before calling it unreachable. */
const READY_CHECK_MS = 2000;

const ERROR_HEADINGS: Record<number, string> = {
  400: 'That did not work',
  403: 'Not allowed',
  404: 'Not found',
  413: 'Too large',
  429: 'Too many requests',
  503: 'Temporarily unavailable',
};

const ApiService: ServiceSchema<ApiSettings, ApiMethods, ApiLocalVars> = {
  name: 'api',
  mixins: [ApiGateway],

  settings: {
    ip: '0.0.0.0',
    log4XXResponses: false,
    logRequestParams: null,
    logResponseData: null,
    routes: [
      {
        path: '/api/v1',
        mappingPolicy: 'restrict',
        bodyParsers: false,
        authorization: true,
        autoAliases: false,
        callOptions: { timeout: API_CALL_TIMEOUT_MS, retries: 0 },
        aliases: {
          ...Object.fromEntries(publicActions().map((action) => [`${action.method} ${action.path}`, action.name])),
          'GET /openapi.json': 'api.openapi',
        },
        // moleculer-web calls route middlewares with the service as `this`.
        use: [
          function limitByIp(this: ApiThis, req: Req, res: Res, next: Next) {
            this.limitByIp(req, res, next);
          },
          function authenticateKey(this: ApiThis, req: Req, res: Res, next: Next) {
            this.authenticateKey(req, res, next);
          },
          function parseJsonBody(this: ApiThis, req: Req, res: Res, next: Next) {
            this.parseJsonBody(req, res, next);
          },
        ],
        onError(this: ApiThis, req: Req, res: Res, err: unknown) {
          this.answerError(req, res, err);
        },
      },
      {
        // No API key and no per-IP limit: the signature is the credential, and players send many Range requests.
        path: '/files',
        mappingPolicy: 'restrict',
        bodyParsers: false,
        aliases: downloadAliases(),
        onError(this: ApiThis, req: Req, res: Res, err: unknown) {
          this.answerError(req, res, err);
        },
      },
      {
        // The dashboard: HTML forms (urlencoded bodies), a session cookie, a strict CSP on every answer.
        path: '/dashboard',
        mappingPolicy: 'restrict',
        autoAliases: false,
        bodyParsers: { json: false, urlencoded: { extended: false, limit: '64kb' } },
        aliases: DASHBOARD_ALIASES,
        // A page is not replayed whole (its calls are retried on their own): a replay would lack the session token,
        // which the first attempt took out of meta (dashboard checkAccess), and answer a 503 with the sign-in page.
        callOptions: { timeout: API_CALL_TIMEOUT_MS, retries: 0 },
        use: [
          function dashboardHeaders(req: Req, res: Res, next: Next) {
            for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) res.setHeader(name, value);
            next();
          },
        ],
        onBeforeCall(this: ApiThis, ctx: Context<unknown, DashboardMeta>, route: Route, req: Req) {
          ctx.meta.http = this.dashboardHttp(req);
        },
        onError(this: ApiThis, req: Req, res: Res, err: unknown) {
          this.answerDashboardError(req, res, err);
        },
      },
      {
        path: '/',
        mappingPolicy: 'restrict',
        bodyParsers: false,
        aliases: { 'GET healthz': 'api.healthz', 'GET readyz': 'api.readyz', 'GET metrics': 'api.metrics' },
        onError(this: ApiThis, req: Req, res: Res, err: unknown) {
          this.answerError(req, res, err);
        },
      },
    ],
    onError(this: ApiThis, req: Req, res: Res, err: unknown) {
      this.answerError(req, res, err);
    },
  },

  created() {
    const config = configOf(this.broker);
    this.settings.port = config.port;
    this.limiter = createRateLimiter({
      redisUrl: config.redisUrl,
      prefix: `${config.redisPrefix}rl:`,
      windowMs: config.rateLimits.windowMs,
      commandTimeoutMs: config.rateLimits.redisTimeoutMs,
    });
    this.trustedProxies = parseTrustedProxies(config.trustedProxies);
    // moleculer-web's created() (a mixin's, so it ran first) made the server; it listens in started().
    boundSlowClients(this.server, config.http, this.trustedProxies, this.logger);
    this.jsonParser = bodyParser.json({ limit: config.maxBodyBytes, strict: true, type: () => true });
    this.signingKey = loadSigningKey(config);
    this.storage = storageFor(this.broker);
  },

  started() {
    const address = this.server?.address() as AddressInfo | null;
    if (address) this.logger.info(`API listening on port ${address.port}`);
  },

  async stopped() {
    await this.limiter?.close();
    if (this.db) await releaseDatabase(configOf(this.broker));
  },

  actions: {
    /** moleculer-web's HTTP entry point: an HTTP request is never replayed by the broker's retry policy. */
    rest: { retryPolicy: { enabled: false } },
    openapi: {
      visibility: 'published',
      handler() {
        return buildOpenApiDocument(configOf(this.broker));
      },
    },
    healthz: {
      visibility: 'published',
      handler() {
        return { status: 'ok' };
      },
    },
    readyz: {
      visibility: 'published',
      async handler(ctx: Context<unknown, ContextResponseMeta>) {
        const checks: Record<string, string> = {}; // 'ok', or what is wrong
        const config = configOf(this.broker);
        // Each dependency within READY_CHECK_MS: a database that does not answer (pool acquire waits 10 s) is down.
        const probe = async (work: () => Promise<unknown>): Promise<string> => {
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error('no answer in time')), READY_CHECK_MS);
          });
          try {
            await Promise.race([work(), late]);
            return 'ok';
          } catch {
            return 'unreachable';
          } finally {
            clearTimeout(timer);
          }
        };
        [checks.database, checks.rate_limiter] = await Promise.all([
          probe(async () => (await this.database()).sequelize.query('SELECT 1')),
          probe(() => this.limiter.check([{ key: 'readyz', limit: 1_000_000 }])),
        ]);
        if (config.transporter) checks.transporter = this.broker.transit?.connected ? 'ok' : 'unreachable';
        const ready = Object.values(checks).every((v) => v === 'ok');
        if (!ready) {
          ctx.meta.$statusCode = 503;
          ctx.meta.$responseHeaders = { 'Retry-After': String(RETRY_AFTER_SECONDS) };
        }
        return { status: ready ? 'ready' : 'not_ready', checks };
      },
    },
    /**
     * Prometheus text: the cluster's figures from the database (the ops service), then this node's Moleculer
     * metrics. Not retried: a scrape answers 503 at once, and the next scrape is the retry.
     */
    metrics: {
      visibility: 'published',
      retryPolicy: { enabled: false },
      async handler(ctx: Context<unknown, ContextResponseMeta>) {
        const figures = await call(ctx, 'ops.metrics', undefined, { retries: 0 });
        ctx.meta.$responseType = PROMETHEUS_CONTENT_TYPE;
        return `${await opsMetricsText(figures)}\n${moleculerMetricsText(this.broker)}`;
      },
    },
  },

  methods: {
    /** Acquired on first use and kept; a failed connection is retried on the next call. */
    database(): Promise<Database> {
      if (!this.db) {
        this.db = acquireDatabase(configOf(this.broker));
        this.db.catch(() => {
          this.db = undefined;
        });
      }
      return this.db;
    },

    /** The signature is checked before anything else is touched; the bytes come from the file store. */
    async serveDownload(dir: string, req: Req, res: Res) {
      if (!(req.parsedUrl ?? '').split('/').every(decodable)) throw invalidInput('The download path is not valid percent-encoding.');
      const { file, expires, signature } = req.$params;
      const name = typeof file === 'string' ? DOWNLOAD_NAME.exec(file) : null;
      // The directory and the extension name the kind; the signature binds it, so one kind's link opens no other.
      const kind = name ? fileKindOf(dir, name[2]) : undefined;
      const videoId = name && kind ? name[1] : undefined;
      const check =
        kind && videoId && typeof expires === 'string' && typeof signature === 'string'
          ? verifyFileLink(kind, videoId, expires, signature, this.signingKey, Math.floor(Date.now() / 1000))
          : 'invalid';
      if (check === 'expired') throw forbidden('This download link has expired. Read the campaign again for a fresh link.');
      if (check !== 'ok' || !kind || !videoId) throw forbidden('This download link is not valid.');

      // Videos are the campaign actor's: it says which stored file a ready video's link stands for.
      const { storage_key: storageKey } = await call(
        this.broker,
        'campaigns.downloadTarget',
        { video_id: videoId, kind },
        { parentCtx: req.$ctx },
      );
      const stat = storageKey ? await this.storage.stat(storageKey) : null;
      if (!storageKey || !stat) throw notFound('No such file.');

      const range = parseByteRange(req.headers.range, stat.size);
      res.setHeader('Accept-Ranges', 'bytes');
      if (range === 'unsatisfiable') {
        res.setHeader('Content-Range', `bytes */${stat.size}`);
        throw new Errors.MoleculerClientError(`The requested range is outside the file (${stat.size} bytes).`, 416, 'invalid_input');
      }
      // Opened before the file's headers are set, so a failure here still gets a clean error answer.
      const body = req.method === 'HEAD' ? null : await this.storage.createReadStream(storageKey, range);
      res.statusCode = range ? 206 : 200;
      res.setHeader('Content-Type', FILE_PATHS[kind].contentType);
      res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : stat.size));
      if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${stat.size}`);
      res.setHeader('Cache-Control', 'private, max-age=3600');
      res.setHeader('Content-Disposition', `inline; filename="${videoId}.${FILE_PATHS[kind].extension}"`);
      res.setHeader('Last-Modified', new Date(stat.mtimeMs).toUTCString());
      if (!body) return res.end();
      try {
        await pipeline(body, res);
      } catch (err) {
        // The status is already sent: pipeline has destroyed both ends, so the client sees a cut-off response.
        // A client going away (premature close) is routine; a file store failing mid-file is worth a warning.
        if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
          this.logger.warn(`download of ${storageKey} failed mid-file: ${(err as Error).message}`);
      }
    },

    /**
     * moleculer-web decodes path parameters while it looks for the alias, before any route middleware, and
     * throws on malformed percent-encoding (a 500 that skipped the rate limiter). A segment that does not
     * decode is matched as the literal text it is instead: `/campaigns/%ZZ` then passes the limiter and the
     * key check like any request and answers 404 (a malformed id, decisions §2); a download path, 400.
     */
    resolveAlias(url: string, method?: string): ResolvedAlias {
      const literal = url
        .split('/')
        .map((segment) => (decodable(segment) ? segment : encodeURIComponent(segment)))
        .join('/');
      // moleculer-web's typings give its service's methods no signatures: this is its resolveAlias (src/index.js).
      const gateway = ApiGateway.methods as { resolveAlias: (this: ApiThis, url: string, method?: string) => ResolvedAlias };
      return gateway.resolveAlias.call(this, literal, method);
    },

    /** moleculer-web's request and response log lines, without query strings (a download's signature is a credential). */
    logRequest(req: Req) {
      const level = this.settings.logRequest;
      if (req.$route?.logging === false || !level || !(level in this.logger)) return;
      this.logger[level](`=> ${req.method} ${loggablePath(req)}`);
    },

    logResponse(req: Req, res: Res) {
      const level = this.settings.logResponse;
      if (req.$route?.logging === false || !level || !(level in this.logger)) return;
      const start = req.$startTime;
      const elapsed = start ? process.hrtime([start[0], start[1]]) : undefined;
      const time = elapsed ? ` [+${(elapsed[0] * 1000 + elapsed[1] / 1e6).toFixed(3)} ms]` : '';
      this.logger[level](`<= ${res.statusCode} ${req.method} ${loggablePath(req)}${time}`);
    },

    answerError(req: Req, res: Res, err: unknown) {
      const { status, body, headers } = toErrorResponse(err);
      if (status >= 500 && status !== 503)
        this.logger.error(`${req.method} ${loggablePath(req)} failed:`, err instanceof Error ? err.message : err);
      if (res.headersSent) return res.end();
      res.statusCode = status;
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(body));
    },

    dashboardHttp(req: Req): DashboardHttp {
      const cookies = req.headers.cookie;
      const trusted = fromTrustedProxy(req, this.trustedProxies);
      const csrfHeader = req.headers['x-csrf-token'];
      return {
        sessionToken: cookieValue(cookies, SESSION_COOKIE),
        signInNonce: cookieValue(cookies, 'cv_signin'),
        csrfHeader: typeof csrfHeader === 'string' ? csrfHeader : undefined,
        ip: clientIp(req, this.trustedProxies),
        secure:
          configOf(this.broker).publicBaseUrl.startsWith('https:') ||
          'encrypted' in req.socket ||
          (trusted && req.headers['x-forwarded-proto'] === 'https'),
      };
    },

    /** Dashboard failures through the same mapping as the API's, shown as a page (JSON for the status poll); no session → sign-in. */
    answerDashboardError(req: Req, res: Res, err: unknown) {
      const { status, body, headers } = toErrorResponse(err);
      if (status >= 500 && status !== 503)
        this.logger.error(`${req.method} ${loggablePath(req)} failed:`, err instanceof Error ? err.message : err);
      if (res.headersSent) return res.end();
      const path = req.parsedUrl ?? loggablePath(req);
      if (status === 401 && !path.endsWith('/status')) {
        res.statusCode = 303;
        res.setHeader('Location', '/dashboard/sign-in');
        return res.end();
      }
      if (path.endsWith('/status')) return this.answerError(req, res, err);
      res.statusCode = status;
      for (const [name, value] of Object.entries({ ...DASHBOARD_HEADERS, ...headers })) res.setHeader(name, value);
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      const message = 'success' in body ? body.error.message : body.error;
      // A 503 (the database or a service down) passes: the page offers to load the same page again.
      const again = req.originalUrl ?? req.url ?? '';
      res.end(
        renderView('error', {
          title: ERROR_HEADINGS[status] ?? 'Something went wrong',
          heading: ERROR_HEADINGS[status] ?? 'Something went wrong',
          message,
          retry: status === 503 && req.method === 'GET' && again.startsWith('/dashboard/') ? again : undefined,
        }),
      );
    },

    /** Checks `layers` and records the most constrained layer seen so far for the X-RateLimit-* headers. */
    async checkRate(req: Req, res: Res, layers: LayerCheck[]) {
      let decision: RateDecision;
      try {
        decision = await this.limiter.check(layers);
      } catch (err) {
        if (err instanceof RateLimiterUnavailableError) {
          this.logger.warn(`rate limiter unavailable, answering 503: ${err.message}`);
          throw serviceUnavailable('Rate limiting is unavailable, and the API refuses unmetered traffic. Retry with backoff.');
        }
        throw err;
      }
      const candidates = req.$rate ? [req.$rate, ...decision.layers] : decision.layers;
      const shown = decision.allowed ? mostConstrained(candidates) : mostConstrained(decision.layers);
      req.$rate = shown;
      res.setHeader('X-RateLimit-Limit', String(shown.limit));
      res.setHeader('X-RateLimit-Remaining', String(Math.max(0, shown.remaining)));
      res.setHeader('X-RateLimit-Reset', String(shown.resetAtMs));
      if (!decision.allowed) throw new TooManyRequestsError(Math.max(1, decision.retryAfterSeconds));
    },

    limitByIp(req: Req, res: Res, next: Next) {
      const config = configOf(this.broker);
      const ip = clientIp(req, this.trustedProxies);
      const keyed = req.headers.authorization !== undefined || req.headers['x-api-key'] !== undefined;
      const layer = keyed
        ? { key: `ip:auth:${ip}`, limit: config.rateLimits.ipAuthenticated }
        : { key: `ip:unauth:${ip}`, limit: config.rateLimits.ipUnauthenticated };
      this.checkRate(req, res, [layer]).then(() => next(), next);
    },

    authenticateKey(req: Req, res: Res, next: Next) {
      const key = keyFromHeaders(req.headers);
      if (!key || !KEY_PATTERN.test(key)) return next(unauthorized(key ? 'Invalid API key.' : undefined));
      const options = { parentCtx: req.$ctx, timeout: AUTHENTICATE_TIMEOUT_MS };
      call(this.broker, 'accounts.authenticate', { key }, options).then((auth) => {
        if (!auth) return next(unauthorized('Invalid or revoked API key.'));
        req.$auth = auth;
        res.setHeader('X-Service-Api-Scopes', auth.scopes.join(','));
        res.setHeader('X-RateLimit-Plan', auth.plan);
        if (!auth.limits.apiAccess) return next(forbidden(`The ${auth.plan} plan has no API access; Growth or above is required.`));
        next();
      }, next);
    },

    parseJsonBody(req: Req, res: Res, next: Next) {
      // A POST takes its fields from the body only: moleculer-web would otherwise merge the query over the body.
      const queryNames = req.method === 'POST' ? queryParameterNames(req) : [];
      if (queryNames.length > 0) {
        return next(
          invalidInput(`Query parameters are not accepted on POST; send fields in the JSON body (got: ${shortList(queryNames)}).`),
        );
      }
      if (!hasBody(req)) {
        req.body = {};
        return next();
      }
      if (!JSON_TYPE.test(String(req.headers['content-type'] ?? ''))) return next(invalidInput('Content-Type must be application/json.'));
      this.jsonParser(req, res, (err?: { type?: unknown; status?: number }) => {
        const encoding = shortList([String(req.headers['content-encoding'] ?? 'identity').toLowerCase()]);
        // A body that fails to decompress reaches us as zlib's own error, with no body-parser type.
        if (err && err.type === undefined && err.status === 400 && encoding !== 'identity') {
          return next(invalidInput(`Request body could not be decompressed as Content-Encoding: ${encoding}.`));
        }
        if (err?.type === 'encoding.unsupported') return next(unsupportedContentEncoding(encoding));
        if (err) return next(err);
        const body = req.body;
        if (body === null || typeof body !== 'object' || Array.isArray(body))
          return next(invalidInput('Request body must be a JSON object.'));
        next();
      });
    },

    /** moleculer-web's authorization hook: the action's declared scope, then its rate-limit layer. */
    async authorize(ctx: Context<unknown, GatewayMeta>, route: Route, req: Req, res: Res) {
      const action: ActionSchema = req.$action ?? {};
      const auth = req.$auth!;
      ctx.meta.auth = auth;
      const idempotencyKey = req.headers['idempotency-key'];
      if (typeof idempotencyKey === 'string') ctx.meta.idempotencyKey = idempotencyKey;
      if (action.scope && !auth.scopes.includes(action.scope)) {
        throw forbidden(`This API key lacks the ${action.scope} scope. Create a new key to obtain it.`);
      }
      // A GET's parameters come from the query string, as text: typed by the action's schema before its check.
      if (req.method === 'GET') coerceQueryParams(action.params, req.$params);
      if (action.rateLimit === 'plan') {
        await this.checkRate(req, res, [{ key: `plan:${auth.orgId}`, limit: auth.limits.ratePerMinute }]);
      }
    },
  } satisfies ApiMethods & ThisType<ApiThis>,
};

export default ApiService;
