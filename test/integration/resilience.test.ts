/**
 * Resilience of the pipeline, with real Chromium, espeak-ng, editly, PostgreSQL and Redis:
 *
 * 1. The campaign actor's node (started as an operator starts one, in a process of its own) is SIGKILLed
 *    mid-pipeline. A second node takes the campaign over once the lease has run out (decisions §3: a
 *    stalled step is retried), the campaign reaches review, and the customer gets exactly one signed
 *    campaign.completed; the timeline has no transition twice. Nothing of the killed node (Chromium included) is left.
 * 2. Redis (transporter and rate limits) is stopped mid-campaign and started again: the API answers 503
 *    meanwhile (decisions §8, fail closed), the transporter reconnects without leaving the connections it
 *    replaced open, the campaign reaches review and the webhook arrives once.
 */
import fs from 'node:fs';
import Redis from 'ioredis';
import pg from 'pg';
import { startWebhookReceiver, verifyWebhook, type ReceivedWebhook, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { RedisSingleConnectionTransporter } from '../../lib/net/redis-transporter';
import { CHECK_NOT_THE_SUBJECT, CHECK_NOT_THE_SUBJECT_ENV, startHarness, TEST_DATABASE_URL, type Harness } from '../support/harness';
import { orchestratorNodes } from '../support/node-process';
import { freePort, startRedisServer, type RedisServer } from '../support/redis-server';
import { waitFor } from '../support/wait';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000 };
const ORDER = ['collecting', 'processing', 'scripting', 'voiceover', 'rendering', 'review'];
const ORCHESTRATOR_SERVICES = ['accounts', 'campaigns', 'capture', 'script', 'voice', 'rendering', 'renderer', 'files', 'webhooks'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '(gone)';
  }
}

