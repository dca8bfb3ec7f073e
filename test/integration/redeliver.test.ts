/**
 * POST /api/v1/campaigns/{id}/webhook/redeliver (decisions §11) on real PostgreSQL: the campaign's terminal event
 * sent again under the same event id, signed afresh; a delivery that had failed gets one more attempt; the checks
 * (generating, no webhook_url, someone else's campaign, scope) and the 10-a-day allowance with Retry-After. The same
 * for a batch's batch.completed (decisions §14), by POST /api/v1/batches/{id}/webhook/redeliver.
 */
import crypto from 'node:crypto';
import { verifyWebhook, webhookReceivers } from '../fixtures/webhook-receiver';
import { startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
let customer: { orgId: string; key: string };
let secret: string;
const receivers = webhookReceivers();
const receiver = receivers.start;

beforeAll(async () => {
  h = await startHarness({ config: { rateLimits: limits, webhookRetryDelaysMs: [1100, 1100], campaignSweepMs: 300 } });
  customer = await h.newCustomer('business');
  ({ secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: customer.orgId }));
});
afterAll(async () => {
  await receivers.closeAll();
  await h?.stop();
});

/** A campaign row in `status` whose lease an absent actor holds, so only the test moves it; optionally item `index` of a batch. */
async function insertCampaign(status: string, webhookUrl: string | null, batch?: { id: string; index: number }): Promise<string> {
  const id = crypto.randomUUID();
  await h.sql(
    `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, webhook_url, progress, quota_period, status_changed_at, deadline_at,
    lease_owner, lease_expires_at, created_at, updated_at, batch_id, batch_index)
    VALUES ($1, $2, $1, $3, 'https://acme.example/', 'acme.example', '["en"]', '["tiktok"]', $4, 50, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'), now(),
    now() + interval '30 minutes', 'test-holder', now() + interval '10 minutes', now(), now(), $5, $6)`,
    [id, customer.orgId, status, webhookUrl, batch?.id ?? null, batch?.index ?? null],
  );
  return id;
}

/** A batch of two rendering campaigns (without webhook_urls of their own), held by an absent actor: only the test settles them. */
async function insertBatch(webhookUrl: string | null): Promise<{ batchId: string; ids: string[] }> {
  const batchId = crypto.randomUUID();
  await h.sql('INSERT INTO batches (id, org_id, webhook_url, item_count, created_at, updated_at) VALUES ($1, $2, $3, 2, now(), now())', [
    batchId,
    customer.orgId,
    webhookUrl,
  ]);
  const ids = [
    await insertCampaign('rendering', null, { id: batchId, index: 0 }),
    await insertCampaign('rendering', null, { id: batchId, index: 1 }),
  ];
  return { batchId, ids };
}

/** A campaign that failed with a webhook_url: its campaign.failed event is written and sent. */
async function failedCampaign(hookUrl: string): Promise<string> {
  const id = await insertCampaign('rendering', hookUrl);
  await h.call('campaigns.transition', {
    campaign_id: id,
    to: 'failed',
    error_code: 'render_failed',
    error_message: 'The renderer gave up.',
  });
  return id;
}

const delivery = async (campaignId: string) =>
  (await h.sql('SELECT status, attempts FROM webhook_deliveries WHERE campaign_id = $1', [campaignId]))[0] as
    { status: string; attempts: number } | undefined;
/** Waits until the campaign's delivery row satisfies `done`. */
const deliveryWhen = (campaignId: string, done: (row: { status: string; attempts: number }) => boolean, timeoutMs = 10_000) =>
  waitFor(
    () => delivery(campaignId),
    (row) => !!row && done(row),
    timeoutMs,
    100,
  );
/** Waits until `hook` has received `count` requests. */
const receivedAtLeast = (hook: { received: unknown[] }, count: number) =>
  waitFor(
    async () => hook.received.length,
    (n) => n >= count,
    10_000,
    100,
  );
const redeliver = (id: string, key = customer.key) => h.request('POST', `/api/v1/campaigns/${id}/webhook/redeliver`, { key });
const redeliverBatch = (id: string, key = customer.key) => h.request('POST', `/api/v1/batches/${id}/webhook/redeliver`, { key });

type Hook = Awaited<ReturnType<typeof receiver>>;
/**
 * Sends the hook's event again through `send` (after a second, so that the signed timestamp, in seconds, moves on):
 * 202 naming the first delivery's event id, then the same event id and body arrive again with a later timestamp and a
 * valid signature. The delivery received again.
 */
async function sentAgain(hook: Hook, send: () => ReturnType<typeof redeliver>, answer: Record<string, string>) {
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const res = await send();
  expect(res.status).toBe(202);
  const eventId = hook.received[0].headers['x-service-event-id'];
  expect(res.body).toEqual({ success: true, ...answer, event_id: eventId, status: 'pending', redeliveries_left: 9 });
  await receivedAtLeast(hook, 2);
  const [first, again] = hook.received;
  expect(again.headers['x-service-event-id']).toBe(eventId);
  expect(again.body).toBe(first.body);
  expect(Number(again.headers['x-service-timestamp'])).toBeGreaterThan(Number(first.headers['x-service-timestamp']));
  expect(verifyWebhook(again, secret)).toBe(true);
  return again;
}

