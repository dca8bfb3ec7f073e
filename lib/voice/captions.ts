/**
 * Captions from narration: cues timed from each scene's audio, packed two lines at most, and WebVTT in and out.
 *
 * Sentence splitting and line breaking per script live in lib/text.ts (shared with the script writer and the
 * renderer's title boxes); here they are packed into cues. Text is kept in logical order for every language;
 * right-to-left display is left to the renderer / player (see toWebVtt for the one mark it adds).
 */
import type { LanguageCode } from '../../config/catalog';
import {
  BREAK_COST,
  breakIntoTwoLines,
  breakOpportunities,
  checkMaxLineChars,
  displayLength,
  graphemes,
  lineSpans,
  normalizeText,
  pickBreak,
  sentenceRanges,
  skipSpaces,
} from '../text';

/** One per scene: its narration and where its audio sits in the video. */
export interface CaptionScene {
  text: string;
  startSeconds: number;
  durationSeconds: number;
}
/** `text` may contain one "\n" (at most 2 lines). Times in seconds, millisecond precision. */
export interface Cue {
  start: number;
  end: number;
  text: string;
  /** Captions `words`: the cue's words in order, each with the moment it is said (the first at the cue's start);
   * in WebVTT, cue-internal timestamps (`Hello <00:00:01.250>world`). The words, joined as in `text`, are `text`. */
  words?: CueWord[];
}
export interface CueWord {
  text: string;
  start: number;
}

/** The colour of the word being said, burned in (lib/render/editly-child.ts) and in the SubRip file's `<font>`. */
export const ACTIVE_WORD_COLOR = '#ffd400';

/** Default characters per caption line: 42 for alphabetic scripts (Latin, Cyrillic, Arabic, Devanagari), 16 for ja/zh, 18 for ko, 35 for Thai. */
export const DEFAULT_MAX_LINE_CHARS: Record<LanguageCode, number> = {
  en: 42,
  ja: 16,
  ko: 18,
  zh: 16,
  es: 42,
  fr: 42,
  de: 42,
  pt: 42,
  it: 42,
  nl: 42,
  pl: 42,
  ru: 42,
  tr: 42,
  ar: 42,
  hi: 42,
  id: 42,
  vi: 42,
  th: 35,
  sv: 42,
  uk: 42,
};

// ---------------------------------------------------------------------------------------------------------
// Cues

/**
 * Cues for a sentence too long for one cue: each cue takes as much as fits in two lines, but ends at a
 * clause mark rather than a plain space when one is reasonably close (a cue is read as a unit).
 */
function longSentenceCues(sentence: string, language: LanguageCode, max: number): string[] {
  const opps = breakOpportunities(sentence, language);
  const cues: string[] = [];
  let start = 0;
  while (start < sentence.length) {
    const rest = sentence.slice(start);
    const whole = breakIntoTwoLines(rest, language, max);
    if (whole) {
      cues.push(whole.lines.join('\n'));
      break;
    }
    const candidates = [];
    for (const opp of opps) {
      if (opp.end <= start) continue;
      const chunk = sentence.slice(start, opp.end).trim();
      const length = displayLength(chunk);
      if (length > 2 * max) break;
      const split = breakIntoTwoLines(chunk, language, max);
      if (split) candidates.push({ opp, length, lines: split.lines, score: (0.5 * (2 * max - length)) / (2 * max) + opp.cost });
    }
    const chosen = pickBreak(candidates, max);
    let best = chosen && { lines: chosen.lines, next: chosen.opp.next };
    if (!best) {
      // Only a word longer than a line gets here: fall back to the first two greedy lines.
      const spans = lineSpans(rest, language, max).slice(0, 2);
      best = { lines: spans.map((sp) => rest.slice(sp.start, sp.end).trim()), next: start + spans.at(-1)!.end };
    }
    cues.push(best.lines.join('\n'));
    start = skipSpaces(sentence, best.next);
  }
  return cues;
}

