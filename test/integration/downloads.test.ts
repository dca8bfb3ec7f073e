/** Signed download links (decisions.md §2): served by the gateway from the file store, with Range, against real PostgreSQL. */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSigningKey, signFileLink } from '../../lib/storage/file-links';
import { startHarness, type Harness } from '../support/harness';

let h: Harness;
let customer: { orgId: string; key: string };
let mp4: Buffer;
let jpeg: Buffer;
const captions = 'WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n';
const srt = '1\r\n00:00:00,000 --> 00:00:01,000\r\nHello — こんにちは\r\n\r\n';
let campaignId: string;
const readyVideoId = crypto.randomUUID();
const queuedVideoId = crypto.randomUUID();

/** A one-second H.264 MP4, as the renderer produces (faststart). */
function makeMp4(): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-downloads-'));
  const file = path.join(dir, 'out.mp4');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=64x64:rate=10',
    '-t',
    '1',
    '-pix_fmt',
    'yuv420p',
    '-movflags',
    '+faststart',
    file,
  ]);
  const bytes = fs.readFileSync(file);
  fs.rmSync(dir, { recursive: true, force: true });
  return bytes;
}

/** A 64×64 JPEG poster, as the renderer writes one. */
function makeJpeg(): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x64', '-frames:v', '1', '-f', 'mjpeg', '-']);
}

