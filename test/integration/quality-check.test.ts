/**
 * The video's own check and repair (decisions §13), end to end on a page made of the defects it must catch
 * (test/fixtures/real-web/flaws: a full-viewport hero with a CSS background, a showcase whose picture never loads, a
 * sentence repeated in two sections, a desktop-only table that runs off a phone's screen), and on a page of one section
 * that says nothing new (flaws/once.html: the repair mends the repeat the writer had to keep). Every finished video
 * either no longer shows a defect, or carries a flag naming the scene — and its `quality` is the same in GET, the list
 * and the document. Frames are judged here independently of the product's own check: the page area's pixels, and the
 * captions' sentences.
 *
 * QUALITY_SHEETS=<dir> keeps a contact sheet of every video, to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { contactSheet } from '../../lib/render/contact-sheet';
import { QUALITY_FLAG_CODES, REPAIR_ACTIONS, type QualityReport } from '../../lib/quality/report';
import { runCampaign } from '../support/campaign-run';
import { startHarness, type Harness } from '../support/harness';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const REPEATED = 'Fernbrook skips watering when rain is on the way.';
/** flaws/once.html: the hero's sentence, which its one section says again, and the section's subheading. */
const ONCE_REPEATED = 'Fernbrook Mini skips watering when rain is on the way, for every zone of your garden.';
const ONCE_SUBHEADING = 'Set it up in five minutes with the app on your phone.';

/** The spoken words of a WebVTT file: its cue lines, without the header, the timings and the word-timing tags. */
function cueTexts(vtt: string): string[] {
  return vtt
    .split(/\r?\n/)
    .filter((line) => line.trim() && !line.startsWith('WEBVTT') && !line.includes('-->') && !/^\d+$/.test(line.trim()))
    .map((line) => line.replace(/<[^>]+>/g, '').trim());
}

interface CheckedVideo {
  id: string;
  campaignId: string;
  page: 'flaws' | 'once';
  platform: string;
  quality: QualityReport | null;
  board: Storyboard;
  captions: string;
}

let h: Harness;
let key: string;
const videos: CheckedVideo[] = [];
const flaws = () => videos.filter((v) => v.page === 'flaws');

async function checked(page: CheckedVideo['page'], url: string, platforms: string[]): Promise<void> {
  const { id, campaign } = await runCampaign(h, key, { url, languages: ['en'], platforms }, 600_000);
  expect(campaign.status).toBe('review');
  const rows = await h.sql<{
    id: string;
    platform: string;
    quality: QualityReport | string | null;
    captions_key: string;
    document: Storyboard;
  }>(
    'SELECT v.id, v.platform, v.quality, v.captions_key, s.document FROM videos v JOIN storyboards s ON s.video_id = v.id WHERE v.campaign_id = $1',
    [id],
  );
  for (const row of rows) {
    const quality = typeof row.quality === 'string' ? (JSON.parse(row.quality) as QualityReport) : row.quality;
    const captions = fs.readFileSync(path.join(h.config.dataDir, 'files', row.captions_key), 'utf8');
    videos.push({ id: row.id, campaignId: id, page, platform: row.platform, quality, board: row.document, captions });
    if (process.env.QUALITY_SHEETS) {
      fs.mkdirSync(process.env.QUALITY_SHEETS, { recursive: true });
      fs.writeFileSync(
        path.join(process.env.QUALITY_SHEETS, `${page}-${row.platform}.json`),
        JSON.stringify({ quality, board: row.document }, null, 2),
      );
      const file = (await h.sql<{ file_key: string }>('SELECT file_key FROM videos WHERE id = $1', [row.id]))[0].file_key;
      await contactSheet(
        path.join(h.config.dataDir, 'files', file),
        row.document,
        path.join(process.env.QUALITY_SHEETS, `${page}-${row.platform}.jpg`),
        480,
      );
    }
  }
}

beforeAll(async () => {
  h = await startHarness({ render: 'worker', config: { rateLimits: limits, renderQuality: 'draft', videoTargetSeconds: 30 } });
  ({ key } = await h.newCustomer('business'));
  await checked('flaws', h.site.url('/flaws/'), ['tiktok', 'youtube']);
  await checked('once', h.site.url('/flaws/once.html'), ['youtube']);
}, 900_000);

afterAll(async () => {
  await h?.stop();
});

