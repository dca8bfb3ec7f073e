/**
 * Object storage against a real S3-protocol server (s3rver, from npm, in this process): the
 * FileStorage contract on a bucket (whole writes, stat, ranges, streamed files, prefix removal, missing files as
 * ENOENT), then a campaign run to review with STORAGE_URL set and capture on a node of its own: every file is an
 * object in the bucket, none is on a node's disk, and the API streams the video (and a Range of it) from the bucket.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { parseStorageUrl, type S3StorageSettings } from '../../config';
import { S3FileStorage } from '../../lib/storage/s3';
import { storageKeys } from '../../lib/storage/keys';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { runCampaign } from '../support/campaign-run';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
};

// Asynchronous: the gateway that serves the file runs in this process, and a synchronous child would block it.
const run = promisify(execFile);
const BUCKET = 'campaign-files';
let server: InstanceType<typeof S3rver>;
let settings: S3StorageSettings;
let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  settings = parseStorageUrl(`s3://${BUCKET}/tenant-a?endpoint=http://127.0.0.1:${port}`, {
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  })!;
});
afterAll(async () => {
  await server?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

test('STORAGE_URL: bucket, key prefix, endpoint (path-style), credentials from the AWS variables; bad ones refused', () => {
  expect(settings).toMatchObject({ bucket: BUCKET, prefix: 'tenant-a', forcePathStyle: true, region: 'us-east-1' });
  expect(settings.credentials).toEqual({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
  expect(parseStorageUrl('s3://videos')).toMatchObject({ bucket: 'videos', prefix: '', forcePathStyle: false, endpoint: undefined });
  expect(() => parseStorageUrl('gs://videos')).toThrow(/only s3/);
  expect(() => parseStorageUrl('s3://videos?endpont=http://x')).toThrow(/unknown parameter "endpont"/);
  expect(() => parseStorageUrl('s3://x')).toThrow(/bucket name/);
});

describe('the FileStorage contract on a bucket', () => {
  let storage: S3FileStorage;
  beforeAll(() => {
    storage = new S3FileStorage(settings);
  });

  test('put, get, stat, exists; a range; a missing file is null for stat and ENOENT for reads', async () => {
    const data = crypto.randomBytes(300_000);
    await storage.put('campaigns/c1/capture/a.png', data);
    expect((await storage.get('campaigns/c1/capture/a.png')).equals(data)).toBe(true);
    expect(await storage.stat('campaigns/c1/capture/a.png')).toMatchObject({ size: data.length });
    expect(await storage.exists('campaigns/c1/capture/a.png')).toBe(true);
    const chunks: Buffer[] = [];
    for await (const chunk of await storage.createReadStream('campaigns/c1/capture/a.png', { start: 1000, end: 1999 }))
      chunks.push(Buffer.from(chunk as Uint8Array));
    expect(Buffer.concat(chunks).equals(data.subarray(1000, 2000))).toBe(true);
    expect(await storage.stat('campaigns/c1/nothing.png')).toBeNull();
    expect(await storage.exists('campaigns/c1/nothing.png')).toBe(false);
    await expect(storage.get('campaigns/c1/nothing.png')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(() => storage.objectKey('../etc/passwd')).toThrow(/invalid storage key/);
  });

  test('files are streamed both ways, under the prefix; removing a prefix removes that directory only', async () => {
    const local = path.join(dir, 'video.bin');
    const data = crypto.randomBytes(6 * 1024 * 1024);
    await fs.writeFile(local, data);
    await storage.putFile('campaigns/c2/videos/v.mp4', local);
    await storage.put('campaigns/c2/capture/x.png', Buffer.from('x'));
    await storage.put('campaigns/c2/capture-old/y.png', Buffer.from('y'));
    const back = path.join(dir, 'back.bin');
    await storage.getFile('campaigns/c2/videos/v.mp4', back);
    expect((await fs.readFile(back)).equals(data)).toBe(true);
    const head = await storage.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'tenant-a/campaigns/c2/videos/v.mp4' }));
    expect(head.ContentLength).toBe(data.length);

    await storage.removePrefix('campaigns/c2/capture');
    expect(await storage.exists('campaigns/c2/capture/x.png')).toBe(false);
    expect(await storage.exists('campaigns/c2/capture-old/y.png')).toBe(true);
    expect(await storage.exists('campaigns/c2/videos/v.mp4')).toBe(true);
  });
});

describe('a campaign with STORAGE_URL set', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      capture: 'own-node',
      render: 'worker',
      config: {
        ...CHECK_NOT_THE_SUBJECT,
        storage: settings,
        videoTargetSeconds: 10,
        captureMaxShots: 2,
        rateLimits: { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 },
      },
    });
  }, 120_000);
  afterAll(async () => h?.stop());

  test('every file is an object in the bucket, none on a node; the API streams the video and a Range of it', async () => {
    const { key } = await h.newCustomer('business');
    const { id, campaign } = await runCampaign(h, key, { languages: ['en'], platforms: ['tiktok'], quality: 'draft' });
    expect(campaign.status).toBe('review');
    const [video] = campaign.videos;

    const storage = new S3FileStorage(settings);
    const listed = await storage.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `tenant-a/campaigns/${id}/` }));
    const keys = (listed.Contents ?? []).map((object) => object.Key!.slice('tenant-a/'.length));
    for (const expected of [
      storageKeys.video(id, video.id),
      storageKeys.thumbnail(id, video.id),
      storageKeys.captionsSrt(id, video.id),
      storageKeys.narration(id, 'en'),
      storageKeys.captions(id, 'en'),
    ])
      expect(keys).toContain(expected);
    expect(keys.some((k) => k.includes('/capture/'))).toBe(true);
    // Nothing went through the `files` service or a node's disk.
    const onDisk = await fs.readdir(path.join(h.config.dataDir, 'files'), { recursive: true }).catch(() => []);
    expect(onDisk).toEqual([]);

    const stored = await storage.get(storageKeys.video(id, video.id));
    const url = video.file_url.replace(h.config.publicBaseUrl, h.baseUrl);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(stored)).toBe(true);
    // The object is the video itself (a store that kept upload framing in it would fail here): 540×960, decodable.
    const { stdout } = await run(
      'ffprobe',
      ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'json', url],
      { timeout: 60_000 },
    );
    expect(JSON.parse(stdout).streams[0]).toEqual({ width: 540, height: 960 });
    const part = await fetch(url, { headers: { range: 'bytes=100-1123' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-1123/${stored.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(stored.subarray(100, 1124))).toBe(true);
  }, 300_000);
});
