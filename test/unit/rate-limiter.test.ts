/**
 * Rate limiter tests against the real Redis at REDIS_URL (default redis://127.0.0.1:6379).
 * Every key carries a random per-run prefix and is deleted in afterAll.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import Redis from 'ioredis';
import {
  createRateLimiter,
  LayerState,
  MemoryRateLimiter,
  mostConstrained,
  RateLimiter,
  RateLimiterUnavailableError,
  RedisRateLimiter,
} from '../../lib/http/rate-limiter';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `test:rl:${randomUUID()}:`;
const UNREACHABLE_URL = 'redis://127.0.0.1:1';

let inspector: Redis;
const open: RateLimiter[] = [];

/** Registers a limiter so afterEach closes it. */
function track<T extends RateLimiter>(l: T): T {
  open.push(l);
  return l;
}
const redisLimiter = (opts: { windowMs?: number; url?: string; commandTimeoutMs?: number } = {}) =>
  track(
    new RedisRateLimiter({ url: opts.url ?? REDIS_URL, prefix: PREFIX, windowMs: opts.windowMs, commandTimeoutMs: opts.commandTimeoutMs }),
  );
const memoryLimiter = (opts: { windowMs?: number; now?: () => number } = {}) => track(new MemoryRateLimiter(opts));
/** A layer key unique to one test. */
const uniq = (name: string) => `${name}:${randomUUID()}`;
/** A TCP proxy in front of the test Redis, so a test can cut and restore the connection; returns its redis:// URL. */
async function proxiedRedis(): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(REDIS_URL);
  const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
  await proxy.start();
  const url = new URL(REDIS_URL);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { proxy, url: url.toString() };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function keysWithPrefix(): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await inspector.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
    cursor = next;
    out.push(...batch);
  } while (cursor !== '0');
  return out;
}

