/**
 * Creative options on create (decisions §11) through the real pipeline (PostgreSQL, Chromium, the
 * voices, editly): captions as files only, draft quality and a brand colour reach the video as rendered; metadata
 * is echoed by GET, the list and the webhook; bad values are 400 naming the field.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { webhookReceivers } from '../fixtures/webhook-receiver';
import { runCampaign } from '../support/campaign-run';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

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

// Asynchronous: the gateway that serves the file runs in this process, and a synchronous child would block it.
const run = promisify(execFile);

/** The frame at `seconds` of a video, as 8-bit RGB pixels. */
async function frameRgb(url: string, seconds: number, width: number, height: number): Promise<Buffer> {
  const { stdout } = await run(
    'ffmpeg',
    ['-v', 'error', '-ss', String(seconds), '-i', url, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
  );
  expect(stdout.length).toBe(width * height * 3);
  return stdout;
}

test('captions file_only, draft quality and a brand colour shape the video; metadata comes back in GET, the list and the webhook', async () => {
  const hook = await receivers.start();
  const metadata = { crm_id: 'opp_0042', 'utm campaign': 'fall – 秋', empty: '' };
  const created = await h.request('POST', '/api/v1/campaigns', {
    key: customer.key,
    body: {
      url: h.pageUrl,
      // fr: no page of its own and no translator, so its video is narrated in English and says so.
      languages: ['en', 'fr'],
      platforms: ['tiktok'],
      webhook_url: hook.url,
      captions: 'file_only',
      quality: 'draft',
      brand: { primary_color: '#FF5500' },
      metadata,
    },
  });
  expect(created.status).toBe(201);
  const id = created.body.campaign_id;
  const echoed = { captions: 'file_only', quality: 'draft', brand: { primary_color: '#ff5500' }, metadata };
  expect((await h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key })).body).toMatchObject(echoed);

  const done = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key }),
    (res) => ['review', 'failed'].includes(res.body.status),
    240_000,
    500,
  );
  expect(done.body).toMatchObject({ status: 'review', ...echoed });
  const listed = await h.request('GET', '/api/v1/campaigns?limit=1', { key: customer.key });
  expect(listed.body.campaigns[0]).toMatchObject({ campaign_id: id, ...echoed });

  // Draft: the TikTok frame at half its sides.
  const [video] = done.body.videos;
  // The links carry the public base URL; the test reaches the same gateway on its own port.
  const local = (url: string) => url.replace(h.config.publicBaseUrl, h.baseUrl);
  const { stdout: probed } = await run(
    'ffprobe',
    ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'json', local(video.file_url)],
    { timeout: 60_000 },
  );
  const probe = JSON.parse(probed);
  expect(probe.streams[0]).toEqual({ width: 540, height: 960 });
  // The title card is in the brand colour asked for (a corner of the first second, well away from any text).
  const frame = await frameRgb(local(video.file_url), 0.5, 540, 960);
  const corner = [frame[(12 * 540 + 12) * 3], frame[(12 * 540 + 12) * 3 + 1], frame[(12 * 540 + 12) * 3 + 2]];
  expect(Math.abs(corner[0] - 0xff)).toBeLessThanOrEqual(12);
  expect(Math.abs(corner[1] - 0x55)).toBeLessThanOrEqual(12);
  expect(Math.abs(corner[2] - 0x00)).toBeLessThanOrEqual(12);
  // Files only: the storyboard the renderer drew from says so, and the caption files are still there.
  const [storyboard] = await h.sql<{ document: { captions?: string; quality?: string } }>(
    'SELECT document FROM storyboards WHERE video_id = $1',
    [video.id],
  );
  expect(storyboard.document).toMatchObject({ captions: 'file_only', quality: 'draft' });
  const srt = await fetch(local(video.captions_srt_url));
  expect(srt.status).toBe(200);
  expect((await srt.text()).length).toBeGreaterThan(20);

  await waitFor(
    async () => hook.received.length,
    (n) => n >= 1,
    15_000,
    100,
  );
  const sent = JSON.parse(hook.received[0].body);
  expect(sent).toMatchObject({ event: 'campaign.completed', campaign_id: id, metadata });
  // The webhook's videos are GET's, warnings included: none on en, the narration's language on fr.
  const warnings = (videos: Array<{ language: string; warnings: Array<{ code: string; message: string }> }>) =>
    Object.fromEntries(videos.map((v) => [v.language, v.warnings]));
  expect(warnings(sent.videos)).toEqual(warnings(done.body.videos));
  expect(warnings(sent.videos)).toEqual({
    en: [],
    fr: [{ code: 'narration_not_in_language', message: expect.stringMatching(/^No fr version of this page was found .*\(en\)/) }],
  });
}, 300_000);

