/**
 * Every setting the product reads from the environment, read in this one module (decisions.md §10).
 * A broker carries its own AppConfig (see types/moleculer.d.ts), so several brokers with different
 * settings can live in one process (tests, benchmarks).
 */
import os from 'node:os';
import path from 'node:path';
import { RENDER_QUALITIES, type LanguageCode, type RenderQuality, isOneOf } from './catalog';
import { DEFAULT_OPEN_JTALK_DICTIONARY, DEFAULT_OPEN_JTALK_VOICES, parseVoiceEngines, type VoiceEngineName } from './voices';

export interface RateLimitSettings {
  /** Requests per minute per client IP when no key header is sent. */
  ipUnauthenticated: number;
  /** Requests per minute per client IP when a key header is sent. */
  ipAuthenticated: number;
  windowMs: number;
  /** How long one limiter check may wait on Redis before the API answers 503 (fail closed). */
  redisTimeoutMs: number;
}

/** How customers' host names are resolved (lib/net/dns-resolver.ts). */
export interface DnsSettings {
  /** `ip` or `ip:port` (`[v6]:port`) of DNS servers; unset: the system's (/etc/resolv.conf). */
  servers?: string[];
  /** One query's timeout per server and try (c-ares). */
  queryTimeoutMs: number;
  /** Tries per server (c-ares). */
  tries: number;
  /** A whole lookup fails after this, however many servers and tries remain. */
  lookupDeadlineMs: number;
  /** Names kept in the cache (answers and failures alike). */
  cacheEntries: number;
  /** How long an answer may be cached at most, whatever its TTL says. */
  maxTtlMs: number;
  /** How long "no such name" and timeouts are remembered. */
  negativeTtlMs: number;
  /** Read before DNS, as glibc does. */
  hostsFile: string;
}

export const DEFAULT_DNS_SETTINGS: DnsSettings = {
  queryTimeoutMs: 1500,
  tries: 2,
  lookupDeadlineMs: 5000,
  cacheEntries: 2000,
  maxTtlMs: 10 * 60_000,
  negativeTtlMs: 10_000,
  hostsFile: '/etc/hosts',
};

/**
 * The gateway's HTTP server against slow clients (services/gateway/http-limits.ts). Timeouts of 0 switch that
 * timeout off, as in Node; a cap of 0 switches the per-address cap off.
 */
export interface HttpServerSettings {
  /** HTTP_HEADERS_TIMEOUT: a connection that has not sent a request's complete headers this long after it opened (on a
   * kept-alive connection: after the request's first byte) is answered 408 and closed: slowloris. Node's `server.headersTimeout`. */
  headersTimeoutMs: number;
  /** HTTP_REQUEST_TIMEOUT: the same for the whole request, body included: a trickled body. Node's `server.requestTimeout`.
   * Counts receiving only; the answer may take as long as it takes. */
  requestTimeoutMs: number;
  /** HTTP_KEEPALIVE_TIMEOUT: an idle keep-alive connection is closed after this. Node's `server.keepAliveTimeout`. */
  keepAliveTimeoutMs: number;
  /** HTTP_MAX_CONNECTIONS_PER_IP: connections open at once from one peer address; the next is closed at once. Trusted
   * proxies (TRUSTED_PROXIES) are exempt: they carry many clients, whom the proxy must cap. */
  maxConnectionsPerIp: number;
}

