/**
 * The committed OpenAPI document and the typed client generated from it (clients/typescript), against a running
 * server on real PostgreSQL, Chromium, the voices and editly: the document is what the server serves and passes
 * Spectral's spectral:oas ruleset with nothing to report; the client creates, polls, lists, reads the report and
 * cancels; a webhook it receives verifies with the client's own check.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCampaignClient, verifyWebhook, type Campaign } from '../../clients/typescript/src';
import { webhookReceivers } from '../fixtures/webhook-receiver';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';

const ROOT = path.join(__dirname, '..', '..');
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
let customer: { orgId: string; key: string };
const receivers = webhookReceivers();

beforeAll(async () => {
  h = await startHarness({
    render: 'worker',
    config: { ...CHECK_NOT_THE_SUBJECT, rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 2 },
  });
  customer = await h.newCustomer('business');
}, 120_000);
afterAll(async () => {
  await receivers.closeAll();
  await h?.stop();
});

test('openapi.json is the document the server serves (run `npm run openapi` after changing a public action)', async () => {
  const served = await h.request('GET', '/api/v1/openapi.json', { key: customer.key });
  expect(served.status).toBe(200);
  const committed: unknown = JSON.parse(fs.readFileSync(path.join(ROOT, 'openapi.json'), 'utf8'));
  expect(served.body).toEqual(committed);
});

test("openapi.json passes Spectral's spectral:oas ruleset with no error, warning, info or hint", async () => {
  const { stdout } = await promisify(execFile)(
    path.join(ROOT, 'node_modules', '.bin', 'spectral'),
    ['lint', 'openapi.json', '--ruleset', '.spectral.yaml', '--format', 'json', '--fail-severity', 'hint', '--quiet'],
    { cwd: ROOT, timeout: 60_000 },
  ).catch((err: { stdout?: string; message: string }) => ({ stdout: err.stdout || err.message }));
  expect(JSON.parse(stdout.trim() || '[]')).toEqual([]);
});

test('the typed client: create, poll to review, list, the report, cancel another; the webhook verifies with its check', async () => {
  const client = createCampaignClient({ baseUrl: h.baseUrl, apiKey: customer.key });
  const hook = await receivers.start();
  const { secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: customer.orgId });

  const created = await client.POST('/api/v1/campaigns', {
    body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'], webhook_url: hook.url },
  });
  expect(created.response.status).toBe(201);
  const id = created.data!.campaign_id;

  let campaign: Campaign | undefined;
  for (const deadline = Date.now() + 240_000; Date.now() < deadline;) {
    const read = await client.GET('/api/v1/campaigns/{id}', { params: { path: { id } } });
    campaign = read.data;
    if (campaign && ['review', 'failed'].includes(campaign.status)) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  expect(campaign?.status).toBe('review');
  expect(campaign!.videos[0]).toMatchObject({ language: 'en', platform: 'tiktok', status: 'ready' });

  const listed = await client.GET('/api/v1/campaigns', { params: { query: { limit: 5, status: 'review' } } });
  expect(listed.data?.campaigns.map((c) => c.campaign_id)).toEqual([id]);
  expect(listed.data?.has_more).toBe(false);

  const report = await client.GET('/api/v1/reports/{report_id}', { params: { path: { report_id: campaign!.report_id! } } });
  expect(report.data).toMatchObject({ campaign_id: id, status: 'review' });
  expect(report.data!.videos[0].render_attempts[0].outcome).toBe('ready');
  const usage = await client.GET('/api/v1/reports/usage', {});
  expect(usage.data?.videos.rendered).toBe(1);

  const second = await client.POST('/api/v1/campaigns', { body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'] } });
  const canceled = await client.POST('/api/v1/campaigns/{id}/cancel', { params: { path: { id: second.data!.campaign_id } } });
  expect(canceled.data).toMatchObject({ status: 'failed', error: { code: 'canceled' } });
  // Errors come back typed as the documented body, not thrown.
  const again = await client.POST('/api/v1/campaigns/{id}/cancel', { params: { path: { id: second.data!.campaign_id } } });
  expect(again.response.status).toBe(409);
  expect(again.error).toMatchObject({ success: false, error: { code: 'conflict' } });

  for (const deadline = Date.now() + 15_000; hook.received.length === 0 && Date.now() < deadline;)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const [delivery] = hook.received;
  const event = verifyWebhook({ headers: delivery.headers, rawBody: delivery.body }, secret);
  expect(event).toMatchObject({ event: 'campaign.completed', campaign_id: id, status: 'review' });
  expect(verifyWebhook({ headers: delivery.headers, rawBody: delivery.body.replace('review', 'failed') }, secret)).toBeNull();
  expect(verifyWebhook({ headers: delivery.headers, rawBody: delivery.body }, 'another secret')).toBeNull();
  // A replay an hour later is refused, however well signed.
  expect(verifyWebhook({ headers: delivery.headers, rawBody: delivery.body }, secret, { now: Date.now() + 3_600_000 })).toBeNull();
}, 300_000);