test('a delivered event is sent again: 202, same event id and body, a fresh timestamp and a valid signature', async () => {
  const hook = await receiver();
  const id = await failedCampaign(hook.url);
  await deliveryWhen(id, (row) => row.status === 'delivered', 20_000);
  expect(hook.received).toHaveLength(1);
  await sentAgain(hook, () => redeliver(id), { campaign_id: id, event: 'campaign.failed' });
  await deliveryWhen(id, (row) => row.status === 'delivered' && row.attempts === 2);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(hook.received).toHaveLength(2);
}, 60_000);

test('a delivery that failed after its 3 attempts gets one attempt per request: still down, it fails again; then up, it is delivered', async () => {
  let up = false;
  const hook = await receiver(() => ({ status: up ? 204 : 503 }));
  const id = await failedCampaign(hook.url);
  await deliveryWhen(id, (row) => row.status === 'failed', 20_000);
  expect(hook.received).toHaveLength(3);

  // Still down: the request is served by one attempt, not by a new series of retries.
  expect((await redeliver(id)).status).toBe(202);
  await deliveryWhen(id, (row) => row.status === 'failed' && row.attempts === 4);
  await new Promise((resolve) => setTimeout(resolve, 2500));
  expect(hook.received).toHaveLength(4);

  up = true;
  expect((await redeliver(id)).status).toBe(202);
  await deliveryWhen(id, (row) => row.status === 'delivered');
  expect(hook.received).toHaveLength(5);
  expect(new Set(hook.received.map((r) => r.headers['x-service-event-id'])).size).toBe(1);
  const recorded = await h.sql(
    'SELECT a.attempt, a.status_code FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.campaign_id = $1 ORDER BY a.attempt',
    [id],
  );
  expect(recorded.map((a) => [a.attempt, a.status_code])).toEqual([
    [1, 503],
    [2, 503],
    [3, 503],
    [4, 503],
    [5, 204],
  ]);
  const served = await h.sql('SELECT attempt FROM webhook_redeliveries WHERE campaign_id = $1 ORDER BY id', [id]);
  expect(served).toEqual([{ attempt: 4 }, { attempt: 5 }]);
}, 60_000);

test('refused in the documented body: a generating campaign or one without webhook_url 409, someone else’s 404, a key without campaigns:create 403', async () => {
  const hook = await receiver();
  const generating = await insertCampaign('voiceover', hook.url);
  const busy = await redeliver(generating);
  expect(busy.status).toBe(409);
  expect(busy.body).toMatchObject({ success: false, error: { code: 'conflict' } });
  expect(busy.body.error.message).toMatch(/voiceover/);

  const silent = await insertCampaign('rendering', null);
  await h.call('campaigns.transition', { campaign_id: silent, to: 'failed', error_code: 'render_failed', error_message: 'x' });
  const noHook = await redeliver(silent);
  expect(noHook.status).toBe(409);
  expect(noHook.body.error.message).toMatch(/webhook_url/);

  const id = await failedCampaign(hook.url);
  const foreign = await h.newCustomer('business');
  const other = await redeliver(id, foreign.key);
  expect(other.status).toBe(404);
  expect(other.body).toMatchObject({ success: false, error: { code: 'not_found' } });
  expect((await redeliver(crypto.randomUUID())).status).toBe(404);
  // Malformed ids are 404 alike, as GET answers them.
  expect((await redeliver('not-a-uuid')).status).toBe(404);

  const reader = await h.newCustomer('business', ['campaigns:read']);
  const scoped = await redeliver(id, reader.key);
  expect(scoped.status).toBe(403);
  expect(scoped.body).toMatchObject({ success: false });
  // None of the refusals took from the allowance.
  expect(await h.sql('SELECT count(*)::int AS n FROM webhook_redeliveries WHERE campaign_id = $1', [id])).toEqual([{ n: 0 }]);
}, 60_000);