function parseHttpServer(env: NodeJS.ProcessEnv): HttpServerSettings {
  const settings: HttpServerSettings = {
    headersTimeoutMs: parseDuration(env.HTTP_HEADERS_TIMEOUT || '10s', 'HTTP_HEADERS_TIMEOUT'),
    requestTimeoutMs: parseDuration(env.HTTP_REQUEST_TIMEOUT || '30s', 'HTTP_REQUEST_TIMEOUT'),
    keepAliveTimeoutMs: parseDuration(env.HTTP_KEEPALIVE_TIMEOUT || '5s', 'HTTP_KEEPALIVE_TIMEOUT'),
    maxConnectionsPerIp: parseInteger(env.HTTP_MAX_CONNECTIONS_PER_IP, 'HTTP_MAX_CONNECTIONS_PER_IP', 64),
  };
  // The headers are part of the request; and given a longer headers timeout, Node swaps the two (node_http_parser.cc),
  // so a trickled body would get the longer one.
  if (settings.requestTimeoutMs > 0 && settings.headersTimeoutMs > settings.requestTimeoutMs)
    throw new Error(
      `HTTP_HEADERS_TIMEOUT (${settings.headersTimeoutMs} ms) must not exceed HTTP_REQUEST_TIMEOUT (${settings.requestTimeoutMs} ms)`,
    );
  return settings;
}