test('every video carries its quality report, the same in GET, the list and the document', async () => {
  expect(videos.map((v) => `${v.page} ${v.platform}`).sort()).toEqual(['flaws tiktok', 'flaws youtube', 'once youtube']);
  const listed = await h.request('GET', '/api/v1/campaigns?limit=5', { key });
  for (const video of videos) {
    const campaignId = video.campaignId;
    const got = await h.request('GET', `/api/v1/campaigns/${campaignId}`, { key });
    const report = video.quality!;
    expect(report).not.toBeNull();
    expect(Date.parse(report.checked_at)).toBeGreaterThan(0);
    expect(report.passed).toBe(report.flags.length === 0);
    for (const flag of report.flags) {
      expect(QUALITY_FLAG_CODES).toContain(flag.code);
      expect(video.board.scenes.map((s) => s.id)).toContain(flag.scene_id);
      expect(flag.message.length).toBeGreaterThan(10);
    }
    for (const repair of report.repaired) expect(REPAIR_ACTIONS).toContain(repair.action);
    expect(got.body.videos.find((v: { id: string }) => v.id === video.id).quality).toEqual(report);
    const item = listed.body.campaigns.find((c: { campaign_id: string }) => c.campaign_id === campaignId);
    expect(item.videos.find((v: { id: string }) => v.id === video.id).quality).toEqual(report);
    const doc = await h.request('GET', `/api/v1/campaigns/${campaignId}/videos/${video.id}/document`, { key });
    expect(doc.status).toBe(200);
    expect(doc.body.document.quality_report).toEqual(report);
  }
});

test('no sentence is said twice in a video, unless the video says so with the scene named', () => {
  for (const video of videos) {
    const sentences = cueTexts(video.captions)
      .join(' ')
      .split(/(?<=[.!?])\s+/)
      .map((s) => s.trim().toLowerCase())
      .filter((s) => s.length > 20);
    const twice = sentences.filter((s, i) => sentences.indexOf(s) !== i);
    const flagged = video.quality!.flags.some((f) => f.code === 'repeated_narration');
    expect({ video: video.platform, twice: flagged ? [] : twice }).toEqual({ video: video.platform, twice: [] });
  }
});

test('the sentence the page says in two sections is said once, by the writer: there is nothing to flag or repair', () => {
  // Both videos narrate the two sections that open with the same sentence: the writer says the later section's next
  // sentence instead (lib/script/writer.ts), so the check has no repeat to flag and the repair none to mend.
  for (const video of flaws()) {
    const narrations = video.board.scenes.map((s) => s.narration.map((n) => n.text).join(' '));
    expect({ video: video.platform, times: narrations.filter((n) => n.includes(REPEATED)).length }).toEqual({
      video: video.platform,
      times: 1,
    });
    const repeats = [...video.quality!.flags, ...video.quality!.repaired].filter((f) => f.code === 'repeated_narration');
    expect({ video: video.platform, repeats }).toEqual({ video: video.platform, repeats: [] });
  }
});

test('a repeat the writer had to keep (one section, nothing else in its paragraphs) is found by the check and mended by the repair', () => {
  // flaws/once.html: the section's paragraph says the hero's sentence again and its heading is the opening line; the
  // video keeps two screen scenes, so the writer says the repeat. The check flags it, and the repair says the
  // section's next sentence, from the screenshot's text blocks (its subheading), instead.
  const [video] = videos.filter((v) => v.page === 'once');
  const narrations = video.board.scenes.map((s) => s.narration.map((n) => n.text).join(' '));
  expect(narrations.filter((n) => n.includes(ONCE_REPEATED))).toHaveLength(1);
  expect(narrations.filter((n) => n.includes(ONCE_SUBHEADING))).toHaveLength(1);
  expect(video.quality!.repaired).toContainEqual({ code: 'repeated_narration', scene_id: expect.any(String), action: 'renarrated' });
  expect(video.quality!.flags.filter((f) => f.code === 'repeated_narration')).toEqual([]);
});

test('a repaired video keeps at least two screen scenes, and its document is the mended one', async () => {
  for (const video of videos.filter((v) => v.quality!.repaired.length > 0)) {
    expect(video.board.scenes.filter((s) => s.kind === 'screen').length).toBeGreaterThanOrEqual(2);
    const doc = await h.request('GET', `/api/v1/campaigns/${video.campaignId}/videos/${video.id}/document`, { key });
    expect(doc.body.document.scenes.map((s: { id: string }) => s.id)).toEqual(video.board.scenes.map((s) => s.id));
    expect(doc.body.document.revision).toBe(1);
  }
});
