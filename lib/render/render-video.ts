/**
 * One video, start to finish, in a work directory: inputs fetched and checked, the plan written, editly
 * run in its child process, the narration muxed in, the result probed. Used by the renderer service and
 * by bench/render (which gives it local files), so the benchmark measures the product's own path.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { asWordCues, parseWebVtt, toSrt, type Cue } from '../voice/captions';
import { isClusterUnreachable, stageFailure, messageOf } from '../errors';
import {
  boxInFrame,
  boxWithin,
  cutsContent,
  EDGE_REACH,
  edgeBoxes,
  endRegionAt,
  frameShot,
  gapSearchRows,
  KEN_BURNS_ZOOM,
  lowestBlankRow,
  snapEdge,
  uncutFraming,
  type EdgeReach,
  type Box,
  type Framing,
  type ShotContent,
} from './framing';
import { run } from '../voice/exec';
import { planScroll, type ScrollMove } from './camera';
import { composeStillArgs, composeStripArgs, type ClipScroll } from './clip-graph';
import type { Storyboard } from '../campaign/storyboard';
import { deliverableProblems, encodeNarration, imageSize, isReadableImage, muxNarration, probeVideo, type ProbedVideo } from './media';
import { screenLayout } from './overlay-layout';
import { buildRenderPlan, type PlannedClip, type RenderEncoding, type RenderPlan } from './plan';
import type { RenderQuality } from '../../config/catalog';
import { mixNarrationWithMusic } from './music';
import { keyframeTimes, posterMoment, posterProblems, writePoster } from './poster';
import { RenderProcessError, runEditly } from './run-editly';
import type { SharedTails, TailClaim } from './shared-tails';
import { headOnlyPlan, joinParts, splitFrames, tailKey } from './splice';

/** A hook variant's render in two parts: its head rendered, the tail rendered with it (and kept: `claim`) or found. */
interface Splice {
  headPath: string;
  tailPath: string;
  claim: TailClaim | null;
}

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
  /**
   * The render node's shared tails, for a hook variant's video (lib/render/splice.ts): the picture after its opening
   * taken from there when another variant rendered it, else rendered apart and kept there. Absent: rendered whole.
   */
  sharedTails?: SharedTails;
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
async function preparePlan(
  options: RenderVideoOptions,
): Promise<{ planPath: string; plan: RenderPlan; cues: Cue[]; narration: string; music: string | null; splice: Splice | null }> {
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
        throw stageFailure('render_failed', `Input file ${key} could not be read: ${messageOf(err)}`, true);
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
  const music = storyboard.music ? await fetch(storyboard.music.key) : null;
  const parsed = parseWebVtt((await fs.readFile(await fetch(storyboard.captionsKey))).toString('utf8'));
  // captions `words`: a cue of one word has no timestamp inside it; it is that word from the cue's start.
  const cues = storyboard.captions === 'words' ? asWordCues(parsed) : parsed;
  const plan = buildRenderPlan(storyboard, cues, (key) => inputs.get(key)!, {
    quality: options.quality,
    encoding: options.encoding,
    transitionSeconds: options.transitionSeconds,
    videoOnlyPath: path.join(workDir, 'picture.mp4'),
  });
  // A hook variant: its opening rendered, and the rest once per language × platform on this node (lib/render/splice.ts).
  const { rendered, splice } = await spliced(plan, inputs, options);
  // Each screen composed for the frame once, two at a time (the machine's cores).
  const waiting = rendered.clips.filter((clip) => clip.imagePath);
  const composeNext = async (): Promise<void> => {
    const clip = waiting.shift();
    // A canceled render composes nothing more: its slot is given back once this plan settles.
    if (!clip || options.signal?.aborted) return;
    // A screen without a recorded content box (an older storyboard) is framed as a whole: its lines whole too.
    const shot: ShotContent | null = clip.imageContent ?? (await wholeImage(clip.imagePath!));
    // Laid out between the scene's own headline band and the caption box, as the renderer draws them.
    const { zone } = screenLayout(rendered, clip);
    const safe = { top: zone.top / plan.height, bottom: zone.bottom / plan.height };
    let framing = shot ? frameShot(shot, plan, KEN_BURNS_ZOOM, safe, clip.reframed ? 'far' : 'near') : null;
    const output = path.join(workDir, `still-${rendered.clips.indexOf(clip)}.yuv`);
    let strip: { args: string[]; scroll: ClipScroll } | null = null;
    if (shot && framing && cutsContent(shot, framing)) {
      // Taller than the zone: scrolled through it (lib/render/camera.ts), else cut between two lines. A scrolled
      // page does not zoom, so its pictures are made at the frame's own size (clip-graph.ts scrollGraph).
      strip = scrolled(clip, shot, framing, plan, 1, output.replace(/\.yuv$/, '-strip.yuv'));
      if (!strip) framing = await cutBetweenLines(clip.imagePath!, shot, framing, workDir);
    }
    const scale = strip ? 1 : plan.encoding.zoomSupersample;
    // The narrated element marked where the page shows it whole (a scrolled page has it marked in its strip).
    const marked = !strip && framing && clip.focus && boxWithin(clip.focus, framing.region) ? boxInFrame(clip.focus, framing) : null;
    const { args, still } = composeStillArgs(clip.imagePath!, output, plan, framing, scale, marked);
    try {
      await run('ffmpeg', args, { timeoutMs: 60_000 });
      if (strip) await run('ffmpeg', strip.args, { timeoutMs: 60_000 });
    } catch (err) {
      throw stageFailure('render_failed', `A screen could not be composed for the frame: ${messageOf(err)}`, true);
    }
    clip.still = still;
    if (strip) clip.scroll = strip.scroll;
    return composeNext();
  };
  try {
    await Promise.all([composeNext(), composeNext()]);
    const planPath = path.join(workDir, 'plan.json');
    await fs.writeFile(planPath, JSON.stringify(rendered));
    return { planPath, plan, cues, narration, music, splice };
  } catch (err) {
    splice?.claim?.drop();
    throw err;
  }
}