export interface AppConfig {
  /** PORT: the API's port (`0` picks a free one and logs it). */
  port: number;
  /** PUBLIC_BASE_URL: the origin used in absolute links (signed downloads, `Location`). */
  publicBaseUrl: string;
  /** DATA_DIR: the SQLite file and the stored files in embedded mode, and the generated signing key. */
  dataDir: string;
  /** A directory every node mounts: nodes then read and write files there instead of through the `files` service. */
  sharedFilesDir?: string;
  /** postgres://… ; unset means an SQLite file in dataDir. */
  databaseUrl?: string;
  /** PostgreSQL schema to use (tests give each run its own). */
  databaseSchema?: string;
  /** TRANSPORTER: Moleculer's transporter between nodes, e.g. `redis://127.0.0.1:6379`; unset: a single process. */
  transporter?: string;
  /** Redis for rate limits; unset means the in-process limiter. */
  redisUrl?: string;
  /** Prefix of every Redis key we write (tests give each run its own). */
  redisPrefix: string;
  /** Services this node runs; undefined means all. */
  services?: string[];
  /** ALLOW_PRIVATE_NETWORK: lets pages and webhooks target loopback (127/8, ::1; development, tests), never other private ranges. */
  allowPrivateNetwork: boolean;
  /** How customers' host names are resolved (page check, browser egress, webhooks): lib/net/dns-resolver.ts. */
  dns: DnsSettings;
  /** WEBHOOK_RETRY_DELAYS: the waits before webhook attempts 2 and 3. */
  webhookRetryDelaysMs: number[];
  /** How often the dispatcher looks for due webhook deliveries (new ones are also sent at once). */
  webhookPollMs: number;
  /** A campaign actor holds a campaign this long without renewing; after that another actor takes it over. */
  campaignLeaseMs: number;
  /** How often the actor looks for campaigns past their deadline or without a live lease. */
  campaignSweepMs: number;
  /** RENDER_QUALITY: `full`, or `draft` (half each side, a faster encoder preset) for development and tests. */
  renderQuality: RenderQuality;
  /** RENDER_CONCURRENCY: renders at once on this node; by default one per two cores (1 on 2 cores, `defaultRenderSlots`). */
  renderConcurrency: number;
  /** The render's process tree (editly, ffmpeg) is killed above this, and the render retried elsewhere. */
  renderMemoryLimitBytes: number;
  /** One render's time limit. */
  renderTimeoutMs: number;
  /** QUALITY_CHECK: the render node looks at each video it made before it is called ready (decisions §13); `off` skips it. */
  qualityCheck: boolean;
  /**
   * SIGTERM on any node (drain): how long its work in flight (a render node's renders, a gateway's requests) may take
   * to finish before the node leaves anyway. Moleculer's context tracking waits for it (broker-options.ts).
   */
  drainTimeoutMs: number;
  /** STORAGE_URL: object storage every node reads and writes directly; unset: the local directory or the `files` service. */
  storage?: S3StorageSettings;
  /** Moleculer tracing: where spans go; `none` turns tracing off. */
  tracing: TracingSettings;
  /** Renders of one video that may fail (on different nodes where there are several) before the video fails. */
  renderAttempts: number;
  /** FILE_URL_TTL: the lifetime of signed download links. */
  fileUrlTtlMs: number;
  /** SIGNING_KEY: the download-link signing key (at least 32 characters), the same on every `api` and `campaigns` node; unset: generated into `DATA_DIR/signing.key`. */
  signingKey?: string;
  /** TRUSTED_PROXIES: peers whose X-Forwarded-For is believed (IPs or CIDRs, or proxy-addr's `loopback`, `linklocal`,
   * `uniquelocal`); the client is the nearest untrusted hop from the right (lib/http/client-ip.ts). */
  trustedProxies: string[];
  /** The gateway's HTTP server: header, request and keep-alive timeouts, connections per client address. */
  http: HttpServerSettings;
  rateLimits: RateLimitSettings;
  /** The dashboard's sessions: idle and absolute lifetime, and sign-in attempts per minute per client IP and per email. */
  dashboard: { sessionIdleMs: number; sessionMaxMs: number; signInPerIp: number; signInPerEmail: number };
  /** How long POST /campaigns waits for the first load and check of the page. */
  captureCheckTimeoutMs: number;
  /** Operators' drain switch: campaigns are accepted and wait in their state; no stage starts. */
  pipelinePaused: boolean;
  /** CAPTURE_CONCURRENCY: pages loaded at once by each of this node's browser pools. Default 6 on any machine: a page's task spends
   * a third of its time waiting on the page (network-idle windows, frames), and a 3-language campaign's six
   * pages (desktop and phone each) all at once collected in 4.5 s where 4 at a time took 5.0 s on 2 cores, for
   * about 95 MiB more of Chromium at the peak (bench/e2e/README.md). */
  captureConcurrency: number;
  /** CAPTURE_CAMPAIGNS: campaigns this capture node collects at once (each loads its pages, desktop and phone, in the
   * pool above); the stage's turns (decisions §14) grant this many per capture node. Default one per two cores, at most
   * half of CAPTURE_CONCURRENCY: a campaign's capture keeps two cores busy, and more at once only slow the other
   * organizations' campaigns running beside them. */
  captureCampaigns: number;
  /** SCRIPT_CAMPAIGNS: campaigns this script node analyses, and writes for, at once (per stage); the stage's turns grant
   * this many per node. Default one per core, at least 2 (the extractive script takes a second; a model's waits on its endpoint). */
  scriptCampaigns: number;
  /** VOICE_CAMPAIGNS: campaigns this voice node speaks at once (each runs its scenes on every core); the stage's turns
   * grant this many per node. Default one per two cores. */
  voiceCampaigns: number;
  /** The pooled browser is relaunched after this many pages. */
  capturePagesPerBrowser: number;
  /** Bound of one page load (navigation). */
  capturePageTimeoutMs: number;
  /** Screens shot per viewport, first screen included. */
  captureMaxShots: number;
  /** CHROMIUM_PATH: the browser the capture pools run. */
  chromiumPath: string;
  /** Seconds a video should last; scenes are chosen to fit (15–30 by decision, default 25). */
  videoTargetSeconds: number;
  /** OpenAI-compatible chat endpoint for translations; unset → no translation provider. */
  translation: { baseUrl?: string; apiKey?: string; model?: string; timeoutMs: number };
  /** OpenAI-compatible chat endpoint that writes narration scripts (lib/script/model-writer.ts); undefined when
   * SCRIPT_BASE_URL is unset: the extractive script only. */
  scriptWriter?: ScriptWriterSettings;
  /** Speech: the best offline engine per language by default (config/voices.ts), espeak-ng only, or an
   * OpenAI-compatible /v1/audio/speech endpoint. */
  speech: {
    /** TTS_PROVIDER: `offline` (the default: the best engine per language), `espeak` (espeak-ng for every language) or `openai`. */
    provider: 'offline' | 'espeak' | 'openai';
    /** TTS_VOICES: offline: `lang=engine` pairs over DEFAULT_VOICE_ENGINES (config/voices.ts), e.g. `en=festival`; engines
     * `open-jtalk` (ja), `festival`, `flite` (en), `pico` (en, es, fr, de, it), `rhvoice` (en, ru, pt), `espeak` (any);
     * languages not listed use espeak-ng */
    voices: Partial<Record<LanguageCode, VoiceEngineName>>;
    /** offline: Open JTalk's .htsvoice candidates, the first that exists wins (OPEN_JTALK_VOICE), and its dictionary */
    openJTalkVoices: string[];
    /** offline: Open JTalk's MeCab dictionary (OPEN_JTALK_DICTIONARY). */
    openJTalkDictionary: string;
    /** TTS_BASE_URL, TTS_API_KEY, TTS_MODEL, TTS_VOICE: the endpoint, key, model and voice of TTS_PROVIDER=openai (`/v1/audio/speech`). */
    baseUrl?: string;
    apiKey?: string;
    model?: string;
    voice?: string;
  };
  /** A campaign that cannot finish within this fails with error code `timeout`. */
  campaignMaxDurationMs: number;
  idempotencyTtlMs: number;
  maxBodyBytes: number;
  /** HEARTBEAT_INTERVAL, HEARTBEAT_TIMEOUT: seconds between heartbeats, and without one before a node counts as gone (its work is then redone elsewhere). */
  heartbeatIntervalSeconds: number;
  heartbeatTimeoutSeconds: number;
  /** LOG_LEVEL, NODE_ID, NAMESPACE: Moleculer's log level, this node's id (unset: generated) and the cluster's namespace. */
  logLevel: string;
  nodeID?: string;
  namespace: string;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "30s" → 30000; a bare number is milliseconds. */
/**
 * STORAGE_URL=s3://<bucket>[/<key prefix>][?endpoint=<url>&region=<region>&force_path_style=true]: an S3-compatible
 * store (AWS S3, MinIO, Cloudflare R2, …). Without `endpoint`, AWS's for the region. Credentials: AWS_ACCESS_KEY_ID
 * and AWS_SECRET_ACCESS_KEY, else the AWS SDK's own chain (instance roles, profiles). Region: `region=`, else AWS_REGION, else
 * us-east-1.
 */
export interface S3StorageSettings {
  bucket: string;
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export function parseStorageUrl(text: string | undefined, env: NodeJS.ProcessEnv = {}): S3StorageSettings | undefined {
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`STORAGE_URL: "${text}" is not a URL (s3://bucket[/prefix]?endpoint=…)`);
  }
  if (url.protocol !== 's3:') throw new Error(`STORAGE_URL: only s3:// is supported (got ${url.protocol})`);
  const bucket = url.hostname;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`STORAGE_URL: "${bucket}" is not a bucket name`);
  const known = new Set(['endpoint', 'region', 'force_path_style']);
  for (const name of url.searchParams.keys()) if (!known.has(name)) throw new Error(`STORAGE_URL: unknown parameter "${name}"`);
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  if (endpoint && !/^https?:\/\/[^/]+/.test(endpoint)) throw new Error(`STORAGE_URL: endpoint "${endpoint}" must be an http(s) URL`);
  const keyId = env.AWS_ACCESS_KEY_ID;
  const secret = env.AWS_SECRET_ACCESS_KEY;
  return {
    bucket,
    prefix: decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, ''),
    endpoint,
    region: url.searchParams.get('region') ?? env.AWS_REGION ?? 'us-east-1',
    // Path-style by default with an endpoint of one's own (MinIO, s3rver): no bucket sub-domains needed.
    forcePathStyle: parseBoolean(url.searchParams.get('force_path_style') ?? (endpoint ? 'true' : 'false'), 'STORAGE_URL force_path_style'),
    ...(keyId && secret ? { credentials: { accessKeyId: keyId, secretAccessKey: secret } } : {}),
  };
}

