/**
 * The video's own check (decisions §13): before a video is called ready, the product looks at it as a customer
 * would. A frame at each scene's midpoint, only the page's area of it (lib/quality/page-view.ts: without our band
 * and captions), measured (lib/quality/frame-stats.ts) and its page text known from the capture's text boxes or,
 * where those cannot tell, read by OCR (lib/quality/ocr.ts, at most once a screen scene); and the storyboard's
 * narration and headlines. Each defect a customer would see or hear becomes one QualityFlag (lib/quality/report.ts)
 * in a customer's words; lib/quality/repair.ts plans what can be mended.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { LanguageCode } from '../../config/catalog';
import { isOneOf, SUPPORTED_LANGUAGES } from '../../config/catalog';
import type { Storyboard } from '../campaign/storyboard';
import { difference } from '../capture/images';
import { framesAt } from './frames';
import { boilerplateKind, BOILERPLATE_WORDS } from './boilerplate';
import { areaFingerprint, areaPng, areaStats, fingerprintBytes, inkRange, loadFrame, type AreaStats, type FrameImage } from './frame-stats';
import { judgeLanguage, nameOfLanguage } from './language';
import { cutNarrationEnd, repeatedSentences } from './narration';
import {
  fold,
  installedOcrLanguages,
  OCR_LANGUAGES,
  OCR_MIN_CONFIDENCE,
  OCR_UPSCALE_BELOW_WIDTH,
  ocrLanguagesArg,
  parseTsv,
  tesseractWords,
  type OcrWord,
} from './ocr';
import { pageViews, shareInside, type PageView } from './page-view';
import { lineBands, slices, type Box } from '../render/framing';
import { QUALITY_FLAG_CODES, type QualityFlag, type QualityFlagCode } from './report';

export interface SceneObservation {
  /** storyboard scene id (scene.id ?? sceneIdAt(index)) */
  scene_id: string;
  kind: 'title' | 'screen' | 'closing';
  /** page area pixel stats of the midpoint frame (the whole frame for the title and closing cards) */
  stats: { mean: number; stdev: number; edgeDensity: number; distinctColours?: number; busyShare?: number };
  /** the page text visible in the frame (known from the screenshot's focus boxes ∩ the crop, else OCR), folded */
  pageWords: string[];
  ocrUsed: boolean;
  /** the page area's 32×32 grey thumbnail (lib/capture/images.ts fingerprint), base64; screen scenes only */
  fingerprint?: string;
}

export interface VideoCheck {
  flags: QualityFlag[];
  scenes: SceneObservation[];
}

/** Less page text than this (words; two CJK characters count as one) is "almost no page text". */
export const MIN_PAGE_WORDS = 3;
/** A page area this flat is a picture that did not load (or a field of one colour). */
export const FLAT_STDEV = 6;
export const FLAT_EDGE_DENSITY = 0.003;
/**
 * A page area with something in fewer than this share of its bands is near-empty (a dark frame with a thin strip of
 * picture); one busy across more of it (a list of short labels, a wall of logos, a photograph) is not blank however
 * few words the capture or OCR found in it.
 */
export const SPARSE_BUSY_SHARE = 0.35;
/** Two page areas whose fingerprints differ by less than this show the same screen (video frames: a little above lib/capture/images.ts's 3 for screenshots). */
export const SAME_SCREEN_DIFFERENCE = 5;
export const SAME_SCREEN_CORRELATION = 0.9;
/** Two screens sharing this share of their page words (Jaccard), each with at least SAME_WORDS_MIN_TOKENS, show the same screen. */
export const SAME_WORDS_JACCARD = 0.6;
export const SAME_WORDS_MIN_TOKENS = 8;
/** Two screens sharing less than this share of their words are different screens, however alike their pictures. */
export const DIFFERENT_WORDS_JACCARD = 0.3;
/** Tokens each screen needs before few shared words tell them apart. */
export const DIFFERENT_WORDS_MIN_TOKENS = 3;
/** A word whose box ends within this share of the area's width (at least 3 px) of a side touches it. */
export const SIDE_TOUCH_SHARE = 0.012;
/** Page text needs this many letters before its language is judged. */
const MIN_PAGE_LETTERS_FOR_LANGUAGE = 30;

