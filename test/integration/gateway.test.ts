/** The public contract at the gateway, against real PostgreSQL and Redis. */
import { startHarness, type Harness } from '../support/harness';

let h: Harness;
let business: { orgId: string; key: string; keyId: string };

beforeAll(async () => {
  h = await startHarness({
    config: { pipelinePaused: true, rateLimits: { ipUnauthenticated: 1000, ipAuthenticated: 1000, windowMs: 60_000 } },
  });
  business = await h.newCustomer('business');
  page = h.pageUrl;
});
afterAll(async () => h?.stop());

let page: string;
/** Stands for the fixture page in tables built before it is started. */
const PAGE = '__fixture_page__';

function expectErrorBody(res: { body: any }, code: string) {
  expect(res.body).toEqual({ success: false, error: expect.objectContaining({ code, message: expect.any(String) }) });
}

describe('POST /api/v1/campaigns', () => {
  test('201 with Location, the documented body, rate-limit and scope headers', async () => {
    const res = await h.request('POST', '/api/v1/campaigns', { key: business.key, body: { url: page } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true, campaign_id: expect.any(String), job_id: expect.any(String), status: 'collecting' });
    expect(res.headers.get('location')).toBe(`/api/v1/campaigns/${res.body.campaign_id}`);
    expect(res.headers.get('x-ratelimit-plan')).toBe('business');
    expect(Number(res.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now());
    expect(res.headers.get('x-service-api-scopes')).toBe('campaigns:create,campaigns:read,reports:read');
  });

  test('normalizes url, title, languages and platforms as decided', async () => {
    const created = await h.request('POST', '/api/v1/campaigns', {
      key: business.key,
      body: { url: h.pageUrl.replace('127.0.0.1', 'localhost'), languages: ['EN', 'ja', 'en', 'Ko'], platforms: ['youtube', 'tiktok'] },
    });
    expect(created.status).toBe(201);
    const res = await h.request('GET', `/api/v1/campaigns/${created.body.campaign_id}`, { key: business.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      status: 'collecting',
      url: h.pageUrl.replace('127.0.0.1', 'localhost'),
      title: 'localhost',
      languages: ['en', 'ja', 'ko'],
      platforms: ['youtube', 'tiktok'],
      progress: 0,
    });
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
    expect(res.body.videos).toHaveLength(6);
    expect(res.body.videos[0]).toEqual({
      id: expect.any(String),
      platform: 'youtube',
      language: 'en',
      variant: 'a',
      status: 'queued',
      file_url: null,
      captions_url: null,
      captions_srt_url: null,
      thumbnail_url: null,
      duration_seconds: null,
      published_at: null,
      script_source: null,
      warnings: [],
      revision: 1,
      file_revision: null,
      error: null,
      quality: null,
    });
  });

  test('title defaults to the host name; an explicit title is trimmed', async () => {
    const a = await h.request('POST', '/api/v1/campaigns', {
      key: business.key,
      body: { url: h.pageUrl.replace('127.0.0.1', 'localhost') },
    });
    const b = await h.request('POST', '/api/v1/campaigns', { key: business.key, body: { url: page, title: '  Launch  ' } });
    const [ga, gb] = await Promise.all(
      [a, b].map((r) => h.request('GET', `/api/v1/campaigns/${r.body.campaign_id}`, { key: business.key })),
    );
    expect(ga.body.title).toBe('localhost');
    expect(gb.body.title).toBe('Launch');
  });

  test.each([
    ['missing url', {}, /url is required/],
    ['url not a string', { url: 42 }, /url must be of type string/],
    ['url with spaces', { url: 'https://exa mple.com' }, /url/],
    ['url scheme not http(s)', { url: 'ftp://example.com/x' }, /url/],
    ['javascript url', { url: 'javascript:alert(1)' }, /url/],
    ['url with credentials', { url: 'https://user:pw@localhost/x' }, /url/],
    ['url over 2048 chars', { url: `https://localhost/${'a'.repeat(2050)}` }, /url/],
    ['private url', { url: 'http://10.0.0.1/' }, /url must point to a public address/],
    ['metadata url', { url: 'http://169.254.169.254/latest/meta-data' }, /url must point to a public address/],
    ['unknown field', { url: PAGE, colour: 'red' }, /unknown field "colour"/],
    ['unknown language', { url: PAGE, languages: ['en', 'xx'] }, /"xx"/],
    ['empty languages', { url: PAGE, languages: [] }, /languages must not be empty/],
    ['unknown platform', { url: PAGE, platforms: ['myspace'] }, /platforms\[0\] must be one of/],
    ['webhook_url over http to a public host', { url: PAGE, webhook_url: 'http://93.184.215.14/hook' }, /webhook_url must use https/],
    ['webhook_url private', { url: PAGE, webhook_url: 'https://192.168.1.5/hook' }, /webhook_url/],
    ['webhook_url not a URL', { url: PAGE, webhook_url: 'not a url' }, /webhook_url/],
    ['blank title', { url: PAGE, title: '   ' }, /title/],
  ])('400 invalid_input: %s', async (_name, body, message) => {
    const res = await h.request('POST', '/api/v1/campaigns', {
      key: business.key,
      body: JSON.parse(JSON.stringify(body).replace(PAGE, page)),
    });
    expect(res.status).toBe(400);
    expectErrorBody(res, 'invalid_input');
    expect(res.body.error.message).toMatch(message);
  });

  test('400 for a body that is not JSON, not an object, or not application/json', async () => {
    const notJson = await h.request('POST', '/api/v1/campaigns', {
      key: business.key,
      body: '{"url":',
      headers: { 'Content-Type': 'application/json' },
    });
    const array = await h.request('POST', '/api/v1/campaigns', { key: business.key, body: '[1,2]' });
    const text = await h.request('POST', '/api/v1/campaigns', {
      key: business.key,
      body: 'url=x',
      headers: { 'Content-Type': 'text/plain' },
    });
    for (const res of [notJson, array, text]) {
      expect(res.status).toBe(400);
      expectErrorBody(res, 'invalid_input');
    }
    expect(text.body.error.message).toMatch(/application\/json/);
  });

  test('413 invalid_input for a body over 64 KiB', async () => {
    const res = await h.request('POST', '/api/v1/campaigns', { key: business.key, body: { url: page, title: 'x'.repeat(70 * 1024) } });
    expect(res.status).toBe(413);
    expectErrorBody(res, 'invalid_input');
  });

  test('plan language caps: Growth 5, Business 8', async () => {
    const growth = await h.newCustomer('growth');
    const six = ['en', 'ja', 'ko', 'zh', 'es', 'fr'];
    const nine = [...six, 'de', 'pt', 'it'];
    const growthFive = await h.request('POST', '/api/v1/campaigns', { key: growth.key, body: { url: page, languages: six.slice(0, 5) } });
    const growthSix = await h.request('POST', '/api/v1/campaigns', { key: growth.key, body: { url: page, languages: six } });
    const businessEight = await h.request('POST', '/api/v1/campaigns', {
      key: business.key,
      body: { url: page, languages: nine.slice(0, 8) },
    });
    const businessNine = await h.request('POST', '/api/v1/campaigns', { key: business.key, body: { url: page, languages: nine } });
    expect([growthFive.status, growthSix.status, businessEight.status, businessNine.status]).toEqual([201, 400, 201, 400]);
    expect(growthSix.body.error.message).toMatch(/at most 5/);
    expect(businessNine.body.error.message).toMatch(/at most 8/);
    // Duplicates are removed before the cap is applied.
    const dupes = await h.request('POST', '/api/v1/campaigns', {
      key: growth.key,
      body: { url: page, languages: ['en', 'EN', 'ja', 'ko', 'zh', 'es', 'es'] },
    });
    expect(dupes.status).toBe(201);
  });

  test('Idempotency-Key replays the first response; another body with the same key is 409', async () => {
    const headers = { 'Idempotency-Key': 'order-77' };
    const first = await h.request('POST', '/api/v1/campaigns', { key: business.key, body: { url: page, title: 'A' }, headers });
    const again = await h.request('POST', '/api/v1/campaigns', { key: business.key, body: { title: 'A', url: page }, headers });
    const other = await h.request('POST', '/api/v1/campaigns', { key: business.key, body: { url: page, title: 'B' }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(other.status).toBe(409);
    expectErrorBody(other, 'conflict');
    const rows = await h.sql('SELECT count(*)::int AS n FROM campaigns WHERE title = $1', ['A']);
    expect(rows[0].n).toBe(1);
  });

  test('concurrent requests with one Idempotency-Key create one campaign', async () => {
    const headers = { 'Idempotency-Key': 'burst-1' };
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        h.request('POST', '/api/v1/campaigns', { key: business.key, body: { url: page, title: 'Burst' }, headers }),
      ),
    );
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.campaign_id));
    expect(ids.size).toBe(1);
    for (const r of results) expect([201, 409]).toContain(r.status);
    const rows = await h.sql('SELECT count(*)::int AS n FROM campaigns WHERE title = $1', ['Burst']);
    expect(rows[0].n).toBe(1);
  });
});