/**
 * TRACING_EXPORTER: `none` (default), `console` (spans printed by each node), `zipkin` (to TRACING_ZIPKIN_URL,
 * default http://127.0.0.1:9411: Zipkin, or Jaeger's Zipkin-compatible collector), or `event` (each node emits its
 * spans as the Moleculer event `$tracing.spans`, for a service of one's own; the tests use it). Not `TRACING`:
 * moleculer-runner would read that name as its own option.
 */
export const TRACING_EXPORTERS = ['none', 'console', 'zipkin', 'event'] as const;
export type TracingExporter = (typeof TRACING_EXPORTERS)[number];
export interface TracingSettings {
  exporter: TracingExporter;
  zipkinUrl: string;
}

function parseTracing(env: NodeJS.ProcessEnv): TracingSettings {
  const exporter = (env.TRACING_EXPORTER || 'none').toLowerCase();
  if (!isOneOf(TRACING_EXPORTERS, exporter))
    throw new Error(`TRACING_EXPORTER: "${exporter}" must be one of ${TRACING_EXPORTERS.join(', ')}`);
  const zipkinUrl = (env.TRACING_ZIPKIN_URL || 'http://127.0.0.1:9411').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(zipkinUrl)) throw new Error(`TRACING_ZIPKIN_URL: "${zipkinUrl}" must be an http(s) URL`);
  return { exporter, zipkinUrl };
}