function storeFile(key: string, data: Buffer | string) {
  const file = path.join(h.config.dataDir, 'files', key);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

async function insertVideo(id: string, status: string, language: string, platform: string) {
  const keys =
    status === 'ready'
      ? ['mp4', 'vtt', 'srt', 'jpg'].map((extension) => `campaigns/${campaignId}/videos/${id}.${extension}`)
      : [null, null, null, null];
  await h.sql(
    `INSERT INTO videos (id, campaign_id, language, platform, status, file_key, captions_key, captions_srt_key, thumbnail_key, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), now())`,
    [id, campaignId, language, platform, status, ...keys],
  );
  return { fileKey: keys[0], captionsKey: keys[1], srtKey: keys[2], thumbnailKey: keys[3] };
}

/** The links are absolute on PUBLIC_BASE_URL; the test reaches the same path on the harness's port. */
function local(link: string): string {
  expect(link.startsWith(`${h.config.publicBaseUrl}/files/`)).toBe(true);
  return `${h.baseUrl}${link.slice(h.config.publicBaseUrl.length)}`;
}

async function links(): Promise<{ ready: any; queued: any }> {
  const res = await h.request('GET', `/api/v1/campaigns/${campaignId}`, { key: customer.key });
  expect(res.status).toBe(200);
  const byId = (id: string) => res.body.videos.find((v: any) => v.id === id);
  return { ready: byId(readyVideoId), queued: byId(queuedVideoId) };
}

function withParam(link: string, name: string, value: string): string {
  const url = new URL(link);
  url.searchParams.set(name, value);
  return url.toString();
}

async function expectForbidden(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(403);
  expect(await res.json()).toEqual({ success: false, error: { code: 'forbidden', message: expect.any(String) } });
}

beforeAll(async () => {
  mp4 = makeMp4();
  jpeg = makeJpeg();
  h = await startHarness({ config: { pipelinePaused: true } });
  customer = await h.newCustomer('business');
  campaignId = crypto.randomUUID();
  await h.sql(
    `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, progress, quota_period, status_changed_at, deadline_at, created_at, updated_at)
     VALUES ($1, $2, $3, 'review', 'https://acme.io/', 'acme.io', '["en","ja"]', '["tiktok"]', 100, to_char(now(), 'YYYY-MM'), now(), now() + interval '1 hour', now(), now())`,
    [campaignId, customer.orgId, crypto.randomUUID()],
  );
  const { fileKey, captionsKey, srtKey, thumbnailKey } = await insertVideo(readyVideoId, 'ready', 'en', 'tiktok');
  await insertVideo(queuedVideoId, 'queued', 'ja', 'tiktok');
  storeFile(fileKey!, mp4);
  storeFile(captionsKey!, captions);
  storeFile(srtKey!, srt);
  storeFile(thumbnailKey!, jpeg);
}, 60_000);
afterAll(async () => h?.stop());

describe('links in GET /api/v1/campaigns/{id}', () => {
  test('a ready video has absolute signed video, captions (WebVTT, SRT) and poster links; a queued one has none', async () => {
    const { ready, queued } = await links();
    expect(ready.file_url).toMatch(
      new RegExp(`^${h.config.publicBaseUrl}/files/videos/${readyVideoId}\\.mp4\\?expires=\\d+&signature=[0-9a-f]{64}$`),
    );
    expect(ready.captions_url).toMatch(
      new RegExp(`^${h.config.publicBaseUrl}/files/captions/${readyVideoId}\\.vtt\\?expires=\\d+&signature=[0-9a-f]{64}$`),
    );
    const expires = Number(new URL(ready.file_url).searchParams.get('expires'));
    expect(expires * 1000).toBeGreaterThan(Date.now() + h.config.fileUrlTtlMs - 60_000);
    expect(expires * 1000).toBeLessThanOrEqual(Date.now() + h.config.fileUrlTtlMs);
    expect(ready.captions_srt_url).toMatch(
      new RegExp(`^${h.config.publicBaseUrl}/files/captions/${readyVideoId}\\.srt\\?expires=\\d+&signature=[0-9a-f]{64}$`),
    );
    expect(ready.thumbnail_url).toMatch(
      new RegExp(`^${h.config.publicBaseUrl}/files/thumbnails/${readyVideoId}\\.jpg\\?expires=\\d+&signature=[0-9a-f]{64}$`),
    );
    // Same expiry rules as file_url.
    for (const link of [ready.captions_url, ready.captions_srt_url, ready.thumbnail_url])
      expect(new URL(link).searchParams.get('expires')).toBe(String(expires));
    expect(queued).toMatchObject({ status: 'queued', file_url: null, captions_url: null, captions_srt_url: null, thumbnail_url: null });
  });
});

describe('GET /files/videos/{id}.mp4', () => {
  test('the whole file, with the documented headers, and no API key needed', async () => {
    const res = await fetch(local((await links()).ready.file_url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(mp4.length));
    expect(res.headers.get('cache-control')).toBe('private, max-age=3600');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${readyVideoId}.mp4"`);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(Buffer.from(await res.arrayBuffer()).equals(mp4)).toBe(true);
  });

  test('Range: a closed range, an open one and a suffix answer 206 with Content-Range', async () => {
    const url = local((await links()).ready.file_url);
    const first = await fetch(url, { headers: { Range: 'bytes=0-99' } });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-99/${mp4.length}`);
    expect(first.headers.get('content-length')).toBe('100');
    expect(Buffer.from(await first.arrayBuffer()).equals(mp4.subarray(0, 100))).toBe(true);

    const tail = await fetch(url, { headers: { Range: 'bytes=-10' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes ${mp4.length - 10}-${mp4.length - 1}/${mp4.length}`);
    expect(Buffer.from(await tail.arrayBuffer()).equals(mp4.subarray(mp4.length - 10))).toBe(true);

    const rest = await fetch(url, { headers: { Range: 'bytes=100-' } });
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(`bytes 100-${mp4.length - 1}/${mp4.length}`);
    expect(Buffer.from(await rest.arrayBuffer()).equals(mp4.subarray(100))).toBe(true);

    const beyondEnd = await fetch(url, { headers: { Range: `bytes=${mp4.length - 5}-${mp4.length + 1000}` } });
    expect(beyondEnd.status).toBe(206);
    expect(Buffer.from(await beyondEnd.arrayBuffer()).equals(mp4.subarray(mp4.length - 5))).toBe(true);

    // RFC 9110 §14.1.2: a suffix longer than the file is the whole file (range-parser 1.3 answers 416 here).
    const longSuffix = await fetch(url, { headers: { Range: `bytes=-${mp4.length + 1000}` } });
    expect(longSuffix.status).toBe(206);
    expect(longSuffix.headers.get('content-range')).toBe(`bytes 0-${mp4.length - 1}/${mp4.length}`);
    expect(Buffer.from(await longSuffix.arrayBuffer()).equals(mp4)).toBe(true);
  });

  test('a range starting past the end answers 416 with Content-Range bytes */size', async () => {
    const res = await fetch(local((await links()).ready.file_url), { headers: { Range: `bytes=${mp4.length}-` } });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${mp4.length}`);
    await res.arrayBuffer();
  });

  test('multi-range and malformed Range headers are ignored: the whole file', async () => {
    const url = local((await links()).ready.file_url);
    for (const range of ['bytes=0-1,5-9', 'bytes=9-3', 'items=0-5', 'bytes=abc']) {
      const res = await fetch(url, { headers: { Range: range } });
      expect([range, res.status]).toEqual([range, 200]);
      expect(Buffer.from(await res.arrayBuffer()).length).toBe(mp4.length);
    }
  });

  test('If-Range: a range of the same file (its ETag or Last-Modified) is served; of another file, the whole file', async () => {
    const url = local((await links()).ready.file_url);
    const whole = await fetch(url, { method: 'HEAD' });
    const etag = whole.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    for (const validator of [etag, whole.headers.get('last-modified')!]) {
      const same = await fetch(url, { headers: { Range: 'bytes=0-9', 'If-Range': validator } });
      expect([validator, same.status]).toEqual([validator, 206]);
      await same.arrayBuffer();
    }
    const changed = await fetch(url, { headers: { Range: 'bytes=0-9', 'If-Range': '"another-file"' } });
    expect(changed.status).toBe(200);
    expect(Buffer.from(await changed.arrayBuffer()).equals(mp4)).toBe(true);
  });

  test('HEAD answers the headers without the body', async () => {
    const url = local((await links()).ready.file_url);
    const res = await fetch(url, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('content-length')).toBe(String(mp4.length));
    expect((await res.arrayBuffer()).byteLength).toBe(0);
    const partial = await fetch(url, { method: 'HEAD', headers: { Range: 'bytes=0-9' } });
    expect(partial.status).toBe(206);
    expect(partial.headers.get('content-range')).toBe(`bytes 0-9/${mp4.length}`);
  });
});

describe('a client that goes away mid-download', () => {
  test('is cut off without harming the server', async () => {
    const bigVideoId = crypto.randomUUID();
    const { fileKey } = await insertVideo(bigVideoId, 'ready', 'en', 'youtube');
    storeFile(fileKey!, crypto.randomBytes(16 * 1024 * 1024));
    const link = signFileLink(
      { kind: 'video', videoId: bigVideoId, expiresAt: Math.floor(Date.now() / 1000) + 60 },
      loadSigningKey(h.config),
    );
    const abort = new AbortController();
    const res = await fetch(`${h.baseUrl}${link}`, { signal: abort.signal });
    expect(res.status).toBe(200);
    await res.body!.getReader().read();
    abort.abort();
    const again = await fetch(local((await links()).ready.file_url));
    expect(Buffer.from(await again.arrayBuffer()).equals(mp4)).toBe(true);
  });
});

describe('GET /files/captions/{id}.vtt', () => {
  test('the WebVTT file', async () => {
    const res = await fetch(local((await links()).ready.captions_url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${readyVideoId}.vtt"`);
    expect(await res.text()).toBe(captions);
  });
});

