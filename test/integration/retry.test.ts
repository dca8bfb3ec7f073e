/**
 * Retry a failed campaign: POST /api/v1/campaigns/{id}/retry makes a new campaign that starts where
 * the failed one failed, reusing what its finished stages stored. A campaign whose render failed is rendered again
 * and reaches review without the page being loaded again (the fixture site counts every request); one whose second
 * language failed keeps the first language's video as made, and only the second is made again. Real PostgreSQL,
 * Chromium, voices and editly on the harness.
 */
import { verifyWebhook } from '../../clients/typescript/src';
import { webhookReceivers } from '../fixtures/webhook-receiver';
import { runCampaign, untilSettled } from '../support/campaign-run';
import { dashboardSession, postForm } from '../support/dashboard-session';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
let customer: { orgId: string; key: string };
let failedId: string;
let secret: string;
const receivers = webhookReceivers();

/** Campaigns drawn from the organization's quota this month. */
async function quotaUsed(orgId: string): Promise<number> {
  const rows = await h.sql<{ used: number }>('SELECT used FROM usage_counters WHERE org_id = $1', [orgId]);
  return rows.reduce((n, row) => n + Number(row.used), 0);
}

/** What a render that failed for good leaves: the campaign failed from rendering, its videos failed, no files. */
async function failInRendering(id: string): Promise<void> {
  await h.sql("UPDATE campaigns SET status = 'failed', error_code = 'render_failed', error_message = 'A render failed.' WHERE id = $1", [
    id,
  ]);
  await h.sql(
    "UPDATE videos SET status = 'failed', file_key = NULL, thumbnail_key = NULL, captions_srt_key = NULL, error_code = 'render_failed' WHERE campaign_id = $1",
    [id],
  );
  await h.sql(
    "INSERT INTO campaign_events (campaign_id, from_status, to_status, detail, created_at) VALUES ($1, 'rendering', 'failed', 'render failed', now())",
    [id],
  );
}

beforeAll(async () => {
  h = await startHarness({
    render: 'worker',
    config: { ...CHECK_NOT_THE_SUBJECT, rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 2 },
  });
  customer = await h.newCustomer('business');
  ({ secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: customer.orgId }));
  const run = await runCampaign(h, customer.key, { languages: ['en'], platforms: ['tiktok'], quality: 'draft' });
  expect(run.campaign.status).toBe('review');
  failedId = run.id;
  await failInRendering(failedId);
}, 300_000);
afterAll(async () => {
  await receivers.closeAll();
  await h?.stop();
});

