/**
 * The campaign actor's outcomes and the webhook dispatcher, with real Chromium, espeak-ng, editly,
 * PostgreSQL and Redis: a full campaign to `review` with a signed `campaign.completed` that a receiver
 * verifies; publish; a receiver that is down or redirects; a stage that keeps failing; the deadline.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startSink, type Sink } from '../fixtures/site/server';
import { verifyWebhook, webhookReceivers } from '../fixtures/webhook-receiver';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

// Generous: these tests are about the pipeline, not the limiter (whose Redis deadline a loaded CI machine can miss).
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const EVENT_ID = /^evt_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let h: Harness;
let customer: { orgId: string; key: string };
let secret: string;
const receivers = webhookReceivers();
const receiver = receivers.start;

beforeAll(async () => {
  h = await startHarness({
    render: 'worker',
    config: {
      ...CHECK_NOT_THE_SUBJECT,
      rateLimits: limits,
      videoTargetSeconds: 10,
      captureMaxShots: 2,
      webhookRetryDelaysMs: [1100, 1100],
      campaignSweepMs: 300,
      campaignLeaseMs: 3000,
    },
  });
  customer = await h.newCustomer('business');
  ({ secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: customer.orgId }));
});
afterAll(async () => {
  await receivers.closeAll();
  await h?.stop();
});

/** A campaign row in a given state, as if the pipeline had brought it there (no page load needed). */
/**
 * A campaign row in `status`. `held`: its lease belongs to an actor that is not there, so the reaper leaves it
 * alone and the test alone moves it (without it, the 300 ms sweep may run its stage first).
 */
async function insertCampaign(
  status: string,
  webhookUrl: string | null,
  deadline = new Date(Date.now() + 30 * 60_000),
  held = false,
): Promise<string> {
  const id = crypto.randomUUID();
  const lease = held ? new Date(Date.now() + 10 * 60_000) : null;
  await h.sql(
    `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, webhook_url, progress, quota_period, status_changed_at, deadline_at,
    lease_owner, lease_expires_at, created_at, updated_at)
    VALUES ($1, $2, $1, $3, 'https://acme.example/', 'acme.example', '["en"]', '["tiktok"]', $4, 50, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'), now(), $5,
    $6, $7, now(), now())`,
    [id, customer.orgId, status, webhookUrl, deadline, held ? 'test-holder' : null, lease],
  );
  return id;
}

const deliveries = (campaignId: string) =>
  h.sql('SELECT d.id, d.event_id, d.event_type, d.status, d.attempts FROM webhook_deliveries d WHERE d.campaign_id = $1', [campaignId]);
const attempts = (campaignId: string) =>
  h.sql(
    'SELECT a.attempt, a.signed_timestamp, a.status_code, a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.campaign_id = $1 ORDER BY a.attempt',
    [campaignId],
  );

