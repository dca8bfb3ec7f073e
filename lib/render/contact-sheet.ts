/**
 * Looking at a video as its customer would: one frame per scene, taken at the scene's midpoint (the picture is
 * settled there: no transition, the headline band faded in), and a contact sheet of them side by side, so a
 * person sees a whole campaign at a glance. Used by the demo (which prints the sheets' paths) and the visual
 * tests (which read the frames with OCR).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Storyboard } from '../campaign/storyboard';
import { run } from '../voice/exec';

/** The moment of each scene worth looking at: its midpoint, in video seconds. */
export function sceneMidpoints(storyboard: Pick<Storyboard, 'scenes'>): Array<{ index: number; kind: string; seconds: number }> {
  return storyboard.scenes.map((scene) => ({
    index: scene.index,
    kind: scene.kind,
    seconds: scene.startSeconds + scene.durationSeconds / 2,
  }));
}

/** One frame of `video` at `seconds`, as a PNG at the video's own size. */
export async function frameAt(video: string, seconds: number, output: string): Promise<string> {
  await run('ffmpeg', ['-v', 'error', '-y', '-ss', seconds.toFixed(3), '-i', video, '-frames:v', '1', output], { timeoutMs: 60_000 });
  return output;
}

/**
 * A JPEG with one frame per scene in a row (each `tileHeight` high, a thin gap between), for a person to look
 * at. Returns the frames it took (PNG, full size) beside the sheet.
 */
export async function contactSheet(
  video: string,
  storyboard: Pick<Storyboard, 'scenes'>,
  output: string,
  tileHeight = 480,
): Promise<{ sheet: string; frames: string[] }> {
  const dir = path.join(path.dirname(output), `${path.basename(output, path.extname(output))}-frames`);
  await fs.mkdir(dir, { recursive: true });
  const frames: string[] = [];
  for (const moment of sceneMidpoints(storyboard)) {
    frames.push(await frameAt(video, moment.seconds, path.join(dir, `scene-${moment.index}.png`)));
  }
  const inputs = frames.flatMap((frame) => ['-i', frame]);
  const scaled = frames.map((_, i) => `[${i}:v]scale=-2:${tileHeight},pad=iw+12:ih:6:0:color=white[t${i}]`).join(';');
  const row = frames.map((_, i) => `[t${i}]`).join('');
  const filter = frames.length > 1 ? `${scaled};${row}hstack=inputs=${frames.length}` : `${scaled.replace(/\[t0\]$/, '')}`;
  await run('ffmpeg', ['-v', 'error', '-y', ...inputs, '-filter_complex', filter, '-frames:v', '1', '-q:v', '3', output], {
    timeoutMs: 60_000,
  });
  return { sheet: output, frames };
}
