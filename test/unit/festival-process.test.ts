/**
 * festival with its voice kept loaded (lib/voice/festival-process.ts), with the real festival and slt HTS voice:
 * the audio is byte-for-byte text2wave's; the voice is loaded once for many texts; text is never Scheme; a text
 * festival fails on is reported and the process goes on; a process that dies is replaced; close ends them.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measureDuration } from '../../lib/voice/audio';
import { FestivalProvider } from '../../lib/voice/festival';
import { FestivalPool, schemeString } from '../../lib/voice/festival-process';
import { processAlive } from '../support/wait';

let dir: string;
const tmp = (name: string) => path.join(dir, name);
const VOICE = 'cmu_us_slt_arctic_hts';

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'festival-process-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a kept-loaded festival', () => {
  const speech = new FestivalProvider();
  afterAll(() => speech.close());

  test('says a text into the same bytes as text2wave, and loads the voice once for many texts', async () => {
    const text = 'Meet the new dashboard: every number, live, in one place.';
    writeFileSync(tmp('t2w.txt'), `${text}\n`);
    execFileSync('text2wave', ['-eval', `(voice_${VOICE})`, '-otype', 'riff', '-o', tmp('t2w.wav'), tmp('t2w.txt')]);
    for (const n of [1, 2, 3]) await speech.synthesize({ text, language: 'en', outFile: tmp(`kept-${n}.wav`) });
    for (const n of [1, 2, 3]) expect(readFileSync(tmp(`kept-${n}.wav`)).equals(readFileSync(tmp('t2w.wav')))).toBe(true);
    expect(speech.pool.started).toBe(1);
    expect(speech.pool.pids()).toHaveLength(1);
  }, 60_000);

  test('text that looks like Scheme is read as text, and the process goes on', async () => {
    const text = 'Say ") (quit) (format t "x") and \\ backslashes" plainly.';
    await speech.synthesize({ text, language: 'en', outFile: tmp('scheme.wav') });
    expect(await measureDuration(tmp('scheme.wav'))).toBeGreaterThan(1.5);
    await speech.synthesize({ text: 'Still here.', language: 'en', outFile: tmp('after.wav') });
    expect(await measureDuration(tmp('after.wav'))).toBeGreaterThan(0.4);
    expect(speech.pool.started).toBe(1);
  }, 60_000);

  test('a text festival fails on rejects with its reason; the same process says the next one', async () => {
    const pid = speech.pool.pids()[0];
    mkdirSync(tmp('a-directory'));
    await expect(speech.synthesize({ text: 'Lost.', language: 'en', outFile: tmp('a-directory') })).rejects.toThrow(
      /festival failed: .*can't open/,
    );
    await speech.synthesize({ text: 'Found.', language: 'en', outFile: tmp('found.wav') });
    expect(speech.pool.pids()).toEqual([pid]);
  }, 60_000);

  test('a festival that died is replaced at the next text', async () => {
    const [pid] = speech.pool.pids();
    process.kill(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await speech.synthesize({ text: 'Back again.', language: 'en', outFile: tmp('again.wav') });
    expect(await measureDuration(tmp('again.wav'))).toBeGreaterThan(0.4);
    expect(speech.pool.started).toBe(2);
    expect(speech.pool.pids()).not.toContain(pid);
  }, 60_000);
});

test('a festival that cannot start fails the text waiting for it (no endless retries); close ends the processes', async () => {
  const missing = new FestivalPool({ binary: tmp('no-festival'), voice: VOICE, timeoutMs: 10_000, max: 1, idleMs: 60_000 });
  await expect(missing.synthesize('Hello.', tmp('missing.wav'))).rejects.toThrow(/not found/);
  await missing.close();

  const pool = new FestivalPool({ binary: 'festival', voice: VOICE, timeoutMs: 30_000, max: 2, idleMs: 60_000 });
  await Promise.all([pool.synthesize('One.', tmp('one.wav')), pool.synthesize('Two.', tmp('two.wav'))]);
  const pids = pool.pids();
  expect(pids.length).toBeGreaterThanOrEqual(1);
  await pool.close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (const pid of pids) expect(processAlive(pid)).toBe(false);
}, 60_000);

test('file names become Scheme strings with quotes and backslashes escaped; a newline is refused', () => {
  expect(schemeString('/tmp/a "b" \\c.wav')).toBe('"/tmp/a \\"b\\" \\\\c.wav"');
  expect(() => schemeString('/tmp/a\n(quit)')).toThrow(/newline/);
});
