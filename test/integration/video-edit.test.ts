/**
 * Editing a video (decisions §12), as an integrator does it with the typed client, on real PostgreSQL,
 * Chromium, the voices, editly and ffmpeg: read the document, change one scene's narration and headline and remove
 * another, PUT it; the video renders at revision 2 while revision 1 keeps being served (its render waiting for a render
 * turn while another organization holds every slot); one speech engine run (the other scenes keep their audio);
 * `video.updated` arrives signed; the new captions say the new words, the removed scene's are gone, and a frame of the
 * edited scene shows its new headline (tesseract reads it). Then the refusals
 * (400 naming the field, 409 stale or not in review or still rendering, 404, 429 after 30 edits a day), no quota
 * drawn, and a re-render that fails: the previous revision stays, with the reason on the video.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCampaignClient, verifyWebhook, type VideoDocument } from '../../clients/typescript/src';
import type { SpeechProvider } from '../../lib/voice/speech';
import { webhookReceivers } from '../fixtures/webhook-receiver';
import { untilSettled } from '../support/campaign-run';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { readWords } from '../support/ocr';
import { waitFor } from '../support/wait';

const run = promisify(execFile);
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
let customer: { orgId: string; key: string };
let secret: string;
let campaignId: string;
let videoId: string;
let workDir: string;
const receivers = webhookReceivers();
let hook: Awaited<ReturnType<typeof receivers.start>>;
/** Every speech engine run of the voice stage, counted as it happens (the real provider, wrapped). */
const engineRuns: string[] = [];

const documentPath = (id: string, video: string) => `/api/v1/campaigns/${id}/videos/${video}/document`;
const local = (url: string) => url.replace(h.config.publicBaseUrl, h.baseUrl);

beforeAll(async () => {
  h = await startHarness({
    render: 'worker',
    config: { ...CHECK_NOT_THE_SUBJECT, rateLimits: limits, videoTargetSeconds: 20, captureMaxShots: 4 },
  });
  customer = await h.newCustomer('business');
  ({ secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: customer.orgId }));
  hook = await receivers.start();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'video-edit-'));
  const speech = (h.worker.getLocalService('voice') as unknown as { speech: SpeechProvider }).speech;
  const synthesize = speech.synthesize.bind(speech);
  speech.synthesize = (req) => {
    engineRuns.push(req.text);
    return synthesize(req);
  };
  const created = await h.request('POST', '/api/v1/campaigns', {
    key: customer.key,
    body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'], webhook_url: hook.url },
  });
  expect(created.status).toBe(201);
  campaignId = created.body.campaign_id;
  const campaign = await untilSettled(h, campaignId, customer.key);
  expect(campaign.status).toBe('review');
  videoId = campaign.videos[0].id;
}, 300_000);
afterAll(async () => {
  await receivers.closeAll();
  await h?.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
});

/** A WebVTT file's cue text, in order, tags gone. */
function cueText(vtt: string): string {
  return vtt
    .split(/\r?\n\r?\n/)
    .slice(1)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((line) => line.trim() && !line.includes('-->') && !/^\d+$/.test(line.trim()))
        .join(' '),
    )
    .join(' ')
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

async function videoOf(key = customer.key) {
  const res = await h.request('GET', `/api/v1/campaigns/${campaignId}`, { key });
  return res.body.videos.find((v: { id: string }) => v.id === videoId);
}

async function usedThisMonth(): Promise<number> {
  const usage = await h.request('GET', '/api/v1/reports/usage', { key: customer.key });
  return usage.body.used;
}

/**
 * Another organization's campaign holding every render slot of the cluster (one turn heavier than any capacity; its
 * actor elsewhere, alive), until released.
 */
async function holdRenderSlots() {
  const other = await h.newCustomer('business');
  const id = crypto.randomUUID();
  await h.sql(
    `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, progress, quota_period, status_changed_at,
       deadline_at, lease_owner, lease_expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, 'rendering', 'https://acme.io/', 'acme.io', '["en"]', '["tiktok"]', 50, to_char(now(), 'YYYY-MM'), now(),
       now() + interval '1 hour', 'elsewhere', now() + interval '1 hour', now(), now())`,
    [id, other.orgId, crypto.randomUUID()],
  );
  // Its express turn too (lib/campaign/fair-order.ts pickExpress), which a single campaign's edit would otherwise take.
  await h.sql(
    `INSERT INTO stage_turns (campaign_id, stage, lane, org_id, weight, age_ms, queued_ms, granted_ms, holder, lease_expires_ms, express)
     VALUES ($1, 'rendering', '', $2, 1000, 0, 0, 0, 'elsewhere', $3, false), ($1, 'rendering', 'express', $2, 1, 0, 0, 0, 'elsewhere', $3, true)`,
    [id, other.orgId, Date.now() + 3_600_000],
  );
  return {
    release: async () => {
      await h.sql('DELETE FROM stage_turns WHERE campaign_id = $1', [id]);
      await h.sql("UPDATE campaigns SET status = 'failed', error_code = 'canceled', lease_owner = NULL WHERE id = $1", [id]);
    },
  };
}

