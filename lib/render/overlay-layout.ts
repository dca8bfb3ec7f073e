/**
 * Where our own layers sit on a screen scene — the headline band at the top, the burned captions at the bottom —
 * and so the part of the frame left to the page's picture between them. One source of truth: the renderer draws
 * the band and the caption boxes with these very rectangles and font sizes (lib/render/editly-child.ts), and the
 * page's crop is laid out in what they leave clear (lib/render/framing.ts frameShot, via pageZone), so no line of the
 * page is ever under them. Pure: unit-tested without rendering (test/unit/framing.test.ts).
 *
 * Everything is in frame pixels of the frame being rendered (a draft's half-size frame too): sizes are shares of
 * the frame's shorter side, so the layout is the same picture at any size.
 *
 * The band's height depends on how many lines its headline takes. Its lines are broken here, not by the text box
 * at drawing time (a box that wraps where it is full would give a line count known only once drawn): the
 * renderer draws these lines as given, making the font smaller should a line come out wider than estimated, in a
 * band of exactly this height. Caption cues come broken into at most MAX_CAPTION_LINES lines (lib/voice/captions.ts);
 * their box's height is reserved for that many lines whether or not a cue is showing, so every frame of a video
 * frames its page alike.
 */
import { PLATFORM_UI_INSETS, type CaptionMode, type LanguageCode, type PlatformName, type PlatformUiInsets } from '../../config/catalog';
import { breakForBox, normalizeText, wrapsAnywhere } from '../text';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** fabric's text metrics (fabric 5, as editly bundles it): a line is fontSize × 1.13 high, lines 1.16 of that apart. */
export const FABRIC_FONT_SIZE_MULT = 1.13;
export const FABRIC_LINE_HEIGHT = 1.16;
/** The height fabric gives `lines` lines of text at `fontSize` (its calcTextHeight: the last line without its spacing). */
export function textHeight(lines: number, fontSize: number): number {
  return lines <= 0 ? 0 : fontSize * FABRIC_FONT_SIZE_MULT * (1 + FABRIC_LINE_HEIGHT * (lines - 1));
}

/** The headline band: bold type 4.2 % of the shorter side, padded 2.5 % of it, 92 % of the width at most. */
export const BAND = {
  fontShare: 0.042,
  padShare: 0.025,
  /** Share of the width kept clear at each side of the band (more where the app's buttons are). */
  sideShare: 0.04,
  /** Share of the width between the band's edge and its text. */
  textInsetShare: 0.03,
  /** Share of the shorter side between the frame's top (or the app's top bar) and the band. */
  topShare: 0.025,
  /** A headline that would take more lines is set smaller, down to minFontFactor of the size. */
  maxLines: 3,
  minFontFactor: 0.7,
  opacity: 0.9,
};

/** Burned captions: type 4.6 % of the shorter side on a dark box padded 2 % of it, lines at most 86 % of the width. */
export const CAPTIONS = {
  fontShare: 0.046,
  padShare: 0.02,
  maxTextWidthShare: 0.86,
  /** Share of the height between the frame's bottom and the box, where no app covers the frame (player controls). */
  bottomShare: 0.08,
  fill: 'rgba(0,0,0,0.72)',
};
/** lib/voice/captions.ts packs every cue into at most two lines. */
export const MAX_CAPTION_LINES = 2;
/**
 * Captions `words` (short-form style): a short group of words on one line, bold type 6.5 % of the shorter side, the
 * word being said on a box of lib/voice/captions.ts ACTIVE_WORD_COLOR in dark type; the rest white on the dark box.
 */
export const WORD_CAPTIONS = { fontShare: 0.065, padShare: 0.018, wordPadShare: 0.008, activeText: '#111111' };
/** Backdrop between our layers and the page's picture, as a share of the shorter side: nothing of the page touches them. */
export const PAGE_GAP_SHARE = 0.015;
/** Where the page may reach when there is no band or no caption box: this share of the shorter side from the frame's edge. */
export const PAGE_EDGE_SHARE = 0.025;

export interface OverlayFrame {
  width: number;
  height: number;
  /** The app's UI over the frame's edges (config/catalog.ts PLATFORM_UI_INSETS). */
  insets: PlatformUiInsets;
}

