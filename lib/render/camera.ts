/**
 * The camera of a screen scene: a section taller than the page's zone is scrolled along in step with its
 * narration instead of being cut, and the element the narration speaks of is marked. Pure: the scroll's timing
 * and speed, the ffmpeg expression that draws it, and the choice of the narrated element are unit-tested
 * without rendering (test/unit/clip-graph.test.ts); lib/render/clip-graph.ts draws it.
 *
 * The rules (docs/video.md, "A camera that moves"):
 * - The scroll waits SCROLL_LEAD of the clip (the viewer reads the heading), then eases in and out (smoothstep)
 *   and stops SCROLL_LEAD before the clip's end (the last lines are read at rest, the fade leaves from a still
 *   picture).
 * - Never faster than SCROLL_MAX_SPEED frame heights a second at the ease's fastest point (1.5 × its mean). A
 *   section too tall to be scrolled whole so within the clip is scrolled only as far as that speed allows,
 *   chosen so that the narrated element is in view at the end (and the heading at the start when both fit).
 */
import type { Box } from './framing';

/**
 * Frame heights a second at the fastest point of a scroll: a line of the page crosses the whole frame in no less
 * than 5 s — the pace of film credits (a line on screen 5–8 s), which a viewer reads while they move; the
 * narration reads the section meanwhile, so the eye only needs to keep its place.
 */
export const SCROLL_MAX_SPEED = 0.2;
/** Share of the clip, at its start and at its end, during which the picture stands still. */
export const SCROLL_LEAD = 0.15;
/** A scroll shorter than this many still pixels is not worth the motion. */
const MIN_TRAVEL = 4;

/** A scroll of a tall picture under a window: its top row goes from `from` to `to` (picture pixels) between `start` and `end` (clip seconds). */
export interface ScrollMove {
  from: number;
  to: number;
  start: number;
  end: number;
}

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), Math.max(min, max));
const num = (n: number) => Number(n.toFixed(6)).toString();

/**
 * How to scroll a picture `pictureHeight` tall under a window `windowHeight` tall (both in picture pixels, where a
 * frame is `frameHeight` tall) through a clip of `duration` seconds; `focus` the rows of the narrated element.
 * null when the picture fits the window.
 */
export function planScroll(opts: {
  pictureHeight: number;
  windowHeight: number;
  frameHeight: number;
  duration: number;
  focus?: { top: number; bottom: number } | null;
}): ScrollMove | null {
  const travel = Math.floor(opts.pictureHeight - opts.windowHeight);
  if (travel < MIN_TRAVEL) return null;
  const start = opts.duration * SCROLL_LEAD;
  const end = opts.duration * (1 - SCROLL_LEAD);
  // smoothstep's fastest point is 1.5 × its mean speed.
  const readable = Math.floor((SCROLL_MAX_SPEED * opts.frameHeight * (end - start)) / 1.5);
  if (readable < MIN_TRAVEL) return null;
  if (travel <= readable) return { from: 0, to: travel, start, end };
  // Too tall: as far as is readable, ending with the narrated element in view (a margin of a tenth of the window
  // under it), from the heading when the element is near enough to it.
  const margin = opts.windowHeight * 0.1;
  const focusEnd = opts.focus ? clamp(Math.ceil(opts.focus.bottom + margin - opts.windowHeight), 0, travel) : 0;
  const to = Math.max(Math.min(readable, travel), focusEnd);
  const from = Math.max(0, to - readable);
  return to - from < MIN_TRAVEL ? null : { from, to, start, end };
}

/** The picture's top row at clip second `t` (what scrollExpression computes, frame by frame, in ffmpeg). */
export function scrollAt(move: ScrollMove, t: number): number {
  const p = clamp((t - move.start) / Math.max(move.end - move.start, 1e-6), 0, 1);
  return move.from + (move.to - move.from) * p * p * (3 - 2 * p);
}

/** The same as an ffmpeg expression of `t` (seconds): a smoothstep ease from `from` to `to`. */
export function scrollExpression(move: ScrollMove): string {
  const span = Math.max(move.end - move.start, 1e-6);
  return `st(0,clip((t-${num(move.start)})/${num(span)},0,1));${num(move.from)}+${num(move.to - move.from)}*ld(0)*ld(0)*(3-2*ld(0))`;
}

/** One element of a screenshot the narration may speak of (lib/render/framing.ts ShotContent.focus). */
export interface FocusBox {
  box: Box;
  text: string;
}

function words(text: string, language: string): Set<string> {
  const segments = new Intl.Segmenter(language, { granularity: 'word' }).segment(text.toLocaleLowerCase(language));
  return new Set(Array.from(segments).flatMap((s) => (s.isWordLike ? [s.segment] : [])));
}

/** Share of the narration's words an element must hold to be taken for the one it speaks of. */
export const FOCUS_MIN_OVERLAP = 0.4;

/**
 * The element the narration speaks of: the one holding the largest share of the narration's words (at least
 * FOCUS_MIN_OVERLAP), the smaller of two alike (a paragraph rather than the block around it); null when none
 * does (a translated narration, a screenshot without recorded elements).
 */
export function chooseFocus(focus: FocusBox[] | undefined, narration: string, language: string): FocusBox | null {
  if (!focus?.length || !narration.trim()) return null;
  const said = words(narration, language);
  if (!said.size) return null;
  let best: { item: FocusBox; score: number; size: number } | null = null;
  for (const item of focus) {
    const own = words(item.text, language);
    let shared = 0;
    for (const word of said) if (own.has(word)) shared += 1;
    const score = shared / said.size;
    const size = own.size;
    if (score >= FOCUS_MIN_OVERLAP && (!best || score > best.score + 1e-9 || (Math.abs(score - best.score) <= 1e-9 && size < best.size)))
      best = { item, score, size };
  }
  return best?.item ?? null;
}