test('without options nothing is echoed and the defaults apply; bad options are 400 naming the field, and nothing is created', async () => {
  const plain = await h.request('POST', '/api/v1/campaigns', {
    key: customer.key,
    body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'] },
  });
  expect(plain.status).toBe(201);
  const read = await h.request('GET', `/api/v1/campaigns/${plain.body.campaign_id}`, { key: customer.key });
  for (const field of ['captions', 'quality', 'brand', 'metadata']) expect(read.body).not.toHaveProperty(field);
  await h.request('POST', `/api/v1/campaigns/${plain.body.campaign_id}/cancel`, { key: customer.key });

  const [{ count: before }] = await h.sql<{ count: string }>('SELECT count(*) FROM campaigns WHERE org_id = $1', [customer.orgId]);
  const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ captions: 'none' }, /captions/],
    [{ quality: 'ultra' }, /quality/],
    [{ brand: { primary_color: 'red' } }, /primary_color/],
    [{ brand: { primary_color: '#ff550' } }, /primary_color/],
    [{ brand: {} }, /brand/],
    [{ brand: { primary_color: '#ff5500', logo_url: 'https://acme.example/logo.png' } }, /logo_url/],
    [{ brand: { logo_url: 'http://169.254.169.254/logo.png' } }, /logo_url.*public address/],
    [{ brand: { logo_url: 'ftp://acme.example/logo.png' } }, /logo_url/],
    [{ metadata: tooMany }, /metadata/],
    [{ metadata: { note: 'x'.repeat(501) } }, /metadata/],
    [{ metadata: { ['k'.repeat(501)]: 'v' } }, /metadata/],
    [{ metadata: { count: 3 } }, /metadata/],
    [{ metadata: ['a'] }, /metadata/],
    [{ voice: { en: 'festival' } }, /voice/],
    [{ voice: { en: 'ja-openjtalk-mei' } }, /voice/],
    [{ voice: { xx: 'en-espeak' } }, /voice/],
    [{ voice: {} }, /voice/],
    // A voice for a language the campaign does not speak (the default languages are en, ja, ko).
    [{ voice: { de: 'de-espeak' } }, /voice: "de" is not one of the campaign's languages/],
  ];
  for (const [extra, field] of cases) {
    const res = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl, ...extra } });
    expect({ extra, status: res.status, code: res.body.error?.code }).toEqual({ extra, status: 400, code: 'invalid_input' });
    expect(res.body.error.message).toMatch(field);
  }
  // A logo that is not an image is refused when the campaign is created, like a page that does not load.
  const notImage = await h.request('POST', '/api/v1/campaigns', {
    key: customer.key,
    body: { url: h.pageUrl, languages: ['en'], brand: { logo_url: h.pageUrl } },
  });
  expect({ status: notImage.status, code: notImage.body.error?.code }).toEqual({ status: 422, code: 'invalid_input' });
  expect(notImage.body.error.message).toMatch(/brand\.logo_url is not an image/);
  const [{ count: after }] = await h.sql<{ count: string }>('SELECT count(*) FROM campaigns WHERE org_id = $1', [customer.orgId]);
  expect(after).toBe(before);
});

test('a voice and a logo asked for: the narration is spoken by that voice, and the logo is drawn above the title', async () => {
  const logoUrl = h.site.url('/logo.svg');
  const { id, campaign } = await runCampaign(h, customer.key, {
    languages: ['en'],
    platforms: ['tiktok'],
    quality: 'draft',
    voice: { en: 'en-flite-slt' },
    brand: { primary_color: '#111111', logo_url: logoUrl },
  });
  expect(campaign).toMatchObject({
    status: 'review',
    voice: { en: 'en-flite-slt' },
    brand: { primary_color: '#111111', logo_url: logoUrl },
  });
  // The voice stage spoke with flite (not the node's default, RHVoice clb) and recorded it; the report says the same.
  const [video] = campaign.videos;
  const [storyboard] = await h.sql<{ document: { voice?: unknown; brand: { logoKey?: string } } }>(
    'SELECT document FROM storyboards WHERE video_id = $1',
    [video.id],
  );
  expect(storyboard.document.voice).toEqual({ engine: 'flite', name: 'slt' });
  expect(storyboard.document.brand.logoKey).toBe(`campaigns/${id}/capture/logo.png`);
  const report = await h.request('GET', `/api/v1/reports/${campaign.report_id}`, { key: customer.key });
  expect(JSON.stringify(report.body)).toContain('"flite"');

  // The title card: the logo's blue (#3a5bd9) on its white plate, centred above the words (the card's words start
  // at 36 % of the height); the page's own colours never show on this card, which is all #111111 and white.
  const local = (url: string) => url.replace(h.config.publicBaseUrl, h.baseUrl);
  const frame = await frameRgb(local(video.file_url), 1.2, 540, 960);
  const blue: Array<{ x: number; y: number }> = [];
  for (let y = 0; y < 960; y += 1) {
    for (let x = 0; x < 540; x += 1) {
      const i = (y * 540 + x) * 3;
      if (Math.abs(frame[i] - 0x3a) < 24 && Math.abs(frame[i + 1] - 0x5b) < 24 && Math.abs(frame[i + 2] - 0xd9) < 24) blue.push({ x, y });
    }
  }
  expect(blue.length).toBeGreaterThan(1500);
  const meanX = blue.reduce((sum, p) => sum + p.x, 0) / blue.length;
  const lowest = Math.max(...blue.map((p) => p.y));
  expect(Math.abs(meanX - 270)).toBeLessThan(20);
  expect(lowest).toBeLessThan(960 * 0.36);
}, 300_000);
