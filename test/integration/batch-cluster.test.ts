/**
 * A batch survives a lost node (decisions §14 with §3's "a stalled step is retried"), on a real cluster: two
 * orchestrator nodes in processes of their own (as an operator starts them), joined by the Redis transporter, on
 * PostgreSQL, with Chromium, the voices and editly at draft quality. A batch of four pages is made through the API;
 * once part of it is in review, the node holding its other campaigns is SIGKILLed (its whole process group). Every campaign still reaches
 * review on the surviving node, no transition is made twice, and the batch's webhook URL gets exactly one signed
 * batch.completed naming all four.
 */
import pg from 'pg';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { CHECK_NOT_THE_SUBJECT_ENV, startHarness, TEST_DATABASE_URL, type Harness } from '../support/harness';
import { orchestratorNodes, type NodeProcess } from '../support/node-process';
import { waitFor } from '../support/wait';

jest.setTimeout(600_000);

const ITEMS = 4;
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000 };
const ORCHESTRATOR_SERVICES = ['accounts', 'campaigns', 'capture', 'script', 'voice', 'rendering', 'renderer', 'files', 'webhooks'];
const ORDER = ['collecting', 'processing', 'scripting', 'voiceover', 'rendering', 'review'];
const SETTLED = ['review', 'published', 'failed'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let h: Harness;
let db: pg.Client | undefined;
let receiver: WebhookReceiver | undefined;
const cluster = orchestratorNodes(() => h, {
  services: ORCHESTRATOR_SERVICES,
  env: { CAMPAIGN_LEASE: '4s', CAMPAIGN_SWEEP_INTERVAL: '1s', CAPTURE_MAX_SHOTS: '1', ...CHECK_NOT_THE_SUBJECT_ENV },
});
const JOINED = ['campaigns.createBatch', 'campaigns.getBatch', 'accounts.authenticate', 'capture.check'];

beforeAll(async () => {
  h = await startHarness({ transport: 'redis', config: { rateLimits: limits } });
}, 120_000);
afterAll(async () => {
  await cluster.stopAll();
  await receiver?.close();
  await db?.end();
  await h?.stop();
}, 120_000);

interface Row {
  id: string;
  status: string;
  lease_owner: string | null;
}
const batchRows = async (batchId: string): Promise<Row[]> =>
  (await db!.query('SELECT id, status, lease_owner FROM campaigns WHERE batch_id = $1 ORDER BY batch_index', [batchId])).rows;

test('a node SIGKILLed mid-batch loses none of it: every campaign reaches review on the survivor, one batch.completed', async () => {
  const { orgId, key } = await h.newCustomer('business');
  const { secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: orgId });
  // Only the two child processes orchestrate from here on.
  await cluster.stopHarnessWorker();
  const pair = [cluster.start('a'), cluster.start('b')];
  await Promise.all(pair.map((node) => cluster.joined(node, JOINED)));
  receiver = await startWebhookReceiver();
  db = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${h.config.databaseSchema}` });
  await db.connect();

  const created = await h.request('POST', '/api/v1/batches', {
    key,
    body: {
      items: Array.from({ length: ITEMS }, (_, i) => ({ url: h.site.url(`/?cluster=${i + 1}`) })),
      defaults: { languages: ['en'], platforms: ['tiktok'], quality: 'draft' },
      webhook_url: receiver.url,
    },
  });
  expect(created.status).toBe(201);
  const batchId: string = created.body.batch_id;
  const ids: string[] = created.body.campaigns.map((c: { campaign_id: string }) => c.campaign_id);

  // Mid-batch: part of it in review, the rest still generating under a node's lease.
  const before = await waitFor(
    () => batchRows(batchId),
    (rows) => rows.some((row) => SETTLED.includes(row.status)) && rows.some((row) => !SETTLED.includes(row.status) && row.lease_owner),
    240_000,
    100,
  );
  const held = (node: NodeProcess) => before.filter((row) => row.lease_owner === node.nodeID && !SETTLED.includes(row.status));
  const [victim, survivor] = held(pair[0]).length >= held(pair[1]).length ? pair : [pair[1], pair[0]];
  const lost = held(victim);
  expect({ states: before.map((row) => row.status), lost: lost.length > 0 }).toEqual({
    states: expect.arrayContaining(['review']),
    lost: true,
  });

  victim.kill('SIGKILL');
  await victim.exit();
  // The killed node's lease runs out (4 s) and the survivor, sweeping every second, takes its campaigns over.
  const after = await waitFor(
    () => batchRows(batchId),
    (rows) => rows.every((row) => SETTLED.includes(row.status)),
    360_000,
    500,
  );
  expect(after.map((row) => row.status)).toEqual(Array(ITEMS).fill('review'));
  expect(survivor.exited()).toBe(false);

  const read = await h.request('GET', `/api/v1/batches/${batchId}`, { key });
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ counts: { review: ITEMS, failed: 0 }, completed_at: expect.any(String) });

  // No transition twice: each campaign's timeline is the pipeline's order, once.
  for (const id of ids) {
    const events = await h.sql('SELECT to_status FROM campaign_events WHERE campaign_id = $1 ORDER BY id', [id]);
    expect({ id, order: events.map((e) => e.to_status) }).toEqual({ id, order: ORDER });
  }

  // Exactly one batch.completed: received once, signed, written once and delivered by one attempt.
  await waitFor(
    async () => receiver!.received.length,
    (n) => n >= 1,
    30_000,
    200,
  );
  await sleep(4000);
  expect(receiver.received).toHaveLength(1);
  const [hook] = receiver.received;
  expect(verifyWebhook(hook, secret)).toBe(true);
  expect(JSON.parse(hook.body)).toEqual({
    event: 'batch.completed',
    batch_id: batchId,
    counts: expect.objectContaining({ review: ITEMS, failed: 0 }),
    campaigns: ids.map((id) => ({ campaign_id: id, status: 'review' })),
    timestamp: expect.any(String),
  });
  expect(await h.sql("SELECT count(*)::int AS n FROM campaign_webhook_events WHERE event_type = 'batch.completed'")).toEqual([{ n: 1 }]);
  expect(await h.sql("SELECT event_id, status, attempts FROM webhook_deliveries WHERE event_type = 'batch.completed'")).toEqual([
    { event_id: hook.headers['x-service-event-id'], status: 'delivered', attempts: 1 },
  ]);
});