/** Cue texts for one scene's narration: whole sentences packed into ≤ 2 lines where they fit, long sentences split across cues. */
function cueTexts(text: string, language: LanguageCode, max: number): string[] {
  const norm = normalizeText(text);
  const sentences = sentenceRanges(norm, language);
  const cues: string[] = [];
  let i = 0;
  while (i < sentences.length) {
    const first = sentences[i];
    let block = breakIntoTwoLines(norm.slice(first.start, first.end), language, max);
    if (!block) {
      cues.push(...longSentenceCues(norm.slice(first.start, first.end), language, max));
      i++;
      continue;
    }
    // Pack following sentences into the same cue while they fit on one line or the two lines split between sentences.
    let j = i;
    while (j + 1 < sentences.length) {
      const merged = breakIntoTwoLines(norm.slice(first.start, sentences[j + 1].end), language, max);
      if (!merged || merged.breakCost !== BREAK_COST.sentence) break;
      block = merged;
      j++;
    }
    cues.push(block.lines.join('\n'));
    i = j + 1;
  }
  return cues.filter(Boolean);
}

const weight = (cueText: string): number => Math.max(1, graphemes(cueText).filter((g) => !/\s/u.test(g)).length);

/**
 * Splits each scene's narration into cues of at most 2 lines of at most `maxLineChars` (default
 * DEFAULT_MAX_LINE_CHARS[language]). Each scene's cues exactly cover [start, start + duration] of that scene
 * (to the millisecond), back to back, each lasting in proportion to its character count. Scenes may come in
 * any order; cues come out in time order. Throws RangeError on negative or non-finite times and on scenes
 * (with narration) whose audio overlaps.
 */
export function buildCues(scenes: CaptionScene[], language: LanguageCode, opts: { maxLineChars?: number } = {}): Cue[] {
  const max = checkMaxLineChars(opts.maxLineChars ?? DEFAULT_MAX_LINE_CHARS[language]);
  for (const s of scenes) {
    if (!Number.isFinite(s.startSeconds) || s.startSeconds < 0 || !Number.isFinite(s.durationSeconds) || s.durationSeconds < 0) {
      throw new RangeError(`bad scene timing: start ${s.startSeconds}, duration ${s.durationSeconds}`);
    }
  }
  const ordered = scenes.map((s, index) => ({ s, index })).sort((a, b) => a.s.startSeconds - b.s.startSeconds || a.index - b.index);
  const cues: Cue[] = [];
  let previousEndMs = -Infinity;
  for (const { s } of ordered) {
    const texts = cueTexts(s.text ?? '', language, max);
    if (!texts.length) continue;
    const startMs = Math.round(s.startSeconds * 1000);
    const endMs = Math.round((s.startSeconds + s.durationSeconds) * 1000);
    if (startMs < previousEndMs) {
      throw new RangeError(`scene at ${s.startSeconds}s starts before the previous scene ends (${previousEndMs / 1000}s)`);
    }
    const weights = texts.map(weight);
    const total = weights.reduce((a, b) => a + b, 0);
    let cumulative = 0;
    let from = startMs;
    texts.forEach((text, k) => {
      cumulative += weights[k];
      const to = k === texts.length - 1 ? endMs : startMs + Math.round(((endMs - startMs) * cumulative) / total);
      if (to > from) cues.push({ start: from / 1000, end: to / 1000, text });
      from = to;
    });
    previousEndMs = endMs;
  }
  return cues;
}

/** One scene's caption words, each timed in video seconds (lib/voice/word-timing.ts, offset by the scene's start). */
export interface WordCaptionScene {
  words: Array<{ text: string; start: number; end: number }>;
  startSeconds: number;
  durationSeconds: number;
}