describe('authentication and authorization', () => {
  test('both key headers work; Authorization wins when both are sent', async () => {
    const bearer = await h.request('GET', '/api/v1/campaigns/00000000-0000-4000-8000-000000000000', {
      key: business.key,
      header: 'bearer',
    });
    const xApiKey = await h.request('GET', '/api/v1/campaigns/00000000-0000-4000-8000-000000000000', {
      key: business.key,
      header: 'x-api-key',
    });
    expect(bearer.status).toBe(404);
    expect(xApiKey.status).toBe(404);
    const both = await h.request('GET', '/api/v1/campaigns/00000000-0000-4000-8000-000000000000', {
      headers: { Authorization: 'Bearer sk_live_00000000000000000000000000000000', 'X-API-Key': business.key },
    });
    expect(both.status).toBe(401);
  });

  test.each([
    ['no key', {}],
    ['malformed key', { Authorization: 'Bearer not-a-key' }],
    ['unknown key', { 'X-API-Key': 'sk_live_0123456789abcdef0123456789abcdef' }],
    ['Basic scheme', { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
  ])('401 unauthorized: %s', async (_name, headers) => {
    const res = await h.request('POST', '/api/v1/campaigns', { body: { url: page }, headers });
    expect(res.status).toBe(401);
    expectErrorBody(res, 'unauthorized');
  });

  test('a used key records last_used_at', async () => {
    const customer = await h.newCustomer('business');
    const [before] = await h.sql('SELECT last_used_at FROM api_keys WHERE id = $1', [customer.keyId]);
    expect(before.last_used_at).toBeNull();
    await h.request('GET', '/api/v1/campaigns/00000000-0000-4000-8000-000000000000', { key: customer.key });
    let after: any;
    for (let i = 0; i < 50 && !after?.last_used_at; i += 1) {
      [after] = await h.sql('SELECT last_used_at FROM api_keys WHERE id = $1', [customer.keyId]);
      if (!after.last_used_at) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(new Date(after.last_used_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  test('a revoked key is refused on the next request', async () => {
    const customer = await h.newCustomer('business');
    const before = await h.request('GET', '/api/v1/campaigns/00000000-0000-4000-8000-000000000000', { key: customer.key });
    expect(before.status).toBe(404);
    await h.call('accounts.revokeKey', { key_id: customer.keyId });
    const after = await h.request('GET', '/api/v1/campaigns/00000000-0000-4000-8000-000000000000', { key: customer.key });
    expect(after.status).toBe(401);
    expectErrorBody(after, 'unauthorized');
  });

  test('a legacy key with only campaigns:create gets 403 on GET and can still create', async () => {
    const legacy = await h.newCustomer('business', ['campaigns:create']);
    const created = await h.request('POST', '/api/v1/campaigns', { key: legacy.key, body: { url: page } });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-service-api-scopes')).toBe('campaigns:create');
    const read = await h.request('GET', `/api/v1/campaigns/${created.body.campaign_id}`, { key: legacy.key });
    expect(read.status).toBe(403);
    expectErrorBody(read, 'forbidden');
    expect(read.body.error.message).toMatch(/campaigns:read/);
    expect(read.headers.get('x-service-api-scopes')).toBe('campaigns:create');
  });

  test('a read-only key cannot create', async () => {
    const reader = await h.newCustomer('business', ['campaigns:read']);
    const res = await h.request('POST', '/api/v1/campaigns', { key: reader.key, body: { url: page } });
    expect(res.status).toBe(403);
    expectErrorBody(res, 'forbidden');
  });

  test.each(['free', 'starter'])('403 forbidden for every call on the %s plan, with X-RateLimit-Plan', async (plan) => {
    const customer = await h.newCustomer(plan);
    const create = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: page } });
    const read = await h.request('GET', '/api/v1/campaigns/00000000-0000-4000-8000-000000000000', { key: customer.key });
    for (const res of [create, read]) {
      expect(res.status).toBe(403);
      expectErrorBody(res, 'forbidden');
      expect(res.headers.get('x-ratelimit-plan')).toBe(plan);
      expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    }
  });
});

describe('GET /api/v1/campaigns/{id}', () => {
  test('404 not_found alike for malformed, unknown and foreign ids', async () => {
    const other = await h.newCustomer('business');
    const foreign = await h.request('POST', '/api/v1/campaigns', { key: other.key, body: { url: page } });
    expect(foreign.status).toBe(201);
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000', foreign.body.campaign_id, "1' OR '1'='1"]) {
      const res = await h.request('GET', `/api/v1/campaigns/${encodeURIComponent(id)}`, { key: business.key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: { code: 'not_found', message: 'Campaign not found.' } });
    }
  });

  test('unknown endpoints under /api/v1 answer 404 in the documented body', async () => {
    const res = await h.request('GET', '/api/v1/reports/xyz', { key: business.key });
    expect(res.status).toBe(404);
    expectErrorBody(res, 'not_found');
  });
});

describe('OpenAPI', () => {
  test('GET /api/v1/openapi.json is a valid OpenAPI 3.1 document built from the request schemas', async () => {
    const res = await h.request('GET', '/api/v1/openapi.json', { key: business.key });
    expect(res.status).toBe(200);
    // ESM-only package: loaded by a real dynamic import.
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(res.body);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const create = res.body.paths['/api/v1/campaigns'].post;
    expect(create['x-required-scope']).toBe('campaigns:create');
    expect(create.requestBody.content['application/json'].schema.properties.url.maxLength).toBe(2048);
    expect(res.body.paths['/api/v1/campaigns/{id}'].get['x-required-scope']).toBe('campaigns:read');
    // Each video's links, the poster and the SubRip captions among them.
    const video = res.body.paths['/api/v1/campaigns/{id}'].get.responses['200'].content['application/json'].schema.properties.videos.items;
    for (const field of ['file_url', 'captions_url', 'captions_srt_url', 'thumbnail_url']) {
      expect(video.required).toContain(field);
      expect(video.properties[field].type).toEqual(['string', 'null']);
    }
    // The signed links themselves: no key, each with its media type.
    const downloads: Record<string, string> = {
      '/files/videos/{video_id}.mp4': 'video/mp4',
      '/files/captions/{video_id}.vtt': 'text/vtt',
      '/files/captions/{video_id}.srt': 'application/x-subrip',
      '/files/thumbnails/{video_id}.jpg': 'image/jpeg',
    };
    for (const [path, mediaType] of Object.entries(downloads)) {
      const download = res.body.paths[path].get;
      expect(download.security).toEqual([]);
      expect(Object.keys(download.responses['200'].content)).toEqual([mediaType]);
      expect(download.responses['403']).toBeDefined();
    }
  });
});