export function parseDuration(text: string, name: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) throw new Error(`${name}: "${text}" is not a duration (examples: 500ms, 30s, 5m, 7d)`);
  return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']);
}

const BYTE_UNITS: Record<string, number> = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 };

/** "1.5g" → 1610612736; units k, m, g (binary). */
export function parseBytes(text: string, name: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?)i?b?\s*$/i.exec(text);
  if (!match) throw new Error(`${name}: "${text}" is not a size (examples: 512m, 2g)`);
  return Math.round(Number(match[1]) * BYTE_UNITS[match[2].toLowerCase()]);
}

/**
 * Renders at once on a node, by its cores: one render keeps two cores busy (x264's frame threads, the clip's
 * ffmpeg, editly), and on 2 cores one slot finished 3 videos 8 % and 6 videos 13 % sooner than two
 * (`npx tsx bench/render/slots.ts`, bench/render/README.md). One slot per two cores beyond that follows from
 * the same accounting; it was not measured here (no larger machine).
 */
export function defaultRenderSlots(cores: number): number {
  return Math.max(1, Math.floor(cores / 2));
}

/** CAPTURE_CAMPAIGNS's default: one per two cores, at most half of the pool's pages (a campaign loads two at once). */
export function defaultCaptureCampaigns(cores: number, captureConcurrency: number): number {
  return Math.max(1, Math.min(defaultRenderSlots(cores), Math.floor(captureConcurrency / 2)));
}

