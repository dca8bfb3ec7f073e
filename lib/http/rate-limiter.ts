/**
 * Sliding-window rate limiter (default window 60 s) with several layers per check.
 *
 * A check covers one or more layers (e.g. per-IP and per-plan). The request is admitted only if
 * every layer has room; then it is recorded in every layer. If any layer is full, nothing is recorded.
 *
 * - RedisRateLimiter: one Lua script per check (atomic, so concurrent requests on any number of API
 *   nodes never get more than the limit), Redis server time, one sorted set per layer key. When Redis
 *   cannot answer, check() rejects quickly with RateLimiterUnavailableError (no offline queue) so the
 *   caller can fail closed (503). The client keeps reconnecting in the background.
 * - MemoryRateLimiter: the same semantics in process, for when no Redis is configured.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';

export interface LayerCheck {
  /** Key without prefix, e.g. "ip:unauth:1.2.3.4". */
  key: string;
  limit: number;
}

export interface LayerState {
  key: string;
  limit: number;
  /** Remaining after this request (0 when this layer is limited). */
  remaining: number;
  /** When the oldest counted request leaves the window (Unix ms; now + window when the window is empty). */
  resetAtMs: number;
}

export interface RateDecision {
  allowed: boolean;
  layers: LayerState[];
  /** 0 when allowed; else whole seconds (at least 1) until the blocking layer(s) have room. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  check(layers: LayerCheck[]): Promise<RateDecision>;
  close(): Promise<void>;
}

export class RateLimiterUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RateLimiterUnavailableError';
  }
}

const DEFAULT_WINDOW_MS = 60_000;
const DEFAULT_COMMAND_TIMEOUT_MS = 500;

/** The layer with the fewest remaining (ties: the smaller limit); used for the X-RateLimit-* headers. */
export function mostConstrained(layers: LayerState[]): LayerState {
  if (layers.length === 0) throw new RangeError('mostConstrained: no layers');
  let best = layers[0];
  for (const l of layers) {
    if (l.remaining < best.remaining || (l.remaining === best.remaining && l.limit < best.limit)) best = l;
  }
  return best;
}

function validate(layers: LayerCheck[]): void {
  if (!Array.isArray(layers) || layers.length === 0) throw new RangeError('rate limiter: at least one layer is required');
  const seen = new Set<string>();
  for (const l of layers) {
    if (typeof l.key !== 'string' || l.key.length === 0) throw new RangeError('rate limiter: layer key must be a non-empty string');
    if (!Number.isSafeInteger(l.limit) || l.limit < 1)
      throw new RangeError(`rate limiter: limit for "${l.key}" must be a positive integer`);
    if (seen.has(l.key)) throw new RangeError(`rate limiter: duplicate layer key "${l.key}"`);
    seen.add(l.key);
  }
}

function validateWindow(windowMs: number): number {
  if (!Number.isSafeInteger(windowMs) || windowMs < 1) throw new RangeError('rate limiter: windowMs must be a positive integer');
  return windowMs;
}

/** Per-layer counts observed before this request (after pruning the window). */
interface LayerStats {
  /** Requests in the window before this one. */
  count: number;
  /** Score (ms) of the oldest request in the window before this one; ignored when count is 0. */
  oldestMs: number;
  /** When count >= limit: score of the request that must leave the window before there is room. */
  unblockMs: number;
}

/** Shared by both implementations so they compute identical decisions. */
function buildDecision(nowMs: number, windowMs: number, layers: LayerCheck[], stats: LayerStats[], allowed: boolean): RateDecision {
  let retryAfterSeconds = 0;
  const states: LayerState[] = layers.map((l, i) => {
    const s = stats[i];
    const oldest = s.count > 0 ? s.oldestMs : nowMs;
    const remaining = allowed ? l.limit - s.count - 1 : Math.max(0, l.limit - s.count);
    if (!allowed && s.count >= l.limit) {
      const waitMs = s.unblockMs + windowMs - nowMs;
      retryAfterSeconds = Math.max(retryAfterSeconds, Math.ceil(waitMs / 1000));
    }
    return { key: l.key, limit: l.limit, remaining, resetAtMs: oldest + windowMs };
  });
  if (!allowed) retryAfterSeconds = Math.max(1, retryAfterSeconds);
  return { allowed, layers: states, retryAfterSeconds };
}

// ---------------------------------------------------------------------------------------------
// Redis

/**
 * KEYS: the prefixed layer keys. ARGV[1] = window ms, ARGV[2] = unique request token,
 * ARGV[3..] = limits (same order as KEYS).
 * Returns { allowed (0/1), nowMs, then per key: count, oldestMs, unblockMs }.
 * A request with score t counts while t > now - window, so it leaves the window at t + window.
 */
const CHECK_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local n = #KEYS
local res = {0, now}
local allowed = 1
for i = 1, n do
  local key = KEYS[i]
  local limit = tonumber(ARGV[i + 2])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  local oldest = 0
  local unblock = 0
  if count > 0 then
    oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
  end
  if count >= limit then
    allowed = 0
    local idx = count - limit
    unblock = tonumber(redis.call('ZRANGE', key, idx, idx, 'WITHSCORES')[2])
  end
  res[3 * i] = count
  res[3 * i + 1] = oldest
  res[3 * i + 2] = unblock
end
if allowed == 1 then
  local member = now .. '-' .. ARGV[2]
  for i = 1, n do
    redis.call('ZADD', KEYS[i], now, member)
    redis.call('PEXPIRE', KEYS[i], window)
  end
end
res[1] = allowed
return res
`;

type CheckCommand = (numKeys: number, ...args: string[]) => Promise<number[]>;

export interface RedisRateLimiterOptions {
  url: string;
  /** Prepended to every layer key, e.g. "cvapi:rl:". */
  prefix: string;
  windowMs?: number;
  /** Upper bound for one check() (and ioredis commandTimeout). */
  commandTimeoutMs?: number;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly windowMs: number;
  private readonly timeoutMs: number;
  private readonly secret: string | undefined;
  private closed = false;

  constructor(opts: RedisRateLimiterOptions) {
    this.prefix = opts.prefix;
    this.windowMs = validateWindow(opts.windowMs ?? DEFAULT_WINDOW_MS);
    this.timeoutMs = opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    try {
      this.secret = new URL(opts.url).password || undefined;
    } catch {
      this.secret = undefined;
    }
    this.redis = new Redis(opts.url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: Math.max(1000, this.timeoutMs * 2),
      // Our own deadline (withDeadline) decides; ioredis's is only a backstop for a command never answered.
      commandTimeout: this.timeoutMs * 4,
      disconnectTimeout: this.timeoutMs,
      // Never give up: reconnect in the background with capped backoff so we recover when Redis returns.
      retryStrategy: (times: number) => Math.min(100 * 2 ** Math.min(times - 1, 5), 2000),
    });
    // Swallow: errors surface as RateLimiterUnavailableError on check(). Never log the URL (password).
    this.redis.on('error', () => {});
    this.redis.defineCommand('rateLimitCheck', { lua: CHECK_SCRIPT });
  }

  async check(layers: LayerCheck[]): Promise<RateDecision> {
    validate(layers);
    if (this.closed) throw new RateLimiterUnavailableError('rate limiter is closed');
    const deadline = Date.now() + this.timeoutMs;
    try {
      await this.waitReady(deadline);
      const cmd = (this.redis as unknown as { rateLimitCheck: CheckCommand }).rateLimitCheck;
      const args = [String(this.windowMs), randomBytes(8).toString('hex'), ...layers.map((l) => String(l.limit))];
      const pending = cmd.call(this.redis, layers.length, ...layers.map((l) => this.prefix + l.key), ...args);
      const res = await withDeadline(pending, deadline);
      return this.toDecision(layers, res);
    } catch (err) {
      if (err instanceof RateLimiterUnavailableError) throw err;
      throw new RateLimiterUnavailableError(`rate limiter store unavailable: ${this.redact(err)}`, { cause: err });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.redis.status === 'ready') {
      const ended = new Promise<void>((resolve) => this.redis.once('end', () => resolve()));
      try {
        const deadline = Date.now() + this.timeoutMs;
        await withDeadline(this.redis.quit(), deadline);
        await withDeadline(ended, deadline);
      } catch {
        /* fall through to disconnect */
      }
    }
    // Also stops background reconnecting. (ioredis arms a disconnectTimeout timer here.)
    if (this.redis.status !== 'end') this.redis.disconnect();
  }

  /**
   * With no offline queue a command fails at once unless the client is 'ready'. While a connection
   * attempt is in flight (e.g. right after construction), wait for it within the check's deadline;
   * while waiting between reconnect attempts (Redis down), fail at once.
   */
  private async waitReady(deadline: number): Promise<void> {
    const status = this.redis.status;
    if (status === 'ready') return;
    if (status !== 'connecting' && status !== 'connect') {
      throw new RateLimiterUnavailableError(`rate limiter store unavailable (connection ${status})`);
    }
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        this.redis.off('close', onClose);
        if (err) reject(err);
        else resolve();
      };
      const onReady = () => done();
      const onClose = () => done(new RateLimiterUnavailableError('rate limiter store unavailable (connection closed)'));
      const timer = setTimeout(
        () => done(new RateLimiterUnavailableError('rate limiter store unavailable (connect timeout)')),
        Math.max(0, deadline - Date.now()),
      );
      this.redis.once('ready', onReady);
      this.redis.once('close', onClose);
    });
  }

  private toDecision(layers: LayerCheck[], res: unknown): RateDecision {
    if (!Array.isArray(res) || res.length !== 2 + 3 * layers.length) {
      throw new RateLimiterUnavailableError('rate limiter store returned an unexpected reply');
    }
    const nums = res.map(Number);
    const stats: LayerStats[] = layers.map((_, i) => ({
      count: nums[2 + 3 * i],
      oldestMs: nums[3 + 3 * i],
      unblockMs: nums[4 + 3 * i],
    }));
    return buildDecision(nums[1], this.windowMs, layers, stats, nums[0] === 1);
  }

  private redact(err: unknown): string {
    let msg = err instanceof Error ? err.message : String(err);
    if (this.secret) msg = msg.split(this.secret).join('***');
    return msg;
  }
}

/** Rejects with RateLimiterUnavailableError at the deadline; a late rejection of `p` is swallowed. */
function withDeadline<T>(p: Promise<T>, deadline: number): Promise<T> {
  p.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    // After a blocked event loop the timer and Redis's answer are due together, and timers run before I/O:
    // setImmediate lets an answer already received settle first, so a busy process is not mistaken for a dead Redis.
    const timer = setTimeout(
      () => setImmediate(() => reject(new RateLimiterUnavailableError('rate limiter store unavailable (timeout)'))),
      Math.max(0, deadline - Date.now()),
    );
    // Settles as `p` does, its value or reason passed on unchanged.
    p.finally(() => clearTimeout(timer)).then(resolve, reject);
  });
}

// ---------------------------------------------------------------------------------------------
// Memory

export interface MemoryRateLimiterOptions {
  windowMs?: number;
  now?: () => number;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly windowMs: number;
  private readonly now: () => number;
  /** Per key: request times in ascending order. */
  private readonly entries = new Map<string, number[]>();
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(opts: MemoryRateLimiterOptions = {}) {
    this.windowMs = validateWindow(opts.windowMs ?? DEFAULT_WINDOW_MS);
    this.now = opts.now ?? Date.now;
    this.sweepTimer = setInterval(() => this.sweep(), Math.max(this.windowMs, 1000));
    this.sweepTimer.unref();
  }

  check(layers: LayerCheck[]): Promise<RateDecision> {
    // Decided at once, as the body of an async function would be: an invalid list becomes a rejection.
    return new Promise((resolve) => resolve(this.decide(layers)));
  }

  private decide(layers: LayerCheck[]): RateDecision {
    validate(layers);
    // Synchronous from here on: atomic with respect to other checks in this process.
    const now = this.now();
    const stats: LayerStats[] = [];
    let allowed = true;
    for (const l of layers) {
      const list = this.prune(l.key, now);
      const count = list?.length ?? 0;
      const full = count >= l.limit;
      if (full) allowed = false;
      stats.push({ count, oldestMs: count > 0 ? list![0] : 0, unblockMs: full ? list![count - l.limit] : 0 });
    }
    if (allowed) {
      for (const l of layers) {
        let list = this.entries.get(l.key);
        if (!list) this.entries.set(l.key, (list = []));
        insertSorted(list, now);
      }
    }
    return buildDecision(now, this.windowMs, layers, stats, allowed);
  }

  /** Drops expired entries of every key and deletes keys left empty (also runs on a timer). */
  sweep(): void {
    const now = this.now();
    for (const key of [...this.entries.keys()]) this.prune(key, now);
  }

  /** Number of keys currently held (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    this.entries.clear();
    return Promise.resolve();
  }

  private prune(key: string, now: number): number[] | undefined {
    const list = this.entries.get(key);
    if (!list) return undefined;
    const cutoff = now - this.windowMs;
    let drop = 0;
    while (drop < list.length && list[drop] <= cutoff) drop++;
    if (drop > 0) list.splice(0, drop);
    if (list.length === 0) {
      this.entries.delete(key);
      return undefined;
    }
    return list;
  }
}

function insertSorted(list: number[], t: number): void {
  let i = list.length;
  while (i > 0 && list[i - 1] > t) i--;
  list.splice(i, 0, t);
}

// ---------------------------------------------------------------------------------------------

/** Redis when redisUrl is set, in-process memory otherwise. */
export function createRateLimiter(opts: { redisUrl?: string; prefix: string; windowMs?: number; commandTimeoutMs?: number }): RateLimiter {
  if (opts.redisUrl)
    return new RedisRateLimiter({
      url: opts.redisUrl,
      prefix: opts.prefix,
      windowMs: opts.windowMs,
      commandTimeoutMs: opts.commandTimeoutMs,
    });
  return new MemoryRateLimiter({ windowMs: opts.windowMs });
}
