/**
 * One video, start to finish, in a work directory: inputs fetched and checked, the plan written, editly
 * run in its child process, the narration muxed in, the result probed. Used by the renderer service and
 * by bench/render (which gives it local files), so the benchmark measures the product's own path.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseWebVtt, toSrt, type Cue } from '../captions';
import { isClusterUnreachable, stageFailure } from '../errors';
import {
  cutsContent,
  endRegionAt,
  frameShot,
  gapSearchRows,
  KEN_BURNS_ZOOM,
  lowestBlankRow,
  type Framing,
  type ShotContent,
} from '../framing';
import { run } from '../voice/exec';
import { composeStillArgs } from './clip-graph';
import type { Storyboard } from '../storyboard';
import { deliverableProblems, encodeNarration, imageSize, isReadableImage, muxNarration, probeVideo, type ProbedVideo } from './media';
import { screenLayout } from './overlay-layout';
import { buildRenderPlan, type RenderEncoding, type RenderPlan, type RenderQuality } from './plan';
import { keyframeTimes, posterMoment, posterProblems, writePoster } from './poster';
import { RenderProcessError, runEditly } from './run-editly';

export interface RenderVideoOptions {
  storyboard: Storyboard;
  workDir: string;
  /** Copies a stored file to a local path. */
  fetchInput(key: string, localPath: string): Promise<void>;
  quality: RenderQuality;
  encoding?: Partial<RenderEncoding>;
  transitionSeconds?: number;
  memoryLimitBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

export class RenderAbortedError extends Error {}

export interface RenderedVideo {
  outputPath: string;
  /** The poster: a JPEG of the hero scene at the frame's size (lib/render/poster.ts). */
  posterPath: string;
  /** SubRip captions made from the same cues as the storyboard's WebVTT (and as the burned-in captions). */
  captionsSrtPath: string;
  probe: ProbedVideo;
  peakRssBytes: number;
  /** The same peak as proportional sets (lib/render/run-editly.ts): shared libraries counted once. */
  peakPssBytes: number;
}

/** Every input fetched and checked, each screen composed for the frame, the plan written: its path. */
async function preparePlan(options: RenderVideoOptions): Promise<{ planPath: string; plan: RenderPlan; cues: Cue[]; narration: string }> {
  const { storyboard, workDir } = options;
  const inputs = new Map<string, string>();
  const fetch = async (key: string) => {
    if (!inputs.has(key)) {
      const local = path.join(workDir, `in-${inputs.size}${path.extname(key)}`);
      inputs.set(key, local);
      try {
        await options.fetchInput(key, local);
      } catch (err) {
        // The cluster unreachable (a Redis restart) is not the file's fault: the renderer has it rendered again.
        if (isClusterUnreachable(err)) throw err;
        throw stageFailure('render_failed', `Input file ${key} could not be read: ${(err as Error).message}`, true);
      }
    }
    return inputs.get(key)!;
  };
  const screenshotKeys = [...new Set(storyboard.scenes.flatMap((scene) => (scene.screenshotKey ? [scene.screenshotKey] : [])))];
  for (const key of screenshotKeys) await fetch(key);
  await Promise.all(
    screenshotKeys.map(async (key) => {
      // A screen that does not decode cleanly would be drawn wrong or not at all: refuse it instead.
      if (!(await isReadableImage(inputs.get(key)!)))
        throw stageFailure('render_failed', `Input file ${key} is not a readable image.`, true);
    }),
  );
  if (storyboard.brand.logoKey) {
    const logo = await fetch(storyboard.brand.logoKey);
    if (!(await isReadableImage(logo)))
      throw stageFailure('render_failed', `Input file ${storyboard.brand.logoKey} is not a readable image.`, true);
  }
  const narration = await fetch(storyboard.narrationKey);
  const cues = parseWebVtt((await fs.readFile(await fetch(storyboard.captionsKey))).toString('utf8'));
  const plan = buildRenderPlan(storyboard, cues, (key) => inputs.get(key)!, {
    quality: options.quality,
    encoding: options.encoding,
    transitionSeconds: options.transitionSeconds,
    videoOnlyPath: path.join(workDir, 'picture.mp4'),
  });
  // Each screen composed for the frame once, two at a time (the machine's cores).
  const waiting = plan.clips.filter((clip) => clip.imagePath);
  const composeNext = async (): Promise<void> => {
    const clip = waiting.shift();
    if (!clip) return;
    // A screen without a recorded content box (an older storyboard) is framed as a whole: its lines whole too.
    const shot: ShotContent | null = clip.imageContent ?? (await wholeImage(clip.imagePath!));
    // Laid out between the scene's own headline band and the caption box, as the renderer draws them.
    const { zone } = screenLayout(plan, clip);
    let framing = shot ? frameShot(shot, plan, KEN_BURNS_ZOOM, { top: zone.top / plan.height, bottom: zone.bottom / plan.height }) : null;
    if (shot && framing && cutsContent(shot, framing)) framing = await cutBetweenLines(clip.imagePath!, shot, framing, workDir);
    const output = path.join(workDir, `still-${plan.clips.indexOf(clip)}.yuv`);
    const { args, still } = composeStillArgs(clip.imagePath!, output, plan, framing, plan.encoding.zoomSupersample);
    try {
      await run('ffmpeg', args, { timeoutMs: 60_000 });
    } catch (err) {
      throw stageFailure('render_failed', `A screen could not be composed for the frame: ${(err as Error).message}`, true);
    }
    clip.still = still;
    return composeNext();
  };
  await Promise.all([composeNext(), composeNext()]);
  const planPath = path.join(workDir, 'plan.json');
  await fs.writeFile(planPath, JSON.stringify(plan));
  return { planPath, plan, cues, narration };
}

