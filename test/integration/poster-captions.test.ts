/**
 * Posters and SubRip captions, end to end: a real campaign (fixture site, Chromium, espeak-ng, editly, draft quality) to
 * `review`; each ready video's `thumbnail_url` downloads a JPEG of the video's frame that is a frame of its hero
 * scene (the first screen after the title card, fully shown), and `captions_srt_url` downloads SubRip whose cues
 * are the WebVTT's; both are signed like `file_url`, listed in the webhook's videos and in the OpenAPI document.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseWebVtt } from '../../lib/voice/captions';
import { TRANSITION_SECONDS } from '../../lib/render/plan';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { parseSrtStrict } from '../support/srt';
import { waitFor } from '../support/wait';

// Generous: these tests are about the pipeline, not the limiter (whose Redis deadline a loaded CI machine can miss).
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const DRAFT_FRAMES: Record<string, [number, number]> = { tiktok: [540, 960], youtube: [960, 540] };
/** Frames are compared at a quarter of each side: enough to tell scenes apart, small enough to hold a whole video. */
const SCALE = 4;
const FPS = 25; // draft encoding (lib/render/plan.ts)

interface VideoView {
  id: string;
  platform: string;
  language: string;
  status: string;
  file_url: string | null;
  captions_url: string | null;
  captions_srt_url: string | null;
  thumbnail_url: string | null;
}

let h: Harness;
let key: string;
let hook: WebhookReceiver;
let campaignId: string;
let videos: VideoView[];
let work: string;

/** The links are absolute on PUBLIC_BASE_URL; the test reaches the same path on the harness's port. */
function local(link: string): string {
  expect(link.startsWith(`${h.config.publicBaseUrl}/files/`)).toBe(true);
  return `${h.baseUrl}${link.slice(h.config.publicBaseUrl.length)}`;
}