/** Scripts whose caption words are written without spaces between them. */
const UNSPACED_CAPTIONS: ReadonlySet<LanguageCode> = new Set(['ja', 'zh', 'th']);
/** What goes between two caption words: a space, except between words of a script written without spaces (but
 * Latin words inside one, "Acme Analytics" in Japanese, keep theirs). */
export function wordSeparator(before: string, after: string, language: LanguageCode): string {
  if (!UNSPACED_CAPTIONS.has(language)) return ' ';
  return /[\p{Script=Latin}\p{N}][^\p{L}\p{N}]*$/u.test(before) && /^[^\p{L}\p{N}]*[\p{Script=Latin}\p{N}]/u.test(after) ? ' ' : '';
}

function joinWords(words: string[], language: LanguageCode): string {
  return words.map((w, i) => (i ? wordSeparator(words[i - 1], w, language) : '') + w).join('');
}

/** A word group on screen at once (short-form style: one short line, read at a glance). */
export const WORD_GROUP = { maxWords: 3, maxChars: 18, maxUnspacedWords: 2, maxUnspacedChars: 9, pauseSeconds: 0.35 };
/** How long a group stays after its last word when the next is far off. */
const WORD_HOLD_SECONDS = 0.6;

/**
 * Captions `words`: each scene's words in short groups (at most WORD_GROUP words and characters; a group ends after
 * a comma or a sentence's end and before a pause), one cue a group, from its first word's start to the next
 * group's (or its last word's end and a short hold, within its scene), carrying each word's start.
 */
