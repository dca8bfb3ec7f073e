/**
 * The public gateway (moleculer-web) under /api/v1. Every request passes, in order:
 *   per-IP rate limit → API key (401) and plan access (403) → JSON body checks (400/413)
 *   → route → `authorize` (the caller's organization into meta) → the broker's action rules (mixins/action-rules.ts):
 *   the action's declared scope (403) and per-plan rate (429) → the action (ajv params, 400).
 * Every failure is answered through lib/errors.ts's single mapping.
 * Under /mcp it is the MCP server (Streamable HTTP, gateway/mcp.ts): the same checks, then tools that call the same actions.
 * Under /files it serves rendered videos, their posters and captions to anyone holding a signed link (lib/storage/file-links.ts).
 * Its HTTP server bounds slow clients: header, request and keep-alive timeouts, connections per address (gateway/http-limits.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import bodyParser from 'body-parser';
import ApiGateway, { type Alias, type ApiSettingsSchema, type ContextResponseMeta, type Route } from 'moleculer-web';
import type { Context, Service, ServiceSchema } from 'moleculer';
import { configOf } from '../config';
import { keyFromHeaders, KEY_PATTERN } from '../lib/http/auth';
import { clientIp, parseTrustedProxies, type TrustedProxies } from '../lib/http/client-ip';
import { coerceQueryParams } from '../lib/http/validator';
import {
  forbidden,
  invalidInput,
  RETRY_AFTER_SECONDS,
  serviceUnavailable,
  toErrorResponse,
  TooManyRequestsError,
  unauthorized,
  unsupportedContentEncoding,
} from '../lib/errors';
import { moleculerMetricsText, opsMetricsText, PROMETHEUS_CONTENT_TYPE } from '../lib/ops/metrics';
import { DASHBOARD_HEADERS } from '../lib/dashboard/render';
import { answerDashboardError, DASHBOARD_ALIASES, dashboardHttp, readDashboardMultipart } from './gateway/dashboard-route';
import { downloadAliases } from './gateway/downloads';
import { boundSlowClients } from './gateway/http-limits';
import { answerMcp } from './gateway/mcp';
import { buildOpenApiDocument } from './gateway/openapi';
import { publicActions } from './gateway/public-actions';
import { decodable, loggablePath, type Next, type Req, type Res } from './gateway/request';
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
import { loadSigningKey } from '../lib/storage/file-links';
import { universalVideoJsonFile } from '../lib/http/api-schemas';
import { call } from '../lib/net/calls';
import { storageFor } from '../lib/storage/storage';
import type { FileStorage } from '../lib/storage/files';
import type { DashboardMeta } from './dashboard.service';
import type { RulesMeta } from '../mixins/action-rules';

/** The call's meta as the public actions receive it (set in `authorize`; the action rules add the plan layer). */
export interface GatewayMeta extends RulesMeta {
  idempotencyKey?: string;
}

/** What moleculer-web's resolveAlias answers: the matching alias and its path parameters, or false. */
type ResolvedAlias = { alias: Alias; params: Record<string, string> } | false;

/** moleculer-web's settings schema covers all of this gateway's settings. */
export type ApiSettings = ApiSettingsSchema;