const NEW_NARRATION = 'Edited line: the zebra dashboard shows every order as it ships.';
const NEW_HEADLINE = 'ZEBRA DASHBOARD';

test('the typed client reads the document, changes one scene and removes another; one engine run, video.updated, new words in captions and frame', async () => {
  const client = createCampaignClient({ baseUrl: h.baseUrl, apiKey: customer.key });
  const read = await client.GET('/api/v1/campaigns/{id}/videos/{video_id}/document', {
    params: { path: { id: campaignId, video_id: videoId } },
  });
  const document = read.data!.document;
  expect(document.revision).toBe(1);
  const screens = document.scenes.filter((s) => s.kind === 'screen');
  expect(screens.length).toBeGreaterThanOrEqual(2);
  const [edited, removed] = screens;
  const before = await videoOf();
  const quotaBefore = await usedThisMonth();

  const changed: VideoDocument = {
    ...document,
    scenes: document.scenes
      .filter((s) => s.id !== removed.id)
      .map((s) => (s.id === edited.id ? { ...s, narration: NEW_NARRATION, headline: NEW_HEADLINE } : s)),
  };
  engineRuns.length = 0;
  const slots = await holdRenderSlots();
  const put = await client.PUT('/api/v1/campaigns/{id}/videos/{video_id}/document', {
    params: { path: { id: campaignId, video_id: videoId } },
    body: changed,
  });
  expect(put.response.status).toBe(202);
  expect(put.data!.video).toMatchObject({ id: videoId, status: 'rendering', revision: 2, file_revision: 1, error: null });
  // The previous revision keeps being served while the new one renders.
  expect(put.data!.video.file_url).toEqual(expect.any(String));
  const served = await fetch(local(put.data!.video.file_url!));
  expect(served.status).toBe(200);
  const previousEtag = served.headers.get('etag')!;
  expect(Buffer.from(await served.arrayBuffer()).length).toBeGreaterThan(10_000);
  // A second edit meanwhile is refused: the first is still being made.
  const meanwhile = await client.PUT('/api/v1/campaigns/{id}/videos/{video_id}/document', {
    params: { path: { id: campaignId, video_id: videoId } },
    body: { ...changed, revision: 2 },
  });
  expect(meanwhile.response.status).toBe(409);
  expect(JSON.stringify(meanwhile.error)).toMatch(/still being made/);
  // Its render waits for a render turn like a campaign's (decisions §14), its organization's, while another holds every slot.
  const editTurn = async () =>
    (
      await h.sql<{ org_id: string; granted_ms: string | null }>(
        "SELECT org_id, granted_ms FROM stage_turns WHERE campaign_id = $1 AND stage = 'rendering' AND lane = $2",
        [campaignId, videoId],
      )
    )[0];
  const waiting = await waitFor(
    async () => ({ turn: await editTurn(), video: await videoOf() }),
    (seen) => seen.turn !== undefined || seen.video.status !== 'rendering',
    120_000,
    100,
  );
  try {
    expect(waiting.turn).toEqual({ org_id: customer.orgId, granted_ms: null });
    expect(waiting.video).toMatchObject({ status: 'rendering', revision: 2, file_revision: 1 });
  } finally {
    await slots.release();
  }

  const ready = await waitFor(videoOf, (v) => v.status === 'ready' && v.revision === 2, 180_000, 500);
  expect(ready).toMatchObject({ revision: 2, file_revision: 2, error: null });
  expect(ready.file_url).not.toBe(before.file_url);
  // A player resuming revision 1's download (If-Range: its ETag) gets revision 2 whole, never bytes of both spliced.
  const resumed = await fetch(local(ready.file_url), { headers: { Range: 'bytes=1000-', 'If-Range': previousEtag } });
  expect(resumed.status).toBe(200);
  expect(resumed.headers.get('etag')).not.toBe(previousEtag);
  await resumed.arrayBuffer();
  // One scene changed: one engine run; the others kept their audio.
  expect(engineRuns).toEqual([NEW_NARRATION]);
  // No quota drawn.
  expect(await usedThisMonth()).toBe(quotaBefore);

  // video.updated, signed like the campaign's events, its own event id.
  const delivery = await waitFor(
    async () => hook.received.find((r) => JSON.parse(r.body).event === 'video.updated'),
    (r) => r !== undefined,
    15_000,
    100,
  );
  const event = verifyWebhook({ headers: delivery!.headers, rawBody: delivery!.body }, secret);
  expect(event).toMatchObject({ event: 'video.updated', campaign_id: campaignId, revision: 2, video: { id: videoId, status: 'ready' } });
  const completed = hook.received.find((r) => JSON.parse(r.body).event === 'campaign.completed')!;
  expect(delivery!.headers['x-service-event-id']).not.toBe(completed.headers['x-service-event-id']);

  // Settled once: a second settle of the same edit (a node whose lease lapsed, finishing late) changes nothing.
  const [editRow] = await h.sql<{ id: string; status: string }>('SELECT id, status FROM video_edits WHERE video_id = $1 AND revision = 2', [
    videoId,
  ]);
  expect(editRow.status).toBe('ready');
  const actor = h.worker.getLocalService('campaigns') as unknown as {
    settleEdit(id: string, outcome: { error: { code: string; message: string } }): Promise<void>;
  };
  await actor.settleEdit(editRow.id, { error: { code: 'render_failed', message: 'late' } });
  expect(await videoOf()).toMatchObject({ status: 'ready', revision: 2, file_revision: 2, error: null });
  const events = await h.sql("SELECT event_id FROM campaign_webhook_events WHERE event_type = 'video.updated' AND campaign_id = $1", [
    campaignId,
  ]);
  expect(events).toEqual([{ event_id: `evt_${editRow.id}` }]);

  // The document at revision 2: the scenes as edited, the removed one gone, ids kept.
  const after = (await h.request('GET', documentPath(campaignId, videoId), { key: customer.key })).body.document as VideoDocument;
  expect(after.revision).toBe(2);
  expect(after.scenes.map((s) => s.id)).toEqual(changed.scenes.map((s) => s.id));
  const scene = after.scenes.find((s) => s.id === edited.id)!;
  expect(scene).toMatchObject({ narration: NEW_NARRATION, headline: NEW_HEADLINE });

  // The captions say the new words, and no longer the removed scene's.
  const vtt = cueText(await (await fetch(local(ready.captions_url))).text());
  expect(vtt).toContain('zebra dashboard shows every order');
  expect(vtt).not.toContain(removed.narration.slice(0, 40));
  expect(vtt).not.toContain(edited.narration.slice(0, 40));

  // A frame in the middle of the edited scene shows its new headline.
  const file = path.join(workDir, 'edited.mp4');
  fs.writeFileSync(file, Buffer.from(await (await fetch(local(ready.file_url))).arrayBuffer()));
  const frame = path.join(workDir, 'edited.png');
  const at = scene.start_seconds + scene.duration_seconds * 0.6;
  await run('ffmpeg', ['-v', 'error', '-y', '-ss', at.toFixed(2), '-i', file, '-frames:v', '1', frame]);
  const words = (await readWords(frame, 'eng', { scales: [1, 2] })).map((w) => w.text.toUpperCase());
  expect(words.join(' ')).toMatch(/ZEBRA/);
}, 300_000);