async function download(link: string): Promise<{ res: Response; bytes: Buffer }> {
  const res = await fetch(local(link));
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Grey levels of an image or of every frame of a video, each frame `width`×`height`. */
function grayFrames(file: string, width: number, height: number): Buffer[] {
  const raw = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-vf', `scale=${width}:${height}:flags=area,format=gray`, '-f', 'rawvideo', '-'],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  const size = width * height;
  expect(raw.length % size).toBe(0);
  return Array.from({ length: raw.length / size }, (_, i) => raw.subarray(i * size, (i + 1) * size));
}

const meanAbsDiff = (a: Buffer, b: Buffer): number => {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
};

function stddev(pixels: Buffer): number {
  const mean = pixels.reduce((s, v) => s + v, 0) / pixels.length;
  return Math.sqrt(pixels.reduce((s, v) => s + (v - mean) ** 2, 0) / pixels.length);
}

beforeAll(async () => {
  h = await startHarness({
    render: 'worker',
    config: { ...CHECK_NOT_THE_SUBJECT, rateLimits: limits, videoTargetSeconds: 20, captureMaxShots: 3, renderConcurrency: 2 },
  });
  ({ key } = await h.newCustomer('business'));
  hook = await startWebhookReceiver();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-poster-'));
  const created = await h.request('POST', '/api/v1/campaigns', {
    key,
    body: { url: h.pageUrl, languages: ['ja'], platforms: ['tiktok', 'youtube'], webhook_url: hook.url },
  });
  expect(created.status).toBe(201);
  campaignId = created.body.campaign_id;
  const done = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${campaignId}`, { key }),
    (res) => ['review', 'failed'].includes(res.body.status),
    300_000,
    500,
  );
  expect(done.body.error).toBeUndefined();
  expect(done.body.status).toBe('review');
  videos = done.body.videos;
  expect(videos).toHaveLength(2);
}, 360_000);
afterAll(async () => {
  await hook?.close();
  await h?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('every ready video has signed thumbnail and SRT links, expiring with file_url', () => {
  for (const video of videos) {
    expect(video.status).toBe('ready');
    const expires = new URL(video.file_url!).searchParams.get('expires');
    expect(video.thumbnail_url).toMatch(
      new RegExp(`^${h.config.publicBaseUrl}/files/thumbnails/${video.id}\\.jpg\\?expires=${expires}&signature=[0-9a-f]{64}$`),
    );
    expect(video.captions_srt_url).toMatch(
      new RegExp(`^${h.config.publicBaseUrl}/files/captions/${video.id}\\.srt\\?expires=${expires}&signature=[0-9a-f]{64}$`),
    );
  }
});

test("the poster is a JPEG of the video's frame, not blank, and a frame of the hero scene while it is fully shown", async () => {
  for (const video of videos) {
    const [width, height] = DRAFT_FRAMES[video.platform];
    const poster = await download(video.thumbnail_url!);
    expect(poster.res.status).toBe(200);
    expect(poster.res.headers.get('content-type')).toBe('image/jpeg');
    expect(poster.bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
    const posterFile = path.join(work, `${video.id}.jpg`);
    fs.writeFileSync(posterFile, poster.bytes);
    const probe = JSON.parse(
      execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,width,height', '-of', 'json', posterFile]).toString(),
    );
    expect(probe.streams[0]).toEqual({ codec_name: 'mjpeg', width, height });

    const [full] = grayFrames(posterFile, width, height);
    expect(stddev(full)).toBeGreaterThan(20); // a picture, not a flat fill

    const movie = await download(video.file_url!);
    const videoFile = path.join(work, `${video.id}.mp4`);
    fs.writeFileSync(videoFile, movie.bytes);
    const [w, hgt] = [width / SCALE, height / SCALE];
    const [small] = grayFrames(posterFile, w, hgt);
    const frames = grayFrames(videoFile, w, hgt);
    const diffs = frames.map((frame) => meanAbsDiff(small, frame));

    const [{ document }] = await h.sql<{ document: Storyboard }>('SELECT document FROM storyboards WHERE video_id = $1', [video.id]);
    const heroIndex = document.scenes.findIndex((s) => s.kind === 'screen');
    expect(heroIndex).toBe(1); // right after the title card
    expect(document.scenes.filter((s) => s.kind === 'screen').length).toBeGreaterThan(1); // other screens to tell it from
    const hero = document.scenes[heroIndex];
    const previous = document.scenes[heroIndex - 1];
    const fadeIn = Math.min(TRANSITION_SECONDS, previous.durationSeconds / 2, hero.durationSeconds / 2);
    const shownFrom = hero.startSeconds + fadeIn;
    const shownUntil = hero.startSeconds + hero.durationSeconds;

    const best = diffs.indexOf(Math.min(...diffs));
    const bestSeconds = best / FPS;
    // The poster is (near) that very frame: only JPEG's loss tells them apart…
    expect(diffs[best]).toBeLessThan(3);
    // …of the hero scene while it alone is on screen (a frame's slack either side)…
    expect(bestSeconds).toBeGreaterThanOrEqual(shownFrom - 1 / FPS);
    expect(bestSeconds).toBeLessThanOrEqual(shownUntil + 1 / FPS);
    // …and no frame of another scene looks like it.
    const elsewhere = diffs.filter((_, i) => i / FPS < hero.startSeconds - 0.05 || i / FPS > shownUntil + TRANSITION_SECONDS + 0.05);
    expect(elsewhere.length).toBeGreaterThan(FPS);
    expect(Math.min(...elsewhere)).toBeGreaterThan(diffs[best] + 8);
  }
}, 120_000);

test('the SRT holds the WebVTT cues (text and times), numbered, CRLF, UTF-8', async () => {
  for (const video of videos) {
    const srt = await download(video.captions_srt_url!);
    expect(srt.res.status).toBe(200);
    expect(srt.res.headers.get('content-type')).toBe('application/x-subrip; charset=utf-8');
    const text = new TextDecoder('utf-8', { fatal: true }).decode(srt.bytes);
    const vtt = await download(video.captions_url!);
    expect(vtt.res.status).toBe(200);
    const cues = parseWebVtt(vtt.bytes.toString('utf8'));
    expect(cues.length).toBeGreaterThan(2);
    expect(parseSrtStrict(text)).toEqual(cues);
    expect(text).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/u); // the Japanese narration, as UTF-8
    expect(cues.some((cue) => cue.text.includes('\n'))).toBe(true); // two-line cues among them
  }
});

test('a tampered, expired or cross-kind poster or SRT link is refused with 403, as file_url is', async () => {
  const [video] = videos;
  for (const link of [video.thumbnail_url!, video.captions_srt_url!]) {
    const url = new URL(local(link));
    const signature = url.searchParams.get('signature')!;
    url.searchParams.set('signature', (signature[0] === '0' ? '1' : '0') + signature.slice(1));
    const tampered = await fetch(url);
    expect(tampered.status).toBe(403);
    expect((await tampered.json()).error.code).toBe('forbidden');
    url.searchParams.set('signature', signature);
    url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) - 1));
    expect((await fetch(url)).status).toBe(403);
  }
  // The poster's signature does not open the video, nor the SRT's the WebVTT.
  expect((await fetch(local(video.thumbnail_url!).replace(`/thumbnails/${video.id}.jpg`, `/videos/${video.id}.mp4`))).status).toBe(403);
  expect((await fetch(local(video.captions_srt_url!).replace(`${video.id}.srt`, `${video.id}.vtt`))).status).toBe(403);
});

test("the campaign.completed webhook lists each video's poster and SRT links", async () => {
  await waitFor(
    async () => hook.received.length,
    (n) => n >= 1,
    30_000,
    100,
  );
  const body = JSON.parse(hook.received[0].body);
  expect(body.event).toBe('campaign.completed');
  for (const video of videos) {
    const sent = body.videos.find((v: VideoView) => v.id === video.id);
    const pathOf = (link: string) => new URL(link).pathname;
    expect(pathOf(sent.thumbnail_url)).toBe(pathOf(video.thumbnail_url!));
    expect(pathOf(sent.captions_srt_url)).toBe(pathOf(video.captions_srt_url!));
    expect((await fetch(local(sent.thumbnail_url))).status).toBe(200);
  }
});

test('the OpenAPI document lists thumbnail_url and captions_srt_url on every video', async () => {
  const doc = await h.request('GET', '/api/v1/openapi.json', { key });
  expect(doc.status).toBe(200);
  const video = doc.body.paths['/api/v1/campaigns/{id}'].get.responses['200'].content['application/json'].schema.properties.videos.items;
  expect(video.required).toEqual(expect.arrayContaining(['thumbnail_url', 'captions_srt_url']));
  expect(video.properties.thumbnail_url).toMatchObject({ type: ['string', 'null'], description: expect.stringMatching(/image\/jpeg/) });
  expect(video.properties.captions_srt_url).toMatchObject({
    type: ['string', 'null'],
    description: expect.stringMatching(/application\/x-subrip/),
  });
});