describe('GET /files/captions/{id}.srt', () => {
  test('the SubRip file, UTF-8, with Range and HEAD like the video', async () => {
    const url = local((await links()).ready.captions_srt_url);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-subrip; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${readyVideoId}.srt"`);
    expect(res.headers.get('cache-control')).toBe('private, max-age=3600');
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(srt, 'utf8'))).toBe(true);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(srt)));
    const first = await fetch(url, { headers: { Range: 'bytes=0-0' } });
    expect([first.status, await first.text()]).toEqual([206, '1']);
  });
});

describe('GET /files/thumbnails/{id}.jpg', () => {
  test('the poster JPEG', async () => {
    const res = await fetch(local((await links()).ready.thumbnail_url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${readyVideoId}.jpg"`);
    expect(res.headers.get('content-length')).toBe(String(jpeg.length));
    expect(Buffer.from(await res.arrayBuffer()).equals(jpeg)).toBe(true);
  });
});

describe('refused links', () => {
  test('a tampered signature, expiry or video id → 403 forbidden', async () => {
    const url = local((await links()).ready.file_url);
    const signature = new URL(url).searchParams.get('signature')!;
    await expectForbidden(withParam(url, 'signature', (signature[0] === '0' ? '1' : '0') + signature.slice(1)));
    await expectForbidden(withParam(url, 'expires', String(Number(new URL(url).searchParams.get('expires')) + 1)));
    await expectForbidden(url.replace(readyVideoId, queuedVideoId));
    await expectForbidden(url.replace(`${readyVideoId}.mp4`, 'not-a-uuid.mp4'));
    await expectForbidden(url.split('?')[0]);
  });

  test('a tampered signature, expiry or video id of a poster or SRT link → 403 forbidden, as for file_url', async () => {
    const { ready } = await links();
    for (const link of [ready.thumbnail_url, ready.captions_srt_url]) {
      const url = local(link);
      const signature = new URL(url).searchParams.get('signature')!;
      await expectForbidden(withParam(url, 'signature', (signature[0] === '0' ? '1' : '0') + signature.slice(1)));
      await expectForbidden(withParam(url, 'expires', String(Number(new URL(url).searchParams.get('expires')) + 1)));
      await expectForbidden(url.replace(readyVideoId, queuedVideoId));
      await expectForbidden(url.split('?')[0]);
    }
    const expired = signFileLink(
      { kind: 'thumbnail', videoId: readyVideoId, expiresAt: Math.floor(Date.now() / 1000) - 1 },
      loadSigningKey(h.config),
    );
    await expectForbidden(`${h.baseUrl}${expired}`);
  });

  test('one kind of link opens no other kind of file', async () => {
    const { ready } = await links();
    const paths: Record<string, string> = {
      file_url: `/videos/${readyVideoId}.mp4`,
      captions_url: `/captions/${readyVideoId}.vtt`,
      captions_srt_url: `/captions/${readyVideoId}.srt`,
      thumbnail_url: `/thumbnails/${readyVideoId}.jpg`,
    };
    for (const [field, own] of Object.entries(paths)) {
      for (const other of Object.values(paths)) {
        if (other !== own) await expectForbidden(local(ready[field]).replace(own, other));
      }
    }
    // An extension the directory does not serve.
    await expectForbidden(local(ready.thumbnail_url).replace(`${readyVideoId}.jpg`, `${readyVideoId}.webp`));
  });

  test('an expired link → 403 forbidden', async () => {
    const sign = (expiresAt: number) =>
      `${h.baseUrl}${signFileLink({ kind: 'video', videoId: readyVideoId, expiresAt }, loadSigningKey(h.config))}`;
    const now = Math.floor(Date.now() / 1000);
    expect((await fetch(sign(now + 60), { method: 'HEAD' })).status).toBe(200);
    await expectForbidden(sign(now - 1));
    expect((await (await fetch(sign(now - 1))).json()).error.message).toMatch(/expired/);
  });

  test('a correctly signed link to a video that is not ready, or unknown → 404 not_found', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 60;
    for (const videoId of [queuedVideoId, crypto.randomUUID()]) {
      const res = await fetch(`${h.baseUrl}${signFileLink({ kind: 'video', videoId, expiresAt }, loadSigningKey(h.config))}`);
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe('not_found');
    }
  });
});
