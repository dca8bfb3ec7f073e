/**
 * The video document (decisions §12): a campaign through the real pipeline (PostgreSQL, Chromium, the
 * voices, editly) to review, then GET /api/v1/campaigns/{id}/videos/{video_id}/document: valid against the schema the
 * API publishes, its scenes saying what the captions file says, its screens among the campaign's screenshots, each
 * screenshot's signed link a PNG (and a tampered one 403); scoped like GET (404 foreign, 403 without campaigns:read);
 * 409 before the video's narration is recorded.
 */
import crypto from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { runCampaign } from '../support/campaign-run';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
let customer: { orgId: string; key: string };
let campaignId: string;
let video: { id: string; captions_url: string };

/** The links carry the public base URL; the test reaches the same gateway on its own port. */
const local = (url: string) => url.replace(h.config.publicBaseUrl, h.baseUrl);
const documentPath = (id: string, videoId: string) => `/api/v1/campaigns/${id}/videos/${videoId}/document`;

beforeAll(async () => {
  h = await startHarness({
    render: 'worker',
    config: { ...CHECK_NOT_THE_SUBJECT, rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 2 },
  });
  customer = await h.newCustomer('business');
  const run = await runCampaign(h, customer.key, { languages: ['en'], platforms: ['tiktok'], quality: 'draft' });
  campaignId = run.id;
  expect(run.campaign.status).toBe('review');
  const [first] = run.campaign.videos;
  video = { id: first.id, captions_url: String(first.captions_url) };
}, 300_000);
afterAll(async () => h?.stop());

/** A WebVTT file's cue text, in order, tags and line breaks gone. */
function cueText(vtt: string): string {
  return vtt
    .split(/\r?\n\r?\n/)
    .slice(1)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((line) => line.trim() && !line.includes('-->') && !/^\d+$/.test(line.trim()) && !/^NOTE\b/.test(line))
        .join(' '),
    )
    .join(' ')
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

test("the document validates against the published schema; its scenes say the captions' words; its screens are the campaign's", async () => {
  const schemaRes = await h.request('GET', '/api/v1/schemas/universal-video-json.json', { key: customer.key });
  expect(schemaRes.status).toBe(200);
  expect(schemaRes.body).toMatchObject({ type: 'object', properties: { format: { const: 'universal-video-json' } } });
  // The same schema is in the OpenAPI document.
  const openapi = await h.request('GET', '/api/v1/openapi.json', { key: customer.key });
  const { $schema: _s, title: _t, description: _d, ...schemaBody } = schemaRes.body;
  expect(openapi.body.components.schemas.UniversalVideoJson).toEqual(schemaBody);
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  const validate = ajv.compile(schemaRes.body);

  const res = await h.request('GET', documentPath(campaignId, video.id), { key: customer.key });
  expect(res.status).toBe(200);
  expect(res.body.success).toBe(true);
  const document = res.body.document;
  expect(validate(document)).toBe(true);
  expect(validate.errors ?? []).toEqual([]);
  expect(document).toMatchObject({
    format: 'universal-video-json',
    format_version: '0.1',
    revision: 1,
    campaign_id: campaignId,
    video_id: video.id,
    language: 'en',
    platform: 'tiktok',
    frame: { width: 1080, height: 1920, fps: 25 },
    quality: 'draft',
    captions: 'burned',
  });
  // Scenes in order: a title, screens, a closing; ids as the voice stage stored them; times that meet.
  const kinds = document.scenes.map((s: { kind: string }) => s.kind);
  expect(kinds[0]).toBe('title');
  expect(kinds.at(-1)).toBe('closing');
  expect(kinds.slice(1, -1).every((k: string) => k === 'screen')).toBe(true);
  expect(document.scenes.map((s: { id: string }) => s.id)).toEqual(document.scenes.map((_: unknown, i: number) => `scene_${i}`));
  let start = 0;
  for (const s of document.scenes) {
    expect(s.start_seconds).toBeCloseTo(start, 3);
    expect(s.duration_seconds).toBeGreaterThan(0);
    start = s.start_seconds + s.duration_seconds;
  }

  // The narration is what the captions file says, in order.
  const vtt = await (await fetch(local(video.captions_url))).text();
  const narration = document.scenes
    .map((s: { narration: string }) => s.narration)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  expect(narration.length).toBeGreaterThan(20);
  expect(cueText(vtt)).toBe(narration);

  // Every screen shown is one of the campaign's screenshots, and each screenshot's link is a PNG.
  const screens: Array<{ id: string; url: string; width: number; height: number; viewport: string }> = document.assets.screens;
  expect(screens.length).toBeGreaterThanOrEqual(2);
  expect(new Set(screens.map((s) => s.id)).size).toBe(screens.length);
  const ids = new Set(screens.map((s) => s.id));
  for (const s of document.scenes.filter((x: { kind: string }) => x.kind === 'screen')) expect(ids.has(s.screen)).toBe(true);
  const shown = screens.find((s) => s.id === document.scenes[1].screen)!;
  const png = await fetch(local(shown.url));
  expect(png.status).toBe(200);
  expect(png.headers.get('content-type')).toBe('image/png');
  const bytes = Buffer.from(await png.arrayBuffer());
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(bytes.readUInt32BE(16)).toBe(shown.width);
  expect(bytes.readUInt32BE(20)).toBe(shown.height);

  // A link altered in its signature, or pointed at another screenshot, opens nothing.
  const url = new URL(local(shown.url));
  const other = screens.find((s) => s.id !== shown.id)!;
  const tampered = new URL(url);
  tampered.searchParams.set('signature', 'f'.repeat(64));
  const moved = new URL(url);
  moved.pathname = moved.pathname.replace(`${shown.id}.png`, `${other.id}.png`);
  for (const link of [tampered, moved]) {
    const refused = await fetch(link);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ success: false, error: { code: 'forbidden', message: expect.any(String) } });
  }

  // Read again: the same scenes, ids and screens (only the links' expiry may move).
  const again = await h.request('GET', documentPath(campaignId, video.id), { key: customer.key });
  const strip = (d: typeof document) => ({
    ...d,
    assets: { screens: d.assets.screens.map((s: { url: string }) => ({ ...s, url: undefined })) },
  });
  expect(strip(again.body.document)).toEqual(strip(document));
});

