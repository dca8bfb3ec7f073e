import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config';
import { fileLinks, loadSigningKey, signFileLink, verifyFileLink } from '../../lib/storage/file-links';

const key = crypto.randomBytes(32);
const videoId = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const otherVideoId = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4c';
const now = 1_800_000_000;

function parts(link: string) {
  const url = new URL(link, 'http://x');
  return { pathname: url.pathname, expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! };
}

function freshDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cv-signing-'));
}

describe('download links', () => {
  const link = signFileLink({ kind: 'video', videoId, expiresAt: now + 60 }, key);
  const { expires, signature } = parts(link);

  test('have the documented shape and verify', () => {
    expect(link).toMatch(new RegExp(`^/files/videos/${videoId}\\.mp4\\?expires=${now + 60}&signature=[0-9a-f]{64}$`));
    expect(signFileLink({ kind: 'captions', videoId, expiresAt: now + 60 }, key)).toMatch(
      new RegExp(`^/files/captions/${videoId}\\.vtt\\?`),
    );
    expect(verifyFileLink('video', videoId, expires, signature, key, now)).toBe('ok');
  });

  test('any change to kind, id, expiry, signature or key makes them invalid', () => {
    const flipped = (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1);
    expect(verifyFileLink('video', videoId, expires, flipped, key, now)).toBe('invalid');
    expect(verifyFileLink('video', otherVideoId, expires, signature, key, now)).toBe('invalid');
    expect(verifyFileLink('video', videoId, String(now + 3600), signature, key, now)).toBe('invalid');
    expect(verifyFileLink('captions', videoId, expires, signature, key, now)).toBe('invalid');
    expect(verifyFileLink('video', videoId, expires, signature, crypto.randomBytes(32), now)).toBe('invalid');
    expect(verifyFileLink('video', videoId, expires, signature.slice(0, 32), key, now)).toBe('invalid');
    expect(verifyFileLink('video', videoId, expires, signature.toUpperCase(), key, now)).toBe('invalid');
    expect(verifyFileLink('video', videoId, `${expires}.5`, signature, key, now)).toBe('invalid');
  });

  test('expire at their expiry time', () => {
    expect(verifyFileLink('video', videoId, expires, signature, key, now + 59)).toBe('ok');
    expect(verifyFileLink('video', videoId, expires, signature, key, now + 60)).toBe('expired');
    expect(verifyFileLink('video', videoId, expires, signature, key, now + 86_400)).toBe('expired');
  });

  test('fileLinks: absolute, valid for FILE_URL_TTL, null unless ready with a stored file', () => {
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://videos.example.com/', FILE_URL_TTL: '2h' });
    const ready = {
      id: videoId,
      status: 'ready',
      file_key: 'campaigns/c/v.mp4',
      captions_key: 'campaigns/c/v.vtt',
      captions_srt_key: 'campaigns/c/v.srt',
      thumbnail_key: 'campaigns/c/v.jpg',
    };
    const links = fileLinks(config, key, ready, now * 1000);
    expect(links.file_url).toMatch(new RegExp(`^https://videos\\.example\\.com/files/videos/${videoId}\\.mp4\\?`));
    expect(links.captions_url).toMatch(new RegExp(`^https://videos\\.example\\.com/files/captions/${videoId}\\.vtt\\?`));
    const video = parts(links.file_url!);
    expect(Number(video.expires)).toBe(now + 7200);
    expect(verifyFileLink('video', videoId, video.expires, video.signature, key, now + 7199)).toBe('ok');
    const captions = parts(links.captions_url!);
    expect(verifyFileLink('captions', videoId, captions.expires, captions.signature, key, now)).toBe('ok');
    expect(links.captions_srt_url).toMatch(new RegExp(`^https://videos\\.example\\.com/files/captions/${videoId}\\.srt\\?`));
    expect(links.thumbnail_url).toMatch(new RegExp(`^https://videos\\.example\\.com/files/thumbnails/${videoId}\\.jpg\\?`));
    const srt = parts(links.captions_srt_url!);
    const thumbnail = parts(links.thumbnail_url!);
    expect(verifyFileLink('captions_srt', videoId, srt.expires, srt.signature, key, now)).toBe('ok');
    expect(verifyFileLink('thumbnail', videoId, thumbnail.expires, thumbnail.signature, key, now)).toBe('ok');
    // Each kind's signature opens that kind only.
    expect(verifyFileLink('captions', videoId, srt.expires, srt.signature, key, now)).toBe('invalid');
    expect(verifyFileLink('video', videoId, thumbnail.expires, thumbnail.signature, key, now)).toBe('invalid');

    expect(fileLinks(config, key, { ...ready, status: 'rendering' })).toEqual({
      file_url: null,
      captions_url: null,
      captions_srt_url: null,
      thumbnail_url: null,
    });
    expect(fileLinks(config, key, { ...ready, captions_key: null })).toMatchObject({ file_url: expect.any(String), captions_url: null });
    expect(fileLinks(config, key, { ...ready, thumbnail_key: null, captions_srt_key: null })).toMatchObject({
      file_url: expect.any(String),
      captions_srt_url: null,
      thumbnail_url: null,
    });
  });
});

