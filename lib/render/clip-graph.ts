/**
 * The pixels of one clip, drawn by ffmpeg: editly stays the editor of the timeline (clips, their order and
 * lengths, the transitions between them), but the per-pixel work of a clip — the screenshot fitted to the
 * frame, its Ken Burns zoom, the headline band, the caption of the moment, a card's text rising into place —
 * is one ffmpeg filter graph per clip, in C, which hands editly finished RGBA frames on a pipe. Before, editly
 * scaled the screenshot and composited every layer in a JavaScript canvas on every frame: 3× the time of the
 * same slideshow made by ffmpeg alone (bench/render/README.md). The frames travel as yuv420p, not RGBA: a third
 * of the bytes through the pipes and no colour conversion on either side.
 *
 * Text is still laid out by the renderer's fabric code (lib/render/editly-child.ts), once per card, headline
 * and cue, and given here as PNG images with their place in the frame. Pure: the arguments are unit-tested.
 */
import type { Box, Framing } from './framing';
import { scrollExpression, type ScrollMove } from './camera';

/** A raw yuv420p picture on disk. */
export interface RawStill {
  path: string;
  width: number;
  height: number;
}

/** A picture laid over the clip: a PNG with transparency, placed by its top-left corner in frame pixels. */
export interface ClipOverlay {
  path: string;
  x: number;
  y: number;
  /** Shown from this second of the clip (inclusive)… */
  from?: number;
  /** …until this one (exclusive). */
  until?: number;
  /** Overall opacity, 0–1 (default 1). */
  opacity?: number;
  /** Fades in from transparent over this many seconds from the clip's start. */
  fadeInSeconds?: number;
  /** Starts this many pixels lower and rises into place over `rise.seconds`, slowing linearly as editly's cards did. */
  rise?: { pixels: number; seconds: number };
  /** Keeps rising, slowly and evenly, this many pixels over the whole clip (a card's text that never stands still). */
  drift?: number;
}

/**
 * A section taller than the page's zone, scrolled (lib/render/camera.ts): its whole picture (`strip`, the page at
 * the frame's own size, the narrated element marked in it) is seen through `window` (frame pixels: where the page's
 * picture lies in the still, also at the frame's size), its top row at `move`'s row of the moment; no zoom.
 */
export interface ClipScroll {
  strip: RawStill;
  window: Box;
  move: ScrollMove;
}

export type ClipBackground =
  | { kind: 'color'; color: string }
  | {
      kind: 'screen';
      /** The screen composed for the frame (composeStillArgs), at the frame's shape and a multiple of its size. */
      still: RawStill;
      zoom: 'in' | 'out';
      zoomAmount: number;
      scroll?: ClipScroll;
    };

export interface ClipGraphInput {
  width: number;
  height: number;
  fps: number;
  /** Frames to produce: the clip's duration × fps, as editly counts them. */
  frames: number;
  background: ClipBackground;
  overlays: ClipOverlay[];
}

/** The raw frames' format between the clips, editly and its encoder (editly's framePixelFormat, patches/editly+*.patch). */
export const FRAME_PIXEL_FORMAT = 'yuv420p';
/** Bytes of one raw yuv420p frame: a full-size luma plane and two quarter-size chroma planes. */
export const frameBytes = (width: number, height: number) => (width * height * 3) / 2;

/** Frames: a bound of 0.3 s at 10 fps is frame 3, though 0.3 × 10 is 3.0000000000000004 in floating point. */
const BOUND_EPSILON = 1e-6;
const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
const num = (n: number) => Number(n.toFixed(6)).toString();

/**
 * The mark on the narrated element: a translucent highlighter-yellow wash and a firmer outline, PAD outside the
 * element's box all round, so the outline runs around its text, not through it, and the wash leaves it legible.
 */
export const HIGHLIGHT = { color: '0xfacc15', fill: 0.2, outline: 0.9, padShare: 0.008, lineShare: 0.003 };