type ApiMethods = {
  database(): Promise<Database>;
  resolveAlias(url: string, method?: string): ResolvedAlias;
  logRequest(req: Req): void;
  logResponse(req: Req, res: Res): void;
  answerError(req: Req, res: Res, err: unknown): void;
  checkRate(req: Req, res: Res, layers: LayerCheck[]): Promise<void>;
  showRate(req: Req, res: Res, layers: LayerState[], refused: boolean): void;
  limitByIp(req: Req, res: Res, next: Next): void;
  authenticateKey(req: Req, res: Res, next: Next): void;
  parseJsonBody(req: Req, res: Res, next: Next): void;
  authorize(ctx: Context<unknown, GatewayMeta>, route: Route, req: Req): void;
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

/**
 * How long the gateway waits for an action's answer, then 503 (REQUEST_TIMEOUT) with Retry-After. A request or answer
 * lost in transit (Redis pub/sub keeps nothing for a node reconnecting after a restart) would otherwise hold the
 * customer's request open for good: the broker's own requestTimeout is 0, since renders take minutes. Not retried
 * (a create must not run twice); the key check, read-only, is retried by the broker's policy after its shorter wait.
 */
const API_CALL_TIMEOUT_MS = 60_000;
const AUTHENTICATE_TIMEOUT_MS = 10_000;

const API_CALL_OPTIONS = { timeout: API_CALL_TIMEOUT_MS, retries: 0 };

/**
 * What every API request passes before its route's handler (/api/v1 and /mcp): the per-IP limit, the API key and its
 * plan's API access, the JSON body. moleculer-web calls route middlewares with the service as `this`.
 */
const API_REQUEST_CHECKS = [
  function limitByIp(this: ApiThis, req: Req, res: Res, next: Next) {
    this.limitByIp(req, res, next);
  },
  function authenticateKey(this: ApiThis, req: Req, res: Res, next: Next) {
    this.authenticateKey(req, res, next);
  },
  function parseJsonBody(this: ApiThis, req: Req, res: Res, next: Next) {
    this.parseJsonBody(req, res, next);
  },
];

/** GET and DELETE /mcp: a stateless server has no event stream to open and no session to end (the MCP clients expect 405). */
function mcpMethodNotAllowed(req: Req, res: Res, next: Next) {
  res.setHeader('Allow', 'POST');
  next(invalidInput('The MCP endpoint is stateless: send JSON-RPC messages with POST.', 405));
}

/** How long /readyz waits on each dependency before calling it unreachable. */
const READY_CHECK_MS = 2000;

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
        callOptions: API_CALL_OPTIONS,
        aliases: {
          ...Object.fromEntries(publicActions().map((action) => [`${action.method} ${action.path}`, action.name])),
          'GET /openapi.json': 'api.openapi',
          'GET /schemas/universal-video-json.json': 'api.videoDocumentSchema',
        },
        use: API_REQUEST_CHECKS,
        // The plan layer the action rules counted (meta.planRate) joins the per-IP layer in the X-RateLimit-* headers.
        onAfterCall(this: ApiThis, ctx: Context<unknown, GatewayMeta>, route: Route, req: Req, res: Res, data: unknown) {
          if (ctx.meta.planRate) this.showRate(req, res, [ctx.meta.planRate], false);
          return data;
        },
        onError(this: ApiThis, req: Req, res: Res, err: unknown) {
          const planRate = (req.$ctx as Context<unknown, GatewayMeta> | undefined)?.meta.planRate;
          if (planRate && !res.headersSent) this.showRate(req, res, [planRate], toErrorResponse(err).status === 429);
          this.answerError(req, res, err);
        },
      },
      {
        // decisions §16: the MCP server over Streamable HTTP (gateway/mcp.ts), behind the same checks as /api/v1; each
        // tool calls its /api/v1 action with this meta and these options. Stateless: POST only (no stream to resume).
        path: '/mcp',
        mappingPolicy: 'restrict',
        bodyParsers: false,
        authorization: true,
        autoAliases: false,
        aliases: {
          'POST /': function mcp(this: ApiThis, req: Req, res: Res, next: Next) {
            answerMcp(req, res, API_CALL_OPTIONS).catch(next);
          },
          'GET /': mcpMethodNotAllowed,
          'DELETE /': mcpMethodNotAllowed,
        },
        use: API_REQUEST_CHECKS,
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
          // The one form with a file (New batch's CSV): multipart, read into the same fields a urlencoded form has.
          function dashboardMultipart(req: Req, res: Res, next: Next) {
            readDashboardMultipart(req).then(() => next(), next);
          },
        ],
        onBeforeCall(this: ApiThis, ctx: Context<unknown, DashboardMeta>, route: Route, req: Req) {
          ctx.meta.http = dashboardHttp(req, configOf(this.broker), this.trustedProxies);
        },
        onError(this: ApiThis, req: Req, res: Res, err: unknown) {
          answerDashboardError(req, res, err, this.logger, (...args) => this.answerError(...args));
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
    /** decisions §12: the video document's JSON Schema, the one lib/http/api-schemas.ts writes (also in openapi.json). */
    videoDocumentSchema: {
      visibility: 'published',
      handler() {
        return universalVideoJsonFile();
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
      this.showRate(req, res, decision.layers, !decision.allowed);
      if (!decision.allowed) throw new TooManyRequestsError(Math.max(1, decision.retryAfterSeconds));
    },

    /**
     * The X-RateLimit-* headers: the most constrained of the layers counted so far (the per-IP layer here, the plan's
     * in the action rules, mixins/action-rules.ts, which leave it in meta.planRate), or, when `refused`, of these alone.
     */
    showRate(req: Req, res: Res, layers: LayerState[], refused: boolean) {
      const shown = mostConstrained(refused || !req.$rate ? layers : [req.$rate, ...layers]);
      req.$rate = shown;
      res.setHeader('X-RateLimit-Limit', String(shown.limit));
      res.setHeader('X-RateLimit-Remaining', String(Math.max(0, shown.remaining)));
      res.setHeader('X-RateLimit-Reset', String(shown.resetAtMs));
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
      // A POST or PUT takes its fields from the body only: moleculer-web would otherwise merge the query over the body.
      const queryNames = req.method === 'POST' || req.method === 'PUT' ? queryParameterNames(req) : [];
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

    /**
     * moleculer-web's authorization hook: the caller's organization into meta, where the broker's action rules
     * (mixins/action-rules.ts) check the action's declared scope and plan rate, as they do for every other caller.
     */
    authorize(ctx: Context<unknown, GatewayMeta>, route: Route, req: Req) {
      ctx.meta.auth = req.$auth!;
      const idempotencyKey = req.headers['idempotency-key'];
      if (typeof idempotencyKey === 'string') ctx.meta.idempotencyKey = idempotencyKey;
      // A GET's parameters come from the query string, as text: typed by the action's schema before its check.
      if (req.method === 'GET') coerceQueryParams(req.$action?.params, req.$params);
    },
  } satisfies ApiMethods & ThisType<ApiThis>,
};

export default ApiService;