/** Measures how long a promise takes to reject and returns the error. */
async function timedRejection(p: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const t0 = Date.now();
  try {
    await p;
  } catch (err) {
    return { err, ms: Date.now() - t0 };
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  inspector = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await inspector.connect();
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

afterAll(async () => {
  const keys = await keysWithPrefix();
  if (keys.length) await inspector.del(...keys);
  expect(await keysWithPrefix()).toEqual([]);
  await inspector.quit();
});

describe.each([
  ['MemoryRateLimiter', () => memoryLimiter()],
  ['RedisRateLimiter', () => redisLimiter()],
])('%s: shared semantics', (_name, make) => {
  it('admits exactly `limit` of 2×limit concurrent checks', async () => {
    const limiter = make();
    for (const limit of [1, 5, 40]) {
      const key = uniq('conc');
      const decisions = await Promise.all(Array.from({ length: 2 * limit }, () => limiter.check([{ key, limit }])));
      const allowed = decisions.filter((d) => d.allowed);
      expect(allowed).toHaveLength(limit);
      // Each admitted request saw a distinct remaining count: limit-1 .. 0.
      expect(allowed.map((d) => d.layers[0].remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: limit }, (_, i) => i));
      for (const d of decisions.filter((x) => !x.allowed)) {
        expect(d.layers[0].remaining).toBe(0);
        expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      }
    }
  });

  it('a full layer blocks the request and nothing is recorded in the other layer', async () => {
    const limiter = make();
    const ip = { key: uniq('ip:unauth:1.2.3.4'), limit: 2 };
    const plan = { key: uniq('plan:free:org1'), limit: 10 };
    expect((await limiter.check([ip, plan])).allowed).toBe(true);
    expect((await limiter.check([plan, ip])).allowed).toBe(true);

    for (const order of [
      [ip, plan],
      [plan, ip],
    ]) {
      const denied = await limiter.check(order);
      expect(denied.allowed).toBe(false);
      const byKey = Object.fromEntries(denied.layers.map((l) => [l.key, l]));
      expect(byKey[ip.key].remaining).toBe(0);
      expect(byKey[plan.key].remaining).toBe(8); // 2 recorded, the denied ones were not
      expect(mostConstrained(denied.layers).key).toBe(ip.key);
    }

    // The plan layer alone still holds exactly the 2 admitted requests.
    const alone = await limiter.check([plan]);
    expect(alone.allowed).toBe(true);
    expect(alone.layers[0].remaining).toBe(7);
    // The ip layer is still full (the plan-only check did not touch it).
    expect((await limiter.check([ip])).allowed).toBe(false);
  });

  it('reports sensible remaining, resetAtMs and retryAfterSeconds', async () => {
    const limiter = make();
    const key = uniq('values');
    const limit = 3;
    const window = 60_000;
    const slack = 100; // Redis server clock vs local clock (same host), ms truncation

    const t0 = Date.now();
    const first = await limiter.check([{ key, limit }]);
    const t1 = Date.now();
    expect(first).toMatchObject({ allowed: true, retryAfterSeconds: 0 });
    expect(first.layers).toEqual([{ key, limit, remaining: 2, resetAtMs: expect.any(Number) }]);
    // Empty window before: the oldest counted request is this one.
    expect(first.layers[0].resetAtMs).toBeGreaterThanOrEqual(t0 + window - slack);
    expect(first.layers[0].resetAtMs).toBeLessThanOrEqual(t1 + window + slack);

    const second = await limiter.check([{ key, limit }]);
    const third = await limiter.check([{ key, limit }]);
    expect(second.layers[0].remaining).toBe(1);
    expect(third.layers[0].remaining).toBe(0);
    expect(third.allowed).toBe(true);
    // resetAtMs stays anchored on the oldest counted request.
    expect(second.layers[0].resetAtMs).toBe(first.layers[0].resetAtMs);
    expect(third.layers[0].resetAtMs).toBe(first.layers[0].resetAtMs);

    const denied = await limiter.check([{ key, limit }]);
    expect(denied.allowed).toBe(false);
    expect(denied.layers[0]).toEqual({ key, limit, remaining: 0, resetAtMs: first.layers[0].resetAtMs });
    expect(Number.isInteger(denied.retryAfterSeconds)).toBe(true);
    expect(denied.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(denied.retryAfterSeconds).toBeLessThanOrEqual(60);

    // A layer with an empty window reports now + window even when another layer denies.
    const emptyKey = uniq('empty');
    const t2 = Date.now();
    const mixed = await limiter.check([
      { key, limit },
      { key: emptyKey, limit: 5 },
    ]);
    const t3 = Date.now();
    expect(mixed.allowed).toBe(false);
    expect(mixed.layers[1].remaining).toBe(5);
    expect(mixed.layers[1].resetAtMs).toBeGreaterThanOrEqual(t2 + window - slack);
    expect(mixed.layers[1].resetAtMs).toBeLessThanOrEqual(t3 + window + slack);
  });

  it('rejects invalid layer lists', async () => {
    const limiter = make();
    await expect(limiter.check([])).rejects.toThrow(RangeError);
    await expect(limiter.check([{ key: 'a', limit: 0 }])).rejects.toThrow(RangeError);
    await expect(limiter.check([{ key: 'a', limit: 1.5 }])).rejects.toThrow(RangeError);
    await expect(limiter.check([{ key: '', limit: 1 }])).rejects.toThrow(RangeError);
    await expect(
      limiter.check([
        { key: 'a', limit: 1 },
        { key: 'a', limit: 2 },
      ]),
    ).rejects.toThrow(RangeError);
  });
});

describe('MemoryRateLimiter', () => {
  it('slides the window (injected clock)', async () => {
    let now = 1_000_000;
    const limiter = memoryLimiter({ windowMs: 1000, now: () => now });
    const l = [{ key: 'k', limit: 2 }];

    expect(await limiter.check(l)).toEqual({
      allowed: true,
      retryAfterSeconds: 0,
      layers: [{ key: 'k', limit: 2, remaining: 1, resetAtMs: 1_001_000 }],
    });
    now += 400;
    expect(await limiter.check(l)).toEqual({
      allowed: true,
      retryAfterSeconds: 0,
      layers: [{ key: 'k', limit: 2, remaining: 0, resetAtMs: 1_001_000 }],
    });
    now += 100; // t=500: full until t=1000
    expect(await limiter.check(l)).toEqual({
      allowed: false,
      retryAfterSeconds: 1,
      layers: [{ key: 'k', limit: 2, remaining: 0, resetAtMs: 1_001_000 }],
    });
    now += 499; // t=999: still inside
    expect((await limiter.check(l)).allowed).toBe(false);
    now += 1; // t=1000: the request of t=0 has left the window
    expect(await limiter.check(l)).toEqual({
      allowed: true,
      retryAfterSeconds: 0,
      layers: [{ key: 'k', limit: 2, remaining: 0, resetAtMs: 1_001_400 }],
    });
    now += 100; // t=1100: full again until t=1400
    expect((await limiter.check(l)).retryAfterSeconds).toBe(1);
    now += 2000; // everything has left
    expect((await limiter.check(l)).layers[0].remaining).toBe(1);
  });

  it('retryAfterSeconds waits for enough requests to leave when the count exceeds a lowered limit', async () => {
    let now = 0;
    const limiter = memoryLimiter({ windowMs: 10_000, now: () => now });
    for (const t of [0, 1000, 2000]) {
      now = t;
      expect((await limiter.check([{ key: 'k', limit: 5 }])).allowed).toBe(true);
    }
    now = 3000;
    const d = await limiter.check([{ key: 'k', limit: 2 }]);
    // Room for 2 only once the request of t=1000 leaves at t=11000 → 8 s (not 7 s for the oldest).
    expect(d).toMatchObject({ allowed: false, retryAfterSeconds: 8 });
    expect(d.layers[0]).toMatchObject({ remaining: 0, resetAtMs: 10_000 });
  });

  it('retryAfterSeconds is the longest wait among blocking layers', async () => {
    let now = 0;
    const limiter = memoryLimiter({ windowMs: 10_000, now: () => now });
    await limiter.check([{ key: 'a', limit: 1 }]); // a leaves at 10000
    now = 4000;
    await limiter.check([{ key: 'b', limit: 1 }]); // b leaves at 14000
    now = 5000;
    const d = await limiter.check([
      { key: 'a', limit: 1 },
      { key: 'b', limit: 1 },
      { key: 'c', limit: 1 },
    ]);
    expect(d.allowed).toBe(false);
    expect(d.retryAfterSeconds).toBe(9);
    expect(d.layers.map((x) => x.remaining)).toEqual([0, 0, 1]);
  });

  it('sweeps keys whose window is empty', async () => {
    let now = 0;
    const limiter = memoryLimiter({ windowMs: 1000, now: () => now });
    for (let i = 0; i < 50; i++) await limiter.check([{ key: `k${i}`, limit: 1 }]);
    expect(limiter.size).toBe(50);
    now = 500;
    limiter.sweep();
    expect(limiter.size).toBe(50);
    now = 1000;
    limiter.sweep();
    expect(limiter.size).toBe(0);
  });
});

describe('RedisRateLimiter', () => {
  it('a blocked event loop is not mistaken for an unreachable Redis', async () => {
    const limiter = redisLimiter({ commandTimeoutMs: 200 });
    await limiter.check([{ key: uniq('warm'), limit: 5 }]);
    const pending = limiter.check([{ key: uniq('busy'), limit: 5 }]);
    // Let the command be written (microtasks only: no I/O phase, so the answer is not read yet)…
    for (let i = 0; i < 20; i += 1) await Promise.resolve();
    // …then busy the process well past the deadline while Redis answers on the socket.
    const until = Date.now() + 600;
    while (Date.now() < until) {
      /* blocking on purpose */
    }
    await expect(pending).resolves.toMatchObject({ allowed: true });
  });

  it('slides the window (windowMs 1000)', async () => {
    const limiter = redisLimiter({ windowMs: 1000 });
    const key = uniq('slide');
    const first = await limiter.check([{ key, limit: 2 }]);
    expect(first.allowed).toBe(true);
    await sleep(300); // so that the two admitted requests leave the window at different times
    expect((await limiter.check([{ key, limit: 2 }])).allowed).toBe(true);
    const denied = await limiter.check([{ key, limit: 2 }]);
    expect(denied).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(denied.layers[0].resetAtMs).toBe(first.layers[0].resetAtMs);

    await sleep(Math.max(0, first.layers[0].resetAtMs - Date.now()) + 50);
    const again = await limiter.check([{ key, limit: 2 }]);
    expect(again.allowed).toBe(true);
    expect(again.layers[0].remaining).toBe(0); // the second request still counts

    await sleep(1100);
    expect((await limiter.check([{ key, limit: 2 }])).layers[0].remaining).toBe(1);
  });

  it('two instances ("API nodes") sharing a prefix share the counts', async () => {
    const nodeA = redisLimiter();
    const nodeB = redisLimiter();
    const key = uniq('shared');
    expect((await nodeA.check([{ key, limit: 3 }])).layers[0].remaining).toBe(2);
    expect((await nodeB.check([{ key, limit: 3 }])).layers[0].remaining).toBe(1);
    expect((await nodeA.check([{ key, limit: 3 }])).layers[0].remaining).toBe(0);
    expect((await nodeB.check([{ key, limit: 3 }])).allowed).toBe(false);

    const key2 = uniq('shared-conc');
    const decisions = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? nodeA : nodeB).check([{ key: key2, limit: 10 }])));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
  });

  it('stores one sorted set per layer under the prefix, with a TTL, and records nothing when denied', async () => {
    const limiter = redisLimiter();
    const id = randomUUID();
    const ip = `ip:unauth:1.2.3.4:${id}`;
    const plan = `plan:pro:${id}`;
    await limiter.check([
      { key: ip, limit: 1 },
      { key: plan, limit: 5 },
    ]);
    await limiter.check([
      { key: ip, limit: 1 },
      { key: plan, limit: 5 },
    ]); // denied by ip

    const keys = (await inspector.keys(`${PREFIX}*`)).filter((k) => k.includes(id)).sort();
    expect(keys).toEqual([PREFIX + ip, PREFIX + plan].sort());
    expect(await inspector.exists(ip, plan)).toBe(0);
    for (const k of keys) {
      expect(await inspector.type(k)).toBe('zset');
      expect(await inspector.zcard(k)).toBe(1);
      const ttl = await inspector.pttl(k);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
  });

  it('fails fast with RateLimiterUnavailableError when Redis is unreachable', async () => {
    const limiter = redisLimiter({ url: UNREACHABLE_URL });
    // Right after construction (connection attempt in flight) ...
    const a = await timedRejection(limiter.check([{ key: 'x', limit: 1 }]));
    expect(a.err).toBeInstanceOf(RateLimiterUnavailableError);
    expect(a.ms).toBeLessThan(1500);
    // ... and while reconnecting in the background, also for a burst.
    await sleep(300);
    const t0 = Date.now();
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => limiter.check([{ key: 'x', limit: 1 }])));
    expect(Date.now() - t0).toBeLessThan(1500);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(RateLimiterUnavailableError);
    }
  });

  it('never reveals the Redis password in errors or logs', async () => {
    const secret = `pw-${randomUUID()}`;
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => jest.spyOn(console, m).mockImplementation(() => {}));
    const stderr = jest.spyOn(process.stderr, 'write');
    try {
      const limiter = redisLimiter({ url: `redis://user:${secret}@127.0.0.1:1` });
      const { err } = await timedRejection(limiter.check([{ key: 'x', limit: 1 }]));
      expect(err).toBeInstanceOf(RateLimiterUnavailableError);
      await sleep(300); // let a few reconnect attempts and 'error' events happen
      expect(String((err as Error).message)).not.toContain(secret);
      for (const spy of [...spies, stderr]) {
        for (const call of spy.mock.calls) expect(JSON.stringify(call)).not.toContain(secret);
      }
    } finally {
      spies.forEach((s) => s.mockRestore());
      stderr.mockRestore();
    }
  });

  it('fails closed while Redis is gone and recovers when it comes back', async () => {
    const { proxy, url } = await proxiedRedis();
    try {
      const limiter = redisLimiter({ url });
      const key = uniq('outage');
      expect((await limiter.check([{ key, limit: 5 }])).allowed).toBe(true);

      await proxy.stop(); // connection dropped, nothing listening
      const down = await timedRejection(limiter.check([{ key, limit: 5 }]));
      expect(down.err).toBeInstanceOf(RateLimiterUnavailableError);
      expect(down.ms).toBeLessThan(1500);

      await proxy.start(proxy.port);
      const deadline = Date.now() + 10_000;
      let recovered = null;
      while (!recovered && Date.now() < deadline) {
        try {
          recovered = await limiter.check([{ key, limit: 5 }]);
        } catch (err) {
          expect(err).toBeInstanceOf(RateLimiterUnavailableError);
          await sleep(100);
        }
      }
      expect(recovered).toMatchObject({ allowed: true });
      expect(recovered?.layers[0].remaining).toBe(3); // the count survived the outage
    } finally {
      await proxy.stop();
    }
  });

  it('fails within commandTimeoutMs when Redis stops answering', async () => {
    const { proxy, url } = await proxiedRedis();
    try {
      const limiter = redisLimiter({ url, commandTimeoutMs: 300 });
      const key = uniq('hang');
      expect((await limiter.check([{ key, limit: 5 }])).layers[0].remaining).toBe(4);

      proxy.holdReplies(); // the connection stays up but replies are held back
      const hung = await timedRejection(limiter.check([{ key, limit: 5 }]));
      expect(hung.err).toBeInstanceOf(RateLimiterUnavailableError);
      expect(hung.ms).toBeGreaterThanOrEqual(250);
      expect(hung.ms).toBeLessThan(1500);

      proxy.releaseReplies();
      // The timed-out request did reach Redis and counts (fail closed: the caller answered 503 for it).
      expect((await limiter.check([{ key, limit: 5 }])).layers[0].remaining).toBe(2);
    } finally {
      await proxy.stop();
    }
  });

  it('rejects checks after close()', async () => {
    const limiter = new RedisRateLimiter({ url: REDIS_URL, prefix: PREFIX });
    expect((await limiter.check([{ key: uniq('closed'), limit: 1 }])).allowed).toBe(true);
    await limiter.close();
    await limiter.close(); // idempotent
    await expect(limiter.check([{ key: 'x', limit: 1 }])).rejects.toBeInstanceOf(RateLimiterUnavailableError);
  });
});