describe('loadSigningKey', () => {
  test('SIGNING_KEY is used as UTF-8 bytes and must have at least 32 characters', () => {
    const dataDir = freshDir();
    const secret = 'é'.repeat(32);
    expect(loadSigningKey(loadConfig({ SIGNING_KEY: secret, DATA_DIR: dataDir }))).toEqual(Buffer.from(secret, 'utf8'));
    expect(fs.existsSync(path.join(dataDir, 'signing.key'))).toBe(false);
    expect(() => loadSigningKey(loadConfig({ SIGNING_KEY: 'x'.repeat(31), DATA_DIR: dataDir }))).toThrow(/at least 32/);
  });

  test('without SIGNING_KEY a key is generated into DATA_DIR/signing.key once (mode 0600) and reused', () => {
    const dataDir = path.join(freshDir(), 'not-yet-created');
    const first = loadSigningKey(loadConfig({ DATA_DIR: dataDir }));
    const file = path.join(dataDir, 'signing.key');
    expect(first).toHaveLength(32);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(first.toString('hex'));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadSigningKey(loadConfig({ DATA_DIR: dataDir }))).toEqual(first);
    expect(fs.readdirSync(dataDir)).toEqual(['signing.key']);
  });

  test('an existing key file is read, not replaced', () => {
    const dataDir = freshDir();
    const existing = crypto.randomBytes(32).toString('hex');
    fs.writeFileSync(path.join(dataDir, 'signing.key'), `${existing}\n`);
    expect(loadSigningKey(loadConfig({ DATA_DIR: dataDir })).toString('hex')).toBe(existing);
  });

  test('processes starting at once on a fresh DATA_DIR all end up with the same key', async () => {
    const rounds = 20;
    const dataDirs = Array.from({ length: rounds }, freshDir);
    const startAt = Date.now() + 2500;
    // In each round every child waits for the same instant, then races the others to create that round's key file.
    const script = `
      const { loadSigningKey } = require(${JSON.stringify(path.resolve(__dirname, '../../lib/storage/file-links.ts'))});
      const { loadConfig } = require(${JSON.stringify(path.resolve(__dirname, '../../config/index.ts'))});
      const keys = ${JSON.stringify(dataDirs)}.map((dataDir, round) => {
        while (Date.now() < ${startAt} + round * 20);
        return loadSigningKey(loadConfig({ DATA_DIR: dataDir })).toString('hex');
      });
      process.stdout.write(JSON.stringify(keys));
    `;
    const run = () =>
      new Promise<string[]>((resolve, reject) => {
        const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
        });
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited with ${code}`))));
      });
    const children = await Promise.all(Array.from({ length: 6 }, run));
    dataDirs.forEach((dataDir, round) => {
      const stored = fs.readFileSync(path.join(dataDir, 'signing.key'), 'utf8').trim();
      expect(stored).toMatch(/^[0-9a-f]{64}$/);
      expect(children.map((keys) => keys[round])).toEqual(children.map(() => stored));
      expect(fs.readdirSync(dataDir)).toEqual(['signing.key']);
    });
  }, 30_000);
});