/** drawbox filters marking `box` (pixels of the picture drawn on, `min` its frame's shorter side in the same pixels). */
export function highlightFilters(box: Box, min: number): string[] {
  const pad = Math.max(2, Math.round(min * HIGHLIGHT.padShare));
  const line = Math.max(2, Math.round(min * HIGHLIGHT.lineShare));
  const [x, y] = [Math.round(box.x - pad), Math.round(box.y - pad)];
  const [w, h] = [Math.round(box.width + 2 * pad), Math.round(box.height + 2 * pad)];
  return [
    `drawbox=x=${x}:y=${y}:w=${w}:h=${h}:color=${HIGHLIGHT.color}@${HIGHLIGHT.fill}:t=fill`,
    `drawbox=x=${x}:y=${y}:w=${w}:h=${h}:color=${HIGHLIGHT.color}@${HIGHLIGHT.outline}:t=${line}`,
  ];
}

/** `#rrggbb` (or `#rgb`) as ffmpeg's colour syntax. */
export function ffmpegColor(hex: string): string {
  const value = hex.replace('#', '');
  const full = value.length === 3 ? [...value].map((c) => c + c).join('') : value;
  if (!/^[0-9a-fA-F]{6}$/.test(full)) throw new Error(`not a #rrggbb colour: ${hex}`);
  return `0x${full}`;
}

/**
 * ffmpeg's arguments to compose a screen for the frame once, before the render, as a raw yuv420p still of
 * `scale`× the frame's size (scale > 1 gives the zoom sub-pixel steps: ffmpeg's zoompan crops on whole pixels):
 * the framed region of the screenshot (the whole screenshot when there is no framing) over a blurred, darkened
 * cover of the whole. Raw, because the clip reads it back at once: a PNG of 2160×3840 takes a second to encode.
 */
export function composeStillArgs(
  screenshot: string,
  output: string,
  frame: { width: number; height: number },
  framing: Framing | null,
  scale: number,
  /** The narrated element, in frame pixels at rest, marked on the page (lib/render/camera.ts). */
  highlight: Box | null = null,
): { args: string[]; still: RawStill } {
  const { width, height } = frame;
  const sigma = Math.max(2, Math.round(Math.min(width, height) * 0.03));
  const [w, h] = [even(width * scale), even(height * scale)];
  const foreground = framing
    ? `crop=${Math.round(framing.region.width)}:${Math.round(framing.region.height)}:${Math.round(framing.region.x)}:${Math.round(framing.region.y)},` +
      `scale=${even(framing.region.width * framing.scale * scale)}:${even(framing.region.height * framing.scale * scale)}:flags=lanczos`
    : `scale=${w}:${h}:force_original_aspect_ratio=decrease:flags=lanczos`;
  const place = framing ? `${Math.round(framing.at.x * scale)}:${Math.round(framing.at.y * scale)}` : '(W-w)/2:(H-h)/2';
  // The backdrop is blurred at the frame's own size (a blur needs no more pixels), then enlarged.
  const backdrop =
    `scale=${even(width)}:${even(height)}:force_original_aspect_ratio=increase,crop=${even(width)}:${even(height)},` +
    `gblur=sigma=${sigma},eq=brightness=-0.08,scale=${w}:${h}`;
  const mark = highlight
    ? highlightFilters(scaled(highlight, scale), Math.min(w, h))
        .map((f) => `,${f}`)
        .join('')
    : '';
  const graph = `[0:v]split[a][b];[a]${backdrop}[bg];[b]${foreground}[fg];[bg][fg]overlay=${place}${mark},format=yuv420p[out]`;
  return { args: stillArgs(screenshot, graph, output), still: { path: output, width: w, height: h } };
}

const scaled = (box: Box, by: number): Box => ({ x: box.x * by, y: box.y * by, width: box.width * by, height: box.height * by });

