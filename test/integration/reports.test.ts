/**
 * The reports of decisions §11 on real PostgreSQL, Chromium, the voices and editly: a campaign run to review has a
 * report_id, and its report says what was spoken (the storyboard's scenes and timings, the voice), where each
 * video was rendered and how long each state took; the month's usage counts it; the refusals are the documented
 * ones (scope 403, foreign/unknown/generating 404, a bad month 400).
 */
import crypto from 'node:crypto';
import { GENERATING_STATES } from '../../lib/campaign/states';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
let customer: { orgId: string; key: string };
let campaignId: string;
let campaign: { report_id: string; videos: Array<{ id: string; duration_seconds: number; script_source: string }>; created_at: string };

beforeAll(async () => {
  h = await startHarness({
    render: 'worker',
    config: { ...CHECK_NOT_THE_SUBJECT, rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 2 },
  });
  customer = await h.newCustomer('business');
  const created = await h.request('POST', '/api/v1/campaigns', {
    key: customer.key,
    body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'] },
  });
  expect(created.status).toBe(201);
  campaignId = created.body.campaign_id;
  const generating = await h.request('GET', `/api/v1/campaigns/${campaignId}`, { key: customer.key });
  // No report while it is generating: GET has no report_id, and the id it will have is 404 for now.
  expect(generating.body).not.toHaveProperty('report_id');
  expect((await h.request('GET', `/api/v1/reports/rpt_${campaignId}`, { key: customer.key })).status).toBe(404);
  const done = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${campaignId}`, { key: customer.key }),
    (res) => ['review', 'failed'].includes(res.body.status),
    240_000,
    500,
  );
  expect(done.body.status).toBe('review');
  campaign = done.body;
}, 300_000);
afterAll(async () => h?.stop());

const report = (id: string, key = customer.key) => h.request('GET', `/api/v1/reports/${encodeURIComponent(id)}`, { key });

test("a campaign in review has a report: its script as spoken with the storyboard's timings and voice, its render attempt, its states", async () => {
  expect(campaign.report_id).toBe(`rpt_${campaignId}`);
  const res = await report(campaign.report_id);
  expect(res.status).toBe(200);
  const body = res.body;
  expect(body).toMatchObject({ success: true, report_id: campaign.report_id, campaign_id: campaignId, status: 'review', url: h.pageUrl });
  expect(body).not.toHaveProperty('error');

  // What was spoken is the storyboard the renderer drew from: the same scenes, text and times.
  const [storyboard] = await h.sql<{ document: { scenes: Array<Record<string, unknown>>; totalSeconds: number } }>(
    'SELECT document FROM storyboards WHERE video_id = $1',
    [campaign.videos[0].id],
  );
  expect(body.languages).toHaveLength(1);
  const [en] = body.languages;
  expect(en.language).toBe('en');
  expect(en.script_source).toBe(campaign.videos[0].script_source);
  expect(en.total_seconds).toBe(storyboard.document.totalSeconds);
  expect(en.voice).toEqual({ engine: expect.any(String), name: expect.any(String) });
  expect(en.voice.engine).toMatch(/^(rhvoice|festival|flite|espeak)$/);
  expect(en.scenes.map((s: { start_seconds: number }) => s.start_seconds)).toEqual(storyboard.document.scenes.map((s) => s.startSeconds));
  expect(en.scenes.map((s: { narration: string }) => s.narration)).toEqual(
    storyboard.document.scenes.map((s) => (s.narration as Array<{ text: string }>).map((segment) => segment.text).join(' ')),
  );
  expect(en.scenes[0]).toMatchObject({ index: 0, kind: 'title', start_seconds: 0 });
  expect(en.scenes.at(-1).kind).toBe('closing');
  for (const scene of en.scenes) expect(scene.narration.length).toBeGreaterThan(0);

  // The render attempt: on the worker (the harness's render node), ready, timed.
  expect(body.videos).toHaveLength(1);
  const [video] = body.videos;
  expect(video).toMatchObject({ id: campaign.videos[0].id, language: 'en', platform: 'tiktok', status: 'ready' });
  expect(video.duration_seconds).toBe(campaign.videos[0].duration_seconds);
  expect(video.render_attempts).toEqual([
    expect.objectContaining({ node_id: h.worker.nodeID, outcome: 'ready', error: null, seconds: expect.any(Number) }),
  ]);
  expect(video.render_attempts[0].seconds).toBeGreaterThan(0);

  // The states in order; each one's time runs to the next one's entry; the last (review) is still current.
  // Every generating state, in the pipeline's order, then review.
  expect(body.states.map((s: { state: string }) => s.state)).toEqual([...GENERATING_STATES, 'review']);
  for (const [i, state] of body.states.slice(0, -1).entries()) {
    expect(state.left_at).toBe(body.states[i + 1].entered_at);
    // Rounded to a tenth of a second: at most 0.05 s off (0.95 s reads 1).
    expect(Math.abs(state.seconds - (Date.parse(state.left_at) - Date.parse(state.entered_at)) / 1000)).toBeLessThanOrEqual(0.05 + 1e-9);
  }
  expect(body.states.at(-1)).toMatchObject({ state: 'review', left_at: null, seconds: null });
  expect(body.finished_at).toBe(body.states.at(-1).entered_at);
  const total = body.states.slice(0, -1).reduce((n: number, s: { seconds: number }) => n + s.seconds, 0);
  expect(total).toBeCloseTo((Date.parse(body.finished_at) - Date.parse(body.states[0].entered_at)) / 1000, 0);
});

test('a failed campaign has a report with its error; refusals: foreign, unknown, malformed 404; no reports:read 403', async () => {
  const id = crypto.randomUUID();
  await h.sql(
    `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, progress, quota_period, status_changed_at, deadline_at,
    lease_owner, lease_expires_at, created_at, updated_at)
    VALUES ($1, $2, $1, 'collecting', 'https://acme.example/', 'acme.example', '["en"]', '["tiktok"]', 5, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'), now(),
    now() + interval '30 minutes', 'test-holder', now() + interval '10 minutes', now(), now())`,
    [id, customer.orgId],
  );
  await h.call('campaigns.transition', {
    campaign_id: id,
    to: 'failed',
    error_code: 'capture_failed',
    error_message: 'The page did not load.',
  });
  const read = await h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key });
  expect(read.body.report_id).toBe(`rpt_${id}`);
  const failed = await report(read.body.report_id);
  expect(failed.status).toBe(200);
  expect(failed.body).toMatchObject({
    status: 'failed',
    error: { code: 'capture_failed', message: 'The page did not load.' },
    languages: [],
    states: [expect.objectContaining({ state: 'failed', seconds: null })],
  });
  expect(failed.body.finished_at).toBe(failed.body.states[0].entered_at);

  const notFound = { success: false, error: { code: 'not_found', message: 'Report not found.' } };
  const foreign = await h.newCustomer('business');
  for (const [reportId, key] of [
    [campaign.report_id, foreign.key],
    [`rpt_${crypto.randomUUID()}`, customer.key],
    [campaignId, customer.key],
    ['rpt_not-a-uuid', customer.key],
    ["rpt_1' OR '1'='1", customer.key],
  ]) {
    const res = await report(reportId, key);
    expect({ reportId, status: res.status, body: res.body }).toEqual({ reportId, status: 404, body: notFound });
  }
  const writer = await h.newCustomer('business', ['campaigns:create', 'campaigns:read']);
  for (const route of [`/api/v1/reports/${campaign.report_id}`, '/api/v1/reports/usage']) {
    const refused = await h.request('GET', route, { key: writer.key });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
  }
});

test("the month's usage: quota used and limit, campaigns by state, videos and seconds rendered by language and platform", async () => {
  const month = new Date().toISOString().slice(0, 7);
  const res = await h.request('GET', '/api/v1/reports/usage', { key: customer.key });
  expect(res.status).toBe(200);
  const seconds = Math.round(campaign.videos[0].duration_seconds * 10) / 10;
  const now = new Date();
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  // The failed campaign of the test above was refunded: one used, two campaigns.
  const [{ used }] = await h.sql<{ used: number }>('SELECT used FROM usage_counters WHERE org_id = $1 AND period = $2', [
    customer.orgId,
    month,
  ]);
  expect(res.body).toEqual({
    success: true,
    month,
    used,
    limit: 150,
    resets_at: nextMonth,
    campaigns: {
      total: 2,
      by_status: { collecting: 0, processing: 0, scripting: 0, voiceover: 0, rendering: 0, review: 1, published: 0, failed: 1 },
    },
    videos: { rendered: 1, seconds },
    by_language: [{ language: 'en', videos: 1, seconds }],
    by_platform: [{ platform: 'tiktok', videos: 1, seconds }],
  });

  const earlier = await h.request('GET', '/api/v1/reports/usage?month=2020-01', { key: customer.key });
  expect(earlier.status).toBe(200);
  expect(earlier.body).toMatchObject({
    month: '2020-01',
    used: 0,
    resets_at: '2020-02-01T00:00:00.000Z',
    campaigns: { total: 0 },
    videos: { rendered: 0, seconds: 0 },
    by_language: [],
  });
  // Another organization's usage is its own.
  const other = await h.newCustomer('growth');
  const theirs = await h.request('GET', '/api/v1/reports/usage', { key: other.key });
  expect(theirs.body).toMatchObject({ used: 0, limit: 40, campaigns: { total: 0 }, videos: { rendered: 0 } });

  for (const bad of ['2026-13', '2026-1', 'now', '2026-01-01']) {
    const refused = await h.request('GET', `/api/v1/reports/usage?month=${bad}`, { key: customer.key });
    expect({ bad, status: refused.status, code: refused.body.error?.code }).toEqual({ bad, status: 400, code: 'invalid_input' });
    expect(refused.body.error.message).toMatch(/month/);
  }
  const unknown = await h.request('GET', '/api/v1/reports/usage?period=2026-01', { key: customer.key });
  expect(unknown.status).toBe(400);
});

test('the OpenAPI document lists both reports with their scope, query and errors; the usage path is not taken for a report id', async () => {
  const doc = (await h.request('GET', '/api/v1/openapi.json', { key: customer.key })).body;
  const usage = doc.paths['/api/v1/reports/usage'].get;
  const one = doc.paths['/api/v1/reports/{report_id}'].get;
  expect(usage['x-required-scope']).toBe('reports:read');
  expect(one['x-required-scope']).toBe('reports:read');
  expect(usage.parameters).toEqual([expect.objectContaining({ name: 'month', in: 'query', required: false })]);
  expect(Object.keys(one.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '429']));
  expect(one.responses['200'].content['application/json'].schema.required).toContain('languages');
  expect(doc.paths['/api/v1/campaigns/{id}'].get.responses['200'].content['application/json'].schema.properties).toHaveProperty(
    'report_id',
  );
});
