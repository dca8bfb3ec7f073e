/**
 * One video, start to finish, in a work directory: inputs fetched and checked, the plan written, editly
 * run in its child process, the narration muxed in, the result probed. Used by the renderer service and
 * by bench/render (which gives it local files), so the benchmark measures the product's own path.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseWebVtt, toSrt } from '../captions';
import { stageFailure } from '../errors';
import { frameShot } from '../framing';
import type { Storyboard } from '../storyboard';
import { composeForFrame, deliverableProblems, isReadableImage, muxNarration, probeVideo, type ProbedVideo } from './media';
import { buildRenderPlan, type RenderEncoding, type RenderQuality } from './plan';
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
  display: string;
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
}

export async function renderVideo(options: RenderVideoOptions): Promise<RenderedVideo> {
  const { storyboard, workDir } = options;
  const inputs = new Map<string, string>();
  const fetch = async (key: string) => {
    if (!inputs.has(key)) {
      const local = path.join(workDir, `in-${inputs.size}${path.extname(key)}`);
      inputs.set(key, local);
      try {
        await options.fetchInput(key, local);
      } catch (err) {
        throw stageFailure('render_failed', `Input file ${key} could not be read: ${(err as Error).message}`, true);
      }
    }
    return inputs.get(key)!;
  };
  for (const scene of storyboard.scenes) {
    if (!scene.screenshotKey) continue;
    // editly would draw an unreadable image as nothing at all: refuse it instead.
    if (!(await isReadableImage(await fetch(scene.screenshotKey))))
      throw stageFailure('render_failed', `Input file ${scene.screenshotKey} is not a readable image.`, true);
  }
  const narration = await fetch(storyboard.narrationKey);
  const cues = parseWebVtt((await fs.readFile(await fetch(storyboard.captionsKey))).toString('utf8'));
  const plan = buildRenderPlan(storyboard, cues, (key) => inputs.get(key)!, {
    quality: options.quality,
    encoding: options.encoding,
    transitionSeconds: options.transitionSeconds,
    videoOnlyPath: path.join(workDir, 'picture.mp4'),
  });
  for (const [index, clip] of plan.clips.entries()) {
    if (!clip.imagePath) continue;
    const composed = path.join(workDir, `frame-${index}.png`);
    // Cropped around the page's content, so the frame and the zoom never cut its text (lib/framing.ts).
    const framing = clip.imageContent ? frameShot(clip.imageContent, { width: plan.width, height: plan.height }) : null;
    await composeForFrame(clip.imagePath, composed, plan.width, plan.height, framing);
    clip.imagePath = composed;
  }
  const planPath = path.join(workDir, 'plan.json');
  await fs.writeFile(planPath, JSON.stringify(plan));

  let peakRssBytes = 0;
  try {
    ({ peakRssBytes } = await runEditly(planPath, {
      display: options.display,
      memoryLimitBytes: options.memoryLimitBytes,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    }));
  } catch (err) {
    if (options.signal?.aborted) throw new RenderAbortedError('render aborted');
    throw stageFailure('render_failed', (err as Error).message, err instanceof RenderProcessError ? err.retryable : true);
  }
  const outputPath = path.join(workDir, 'video.mp4');
  await muxNarration(plan.videoOnlyPath, narration, outputPath);
  const probe = await probeVideo(outputPath);
  const problems = deliverableProblems(probe, { width: plan.width, height: plan.height, durationSeconds: storyboard.totalSeconds });
  if (problems.length) throw stageFailure('render_failed', `The rendered video failed its check: ${problems.join('; ')}.`, true);
  // The poster is a frame of the file just checked; the SRT, the cues that were burned in.
  const posterPath = path.join(workDir, 'poster.jpg');
  const posterIssues = await writePoster(outputPath, posterMoment(plan, await keyframeTimes(outputPath)), posterPath).then(
    () => posterProblems(posterPath, { width: plan.width, height: plan.height }),
    (err: Error) => [`it could not be taken (${err.message})`],
  );
  if (posterIssues.length) throw stageFailure('render_failed', `The poster failed its check: ${posterIssues.join('; ')}.`, true);
  const captionsSrtPath = path.join(workDir, 'captions.srt');
  await fs.writeFile(captionsSrtPath, toSrt(cues), 'utf8');
  return { outputPath, posterPath, captionsSrtPath, probe, peakRssBytes };
}
