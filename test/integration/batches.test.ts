/**
 * Batches (decisions §14) on real PostgreSQL and Redis. With the pipeline paused: a batch is refused whole (an invalid
 * item named items[i].field, the plan's item count, the quota all or nothing) and nothing is created; Idempotency-Key
 * replays it; GET, the list and ?batch_id answer only the caller's organization; the plan's rate counts it once. With
 * the whole pipeline (Chromium, the voices, editly at draft quality), through the typed client: three fixture pages
 * reach review and the batch's webhook_url gets one signed batch.completed; an item whose page cannot be captured
 * becomes a failed, refunded campaign, not a refused batch.
 */
import { createBatch, createCampaignClient, getBatch, listBatches, verifyWebhook } from '../../clients/typescript/src';
import { webhookReceivers } from '../fixtures/webhook-receiver';
import pg from 'pg';
import { CHECK_NOT_THE_SUBJECT, startHarness, TEST_DATABASE_URL, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

// Generous: these tests are about batches, not the per-IP limiter.
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

interface Row {
  count: string;
}

describe('the API, pipeline paused', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ config: { pipelinePaused: true, rateLimits: limits } });
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  const counted = async (orgId: string) => {
    const [campaigns] = await h.sql<Row>('SELECT count(*) AS count FROM campaigns WHERE org_id = $1', [orgId]);
    const [batches] = await h.sql<Row>('SELECT count(*) AS count FROM batches WHERE org_id = $1', [orgId]);
    const [usage] = await h.sql<{ used: number }>('SELECT coalesce(sum(used), 0)::int AS used FROM usage_counters WHERE org_id = $1', [
      orgId,
    ]);
    return { campaigns: Number(campaigns.count), batches: Number(batches.count), used: usage.used };
  };

  test('a batch makes one campaign per item, defaults under each item, each naming its batch; the plan rate counts it once', async () => {
    const customer = await h.newCustomer('growth');
    const res = await h.request('POST', '/api/v1/batches', {
      key: customer.key,
      body: {
        items: [{ url: h.pageUrl }, { url: h.site.url('/?second'), title: 'Second', languages: ['ja'] }],
        defaults: { languages: ['en', 'ko'], title: 'Shared', metadata: { source: 'sheet' } },
      },
    });
    expect(res.status).toBe(201);
    const batchId: string = res.body.batch_id;
    expect(res.headers.get('location')).toBe(`/api/v1/batches/${batchId}`);
    expect(res.body).toEqual({
      success: true,
      batch_id: expect.any(String),
      campaigns: [
        { index: 0, campaign_id: expect.any(String), url: h.pageUrl },
        { index: 1, campaign_id: expect.any(String), url: h.site.url('/?second') },
      ],
    });
    // Growth's plan rate is 10 a minute: the batch of two took one of them.
    expect(res.headers.get('x-ratelimit-limit')).toBe('10');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('9');
    const [first, second] = await Promise.all(
      res.body.campaigns.map((c: { campaign_id: string }) => h.request('GET', `/api/v1/campaigns/${c.campaign_id}`, { key: customer.key })),
    );
    expect(first.body).toMatchObject({ batch_id: batchId, title: 'Shared', languages: ['en', 'ko'], metadata: { source: 'sheet' } });
    expect(second.body).toMatchObject({ batch_id: batchId, title: 'Second', languages: ['ja'], metadata: { source: 'sheet' } });
    expect(await counted(customer.orgId)).toEqual({ campaigns: 2, batches: 1, used: 2 });

    const read = await h.request('GET', `/api/v1/batches/${batchId}`, { key: customer.key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      success: true,
      batch_id: batchId,
      completed_at: null,
      counts: { collecting: 2, review: 0, failed: 0 },
      campaigns: [
        { campaign_id: res.body.campaigns[0].campaign_id, url: h.pageUrl, status: 'collecting' },
        { campaign_id: res.body.campaigns[1].campaign_id, url: h.site.url('/?second'), status: 'collecting' },
      ],
    });
    // A plain create carries no batch_id.
    const single = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl } });
    expect(single.status).toBe(201);
    expect((await h.request('GET', `/api/v1/campaigns/${single.body.campaign_id}`, { key: customer.key })).body).not.toHaveProperty(
      'batch_id',
    );
  });

  test('an invalid item refuses the whole batch with a 400 naming items[i].field, and nothing is created', async () => {
    const customer = await h.newCustomer('business');
    const refusals: Array<[unknown, string]> = [
      // The merged item is checked as a create: the defaults' language list is fine, the item's own is not.
      [{ items: [{ url: h.pageUrl }, { url: h.pageUrl, languages: ['xx'] }], defaults: { languages: ['en'] } }, 'items[1].languages'],
      [{ items: [{ url: h.pageUrl }, { url: h.pageUrl }, { url: 'ftp://example.com/' }] }, 'items[2].url'],
      [{ items: [{ url: h.pageUrl, colour: 'red' }] }, 'items[0]: unknown field "colour"'],
      [{ items: [{ url: h.pageUrl }, { url: h.pageUrl, title: '   ' }] }, 'items[1].title'],
      [{ items: [{ url: h.pageUrl }], webhook_url: 'ftp://hooks.example.com/' }, 'webhook_url'],
      [{ items: [] }, 'items must not be empty'],
    ];
    for (const [body, named] of refusals) {
      const res = await h.request('POST', '/api/v1/batches', { key: customer.key, body });
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 400, code: 'invalid_input' });
      expect(res.body.error.message).toContain(named);
    }
    // Growth allows 20 items per batch (the plan table), Business 100.
    const growth = await h.newCustomer('growth');
    const items = Array.from({ length: 21 }, () => ({ url: h.pageUrl }));
    const tooMany = await h.request('POST', '/api/v1/batches', { key: growth.key, body: { items } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toBe('items: the growth plan allows at most 20 items per batch (got 21)');
    expect(await counted(customer.orgId)).toEqual({ campaigns: 0, batches: 0, used: 0 });
    expect(await counted(growth.orgId)).toEqual({ campaigns: 0, batches: 0, used: 0 });
  });

  test('the quota is taken for every item or none: over it, 429 with the count asked and nothing created', async () => {
    const customer = await h.newCustomer('growth'); // 40 campaigns a month
    await h.sql(`INSERT INTO usage_counters (org_id, period, used) VALUES ($1, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'), 38)`, [
      customer.orgId,
    ]);
    const items = [{ url: h.pageUrl }, { url: h.pageUrl }, { url: h.pageUrl }];
    const refused = await h.request('POST', '/api/v1/batches', { key: customer.key, body: { items } });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', details: { used: 38, limit: 40, requested: 3 } });
    expect(await counted(customer.orgId)).toEqual({ campaigns: 0, batches: 0, used: 38 });
    const fits = await h.request('POST', '/api/v1/batches', { key: customer.key, body: { items: items.slice(1) } });
    expect(fits.status).toBe(201);
    expect(await counted(customer.orgId)).toEqual({ campaigns: 2, batches: 1, used: 40 });
  });

  test('Idempotency-Key: the same key and body answer the first batch again; another body with it is 409', async () => {
    const customer = await h.newCustomer('business');
    const body = { items: [{ url: h.pageUrl }, { url: h.pageUrl, languages: ['ja'] }] };
    const headers = { 'Idempotency-Key': 'batch-replay-1' };
    const first = await h.request('POST', '/api/v1/batches', { key: customer.key, body, headers });
    expect(first.status).toBe(201);
    const again = await h.request('POST', '/api/v1/batches', { key: customer.key, body, headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(`/api/v1/batches/${first.body.batch_id}`);
    const other = await h.request('POST', '/api/v1/batches', { key: customer.key, body: { items: [{ url: h.pageUrl }] }, headers });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('conflict');
    // The key of a batch is not a create's: the same key on POST /campaigns is another request.
    const create = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl }, headers });
    expect(create.status).toBe(409);
    expect(await counted(customer.orgId)).toEqual({ campaigns: 2, batches: 1, used: 2 });
  });

  test("GET of a batch, ?batch_id and the list answer only the caller's own; another organization's or an unknown batch is 404", async () => {
    const owner = await h.newCustomer('business');
    const other = await h.newCustomer('business');
    const make = async (key: string, n: number) => {
      const res = await h.request('POST', '/api/v1/batches', {
        key,
        body: { items: Array.from({ length: n }, (_, i) => ({ url: h.site.url(`/?item=${i}`) })) },
      });
      expect(res.status).toBe(201);
      return res.body as { batch_id: string; campaigns: Array<{ campaign_id: string }> };
    };
    const mine = await make(owner.key, 3);
    const newer = await make(owner.key, 1);
    const theirs = await make(other.key, 2);
    // A campaign of the owner's outside any batch: never in a batch's filter.
    expect((await h.request('POST', '/api/v1/campaigns', { key: owner.key, body: { url: h.pageUrl } })).status).toBe(201);

    const filtered = await h.request('GET', `/api/v1/campaigns?batch_id=${mine.batch_id}&limit=2`, { key: owner.key });
    expect(filtered.status).toBe(200);
    const next = await h.request('GET', `/api/v1/campaigns?batch_id=${mine.batch_id}&limit=2&cursor=${filtered.body.next_cursor}`, {
      key: owner.key,
    });
    const listed = [...filtered.body.campaigns, ...next.body.campaigns].map((c: { campaign_id: string }) => c.campaign_id);
    expect(listed.sort()).toEqual(mine.campaigns.map((c) => c.campaign_id).sort());
    expect(next.body.has_more).toBe(false);

    for (const route of [
      `/api/v1/batches/${theirs.batch_id}`,
      `/api/v1/campaigns?batch_id=${theirs.batch_id}`,
      '/api/v1/batches/0b4f2c4e-8d1a-4c55-9a77-3f1e2d5c6b7a',
      '/api/v1/batches/not-a-uuid',
      '/api/v1/campaigns?batch_id=not-a-uuid',
    ]) {
      const res = await h.request('GET', route, { key: owner.key });
      expect({ route, status: res.status, code: res.body.error?.code }).toEqual({ route, status: 404, code: 'not_found' });
    }

    const page = await h.request('GET', '/api/v1/batches?limit=1', { key: owner.key });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ success: true, has_more: true, batches: [{ batch_id: newer.batch_id }] });
    const last = await h.request('GET', `/api/v1/batches?limit=1&cursor=${page.body.next_cursor}`, { key: owner.key });
    expect(last.body).toMatchObject({
      has_more: false,
      next_cursor: null,
      batches: [{ batch_id: mine.batch_id, counts: { collecting: 3 } }],
    });
    expect(last.body.batches[0].campaigns).toHaveLength(3);
  });

  test('the last two campaigns of a batch settling at the same moment complete it exactly once (each locks the batch row)', async () => {
    const customer = await h.newCustomer('business');
    const res = await h.request('POST', '/api/v1/batches', {
      key: customer.key,
      body: { items: [{ url: h.pageUrl }, { url: h.pageUrl }], webhook_url: 'https://127.0.0.1:9/hook' },
    });
    expect(res.status).toBe(201);
    const batchId: string = res.body.batch_id;
    const ids: string[] = res.body.campaigns.map((c: { campaign_id: string }) => c.campaign_id);
    // As if both had rendered (the pipeline is paused): each now moves to review in its own transition.
    await h.sql("UPDATE campaigns SET status = 'rendering' WHERE batch_id = $1", [batchId]);
    // Both transitions are held after they have moved their campaign and before they look at the batch: each writes
    // its campaign_events row in between, which this table lock stalls until both wait on it.
    const holder = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${h.config.databaseSchema}` });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE campaign_events IN EXCLUSIVE MODE');
      const moves = ids.map((id) => h.call('campaigns.transition', { campaign_id: id, to: 'review' }));
      // Polled on a connection of its own: the holder's transaction would keep seeing its first snapshot of the activity.
      const waiting = await waitFor(
        async () =>
          (
            await h.sql<{ n: string }>(
              "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO \"campaign_events\"%'",
            )
          )[0].n,
        (n) => Number(n) === 2,
        30_000,
        50,
      );
      expect(Number(waiting)).toBe(2);
      await holder.query('COMMIT');
      await Promise.all(moves);
    } finally {
      await holder.end();
    }
    const read = await h.request('GET', `/api/v1/batches/${batchId}`, { key: customer.key });
    expect(read.body).toMatchObject({ counts: { review: 2, rendering: 0 }, completed_at: expect.any(String) });
    const events = await h.sql<{ body: string }>("SELECT body FROM campaign_webhook_events WHERE event_type = 'batch.completed'");
    const ofBatch = events.map((e) => JSON.parse(e.body)).filter((body) => body.batch_id === batchId);
    expect(ofBatch).toEqual([expect.objectContaining({ counts: expect.objectContaining({ review: 2 }) })]);
  });
});

describe('on the embedded SQLite', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ dialect: 'sqlite', config: { pipelinePaused: true, rateLimits: limits } });
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  test('a batch is made, read, listed and filtered on the same migrations', async () => {
    const { key } = await h.newCustomer('business');
    const res = await h.request('POST', '/api/v1/batches', { key, body: { items: [{ url: h.pageUrl }, { url: h.site.url('/?two') }] } });
    expect(res.status).toBe(201);
    const ids = res.body.campaigns.map((c: { campaign_id: string }) => c.campaign_id);
    expect((await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl } })).status).toBe(201);
    const read = await h.request('GET', `/api/v1/batches/${res.body.batch_id}`, { key });
    expect(read.body).toMatchObject({ counts: { collecting: 2 }, campaigns: ids.map((id: string) => ({ campaign_id: id })) });
    const filtered = await h.request('GET', `/api/v1/campaigns?batch_id=${res.body.batch_id}`, { key });
    expect(filtered.body.campaigns.map((c: { campaign_id: string }) => c.campaign_id).sort()).toEqual([...ids].sort());
    const listed = await h.request('GET', '/api/v1/batches', { key });
    expect(listed.body).toMatchObject({ has_more: false, batches: [{ batch_id: res.body.batch_id }] });
  });
});

describe('the whole pipeline', () => {
  let h: Harness;
  let customer: { orgId: string; key: string };
  let secret: string;
  const receivers = webhookReceivers();

  beforeAll(async () => {
    h = await startHarness({
      render: 'worker',
      config: {
        ...CHECK_NOT_THE_SUBJECT,
        rateLimits: limits,
        videoTargetSeconds: 10,
        captureMaxShots: 2,
        webhookRetryDelaysMs: [1100, 1100],
      },
    });
    customer = await h.newCustomer('business');
    ({ secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: customer.orgId }));
  }, 120_000);
  afterAll(async () => {
    await receivers.closeAll();
    await h?.stop();
  });

  test('three fixture pages reach review, and the batch webhook_url gets one signed batch.completed with their outcomes', async () => {
    const hook = await receivers.start();
    const itemHook = await receivers.start();
    const client = createCampaignClient({ baseUrl: h.baseUrl, apiKey: customer.key });
    const pages = [h.pageUrl, h.site.url('/?b'), h.site.url('/?c')];
    const created = await createBatch(
      client,
      {
        // The first item has a webhook_url of its own: its campaign's events go there, as a create's would.
        items: pages.map((url, i) => (i === 0 ? { url, webhook_url: itemHook.url } : { url })),
        defaults: { languages: ['en'], platforms: ['tiktok'], quality: 'draft' },
        webhook_url: hook.url,
      },
      { idempotencyKey: 'pipeline-batch' },
    );
    expect(created.response.status).toBe(201);
    const batchId = created.data!.batch_id;
    const ids = created.data!.campaigns.map((c) => c.campaign_id);

    const settled = await waitFor(
      () => getBatch(client, batchId),
      (res) => res.data!.completed_at !== null,
      600_000,
      1000,
    );
    expect(settled.data!.counts).toMatchObject({ review: 3, failed: 0, collecting: 0, rendering: 0 });
    expect(settled.data!.campaigns.map((c) => c.status)).toEqual(['review', 'review', 'review']);
    await waitFor(
      async () => hook.received.length,
      (n) => n >= 1,
      30_000,
      100,
    );
    expect(hook.received).toHaveLength(1);
    const [delivery] = hook.received;
    const event = verifyWebhook({ headers: delivery.headers, rawBody: delivery.body }, secret);
    expect(event).not.toBeNull();
    expect(verifyWebhook({ headers: delivery.headers, rawBody: delivery.body.replace('review', 'failed') }, secret)).toBeNull();
    expect(event).toEqual({
      event: 'batch.completed',
      batch_id: batchId,
      counts: expect.objectContaining({ review: 3, failed: 0, published: 0 }),
      campaigns: ids.map((id) => ({ campaign_id: id, status: 'review' })),
      timestamp: expect.any(String),
    });
    const own = await waitFor(
      async () => itemHook.received.map((r) => verifyWebhook({ headers: r.headers, rawBody: r.body }, secret)),
      (events) => events.length >= 1,
      30_000,
      100,
    );
    expect(own).toEqual([expect.objectContaining({ event: 'campaign.completed', campaign_id: ids[0], status: 'review' })]);
    const listed = await listBatches(client, { limit: 5 });
    expect(listed.data!.batches[0]).toMatchObject({ batch_id: batchId, completed_at: settled.data!.completed_at });

    // Publishing one afterwards settles nothing new: still exactly one batch.completed.
    const published = await client.POST('/api/v1/campaigns/{id}/publish', { params: { path: { id: ids[0] } } });
    expect(published.response.status).toBe(200);
    const [{ count }] = await h.sql<Row>("SELECT count(*) AS count FROM campaign_webhook_events WHERE event_type = 'batch.completed'");
    expect(Number(count)).toBe(1);
  }, 660_000);

  test('an item whose page cannot be captured becomes a failed, refunded campaign, and its batch still completes', async () => {
    const hook = await receivers.start();
    const before = await h.sql<{ used: number }>('SELECT used FROM usage_counters WHERE org_id = $1', [customer.orgId]);
    const created = await h.request('POST', '/api/v1/batches', {
      key: customer.key,
      body: { items: [{ url: h.site.url('/status/404') }], webhook_url: hook.url },
    });
    expect(created.status).toBe(201);
    const id = created.body.campaigns[0].campaign_id;
    const done = await waitFor(
      () => h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key }),
      (res) => res.body.status === 'failed',
      120_000,
      500,
    );
    expect(done.body.error.code).toBe('capture_failed');
    const after = await h.sql<{ used: number }>('SELECT used FROM usage_counters WHERE org_id = $1', [customer.orgId]);
    expect(after[0].used).toBe(before[0]?.used ?? 0);
    await waitFor(
      async () => hook.received.length,
      (n) => n >= 1,
      30_000,
      100,
    );
    expect(JSON.parse(hook.received[0].body)).toMatchObject({
      event: 'batch.completed',
      batch_id: created.body.batch_id,
      counts: { failed: 1, review: 0 },
      campaigns: [{ campaign_id: id, status: 'failed' }],
    });
  }, 180_000);
});
