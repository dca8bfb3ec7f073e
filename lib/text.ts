/**
 * Text segmentation for every script, in one place: grapheme clusters, sentence splitting, and where a line
 * (or a cut sentence) may break. The script writer's reading-rate cuts, the captions and the renderer's
 * title boxes all split and break text here, so they agree on what a sentence and a good break are.
 *
 * Lengths are measured in grapheme clusters (what a viewer sees as one character), so a Devanagari conjunct
 * or a Thai consonant with its tone mark counts once. Text is kept in logical order for every language.
 */
import type { LanguageCode } from '../config/catalog';

// ---------------------------------------------------------------------------------------------------------
// Characters and words

const graphemeSegmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });
const thaiWordSegmenter = new Intl.Segmenter('th', { granularity: 'word' });

/**
 * User-perceived characters (grapheme clusters): a Devanagari conjunct with its vowel sign, or a Thai consonant
 * with its tone mark, is one.
 */
export function graphemes(text: string): string[] {
  return Array.from(graphemeSegmenter.segment(text), (s) => s.segment);
}

/** Length in grapheme clusters; what caption line limits are measured in. */
export function displayLength(text: string): number {
  let n = 0;
  for (const _ of graphemeSegmenter.segment(text)) n++;
  return n;
}

/** Word boundaries (string offsets, excluding 0 and text.length) inside a run of Thai text, from ICU's dictionary segmenter. */
export function thaiWordBoundaries(text: string): number[] {
  const out: number[] = [];
  for (const s of thaiWordSegmenter.segment(text)) if (s.index > 0) out.push(s.index);
  return out;
}

