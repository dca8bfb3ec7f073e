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
import type { Framing } from '../framing';
import type { RawStill } from './plan';

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
}

export type ClipBackground =
  | { kind: 'color'; color: string }
  | {
      kind: 'screen';
      /** The screen composed for the frame (composeStillArgs), at the frame's shape and a multiple of its size. */
      still: RawStill;
      zoom: 'in' | 'out';
      zoomAmount: number;
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
  const graph = `[0:v]split[a][b];[a]${backdrop}[bg];[b]${foreground}[fg];[bg][fg]overlay=${place},format=yuv420p[out]`;
  return {
    args: [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-y',
      '-i',
      screenshot,
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
    ],
    still: { path: output, width: w, height: h },
  };
}

/** The zoom factor of frame `on` (0-based) of `frames`, as editly's image layer computed it from the progress. */
function zoomExpression(zoom: 'in' | 'out', amount: number, frames: number): string {
  const progress = `on/${frames}`;
  return zoom === 'in' ? `1+${num(amount)}*${progress}` : `1+${num(amount)}*(1-${progress})`;
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
    const { still } = background;
    inputs.push('-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${still.width}x${still.height}`, '-i', still.path);
    graph.push(
      // Read once, then the same frame handed on `frames` times: nothing per frame before the zoom.
      `[0:v]loop=loop=${frames - 1}:size=1:start=0,${timeline},` +
        `zoompan=z='${zoomExpression(background.zoom, background.zoomAmount, frames)}':x='iw/2-iw/zoom/2':y='ih/2-ih/zoom/2':d=1:s=${width}x${height}:fps=${fps},${timeline}[v0]`,
    );
  } else {
    graph.push(
      `color=c=${ffmpegColor(background.color)}:s=${width}x${height}:r=${fps},format=yuv420p,trim=end_frame=${frames},${timeline}[v0]`,
    );
  }
  const firstOverlay = background.kind === 'screen' ? 1 : 0;
  overlays.forEach((overlay, index) => {
    const stream = firstOverlay + index;
    inputs.push('-i', overlay.path);
    const look = [`format=rgba`];
    if (overlay.opacity !== undefined && overlay.opacity < 1) look.push(`colorchannelmixer=aa=${num(overlay.opacity)}`);
    // Converted once, then repeated: the blend itself is all that is done per frame.
    look.push('format=yuva420p', 'loop=loop=-1:size=1:start=0', timeline);
    if (overlay.fadeInSeconds) look.push(`fade=t=in:st=0:d=${num(overlay.fadeInSeconds)}:alpha=1`);
    graph.push(`[${stream}:v]${look.join(',')}[o${index}]`);
    const y = overlay.rise
      ? `'${Math.round(overlay.y)}+(1-min(1,t/${num(overlay.rise.seconds)}))*${num(overlay.rise.pixels)}'`
      : String(Math.round(overlay.y));
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