test('scoped like GET: another organization 404, a key without campaigns:read 403, an unknown or malformed video 404', async () => {
  const other = await h.newCustomer('business');
  const foreign = await h.request('GET', documentPath(campaignId, video.id), { key: other.key });
  expect(foreign.status).toBe(404);
  expect(foreign.body).toEqual({ success: false, error: { code: 'not_found', message: expect.any(String) } });

  const writer = await h.newCustomer('business', ['campaigns:create']);
  // Its own campaign, even: the scope is checked before anything is read.
  const writerCampaign = crypto.randomUUID();
  await h.sql(
    `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, progress, quota_period, status_changed_at, deadline_at, created_at, updated_at)
     VALUES ($1, $2, $3, 'collecting', 'https://acme.io/', 'acme.io', '["en"]', '["tiktok"]', 0, to_char(now(), 'YYYY-MM'), now(), now() + interval '1 hour', now(), now())`,
    [writerCampaign, writer.orgId, crypto.randomUUID()],
  );
  const noScope = await h.request('GET', documentPath(writerCampaign, crypto.randomUUID()), { key: writer.key });
  expect(noScope.status).toBe(403);
  expect(noScope.body.error.code).toBe('forbidden');

  for (const videoId of [crypto.randomUUID(), 'not-a-uuid']) {
    const unknown = await h.request('GET', documentPath(campaignId, videoId), { key: customer.key });
    expect(unknown.status).toBe(404);
  }
  // A video of another campaign, asked under this one.
  const { orgId } = customer;
  const otherCampaign = crypto.randomUUID();
  await h.sql(
    `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, progress, quota_period, status_changed_at, deadline_at, created_at, updated_at)
     VALUES ($1, $2, $3, 'collecting', 'https://acme.io/', 'acme.io', '["en"]', '["tiktok"]', 0, to_char(now(), 'YYYY-MM'), now(), now() + interval '1 hour', now(), now())`,
    [otherCampaign, orgId, crypto.randomUUID()],
  );
  expect((await h.request('GET', documentPath(otherCampaign, video.id), { key: customer.key })).status).toBe(404);
});

test('409 conflict before the video has a document (its narration not recorded yet)', async () => {
  const id = crypto.randomUUID();
  const videoId = crypto.randomUUID();
  await h.sql(
    `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, progress, quota_period, status_changed_at, deadline_at, created_at, updated_at)
     VALUES ($1, $2, $3, 'scripting', 'https://acme.io/', 'acme.io', '["en"]', '["tiktok"]', 30, to_char(now(), 'YYYY-MM'), now(), now() + interval '1 hour', now(), now())`,
    [id, customer.orgId, crypto.randomUUID()],
  );
  await h.sql(
    `INSERT INTO videos (id, campaign_id, language, platform, status, created_at, updated_at) VALUES ($1, $2, 'en', 'tiktok', 'queued', now(), now())`,
    [videoId, id],
  );
  const res = await h.request('GET', documentPath(id, videoId), { key: customer.key });
  expect(res.status).toBe(409);
  expect(res.body).toEqual({ success: false, error: { code: 'conflict', message: expect.stringContaining('scripting') } });
});
