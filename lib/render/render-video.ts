/**
 * One video, start to finish, in a work directory: inputs fetched and checked, the plan written, editly
 * run in its child process, the narration muxed in, the result probed. Used by the renderer service and
 * by bench/render (which gives it local files), so the benchmark measures the product's own path.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseWebVtt } from '../captions';
import { stageFailure } from '../errors';
import type { Storyboard } from '../storyboard';
import { composeForFrame, deliverableProblems, isReadableImage, muxNarration, probeVideo, type ProbedVideo } from './media';
import { buildRenderPlan, type RenderEncoding, type RenderQuality } from './plan';
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

export async function renderVideo(options: RenderVideoOptions): Promise<{ outputPath: string; probe: ProbedVideo; peakRssBytes: number }> {
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
    await composeForFrame(clip.imagePath, composed, plan.width, plan.height);
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
  return { outputPath, probe, peakRssBytes };
}
