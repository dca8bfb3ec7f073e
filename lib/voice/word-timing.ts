/**
 * When each caption word is said (captions `words`): the words of a narration as the captions show them (spaced
 * scripts by spaces; ja, zh and Thai, written without spaces, in short word groups), and their start and end in
 * the audio. An engine that knows its own timing gives it (festival's Token/Word relation, Open JTalk's label
 * trace), mapped onto the caption words by their letters; every other engine goes through the measured alignment
 * of lib/voice/alignment.ts. Times are never estimated from the text alone (e.g. in proportion to its characters).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LanguageCode } from '../../config/catalog';
import { normalizeText } from '../text';
import { alignToReferences, readPcmWav, splitAtPauses } from './alignment';
import type { SpeechRequest, WordTiming } from './speech';

/** Scripts without spaces between words: their caption "words" are short groups of dictionary words. */
const UNSPACED: ReadonlySet<LanguageCode> = new Set(['ja', 'zh', 'th']);
/** Thai words join the group before while it stays this short (graphemes). */
const THAI_GROUP_CHARS = 8;
const HIRAGANA_ONLY = /^[\p{Script=Hiragana}ー]+$/u;

/**
 * The caption words of `text`: spaced scripts by whitespace (punctuation stays on its word); ja, zh and th by
 * ICU's dictionary word segmentation, grouped as they are read: in Japanese a run of hiragana (particles,
 * endings: 天気|です, 出荷|しま|しょう) stays with the word before; in Chinese a one-character word (的, 了) goes
 * with its neighbour; Thai words join while the group stays short. Punctuation ends a group.
 */
export function captionWords(text: string, language: LanguageCode): string[] {
  const norm = normalizeText(text);
  if (!UNSPACED.has(language)) return norm.split(/\s+/).filter(Boolean);
  const groups: string[] = [];
  let current = '';
  const close = () => {
    if (current) groups.push(current);
    current = '';
  };
  for (const { segment, isWordLike } of new Intl.Segmenter(language, { granularity: 'word' }).segment(norm)) {
    if (/^\s+$/u.test(segment)) {
      close();
      continue;
    }
    if (!isWordLike) {
      // Punctuation ends the group it follows; a leading one (an opening quote) starts the next.
      if (current && !/^[「『（(“‘]/u.test(segment)) {
        current += segment;
        close();
      } else current += segment;
      continue;
    }
    const joins =
      current !== '' &&
      /[\p{L}\p{N}]/u.test(current) &&
      (language === 'ja'
        ? HIRAGANA_ONLY.test(segment) || [...current].length === 1
        : language === 'zh'
          ? [...segment].length === 1 || [...current].length === 1
          : [...current].length + [...segment].length <= THAI_GROUP_CHARS);
    if (!joins) close();
    current += segment;
  }
  close();
  return groups;
}

/** Letters and digits, lower case, compatibility forms folded (Open JTalk reports Latin letters full-width). */
function letters(text: string): string[] {
  return [...text.normalize('NFKC').toLowerCase()].filter((ch) => /[\p{L}\p{N}]/u.test(ch));
}

/**
 * The engine's own word times carried onto the caption words: the letters of both are aligned (edit distance;
 * an engine may drop or spell out a character), and each caption word runs from the start of the engine word
 * holding its first matched letter to the end of the one holding its last. Null when under 80 % of the caption's
 * letters find an engine letter (the engine read something else), so the caller measures instead.
 */
export function mapOntoWords(engine: WordTiming[], words: string[]): WordTiming[] | null {
  const a = words.flatMap((w, i) => letters(w).map((ch) => ({ ch, word: i })));
  const b = engine.flatMap((w, i) => letters(w.text).map((ch) => ({ ch, word: i })));
  if (!a.length || !b.length) return null;
  const n = a.length;
  const m = b.length;
  const cost = new Uint32Array((n + 1) * (m + 1));
  for (let i = 0; i <= n; i += 1) cost[i * (m + 1)] = i;
  for (let j = 0; j <= m; j += 1) cost[j] = j;
  for (let i = 1; i <= n; i += 1)
    for (let j = 1; j <= m; j += 1)
      cost[i * (m + 1) + j] = Math.min(
        cost[(i - 1) * (m + 1) + j - 1] + (a[i - 1].ch === b[j - 1].ch ? 0 : 1),
        cost[(i - 1) * (m + 1) + j] + 1,
        cost[i * (m + 1) + j - 1] + 1,
      );
  const matched = new Array<number>(n).fill(-1);
  let same = 0;
  for (let i = n, j = m; i > 0 && j > 0;) {
    const here = cost[i * (m + 1) + j];
    if (here === cost[(i - 1) * (m + 1) + j - 1] + (a[i - 1].ch === b[j - 1].ch ? 0 : 1)) {
      matched[i - 1] = b[j - 1].word;
      if (a[i - 1].ch === b[j - 1].ch) same += 1;
      i -= 1;
      j -= 1;
    } else if (here === cost[(i - 1) * (m + 1) + j] + 1) i -= 1;
    else j -= 1;
  }
  if (same < 0.8 * n) return null;
  const out: WordTiming[] = [];
  for (const [k, text] of words.entries()) {
    const mine = a.flatMap((x, i) => (x.word === k && matched[i] >= 0 ? [matched[i]] : []));
    if (!mine.length) {
      // A word with no letter the engine said (a symbol): it takes the moment between its neighbours.
      const at = out.at(-1)?.end ?? engine[0].start;
      out.push({ text, start: at, end: at });
      continue;
    }
    out.push({ text, start: engine[Math.min(...mine)].start, end: engine[Math.max(...mine)].end });
  }
  // Starts never go back (two caption words in one engine word share its start).
  for (let i = 1; i < out.length; i += 1) out[i].start = Math.max(out[i].start, out[i - 1].start);
  return out;
}

/** What speaks a request into a file (a SpeechProvider's synthesize). */
export type Speak = (req: SpeechRequest) => Promise<unknown>;

/** Words said alone at once, for the reference: a few engine processes at a time. */
const REFERENCE_JOBS = 3;

/** A word as said alone in the reference: without the punctuation around it, which would change how it is said. */
const bare = (word: string) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '') || word;