function parseInteger(text: string | undefined, name: string, fallback: number, min = 0): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name}: "${text}" must be an integer ≥ ${min}`);
  return value;
}

function parseBoolean(text: string | undefined, name: string): boolean {
  if (text === undefined || text === '') return false;
  if (/^(1|true|yes|on)$/i.test(text)) return true;
  if (/^(0|false|no|off)$/i.test(text)) return false;
  throw new Error(`${name}: "${text}" must be true or false`);
}

function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** SCRIPT_BASE_URL, SCRIPT_API_KEY, SCRIPT_MODEL, SCRIPT_TIMEOUT: the optional script model (lib/script/model-writer.ts). */
export interface ScriptWriterSettings {
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** One request, headers and body. */
  timeoutMs: number;
}

export const DEFAULT_SCRIPT_TIMEOUT = '60s';

/** Undefined when SCRIPT_BASE_URL is unset or empty; a model is then required, and the URL must be http(s). */
export function parseScriptWriter(env: NodeJS.ProcessEnv): ScriptWriterSettings | undefined {
  const baseUrl = env.SCRIPT_BASE_URL?.trim();
  if (!baseUrl) return undefined;
  // The URL is not quoted: it could carry credentials.
  if (!/^https?:\/\/[^/\s]+/i.test(baseUrl)) throw new Error('SCRIPT_BASE_URL must be an http(s) URL');
  const model = env.SCRIPT_MODEL?.trim();
  if (!model) throw new Error('SCRIPT_BASE_URL is set but SCRIPT_MODEL is not');
  const timeoutMs = parseDuration(env.SCRIPT_TIMEOUT || DEFAULT_SCRIPT_TIMEOUT, 'SCRIPT_TIMEOUT');
  if (timeoutMs <= 0) throw new Error('SCRIPT_TIMEOUT must be more than 0');
  return { baseUrl, apiKey: env.SCRIPT_API_KEY?.trim() || undefined, model, timeoutMs };
}

function speechProvider(text: string | undefined): 'offline' | 'espeak' | 'openai' {
  const value = text || 'offline';
  if (value !== 'offline' && value !== 'espeak' && value !== 'openai')
    throw new Error(`TTS_PROVIDER: "${value}" must be offline, espeak or openai`);
  return value;
}

/** Settings given in code (tests, benchmarks): any field, and any part of the grouped ones. */
export type ConfigOverrides = Partial<Omit<AppConfig, 'rateLimits' | 'translation' | 'speech' | 'dns' | 'http'>> & {
  rateLimits?: Partial<RateLimitSettings>;
  http?: Partial<HttpServerSettings>;
  dns?: Partial<DnsSettings>;
  translation?: Partial<AppConfig['translation']>;
  speech?: Partial<AppConfig['speech']>;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: ConfigOverrides = {}): AppConfig {
  const port = parseInteger(env.PORT, 'PORT', 3000);
  const renderQuality = (env.RENDER_QUALITY || 'full') as RenderQuality;
  const captureConcurrency = parseInteger(env.CAPTURE_CONCURRENCY, 'CAPTURE_CONCURRENCY', 6, 1);
  const cores = os.availableParallelism();
  if (!RENDER_QUALITIES.includes(renderQuality))
    throw new Error(`RENDER_QUALITY: "${renderQuality}" must be ${RENDER_QUALITIES.join(' or ')}`);
  const config: AppConfig = {
    port,
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    sharedFilesDir: env.SHARED_FILES_DIR ? path.resolve(env.SHARED_FILES_DIR) : undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    transporter: env.TRANSPORTER || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.REDIS_PREFIX || 'cv:',
    services: env.SERVICES && env.SERVICES !== 'all' ? list(env.SERVICES) : undefined,
    allowPrivateNetwork: parseBoolean(env.ALLOW_PRIVATE_NETWORK, 'ALLOW_PRIVATE_NETWORK'),
    dns: {
      servers: env.DNS_SERVERS ? list(env.DNS_SERVERS) : undefined,
      queryTimeoutMs: parseDuration(env.DNS_QUERY_TIMEOUT || `${DEFAULT_DNS_SETTINGS.queryTimeoutMs}ms`, 'DNS_QUERY_TIMEOUT'),
      tries: parseInteger(env.DNS_TRIES, 'DNS_TRIES', DEFAULT_DNS_SETTINGS.tries, 1),
      lookupDeadlineMs: parseDuration(env.DNS_LOOKUP_DEADLINE || `${DEFAULT_DNS_SETTINGS.lookupDeadlineMs}ms`, 'DNS_LOOKUP_DEADLINE'),
      cacheEntries: parseInteger(env.DNS_CACHE_ENTRIES, 'DNS_CACHE_ENTRIES', DEFAULT_DNS_SETTINGS.cacheEntries, 1),
      maxTtlMs: parseDuration(env.DNS_MAX_TTL || `${DEFAULT_DNS_SETTINGS.maxTtlMs}ms`, 'DNS_MAX_TTL'),
      negativeTtlMs: parseDuration(env.DNS_NEGATIVE_TTL || `${DEFAULT_DNS_SETTINGS.negativeTtlMs}ms`, 'DNS_NEGATIVE_TTL'),
      hostsFile: env.HOSTS_FILE || DEFAULT_DNS_SETTINGS.hostsFile,
    },
    webhookRetryDelaysMs: list(env.WEBHOOK_RETRY_DELAYS || '30s,5m').map((item) => parseDuration(item, 'WEBHOOK_RETRY_DELAYS')),
    webhookPollMs: parseDuration(env.WEBHOOK_POLL_INTERVAL || '1s', 'WEBHOOK_POLL_INTERVAL'),
    campaignLeaseMs: parseDuration(env.CAMPAIGN_LEASE || '30s', 'CAMPAIGN_LEASE'),
    campaignSweepMs: parseDuration(env.CAMPAIGN_SWEEP_INTERVAL || '5s', 'CAMPAIGN_SWEEP_INTERVAL'),
    renderQuality,
    renderConcurrency: parseInteger(env.RENDER_CONCURRENCY, 'RENDER_CONCURRENCY', defaultRenderSlots(os.availableParallelism()), 1),
    renderMemoryLimitBytes: parseBytes(env.RENDER_MEMORY_LIMIT || '2g', 'RENDER_MEMORY_LIMIT'),
    renderTimeoutMs: parseDuration(env.RENDER_TIMEOUT || '10m', 'RENDER_TIMEOUT'),
    qualityCheck: env.QUALITY_CHECK ? parseBoolean(env.QUALITY_CHECK, 'QUALITY_CHECK') : true,
    drainTimeoutMs: parseDuration(env.DRAIN_TIMEOUT || '5m', 'DRAIN_TIMEOUT'),
    tracing: parseTracing(env),
    storage: parseStorageUrl(env.STORAGE_URL, env),
    renderAttempts: parseInteger(env.RENDER_ATTEMPTS, 'RENDER_ATTEMPTS', 3, 1),
    fileUrlTtlMs: parseDuration(env.FILE_URL_TTL || '7d', 'FILE_URL_TTL'),
    signingKey: env.SIGNING_KEY || undefined,
    trustedProxies: list(env.TRUSTED_PROXIES),
    http: parseHttpServer(env),
    rateLimits: {
      ipUnauthenticated: parseInteger(env.RATE_LIMIT_IP_UNAUTHENTICATED, 'RATE_LIMIT_IP_UNAUTHENTICATED', 10, 1),
      ipAuthenticated: parseInteger(env.RATE_LIMIT_IP_AUTHENTICATED, 'RATE_LIMIT_IP_AUTHENTICATED', 120, 1),
      windowMs: 60_000,
      redisTimeoutMs: parseDuration(env.RATE_LIMIT_REDIS_TIMEOUT || '1500ms', 'RATE_LIMIT_REDIS_TIMEOUT'),
    },
    dashboard: {
      sessionIdleMs: parseDuration(env.SESSION_IDLE_TIMEOUT || '12h', 'SESSION_IDLE_TIMEOUT'),
      sessionMaxMs: parseDuration(env.SESSION_MAX_AGE || '7d', 'SESSION_MAX_AGE'),
      signInPerIp: parseInteger(env.SIGN_IN_LIMIT_IP, 'SIGN_IN_LIMIT_IP', 20, 1),
      signInPerEmail: parseInteger(env.SIGN_IN_LIMIT_EMAIL, 'SIGN_IN_LIMIT_EMAIL', 5, 1),
    },
    captureCheckTimeoutMs: parseDuration(env.CAPTURE_CHECK_TIMEOUT || '90s', 'CAPTURE_CHECK_TIMEOUT'),
    pipelinePaused: parseBoolean(env.PIPELINE_PAUSED, 'PIPELINE_PAUSED'),
    captureConcurrency,
    captureCampaigns: parseInteger(env.CAPTURE_CAMPAIGNS, 'CAPTURE_CAMPAIGNS', defaultCaptureCampaigns(cores, captureConcurrency), 1),
    scriptCampaigns: parseInteger(env.SCRIPT_CAMPAIGNS, 'SCRIPT_CAMPAIGNS', Math.max(2, cores), 1),
    voiceCampaigns: parseInteger(env.VOICE_CAMPAIGNS, 'VOICE_CAMPAIGNS', defaultRenderSlots(cores), 1),
    capturePagesPerBrowser: parseInteger(env.CAPTURE_PAGES_PER_BROWSER, 'CAPTURE_PAGES_PER_BROWSER', 50, 1),
    capturePageTimeoutMs: parseDuration(env.CAPTURE_PAGE_TIMEOUT || '30s', 'CAPTURE_PAGE_TIMEOUT'),
    captureMaxShots: parseInteger(env.CAPTURE_MAX_SHOTS, 'CAPTURE_MAX_SHOTS', 6, 1),
    chromiumPath: env.CHROMIUM_PATH || '/usr/bin/chromium',
    videoTargetSeconds: parseInteger(env.VIDEO_TARGET_SECONDS, 'VIDEO_TARGET_SECONDS', 25, 10),
    translation: {
      baseUrl: env.TRANSLATION_BASE_URL || undefined,
      apiKey: env.TRANSLATION_API_KEY || undefined,
      model: env.TRANSLATION_MODEL || undefined,
      timeoutMs: parseDuration(env.TRANSLATION_TIMEOUT || '20s', 'TRANSLATION_TIMEOUT'),
    },
    scriptWriter: parseScriptWriter(env),
    speech: {
      provider: speechProvider(env.TTS_PROVIDER),
      voices: parseVoiceEngines(env.TTS_VOICES),
      openJTalkVoices: env.OPEN_JTALK_VOICE ? [path.resolve(env.OPEN_JTALK_VOICE)] : DEFAULT_OPEN_JTALK_VOICES,
      openJTalkDictionary: env.OPEN_JTALK_DICTIONARY || DEFAULT_OPEN_JTALK_DICTIONARY,
      baseUrl: env.TTS_BASE_URL || undefined,
      apiKey: env.TTS_API_KEY || undefined,
      model: env.TTS_MODEL || undefined,
      voice: env.TTS_VOICE || undefined,
    },
    campaignMaxDurationMs: parseDuration(env.CAMPAIGN_MAX_DURATION || '30m', 'CAMPAIGN_MAX_DURATION'),
    idempotencyTtlMs: 24 * 3_600_000,
    maxBodyBytes: 64 * 1024,
    heartbeatIntervalSeconds: parseInteger(env.HEARTBEAT_INTERVAL, 'HEARTBEAT_INTERVAL', 1, 1),
    heartbeatTimeoutSeconds: parseInteger(env.HEARTBEAT_TIMEOUT, 'HEARTBEAT_TIMEOUT', 6, 2),
    logLevel: env.LOG_LEVEL || 'info',
    nodeID: env.NODE_ID || undefined,
    namespace: env.NAMESPACE || 'campaign-video',
  };
  return {
    ...config,
    ...overrides,
    rateLimits: { ...config.rateLimits, ...overrides.rateLimits },
    http: { ...config.http, ...overrides.http },
    dns: { ...config.dns, ...overrides.dns },
    translation: { ...config.translation, ...overrides.translation },
    speech: { ...config.speech, ...overrides.speech },
  };
}

/** The settings a broker was started with (moleculer.config.ts or a test puts them in `app`). */
export function configOf(broker: { options: { app?: AppConfig } }): AppConfig {
  if (!broker.options.app) broker.options.app = loadConfig();
  return broker.options.app;
}
