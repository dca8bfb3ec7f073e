/**
 * POST /api/v1/campaigns/{id}/cancel (decisions §11) on real PostgreSQL, Redis, Chromium and editly: a generating
 * campaign becomes failed with `canceled`, its quota comes back, `campaign.failed` says why; review, published and
 * failed campaigns answer 409, foreign and unknown ids 404. Over the Redis transporter, a render in flight on a
 * render node of its own (a process started as operators start one) stops: its editly and ffmpeg processes end.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { startHarness, type Harness } from '../support/harness';
import { startRenderNode, waitForRenderers, type RenderNode } from '../support/render-node';
import { waitFor } from '../support/wait';

// Generous: these tests are about the pipeline, not the limiter (whose Redis deadline a loaded CI machine can miss).
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

async function usedThisMonth(h: Harness, orgId: string): Promise<number> {
  const rows = await h.sql("SELECT used FROM usage_counters WHERE org_id = $1 AND period = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')", [
    orgId,
  ]);
  return Number(rows[0]?.used ?? 0);
}

describe('in one process', () => {
  let h: Harness;
  let customer: { orgId: string; key: string };
  let secret: string;
  let hook: WebhookReceiver;

  beforeAll(async () => {
    h = await startHarness({ render: 'worker', config: { rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 2 } });
    customer = await h.newCustomer('business');
    ({ secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: customer.orgId }));
    hook = await startWebhookReceiver();
  }, 120_000);
  afterAll(async () => {
    await hook?.close();
    await h?.stop();
  });

  test('a generating campaign: 200 failed/canceled, videos failed, quota refunded, campaign.failed says why, and it stays failed', async () => {
    const before = await usedThisMonth(h, customer.orgId);
    const created = await h.request('POST', '/api/v1/campaigns', {
      key: customer.key,
      body: { url: h.pageUrl, languages: ['en', 'ja'], webhook_url: hook.url },
    });
    expect(created.status).toBe(201);
    const id = created.body.campaign_id as string;
    expect(await usedThisMonth(h, customer.orgId)).toBe(before + 1);

    const canceled = await h.request('POST', `/api/v1/campaigns/${id}/cancel`, { key: customer.key });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({
      success: true,
      campaign_id: id,
      status: 'failed',
      error: { code: 'canceled', message: 'Canceled by the customer.' },
    });
    expect(canceled.body.videos.map((v: { status: string }) => v.status)).toEqual(['failed', 'failed']);
    expect(await usedThisMonth(h, customer.orgId)).toBe(before);

    await waitFor(
      async () => hook.received.length,
      (n) => n >= 1,
      15_000,
      100,
    );
    const delivered = hook.received[0];
    expect(verifyWebhook(delivered, secret)).toBe(true);
    expect(JSON.parse(delivered.body)).toMatchObject({
      event: 'campaign.failed',
      campaign_id: id,
      status: 'failed',
      error: { code: 'canceled', message: 'Canceled by the customer.' },
    });

    // The stage that was running when it was canceled ends without moving the campaign on or failing it again.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const read = await h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key });
    expect(read.body).toEqual(canceled.body);
    const events = await h.sql('SELECT from_status, to_status, detail FROM campaign_events WHERE campaign_id = $1 ORDER BY id', [id]);
    expect(events.at(-1)).toMatchObject({ to_status: 'failed', detail: 'canceled by the customer' });
    expect(events.filter((e) => e.to_status === 'failed')).toHaveLength(1);
    expect(hook.received).toHaveLength(1);
  }, 120_000);

  test('409 once it is not generating (failed, review, published); 404 for an unknown or foreign id; 403 without campaigns:create', async () => {
    const created = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl } });
    const id = created.body.campaign_id as string;
    expect((await h.request('POST', `/api/v1/campaigns/${id}/cancel`, { key: customer.key })).status).toBe(200);
    const again = await h.request('POST', `/api/v1/campaigns/${id}/cancel`, { key: customer.key });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      success: false,
      error: { code: 'conflict', message: 'Only a generating campaign can be canceled; this one is failed.' },
    });
    for (const status of ['review', 'published']) {
      const other = crypto.randomUUID();
      await h.sql(
        `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, progress, quota_period, status_changed_at, deadline_at, created_at, updated_at)
        VALUES ($1, $2, $1, $3, 'https://acme.example/', 'acme.example', '["en"]', '["tiktok"]', 100, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'), now(),
        now() + interval '30 minutes', now(), now())`,
        [other, customer.orgId, status],
      );
      const res = await h.request('POST', `/api/v1/campaigns/${other}/cancel`, { key: customer.key });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain(`this one is ${status}`);
    }
    expect((await h.request('POST', `/api/v1/campaigns/${crypto.randomUUID()}/cancel`, { key: customer.key })).status).toBe(404);
    expect((await h.request('POST', '/api/v1/campaigns/not-an-id/cancel', { key: customer.key })).status).toBe(404);
    const foreign = await h.newCustomer('business');
    const theirs = await h.request('POST', '/api/v1/campaigns', { key: foreign.key, body: { url: h.pageUrl } });
    expect((await h.request('POST', `/api/v1/campaigns/${theirs.body.campaign_id}/cancel`, { key: customer.key })).status).toBe(404);
    // The scope is checked before the id is looked at.
    const reader = await h.newCustomer('business', ['campaigns:read']);
    expect((await h.request('POST', `/api/v1/campaigns/${crypto.randomUUID()}/cancel`, { key: reader.key })).status).toBe(403);
    // Theirs goes on: a refused cancel changed nothing.
    const still = await h.request('GET', `/api/v1/campaigns/${theirs.body.campaign_id}`, { key: foreign.key });
    expect(still.body.status).not.toBe('failed');
    const doc = await h.request('GET', '/api/v1/openapi.json', { key: customer.key });
    const operation = doc.body.paths['/api/v1/campaigns/{id}/cancel'].post;
    expect(operation['x-required-scope']).toBe('campaigns:create');
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '409']));
  }, 120_000);
});

describe('over Redis, with a render node of its own', () => {
  let h: Harness;
  let node: RenderNode | undefined;

  beforeAll(async () => {
    h = await startHarness({
      transport: 'redis',
      render: 'dispatcher',
      config: { rateLimits: limits, renderQuality: 'full', videoTargetSeconds: 25, captureMaxShots: 3 },
    });
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
    await h?.stop();
  });

  /** The node's editly children and ffmpeg processes still running. */
  function renderProcesses(rendering: RenderNode): number[] {
    return rendering.leftovers().filter((pid) => {
      try {
        const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return command.includes('editly-child') || command.split('\0')[0].endsWith('ffmpeg');
      } catch {
        return false;
      }
    });
  }

  test('a render in flight on another node stops: its editly and ffmpeg processes end, the attempt is recorded canceled', async () => {
    node = startRenderNode(h, `${h.config.namespace}-render-a`);
    await waitForRenderers(h);
    const { key } = await h.newCustomer('business');
    const created = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, languages: ['en', 'ja'] } });
    expect(created.status).toBe(201);
    const id = created.body.campaign_id as string;
    const rendering = node;
    // Wait until the node really renders: its editly child and ffmpeg are at work.
    await waitFor(
      async () => renderProcesses(rendering).length,
      (n) => n >= 2,
      240_000,
      100,
    );
    const canceledAt = Date.now();
    const res = await h.request('POST', `/api/v1/campaigns/${id}/cancel`, { key });
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe('canceled');
    await waitFor(
      async () => renderProcesses(rendering).length,
      (n) => n === 0,
      10_000,
      50,
    );
    const stoppedAfterMs = Date.now() - canceledAt;
    // Its slot is given back once the render's promise settles (work directory removed), a moment after.
    const status = await waitFor(
      () => h.worker.call<{ busy: number }, Record<string, never>>('renderer.status', {}, { nodeID: rendering.nodeID }),
      (s) => s.busy === 0,
      5_000,
      50,
    );
    expect(status.busy).toBe(0);
    console.log(`cancel test: the render node's editly and ffmpeg ended ${stoppedAfterMs} ms after the cancel call was sent`);
    const attempts = await waitFor(
      () => h.sql("SELECT video_id, node_id, outcome FROM render_attempts WHERE campaign_id = $1 AND outcome <> 'busy' ORDER BY id", [id]),
      (rows) => rows.length > 0 && rows.every((row) => row.outcome !== 'rendering'),
      10_000,
      100,
    );
    expect(attempts.map((a) => a.outcome)).toContain('canceled');
    expect(attempts.some((a) => a.outcome === 'ready')).toBe(false);
    // No other video is sent to the node afterwards.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(renderProcesses(rendering)).toEqual([]);
    const after = await h.sql("SELECT count(*)::int AS n FROM render_attempts WHERE campaign_id = $1 AND outcome <> 'busy'", [id]);
    expect(after[0].n).toBe(attempts.length);
    const read = await h.request('GET', `/api/v1/campaigns/${id}`, { key });
    expect(read.body).toMatchObject({ status: 'failed', error: { code: 'canceled' } });
    expect(read.body.videos.every((v: { status: string }) => v.status === 'failed')).toBe(true);
  }, 400_000);
});