describe('createRateLimiter / mostConstrained', () => {
  it('uses Redis when redisUrl is set, memory otherwise', async () => {
    const r = track(createRateLimiter({ redisUrl: REDIS_URL, prefix: PREFIX, windowMs: 5000 }));
    const m = track(createRateLimiter({ prefix: PREFIX }));
    expect(r).toBeInstanceOf(RedisRateLimiter);
    expect(m).toBeInstanceOf(MemoryRateLimiter);
    const key = uniq('factory');
    expect((await r.check([{ key, limit: 1 }])).allowed).toBe(true);
    expect(await inspector.pttl(PREFIX + key)).toBeLessThanOrEqual(5000);
  });

  it('picks the fewest remaining, ties broken by the smaller limit', () => {
    const s = (key: string, limit: number, remaining: number): LayerState => ({ key, limit, remaining, resetAtMs: 0 });
    expect(mostConstrained([s('a', 100, 50), s('b', 10, 3), s('c', 20, 7)]).key).toBe('b');
    expect(mostConstrained([s('a', 100, 3), s('b', 10, 3)]).key).toBe('b');
    expect(mostConstrained([s('a', 10, 0), s('b', 5, 0), s('c', 1, 1)]).key).toBe('b');
    expect(mostConstrained([s('only', 1, 0)]).key).toBe('only');
    expect(() => mostConstrained([])).toThrow(RangeError);
  });
});

/** A TCP proxy to Redis that can be stopped and restarted on the same port to simulate an outage. */
class TcpProxy {
  port = 0;
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly pairs: [net.Socket, net.Socket][] = [];
  private holding = false;

  constructor(
    private readonly host: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => {
          this.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      if (!this.holding) upstream.pipe(client);
      this.pairs.push([upstream, client]);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
  }

  /** Buffers Redis' replies instead of forwarding them (a hung server, as seen by the client). */
  holdReplies(): void {
    this.holding = true;
    for (const [up, client] of this.pairs) {
      up.unpipe(client);
      up.pause();
    }
  }

  releaseReplies(): void {
    this.holding = false;
    for (const [up, client] of this.pairs) if (!up.destroyed) up.pipe(client);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    this.pairs.length = 0;
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
