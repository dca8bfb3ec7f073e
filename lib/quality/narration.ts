/**
 * What a listener notices in a video's narration (decisions §13): the same sentence said twice
 * (repeated_narration), and a narration that stops inside a phrase (cut_narration) — no sentence terminator, and
 * its last word a connector ("and", "with", "の") or a word cut short ("multi-"). In every supported language; a
 * narration that simply lacks a full stop (Thai has none) is not cut. The same definitions serve the writer, which
 * keeps both from being written (lib/script/writer.ts: saysAgain, endWhole, headingSentence), and the repair.
 */
import type { LanguageCode } from '../../config/catalog';
import { endsWithSentenceTerminator, normalizeText, splitSentences } from '../text';
import { phraseSet } from '../script/phrases';

/** Sentences shorter than this (folded) are not counted as repeated: "Yes." twice is no defect. */
export const MIN_REPEATED_LENGTH = 8;

/** A sentence folded for comparison: lower case, letters and digits only. */
export function foldSentence(text: string): string {
  return text.toLocaleLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** The sentences of a narration, each with its folded form (short ones left out of the comparison). */
export function narrationSentences(text: string, language: LanguageCode): Array<{ text: string; folded: string }> {
  return splitSentences(text, language).map((sentence) => ({ text: sentence, folded: foldSentence(sentence) }));
}

/**
 * Of scenes' narrations in play order, the scenes that say again a sentence said before (in an earlier scene or
 * earlier in the same one), each once, with the first repeated sentence and the scene that said it first.
 */
export function repeatedSentences(narrations: string[], language: LanguageCode): Array<{ scene: number; sentence: string; first: number }> {
  const said = new Map<string, number>();
  const found: Array<{ scene: number; sentence: string; first: number }> = [];
  narrations.forEach((narration, scene) => {
    let repeated: { sentence: string; first: number } | null = null;
    for (const { text, folded } of narrationSentences(narration, language)) {
      if ([...folded].length < MIN_REPEATED_LENGTH) continue;
      const first = said.get(folded);
      if (first !== undefined) repeated ??= { sentence: text, first };
      else said.set(folded, scene);
    }
    if (repeated) found.push({ scene, ...repeated });
  });
  return found;
}

/**
 * What a sentence says, for telling near-duplicates apart: its words less the language's connectors (spaced
 * scripts), or its folded letters in pairs (Japanese, Chinese and Thai, written without spaces between words).
 */
function contentUnits(sentence: string, language: LanguageCode): Set<string> {
  if (language === 'ja' || language === 'zh' || language === 'th') {
    const letters = [...foldSentence(sentence)];
    return new Set(letters.slice(1).map((letter, i) => letters[i] + letter));
  }
  const connectors = CONNECTORS[language];
  return new Set(
    sentence
      .toLocaleLowerCase()
      .split(/[^\p{L}\p{N}\p{M}]+/u)
      .filter((word) => word && !connectors.includes(word)),
  );
}

/** Of two sentences' content units, the share of the smaller's a near-duplicate shares at least, and of the larger's. */
const NEAR_SHARED_OF_SMALLER = 0.75;
const NEAR_SHARED_OF_LARGER = 0.5;
/** A near-duplicate by shared content needs this many content units in the smaller sentence (words, or letter pairs). */
const NEAR_MIN_UNITS = 3;

/**
 * Whether `sentence` says again what `before` said, as a listener hears it: the same sentence folded (what
 * repeatedSentences flags), one contained in the other ("Deliver great service fast." and "Deliver great service
 * fast, with AI."), or most of their content words shared. Sentences shorter than MIN_REPEATED_LENGTH folded never
 * count, as in the check.
 */
export function saysAgain(sentence: string, before: string, language: LanguageCode): boolean {
  const [a, b] = [foldSentence(sentence), foldSentence(before)];
  if ([...a].length < MIN_REPEATED_LENGTH || [...b].length < MIN_REPEATED_LENGTH) return false;
  if (a === b) return true;
  const [units, others] = [contentUnits(sentence, language), contentUnits(before, language)];
  const [shorter, shorterUnits] = a.length <= b.length ? [a, units] : [b, others];
  if ((a.length <= b.length ? b : a).includes(shorter) && shorterUnits.size >= 2) return true;
  const shared = [...units].filter((unit) => others.has(unit)).length;
  const [small, large] = units.size <= others.size ? [units.size, others.size] : [others.size, units.size];
  return small >= NEAR_MIN_UNITS && shared >= small * NEAR_SHARED_OF_SMALLER && shared >= large * NEAR_SHARED_OF_LARGER;
}

/** Words after which a sentence cannot end, by language (lower case). */
const CONNECTORS: Record<LanguageCode, string[]> = {
  en: 'and or but with for to of the a an in on at by from that which as than so because if when while into your our its their is are was were'.split(
    ' ',
  ),
  de: 'und oder aber mit für zu von der die das den dem des ein eine einen einem im in auf an bei aus dass wie als weil wenn ihr ihre unser unsere ist sind'.split(
    ' ',
  ),
  fr: 'et ou mais avec pour de du des le la les un une en dans sur par que qui comme votre vos notre est à au aux'.split(' '),
  es: 'y o pero con para por de del el la los las un una en que como su sus nuestro es a al'.split(' '),
  pt: 'e ou mas com para por de do da dos das o a os as um uma em no na que como seu sua é ao'.split(' '),
  it: 'e o ma con per di del della il lo la i gli le un una in nel che come è a al'.split(' '),
  nl: 'en of maar met voor van de het een in op aan dat die als uw onze is'.split(' '),
  pl: 'i oraz lub ale z ze dla do w na o że jak który która które jest'.split(' '),
  ru: 'и или но с со для в во на о об по к от из что как который которые а'.split(' '),
  uk: 'і й та або але з для в у на про по до від що як який які'.split(' '),
  tr: 've veya ama ile için gibi'.split(' '),
  sv: 'och eller men med för till av en ett i på att som är'.split(' '),
  id: 'dan atau tetapi dengan untuk dari di ke yang pada sebagai'.split(' '),
  vi: 'và hoặc nhưng với cho của để trong các những một là'.split(' '),
  ar: 'و أو لكن مع في من إلى على عن التي الذي أن'.split(' '),
  hi: 'और या लेकिन के की का में से पर को कि'.split(' '),
  th: 'และ หรือ แต่ กับ ของ ใน ที่ เพื่อ'.split(' '),
  ko: '그리고 하지만 및 또는 그러나 또한'.split(' '),
  ja: [],
  zh: [],
};

/** Unspaced scripts: the characters a phrase cannot end on (particles, conjunctions). */
const TRAILING_PARTICLES: Partial<Record<LanguageCode, RegExp>> = {
  ja: /(は|が|を|に|で|と|の|も|や|から|まで|より|へ|て|し|けど|ので|ため)$/u,
  zh: /(的|和|与|或|在|是|把|被|及|以及|而且|但是|因为|如果)$/u,
  th: /(และ|หรือ|แต่|กับ|ของ|ใน|ที่|เพื่อ)$/u,
};

/** Punctuation a sentence cannot end on: a comma, a colon, a dash, an open bracket or quote. */
const DANGLING_MARKS = ',，、:;：；\\-–—([{（「『“‘«،؛';
const DANGLING = new RegExp(`[${DANGLING_MARKS}]$`, 'u');
/** Dangling punctuation and spaces at the end of a text, to take off. */
const DANGLING_RUN = new RegExp(`[\\s${DANGLING_MARKS}]+$`, 'u');

/** An ellipsis at the end of a text: the text was cut there (a meta description cut to length), not ended. */
const TRAILING_ELLIPSIS = /\s*(?:…|\.\.\.)$/u;

/**
 * `text` ended at its last sentence or clause boundary, never inside a phrase (cutNarrationEnd's definitions): a
 * text that ends whole is returned as it is; else a trailing ellipsis, dangling punctuation, connectors and
 * particles are taken off its end, and the language's `fullStop` added. '' when nothing whole is left.
 */
export function endWhole(text: string, language: LanguageCode, fullStop: string): string {
  let out = normalizeText(text);
  const cut = TRAILING_ELLIPSIS.test(out);
  if (!out || (!cut && !cutNarrationEnd(out, language))) return out && !cut && !endsWithSentenceTerminator(out) ? out + fullStop : out;
  out = out.replace(TRAILING_ELLIPSIS, '');
  const particle = TRAILING_PARTICLES[language];
  if (particle && (particle.test(out) || cut)) {
    // Unspaced scripts: back to the last clause mark (a particle's phrase has no word boundary to end at).
    const clause = Math.max(...[...'、，,；;'].map((mark) => out.lastIndexOf(mark)));
    out = clause > 0 && particle.test(out) ? out.slice(0, clause) : out;
  }
  for (let guard = 0; guard < 20 && out; guard += 1) {
    const before = out.replace(DANGLING_RUN, '');
    const words = before.split(' ');
    const last = (words.at(-1) ?? '').toLocaleLowerCase(language).replace(/[\p{P}\p{S}]+$/u, '');
    out = CONNECTORS[language].includes(last) ? words.slice(0, -1).join(' ') : before;
    if (particle?.test(out)) return '';
    if (out === before) break;
  }
  if (!/[\p{L}\p{N}]/u.test(out)) return '';
  return endsWithSentenceTerminator(out) ? out : out + fullStop;
}

/**
 * Why `narration` ends inside a phrase, or null when it ends whole: a terminator ends it whole; else its last
 * character is a comma, a colon or a dash, its last word a connector of the language, or a word cut by a hyphen.
 */
export function cutNarrationEnd(narration: string, language: LanguageCode): string | null {
  const text = normalizeText(narration);
  if (!text || endsWithSentenceTerminator(text)) return null;
  if (DANGLING.test(text)) return text.slice(-12);
  const particle = TRAILING_PARTICLES[language];
  if (particle?.test(text)) return text.slice(-12);
  const last = (text.split(' ').at(-1) ?? '').toLocaleLowerCase(language).replace(/[\p{P}\p{S}]+$/u, '');
  if (CONNECTORS[language].includes(last)) return text.split(' ').slice(-3).join(' ');
  return null;
}

/** Headings of fewer words (unspaced scripts: characters) than these are a label ("Testimonials"), not something to say. */
const MIN_HEADING_WORDS = 2;
const MIN_HEADING_UNSPACED_CHARACTERS = 4;

/** A one-word heading ("Services", "Fernbrook"): said alone it is a label read out, not narration. */
function isLoneLabel(text: string): boolean {
  if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u.test(text))
    return [...text.replace(/[^\p{L}\p{N}]/gu, '')].length < MIN_HEADING_UNSPACED_CHARACTERS;
  return text.split(/\s+/u).filter((word) => /[\p{L}\p{N}]/u.test(word)).length < MIN_HEADING_WORDS;
}

/**
 * A section's heading said as a sentence, when it can be one: the language's full stop (the phrase table's) added,
 * not ending inside a phrase (cutNarrationEnd), not a lone label; null otherwise. Only the section's own words, no claim added: what a
 * scene says when every sentence of its section was said before (the writer, and the repair of a repeated sentence).
 */
export function headingSentence(heading: string, language: LanguageCode): string | null {
  const text = normalizeText(heading);
  if (!/[\p{L}\p{N}]/u.test(text) || cutNarrationEnd(text, language) || isLoneLabel(text)) return null;
  return endWhole(text, language, phraseSet(language).fullStop) || null;
}