/**
 * The plan editly runs for a hook variant's video: its head alone when this node has the tail (or is rendering it for
 * another variant: waited for), else the whole video written as head and tail, the tail kept for the other variants.
 * Without shared tails, or with nothing to share, the plan as it is.
 */
async function spliced(
  plan: RenderPlan,
  inputs: ReadonlyMap<string, string>,
  options: RenderVideoOptions,
): Promise<{ rendered: RenderPlan; splice: Splice | null }> {
  const frames = options.sharedTails ? splitFrames(plan) : null;
  if (!options.sharedTails || !frames) return { rendered: plan, splice: null };
  const keyOf = new Map([...inputs].map(([key, local]) => [local, key]));
  const key = tailKey(plan, frames, (local) => keyOf.get(local) ?? local);
  const headPath = path.join(options.workDir, 'head.mp4');
  const found = await options.sharedTails.find(key);
  if (found)
    return { rendered: headOnlyPlan(plan, { ...frames, headPath, tailPath: null }), splice: { headPath, tailPath: found, claim: null } };
  const tailPath = path.join(options.workDir, 'tail.mp4');
  return {
    rendered: { ...plan, split: { ...frames, headPath, tailPath } },
    splice: { headPath, tailPath, claim: options.sharedTails.claim(key) },
  };
}

/**
 * How a cut section scrolls (pure): its whole picture's framing (lib/render/framing.ts uncutFraming), the narrated
 * element at rest in that picture (frame pixels from its top left), and the move lib/render/camera.ts plans for the
 * clip (in still pixels: `scale` × the frame's); null when the picture is no taller than the window. The video's
 * own check (lib/quality/page-view.ts) finds with it which rows of the page a scene shows at its midpoint.
 */
export function scrollPlanFor(
  clip: Pick<PlannedClip, 'focus' | 'duration' | 'reframed'>,
  shot: ShotContent,
  framing: Framing,
  frame: { width: number; height: number },
  scale: number,
): { tall: Framing; focus: Box | null; move: ScrollMove } | null {
  const tall = uncutFraming(shot, framing);
  const atRest = (box: Box) => {
    const inFrame = boxInFrame(box, tall);
    return { ...inFrame, x: inFrame.x - tall.at.x, y: inFrame.y - tall.at.y };
  };
  const focus = clip.focus && boxWithin(clip.focus, tall.region) ? atRest(clip.focus) : null;
  const move = planScroll({
    pictureHeight: tall.region.height * tall.scale * scale,
    windowHeight: framing.region.height * framing.scale * scale,
    frameHeight: frame.height * scale,
    duration: clip.duration,
    focus: focus ? { top: focus.y * scale, bottom: (focus.y + focus.height) * scale } : null,
  });
  return move ? { tall, focus, move: restInGaps(move, shot, framing, tall.scale * scale, clip.reframed ? 'far' : 'near') } : null;
}

/**
 * The scroll's two resting places moved (a little, never making the scroll longer) so that the window's top and
 * bottom edges lie in gaps between the capture's text boxes: the lines read at rest, at the start and at the end,
 * are whole. `perRow`: still pixels per image row.
 */