function stillArgs(input: string, graph: string, output: string): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-y',
    '-i',
    input,
    '-filter_complex',
    graph,
    '-map',
    '[out]',
    '-frames:v',
    '1',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'yuv420p',
    output,
  ];
}

/**
 * ffmpeg's arguments to compose a scrolling section's whole picture once (raw yuv420p): the framing's region (its
 * full height, lib/render/framing.ts uncutFraming) at the framing's scale × `scale`, the narrated element marked on it
 * (`highlight`: frame pixels relative to the region's top left). The clip shows it through a window (ClipScroll).
 */
export function composeStripArgs(
  screenshot: string,
  output: string,
  frame: { width: number; height: number },
  framing: Framing,
  scale: number,
  highlight: Box | null = null,
): { args: string[]; still: RawStill } {
  const { region } = framing;
  const [w, h] = [even(region.width * framing.scale * scale), even(region.height * framing.scale * scale)];
  const mark = highlight ? highlightFilters(scaled(highlight, scale), Math.min(frame.width, frame.height) * scale) : [];
  const graph =
    `[0:v]crop=${Math.round(region.width)}:${Math.round(region.height)}:${Math.round(region.x)}:${Math.round(region.y)},` +
    [`scale=${w}:${h}:flags=lanczos`, ...mark, 'format=yuv420p'].join(',') +
    '[out]';
  return { args: stillArgs(screenshot, graph, output), still: { path: output, width: w, height: h } };
}

/** The zoom factor of frame `on` (0-based) of `frames`, as editly's image layer computed it from the progress. */
function zoomExpression(zoom: 'in' | 'out', amount: number, frames: number): string {
  const progress = `on/${frames}`;
  return zoom === 'in' ? `1+${num(amount)}*${progress}` : `1+${num(amount)}*(1-${progress})`;
}

/**
 * The filters putting a scrolling section into the still (inputs 0: the still, 1: the strip, both at the frame's
 * own size), as `[v0]`: the strip's window of the moment (crop with a time expression, on exact rows) laid over
 * the held still where the page's picture lies. A scrolled page does not also zoom: the scroll is its motion, and
 * without the zoom nothing per frame works on more than the window's pixels (the moving camera's render budget, bench/render/README.md). `fps`
 * sets the stream's frame rate, which zoompan sets otherwise: without it ffmpeg's output would repeat frames.
 */
function scrollGraph(still: RawStill, scroll: ClipScroll, frames: number, timeline: string, fps: number): string[] {
  // One frame more than the clip's: the fps filter holds back the last frame it is given (the output stops at `frames`).
  const hold = `loop=loop=${frames}:size=1:start=0,${timeline}`;
  const height = Math.min(even(scroll.window.height), scroll.strip.height, still.height);
  const move = scrollExpression(scroll.move);
  return [
    `[0:v]${hold}[s_still]`,
    `[1:v]${hold},crop=${scroll.strip.width}:${height}:0:'${move}':exact=1[s_window]`,
    `[s_still][s_window]overlay=x=${Math.round(scroll.window.x)}:y=${Math.round(scroll.window.y)}:format=yuv420,fps=${fps},${timeline}[v0]`,
  ];
}

/**
 * ffmpeg's arguments but the output path (given last): the clip's frames as raw yuv420p (FRAME_PIXEL_FORMAT),
 * frameBytes() each — the format x264 encodes, so neither editly nor its encoder converts a pixel.
 */