/** One connection for tight polling (h.sql opens one per query). */
async function openDb(h: Harness): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${h.config.databaseSchema}` });
  await client.connect();
  return client;
}

interface CampaignRow {
  status: string;
  lease_owner: string | null;
  error_code: string | null;
  error_message: string | null;
}
async function campaignRow(db: pg.Client, id: string): Promise<CampaignRow> {
  return (await db.query('SELECT status, lease_owner, error_code, error_message FROM campaigns WHERE id = $1', [id])).rows[0];
}

/** The checks both scenarios end with: review, one signed completion, one outbox row, a clean timeline. */
async function expectCompletedOnce(h: Harness, id: string, receiver: WebhookReceiver, secret: string, videos: number) {
  const done = await h.sql('SELECT status, error_code, error_message FROM campaigns WHERE id = $1', [id]);
  expect(done[0]).toEqual({ status: 'review', error_code: null, error_message: null });
  const rows = await h.sql('SELECT language, platform, status, file_key FROM videos WHERE campaign_id = $1 ORDER BY language, platform', [
    id,
  ]);
  expect(rows).toHaveLength(videos);
  expect(rows.map((row) => row.status)).toEqual(Array(videos).fill('ready'));

  // The dispatcher sends at once (and polls every second): the webhook is there within seconds; a second
  // delivery of the same or another event would show within a few more.
  const completed = (list: ReceivedWebhook[]) => list.filter((hook) => JSON.parse(hook.body).event === 'campaign.completed');
  await waitFor(
    async () => completed(receiver.received).length,
    (n) => n >= 1,
    30_000,
    200,
  );
  await sleep(4000);
  expect(receiver.received.map((hook) => JSON.parse(hook.body).event)).toEqual(['campaign.completed']);
  const [hook] = receiver.received;
  expect(verifyWebhook(hook, secret)).toBe(true);
  const body = JSON.parse(hook.body);
  expect(body).toMatchObject({ event: 'campaign.completed', campaign_id: id, status: 'review' });
  expect(body.videos).toHaveLength(videos);

  const deliveries = await h.sql('SELECT event_id, event_type, status, attempts FROM webhook_deliveries WHERE campaign_id = $1', [id]);
  expect(deliveries).toHaveLength(1);
  expect(new Set(deliveries.map((d) => d.event_id)).size).toBe(1);
  expect(deliveries[0]).toMatchObject({
    event_id: hook.headers['x-service-event-id'],
    event_type: 'campaign.completed',
    status: 'delivered',
    attempts: 1,
  });

  const events = await h.sql('SELECT from_status, to_status FROM campaign_events WHERE campaign_id = $1 ORDER BY id', [id]);
  const pairs = events.map((e) => `${e.from_status ?? '∅'}→${e.to_status}`);
  const repeated = pairs.filter((pair, i) => pairs.indexOf(pair) !== i);
  expect({ repeated, pairs }).toEqual({ repeated: [], pairs });
  expect(events.map((e) => e.to_status)).toEqual(ORDER);
}

describe('the campaign actor SIGKILLed mid-pipeline', () => {
  let h: Harness;
  let db: pg.Client | undefined;
  let receiver: WebhookReceiver | undefined;
  // Chromium is in the group too but outlives a SIGKILL of it: see below.
  const cluster = orchestratorNodes(() => h, {
    services: ORCHESTRATOR_SERVICES,
    keepOutputChars: 60_000,
    env: { CAMPAIGN_LEASE: '4s', CAMPAIGN_SWEEP_INTERVAL: '1s', LOG_LEVEL: 'info', ...CHECK_NOT_THE_SUBJECT_ENV },
  });
  const JOINED = ['campaigns.create', 'campaigns.get', 'accounts.authenticate', 'capture.check'];

  beforeAll(async () => {
    h = await startHarness({ transport: 'redis', config: { rateLimits: limits } });
  }, 120_000);
  afterAll(async () => {
    await cluster.stopAll();
    await receiver?.close();
    await db?.end();
    await h?.stop();
  }, 120_000);

  test('a second actor takes the campaign over, finishes it, and the customer hears of it once', async () => {
    try {
      const { orgId, key } = await h.newCustomer('business');
      const { secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: orgId });
      // Only the child processes orchestrate from here on.
      await cluster.stopHarnessWorker();

      const first = cluster.start('a');
      await cluster.joined(first, JOINED);
      receiver = await startWebhookReceiver();
      db = await openDb(h);

      const createdAt = Date.now();
      const created = await h.request('POST', '/api/v1/campaigns', {
        key,
        body: { url: h.pageUrl, languages: ['en', 'ja'], platforms: ['tiktok'], webhook_url: receiver.url },
      });
      expect(created.status).toBe(201);
      const id: string = created.body.campaign_id;

      // Past collecting, in the middle of a stage (rendering would do too, but it is the last one).
      const midway = ['processing', 'scripting', 'voiceover', 'rendering'];
      const before = await waitFor(
        () => campaignRow(db!, id),
        (row) => midway.includes(row.status) || ['review', 'failed'].includes(row.status),
        180_000,
        50,
      );
      expect({ status: before.status, owner: before.lease_owner }).toEqual({
        status: expect.stringMatching(/^(processing|scripting|voiceover|rendering)$/),
        owner: first.nodeID,
      });
      let killedIn = before.status;

      first.kill('SIGKILL');
      const killedAt = Date.now();
      await first.exit();
      // Its process group died with it (espeak-ng, ffmpeg). Render children (own group) notice their parent is
      // gone and exit by themselves, and so does Chromium (puppeteer talks to it over a pipe, which closes).
      const left = await waitFor(
        async () => first.leftovers(),
        (pids) => pids.length === 0,
        15_000,
        200,
      );
      expect({ leftOfKilledNode: left.map(commandLine) }).toEqual({ leftOfKilledNode: [] });
      expect(
        await waitFor(
          async () => first.leftovers(),
          (pids) => pids.length === 0,
          5000,
          100,
        ),
      ).toEqual([]);
      // Nothing moves without an actor. (A step the killed actor committed as it died, processing's takes ~10 ms, counts
      // as done: the state is read once the node is gone, then must stay.)
      killedIn = (await campaignRow(db, id)).status;
      await sleep(1000);
      expect((await campaignRow(db, id)).status).toBe(killedIn);

      const second = cluster.start('b');
      await cluster.joined(second, JOINED);
      const joinedAt = Date.now();

      // The killed actor's lease runs out (4 s); the live actor takes the campaign when it joins (services changed)
      // or at its next sweep (1 s), whichever comes first after the expiry. A lease that never expired would stop it here.
      const takenOver = await waitFor(
        () => campaignRow(db!, id),
        (row) => row.lease_owner === second.nodeID || row.status !== killedIn,
        60_000,
        100,
      );
      const resumedAt = Date.now();
      if (takenOver.lease_owner !== second.nodeID && takenOver.status === killedIn) {
        throw new Error(
          `Nobody took the campaign over: still in ${killedIn}, lease held by ${takenOver.lease_owner}, 60 s after the second actor joined`,
        );
      }
      const moved = await waitFor(
        () => campaignRow(db!, id),
        (row) => row.status !== killedIn,
        120_000,
        200,
      );
      const movedAt = Date.now();
      if (moved.status === killedIn)
        throw new Error(
          `The campaign stayed in ${killedIn} (lease: ${moved.lease_owner}) for 120 s after the second actor took it: the stage was not retried`,
        );

      const done = await waitFor(
        () => campaignRow(db!, id),
        (row) => ['review', 'failed'].includes(row.status),
        240_000,
        500,
      );
      const doneAt = Date.now();
      expect({ status: done.status, error: done.error_code, message: done.error_message }).toEqual({
        status: 'review',
        error: null,
        message: null,
      });
      const read = await h.request('GET', `/api/v1/campaigns/${id}`, { key });
      expect(read.status).toBe(200);
      expect(read.body.status).toBe('review');
      expect(read.body.videos.map((v: { status: string }) => v.status)).toEqual(['ready', 'ready']);

      await expectCompletedOnce(h, id, receiver, secret, 2);
      // The renders were the second actor's (the first died before rendering).
      const attempts = await h.sql("SELECT node_id, outcome FROM render_attempts WHERE campaign_id = $1 AND outcome <> 'busy'", [id]);
      if (killedIn !== 'rendering')
        expect(attempts.filter((a) => a.outcome === 'ready').map((a) => a.node_id)).toEqual([second.nodeID, second.nodeID]);

      // The survivor stops cleanly and leaves no browser or render process behind either.
      second.process.kill('SIGTERM');
      await Promise.race([second.exit(), sleep(30_000)]);
      expect({ exited: second.exited() }).toEqual({ exited: true });
      const leftOfSecond = await waitFor(
        async () => second.leftovers(),
        (pids) => pids.length === 0,
        15_000,
        200,
      );
      expect({ leftOfStoppedNode: leftOfSecond }).toEqual({ leftOfStoppedNode: [] });

      console.log(
        [
          `orchestrator kill test: killed in ${killedIn} ${seconds(killedAt - createdAt)} after create;`,
          `second node joined ${seconds(joinedAt - killedAt)} after the kill; campaign taken over ${seconds(resumedAt - killedAt)} after the kill`,
          `(${seconds(resumedAt - joinedAt)} after the join), left ${killedIn} ${seconds(movedAt - killedAt)} after the kill;`,
          `review ${seconds(doneAt - createdAt)} after create (${seconds(doneAt - killedAt)} after the kill).`,
        ].join(' '),
      );
    } catch (err) {
      for (const node of cluster.nodes) console.log(`--- output of ${node.nodeID} (tail) ---\n${node.output().slice(-20_000)}`);
      throw err;
    }
  }, 600_000);
});

/** A GET that cannot hang the test while the cluster is degraded. */
async function getWithin(h: Harness, route: string, key: string, ms: number): Promise<{ status: number | 'no answer'; tookMs: number }> {
  const started = Date.now();
  try {
    const res = await fetch(`${h.baseUrl}${route}`, { headers: { Authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(ms) });
    await res.arrayBuffer();
    return { status: res.status, tookMs: Date.now() - started };
  } catch {
    return { status: 'no answer', tookMs: Date.now() - started };
  }
}

describe('Redis restarted mid-campaign', () => {
  let h: Harness;
  let db: pg.Client | undefined;
  let receiver: WebhookReceiver | undefined;
  let redis: RedisServer | undefined;
  let port: number;
  // Every connection the transporters make (lib/net/redis-transporter.ts closes those it replaces).
  let transporterClients: jest.SpyInstance;

  beforeAll(async () => {
    transporterClients = jest.spyOn(RedisSingleConnectionTransporter.prototype, 'getRedisClient');
    port = await freePort();
    redis = await startRedisServer(port);
    h = await startHarness({
      transport: 'redis',
      redisUrl: redis.url,
      render: 'worker',
      config: { ...CHECK_NOT_THE_SUBJECT, rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 2 },
    });
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await db?.end();
    await h?.stop();
    transporterClients.mockRestore();
    await redis?.stop();
  }, 120_000);

  test('the API answers 503 while Redis is down and recovers; the campaign reaches review; one webhook', async () => {
    const { orgId, key } = await h.newCustomer('business');
    const { secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: orgId });
    receiver = await startWebhookReceiver();
    db = await openDb(h);

    const createdAt = Date.now();
    const created = await h.request('POST', '/api/v1/campaigns', {
      key,
      body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'], webhook_url: receiver.url },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.campaign_id;
    const before = await waitFor(
      () => campaignRow(db!, id),
      (row) => row.status !== 'collecting',
      180_000,
      50,
    );
    expect(before.status).toMatch(/^(processing|scripting|voiceover)$/);

    await redis!.stop();
    const downAt = Date.now();
    // Fail closed (decisions §8): the limiter cannot count, so the API refuses rather than serving unmetered.
    const during = await getWithin(h, `/api/v1/campaigns/${id}`, key, 10_000);
    expect(during.status).toBe(503);
    await sleep(Math.max(0, 3000 - (Date.now() - downAt)));
    redis = await startRedisServer(port);
    const upAt = Date.now();

    // The transporter and the limiter reconnect by themselves: the API (over the transporter to the worker) answers again.
    const back = await waitFor(
      () => getWithin(h, `/api/v1/campaigns/${id}`, key, 10_000),
      (res) => res.status === 200,
      60_000,
      500,
    );
    const backAt = Date.now();
    expect(back.status).toBe(200);
    expect(h.api.registry.nodes.get(h.worker.nodeID)?.available).toBe(true);

    const done = await waitFor(
      () => campaignRow(db!, id),
      (row) => ['review', 'failed'].includes(row.status),
      240_000,
      500,
    );
    const doneAt = Date.now();
    expect({ status: done.status, error: done.error_code, message: done.error_message }).toEqual({
      status: 'review',
      error: null,
      message: null,
    });
    const read = await h.request('GET', `/api/v1/campaigns/${id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ status: 'review' });
    await expectCompletedOnce(h, id, receiver, secret, 1);

    // The transporters made new connections after the restart and closed the ones they replaced: each broker
    // holds one subscriber and one publisher, and nothing else they made is still open (reconnecting forever).
    const made = transporterClients.mock.results.map((r) => r.value as Redis).filter((client) => client.options.port === port);
    expect(made.length).toBeGreaterThan(4);
    const held = [h.api, h.worker].flatMap((broker) =>
      (broker.transit!.tx as unknown as RedisSingleConnectionTransporter).openConnections(),
    );
    expect(held).toHaveLength(4);
    const leftOver = await waitFor(
      async () => made.filter((client) => !held.includes(client) && client.status !== 'end'),
      (open) => open.length === 0,
      10_000,
      100,
    );
    expect(leftOver.map((client) => client.status)).toEqual([]);

    console.log(
      [
        `redis restart test: Redis stopped in ${before.status} ${seconds(downAt - createdAt)} after create; GET during the outage: ${during.status} in ${during.tookMs} ms;`,
        `down ${seconds(upAt - downAt)}; API answered 200 again ${seconds(backAt - upAt)} after the restart; review ${seconds(doneAt - createdAt)} after create.`,
      ].join(' '),
    );
  }, 600_000);
});