export function restInGaps(move: ScrollMove, shot: ShotContent, framing: Framing, perRow: number, reach: EdgeReach): ScrollMove {
  const boxes = edgeBoxes(shot, reach);
  if (!boxes.length) return move;
  const window = framing.region.height;
  const limit = EDGE_REACH[reach] * window;
  /** The nearest position (still pixels) to `at` whose window slices no box at either edge, within [min, max]. */
  const settle = (at: number, min: number, max: number) => {
    const top = framing.region.y + at / perRow;
    const clear = (row: number) => snapEdge(row, boxes, window, 'either', 0) === row;
    if (clear(top) && clear(top + window)) return at;
    const reachable = boxes
      .flatMap((box) => [box.y, box.y + box.height].flatMap((row) => [row - top, row - top - window]))
      .filter((d) => Math.abs(d) <= limit && at + d * perRow >= min - 0.5 && at + d * perRow <= max + 0.5);
    // Both edges whole where the lines' spacing allows it, else the nearer one (a window of another height than the
    // lines' pitch cannot always have both).
    const nearest = (ok: (d: number) => boolean) => reachable.filter(ok).sort((a, b) => Math.abs(a) - Math.abs(b))[0];
    const d = nearest((s) => clear(top + s) && clear(top + s + window)) ?? nearest((s) => clear(top + s) || clear(top + s + window)) ?? 0;
    return Math.min(Math.max(at + d * perRow, min), max);
  };
  // Never longer than planned (its speed is the readable maximum), never past the picture's ends.
  const from = move.from > 0 ? settle(move.from, move.from, move.to) : move.from;
  const to = settle(move.to, from, Math.min(move.to, from + (move.to - move.from)));
  return to - from >= 1 ? { ...move, from, to } : move;
}

/**
 * A cut section's scroll: its whole picture (the narrated element marked on it) under the window its cut picture
 * filled, moved as lib/render/camera.ts plans for the clip (in still pixels: `scale` × the frame's); null when
 * the picture is no taller than the window.
 */
function scrolled(
  clip: PlannedClip,
  shot: ShotContent,
  framing: Framing,
  frame: { width: number; height: number },
  scale: number,
  output: string,
): { args: string[]; scroll: ClipScroll } | null {
  const planned = scrollPlanFor(clip, shot, framing, frame, scale);
  if (!planned) return null;
  const { tall, focus, move } = planned;
  const { args, still } = composeStripArgs(clip.imagePath!, output, frame, tall, scale, focus);
  const window = { x: tall.at.x * scale, y: tall.at.y * scale, width: still.width, height: framing.region.height * framing.scale * scale };
  return { args, scroll: { strip: still, window, move } };
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
  // With music, the narration and the music mixed and mastered instead (lib/render/music.ts); without, as it was spoken.
  const encoding = preparing.then(async ({ narration, music }) => {
    if (!music || !storyboard.music) return encodeNarration(narration, narrationAac);
    const mix = { narration, music, volume: storyboard.music.volume, durationSeconds: storyboard.totalSeconds };
    await mixNarrationWithMusic(mix, path.join(workDir, 'premix.wav'), narrationAac);
  });
  encoding.catch(() => undefined); // awaited below
  let peakRssBytes = 0;
  let peakPssBytes = 0;
  try {
    ({ peakRssBytes, peakPssBytes } = await runEditly(
      preparing.then(({ planPath }) => planPath),
      { memoryLimitBytes: options.memoryLimitBytes, timeoutMs: options.timeoutMs, signal: options.signal },
    ));
  } catch (err) {
    const { splice } = await preparing; // a plan that could not be made is the reason, not the child it stopped
    splice?.claim?.drop();
    if (options.signal?.aborted) throw new RenderAbortedError('render aborted');
    throw stageFailure('render_failed', messageOf(err), err instanceof RenderProcessError ? err.retryable : true);
  }
  const { plan, cues, splice } = await preparing;
  if (splice) {
    // The variant's head and the shared tail joined (stream copy): the picture a whole render would have made.
    try {
      if (splice.claim) await splice.claim.keep(splice.tailPath);
      await joinParts(splice.headPath, splice.tailPath, plan.videoOnlyPath);
    } catch (err) {
      throw stageFailure('render_failed', `The opening could not be joined to the rest of the video: ${messageOf(err)}`, true);
    }
  }
  await encoding.catch((err: Error) => {
    throw stageFailure(
      'render_failed',
      `The narration could not be ${storyboard.music ? 'mixed with the music' : 'encoded'}: ${err.message}`,
      true,
    );
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