/** The app's UI of `platform`; without one, a 9:16 frame is taken for a vertical feed's and any other for none. */
export function uiInsetsFor(frame: { width: number; height: number }, platform?: PlatformName | null): PlatformUiInsets {
  if (platform) return PLATFORM_UI_INSETS[platform];
  return frame.height > frame.width ? PLATFORM_UI_INSETS.tiktok : PLATFORM_UI_INSETS.youtube;
}

const minSide = (frame: { width: number; height: number }) => Math.min(frame.width, frame.height);

/** The horizontal span our layers may use: clear of the app's side UI. */
function usableSpan(frame: OverlayFrame): { left: number; right: number } {
  return { left: frame.insets.left * frame.width, right: (1 - frame.insets.right) * frame.width };
}

export interface HeadlineLayout {
  /** The headline's lines, drawn as given. */
  lines: string[];
  fontSize: number;
  /** The widest a line may be drawn: a wider one is drawn smaller. */
  textWidth: number;
  pad: number;
  /** The band, drawn exactly here. */
  box: Rect;
}

const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u30ff\uff00-\uffef]/u;
const HANGUL = /\p{Script=Hangul}/u;
const NARROW = /[iljtfrI.,:;'!|()[\]\-\u2019]/;
const BROAD = /[mwMW@%]/;
const CYRILLIC = /\p{Script=Cyrillic}/u;

/**
 * The width of `text` in ems of bold Noto Sans, estimated per character, a little wide (measured with node-canvas:
 * a–z average 0.57 em, A–Z 0.67, а–я 0.67, А–Я 0.75, Hangul 0.92, CJK 1).
 */
export function estimateEms(text: string): number {
  let ems = 0;
  for (const ch of text) {
    if (/\s/u.test(ch)) ems += 0.28;
    else if (WIDE.test(ch)) ems += 1;
    else if (HANGUL.test(ch)) ems += 0.95;
    else if (NARROW.test(ch)) ems += 0.36;
    else if (BROAD.test(ch)) ems += 0.95;
    else if (CYRILLIC.test(ch)) ems += /\p{Lu}/u.test(ch) ? 0.78 : 0.68;
    else if (/\p{Lu}/u.test(ch)) ems += 0.7;
    else if (/\p{M}/u.test(ch)) ems += 0;
    else ems += 0.62;
  }
  return ems;
}

/** Words filled into lines of at most `width` at `fontSize` (a word longer than a line keeps a line of its own). */
function wrapWords(text: string, width: number, fontSize: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of normalizeText(text).split(' ').filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && estimateEms(next) * fontSize > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** As few lines as fit `width`, then as even as that many lines allow (no lone word on a last line). */
function balancedWords(text: string, width: number, fontSize: number): string[] {
  let lines = wrapWords(text, width, fontSize);
  for (let narrower = width * 0.97; lines.length > 1 && narrower > width / 2; narrower *= 0.97) {
    const tried = wrapWords(text, narrower, fontSize);
    if (tried.length > lines.length) break;
    lines = tried;
  }
  return lines;
}

function headlineLines(text: string, language: LanguageCode, width: number, fontSize: number): string[] {
  return wrapsAnywhere(language)
    ? breakForBox(normalizeText(text), language, width, fontSize).split('\n')
    : balancedWords(text, width, fontSize);
}

/** The headline band of a screen scene: its lines, type size and rectangle; null without a headline. */
export function headlineLayout(frame: OverlayFrame, headline: string | null | undefined, language: LanguageCode): HeadlineLayout | null {
  if (!headline?.trim()) return null;
  const min = minSide(frame);
  const span = usableSpan(frame);
  const left = Math.max(span.left, BAND.sideShare * frame.width);
  const right = Math.min(span.right, (1 - BAND.sideShare) * frame.width);
  const textWidth = right - left - 2 * BAND.textInsetShare * frame.width;
  const base = Math.round(min * BAND.fontShare);
  let fontSize = base;
  let lines = headlineLines(headline, language, textWidth, fontSize);
  while (lines.length > BAND.maxLines && fontSize > base * BAND.minFontFactor) {
    fontSize = Math.max(Math.round(base * BAND.minFontFactor), Math.round(fontSize * 0.92));
    lines = headlineLines(headline, language, textWidth, fontSize);
  }
  const pad = min * BAND.padShare;
  const top = Math.max(frame.insets.top * frame.height, BAND.topShare * min);
  const height = Math.ceil(textHeight(lines.length, fontSize) + 2 * pad);
  return { lines, fontSize, textWidth, pad, box: { x: left, y: top, width: right - left, height } };
}

export interface CaptionLayout {
  fontSize: number;
  pad: number;
  /** The widest a line may be drawn: a wider cue is drawn smaller. */
  textWidth: number;
  /** The boxes are centred on this column and stand on this row. */
  centerX: number;
  bottom: number;
}

/** The caption boxes' place and type: each box's width follows its cue, its bottom edge stays here. Captions
 * `words` are larger (WORD_CAPTIONS), on the same row. */
export function captionLayout(frame: OverlayFrame, mode: CaptionMode = 'burned'): CaptionLayout {
  const min = minSide(frame);
  const words = mode === 'words';
  const pad = min * (words ? WORD_CAPTIONS.padShare : CAPTIONS.padShare);
  const span = usableSpan(frame);
  return {
    fontSize: Math.round(min * (words ? WORD_CAPTIONS.fontShare : CAPTIONS.fontShare)),
    pad,
    textWidth: Math.min(CAPTIONS.maxTextWidthShare * frame.width, span.right - span.left - 2 * pad),
    centerX: (span.left + span.right) / 2,
    bottom: frame.height - Math.max(CAPTIONS.bottomShare * frame.height, frame.insets.bottom * frame.height + pad),
  };
}

/** The height of a caption box holding `lines` lines (less should its font be made smaller to fit the width). */
export function captionBoxHeight(layout: CaptionLayout, lines: number): number {
  return Math.ceil(textHeight(lines, layout.fontSize) + 2 * layout.pad);
}

/**
 * The rows of the frame left to the page's picture (frame pixels): below the band (or the app's top bar and a
 * margin, without a band), above the tallest caption box (or the app's bottom bar and a margin, when captions are
 * not drawn), with PAGE_GAP_SHARE of backdrop between.
 */
export function pageZone(
  frame: OverlayFrame,
  overlays: { headline: HeadlineLayout | null; captions: boolean },
): { top: number; bottom: number } {
  const min = minSide(frame);
  const gap = PAGE_GAP_SHARE * min;
  const edge = PAGE_EDGE_SHARE * min;
  const top = overlays.headline
    ? overlays.headline.box.y + overlays.headline.box.height + gap
    : Math.max(frame.insets.top * frame.height, edge);
  let bottom = frame.height - Math.max(frame.insets.bottom * frame.height, edge);
  if (overlays.captions) {
    // The room of two lines of burned captions, for `words` too (its one larger line fits in it): the page is framed
    // alike in both modes, and as the capture stage chose its shots (lib/render/framing.ts safeZoneFor).
    const captions = captionLayout(frame);
    bottom = captions.bottom - captionBoxHeight(captions, MAX_CAPTION_LINES) - gap;
  }
  return { top, bottom };
}

/** A render plan's frame with its app's UI. */
export function planFrame(plan: { width: number; height: number; uiInsets: PlatformUiInsets }): OverlayFrame {
  return { width: plan.width, height: plan.height, insets: plan.uiInsets };
}

/** A screen clip's layers and the zone they leave to its page: what the renderer draws and frames the page in. */
export function screenLayout(
  plan: { width: number; height: number; uiInsets: PlatformUiInsets; captions: CaptionMode; language: LanguageCode },
  clip: { headline: string },
): { headline: HeadlineLayout | null; captions: CaptionLayout | null; zone: { top: number; bottom: number } } {
  const frame = planFrame(plan);
  const headline = headlineLayout(frame, clip.headline, plan.language);
  const captions = plan.captions === 'file_only' ? null : captionLayout(frame, plan.captions);
  return { headline, captions, zone: pageZone(frame, { headline, captions: !!captions }) };
}