const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;
const HANGUL = /\p{Script=Hangul}/u;

/** How much text `words` (folded) hold: a word counts once, two characters of an unspaced script once. */
export function textAmount(words: string[]): number {
  let amount = 0;
  for (const word of words) {
    const length = [...word].length;
    if (UNSPACED.test(word)) amount += length / 2;
    else if (length >= 2) amount += 1;
  }
  return amount;
}

/** Comparable tokens of page words: words of 3 letters and more, pairs of characters in unspaced scripts. */
export function pageTokens(words: string[]): Set<string> {
  const tokens = new Set<string>();
  for (const word of words) {
    if (UNSPACED.test(word)) for (let i = 0; i + 1 < word.length; i += 1) tokens.add(word.slice(i, i + 2));
    // Hangul words are short (a syllable block is a whole sound): two blocks are a word worth comparing.
    else if ([...word].length >= (HANGUL.test(word) ? 2 : 3)) tokens.add(word);
  }
  return tokens;
}

/** Words of a text, folded, empty ones left out. */
function foldedWords(text: string): string[] {
  return text
    .split(/\s+/u)
    .map(fold)
    .filter((w) => w.length > 0);
}

/** What the check saw of one scene: the observation it reports, and what OCR read (for the rules). */
export interface SceneReading {
  view: PageView;
  observation: SceneObservation;
  /** What OCR read in the page's area (its pixels, as in the frame's area); null when OCR did not run. */
  ocrWords: OcrWord[] | null;
  /** The page's area's size in the frame. */
  areaWidth: number;
  /** Every word the screenshot's text boxes record (folded), to tell a cut word from a whole one. */
  recordedWords: string[];
  /** Whether the page words are what OCR read (not what the capture recorded). */
  wordsFromOcr: boolean;
  /** Whether OCR could read the video's and the page's scripts (their packs installed). */
  ocrReadsScripts: boolean;
  /** Where a page text box crosses a side of the picture (the capture knows it runs past it). */
  boxCrossesSide: boolean;
  /** A line of the page cut by the picture's top or bottom edge (cutLine), found with what the frame showed. */
  lineCut: CutText | null;
  /** The page's area's height in the frame. */
  areaHeight: number;
  flat: boolean;
}

/** Page text cut off at a side or edge of the picture, and the words cut. */
export interface CutText {
  side: 'left' | 'right' | 'top' | 'bottom';
  text: string;
}

export interface ObserveOptions {
  workDir: string;
  /** tesseract's -l for this video (lib/quality/ocr.ts ocrLanguagesArg). */
  ocrLanguages: string;
  ocrReadsScripts: boolean;
}