test('refusals: 400 naming the field, 409 stale or out of review, 404 foreign or unknown, 429 after 30 edits a day', async () => {
  const read = await h.request('GET', documentPath(campaignId, videoId), { key: customer.key });
  const document = read.body.document as VideoDocument;
  const put = (body: unknown, key = customer.key, video = videoId) => h.request('PUT', documentPath(campaignId, video), { key, body });
  const screenAt = document.scenes.findIndex((s) => s.kind === 'screen');
  const withScene = (change: Record<string, unknown>) => ({
    ...document,
    scenes: document.scenes.map((s, i) => (i === screenAt ? { ...s, ...change } : s)),
  });

  const cases: Array<[string, unknown, RegExp]> = [
    ['an unknown member', { ...document, soundtrack: 'loud' }, /soundtrack/],
    ['a screen not of this campaign', withScene({ screen: 'source-desktop-99' }), new RegExp(`scenes\\[${screenAt}\\]\\.screen`)],
    ['an empty narration on a screen scene', withScene({ narration: '  ' }), new RegExp(`scenes\\[${screenAt}\\]\\.narration`)],
    ['text over its limit', withScene({ headline: 'x'.repeat(201) }), /headline/],
    ['a closing not last', { ...document, scenes: [...document.scenes].reverse().slice(0, -1) }, /closing|title/],
    ['a read-only member changed', { ...document, language: 'ja' }, /language/],
    ["another language's voice", { ...document, voice: { ...document.voice, id: 'ja-openjtalk-mei' } }, /voice\.id/],
    [
      'thirteen scenes',
      { ...document, scenes: Array.from({ length: 13 }, (_, i) => ({ ...document.scenes[screenAt], id: `s${i}` })) },
      /scenes/,
    ],
  ];
  for (const [what, body, field] of cases) {
    const res = await put(body);
    expect({ what, status: res.status, code: res.body.error?.code }).toEqual({ what, status: 400, code: 'invalid_input' });
    expect(res.body.error.message).toMatch(field);
  }

  const stale = await put({ ...document, revision: 1 });
  expect(stale.status).toBe(409);
  expect(stale.body.error.message).toMatch(/revision 2/);

  const other = await h.newCustomer('business');
  expect((await put(document, other.key)).status).toBe(404);
  expect((await put(document, customer.key, crypto.randomUUID())).status).toBe(404);
  const reader = await h.newCustomer('business', ['campaigns:read']);
  expect((await put(document, reader.key)).status).toBe(403);

  // 30 accepted edits in the last 24 hours (recorded as the actor records them), then 429 with Retry-After.
  for (let n = 0; n < 30; n += 1) {
    await h.sql(
      `INSERT INTO video_edits (id, video_id, campaign_id, revision, base_revision, status, document, created_at, updated_at, finished_at)
       VALUES ($1, $2, $3, 2, 1, 'ready', '{}', now() - ($4 || ' minutes')::interval, now(), now())`,
      [crypto.randomUUID(), videoId, campaignId, String(60 * 23 - n)],
    );
  }
  const limited = await put(document);
  expect(limited.status).toBe(429);
  expect(limited.body.error).toMatchObject({ code: 'rate_limited', details: { limit: 30, retry_after_seconds: expect.any(Number) } });
  const retryAfter = Number(limited.headers.get('retry-after'));
  // The oldest of the 30 (23 hours ago, the first one inserted) leaves the window in about an hour.
  expect(retryAfter).toBeGreaterThan(55 * 60);
  expect(retryAfter).toBeLessThanOrEqual(61 * 60);
  await h.sql('DELETE FROM video_edits WHERE video_id = $1 AND document::text = $2', [videoId, '{}']);

  // Published: out of review, no more edits.
  const published = await h.request('POST', `/api/v1/campaigns/${campaignId}/publish`, { key: customer.key });
  expect(published.status).toBe(200);
  const late = await put(document);
  expect(late.status).toBe(409);
  expect(late.body.error.message).toMatch(/review/);
  await h.sql(`UPDATE campaigns SET status = 'review' WHERE id = $1`, [campaignId]);
}, 120_000);

