/**
 * The frames the video's own check looks at, taken from the rendered file in one decoding pass: seeking to each
 * scene's midpoint apart (lib/render/contact-sheet.ts frameAt) decodes from the keyframe before it every time, up to
 * 8 s of a full-quality video per frame — twice the CPU of decoding the whole video once and keeping the frames wanted.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { frameAt } from '../render/contact-sheet';
import { run } from '../voice/exec';

/** The video stream's frame rate (frames a second), from ffprobe. */
export async function frameRate(video: string): Promise<number> {
  const { stdout } = await run(
    'ffprobe',
    ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=r_frame_rate', '-of', 'csv=p=0', video],
    { timeoutMs: 30_000 },
  );
  const [num, den] = stdout.trim().split('/').map(Number);
  const rate = den ? num / den : num;
  if (!(rate > 0)) throw new Error(`no frame rate in ${video}`);
  return rate;
}

/** One PNG a moment of `video` (`seconds`, in order or not), in `dir`: the frame shown at each moment. */
export async function framesAt(video: string, seconds: number[], dir: string): Promise<string[]> {
  await fs.mkdir(dir, { recursive: true });
  const rate = await frameRate(video);
  const numbers = seconds.map((s) => Math.max(0, Math.round(s * rate)));
  const wanted = [...new Set(numbers)].sort((a, b) => a - b);
  const select = wanted.map((n) => `eq(n\\,${n})`).join('+');
  const pattern = path.join(dir, 'quality-frame-n%03d.png');
  await run('ffmpeg', ['-v', 'error', '-y', '-i', video, '-vf', `select='${select}'`, '-fps_mode', 'passthrough', pattern], {
    timeoutMs: 120_000,
  });
  const files = await Promise.all(
    wanted.map(async (_, i) => {
      const file = path.join(dir, `quality-frame-n${String(i + 1).padStart(3, '0')}.png`);
      return (await fs.stat(file).catch(() => null)) ? file : null;
    }),
  );
  // A moment past the last frame (a rounding at the very end): taken by seeking instead.
  return Promise.all(
    numbers.map(async (n, i) => files[wanted.indexOf(n)] ?? frameAt(video, seconds[i], path.join(dir, `quality-frame-at-${i}.png`))),
  );
}
