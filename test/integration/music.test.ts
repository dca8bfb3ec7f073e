/**
 * Music under the voice (create's `music`) through the real pipeline (PostgreSQL, Chromium, the voices, editly, ffmpeg):
 * the fixture site's track is fetched at create and by the capture stage, stored, named by the storyboard and mixed
 * under the narration; the delivered video is measured as a platform would (ebur128: −14 LUFS, true peak ≤ −1 dBTP),
 * the narration against the music on the stems the renderer's own graph makes from the stored files, and the music
 * heard in the pauses of the video itself. What is not audio is refused at create (422), bad options are 400.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MUSIC_DEFAULT_VOLUME } from '../../lib/campaign/options';
import { measureLoudness, MIX_LOUDNESS_LUFS, MIX_TRUE_PEAK_DBTP, renderPremix } from '../../lib/render/music';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { storageFor } from '../../lib/storage/storage';
import { levelOver, speechAndPauses, WINDOW_SECONDS, windowLevels } from '../support/audio-levels';
import { runCampaign } from '../support/campaign-run';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const run = promisify(execFile);

let h: Harness;
let customer: { orgId: string; key: string };
let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'music-it-'));
  h = await startHarness({
    render: 'worker',
    config: { ...CHECK_NOT_THE_SUBJECT, rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 2 },
  });
  customer = await h.newCustomer('business');
}, 120_000);
afterAll(async () => {
  await h?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

test('a campaign with music: −14 LUFS, true peak ≤ −1 dBTP, the voice ≥ 10 dB above the music while it speaks, the music heard in the pauses', async () => {
  const musicUrl = h.site.url('/music.mp3');
  const { id, campaign } = await runCampaign(h, customer.key, {
    languages: ['en'],
    platforms: ['tiktok'],
    quality: 'draft',
    music: { url: musicUrl },
  });
  expect(campaign).toMatchObject({ status: 'review', music: { url: musicUrl } });
  const [video] = campaign.videos;
  const [{ document: storyboard }] = await h.sql<{ document: Storyboard }>('SELECT document FROM storyboards WHERE video_id = $1', [
    video.id,
  ]);
  expect(storyboard.music).toEqual({ key: `campaigns/${id}/capture/music`, volume: MUSIC_DEFAULT_VOLUME });

  // The video as delivered, measured as a platform would.
  const file = path.join(dir, 'video.mp4');
  const response = await fetch(video.file_url.replace(h.config.publicBaseUrl, h.baseUrl));
  expect(response.status).toBe(200);
  await fs.writeFile(file, Buffer.from(await response.arrayBuffer()));
  const measured = await measureLoudness(file);
  expect(Math.abs(measured.integratedLufs - MIX_LOUDNESS_LUFS)).toBeLessThanOrEqual(1);
  expect(measured.truePeakDbtp).toBeLessThanOrEqual(MIX_TRUE_PEAK_DBTP);
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'a:0',
    '-show_entries',
    'stream=channels',
    '-of',
    'csv=p=0',
    file,
  ]);
  expect(Number(stdout)).toBe(2);

  // The stems from the stored narration and music through the renderer's own graph, at the storyboard's volume and length.
  const storage = storageFor(h.worker);
  const narration = path.join(dir, 'narration.wav');
  const music = path.join(dir, 'music');
  await Promise.all([storage.getFile(storyboard.narrationKey, narration), storage.getFile(storyboard.music!.key, music)]);
  const mix = { narration, music, volume: storyboard.music!.volume, durationSeconds: storyboard.totalSeconds };
  const [voicePath, duckedPath] = [path.join(dir, 'voice.wav'), path.join(dir, 'ducked.wav')];
  await Promise.all([renderPremix(mix, 'voice', voicePath), renderPremix(mix, 'music', duckedPath)]);
  const [voice, ducked, delivered] = await Promise.all([windowLevels(voicePath), windowLevels(duckedPath), windowLevels(file)]);
  const { speech, pauses } = speechAndPauses(voice);
  expect(speech.length).toBeGreaterThan(10);
  const above = levelOver(voice, speech) - levelOver(ducked, speech);
  expect(above).toBeGreaterThanOrEqual(10);

  // Between scenes the video is the music alone: far above silence (kept clear of the fades at both ends).
  const fadeWindows = Math.ceil(2.5 / WINDOW_SECONDS);
  const between = pauses.filter((i) => i >= fadeWindows && i < delivered.length - fadeWindows);
  expect(between.length).toBeGreaterThan(0);
  const inPauses = levelOver(delivered, between);
  expect(inPauses).toBeGreaterThan(-40);
  console.log(
    `music campaign: ${measured.integratedLufs} LUFS, true peak ${measured.truePeakDbtp} dBTP; voice above the music while ` +
      `speaking ${above.toFixed(1)} dB over ${speech.length} windows; the video between scenes ${inPauses.toFixed(1)} dBFS over ${between.length} windows`,
  );
}, 300_000);

test('music that is not audio is refused at create (422), bad music options are 400 naming the field; nothing is created', async () => {
  const [{ count: before }] = await h.sql<{ count: string }>('SELECT count(*) FROM campaigns WHERE org_id = $1', [customer.orgId]);
  const notAudio = await h.request('POST', '/api/v1/campaigns', {
    key: customer.key,
    body: { url: h.pageUrl, languages: ['en'], music: { url: h.site.url('/logo.svg') } },
  });
  expect({ status: notAudio.status, code: notAudio.body.error?.code }).toEqual({ status: 422, code: 'invalid_input' });
  expect(notAudio.body.error.message).toMatch(/^music\.url is not an audio file/);
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ music: {} }, /music/],
    [{ music: { url: h.site.url('/music.mp3'), volume: 0 } }, /volume/],
    [{ music: { url: h.site.url('/music.mp3'), volume: 1.5 } }, /volume/],
    [{ music: { url: h.site.url('/music.mp3'), loop: false } }, /music/],
    [{ music: { url: 'http://169.254.169.254/music.mp3' } }, /music\.url.*public address/],
    [{ music: { url: 'ftp://acme.example/music.mp3' } }, /music\.url/],
  ];
  for (const [extra, field] of cases) {
    const res = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl, ...extra } });
    expect({ extra, status: res.status, code: res.body.error?.code }).toEqual({ extra, status: 400, code: 'invalid_input' });
    expect(res.body.error.message).toMatch(field);
  }
  const [{ count: after }] = await h.sql<{ count: string }>('SELECT count(*) FROM campaigns WHERE org_id = $1', [customer.orgId]);
  expect(after).toBe(before);
});
