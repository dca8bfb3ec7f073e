/**
 * Hook variants rendered once where they are the same (decisions §15): a language × platform's videos of variant a,
 * b and c differ only in their title scene, so the picture after it — the first screen from the end of the fade into
 * it, and every scene after — is rendered once and each variant renders only its opening (its title and the fade into
 * the first screen), both parts encoded alike and joined by stream copy (ffmpeg's concat demuxer).
 *
 * editly counts in frames, clip by clip: the title's N0 frames (its last t0 faded into the first screen's first t0),
 * then the first screen from its frame t0 on, and so on. The head is the first N0 frames of a render; the tail the
 * rest. Both are the frames a whole render makes, so a joined video is the whole video, frame for frame, of the same
 * length. The pure parts (which frames, what the tail depends on) are here; lib/render/render-video.ts runs them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { run } from '../voice/exec';
import type { PlanSplit, PlannedClip, RenderPlan } from './plan';

const framesOf = (seconds: number, fps: number) => Math.round(seconds * fps);

/**
 * The frames where a plan's picture splits (editly's own counts: index.js rounds each clip's duration to frames and
 * fades over min(transition, half of either clip)); null when it has nothing to share: no title followed by a screen
 * and more.
 */
export function splitFrames(
  plan: Pick<RenderPlan, 'clips' | 'encoding' | 'transitionSeconds'>,
): { headFrames: number; transitionFrames: number } | null {
  const [title, first] = plan.clips;
  if (plan.clips.length < 3 || title.kind !== 'title') return null;
  const { fps } = plan.encoding;
  const n0 = framesOf(title.duration, fps);
  const n1 = framesOf(first.duration, fps);
  const transitionFrames = Math.floor(Math.min(Math.min(n0, n1) / 2, framesOf(plan.transitionSeconds, fps)));
  return { headFrames: n0, transitionFrames };
}

/**
 * The plan of a head alone: the title and the first screen, which editly stops soon after the fade (its `shownSeconds`:
 * twice the fade, so that editly fades over the same frames) while the screen's own frames are those of its whole
 * length (its zoom and scroll as in the whole video).
 */
export function headOnlyPlan(plan: RenderPlan, split: PlanSplit): RenderPlan {
  const { fps } = plan.encoding;
  const first = plan.clips[1];
  const n1 = framesOf(first.duration, fps);
  const fade = framesOf(plan.transitionSeconds, fps);
  const shown = Math.min(n1, 2 * fade);
  return { ...plan, clips: [plan.clips[0], { ...first, shownSeconds: shown / fps }], split };
}

/**
 * What the tail's frames depend on, as a digest: the plan without its title clip, times counted from the first
 * screen's start and given as frame numbers (the frame a caption starts on is what the picture shows: two variants'
 * cues a millisecond apart on the same frames give the same tail), the screens by their stored keys, and the fade's
 * frames. Equal digests: the same frames.
 */
export function tailKey(plan: RenderPlan, split: Pick<PlanSplit, 'transitionFrames'>, keyOfPath: (local: string) => string): string {
  const { fps } = plan.encoding;
  const origin = plan.clips[1].start;
  const frame = (t: number) => Math.ceil((t - origin) * fps - 1e-6);
  const clips = plan.clips.slice(1).map((clip: PlannedClip) => ({
    ...clip,
    still: undefined,
    scroll: undefined,
    start: frame(clip.start),
    duration: Math.round(clip.duration * 1e6),
    imagePath: clip.imagePath ? keyOfPath(clip.imagePath) : null,
    captions: clip.captions.map((cue) => ({
      text: cue.text,
      start: frame(cue.start),
      end: frame(cue.end),
      words: cue.words?.map((word) => ({ text: word.text, start: frame(word.start) })),
    })),
  }));
  const description = {
    ...plan,
    videoOnlyPath: undefined,
    split: undefined,
    totalSeconds: undefined,
    logoPath: plan.logoPath ? keyOfPath(plan.logoPath) : null,
    clips,
    transitionFrames: split.transitionFrames,
  };
  return createHash('sha256').update(JSON.stringify(description)).digest('hex').slice(0, 32);
}

/** editly's output arguments for a split render: the head to its file, the tail (when rendered) to editly's outPath. */
export function splitOutputArgs(split: PlanSplit, encode: string[]): { args: string[]; outPath: string } {
  const head = ['-vf', `select=lt(n\\,${split.headFrames})`, ...encode];
  // editly ends the command with `-y <outPath>` (-y is global: it applies to the head's file too).
  if (!split.tailPath) return { args: head, outPath: split.headPath };
  return {
    args: [...head, split.headPath, '-map', '0:v:0', '-vf', `select=gte(n\\,${split.headFrames}),setpts=PTS-STARTPTS`, ...encode],
    outPath: split.tailPath,
  };
}

/** The head and the tail joined into one picture without encoding again (both are encoded alike). */
export async function joinParts(headPath: string, tailPath: string, output: string): Promise<void> {
  const list = path.join(path.dirname(output), 'parts.txt');
  const quote = (file: string) => `file '${file.replace(/'/g, "'\\''")}'`;
  await fs.writeFile(list, `${quote(headPath)}\n${quote(tailPath)}\n`);
  await run('ffmpeg', ['-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-movflags', '+faststart', output], {
    timeoutMs: 60_000,
  });
}
