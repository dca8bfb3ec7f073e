/**
 * GET /api/v1/campaigns (decisions §11) on real PostgreSQL and Redis, and on the embedded SQLite: the caller's
 * organization only, newest first, keyset pages that neither repeat nor skip when campaigns are created between
 * them, filters, and a 400 that names the bad parameter. Campaigns are created through the API (pipeline paused:
 * they wait in collecting) and, for volume, as rows the way the actor writes them.
 */
import crypto from 'node:crypto';
import { startHarness, type Harness } from '../support/harness';

// Generous: these tests page a lot; the limiter has its own tests.
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

interface Listed {
  campaign_id: string;
  status: string;
  created_at: string;
  [field: string]: unknown;
}
interface ListBody {
  success: boolean;
  campaigns: Listed[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Every page of a listing, following next_cursor; `between` runs after each page. */
async function allPages(h: Harness, key: string, query: string, between?: (page: number) => Promise<void>): Promise<ListBody[]> {
  const pages: ListBody[] = [];
  let cursor: string | null = null;
  do {
    const res = await h.request('GET', `/api/v1/campaigns?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    expect(res.status).toBe(200);
    pages.push(res.body as ListBody);
    cursor = (res.body as ListBody).next_cursor;
    if (between) await between(pages.length);
  } while (cursor && pages.length < 50);
  return pages;
}

describe('on PostgreSQL', () => {
  let h: Harness;
  let a: { orgId: string; key: string };
  let b: { orgId: string; key: string };
  const created: string[] = [];

  /** A campaign row of organization `orgId` in `status`, created at `createdAt` (default now). */
  async function insertCampaign(orgId: string, status: string, createdAt: Date | string = new Date()): Promise<string> {
    const id = crypto.randomUUID();
    await h.sql(
      `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, webhook_url, progress, quota_period, status_changed_at, deadline_at,
      error_code, error_message, created_at, updated_at)
      VALUES ($1, $2, $1, $3, 'https://acme.example/', 'acme.example', '["en"]', '["tiktok"]', NULL, 0, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'), now(),
      now() + interval '30 minutes', $5, $6, $4, now())`,
      [id, orgId, status, createdAt, status === 'failed' ? 'render_failed' : null, status === 'failed' ? 'The renderer gave up.' : null],
    );
    return id;
  }

  /** The organization's campaign ids in the order the list must give them. */
  async function expectedOrder(orgId: string, where = 'TRUE', params: unknown[] = []): Promise<string[]> {
    const rows = await h.sql<{ id: string }>(`SELECT id FROM campaigns WHERE org_id = $1 AND ${where} ORDER BY created_at DESC, id DESC`, [
      orgId,
      ...params,
    ]);
    return rows.map((r) => r.id);
  }

  beforeAll(async () => {
    h = await startHarness({ config: { pipelinePaused: true, rateLimits: limits } });
    a = await h.newCustomer('business');
    b = await h.newCustomer('business');
    for (const body of [{ url: h.pageUrl }, { url: h.pageUrl, languages: ['en', 'ja'] }, { url: h.pageUrl, title: 'Third' }]) {
      const res = await h.request('POST', '/api/v1/campaigns', { key: a.key, body });
      expect(res.status).toBe(201);
      created.push(res.body.campaign_id);
    }
    expect((await h.request('POST', '/api/v1/campaigns', { key: b.key, body: { url: h.pageUrl } })).status).toBe(201);
    // Older campaigns, a failed one, and two created at the very same instant (the id breaks the tie).
    const day = 24 * 3600_000;
    for (let n = 1; n <= 6; n += 1) await insertCampaign(a.orgId, n % 3 === 0 ? 'failed' : 'review', new Date(Date.now() - n * day));
    const sameInstant = new Date(Date.now() - 10 * day);
    await insertCampaign(a.orgId, 'review', sameInstant);
    await insertCampaign(a.orgId, 'review', sameInstant);
    await insertCampaign(b.orgId, 'review', new Date(Date.now() - 2 * day));
  }, 120_000);
  afterAll(async () => h?.stop());

  test('the first page: newest first, the caller’s organization only, each campaign exactly as GET shows it', async () => {
    const res = await h.request('GET', '/api/v1/campaigns', { key: a.key });
    expect(res.status).toBe(200);
    const body = res.body as ListBody;
    expect(body.success).toBe(true);
    const all = await expectedOrder(a.orgId);
    expect(all).toHaveLength(11);
    // Default limit 20: everything on one page.
    expect(body.campaigns.map((c) => c.campaign_id)).toEqual(all);
    expect(body.has_more).toBe(false);
    expect(body.next_cursor).toBeNull();
    expect(body.campaigns.slice(0, 3).map((c) => c.campaign_id)).toEqual([...created].reverse());
    for (const listed of [body.campaigns[0], body.campaigns.find((c) => c.status === 'failed')!]) {
      const one = await h.request('GET', `/api/v1/campaigns/${listed.campaign_id}`, { key: a.key });
      const { success, ...asInGet } = one.body;
      expect(success).toBe(true);
      expect(listed).toEqual(asInGet);
    }
    expect(body.campaigns.find((c) => c.status === 'failed')!.error).toEqual({ code: 'render_failed', message: 'The renderer gave up.' });
    // B sees its own two only.
    const other = await h.request('GET', '/api/v1/campaigns', { key: b.key });
    expect(other.body.campaigns.map((c: Listed) => c.campaign_id)).toEqual(await expectedOrder(b.orgId));
    expect(other.body.campaigns).toHaveLength(2);
  });

  test('keyset pages: limit 2 walks every campaign once, in order, while new campaigns are created between pages', async () => {
    const before = await expectedOrder(a.orgId);
    const added: string[] = [];
    const pages = await allPages(h, a.key, 'limit=2', async (page) => {
      // Someone creates campaigns while the integrator pages: newer ones, through the API and as rows.
      if (page === 1) {
        const res = await h.request('POST', '/api/v1/campaigns', { key: a.key, body: { url: h.pageUrl } });
        expect(res.status).toBe(201);
        added.push(res.body.campaign_id);
      }
      if (page === 3) added.push(await insertCampaign(a.orgId, 'review'));
    });
    const seen = pages.flatMap((p) => p.campaigns.map((c) => c.campaign_id));
    expect(seen).toEqual(before);
    expect(pages.map((p) => p.campaigns.length)).toEqual([2, 2, 2, 2, 2, 1]);
    expect(pages.slice(0, -1).every((p) => p.has_more && typeof p.next_cursor === 'string')).toBe(true);
    expect(pages.at(-1)).toMatchObject({ has_more: false, next_cursor: null });
    // A new listing starts with what was created meanwhile.
    const fresh = await h.request('GET', '/api/v1/campaigns?limit=2', { key: a.key });
    expect(fresh.body.campaigns.map((c: Listed) => c.campaign_id)).toEqual([...added].reverse());
  });

  test('filters: status and a created_after / created_before window, paged with their cursor', async () => {
    const failed = await h.request('GET', '/api/v1/campaigns?status=failed', { key: a.key });
    expect(failed.status).toBe(200);
    expect(failed.body.campaigns.map((c: Listed) => c.campaign_id)).toEqual(await expectedOrder(a.orgId, `status = 'failed'`));
    expect(failed.body.campaigns).toHaveLength(2);
    const after = new Date(Date.now() - 4.5 * 24 * 3600_000).toISOString();
    const beforeTime = new Date(Date.now() - 1.5 * 24 * 3600_000).toISOString();
    const pages = await allPages(h, a.key, `limit=1&created_after=${after}&created_before=${beforeTime}`);
    const window = await expectedOrder(a.orgId, 'created_at > $2 AND created_at < $3', [after, beforeTime]);
    expect(window).toHaveLength(3);
    expect(pages.flatMap((p) => p.campaigns.map((c) => c.campaign_id))).toEqual(window);
    const reviewInWindow = await h.request('GET', `/api/v1/campaigns?status=review&created_after=${after}&created_before=${beforeTime}`, {
      key: a.key,
    });
    expect(reviewInWindow.body.campaigns.map((c: Listed) => c.campaign_id)).toEqual(
      await expectedOrder(a.orgId, `created_at > $2 AND created_at < $3 AND status = 'review'`, [after, beforeTime]),
    );
  });

  test.each([
    ['limit=0', /^limit must be >= 1/],
    ['limit=101', /^limit must be <= 100/],
    ['limit=ten', /^limit must be of type integer/],
    ['limit=2.5', /^limit must be of type integer/],
    ['limit=1&limit=2', /^limit must be of type integer/],
    ['status=finished', /^status must be one of: .*review/],
    ['created_after=yesterday', /^created_after must match format "date-time"/],
    ['created_before=2026-13-01T00:00:00Z', /^created_before must match format "date-time"/],
    ['sort=oldest', /unknown field "sort"/],
    ['cursor=bm90LW91cnM', /^cursor is not valid/],
  ])('GET /campaigns?%s answers 400 invalid_input naming the parameter', async (query, message) => {
    const res = await h.request('GET', `/api/v1/campaigns?${query}`, { key: a.key });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: { code: 'invalid_input', message: expect.stringMatching(message) } });
  });

  test('another organization’s cursor is not valid here; a key without campaigns:read gets 403', async () => {
    const page = await h.request('GET', '/api/v1/campaigns?limit=1', { key: b.key });
    expect(page.body.next_cursor).toEqual(expect.any(String));
    const res = await h.request('GET', `/api/v1/campaigns?cursor=${encodeURIComponent(page.body.next_cursor)}`, { key: a.key });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^cursor is not valid/);
    const writer = await h.newCustomer('business', ['campaigns:create']);
    const refused = await h.request('GET', '/api/v1/campaigns', { key: writer.key });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
  });

  test('the OpenAPI document describes the list: its query parameters, its body, its errors', async () => {
    const res = await h.request('GET', '/api/v1/openapi.json', { key: a.key });
    const list = res.body.paths['/api/v1/campaigns'].get;
    expect(list['x-required-scope']).toBe('campaigns:read');
    const parameters = Object.fromEntries(list.parameters.map((p: { name: string; in: string; schema: unknown }) => [p.name, p]));
    expect(Object.keys(parameters).sort()).toEqual(['batch_id', 'created_after', 'created_before', 'cursor', 'limit', 'status']);
    expect(parameters.limit).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } });
    expect(parameters.created_after.schema).toEqual({ type: 'string', format: 'date-time' });
    const schema = list.responses['200'].content['application/json'].schema;
    expect(schema.required).toEqual(['success', 'campaigns', 'has_more', 'next_cursor']);
    expect(schema.properties.campaigns.items.properties).not.toHaveProperty('success');
    expect(schema.properties.campaigns.items.properties).toHaveProperty('error');
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429']));
    // Only a batch_id is looked up (decisions §14): no campaign id is in the path.
    expect(list.responses['404'].description).toContain('batch_id');
  });
});

describe('on the embedded SQLite', () => {
  let h: Harness;
  let key: string;
  const created: string[] = [];

  beforeAll(async () => {
    h = await startHarness({ dialect: 'sqlite', config: { pipelinePaused: true, rateLimits: limits } });
    ({ key } = await h.newCustomer('business'));
    for (let n = 0; n < 3; n += 1) {
      const res = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl } });
      expect(res.status).toBe(201);
      created.push(res.body.campaign_id);
    }
  }, 120_000);
  afterAll(async () => h?.stop());

  test('pages of one walk the campaigns newest first; created_after filters', async () => {
    const pages = await allPages(h, key, 'limit=1');
    expect(pages.flatMap((p) => p.campaigns.map((c) => c.campaign_id))).toEqual([...created].reverse());
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    const first = pages[2].campaigns[0];
    const after = await h.request('GET', `/api/v1/campaigns?created_after=${encodeURIComponent(first.created_at)}`, { key });
    expect(after.body.campaigns.map((c: Listed) => c.campaign_id)).toEqual([created[2], created[1]]);
  });

  test('GET (its own read path, lib/db/reads.ts) shows each campaign exactly as the list does, options and videos included', async () => {
    const options = { captions: 'file_only', brand: { primary_color: '#ff5500' }, metadata: { crm: 'opp 42', note: '秋' } };
    const res = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, languages: ['en', 'ja'], ...options } });
    expect(res.status).toBe(201);
    const listed = (await h.request('GET', '/api/v1/campaigns?limit=10', { key })).body as ListBody;
    expect(listed.campaigns[0]).toMatchObject({ campaign_id: res.body.campaign_id, ...options, languages: ['en', 'ja'] });
    expect(listed.campaigns[0].videos).toHaveLength(2);
    for (const campaign of listed.campaigns) {
      const { success, ...asInGet } = (await h.request('GET', `/api/v1/campaigns/${campaign.campaign_id}`, { key })).body;
      expect(success).toBe(true);
      expect(campaign).toEqual(asInGet);
    }
  });
});
