/**
 * Listening by measurement: a file's level (RMS, dBFS) in consecutive windows, decoded by ffmpeg, and the windows
 * where a narration speaks or pauses. Used to judge music under the voice (test/unit/music-mix.test.ts,
 * test/integration/music.test.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const RATE = 48_000;
export const WINDOW_SECONDS = 0.2;

/** The level of each WINDOW_SECONDS of `file` (a path or URL), its channels averaged; -Infinity for digital silence. */
export async function windowLevels(file: string): Promise<number[]> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-vn', '-ac', '1', '-ar', String(RATE), '-f', 'f32le', '-'], {
    encoding: 'buffer',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 60_000,
  });
  const samples = new Float32Array(stdout.buffer, stdout.byteOffset, Math.floor(stdout.length / 4));
  const size = Math.round(RATE * WINDOW_SECONDS);
  const levels: number[] = [];
  for (let start = 0; start + size <= samples.length; start += size) {
    let sum = 0;
    for (let i = start; i < start + size; i += 1) sum += samples[i] * samples[i];
    levels.push(10 * Math.log10(sum / size));
  }
  return levels;
}

/**
 * The windows where the narration clearly speaks (within 10 dB of its median speaking level: not the tail of a word
 * fading out) and where it is silent (below -70 dBFS), by index.
 */
export function speechAndPauses(voice: number[]): { speech: number[]; pauses: number[] } {
  const voiced = voice.filter((level) => level > -60).sort((a, b) => a - b);
  const median = voiced[Math.floor(voiced.length / 2)];
  const speech: number[] = [];
  const pauses: number[] = [];
  voice.forEach((level, i) => {
    if (level > median - 10) speech.push(i);
    else if (!(level > -70)) pauses.push(i);
  });
  return { speech, pauses };
}

/** The level of the windows at `indices` taken together (their power averaged), dBFS. */
export function levelOver(levels: number[], indices: number[]): number {
  const power = indices.reduce((sum, i) => sum + 10 ** (levels[i] / 10), 0) / indices.length;
  return 10 * Math.log10(power);
}
