/** A silent 48 kHz mono 16-bit WAV of `seconds`: the narration of render tests that look at pictures only. */
import { execFileSync } from 'node:child_process';

export function writeSilence(file: string, seconds: number): void {
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'anullsrc=r=48000:cl=mono',
    '-t',
    String(seconds),
    '-c:a',
    'pcm_s16le',
    file,
  ]);
}