export function clipFfmpegArgs(input: ClipGraphInput): string[] {
  const { width, height, fps, frames, background, overlays } = input;
  if (width % 2 || height % 2) throw new Error(`the frame needs even dimensions, got ${width}x${height}`);
  if (!(frames >= 1)) throw new Error(`a clip needs at least one frame, got ${frames}`);
  const inputs: string[] = [];
  const graph: string[] = [];
  // Every stream on a time base of one frame: an image input's is 1/25 s, and the overlay's timeline (`t`)
  // follows the coarser of its inputs — a caption would start up to a frame late.
  const timeline = `settb=1/${fps},setpts=N`;
  if (background.kind === 'screen') {
    const { still, scroll } = background;
    const raw = (picture: RawStill) => [
      '-f',
      'rawvideo',
      '-pix_fmt',
      'yuv420p',
      '-s',
      `${picture.width}x${picture.height}`,
      '-i',
      picture.path,
    ];
    inputs.push(...raw(still));
    // Read once, then the same frame handed on `frames` times: nothing per frame before the zoom (or, scrolled,
    // before the window is laid over it).
    const hold = `loop=loop=${frames - 1}:size=1:start=0,${timeline}`;
    if (scroll) {
      inputs.push(...raw(scroll.strip));
      graph.push(...scrollGraph(still, scroll, frames, timeline, fps));
    } else {
      graph.push(
        `[0:v]${hold},zoompan=z='${zoomExpression(background.zoom, background.zoomAmount, frames)}':x='iw/2-iw/zoom/2':y='ih/2-ih/zoom/2':d=1:s=${width}x${height}:fps=${fps},${timeline}[v0]`,
      );
    }
  } else {
    graph.push(
      `color=c=${ffmpegColor(background.color)}:s=${width}x${height}:r=${fps},format=yuv420p,trim=end_frame=${frames},${timeline}[v0]`,
    );
  }
  const firstOverlay = background.kind === 'screen' ? (background.scroll ? 2 : 1) : 0;
  overlays.forEach((overlay, index) => {
    const stream = firstOverlay + index;
    inputs.push('-i', overlay.path);
    const look = [`format=rgba`];
    if (overlay.opacity !== undefined && overlay.opacity < 1) look.push(`colorchannelmixer=aa=${num(overlay.opacity)}`);
    // Converted once, then repeated: the blend itself is all that is done per frame.
    look.push('format=yuva420p', 'loop=loop=-1:size=1:start=0', timeline);
    if (overlay.fadeInSeconds) look.push(`fade=t=in:st=0:d=${num(overlay.fadeInSeconds)}:alpha=1`);
    graph.push(`[${stream}:v]${look.join(',')}[o${index}]`);
    const moves = [
      overlay.rise ? `(1-min(1,t/${num(overlay.rise.seconds)}))*${num(overlay.rise.pixels)}` : '',
      overlay.drift ? `-${num(overlay.drift / (frames / fps))}*t` : '',
    ].filter(Boolean);
    const y = moves.length ? `'${Math.round(overlay.y)}+${moves.join('')}'` : String(Math.round(overlay.y));
    // By frame number: frame n is shown when from ≤ n / fps < until.
    const firstFrame = (seconds: number) => Math.ceil(seconds * fps - BOUND_EPSILON);
    const shown = [
      overlay.from !== undefined ? `gte(n,${firstFrame(overlay.from)})` : '',
      overlay.until !== undefined ? `lt(n,${firstFrame(overlay.until)})` : '',
    ]
      .filter(Boolean)
      .join('*');
    graph.push(
      `[v${index}][o${index}]overlay=x=${Math.round(overlay.x)}:y=${y}:format=yuv420:eof_action=pass${shown ? `:enable='${shown}'` : ''}[v${index + 1}]`,
    );
  });
  graph.push(`[v${overlays.length}]format=yuv420p[out]`);
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    // One filter thread: the graph is a chain of small steps on one frame at a time, and its default of a
    // thread per core spent more on handing slices between threads than it saved (a 1080×1920 clip of 167
    // frames, alone: 2.35 s → 1.1 s wall, 1.3 → 1.1 s CPU), CPU the x264 encoder beside it wants.
    '-filter_complex_threads',
    '1',
    ...inputs,
    '-filter_complex',
    graph.join(';'),
    '-map',
    '[out]',
    '-frames:v',
    String(frames),
    '-f',
    'rawvideo',
    '-pix_fmt',
    'yuv420p',
  ];
}