test('a campaign whose render failed is retried from rendering: review again, no page load, one quota unit', async () => {
  const usedBefore = await quotaUsed(customer.orgId);
  const pageLoads = h.site.hits.length;
  const retried = await h.request('POST', `/api/v1/campaigns/${failedId}/retry`, { key: customer.key });
  expect(retried.status).toBe(201);
  expect(retried.body).toEqual({
    success: true,
    campaign_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    job_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    status: 'rendering',
    retry_of: failedId,
  });
  expect(retried.headers.get('location')).toBe(`/api/v1/campaigns/${retried.body.campaign_id}`);
  const [stored] = await h.sql<{ job_id: string }>('SELECT job_id FROM campaigns WHERE id = $1', [retried.body.campaign_id]);
  expect(stored.job_id).toBe(retried.body.job_id);
  const done = { body: await untilSettled(h, retried.body.campaign_id as string, customer.key) };
  expect(done.body).toMatchObject({ status: 'review', retry_of: failedId, languages: ['en'], platforms: ['tiktok'] });
  expect(done.body.videos).toEqual([expect.objectContaining({ status: 'ready', language: 'en', platform: 'tiktok' })]);
  const video = await fetch(done.body.videos[0].file_url.replace(h.config.publicBaseUrl, h.baseUrl));
  expect(video.status).toBe(200);
  expect((await video.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  // Nothing was captured again: the page was not loaded, and the failed campaign's captures were copied.
  expect(h.site.hits.length).toBe(pageLoads);
  const captures = await h.sql('SELECT variant FROM page_captures WHERE campaign_id = $1', [retried.body.campaign_id]);
  expect(captures.length).toBeGreaterThan(0);
  expect(await quotaUsed(customer.orgId)).toBe(usedBefore + 1);
  // The original is left as it was.
  expect((await h.request('GET', `/api/v1/campaigns/${failedId}`, { key: customer.key })).body.status).toBe('failed');
}, 300_000);

test('a campaign that failed while scripting is retried from scripting: the captures and plan reused, the rest made anew', async () => {
  const run = await runCampaign(h, customer.key, { languages: ['en'], platforms: ['tiktok'], quality: 'draft' });
  expect(run.campaign.status).toBe('review');
  // What a script that failed leaves: the video neither scripted, spoken nor rendered, no script stored.
  await h.sql("UPDATE campaigns SET status = 'failed', error_code = 'translation_failed', error_message = 'x' WHERE id = $1", [run.id]);
  await h.sql(
    "UPDATE videos SET status = 'queued', script_source = NULL, captions_key = NULL, file_key = NULL, file_revision = NULL WHERE campaign_id = $1",
    [run.id],
  );
  await h.sql('DELETE FROM campaign_scripts WHERE campaign_id = $1', [run.id]);
  await h.sql('DELETE FROM storyboards WHERE campaign_id = $1', [run.id]);
  await h.sql(
    "INSERT INTO campaign_events (campaign_id, from_status, to_status, detail, created_at) VALUES ($1, 'scripting', 'failed', 'x', now())",
    [run.id],
  );
  const pageLoads = h.site.hits.length;
  const retried = await h.request('POST', `/api/v1/campaigns/${run.id}/retry`, { key: customer.key });
  expect(retried.status).toBe(201);
  expect(retried.body.status).toBe('scripting');
  const id = retried.body.campaign_id as string;
  expect((await untilSettled(h, id, customer.key)).status).toBe('review');
  expect(h.site.hits.length).toBe(pageLoads);
  // Scripts, storyboards and the video are the retry's own; the plan is the original's.
  const plans = await h.sql<{ campaign_id: string; plan: unknown }>(
    'SELECT campaign_id, plan FROM campaign_plans WHERE campaign_id IN ($1, $2)',
    [run.id, id],
  );
  expect(plans).toHaveLength(2);
  expect(JSON.stringify(plans[0].plan)).toBe(JSON.stringify(plans[1].plan));
  expect(await h.sql('SELECT video_id FROM storyboards WHERE campaign_id = $1', [id])).toHaveLength(1);
  const events = await h.sql<{ to_status: string }>('SELECT to_status FROM campaign_events WHERE campaign_id = $1 ORDER BY id', [id]);
  expect(events.map((e) => e.to_status)).toEqual(['scripting', 'voiceover', 'rendering', 'review']);
}, 300_000);

test('a campaign whose second language failed is retried keeping the first: only the failed language is made again', async () => {
  const run = await runCampaign(h, customer.key, { languages: ['en', 'ja'], platforms: ['tiktok'], quality: 'draft' });
  expect(run.campaign.status).toBe('review');
  // What the second language's voice failing leaves, the first language's lane done: its video unspoken, no files.
  await h.sql("UPDATE campaigns SET status = 'failed', error_code = 'speech_failed', error_message = 'x' WHERE id = $1", [run.id]);
  await h.sql(
    `UPDATE videos SET status = 'failed', captions_key = NULL, file_key = NULL, thumbnail_key = NULL, captions_srt_key = NULL,
       file_revision = NULL WHERE campaign_id = $1 AND language = 'ja'`,
    [run.id],
  );
  await h.sql("DELETE FROM storyboards WHERE video_id IN (SELECT id FROM videos WHERE campaign_id = $1 AND language = 'ja')", [run.id]);
  await h.sql(
    "INSERT INTO campaign_events (campaign_id, from_status, to_status, detail, created_at) VALUES ($1, 'voiceover', 'failed', 'x', now())",
    [run.id],
  );
  const [first] = await h.sql<{ file_key: string }>("SELECT file_key FROM videos WHERE campaign_id = $1 AND language = 'en'", [run.id]);
  // The campaign asked for each video as soon as it is ready (the retry takes its webhook settings along).
  const hook = await receivers.start();
  await h.sql('UPDATE campaigns SET webhook_url = $2, webhook_events = $3 WHERE id = $1', [
    run.id,
    hook.url,
    JSON.stringify(['campaign.completed', 'campaign.failed', 'video.ready']),
  ]);
  const retried = await h.request('POST', `/api/v1/campaigns/${run.id}/retry`, { key: customer.key });
  expect(retried.status).toBe(201);
  expect(retried.body.status).toBe('voiceover');
  const id = retried.body.campaign_id as string;
  // At once: the first language's video is the retry's, ready with the files already made.
  const kept = await h.sql<{ language: string; status: string; file_key: string | null }>(
    'SELECT language, status, file_key FROM videos WHERE campaign_id = $1 ORDER BY language',
    [id],
  );
  expect(kept).toEqual([
    { language: 'en', status: 'ready', file_key: first.file_key },
    { language: 'ja', status: 'queued', file_key: null },
  ]);
  const done = await untilSettled(h, id, customer.key);
  expect(done.status).toBe('review');
  expect(done.videos.map((v) => [v.language, v.status])).toEqual([
    ['en', 'ready'],
    ['ja', 'ready'],
  ]);
  // Only the second language was rendered again.
  const rendered = await h.sql<{ language: string }>(
    'SELECT DISTINCT v.language FROM render_attempts a JOIN videos v ON v.id = a.video_id WHERE a.campaign_id = $1',
    [id],
  );
  expect(rendered).toEqual([{ language: 'ja' }]);
  const [en] = await h.sql<{ file_key: string }>("SELECT file_key FROM videos WHERE campaign_id = $1 AND language = 'en'", [id]);
  expect(en.file_key).toBe(first.file_key);
  // Each of the retry's videos is announced ready once, the kept one too, each before the campaign's completion.
  const events = await waitFor(
    async () => hook.received.map((r) => verifyWebhook({ headers: r.headers, rawBody: r.body }, secret)),
    (list) => list.some((e) => e?.event === 'campaign.completed'),
    30_000,
    100,
  );
  expect(events.map((e) => [e?.event, e?.event === 'video.ready' ? e.video.language : null])).toEqual([
    ['video.ready', 'en'],
    ['video.ready', 'ja'],
    ['campaign.completed', null],
  ]);
  expect(events.every((e) => e !== null && 'campaign_id' in e && e.campaign_id === id)).toBe(true);
}, 300_000);

test('the dashboard shows Retry on a failed campaign and retries it through the same action', async () => {
  const run = await runCampaign(h, customer.key, { languages: ['en'], platforms: ['tiktok'], quality: 'draft' });
  await failInRendering(run.id);
  const session = await dashboardSession(h, customer.orgId);
  const page = await fetch(`${h.baseUrl}/dashboard/campaigns/${run.id}`, { headers: { cookie: session.cookie } });
  expect(await page.text()).toContain(`action="/dashboard/campaigns/${run.id}/retry"`);
  const posted = await postForm(h, session, `/dashboard/campaigns/${run.id}/retry`);
  expect(posted.status).toBe(303);
  const [retry] = await h.sql<{ id: string }>('SELECT id FROM campaigns WHERE retry_of = $1', [run.id]);
  expect(posted.headers.get('location')).toBe(`/dashboard/campaigns/${retry.id}`);
  const retried = await fetch(`${h.baseUrl}/dashboard/campaigns/${retry.id}`, { headers: { cookie: session.cookie } });
  expect(await retried.text()).toContain(`A retry of <a href="/dashboard/campaigns/${run.id}">`);
  // A campaign that has not failed offers no Retry.
  const [inReview] = await h.sql<{ id: string }>("SELECT id FROM campaigns WHERE retry_of = $1 AND status = 'review'", [failedId]);
  const review = await fetch(`${h.baseUrl}/dashboard/campaigns/${inReview.id}`, { headers: { cookie: session.cookie } });
  expect(await review.text()).not.toContain('/retry"');
}, 300_000);

test('only a failed campaign that was not canceled is retried; scoped, scoped by key, and quota-bound like a create', async () => {
  const review = await h.sql<{ id: string }>("SELECT id FROM campaigns WHERE retry_of = $1 AND status = 'review'", [failedId]);
  const notFailed = await h.request('POST', `/api/v1/campaigns/${review[0].id}/retry`, { key: customer.key });
  expect(notFailed.status).toBe(409);
  expect(notFailed.body.error.message).toBe('Only a failed campaign can be retried; this one is review.');

  await h.sql("UPDATE campaigns SET error_code = 'canceled' WHERE id = $1", [failedId]);
  const canceled = await h.request('POST', `/api/v1/campaigns/${failedId}/retry`, { key: customer.key });
  expect(canceled.status).toBe(409);
  await h.sql("UPDATE campaigns SET error_code = 'render_failed' WHERE id = $1", [failedId]);

  const other = await h.newCustomer('business');
  expect((await h.request('POST', `/api/v1/campaigns/${failedId}/retry`, { key: other.key })).status).toBe(404);
  const readOnly = await h.newCustomer('business', ['campaigns:read']);
  expect((await h.request('POST', `/api/v1/campaigns/${failedId}/retry`, { key: readOnly.key })).status).toBe(403);

  const used = await quotaUsed(customer.orgId);
  await h.call('accounts.setPlan', { org_id: customer.orgId, plan: 'enterprise', campaigns: used, rate: 1000 });
  const overQuota = await h.request('POST', `/api/v1/campaigns/${failedId}/retry`, { key: customer.key });
  expect(overQuota.status).toBe(429);
  expect(overQuota.body.error.code).toBe('rate_limited');
  expect(await h.sql('SELECT id FROM campaigns WHERE retry_of = $1', [failedId])).toHaveLength(1);
});