/** One scene's frame looked at: its page area measured, its page words known or read. */
export async function observeScene(image: FrameImage, view: PageView, position: number, opts: ObserveOptions): Promise<SceneReading> {
  const whole = { x: 0, y: 0, width: image.width, height: image.height };
  const area = view.area && view.area.width >= 4 && view.area.height >= 4 ? view.area : null;
  const stats: AreaStats = areaStats(image, area ?? whole);
  const observation: SceneObservation = {
    scene_id: view.sceneId,
    kind: view.kind,
    stats: {
      mean: round(stats.mean),
      stdev: round(stats.stdev),
      edgeDensity: round(stats.edgeDensity, 4),
      distinctColours: stats.distinctColours,
      busyShare: round(stats.busyShare),
    },
    pageWords: [],
    ocrUsed: false,
  };
  const reading: SceneReading = {
    view,
    observation,
    ocrWords: null,
    areaWidth: (area ?? whole).width,
    recordedWords: view.focus.flatMap((item) => foldedWords(item.text)),
    wordsFromOcr: false,
    ocrReadsScripts: opts.ocrReadsScripts,
    boxCrossesSide: false,
    lineCut: null,
    areaHeight: (area ?? whole).height,
    flat: stats.stdev < FLAT_STDEV || stats.edgeDensity < FLAT_EDGE_DENSITY,
  };
  if (view.kind !== 'screen' || !area) return reading;
  observation.fingerprint = areaFingerprint(image, area);
  // What the capture knows is on screen: its text boxes mostly inside the part of the screenshot shown.
  const { shown } = view;
  const known = shown && view.focus.length > 0;
  if (known) {
    observation.pageWords = view.focus.filter((item) => shareInside(item.box, shown) >= 0.5).flatMap((item) => foldedWords(item.text));
    // A line cut at the top or bottom edge: what the capture's boxes say, confirmed by ink at that edge of the frame.
    reading.lineCut = cutLine(view, (side, box) => {
      const perRow = area.height / shown.height;
      const x = area.x + (box.x - shown.x) * (area.width / shown.width);
      const rows = { x, width: box.width * (area.width / shown.width), height: Math.max(2, Math.min(3, perRow * 2)) };
      return inkRange(image, { ...rows, y: side === 'top' ? area.y : area.y + area.height - rows.height });
    });
    reading.boxCrossesSide = view.focus.some(
      (item) => shareInside(item.box, shown) > 0 && (item.box.x < shown.x - 1 || item.box.x + item.box.width > shown.x + shown.width + 1),
    );
  }
  // OCR only where it tells something: nothing known, a flat picture or few words (blank?), a box past a side (cut?).
  const few = textAmount(observation.pageWords) < MIN_PAGE_WORDS;
  if (!known || reading.flat || few || reading.boxCrossesSide) {
    const scale = area.width < OCR_UPSCALE_BELOW_WIDTH ? 2 : 1;
    const png = path.join(opts.workDir, `quality-scene-${position}.png`);
    await fs.writeFile(png, areaPng(image, area, scale));
    reading.ocrWords = parseTsv(await tesseractWords(png, opts.ocrLanguages), scale, {}, OCR_MIN_CONFIDENCE).filter(
      (w) => fold(w.text).length > 0,
    );
    observation.ocrUsed = true;
    const read = reading.ocrWords.map((w) => fold(w.text));
    if (few) {
      observation.pageWords = read;
      reading.wordsFromOcr = true;
    }
  }
  return reading;
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/** Pictures, words and narration judged: the flags of a video, in scene order. */
export function judgeVideo(storyboard: Storyboard, readings: SceneReading[], pageLanguage?: string | null): QualityFlag[] {
  const flags: QualityFlag[] = [];
  const flag = (position: number, code: QualityFlagCode, message: string) => {
    const scene_id = readings[position].observation.scene_id;
    if (!flags.some((f) => f.scene_id === scene_id && f.code === code)) flags.push({ code, scene_id, message });
  };
  const n = (position: number) => `Scene ${position + 1}`;
  const language = storyboard.language;
  const page = pageLanguage && isOneOf(SUPPORTED_LANGUAGES, pageLanguage) ? pageLanguage : null;

  // What the pictures show.
  const screens = readings.map((r, position) => ({ r, position })).filter(({ r }) => r.view.kind === 'screen' && r.view.area);
  for (const { r, position } of screens) {
    const ocrAmount = r.ocrWords ? textAmount(r.ocrWords.map((w) => fold(w.text))) : 0;
    const sparse = (r.observation.stats.busyShare ?? 0) < SPARSE_BUSY_SHARE;
    const blank = sparse && (r.flat ? ocrAmount < MIN_PAGE_WORDS : textAmount(r.observation.pageWords) < MIN_PAGE_WORDS);
    if (blank) flag(position, 'blank_scene', `${n(position)} shows an almost empty screen (a picture that did not load?)`);
    const cut = cutWord(r) ?? r.lineCut ?? cutOcrLine(r);
    const where = cut?.side === 'top' || cut?.side === 'bottom' ? `${cut.side} edge` : `${cut?.side} side`;
    if (cut) flag(position, 'cut_text', `${n(position)} shows page text cut off at the ${where} of the picture (“${cut.text}”)`);
  }
  for (let j = 1; j < screens.length; j += 1) {
    for (let i = 0; i < j; i += 1) {
      const [a, b] = [screens[i], screens[j]];
      if (sameScreen(a.r.observation, b.r.observation)) {
        flag(b.position, 'duplicate_screen', `${n(b.position)} shows the same screen as scene ${a.position + 1}`);
        break;
      }
    }
  }

  // What is said and written.
  const names = [storyboard.brand.name, storyboard.brand.domain, storyboard.closing.domain, ...storyboard.brand.name.split(/\s+/u)];
  const langName = nameOfLanguage(language);
  const seemsWords = (seems: string | null) => (seems ? ` (it reads as ${nameOfLanguage(seems)})` : '');
  storyboard.scenes.forEach((scene, position) => {
    // Narration in the page's language on purpose (source_text, already warned about) is not judged for it.
    const own = scene.narration.filter((segment) => segment.language === language).map((segment) => segment.text);
    const narration = storyboard.scriptSource !== 'source_text' && own.length ? judgeLanguage(own.join(' '), language, { names }) : null;
    const headline = judgeLanguage(scene.onScreenText, language, { names });
    const headlineInPageLanguage =
      storyboard.scriptSource === 'source_text' && page !== null && !judgeLanguage(scene.onScreenText, page, { names }).foreign;
    const foreign = [
      ...(narration?.foreign ? [{ part: 'narration', seems: narration.seems }] : []),
      ...(headline.foreign && !headlineInPageLanguage ? [{ part: `headline “${scene.onScreenText}”`, seems: headline.seems }] : []),
    ];
    if (foreign.length) {
      const parts = foreign.map((f) => f.part).join(' and ');
      const verb = foreign.length > 1 ? 'are' : 'is';
      flag(position, 'wrong_language', `${n(position)}'s ${parts} ${verb} not in ${langName}${seemsWords(foreign[0].seems)}`);
    }
    const reading = readings[position];
    const words = reading.observation.pageWords;
    // The page shown may be the video's language or the page's own (a translated narration over the source page).
    const allowed: LanguageCode[] = [language, ...(page && page !== language ? [page] : [])];
    const judgeable = storyboard.scriptSource === 'localized_page' || page !== null;
    if (scene.kind === 'screen' && judgeable && (!reading.wordsFromOcr || reading.ocrReadsScripts)) {
      const text = words.join(' ');
      const verdicts = allowed.map((l) => judgeLanguage(text, l, { names, minShare: 0.3 }));
      if ([...text.matchAll(/\p{L}/gu)].length >= MIN_PAGE_LETTERS_FOR_LANGUAGE && verdicts.every((v) => v.foreign))
        flag(position, 'wrong_language', `${n(position)} shows page text that is not in ${langName}${seemsWords(verdicts[0].seems)}`);
    }
    for (const text of [...scene.narration.map((segment) => segment.text), scene.onScreenText]) {
      const kind = boilerplateKind(text) ?? sentencesOf(text).map(boilerplateKind).find(Boolean) ?? null;
      if (kind) {
        flag(position, 'boilerplate', `${n(position)} uses ${BOILERPLATE_WORDS[kind]} as its words (“${clip(text)}”)`);
        break;
      }
    }
    const last = scene.narration.at(-1);
    const end = last ? cutNarrationEnd(scene.narration.map((segment) => segment.text).join(' '), last.language) : null;
    if (end) flag(position, 'cut_narration', `${n(position)}'s narration stops in the middle of a sentence (“…${end}”)`);
  });
  const narrations = storyboard.scenes.map((scene) => scene.narration.map((segment) => segment.text).join(' '));
  for (const repeat of repeatedSentences(narrations, language)) {
    const where = repeat.first === repeat.scene ? 'twice' : `again (scene ${repeat.first + 1} said it)`;
    flag(repeat.scene, 'repeated_narration', `${n(repeat.scene)} says “${clip(repeat.sentence)}” ${where}`);
  }
  const order = (f: QualityFlag) =>
    readings.findIndex((r) => r.observation.scene_id === f.scene_id) * QUALITY_FLAG_CODES.length + QUALITY_FLAG_CODES.indexOf(f.code);
  return flags.sort((a, b) => order(a) - order(b));
}

const clip = (text: string, max = 60) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** A text's sentences, split on terminators of any script (enough to find a cookie notice in a narration). */
function sentencesOf(text: string): string[] {
  return text.split(/(?<=[.!?。！？؟])\s*/u).filter((s) => s.trim());
}

/**
 * Whether two page areas look the same: their fingerprints close (mean difference) and alike in shape (correlated:
 * two pages of black lines on white differ little on average wherever their lines are, so closeness alone is not
 * enough). Two flat fields are alike.
 */
export function samePicture(a: Uint8Array, b: Uint8Array): boolean {
  if (difference(a, b) >= SAME_SCREEN_DIFFERENCE) return false;
  const mean = (x: Uint8Array) => x.reduce((sum, v) => sum + v, 0) / x.length;
  const [ma, mb] = [mean(a), mean(b)];
  let [ab, aa, bb] = [0, 0, 0];
  for (let i = 0; i < a.length; i += 1) {
    ab += (a[i] - ma) * (b[i] - mb);
    aa += (a[i] - ma) ** 2;
    bb += (b[i] - mb) ** 2;
  }
  if (aa < 1e-6 || bb < 1e-6) return true;
  return ab / Math.sqrt(aa * bb) >= SAME_SCREEN_CORRELATION;
}

/**
 * Whether two screen scenes show the same screen: by most of their page words, or by their pictures unless their
 * words say otherwise (two sections of one template look alike at 32×32 whatever their text: the pictures decide
 * where the words cannot — screens of images, or of few words).
 */
export function sameScreen(a: SceneObservation, b: SceneObservation): boolean {
  const [x, y] = [pageTokens(a.pageWords), pageTokens(b.pageWords)];
  const fewest = Math.min(x.size, y.size);
  const jaccard = fewest ? [...x].filter((t) => y.has(t)).length / new Set([...x, ...y]).size : 0;
  if (fewest >= SAME_WORDS_MIN_TOKENS && jaccard >= SAME_WORDS_JACCARD) return true;
  // A few words each are enough to tell two screens apart (one template, a heading and a sentence each): only
  // saying they are the same needs many.
  if (fewest >= DIFFERENT_WORDS_MIN_TOKENS && jaccard < DIFFERENT_WORDS_JACCARD) return false;
  return !!a.fingerprint && !!b.fingerprint && samePicture(fingerprintBytes(a.fingerprint), fingerprintBytes(b.fingerprint));
}

/**
 * A word of the page cut by a side of the picture: OCR read it touching the page area's left or right side, and
 * - it is a strict part of a word the capture recorded (not a whole one): "projec" of "projects"; or
 * - in an unspaced script (a cut glyph reads as nothing useful), the rest of its line as OCR read it is a run of
 *   a recorded text that goes on past it: the line continues beyond the side.
 * Without recorded words, a word touching a side is cut: the renderer keeps a margin of the page around its text.
 */
export function cutWord(r: SceneReading): CutText | null {
  if (!r.ocrWords) return null;
  const recorded = new Set(r.recordedWords);
  // Without the capture's words to compare with, only a word the side itself cuts through counts: a page's own text
  // may stand a few pixels from its edge (a full-width hero's heading at its 8 px margin) without being cut.
  const tolerance = recorded.size ? Math.max(3, SIDE_TOUCH_SHARE * r.areaWidth) : 1;
  const texts = r.view.focus.map((item) => fold(item.text)).filter(Boolean);
  for (const word of r.ocrWords) {
    const side = word.left <= tolerance ? 'left' : word.left + word.width >= r.areaWidth - tolerance ? 'right' : null;
    if (!side) continue;
    const folded = fold(word.text);
    // Marks that only lengthen a sound or repeat a character ("ーー", "々") are how OCR reads a rule or a border, not
    // words: a real docs page's sidebar edge read as "ーー" flagged its Japanese 16:9 video cut_text.
    if (!/[^\p{Lm}]/u.test(folded)) continue;
    // The rest of its line, read towards the side: what precedes it at the right side, what follows it at the left.
    const centre = word.top + word.height / 2;
    const line = r.ocrWords
      .filter((w) => w !== word && Math.abs(w.top + w.height / 2 - centre) < Math.max(w.height, word.height) / 2)
      .filter((w) => (side === 'right' ? w.left < word.left : w.left > word.left))
      .sort((a, b) => a.left - b.left)
      .map((w) => fold(w.text))
      .join('');
    const unspacedLine = UNSPACED.test(line) && [...line].length >= 4;
    let cut: boolean;
    if (!recorded.size) cut = (word.confidence >= 70 && [...folded].length >= 2) || unspacedLine;
    else if (
      [...folded].length >= 2 &&
      !recorded.has(folded) &&
      r.recordedWords.some((whole) => whole.length > folded.length && whole.includes(folded))
    )
      cut = true;
    else
      cut =
        unspacedLine &&
        texts.some((text) => {
          const at = text.indexOf(line);
          return at >= 0 && (side === 'right' ? at + line.length < text.length : at > 0);
        });
    if (cut) return { side, text: word.text };
  }
  return null;
}

/** A line shows between these shares of its height at the crop's top or bottom edge: it is cut (less is a sliver of a line out of view, more a line all but whole). */
export const CUT_LINE_SHARE = { min: 0.15, max: 0.85 };
/** A single line this many body lines tall is display type (a wordmark): not judged cut where it is over half the crop's height. */
export const DISPLAY_LINE_FACTOR = 3;
/** Grey levels between the lightest and darkest pixels of the frame's rows at the area's edge, over a line: the line's ink is cut there. */
export const EDGE_INK_RANGE = 48;

/**
 * The words of a recorded text box's `line`-th of `lines` lines, estimated: its characters shared out evenly among
 * the lines, a word on the line where its middle falls (an unspaced script: its characters).
 */
function lineWords(text: string, line: number, lines: number): string {
  const chars = [...text.trim()];
  const spaced = chars.includes(' ');
  const parts = spaced ? chars.join('').split(/\s+/u) : chars;
  const total = chars.length;
  let at = 0;
  const on = parts.filter((part) => {
    const middle = at + [...part].length / 2;
    at += [...part].length + (spaced ? 1 : 0);
    return Math.min(lines - 1, Math.floor((middle / total) * lines)) === line;
  });
  return clip(on.join(spaced ? ' ' : '') || text, 40);
}

/**
 * A line of the page cut by the picture's top or bottom edge, from the capture's text boxes: a box the edge runs
 * through, in which the line at the edge (the box's lines estimated from the page's line height) shows between
 * CUT_LINE_SHARE of its height — and, for a frame that stands still, whose ink reaches that edge of the frame
 * (`inkAt`: the grey range of the frame's edge rows over the box, frame pixels). While a scroll moves, lines pass
 * its edges: its two resting windows are judged instead (from the boxes alone). A line taller than the crop, or
 * display type over half of it, is exempt (no crop holds it with its section).
 */
export function cutLine(view: PageView, inkAt?: (side: 'top' | 'bottom', box: Box) => number): CutText | null {
  if (!view.shown || !view.focus.length) return null;
  const windows = view.moving ? view.rests : [view.shown];
  for (const window of windows) {
    for (const { box, text, lines: measured } of view.focus) {
      if (box.x + box.width <= window.x || box.x >= window.x + window.width) continue;
      const body = view.lineRows;
      const bands = lineBands(box, body, measured);
      const lines = bands.length;
      const pitch = bands[0].height;
      if (pitch > window.height || (lines === 1 && body && box.height > DISPLAY_LINE_FACTOR * body && box.height > window.height / 2))
        continue;
      for (const side of ['top', 'bottom'] as const) {
        const edge = side === 'top' ? window.y : window.y + window.height;
        if (!slices(box, edge)) continue;
        const line = Math.min(lines - 1, Math.floor((edge - box.y) / pitch));
        const above = (edge - box.y - line * pitch) / pitch;
        const visible = side === 'top' ? 1 - above : above;
        if (visible < CUT_LINE_SHARE.min || visible > CUT_LINE_SHARE.max) continue;
        if (!view.moving && inkAt && inkAt(side, box) < EDGE_INK_RANGE) continue;
        return { side, text: lineWords(text, line, lines) };
      }
    }
  }
  return null;
}

/**
 * Without the capture's text boxes, a line cut by the picture's top or bottom edge as OCR read it, judged
 * conservatively (a false alarm costs a render and worries the customer): at least two words read touching the
 * edge on one row, each shorter than the page's other words (a part of their height shows) but not a sliver, on a
 * picture that stands still, with enough other words read to know the page's line height. A single word (a logo, a
 * wordmark) is never taken for a cut line.
 */
export function cutOcrLine(r: SceneReading): CutText | null {
  if (!r.ocrWords || r.view.focus.length || r.view.moving) return null;
  const touches = (w: OcrWord, side: 'top' | 'bottom') => (side === 'top' ? w.top <= 1 : w.top + w.height >= r.areaHeight - 1);
  const inside = r.ocrWords.filter((w) => !touches(w, 'top') && !touches(w, 'bottom') && w.confidence >= OCR_MIN_CONFIDENCE);
  if (inside.length < 4) return null;
  const heights = inside.map((w) => w.height).sort((a, b) => a - b);
  const median = heights[Math.floor(heights.length / 2)];
  for (const side of ['top', 'bottom'] as const) {
    const cut = r.ocrWords.filter((w) => touches(w, side) && w.height <= 0.75 * median && w.height >= 0.3 * median);
    if (cut.length >= 2) return { side, text: clip(cut.map((w) => w.text).join(' '), 40) };
  }
  return null;
}

/**
 * The video's own check: a frame at each scene's midpoint taken from `videoPath` into `workDir`, each looked at,
 * and the whole judged. `pageLanguage`: the language of the page the screenshots show when it is not the video's.
 */
export async function checkVideo(input: {
  videoPath: string;
  storyboard: Storyboard;
  workDir: string;
  pageLanguage?: string | null;
}): Promise<VideoCheck> {
  const { storyboard, workDir } = input;
  await fs.mkdir(workDir, { recursive: true });
  const midpoints = storyboard.scenes.map((scene) => scene.startSeconds + scene.durationSeconds / 2);
  const frames = await framesAt(input.videoPath, midpoints, workDir);
  return checkFrames({ frames, storyboard, workDir, pageLanguage: input.pageLanguage });
}

/** The check on frames already taken (one PNG a scene, at its midpoint, at the video's size). */
export async function checkFrames(input: {
  frames: string[];
  storyboard: Storyboard;
  workDir: string;
  pageLanguage?: string | null;
}): Promise<VideoCheck> {
  const { storyboard, workDir } = input;
  const images = await Promise.all(input.frames.map((frame) => loadFrame(frame)));
  const views = pageViews(storyboard, { width: images[0].width, height: images[0].height });
  const installed = await installedOcrLanguages();
  const needed = [storyboard.language, input.pageLanguage].flatMap((l) => (l && OCR_LANGUAGES[l] ? [OCR_LANGUAGES[l]] : []));
  const opts: ObserveOptions = {
    workDir,
    ocrLanguages: await ocrLanguagesArg([storyboard.language, input.pageLanguage]),
    ocrReadsScripts: needed.every((pack) => installed.has(pack)),
  };
  const readings: SceneReading[] = [];
  for (const [position, view] of views.entries()) readings.push(await observeScene(images[position], view, position, opts));
  return { flags: judgeVideo(storyboard, readings, input.pageLanguage), scenes: readings.map((r) => r.observation) };
}
