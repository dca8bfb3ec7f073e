/**
 * Reading-rate maths: how long narration takes to say at a language's reading rate, and how to trim it to a
 * time budget (whole sentences first, then a cut at the nicest break), before any audio exists.
 * Sentences and break positions come from lib/text.ts; rates and full stops from the phrase tables.
 */
import type { LanguageCode } from '../../config/catalog';
import { BREAK_COST, cjkBreaks, graphemes, normalizeText, sentenceRanges, thaiWordBoundaries } from '../text';
import { phraseSet } from './phrases';
import { endWhole } from '../quality/narration';

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Narration units in `text`: words (tokens with a letter or digit) or characters (letter/digit grapheme clusters). */
export function countUnits(text: string, language: LanguageCode): number {
  if (phraseSet(language).unit === 'words') {
    let n = 0;
    for (const token of text.split(/\s+/u)) if (LETTER_OR_DIGIT.test(token)) n++;
    return n;
  }
  let n = 0;
  for (const grapheme of graphemes(text)) if (LETTER_OR_DIGIT.test(grapheme)) n++;
  return n;
}

/** How long narration of `text` takes at the language's reading rate, in seconds (for scene budgets before audio exists). */
export function estimateSeconds(text: string, language: LanguageCode): number {
  return countUnits(text, language) / phraseSet(language).readingRate;
}

// Small float slack so that a text estimated at exactly the budget still fits.
const EPSILON = 1e-9;

/**
 * Closes a sentence that was cut short where a listener hears it end (lib/quality/narration.ts endWhole, with the
 * check's cutNarrationEnd definitions): no dangling comma or dash, no trailing connector or particle, and the
 * language's full stop.
 */
function closeSentence(fragment: string, language: LanguageCode): string {
  return endWhole(fragment, language, phraseSet(language).fullStop);
}

/** The dearest break that still ends a word (BREAK_COST): a cut inside a compound or a word is never made. */
const WHOLE_WORD_COST = BREAK_COST.thaiWord;

/**
 * Longest-reasonable prefix of one sentence (no sentence boundary inside) within `budget` units. Each allowed
 * cut is scored by how much it drops relative to the longest fitting cut plus its break cost, so a comma or
 * a clause mark a little earlier beats a cut right after "and" or inside a Japanese phrase; a cut that would end
 * on a connector or a particle (the check's cut_narration) is never taken: '' when no other fits.
 */
function cutSentence(sentence: string, language: LanguageCode, budget: number): string {
  const candidates: Array<{ end: number; units: number; cost: number }> = [];
  if (phraseSet(language).unit === 'words') {
    let units = 0;
    for (const m of sentence.matchAll(/\S+/gu)) {
      units += LETTER_OR_DIGIT.test(m[0]) ? 1 : 0;
      if (units > budget + EPSILON) break;
      const clause = /[,;:、，،؛\-–—]["'”’»)\]]*$/u.test(m[0]);
      candidates.push({ end: m.index + m[0].length, units, cost: clause ? BREAK_COST.clause : BREAK_COST.space });
    }
  } else {
    const breaks =
      language === 'th' ? thaiWordBoundaries(sentence).map((pos) => ({ pos, cost: BREAK_COST.thaiWord })) : cjkBreaks(sentence, language);
    for (const b of breaks) {
      const units = countUnits(sentence.slice(0, b.pos), language);
      if (units > budget + EPSILON) break;
      candidates.push({ end: b.pos, units, cost: b.cost });
    }
  }
  const most = Math.max(0, ...candidates.map((c) => c.units));
  if (most === 0) return '';
  let best = '';
  let bestScore = Infinity;
  for (const c of candidates) {
    if (c.units === 0) continue;
    const score = 1 - c.units / most + c.cost;
    // Only a cut at a word or phrase boundary that ends whole as it is: one that would end on a connector or a
    // particle, or inside a word, is no cut at all.
    const closed = score <= bestScore && c.cost <= WHOLE_WORD_COST ? closeSentence(sentence.slice(0, c.end), language) : '';
    if (closed && countUnits(closed, language) === c.units) {
      best = closed;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Trims `text` so that it reads in at most `seconds`: whole sentences when at least one fits; otherwise the
 * first sentence cut at a word boundary (space-separated languages), a Thai dictionary word boundary, or a
 * character boundary after a clause mark when possible (ja/zh), and closed with the language's full stop.
 * Returns '' when not even one word fits. Whitespace is normalized.
 */
export function fitToSeconds(text: string, language: LanguageCode, seconds: number): string {
  const whole = wholeSentencesWithin(text, language, seconds);
  if (whole) return whole;
  const norm = normalizeText(text);
  const first = sentenceRanges(norm, language)[0];
  return first ? cutSentence(norm.slice(first.start, first.end), language, seconds * phraseSet(language).readingRate) : '';
}

/** The whole sentences from the start of `text` that read within `seconds` (whitespace normalized), or '' when not even the first does. */
export function wholeSentencesWithin(text: string, language: LanguageCode, seconds: number): string {
  if (Number.isNaN(seconds) || seconds < 0) throw new RangeError(`seconds must be >= 0, got ${seconds}`);
  const norm = normalizeText(text);
  const budget = seconds * phraseSet(language).readingRate;
  if (countUnits(norm, language) <= budget + EPSILON) return norm;
  let end = 0;
  let units = 0;
  for (const r of sentenceRanges(norm, language)) {
    const next = units + countUnits(norm.slice(r.start, r.end), language);
    if (next > budget + EPSILON) break;
    units = next;
    end = r.end;
  }
  return norm.slice(0, end);
}