test('a re-render that fails leaves the previous revision in place, with the reason on the video and in video.updated', async () => {
  const document = (await h.request('GET', documentPath(campaignId, videoId), { key: customer.key })).body.document as VideoDocument;
  const shown = new Set(document.scenes.flatMap((s) => (s.screen ? [s.screen] : [])));
  const spare = document.assets.screens.find((s) => !shown.has(s.id))!;
  expect(spare).toBeDefined();
  // The screenshot's stored file is lost (overwritten with bytes no decoder reads).
  const stored = path.join(h.config.dataDir, 'files', 'campaigns', campaignId, 'capture', `${spare.id}.png`);
  expect(fs.existsSync(stored)).toBe(true);
  fs.writeFileSync(stored, Buffer.from('not a png at all'));
  const before = await videoOf();
  const eventsBefore = hook.received.length;

  const screenAt = document.scenes.findIndex((s) => s.kind === 'screen');
  const res = await h.request('PUT', documentPath(campaignId, videoId), {
    key: customer.key,
    body: { ...document, scenes: document.scenes.map((s, i) => (i === screenAt ? { ...s, screen: spare.id } : s)) },
  });
  expect(res.status).toBe(202);
  expect(res.body.video).toMatchObject({ status: 'rendering', revision: 3, file_revision: 2 });
  const failed = await waitFor(videoOf, (v) => v.status === 'ready' && v.error !== null, 240_000, 500);
  expect(failed).toMatchObject({ revision: 2, file_revision: 2, error: { code: 'render_failed', message: expect.any(String) } });
  expect(failed.file_url).toEqual(expect.any(String));
  expect((await fetch(local(failed.file_url))).status).toBe(200);
  expect(before.duration_seconds).toBe(failed.duration_seconds);
  const delivery = await waitFor(
    async () => hook.received.slice(eventsBefore).find((r) => JSON.parse(r.body).event === 'video.updated'),
    (r) => r !== undefined,
    15_000,
    100,
  );
  expect(JSON.parse(delivery!.body)).toMatchObject({ revision: 3, video: { revision: 2, error: { code: 'render_failed' } } });
  // The document is revision 2's still, and the next edit is made from it.
  const again = (await h.request('GET', documentPath(campaignId, videoId), { key: customer.key })).body.document as VideoDocument;
  expect(again.revision).toBe(2);
}, 300_000);