/**
 * Measured word times of `file` (what `speak` made of `req`): the caption words said alone by the same engine and
 * voice — all in one synthesis, a pause between each (a semicolon), cut at the pauses between them (lib/voice/alignment.ts
 * splitAtPauses), or one synthesis a word where those pauses do not stand out — and the file aligned onto them.
 * A word's end is the next one's start (the last one's, the end of the file).
 */
export async function measureWordTimings(speak: Speak, req: SpeechRequest, file: string, words: string[]): Promise<WordTiming[]> {
  if (!words.length) return [];
  const dir = await mkdtemp(path.join(os.tmpdir(), 'word-reference-'));
  try {
    const utterance = await readPcmWav(file);
    const together = path.join(dir, 'together.wav');
    // Semicolons: every engine pauses at one (a period before a lower-case word reads as an abbreviation).
    const stop = UNSPACED.has(req.language) ? '。' : '; ';
    await speak({ ...req, text: words.map(bare).join(stop) + stop.trim(), outFile: together, words: false });
    let references = splitAtPauses(await readPcmWav(together), words.length);
    if (!references) {
      const files = words.map((_, i) => path.join(dir, `${i}.wav`));
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < words.length; i = next++) await speak({ ...req, text: bare(words[i]), outFile: files[i], words: false });
      };
      await Promise.all(Array.from({ length: Math.min(REFERENCE_JOBS, words.length) }, worker));
      references = await Promise.all(files.map(readPcmWav));
    }
    const starts = alignToReferences(utterance, references);
    const duration = utterance.samples.length / utterance.sampleRate;
    return words.map((text, i) => ({ text, start: starts[i], end: i + 1 < words.length ? starts[i + 1] : duration }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The caption words of `req.text` timed in `file`: the engine's own `reported` times mapped onto them when it gave
 * some that fit, else measured.
 */
export async function wordTimings(
  speak: Speak,
  req: SpeechRequest,
  file: string,
  reported: WordTiming[] | undefined,
): Promise<{ words: WordTiming[]; source: 'engine' | 'measured' }> {
  const words = captionWords(req.text, req.language);
  const mapped = reported?.length ? mapOntoWords(reported, words) : null;
  if (mapped) return { words: mapped, source: 'engine' };
  return { words: await measureWordTimings(speak, req, file, words), source: 'measured' };
}
