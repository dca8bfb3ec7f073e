/**
 * streamToFile's stall guard (found by bench/redis-soak): a stream from another node stops for good when its
 * chunks are lost in a Redis restart; with `idleMs` it is given up as REQUEST_TIMEOUT (which the file storage and the
 * renderer treat as the cluster unreachable, and try again), and no partial file is left.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { isClusterUnreachable } from '../../lib/errors';
import { PARTIAL_SUFFIX, streamToFile } from '../../lib/storage/stream-to-file';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stream-to-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a stream that stops giving bytes is given up after idleMs as the cluster unreachable, leaving no file', async () => {
  const source = new PassThrough();
  source.write(Buffer.alloc(1024, 1)); // one chunk, then nothing: its sender's packets were lost
  const target = path.join(dir, 'stalled.png');
  const started = Date.now();
  const err: unknown = await streamToFile(() => Promise.resolve(source), target, { idleMs: 300 }).catch((e: unknown) => e);
  expect(err).toMatchObject({ type: 'REQUEST_TIMEOUT' });
  expect(isClusterUnreachable(err)).toBe(true);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(fs.existsSync(target) || fs.existsSync(`${target}${PARTIAL_SUFFIX}`)).toBe(false);
});

test('a stream that keeps giving bytes, more slowly than idleMs in all but never idle that long, is copied whole', async () => {
  const source = new PassThrough();
  const target = path.join(dir, 'slow.bin');
  const copying = streamToFile(() => Promise.resolve(source), target, { idleMs: 300 });
  for (let i = 0; i < 5; i += 1) {
    source.write(Buffer.alloc(100, i));
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  source.end();
  await copying;
  expect(fs.readFileSync(target)).toHaveLength(500);
});
