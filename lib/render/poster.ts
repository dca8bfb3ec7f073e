/**
 * A video's poster (its `thumbnail_url`): one frame of the rendered video, from its hero scene — the first
 * screen scene, the top of the page, right after the title card — taken at a moment when that scene alone is
 * on screen. Written as a JPEG at the video's own frame size, so it is exactly what a viewer sees there.
 */
import { run } from '../voice/exec';
import type { RenderPlan } from './plan';
import { messageOf } from '../errors';

const FFMPEG_TIMEOUT_MS = 60_000;
/** ffmpeg's JPEG quality scale (2 best … 31 worst): 3 is visually lossless for a frame of text and screenshots. */
const JPEG_QUALITY = 3;

/**
 * Where the hero scene is fully shown, in video seconds: after the fade from the title card has ended, until
 * the fade to the next scene begins (clips overlap by the transition, lib/render/plan.ts). A storyboard
 * without a screen scene takes its first clip the same way.
 */
export function heroStretch(plan: Pick<RenderPlan, 'clips'>): { from: number; until: number } {
  const { clips } = plan;
  if (clips.length === 0) throw new Error('a render plan without clips has no poster');
  const hero = Math.max(
    0,
    clips.findIndex((clip) => clip.kind === 'screen' && clip.imagePath),
  );
  const clip = clips[hero];
  const previous = clips[hero - 1];
  const next = clips[hero + 1];
  const from = previous ? Math.max(clip.start, previous.start + previous.duration) : clip.start;
  const until = next ? next.start : clip.start + clip.duration;
  return { from, until: Math.max(from, until) };
}

/**
 * The moment of the poster, in video seconds: within the middle third of the hero's stretch, the keyframe
 * nearest its middle when there is one (ffmpeg then decodes one frame instead of every frame since the
 * previous keyframe: most of the poster's cost on a full-size video), else the middle itself. Anywhere in that
 * third the scene's headline band has faded in too (it takes the first sixth of a clip; the third starts
 * more than a fifth in). Rounded up to the millisecond, so a keyframe is not missed by rounding.
 */
export function posterMoment(plan: Pick<RenderPlan, 'clips'>, keyframes: number[] = []): number {
  const { from, until } = heroStretch(plan);
  const middle = (from + until) / 2;
  const third = (until - from) / 3;
  const nearest = keyframes
    .filter((t) => t >= from + third && t <= until - third)
    .sort((a, b) => Math.abs(a - middle) - Math.abs(b - middle))[0];
  return Math.ceil((nearest ?? middle) * 1000 - 1e-6) / 1000;
}

/** The times of a video's keyframes, in seconds from the start of the file (as ffmpeg's -ss counts); [] when unreadable. */
export async function keyframeTimes(video: string): Promise<number[]> {
  try {
    const { stdout } = await run(
      'ffprobe',
      ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'format=start_time:packet=pts_time,flags', '-of', 'json', video],
      { timeoutMs: FFMPEG_TIMEOUT_MS },
    );
    const probe = JSON.parse(stdout) as { format?: { start_time?: string }; packets?: Array<{ pts_time?: string; flags?: string }> };
    const start = Number(probe.format?.start_time ?? 0) || 0;
    return (probe.packets ?? []).filter((p) => p.flags?.startsWith('K') && p.pts_time !== undefined).map((p) => Number(p.pts_time) - start);
  } catch {
    return [];
  }
}

/** The frame of `video` at `seconds`, as a JPEG at the video's frame size. */
export async function writePoster(video: string, seconds: number, output: string): Promise<void> {
  await run(
    'ffmpeg',
    ['-v', 'error', '-y', '-ss', seconds.toFixed(3), '-i', video, '-frames:v', '1', '-q:v', String(JPEG_QUALITY), '-update', '1', output],
    { timeoutMs: FFMPEG_TIMEOUT_MS },
  );
}

/** What is wrong with a written poster: not a JPEG ffprobe can read, or not the frame's size. */
export async function posterProblems(file: string, frame: { width: number; height: number }): Promise<string[]> {
  let stream: { codec_name?: string; width?: number; height?: number } | undefined;
  try {
    const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,width,height', '-of', 'json', file], {
      timeoutMs: FFMPEG_TIMEOUT_MS,
    });
    stream = (JSON.parse(stdout) as { streams?: Array<typeof stream> }).streams?.[0];
  } catch (err) {
    return [`the poster could not be read (${messageOf(err)})`];
  }
  const problems: string[] = [];
  if (stream?.codec_name !== 'mjpeg') problems.push(`the poster is ${stream?.codec_name ?? 'nothing'}, not a JPEG`);
  if (stream?.width !== frame.width || stream?.height !== frame.height)
    problems.push(`the poster is ${stream?.width}×${stream?.height}, not the frame's ${frame.width}×${frame.height}`);
  return problems;
}