test('ten redeliveries a campaign in 24 hours; the eleventh is 429 with Retry-After when the oldest leaves the window', async () => {
  const hook = await receiver();
  const id = await failedCampaign(hook.url);
  await deliveryWhen(id, (row) => row.status === 'delivered', 20_000);
  const left: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const res = await redeliver(id);
    expect(res.status).toBe(202);
    left.push(res.body.redeliveries_left);
  }
  expect(left).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  // The oldest request is moved back 23 h: it leaves the window in about an hour.
  await h.sql(
    "UPDATE webhook_redeliveries SET requested_at = now() - interval '23 hours' WHERE id = (SELECT min(id) FROM webhook_redeliveries WHERE campaign_id = $1)",
    [id],
  );
  const refused = await redeliver(id);
  expect(refused.status).toBe(429);
  expect(refused.body).toMatchObject({ success: false, error: { code: 'rate_limited', details: { limit: 10 } } });
  const retryAfter = Number(refused.headers.get('retry-after'));
  expect(retryAfter).toBe(refused.body.error.details.retry_after_seconds);
  expect(retryAfter).toBeGreaterThan(3500);
  expect(retryAfter).toBeLessThanOrEqual(3600);

  // Once it has left the window, one place is free again.
  await h.sql(
    "UPDATE webhook_redeliveries SET requested_at = now() - interval '25 hours' WHERE id = (SELECT min(id) FROM webhook_redeliveries WHERE campaign_id = $1)",
    [id],
  );
  const freed = await redeliver(id);
  expect(freed.status).toBe(202);
  expect(freed.body.redeliveries_left).toBe(0);
  await receivedAtLeast(hook, 2);
}, 60_000);

test("a batch's batch.completed is redelivered like a campaign's event: 202, same event id and body, signed afresh; 10 a day", async () => {
  const hook = await receiver();
  const { batchId, ids } = await insertBatch(hook.url);
  // Before every campaign is settled there is nothing to send.
  await h.call('campaigns.transition', { campaign_id: ids[0], to: 'review' });
  const early = await redeliverBatch(batchId);
  expect(early.status).toBe(409);
  expect(early.body.error.message).toMatch(/not complete/);
  await h.call('campaigns.transition', { campaign_id: ids[1], to: 'failed', error_code: 'render_failed', error_message: 'x' });
  await receivedAtLeast(hook, 1);
  const again = await sentAgain(hook, () => redeliverBatch(batchId), { batch_id: batchId, event: 'batch.completed' });
  expect(JSON.parse(again.body)).toMatchObject({ event: 'batch.completed', batch_id: batchId, counts: { review: 1, failed: 1 } });

  // The batch's event is the batch's: not among the deliveries of the campaign it is filed under, and a campaign's
  // redeliver (these have no webhook_url of their own) does not send it.
  for (const id of ids) {
    expect((await h.call('webhooks.deliveries', { campaign_id: id, org_id: customer.orgId })).deliveries).toEqual([]);
    expect((await redeliver(id)).status).toBe(409);
  }
  // The allowance is the batch's own: nine more, then 429 with Retry-After.
  for (let left = 8; left >= 0; left -= 1) expect((await redeliverBatch(batchId)).body.redeliveries_left).toBe(left);
  const refused = await redeliverBatch(batchId);
  expect(refused.status).toBe(429);
  expect(refused.body).toMatchObject({ success: false, error: { code: 'rate_limited', details: { limit: 10 } } });
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(refused.body.error.message).toMatch(/This batch's webhook was redelivered 10 times/);
}, 60_000);

test("a batch's redelivery refused: without a webhook_url 409, someone else's or an unknown batch 404, without campaigns:create 403", async () => {
  const silent = await insertBatch(null);
  for (const id of silent.ids) await h.call('campaigns.transition', { campaign_id: id, to: 'review' });
  const noHook = await redeliverBatch(silent.batchId);
  expect(noHook.status).toBe(409);
  expect(noHook.body.error.message).toMatch(/webhook_url/);

  const hook = await receiver();
  const { batchId, ids } = await insertBatch(hook.url);
  for (const id of ids) await h.call('campaigns.transition', { campaign_id: id, to: 'review' });
  await receivedAtLeast(hook, 1);
  const foreign = await h.newCustomer('business');
  expect((await redeliverBatch(batchId, foreign.key)).status).toBe(404);
  expect((await redeliverBatch(crypto.randomUUID())).status).toBe(404);
  expect((await redeliverBatch('not-a-uuid')).status).toBe(404);
  const reader = await h.newCustomer('business', ['campaigns:read']);
  expect((await redeliverBatch(batchId, reader.key)).status).toBe(403);
  expect(await h.sql('SELECT count(*)::int AS n FROM webhook_redeliveries WHERE campaign_id = ANY($1)', [ids])).toEqual([{ n: 0 }]);
}, 60_000);

test('the OpenAPI document describes redelivery: 202 and its body, the scope, its own 409 and 429', async () => {
  const res = await h.request('GET', '/api/v1/openapi.json', { key: customer.key });
  const operation = res.body.paths['/api/v1/campaigns/{id}/webhook/redeliver'].post;
  expect(operation['x-required-scope']).toBe('campaigns:create');
  expect(operation.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
  expect(operation).not.toHaveProperty('requestBody');
  const schema = operation.responses['202'].content['application/json'].schema;
  expect(schema.required).toEqual(expect.arrayContaining(['success', 'campaign_id', 'event_id', 'event', 'status', 'redeliveries_left']));
  expect(operation.responses['409'].description).toMatch(/webhook_url/);
  expect(operation.responses['429'].description).toMatch(/redelivered 10 times/);
  expect(operation.responses['429'].headers).toHaveProperty('Retry-After');
  expect(operation.responses['404'].description).toMatch(/not_found/);
});