/** Collapses runs of whitespace (including newlines) to one space and trims. */
export function normalizeText(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

export const isCjk = (language: LanguageCode): boolean => language === 'ja' || language === 'zh';

// ---------------------------------------------------------------------------------------------------------
// Scripts: which writing system a text's letters are in (a ja page's meta description left in English; a model's
// narration in the wrong language)

export type ScriptName = 'latin' | 'han' | 'kana' | 'hangul' | 'arabic' | 'devanagari' | 'thai' | 'cyrillic' | 'other';
const SCRIPTS: Array<[Exclude<ScriptName, 'other'>, RegExp]> = [
  ['latin', /\p{Script=Latin}/u],
  ['han', /\p{Script=Han}/u],
  ['kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['hangul', /\p{Script=Hangul}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['devanagari', /\p{Script=Devanagari}/u],
  ['thai', /\p{Script=Thai}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
];

/** Letters (code points of category L) of `text` by script. */
export function letterCounts(text: string): Record<ScriptName, number> & { total: number } {
  const counts = { latin: 0, han: 0, kana: 0, hangul: 0, arabic: 0, devanagari: 0, thai: 0, cyrillic: 0, other: 0, total: 0 };
  for (const [letter] of text.matchAll(/\p{L}/gu)) {
    counts.total++;
    const script = SCRIPTS.find(([, test]) => test.test(letter));
    counts[script ? script[0] : 'other']++;
  }
  return counts;
}

/** Which script a non-Latin language is written in (the share of a text's letters in it), and that script's name for messages. */
export const LANGUAGE_SCRIPT: Partial<Record<LanguageCode, { share: (c: Record<ScriptName, number>) => number; label: string }>> = {
  ja: { share: (c) => c.kana + c.han, label: 'kana and kanji' },
  zh: { share: (c) => c.han, label: 'Han characters' },
  ko: { share: (c) => c.hangul, label: 'Hangul' },
  ar: { share: (c) => c.arabic, label: 'Arabic script' },
  hi: { share: (c) => c.devanagari, label: 'Devanagari' },
  th: { share: (c) => c.thai, label: 'Thai script' },
  ru: { share: (c) => c.cyrillic, label: 'Cyrillic' },
  uk: { share: (c) => c.cyrillic, label: 'Cyrillic' },
};

// ---------------------------------------------------------------------------------------------------------
// Sentences

/** Sentence spans [start, end) in `text` (already normalized), each including its terminator and any closing quote. */
export function sentenceRanges(text: string, language: LanguageCode): Array<{ start: number; end: number }> {
  // Latin/Devanagari/Arabic terminators end a sentence only before whitespace or the end ("acme.io" is one word);
  // CJK terminators end one anywhere. Thai has no full stop: a space separates sentences.
  const western = /[.!?…।॥؟]+["'”’»)\]]*(?=\s|$)/gu;
  // A CJK terminator inside quotes followed by a particle (「すごい！」と言った) does not end the sentence.
  const cjk = /[。！？]+(?:[」』）"”’]+(?!\p{Script=Hiragana}))?(?![」』）"”’])|[!?]+(?=[^!?\s"'”’)\]])/gu;
  const ends = new Set<number>();
  for (const m of text.matchAll(western)) ends.add(m.index + m[0].length);
  if (isCjk(language)) for (const m of text.matchAll(cjk)) ends.add(m.index + m[0].length);
  if (language === 'th') for (const m of text.matchAll(/\s+/gu)) ends.add(m.index);
  ends.add(text.length);
  const ranges: Array<{ start: number; end: number }> = [];
  let start = 0;
  for (const end of [...ends].sort((a, b) => a - b)) {
    let s = start;
    let e = end;
    while (s < e && /\s/u.test(text[s])) s++;
    while (e > s && /\s/u.test(text[e - 1])) e--;
    if (e > s) ranges.push({ start: s, end: e });
    start = Math.max(start, end);
  }
  return ranges;
}

/** The sentences of `text`, each with its own terminator. */
export function splitSentences(text: string, language: LanguageCode): string[] {
  const norm = normalizeText(text);
  return sentenceRanges(norm, language).map((r) => norm.slice(r.start, r.end));
}

const ENDS_WITH_SENTENCE_TERMINATOR = /[.!?…。！？।॥؟]["'”’»)\]」』）]*$/u;

/**
 * True when `fragment` ends with a sentence terminator of any script (and any closing quotes or brackets),
 * whatever the language: a word before a line break, or the end of a cut sentence that needs no full stop.
 */
export function endsWithSentenceTerminator(fragment: string): boolean {
  return ENDS_WITH_SENTENCE_TERMINATOR.test(fragment);
}

// ---------------------------------------------------------------------------------------------------------
// Break costs and CJK break positions

/** Characters that may not start a line (or be cut off from what precedes them) in Japanese and Chinese. */
export const CJK_NO_START = new Set([
  ...'、。，．！？）」』】〕〉》〗〙〟’”｝］・：；ー…‥ゝゞヽヾ々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ),.!?:;]}%％',
]);
/** Characters that may not end a line (opening brackets) in Japanese and Chinese. */
export const CJK_NO_END = new Set([...'（「『【〔〈《〖〘〝‘“｛［([{']);
const CJK_CLAUSE_END = new Set([...'、，；：」』）']);
const CJK_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

/** True for characters of a Latin-style token inside CJK text ("acme.io", "2.5"), which must not be split. */
export function isEmbeddedWordChar(g: string): boolean {
  return (/[\p{L}\p{N}\p{M}]/u.test(g) && !CJK_SCRIPT.test(g)) || /^[.\-_/@:%+#&']$/u.test(g);
}

/** Break costs shared by line breaking and sentence cutting: lower is a nicer place to end a line or cut a sentence. */
export const BREAK_COST = {
  sentence: 0,
  clause: 0.15,
  space: 0.3,
  cjkPhrase: 0.3,
  cjkWord: 0.45,
  thaiWord: 0.5,
  cjkCompound: 0.6,
  hyphen: 0.7,
  cjkWeakWord: 0.8,
  cjkChar: 0.9,
} as const;

const CJK_SENTENCE_END = new Set([...'。！？!?']);
const jaWordSegmenter = new Intl.Segmenter('ja', { granularity: 'word' });
const zhWordSegmenter = new Intl.Segmenter('zh', { granularity: 'word' });
const HIRAGANA = /\p{Script=Hiragana}/u;
const JA_PREFIX = /^[おご御]$/u;
/** Chinese particles and suffixes that belong to the word before them. */
const ZH_CLITICS = new Set(['的', '了', '着', '过', '吗', '呢', '吧', '啊', '呀', '地', '得', '们']);

/** Starts a Japanese content word (kanji, katakana, Latin, digits, an opening bracket), i.e. a likely phrase (bunsetsu) start. */
const startsJaContent = (t: string): boolean => {
  const c = t[0] ?? '';
  return !HIRAGANA.test(c) && (/[\p{L}\p{N}]/u.test(c) || CJK_NO_END.has(c));
};

function jaScript(c: string): string {
  if (HIRAGANA.test(c)) return 'hiragana';
  if (/[\p{Script=Katakana}ー]/u.test(c)) return 'katakana';
  if (/\p{Script=Han}/u.test(c)) return 'han';
  if (/[\p{L}\p{N}]/u.test(c)) return 'alnum';
  return 'other';
}

/**
 * Allowed break positions between characters of Japanese or Chinese `text` (spaces excluded) with their cost.
 * Never before closing punctuation, after an opening bracket, or inside an embedded Latin word or number.
 * Cheapest after 。！？, then after 、，」; then, from ICU's dictionary word segmentation, before a Japanese
 * phrase (a content word after particles/inflection: "映像を|アップロード") or a Chinese word not followed
 * by a clitic (的, 了…); a break inside a word is the last resort.
 */
export function cjkBreaks(text: string, language: LanguageCode): Array<{ pos: number; cost: number }> {
  const ja = language === 'ja';
  const segments = Array.from((ja ? jaWordSegmenter : zhWordSegmenter).segment(text), (s) => ({ text: s.segment, index: s.index }));
  const segmentAt = new Map(segments.map((s, k) => [s.index, k]));
  const out: Array<{ pos: number; cost: number }> = [];
  const gs = graphemes(text);
  let pos = gs[0]?.length ?? 0;
  for (let i = 1; i < gs.length; pos += gs[i].length, i++) {
    const prev = gs[i - 1];
    const cur = gs[i];
    if (/\s/u.test(prev) || /\s/u.test(cur)) continue;
    if (CJK_NO_START.has(cur) || CJK_NO_END.has(prev)) continue;
    if (isEmbeddedWordChar(prev) && isEmbeddedWordChar(cur)) continue;
    let cost: number;
    if (CJK_SENTENCE_END.has(prev)) cost = BREAK_COST.sentence;
    else if (CJK_CLAUSE_END.has(prev)) cost = BREAK_COST.clause;
    else {
      const k = segmentAt.get(pos);
      if (k === undefined || k === 0) cost = BREAK_COST.cjkChar;
      else if (ja) {
        const before = segments[k - 1].text;
        const here = segments[k].text;
        const after = segments[k + 1]?.text ?? '';
        const phraseStart = startsJaContent(here) || (JA_PREFIX.test(here) && startsJaContent(after));
        if (!phraseStart || JA_PREFIX.test(before))
          cost = BREAK_COST.cjkWeakWord; // before a particle or inflection, after お/ご
        else if (jaScript(prev) === jaScript(cur) && jaScript(cur) !== 'hiragana')
          cost = BREAK_COST.cjkCompound; // アップ|ロード, 自動|翻訳
        else cost = BREAK_COST.cjkPhrase;
      } else {
        cost = ZH_CLITICS.has(segments[k].text[0]) ? BREAK_COST.cjkWeakWord : BREAK_COST.cjkWord;
      }
    }
    out.push({ pos, cost });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Line break opportunities

/** A place a line may end: the line ends at `end`, the next starts at `next` (after any spaces); lower cost = nicer. */
export interface BreakOpportunity {
  end: number;
  next: number;
  cost: number;
  /**
   * 'fallback' (Thai word boundaries: Thai breaks at spaces first) competes only when no ordinary break gives a
   * line at least half full; 'lastResort' (after the hyphen of a hyphenated word) only when nothing else fits.
   */
  tier?: 'fallback' | 'lastResort';
}

/** The cheapest candidate (later wins ties), honouring the tiers above; `minPrimaryLength` is "half full". */
export function pickBreak<T extends { opp: BreakOpportunity; length: number; score: number }>(
  candidates: T[],
  minPrimaryLength: number,
): T | undefined {
  const best = (list: T[]) => list.reduce<T | undefined>((b, c) => (!b || c.score <= b.score ? c : b), undefined);
  const primary = best(candidates.filter((c) => !c.opp.tier));
  if (primary && primary.length >= minPrimaryLength) return primary;
  return best(candidates.filter((c) => c.opp.tier !== 'lastResort')) ?? best(candidates);
}

const CLAUSE_END = /(?:[,;:、，；：،؛]["'”’»)\]」』）]*|^[\p{Pd}]+)$/u;
const THAI = /\p{Script=Thai}/u;
const SPACE = /\s/u;

function costAfter(token: string): number {
  if (endsWithSentenceTerminator(token)) return BREAK_COST.sentence;
  if (CLAUSE_END.test(token)) return BREAK_COST.clause;
  return BREAK_COST.space;
}

function spaceOpportunities(text: string, opps: BreakOpportunity[], cjk: boolean): void {
  for (const m of text.matchAll(/\s+/gu)) {
    const end = m.index;
    const next = end + m[0].length;
    if (end === 0 || next >= text.length) continue;
    const prevToken = text.slice(0, end).split(SPACE).pop()!;
    const nextToken = text.slice(next).split(SPACE)[0];
    // Keep a lone opening mark with what follows ("« Bonjour") and a lone closing mark or
    // punctuation with what precedes ("Bonjour ?", "Bonjour »").
    if (/^[\p{Ps}\p{Pi}]+$/u.test(prevToken)) continue;
    if (/^[\p{Pe}\p{Pf}\p{Po}]+$/u.test(nextToken)) continue;
    if (cjk && (CJK_NO_START.has(nextToken[0]) || CJK_NO_END.has(prevToken.at(-1)!))) continue;
    opps.push({ end, next, cost: costAfter(prevToken) });
  }
}

function cjkOpportunities(text: string, language: LanguageCode, opps: BreakOpportunity[]): void {
  for (const { pos, cost } of cjkBreaks(text, language)) opps.push({ end: pos, next: pos, cost });
}

function thaiOpportunities(text: string, opps: BreakOpportunity[]): void {
  for (const m of text.matchAll(/\S+/gu)) {
    if (!THAI.test(m[0])) continue;
    for (const b of thaiWordBoundaries(m[0])) {
      // Only break next to Thai letters, never inside an embedded Latin word or number.
      if (!THAI.test(m[0][b - 1]) && !THAI.test(m[0][b])) continue;
      opps.push({ end: m.index + b, next: m.index + b, cost: BREAK_COST.thaiWord, tier: 'fallback' });
    }
  }
}

function hyphenOpportunities(text: string, opps: BreakOpportunity[]): void {
  for (const m of text.matchAll(/[\p{L}\p{N}]-(?=[\p{L}\p{N}])/gu)) {
    opps.push({ end: m.index + 2, next: m.index + 2, cost: BREAK_COST.hyphen, tier: 'lastResort' });
  }
}

/** Every place a line of normalized `text` may end in `language`, in text order. */
export function breakOpportunities(text: string, language: LanguageCode): BreakOpportunity[] {
  const opps: BreakOpportunity[] = [];
  hyphenOpportunities(text, opps);
  const cjk = isCjk(language);
  spaceOpportunities(text, opps, cjk);
  if (cjk) cjkOpportunities(text, language, opps);
  if (language === 'th') thaiOpportunities(text, opps);
  return opps.sort((a, b) => a.end - b.end);
}

// ---------------------------------------------------------------------------------------------------------
// Line breaking

export interface Span {
  start: number;
  end: number;
}

/** The first index at or after `i` that is not whitespace. */
export function skipSpaces(text: string, i: number): number {
  while (i < text.length && SPACE.test(text[i])) i++;
  return i;
}

/**
 * A forced break when no opportunity fits (a URL longer than a line): `max` graphemes, not leaving a CJK
 * no-start character at the next line's head.
 */
function hardBreak(text: string, start: number, max: number): number {
  const gs = graphemes(text.slice(start));
  let take = Math.min(max, gs.length);
  while (take > 1 && CJK_NO_START.has(gs[take] ?? '')) take--;
  return start + gs.slice(0, take).join('').length;
}

/** Greedy line spans over normalized `text`, each line choosing the cheapest break (fullness versus break quality). */
export function lineSpans(text: string, language: LanguageCode, max: number): Span[] {
  const opps = breakOpportunities(text, language);
  const spans: Span[] = [];
  let start = 0;
  while (start < text.length) {
    if (displayLength(text.slice(start)) <= max) {
      spans.push({ start, end: text.length });
      break;
    }
    const candidates = [];
    for (const opp of opps) {
      if (opp.end <= start) continue;
      const length = displayLength(text.slice(start, opp.end));
      if (length > max) break;
      candidates.push({ opp, length, score: (max - length) / max + opp.cost });
    }
    const best = pickBreak(candidates, max / 2)?.opp;
    const end = best ? best.end : hardBreak(text, start, max);
    spans.push({ start, end });
    start = skipSpaces(text, best ? best.next : end);
  }
  return spans;
}

/** Validates a line length limit (at least 1, finite) and rounds it down to whole characters. */
export function checkMaxLineChars(maxLineChars: number): number {
  if (!Number.isFinite(maxLineChars) || maxLineChars < 1) throw new RangeError(`maxLineChars must be >= 1, got ${maxLineChars}`);
  return Math.floor(maxLineChars);
}

/**
 * Breaks `text` into lines of at most `maxLineChars` grapheme clusters: at spaces for space-separated scripts
 * (Arabic, Devanagari and Korean included), between characters for ja/zh (preferring after 、。，！？, obeying
 * basic kinsoku: no line starts with closing punctuation or ends with an opening bracket), and for Thai at spaces
 * or, inside a long run, at dictionary word boundaries. Only a single word longer than a line is ever split.
 */
export function breakLines(text: string, language: LanguageCode, maxLineChars: number): string[] {
  const max = checkMaxLineChars(maxLineChars);
  const norm = normalizeText(text);
  return lineSpans(norm, language, max)
    .map((s) => norm.slice(s.start, s.end).trim())
    .filter(Boolean);
}

/**
 * The best split of normalized `text` into at most two lines of at most `max` (balanced, preferring punctuation)
 * and the cost of its break, or null when it needs more.
 */
export function breakIntoTwoLines(text: string, language: LanguageCode, max: number): { lines: string[]; breakCost: number } | null {
  if (displayLength(text) <= max) return { lines: [text], breakCost: BREAK_COST.sentence };
  const candidates = [];
  for (const opp of breakOpportunities(text, language)) {
    const first = text.slice(0, opp.end).trim();
    const second = text.slice(opp.next).trim();
    const l1 = displayLength(first);
    const l2 = displayLength(second);
    if (l1 > max || l2 > max || !first || !second) continue;
    // Balanced lines, with a slight preference for a longer bottom line (ties go to the earlier break).
    candidates.push({ opp, lines: [first, second], length: Infinity, score: Math.max(l1, l2) / max + opp.cost + (l1 > l2 ? 0.01 : 0) });
  }
  const best = pickBreak(candidates.reverse(), 0); // reversed: pickBreak() lets the later of equal candidates win
  return best ? { lines: best.lines, breakCost: best.opp.cost } : null;
}

/** Scripts written without spaces between words (ja, zh, th): lines may break between any two words of a dictionary. */
export function wrapsAnywhere(language: LanguageCode): boolean {
  return ['ja', 'zh', 'th'].includes(language);
}

/** Width of one character in ems: a CJK glyph is square; Thai letters are narrower. */
const EMS_PER_CHARACTER: Partial<Record<LanguageCode, number>> = { th: 0.6 };

/**
 * A title or headline of a script without spaces, broken into lines for a box `boxWidth` wide at `fontSize`:
 * between phrases and after punctuation (the captions' line breaker, lib/text.ts), never inside a word
 * such as a katakana name, as a text box breaking wherever it is full would.
 */
export function breakForBox(text: string, language: LanguageCode, boxWidth: number, fontSize: number): string {
  const fits = Math.max(1, Math.floor(boxWidth / (fontSize * (EMS_PER_CHARACTER[language] ?? 1))));
  const wordEnds = new Set(
    Array.from(new Intl.Segmenter(language, { granularity: 'word' }).segment(text), (s) => s.index + s.segment.length),
  );
  // A word longer than a line (アカウントマネージャー) stays whole: longer lines are allowed until no line
  // ends inside a word, and the renderer draws the widest line smaller to fit.
  for (let perLine = fits; ; perLine += 1) {
    const lines = breakLines(text, language, perLine);
    let consumed = 0;
    const splitsWord = lines.slice(0, -1).some((line) => {
      consumed = text.indexOf(line, consumed) + line.length;
      return !wordEnds.has(consumed);
    });
    if (!splitsWord || lines.length === 1) return lines.join('\n');
  }
}