test('a campaign reaches review; the receiver gets one campaign.completed whose signature and body verify; publish then 409', async () => {
  const hook = await receiver();
  const created = await h.request('POST', '/api/v1/campaigns', {
    key: customer.key,
    body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'], webhook_url: hook.url },
  });
  expect(created.status).toBe(201);
  const id = created.body.campaign_id;
  const early = await h.request('POST', `/api/v1/campaigns/${id}/publish`, { key: customer.key });
  expect(early.status).toBe(409);
  expect(early.body).toMatchObject({ success: false, error: { code: 'conflict' } });

  const done = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key }),
    (res) => ['review', 'failed'].includes(res.body.status),
    240_000,
    500,
  );
  expect(done.body.status).toBe('review');
  await waitFor(
    async () => hook.received.length,
    (n) => n >= 1,
    15_000,
    100,
  );
  expect(hook.received).toHaveLength(1);
  const [webhook] = hook.received;
  expect(verifyWebhook(webhook, secret)).toBe(true);
  expect(verifyWebhook({ ...webhook, body: webhook.body.replace('review', 'failed') }, secret)).toBe(false);
  expect(webhook.headers['x-service-event-id']).toMatch(EVENT_ID);
  expect(Math.abs(Number(webhook.headers['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
  const body = JSON.parse(webhook.body);
  expect(body).toMatchObject({ event: 'campaign.completed', campaign_id: id, status: 'review' });
  expect(body).not.toHaveProperty('error');
  expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
  expect(body.videos).toHaveLength(1);
  expect(body.videos[0]).toMatchObject({ id: done.body.videos[0].id, status: 'ready', platform: 'tiktok', language: 'en' });
  expect(body.videos[0].file_url).toMatch(/\/files\/videos\/.+\.mp4\?expires=\d+&signature=[0-9a-f]+$/);
  // The receiver has the request before the webhooks service has its answer and records it.
  const recorded = await waitFor(
    () => deliveries(id),
    (rows) => rows.some((row: { status: string }) => row.status !== 'pending'),
    15_000,
    100,
  );
  expect(recorded).toEqual([expect.objectContaining({ event_type: 'campaign.completed', status: 'delivered', attempts: 1 })]);

  const published = await h.request('POST', `/api/v1/campaigns/${id}/publish`, { key: customer.key });
  expect(published.status).toBe(200);
  expect(published.body.status).toBe('published');
  expect(published.body.videos[0].published_at).toEqual(expect.any(String));
  const again = await h.request('POST', `/api/v1/campaigns/${id}/publish`, { key: customer.key });
  expect(again.status).toBe(409);
  const foreign = await h.newCustomer('business');
  expect((await h.request('POST', `/api/v1/campaigns/${id}/publish`, { key: foreign.key })).status).toBe(404);
  // Publishing is not a generation outcome: still exactly one event.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(hook.received).toHaveLength(1);
}, 300_000);

test('a receiver that keeps failing gets exactly 3 attempts with one event id and fresh timestamps; the delivery is recorded failed', async () => {
  const hook = await receiver(() => ({ status: 503 }));
  const id = await insertCampaign('rendering', hook.url, undefined, true);
  await h.call('campaigns.transition', {
    campaign_id: id,
    to: 'failed',
    error_code: 'render_failed',
    error_message: 'The renderer gave up.',
  });
  await waitFor(
    () => deliveries(id),
    (rows) => rows[0]?.status === 'failed',
    20_000,
    200,
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(hook.received).toHaveLength(3);
  const ids = new Set(hook.received.map((r) => r.headers['x-service-event-id']));
  expect(ids.size).toBe(1);
  const timestamps = hook.received.map((r) => Number(r.headers['x-service-timestamp']));
  expect(new Set(timestamps).size).toBe(3);
  expect(hook.received.every((r) => verifyWebhook(r, secret))).toBe(true);
  expect(JSON.parse(hook.received[0].body)).toMatchObject({
    event: 'campaign.failed',
    campaign_id: id,
    status: 'failed',
    error: { code: 'render_failed', message: 'The renderer gave up.' },
  });
  const recorded = await attempts(id);
  expect(recorded.map((a) => [a.attempt, a.status_code])).toEqual([
    [1, 503],
    [2, 503],
    [3, 503],
  ]);
  expect(recorded.map((a) => Number(a.signed_timestamp))).toEqual(timestamps);
  expect(await deliveries(id)).toEqual([expect.objectContaining({ status: 'failed', attempts: 3 })]);
}, 60_000);

test('a receiver answering 302 is a failure; the redirect target is never contacted', async () => {
  let sink: Sink | undefined;
  try {
    sink = await startSink();
    const hook = await receiver(() => ({ status: 302, headers: { Location: `${sink!.origin}/stolen` } }));
    const id = await insertCampaign('rendering', hook.url, undefined, true);
    await h.call('campaigns.transition', { campaign_id: id, to: 'failed', error_code: 'render_failed', error_message: 'x' });
    await waitFor(
      () => deliveries(id),
      (rows) => rows[0]?.status === 'failed',
      20_000,
      200,
    );
    expect(hook.received).toHaveLength(3);
    expect((await attempts(id)).map((a) => a.error)).toEqual(Array(3).fill('redirect (302) not followed'));
    expect(sink.hits).toEqual([]);
  } finally {
    await sink?.close();
  }
}, 60_000);

test('a stage that keeps failing fails the campaign with its error, sends campaign.failed and refunds the quota', async () => {
  const hook = await receiver();
  // The campaign's quota use is counted before the campaign exists, as create does: the 300 ms reaper may fail it at once.
  const [{ period }] = await h.sql("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS period");
  await h.sql(
    'INSERT INTO usage_counters (org_id, period, used) VALUES ($1, $2, 1) ON CONFLICT (org_id, period) DO UPDATE SET used = usage_counters.used + 1',
    [customer.orgId, period],
  );
  const [{ used: before }] = await h.sql('SELECT used FROM usage_counters WHERE org_id = $1 AND period = $2', [customer.orgId, period]);
  // Nothing for the voiceover stage to speak: it fails on every try; the reaper starts it (no actor holds it).
  const id = await insertCampaign('voiceover', hook.url);
  const read = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key }),
    (res) => res.body.status === 'failed',
    20_000,
    200,
  );
  expect(read.body.error).toEqual({ code: 'speech_failed', message: expect.stringMatching(/scripts are missing/) });
  await waitFor(
    async () => hook.received.length,
    (n) => n >= 1,
    10_000,
    100,
  );
  // The webhook says why, exactly as GET does.
  expect(JSON.parse(hook.received[0].body)).toMatchObject({
    event: 'campaign.failed',
    campaign_id: id,
    status: 'failed',
    error: read.body.error,
  });
  const [{ used: after }] = await h.sql('SELECT used FROM usage_counters WHERE org_id = $1 AND period = $2', [customer.orgId, period]);
  expect(Number(after)).toBe(Number(before) - 1);
}, 60_000);

test('a campaign past its deadline fails with timeout and sends campaign.failed', async () => {
  const hook = await receiver();
  const id = await insertCampaign('rendering', hook.url, new Date(Date.now() - 1000));
  const read = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key }),
    (res) => res.body.status === 'failed',
    20_000,
    200,
  );
  expect(read.body.error).toEqual({ code: 'timeout', message: expect.stringMatching(/did not finish within 30 minutes/) });
  await waitFor(
    async () => hook.received.length,
    (n) => n >= 1,
    10_000,
    100,
  );
  expect(JSON.parse(hook.received[0].body)).toMatchObject({ event: 'campaign.failed', campaign_id: id, error: read.body.error });
  // The stored files of a failed campaign stay where they were; nothing of this one was rendered.
  expect(fs.existsSync(path.join(h.config.dataDir, 'files', 'campaigns', id, 'videos'))).toBe(false);
}, 60_000);