/**
 * A section cut at the zone's bottom ends in the gap between two of its lines just above the cut, found in the
 * screenshot's pixels (a row without ink), rather than across a line; as it was when there is none near.
 */
async function cutBetweenLines(image: string, shot: ShotContent, framing: Framing, workDir: string): Promise<Framing> {
  const { region } = framing;
  const x = Math.round(region.x);
  const width = Math.round(region.width);
  const bottom = Math.floor(region.y + region.height);
  const top = Math.max(Math.ceil(region.y), bottom - gapSearchRows(shot, framing));
  if (width < 2 || bottom - top < 2) return framing;
  const output = path.join(workDir, `rows-${process.hrtime.bigint()}.gray`);
  try {
    await run(
      'ffmpeg',
      ['-v', 'error', '-y', '-i', image, '-vf', `crop=${width}:${bottom - top}:${x}:${top},format=gray`, '-f', 'rawvideo', output],
      { timeoutMs: 30_000 },
    );
    const blank = lowestBlankRow(new Uint8Array(await fs.readFile(output)), width);
    return blank === null ? framing : endRegionAt(framing, top + blank + 1);
  } catch {
    return framing; // a cut across a line is no reason to fail the render
  } finally {
    await fs.rm(output, { force: true });
  }
}

/** A screenshot's whole picture as its content box (pixel ratio unknown: 1); null if its size cannot be read. */
async function wholeImage(file: string): Promise<ShotContent | null> {
  const size = await imageSize(file);
  return size ? { ...size, pixelRatio: 1, content: { x: 0, y: 0, ...size } } : null;
}

export async function renderVideo(options: RenderVideoOptions): Promise<RenderedVideo> {
  const { storyboard, workDir } = options;
  // editly's process starts now and loads while the plan is prepared; the narration is encoded while it renders.
  const preparing = preparePlan(options);
  preparing.catch(() => undefined); // awaited below
  const narrationAac = path.join(workDir, 'narration.m4a');
  const encoding = preparing.then(({ narration }) => encodeNarration(narration, narrationAac));
  encoding.catch(() => undefined); // awaited below
  let peakRssBytes = 0;
  let peakPssBytes = 0;
  try {
    ({ peakRssBytes, peakPssBytes } = await runEditly(
      preparing.then(({ planPath }) => planPath),
      { memoryLimitBytes: options.memoryLimitBytes, timeoutMs: options.timeoutMs, signal: options.signal },
    ));
  } catch (err) {
    await preparing; // a plan that could not be made is the reason, not the child it stopped
    if (options.signal?.aborted) throw new RenderAbortedError('render aborted');
    throw stageFailure('render_failed', (err as Error).message, err instanceof RenderProcessError ? err.retryable : true);
  }
  const { plan, cues } = await preparing;
  await encoding.catch((err: Error) => {
    throw stageFailure('render_failed', `The narration could not be encoded: ${err.message}`, true);
  });
  const outputPath = path.join(workDir, 'video.mp4');
  const posterPath = path.join(workDir, 'poster.jpg');
  // The poster is taken from editly's picture while the narration is muxed in: the video's picture is that
  // stream, copied, so the frame is the same.
  const [probe, posterIssues] = await Promise.all([
    muxNarration(plan.videoOnlyPath, narrationAac, outputPath).then(() => probeVideo(outputPath)),
    keyframeTimes(plan.videoOnlyPath)
      .then((keyframes) => writePoster(plan.videoOnlyPath, posterMoment(plan, keyframes), posterPath))
      .then(
        () => posterProblems(posterPath, { width: plan.width, height: plan.height }),
        (err: Error) => [`it could not be taken (${err.message})`],
      ),
  ]);
  const problems = deliverableProblems(probe, { width: plan.width, height: plan.height, durationSeconds: storyboard.totalSeconds });
  if (problems.length) throw stageFailure('render_failed', `The rendered video failed its check: ${problems.join('; ')}.`, true);
  if (posterIssues.length) throw stageFailure('render_failed', `The poster failed its check: ${posterIssues.join('; ')}.`, true);
  const captionsSrtPath = path.join(workDir, 'captions.srt');
  // The SRT: the cues that were burned in.
  await fs.writeFile(captionsSrtPath, toSrt(cues), 'utf8');
  return { outputPath, posterPath, captionsSrtPath, probe, peakRssBytes, peakPssBytes };
}
