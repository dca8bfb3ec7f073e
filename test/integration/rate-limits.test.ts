/** Rate limits (decisions.md §8) and the monthly quota (§6) against real Redis and PostgreSQL. */
import net from 'node:net';
import { startHarness, type Harness } from '../support/harness';

const unknownId = '00000000-0000-4000-8000-000000000000';

describe('request limiter', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: { pipelinePaused: true, rateLimits: { ipUnauthenticated: 10, ipAuthenticated: 30, windowMs: 60_000 } },
    });
  });
  afterAll(async () => h?.stop());

  test('exactly `limit` unauthenticated requests are admitted when 2× limit arrive at once', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => h.request('GET', `/api/v1/campaigns/${unknownId}`)));
    const limited = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 401)).toHaveLength(10);
    expect(limited).toHaveLength(10);
    for (const res of limited) {
      expect(res.body).toEqual({ error: 'Too many requests' });
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now());
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  test('a changed X-Forwarded-For from an untrusted peer does not reset the unauthenticated layer', async () => {
    // The previous test used this peer's 10 requests; spoofed client addresses must not buy more.
    const spoofed = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        h.request('GET', `/api/v1/campaigns/${unknownId}`, {
          headers: { 'X-Forwarded-For': `203.0.113.${i + 1}` },
        }),
      ),
    );
    for (const res of spoofed) expect(res.status).toBe(429);
  });

  test('the authenticated layer (a key header present) is counted apart, at its own limit', async () => {
    const customer = await h.newCustomer('business');
    const results = await Promise.all(
      Array.from({ length: 60 }, () => h.request('GET', `/api/v1/campaigns/${unknownId}`, { key: customer.key })),
    );
    expect(results.filter((r) => r.status === 404)).toHaveLength(30);
    expect(results.filter((r) => r.status === 429)).toHaveLength(30);
  });
});

describe('trusted proxies', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: {
        pipelinePaused: true,
        trustedProxies: ['127.0.0.1', '::1'],
        rateLimits: { ipUnauthenticated: 3, ipAuthenticated: 100, windowMs: 60_000 },
      },
    });
  });
  afterAll(async () => h?.stop());

  test('X-Forwarded-For from a trusted proxy separates clients', async () => {
    const clientA = await Promise.all(
      Array.from({ length: 4 }, () =>
        h.request('GET', `/api/v1/campaigns/${unknownId}`, { headers: { 'X-Forwarded-For': '198.51.100.7' } }),
      ),
    );
    const clientB = await h.request('GET', `/api/v1/campaigns/${unknownId}`, { headers: { 'X-Forwarded-For': '198.51.100.8' } });
    expect(clientA.map((r) => r.status).sort()).toEqual([401, 401, 401, 429]);
    expect(clientB.status).toBe(401);
  });
});

describe('per-plan layer', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: { pipelinePaused: true, rateLimits: { ipUnauthenticated: 1000, ipAuthenticated: 1000, windowMs: 60_000 } },
    });
  });
  afterAll(async () => h?.stop());

  test('Growth: 10 creations per minute per organization, reads not counted; the stricter layer is shown', async () => {
    const growth = await h.newCustomer('growth');
    const creates = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.request('POST', '/api/v1/campaigns', { key: growth.key, body: { url: h.pageUrl, languages: ['en'] } }),
      ),
    );
    expect(creates.filter((r) => r.status === 201)).toHaveLength(10);
    const limited = creates.filter((r) => r.status === 429);
    expect(limited).toHaveLength(10);
    for (const res of limited) {
      expect(res.body).toEqual({ error: 'Too many requests' });
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
      expect(res.headers.get('x-ratelimit-plan')).toBe('growth');
    }
    const read = await h.request('GET', `/api/v1/campaigns/${creates.find((r) => r.status === 201)!.body.campaign_id}`, {
      key: growth.key,
    });
    expect(read.status).toBe(200);
    // A second organization on the same plan has its own budget.
    const other = await h.newCustomer('growth');
    expect((await h.request('POST', '/api/v1/campaigns', { key: other.key, body: { url: h.pageUrl, languages: ['en'] } })).status).toBe(
      201,
    );
  });
});

describe('monthly quota', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: { pipelinePaused: true, rateLimits: { ipUnauthenticated: 1000, ipAuthenticated: 1000, windowMs: 60_000 } },
    });
  });
  afterAll(async () => h?.stop());

  test('20 concurrent creates never overshoot the quota; the 429 reports the count', async () => {
    const customer = await h.newCustomer('enterprise');
    await h.call('accounts.setPlan', { org_id: customer.orgId, plan: 'enterprise', campaigns: 5, rate: 1000 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl, languages: ['en'] } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(15);
    const now = new Date();
    const resetsAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    for (const res of refused) {
      expect(res.body).toEqual({
        success: false,
        error: { code: 'rate_limited', message: expect.stringMatching(/quota/i), details: { used: 5, limit: 5, resets_at: resetsAt } },
      });
    }
    const rows = await h.sql('SELECT count(*)::int AS n FROM campaigns WHERE org_id = $1', [customer.orgId]);
    expect(rows[0].n).toBe(5);
  });

  test('a failed campaign is refunded', async () => {
    const customer = await h.newCustomer('enterprise');
    await h.call('accounts.setPlan', { org_id: customer.orgId, plan: 'enterprise', campaigns: 1, rate: 1000 });
    const first = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl, languages: ['en'] } });
    expect(first.status).toBe(201);
    expect((await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl, languages: ['en'] } })).status).toBe(
      429,
    );
    await h.call('campaigns.transition', {
      campaign_id: first.body.campaign_id,
      to: 'failed',
      error_code: 'capture_failed',
      error_message: 'Page unreachable.',
    });
    const failed = await h.request('GET', `/api/v1/campaigns/${first.body.campaign_id}`, { key: customer.key });
    expect(failed.body).toMatchObject({ status: 'failed', error: { code: 'capture_failed', message: 'Page unreachable.' } });
    expect((await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl, languages: ['en'] } })).status).toBe(
      201,
    );
  });
});

describe('Redis unreachable', () => {
  let h: Harness;
  let closedPort: number;
  beforeAll(async () => {
    // A port that was just free and is now closed: connections are refused at once.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    h = await startHarness({ config: { pipelinePaused: true, redisUrl: `redis://127.0.0.1:${closedPort}` } });
  });
  afterAll(async () => h?.stop());

  test('503 internal, answered fast, for authenticated and unauthenticated requests (fail closed)', async () => {
    const customer = await h.newCustomer('business');
    for (const init of [{}, { key: customer.key }]) {
      const started = Date.now();
      const res = await h.request('GET', `/api/v1/campaigns/${unknownId}`, init);
      const elapsed = Date.now() - started;
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: { code: 'internal', message: expect.any(String) } });
      // A behaviour bound (no hanging on an offline queue), not a benchmark.
      expect(elapsed).toBeLessThan(1500);
    }
    const ready = await h.request('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.rate_limiter).toBe('unreachable');
  });
});
