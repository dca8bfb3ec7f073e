/**
 * Each video as soon as it is ready (decisions §15) on real PostgreSQL and Redis. `webhook_events` chooses what a
 * campaign's webhook_url is sent: checked by the create's schema (an unknown name is a 400 naming it, in a batch's item
 * too), stored and shown in GET. `video.ready`, opted into, is written to the campaign actor's outbox in the
 * transaction that records the video ready: once per video however its report arrives (twice, late, again newer), and
 * never for a campaign that did not list it; an event not listed (campaign.completed here) is not written at all.
 * With the whole pipeline (Chromium, the voices, editly at draft quality): a campaign of two videos gets two signed
 * video.ready, one per video, the first before its campaign.completed; one without it gets none.
 */
import { createCampaignClient, verifyWebhook, type WebhookEvent } from '../../clients/typescript/src';
import { VIDEO_REPORTED, type RenderingResult, type VideoReport } from '../../lib/campaign/stages';
import { webhookReceivers } from '../fixtures/webhook-receiver';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

// Generous: these tests are about webhooks, not the per-IP limiter.
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const DEFAULT_EVENTS = ['campaign.completed', 'campaign.failed', 'video.updated'];

interface OutboxRow {
  event_id: string;
  event_type: string;
  body: string;
}

describe('webhook_events and the outbox, pipeline paused', () => {
  let h: Harness;
  let key: string;
  let orgId: string;
  let hookUrl: string;
  const receivers = webhookReceivers();

  beforeAll(async () => {
    h = await startHarness({ config: { pipelinePaused: true, rateLimits: limits } });
    ({ key, orgId } = await h.newCustomer('business'));
    hookUrl = (await receivers.start()).url;
  }, 120_000);
  afterAll(async () => {
    await receivers.closeAll();
    await h?.stop();
  });

  const outbox = (campaignId: string) =>
    h.sql<OutboxRow>('SELECT event_id, event_type, body FROM campaign_webhook_events WHERE campaign_id = $1 ORDER BY created_at', [
      campaignId,
    ]);

  test('an unknown event name is a 400 naming it, in a create and in a batch item; nothing is created', async () => {
    const create = await h.request('POST', '/api/v1/campaigns', {
      key,
      body: { url: h.pageUrl, webhook_url: hookUrl, webhook_events: ['video.finished'] },
    });
    expect(create.status).toBe(400);
    expect(create.body.error).toMatchObject({ code: 'invalid_input' });
    expect(create.body.error.message).toMatch(/^webhook_events\[0\] must be one of: campaign\.completed, .*video\.ready/);
    const batch = await h.request('POST', '/api/v1/batches', {
      key,
      body: { items: [{ url: h.pageUrl }, { url: h.pageUrl, webhook_events: ['video.ready', 'batch.completed'] }] },
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.message).toMatch(/^items\[1\]\.webhook_events\[1\] must be one of/);
    const defaults = await h.request('POST', '/api/v1/batches', {
      key,
      body: { items: [{ url: h.pageUrl }], defaults: { webhook_events: ['video.ready', 'video.ready'] } },
    });
    expect(defaults.status).toBe(400);
    expect(defaults.body.error.message).toBe('defaults.webhook_events must not list the same value twice ([0] and [1])');
    const [{ count }] = await h.sql<{ count: string }>('SELECT count(*) AS count FROM campaigns WHERE org_id = $1', [orgId]);
    expect(Number(count)).toBe(0);
  });

  test('GET shows the events asked for, or the default list; a batch item inherits its defaults and may set its own', async () => {
    const asked = await h.request('POST', '/api/v1/campaigns', {
      key,
      body: { url: h.pageUrl, webhook_url: hookUrl, webhook_events: ['video.ready', 'campaign.completed'] },
    });
    expect(asked.status).toBe(201);
    const plain = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, webhook_url: hookUrl } });
    const read = async (id: string) => (await h.request('GET', `/api/v1/campaigns/${id}`, { key })).body;
    expect((await read(asked.body.campaign_id)).webhook_events).toEqual(['video.ready', 'campaign.completed']);
    expect((await read(plain.body.campaign_id)).webhook_events).toEqual(DEFAULT_EVENTS);

    const batch = await h.request('POST', '/api/v1/batches', {
      key,
      body: {
        items: [
          { url: h.pageUrl, webhook_url: hookUrl },
          { url: h.pageUrl, webhook_events: ['campaign.failed'] },
        ],
        defaults: { webhook_url: hookUrl, webhook_events: ['video.ready'] },
      },
    });
    expect(batch.status).toBe(201);
    const [first, second] = batch.body.campaigns.map((c: { campaign_id: string }) => c.campaign_id);
    expect((await read(first)).webhook_events).toEqual(['video.ready']);
    expect((await read(second)).webhook_events).toEqual(['campaign.failed']);
  });

  test('video.ready is written once per video, however its report arrives, and only when asked for; an unlisted event is not written', async () => {
    const create = async (webhookEvents?: string[]) => {
      const res = await h.request('POST', '/api/v1/campaigns', {
        key,
        body: {
          url: h.pageUrl,
          languages: ['en'],
          platforms: ['tiktok', 'youtube'],
          webhook_url: hookUrl,
          ...(webhookEvents ? { webhook_events: webhookEvents } : {}),
        },
      });
      expect(res.status).toBe(201);
      const id: string = res.body.campaign_id;
      await h.sql("UPDATE campaigns SET status = 'rendering', progress = 50 WHERE id = $1", [id]);
      const videos = await h.sql<{ id: string }>('SELECT id FROM videos WHERE campaign_id = $1 ORDER BY platform', [id]);
      expect(videos).toHaveLength(2);
      return { id, videos: videos.map((v) => v.id) };
    };
    const report = (campaignId: string, videoId: string, at: number, status: VideoReport['status'], seconds?: number) =>
      h.api.emit(VIDEO_REPORTED, {
        campaign_id: campaignId,
        video_id: videoId,
        at,
        status,
        ...(status === 'ready' ? { file_key: `videos/${videoId}.mp4`, duration_seconds: seconds ?? 10 } : {}),
      } satisfies VideoReport);
    const durationOf = async (videoId: string) =>
      (await h.sql<{ duration_seconds: number | null }>('SELECT duration_seconds FROM videos WHERE id = $1', [videoId]))[0]
        .duration_seconds;

    const wanted = await create(['video.ready', 'campaign.failed']);
    const plain = await create();
    const [a, b] = wanted.videos;
    await report(wanted.id, a, 1000, 'rendering');
    await report(wanted.id, a, 2000, 'ready', 10);
    const first = await waitFor(
      () => outbox(wanted.id),
      (rows) => rows.length >= 1,
      10_000,
      50,
    );
    expect(first).toEqual([
      { event_id: expect.stringMatching(/^evt_[0-9a-f-]{36}$/), event_type: 'video.ready', body: expect.any(String) },
    ]);
    const body = JSON.parse(first[0].body);
    expect(body).toEqual({ event: 'video.ready', campaign_id: wanted.id, video: expect.any(Object), timestamp: expect.any(String) });
    expect(body.video).toMatchObject({ id: a, status: 'ready', revision: 1, file_revision: 1, platform: 'tiktok', duration_seconds: 10 });

    // The same report twice, an older one late, and a newer ready report of the same video (applied: its duration
    // changes) make no second event.
    await report(wanted.id, a, 2000, 'ready', 10);
    await report(wanted.id, a, 1500, 'rendering');
    await report(wanted.id, a, 3000, 'ready', 11);
    await waitFor(
      () => durationOf(a),
      (seconds) => seconds === 11,
      10_000,
      50,
    );
    // The second video, reported ready in the plain campaign and then here: its own one event.
    await report(plain.id, plain.videos[0], 2000, 'ready');
    await waitFor(
      () => durationOf(plain.videos[0]),
      (seconds) => seconds === 10,
      10_000,
      50,
    );
    await report(wanted.id, b, 4000, 'ready');
    const both = await waitFor(
      () => outbox(wanted.id),
      (rows) => rows.length >= 2,
      10_000,
      50,
    );
    expect(both.map((row) => [row.event_type, JSON.parse(row.body).video.id])).toEqual([
      ['video.ready', a],
      ['video.ready', b],
    ]);
    expect(new Set(both.map((row) => row.event_id)).size).toBe(2);

    // The render ends: campaign.completed is not in this campaign's list, so it is not written; the plain campaign's is.
    await h.call('campaigns.transition', { campaign_id: wanted.id, to: 'review' });
    await h.call('campaigns.transition', { campaign_id: plain.id, to: 'review' });
    expect((await outbox(wanted.id)).map((row) => row.event_type)).toEqual(['video.ready', 'video.ready']);
    expect((await outbox(plain.id)).map((row) => row.event_type)).toEqual(['campaign.completed']);
  });

  test("the last video's ready, recorded with the stage's result, is announced in the transaction that settles the campaign, and sent before it", async () => {
    // A customer server that takes 400 ms to answer: a campaign's events go out one after another, each once the
    // previous one was answered, so the outcome written with the last video's ready cannot overtake it.
    const slowHook = await receivers.start(() => ({ status: 204, delayMs: 400 }));
    const res = await h.request('POST', '/api/v1/campaigns', {
      key,
      body: {
        url: h.pageUrl,
        languages: ['en'],
        platforms: ['tiktok', 'youtube'],
        webhook_url: slowHook.url,
        webhook_events: ['video.ready', 'campaign.completed'],
      },
    });
    expect(res.status).toBe(201);
    const id: string = res.body.campaign_id;
    await h.sql("UPDATE campaigns SET status = 'rendering', progress = 50 WHERE id = $1", [id]);
    const [a, b] = (await h.sql<{ id: string }>('SELECT id FROM videos WHERE campaign_id = $1 ORDER BY platform', [id])).map((v) => v.id);
    const ready = (videoId: string, at: number): VideoReport => ({
      campaign_id: id,
      video_id: videoId,
      at,
      status: 'ready',
      file_key: `videos/${videoId}.mp4`,
      duration_seconds: 10,
    });
    await h.api.emit(VIDEO_REPORTED, ready(a, 1000));
    await waitFor(
      () => outbox(id),
      (rows) => rows.length >= 1,
      10_000,
      50,
    );
    // The rendering stage's answer repeats what it reported; b's own report was lost (a node gone): the owner records
    // both with the step and settles the campaign, in one transaction, as its orchestrator does.
    const actor = h.worker.getLocalService('campaigns') as unknown as {
      db: { sequelize: { transaction<T>(work: (t: unknown) => Promise<T>): Promise<T> } };
      recordStageResult(state: string, result: RenderingResult, transaction: unknown): Promise<void>;
      applyTransition(params: { campaign_id: string; to: string }, transaction: unknown): Promise<unknown>;
    };
    await actor.db.sequelize.transaction(async (transaction) => {
      await actor.recordStageResult('rendering', { campaign_id: id, videos: 2, rendered: [ready(a, 1000), ready(b, 2000)] }, transaction);
      await actor.applyTransition({ campaign_id: id, to: 'review' }, transaction);
    });
    const rows = await h.sql<OutboxRow & { created_at: Date }>(
      'SELECT event_id, event_type, body, created_at FROM campaign_webhook_events WHERE campaign_id = $1',
      [id],
    );
    const announced = rows.filter((row) => row.event_type === 'video.ready').map((row) => JSON.parse(row.body).video.id);
    expect(announced.sort()).toEqual([a, b].sort());
    const completed = rows.filter((row) => row.event_type === 'campaign.completed');
    expect(completed).toHaveLength(1);
    const last = rows.find((row) => row.event_type === 'video.ready' && JSON.parse(row.body).video.id === b)!;
    expect(new Date(last.created_at).getTime()).toBeLessThanOrEqual(new Date(completed[0].created_at).getTime());
    expect(JSON.parse(completed[0].body).videos.map((v: { status: string }) => v.status)).toEqual(['ready', 'ready']);

    const arrived = await waitFor(
      async () => slowHook.received,
      (list) => list.length >= 3,
      20_000,
      50,
    );
    const said = arrived.map((r) => JSON.parse(r.body) as { event: string; video?: { id: string } });
    expect(said.map((e) => [e.event, e.video?.id ?? null])).toEqual([
      ['video.ready', a],
      ['video.ready', b],
      ['campaign.completed', null],
    ]);
    // Sent once b's was answered, not beside it.
    expect(arrived[2].receivedAt - arrived[1].receivedAt).toBeGreaterThanOrEqual(350);
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

  test('two videos send two signed video.ready, one per video, the first before campaign.completed; without it, none', async () => {
    const hook = await receivers.start();
    const plainHook = await receivers.start();
    const client = createCampaignClient({ baseUrl: h.baseUrl, apiKey: customer.key });
    const created = await client.POST('/api/v1/campaigns', {
      body: {
        url: h.pageUrl,
        languages: ['en'],
        platforms: ['tiktok', 'youtube'],
        quality: 'draft',
        webhook_url: hook.url,
        webhook_events: ['campaign.completed', 'campaign.failed', 'video.ready'],
      },
    });
    expect(created.response.status).toBe(201);
    const plain = await client.POST('/api/v1/campaigns', {
      body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'], quality: 'draft', webhook_url: plainHook.url },
    });
    expect(plain.response.status).toBe(201);
    const id = created.data!.campaign_id;
    const plainId = plain.data!.campaign_id;

    const settled = (campaignId: string) =>
      waitFor(
        () => client.GET('/api/v1/campaigns/{id}', { params: { path: { id: campaignId } } }),
        (res) => ['review', 'failed'].includes(res.data!.status),
        600_000,
        1000,
      );
    const done = await settled(id);
    expect(done.data!.status).toBe('review');
    expect((await settled(plainId)).data!.status).toBe('review');

    const events = (received: typeof hook.received) =>
      received.map((r) => verifyWebhook({ headers: r.headers, rawBody: r.body }, secret)).filter((e): e is WebhookEvent => e !== null);
    const received = await waitFor(
      async () => events(hook.received),
      (list) => list.some((e) => e.event === 'campaign.completed'),
      30_000,
      100,
    );
    // Every delivery verified (a forged or altered one would be null and missing here).
    expect(received).toHaveLength(hook.received.length);
    const ready = received.filter((e) => e.event === 'video.ready');
    const videoIds = done.data!.videos.map((v) => v.id);
    expect(ready.map((e) => (e.event === 'video.ready' ? e.video.id : null)).sort()).toEqual([...videoIds].sort());
    for (const event of ready) {
      expect(event).toMatchObject({ event: 'video.ready', campaign_id: id, video: { status: 'ready', revision: 1, file_revision: 1 } });
      if (event.event === 'video.ready') expect(event.video.file_url).toMatch(/\/files\/videos\/.+\.mp4\?expires=\d+&signature=[0-9a-f]+$/);
    }
    const order = received.map((e) => e.event);
    expect(order.indexOf('video.ready')).toBeLessThan(order.indexOf('campaign.completed'));
    expect(order.filter((e) => e === 'campaign.completed')).toHaveLength(1);
    // Their event ids are distinct and stable: the dashboard's deliveries list them like the others.
    expect(new Set(hook.received.map((r) => r.headers['x-service-event-id'])).size).toBe(3);
    const deliveries = await h.call<{ deliveries: Array<{ event: string; status: string }> }>('webhooks.deliveries', {
      campaign_id: id,
      org_id: customer.orgId,
    });
    expect(deliveries.deliveries.map((d) => d.event).sort()).toEqual(['campaign.completed', 'video.ready', 'video.ready']);

    const plainEvents = await waitFor(
      async () => events(plainHook.received),
      (list) => list.length >= 1,
      30_000,
      100,
    );
    expect(plainEvents.map((e) => e.event)).toEqual(['campaign.completed']);
    const [{ count }] = await h.sql<{ count: string }>(
      "SELECT count(*) AS count FROM campaign_webhook_events WHERE campaign_id = $1 AND event_type = 'video.ready'",
      [plainId],
    );
    expect(Number(count)).toBe(0);
  }, 900_000);
});