export function buildWordCues(scenes: WordCaptionScene[], language: LanguageCode): Cue[] {
  const unspaced = UNSPACED_CAPTIONS.has(language);
  const maxWords = unspaced ? WORD_GROUP.maxUnspacedWords : WORD_GROUP.maxWords;
  const maxChars = unspaced ? WORD_GROUP.maxUnspacedChars : WORD_GROUP.maxChars;
  const cues: Cue[] = [];
  const ordered = [...scenes].sort((a, b) => a.startSeconds - b.startSeconds);
  for (const scene of ordered) {
    const sceneEnd = scene.startSeconds + scene.durationSeconds;
    const groups: Array<WordCaptionScene['words']> = [];
    let group: WordCaptionScene['words'] = [];
    for (const word of scene.words.filter((w) => w.text.trim())) {
      const last = group.at(-1);
      const chars = displayLength(
        joinWords(
          [...group, word].map((w) => w.text),
          language,
        ),
      );
      const full = group.length >= maxWords || chars > maxChars;
      const pause = last ? word.start - last.end > WORD_GROUP.pauseSeconds : false;
      const ended = last ? /[,.!?;:،。、！？，；：…]["'”’」』)]*$/u.test(last.text) : false;
      if (group.length && (full || pause || ended)) {
        groups.push(group);
        group = [];
      }
      group.push(word);
    }
    if (group.length) groups.push(group);
    groups.forEach((words, k) => {
      const ms = (t: number) => Math.round(Math.min(Math.max(t, scene.startSeconds), sceneEnd) * 1000) / 1000;
      const start = ms(words[0].start);
      const next = groups[k + 1]?.[0].start;
      const hold = words.at(-1)!.end + WORD_HOLD_SECONDS;
      const end = ms(next !== undefined && next - words.at(-1)!.end <= WORD_HOLD_SECONDS ? next : Math.min(hold, next ?? hold));
      if (end <= start) return;
      // Each word's start inside the cue, strictly increasing (WebVTT's cue-internal timestamps must be).
      const timed: CueWord[] = [];
      for (const w of words) {
        const at = timed.length ? Math.min(end - 0.001, Math.max(ms(w.start), timed.at(-1)!.start + 0.001)) : start;
        timed.push({ text: w.text, start: Math.round(at * 1000) / 1000 });
      }
      cues.push({
        start,
        end,
        text: joinWords(
          words.map((w) => w.text),
          language,
        ),
        words: timed,
      });
    });
  }
  return cues;
}

// ---------------------------------------------------------------------------------------------------------
// WebVTT

const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
const RLM = '\u200F';

/** A right-to-left line whose first letter is left-to-right ("Acme يساعدك…") would be laid out LTR by players; a leading RLM fixes its base direction. */
function needsRlm(line: string): boolean {
  const firstLetter = line.match(/\p{L}/u)?.[0];
  return firstLetter !== undefined && !RTL_LETTER.test(firstLetter) && RTL_LETTER.test(line);
}

/** HH:MM:SS.mmm (WebVTT) or HH:MM:SS,mmm (SubRip), rounded to the millisecond. */
function formatTimestamp(seconds: number, decimalMark: '.' | ',' = '.'): string {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${decimalMark}${pad(ms % 1000, 3)}`;
}

function checkCueTiming(c: Cue): void {
  if (!Number.isFinite(c.start) || !Number.isFinite(c.end) || c.start < 0 || c.end < c.start) {
    throw new RangeError(`bad cue timing: ${c.start} --> ${c.end}`);
  }
}

/** A cue's text as lines: blank lines dropped (they would end the cue), an RLM where a right-to-left line starts left-to-right. */
function cueLines(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .filter((l) => l.trim() !== '')
    .map((l) => (needsRlm(l) ? RLM : '') + l);
}

const escapeText = (t: string): string => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * WebVTT text: "WEBVTT" header, blank line, then each cue as "HH:MM:SS.mmm --> HH:MM:SS.mmm" and its text,
 * with &, <, > escaped. Blank lines inside a cue's text are dropped (they would end the cue), and a line
 * of mostly right-to-left text that starts with a left-to-right word gets a leading U+200F (RLM), which
 * parseWebVtt removes again.
 */
export function toWebVtt(cues: Cue[]): string {
  const blocks = cues.map((c) => {
    checkCueTiming(c);
    const lines = c.words?.length ? [timedWords(c)] : cueLines(c.text).map(escapeText);
    return `${formatTimestamp(c.start)} --> ${formatTimestamp(c.end)}\n${lines.join('\n')}`;
  });
  return ['WEBVTT', '', ...blocks.map((b) => `${b}\n`)].join('\n');
}

/** Word cues read back: a cue without cue-internal timestamps (one word, or an older file's cue) is one word. */
export function asWordCues(cues: Cue[]): Cue[] {
  return cues.map((cue) => (cue.words?.length ? cue : { ...cue, words: [{ text: cue.text.replace(/\s*\n\s*/g, ' '), start: cue.start }] }));
}

/** The spans of `cue.text` its words occupy, in order (each word found after the one before). */
function wordSpans(cue: Cue & { words: CueWord[] }): Array<{ from: number; to: number; start: number }> {
  let at = 0;
  return cue.words.map((w) => {
    const from = Math.max(at, cue.text.indexOf(w.text, at));
    at = from + w.text.length;
    return { from, to: at, start: w.start };
  });
}

/** A word cue's line with a cue-internal timestamp before every word but the first (a right-to-left line's RLM first). */
function timedWords(cue: Cue): string {
  const spans = wordSpans(cue as Cue & { words: CueWord[] });
  let out = '';
  let at = 0;
  spans.forEach((span, i) => {
    out += escapeText(cue.text.slice(at, span.from));
    if (i > 0) out += `<${formatTimestamp(span.start)}>`;
    out += escapeText(cue.text.slice(span.from, span.to));
    at = span.to;
  });
  return (needsRlm(cue.text) ? RLM : '') + out + escapeText(cue.text.slice(at));
}

// ---------------------------------------------------------------------------------------------------------
// SubRip (SRT)

/** SubRip's line ending: CRLF throughout, as the format began (every player reads it; some older ones read nothing else). */
const SRT_EOL = '\r\n';
const WORD_JOINER = '\u2060';

/**
 * SubRip text of the same cues as toWebVtt: each cue numbered from 1, then "HH:MM:SS,mmm --> HH:MM:SS,mmm",
 * then its lines, then a blank line; every line ends in CRLF; no byte-order mark (the download says
 * `charset=utf-8`). Lines are the WebVTT's: blank lines dropped, the same RLM on a right-to-left line that
 * starts left-to-right. SubRip has no escapes, so text is written as it is, except that "-->" (which would read
 * as a timing line) gets an invisible U+2060 WORD JOINER before its ">"; a cue left with no text is skipped and
 * the numbering stays consecutive.
 */
export function toSrt(cues: Cue[]): string {
  const blocks: string[] = [];
  for (const c of cues.flatMap(karaoke)) {
    checkCueTiming(c);
    const lines = cueLines(c.text).map((l) => l.replace(/-->/g, `--${WORD_JOINER}>`));
    if (!lines.length) continue;
    blocks.push([String(blocks.length + 1), `${formatTimestamp(c.start, ',')} --> ${formatTimestamp(c.end, ',')}`, ...lines].join(SRT_EOL));
  }
  return blocks.map((block) => `${block}${SRT_EOL}${SRT_EOL}`).join('');
}

/**
 * SubRip has no word timing: a word cue becomes one cue per word, from its start to the next word's (the last to the
 * cue's end), the group's text with that word in `<font color>` (the karaoke style players show in colour).
 */
function karaoke(cue: Cue): Cue[] {
  if (!cue.words?.length) return [cue];
  const spans = wordSpans(cue as Cue & { words: CueWord[] });
  return spans.flatMap((span, i) => {
    const end = spans[i + 1]?.start ?? cue.end;
    if (end <= span.start) return [];
    const t = cue.text;
    const text = `${t.slice(0, span.from)}<font color="${ACTIVE_WORD_COLOR}">${t.slice(span.from, span.to)}</font>${t.slice(span.to)}`;
    return [{ start: span.start, end, text }];
  });
}

const TIMESTAMP = /^(?:(\d{2,}):)?([0-5]\d):([0-5]\d)\.(\d{3})$/;
const CUE_TIMESTAMP = /<((?:\d{2,}:)?[0-5]\d:[0-5]\d\.\d{3})>/g;

function parseTimestamp(text: string, lineNo: number): number {
  const m = TIMESTAMP.exec(text);
  if (!m) throw new SyntaxError(`WebVTT line ${lineNo}: bad timestamp "${text}"`);
  const ms = (Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3])) * 1000 + Number(m[4]);
  return ms / 1000;
}

function unescapeText(t: string): string {
  return t
    .replace(/<[^>]*>/g, '') // cue tags (<b>, <v Speaker>, timestamps)
    .replace(/&(amp|lt|gt|nbsp|lrm|rlm|#\d+|#x[0-9a-f]+);/gi, (whole, name: string) => {
      const lower = name.toLowerCase();
      if (lower === 'amp') return '&';
      if (lower === 'lt') return '<';
      if (lower === 'gt') return '>';
      if (lower === 'nbsp') return '\u00A0';
      if (lower === 'lrm') return '\u200E';
      if (lower === 'rlm') return '\u200F';
      const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
}

/**
 * Parses WebVTT into cues. Throws SyntaxError on a missing "WEBVTT" signature, a header not followed by a
 * blank line, a block without a timing line, a malformed timestamp, an end not after its start, a cue starting
 * before the previous one, or a "-->" inside cue text. NOTE, STYLE and REGION blocks and cue identifiers and
 * settings are accepted and ignored; tags are stripped and entities decoded.
 */
export function parseWebVtt(text: string): Cue[] {
  const lines = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  if (!/^WEBVTT(?:[ \t].*)?$/.test(lines[0] ?? '')) throw new SyntaxError('WebVTT: missing "WEBVTT" signature');
  let i = 1;
  while (i < lines.length && lines[i].trim() !== '') {
    if (lines[i].includes('-->')) throw new SyntaxError(`WebVTT line ${i + 1}: header must be followed by a blank line`);
    i++;
  }
  const cues: Cue[] = [];
  while (i < lines.length) {
    while (i < lines.length && lines[i].trim() === '') i++;
    if (i >= lines.length) break;
    const blockStart = i;
    const block: string[] = [];
    while (i < lines.length && lines[i].trim() !== '') block.push(lines[i++]);
    if (/^(NOTE|STYLE|REGION)(?:[ \t]|$)/.test(block[0]) && !block[0].includes('-->')) continue;
    const timingIndex = block[0].includes('-->') ? 0 : 1;
    const timing = block[timingIndex];
    const lineNo = blockStart + timingIndex + 1;
    if (timing === undefined || !timing.includes('-->')) throw new SyntaxError(`WebVTT line ${blockStart + 1}: cue without a timing line`);
    const m = /^(\S+)[ \t]+-->[ \t]+(\S+)(?:[ \t]+.*)?$/.exec(timing);
    if (!m) throw new SyntaxError(`WebVTT line ${lineNo}: malformed timing "${timing}"`);
    const start = parseTimestamp(m[1], lineNo);
    const end = parseTimestamp(m[2], lineNo);
    if (end <= start) throw new SyntaxError(`WebVTT line ${lineNo}: cue ends before it starts`);
    const previous = cues.at(-1);
    if (previous && start < previous.start) throw new SyntaxError(`WebVTT line ${lineNo}: cues out of order`);
    const body = block.slice(timingIndex + 1);
    if (body.some((l) => l.includes('-->'))) throw new SyntaxError(`WebVTT line ${lineNo}: "-->" in cue text (missing blank line?)`);
    const cueText = body
      .map((l) => {
        const decoded = unescapeText(l.startsWith(RLM) ? l.slice(1) : l);
        return l.startsWith(RLM) && !needsRlm(decoded) ? RLM + decoded : decoded;
      })
      .join('\n');
    const cue: Cue = { start, end, text: cueText };
    const timed = body.join('\n');
    if (CUE_TIMESTAMP.test(timed)) {
      // Word cues: the text before the first timestamp is the first word, said at the cue's start.
      const pieces = timed.split(CUE_TIMESTAMP);
      const words: CueWord[] = [];
      for (let k = 0; k < pieces.length; k += 2) {
        const text = unescapeText(pieces[k].replace(RLM, '')).trim();
        const at = k === 0 ? start : parseTimestamp(pieces[k - 1], lineNo);
        if (text) words.push({ text, start: at });
      }
      cue.words = words;
    }
    CUE_TIMESTAMP.lastIndex = 0;
    cues.push(cue);
  }
  return cues;
}

/**
 * A video's cues from its timed scenes, in the captions mode it asks for: `words`, short groups timed by each scene's
 * words (seconds of the scene's own audio); otherwise sentences spread over each scene. Used by the voice stage for
 * a language's first narration and for an edit's.
 */
export function videoCues(
  scenes: Array<{
    text: string;
    startSeconds: number;
    durationSeconds: number;
    words?: Array<{ text: string; start: number; end: number }>;
  }>,
  language: LanguageCode,
  captions: 'burned' | 'file_only' | 'words' | undefined,
): Cue[] {
  if (captions === 'words')
    return buildWordCues(
      scenes.map((s) => ({
        words: (s.words ?? []).map((w) => ({ ...w, start: s.startSeconds + w.start, end: s.startSeconds + w.end })),
        startSeconds: s.startSeconds,
        durationSeconds: s.durationSeconds,
      })),
      language,
    );
  return buildCues(
    scenes.map((s) => ({ text: s.text, startSeconds: s.startSeconds, durationSeconds: s.durationSeconds })),
    language,
  );
}
