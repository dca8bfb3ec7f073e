/**
 * Hook openings (decisions §15, "Hook variants"): a campaign with `variants` n gives each language's script n
 * openings — the title scene's narration and headline — that differ: a question, a benefit, a number. Each is the
 * page's own words framed by a fixed phrase of the video's language (lib/script/phrases.ts question/answer, benefit,
 * number), never invented: the question is the page's own question or one of its benefit phrases asked back, the
 * benefit a heading of the page's key facts (lib/script/analyze.ts KeyFacts), the number the page's words around
 * one of its numbers ("Trusted by 2,000+ teams"). Pure: the writer (lib/script/writer.ts) gives the page's words in
 * the video's language (its own page, their translation, or the page's words) and what the video says after the
 * opening, so an opening never says again what a later scene says (lib/quality/narration.ts).
 */
import { VIDEO_VARIANTS, type LanguageCode, type VideoVariant } from '../../config/catalog';
import { endsWithSentenceTerminator, normalizeText, splitSentences } from '../text';
import { cutNarrationEnd, headingSentence, saysAgain } from '../quality/narration';
import { phrase, phraseSet, type PhraseKey } from './phrases';
import { countUnits, estimateSeconds } from './reading-rate';
import type { CapturedText } from './analyze';
import { notice } from './page-words';
import type { NarrationSegment } from '../campaign/storyboard';

export type OpeningKind = 'meet' | 'question' | 'benefit' | 'number';

/** One video's opening: what its title scene says and shows (variant a is the script's own title scene). */
export interface ScriptOpening {
  variant: VideoVariant;
  kind: OpeningKind;
  narration: string;
  headline: string;
}

/** The page's words an opening may be drawn from, in one language (`language`), best first. */
export interface HookWords {
  /** The page's own questions (its headline, key facts' headings, hero sentences), without their question marks. */
  questions: string[];
  /** Benefit phrases: the page's headline and its key facts' headings. */
  benefits: string[];
  /** The page's words around one of its numbers, each a short phrase ("Trusted by 2,000+ teams"). */
  figures: string[];
}

/** An empty set of words: a page that supports no hook (the openings are the meet line). */
export const NO_HOOK_WORDS: HookWords = { questions: [], benefits: [], figures: [] };

/** The longest phrase a hook carries from the page, in the language's reading units (words, or characters). */
const MAX_PHRASE_UNITS = { words: 9, chars: 22 } as const;
/** Of a figure, the longest phrase around the number. */
const MAX_FIGURE_UNITS = { words: 7, chars: 18 } as const;

const QUESTION_MARK = /[?？؟]$/u;
/** A question's marks, both ends (Spanish opens one with ¿). */
const QUESTION_MARKS = /^[¿\s]+|[\s?？؟]+$/gu;
/** A sentence's own terminator, which a frame replaces with its own. */
const TERMINATOR = /[\s.!。！।॥…]+$/u;

const words = (language: LanguageCode, text: string) => countUnits(text, language);
const unitsOf = (language: LanguageCode) => phraseSet(language).unit;

/** A phrase a frame can carry: whole (no dangling connector, not a lone label), short, no question. */
function framable(text: string, language: LanguageCode, max: number): boolean {
  if (!text || QUESTION_MARK.test(text) || /[{}]/.test(text)) return false;
  if (words(language, text) > max || words(language, text) === 0) return false;
  return headingSentence(text, language) !== null && cutNarrationEnd(text, language) === null;
}

/**
 * A phrase as an opening carries it, or null when it cannot be one: a question without its marks, a benefit or a
 * figure without its full stop (the frame adds the language's own); whole and short (framable); a figure with a
 * number in it. For the page's phrases and their translation alike.
 */
export function hookPhrase(kind: keyof HookWords, text: string, language: LanguageCode): string | null {
  const plain = normalizeText(text ?? '');
  if (kind === 'questions') {
    const asked = plain.replace(QUESTION_MARKS, '');
    return QUESTION_MARK.test(plain) && framable(asked, language, MAX_PHRASE_UNITS[unitsOf(language)]) ? asked : null;
  }
  const said = plain.replace(TERMINATOR, '');
  if (kind === 'benefits') return framable(said, language, MAX_PHRASE_UNITS[unitsOf(language)]) ? said : null;
  const fitting = /\p{Nd}/u.test(said) && words(language, said) <= MAX_FIGURE_UNITS[unitsOf(language)];
  return fitting && !QUESTION_MARK.test(said) && cutNarrationEnd(said, language) === null ? said : null;
}

/**
 * A phrase without the product's name, which the frame says: "Quarry: query any file with SQL" is "Query any file
 * with SQL" ("With Quarry: query…", not "With Quarry: Quarry: query…"); a phrase that is the name, or names it
 * elsewhere ("Tome turns Markdown folders into documentation"), is none.
 */
export function withoutName(phrase: string, name: string, language: LanguageCode): string | null {
  const fold = (t: string) => t.toLocaleLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  const named = fold(name);
  if (!named || !fold(phrase).includes(named)) return phrase;
  const lead = new RegExp(`^${escapePattern(normalizeText(name))}\\s*[:,，、：—–-]\\s*`, 'iu').exec(phrase);
  if (!lead) return null;
  const rest = phrase.slice(lead[0].length);
  if (fold(rest).includes(named) || !/[\p{L}\p{N}]/u.test(rest)) return null;
  // The rest starts the sentence now: its first letter in upper case, as the page would write it there.
  const upper = rest.charAt(0).toLocaleUpperCase(language) + rest.slice(1);
  return framable(upper, language, MAX_PHRASE_UNITS[unitsOf(language)]) ? upper : null;
}

const unique = (list: string[]) => {
  const seen = new Set<string>();
  return list.filter((t) => {
    const key = t.toLocaleLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

// ---------------------------------------------------------------------------------------------------------
// Numbers

/**
 * A number as a page writes one: digits with thousands separators or a decimal part, then what marks it as a
 * figure (+, %, "/7", k, M, ×).
 */
const NUMBER = /\d{1,3}(?:[,.\u00a0\u202f ]\d{3})+(?!\d)|\d+(?:[.,]\d+)?/gu;
const MARKER = /^\s?(?:[+%％×]|\/\s?\d+|[kKM](?![\p{L}]))/u;

/** A clock time ("9:00"), a year alone ("2026", "© 2026"), a version or a standard's number ("AES-256", "TLS 1.3", "SOC 2"). */
function notAFigure(line: string, at: number, number: string): boolean {
  const before = line.slice(0, at);
  const after = line.slice(at + number.length);
  if (/[:：]\d/u.test(after.slice(0, 2)) || /\d[:：]$/u.test(before)) return true;
  // AES-256, v2, a-1 (a Latin, Cyrillic or Greek letter: Japanese, Chinese and Korean write "最大70%" so).
  if (/[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\-_/.]$/u.test(before)) return true;
  if (/(?:^|\s)\p{Lu}{2,}[\s-]?$/u.test(before) || /^\s?\p{Lu}{2,}/u.test(after)) return true; // SOC 2, TLS 1.3, 3 GHz
  if (/^[12]\d{3}$/.test(number) && !MARKER.test(after)) return true; // a year
  if (/©|\(c\)/iu.test(line)) return true;
  return false;
}

/**
 * How much a number is a figure worth opening with: 2 when it carries a mark or is large (2,000+, 99.9 %, 24/7,
 * 10k), 1 for a plain count of ten and more, 0 for none (single digits: step numbers, "3 headlines").
 */
function figureWeight(number: string, before: string, after: string): number {
  // A price ("$290 / month") is a figure of a price table, not a claim: said only from the page's prose.
  if (/[$€£¥₹₩]\s?$/u.test(before) || /^\s?[$€£¥₹₩]/u.test(after)) return 1;
  if (MARKER.test(after) || /[,.\u00a0\u202f ]\d{3}/u.test(number)) return 2;
  const value = Number(number.replace(',', '.'));
  return value >= 10 ? 1 : 0;
}

/** The sentences of a text, without their terminators: a figure is a whole line or a whole sentence of the page. */
function sentencesOf(text: string, language: LanguageCode): string[] {
  return splitSentences(text, language)
    .map((sentence) => normalizeText(sentence).replace(TERMINATOR, ''))
    .filter(Boolean);
}

/**
 * The page's figures, best first: each a short line or sentence of the page with a number (MAX_FIGURE_UNITS), the
 * number a figure (figureWeight), not a clock time, a year, a version or a standard's name. `lines` are read as
 * stand-alone lines (a stat's value and its label), where a number glued to the next word is a layout read run
 * together ("12,000社+導入企業", "22日前"), refused — except a marked number before a lower-case word
 * ("12,000+businesses", said "12,000+ businesses"); `prose` is the page's sentences, where "最大70%減らせます" is
 * written so.
 */
export function pageFigures(lines: string[], prose: string[], language: LanguageCode): string[] {
  const max = MAX_FIGURE_UNITS[unitsOf(language)];
  const found: Array<{ text: string; weight: number; order: number }> = [];
  const consider = (line: string, strict: boolean) => {
    let best = 0;
    let markEnd = 0;
    for (const m of line.matchAll(NUMBER)) {
      const at = m.index;
      if (at < markEnd) continue; // the 7 of "24/7"
      const after = line.slice(at + m[0].length);
      if (notAFigure(line, at, m[0])) return;
      const mark = MARKER.exec(after)?.[0] ?? '';
      markEnd = at + m[0].length + mark.length;
      const rest = after.slice(mark.length);
      if (strict && rest && !/^[\s\p{P}]/u.test(rest)) return;
      best = Math.max(best, figureWeight(m[0], line.slice(0, at), after));
    }
    const text = line.replace(TERMINATOR, '');
    // A stand-alone line needs a marked figure: a plain count there is a rank, a table cell or a code sample's
    // caption ("Top 10 routes by revenue"); the page's prose may say one ("Free for 14 days").
    if (best < (strict ? 2 : 1) || !/\p{L}/u.test(text.replace(NUMBER, ''))) return;
    // A line that starts in lower case is the middle of a sentence: said alone it starts mid-thought.
    if (words(language, text) > max || cutNarrationEnd(text, language) || /^\p{Ll}/u.test(text)) return;
    found.push({ text, weight: best, order: found.length });
  };
  for (const line of lines) {
    // A marked number run into its label's lower-case word: the line as the page shows it, a space between.
    const spaced = normalizeText(line).replace(/(\d(?:[+%]|\/\d+))(?=[\p{Ll}])/gu, '$1 ');
    if (/\d/.test(spaced)) for (const sentence of sentencesOf(spaced, language)) consider(sentence, true);
  }
  for (const text of prose) if (/\d/.test(text)) for (const sentence of sentencesOf(text, language)) consider(sentence, false);
  return unique(found.sort((a, b) => b.weight - a.weight || a.order - b.order).map((f) => f.text));
}

// ---------------------------------------------------------------------------------------------------------
// The page's words

/** What a page gives the hooks: its facts (name, headline, key facts' headings) and its captured text. */
export interface HookPage {
  name: string;
  headline: string;
  features: Array<{ title: string; sentences?: string[]; detail?: string }>;
  /** The page's other short phrases (lib/script/analyze.ts keyPoints: its topics, list items, other headings), best first. */
  points?: string[];
  text: CapturedText;
}

/**
 * The hook words of one page, in its own language: its questions (its headline, key facts' headings and hero
 * sentences that ask one), its benefits (its headline, then its key facts' headings, then its key points, best first) and its figures
 * (pageFigures); none naming the product but to lead with it (withoutName).
 */
export function hookWords(page: HookPage, language: LanguageCode): HookWords {
  // A notice or code is never an opening's ("Note: … vue-router@3.0+ requires vue@2.5+": page-words.ts notice).
  const heroSentences = (page.text.hero_paragraphs ?? []).flatMap((p) => splitSentences(p, language)).filter((t) => !notice(t));
  const phrases = (kind: keyof HookWords, texts: string[]) =>
    texts.flatMap((t) => {
      const phrase = hookPhrase(kind, t, language);
      const own = phrase && withoutName(phrase, page.name, language);
      return own ? [own] : [];
    });
  // The page's own questions where it says what it sells (its headline, its key facts' headings, its hero), not
  // a question of its furniture ("Was this page helpful?").
  // A page without a marketing feature grid (a documentation site, a component library) offers its key points: its
  // topics, its feature list's items, its other headings (keyPoints), after its headline and best sections.
  const points = page.points ?? [];
  const questions = phrases('questions', [page.headline, ...page.features.map((f) => f.title), ...heroSentences, ...points]);
  const benefits = phrases('benefits', [page.headline, ...page.features.map((f) => f.title), ...points]);
  const lines = [...page.text.main_text.split(/\n+/u), ...(page.text.list_items ?? [])].filter((t) => !notice(t));
  const prose = [
    ...(page.text.hero_paragraphs ?? []),
    ...(page.text.sections ?? []).flatMap((s) => s.paragraphs),
    ...page.features.flatMap((f) => f.sentences ?? [f.detail ?? '']),
  ].filter((t) => !notice(t));
  return { questions: unique(questions), benefits: unique(benefits), figures: pageFigures(lines, prose, language) };
}

// ---------------------------------------------------------------------------------------------------------
// The openings

/** What chooseOpenings needs to know of a script. */
export interface OpeningOptions {
  language: LanguageCode;
  /** The product's name as the title scene says it. */
  name: string;
  /** How many openings (1–3). */
  count: number;
  /** The page's words (its own page in `language`, their translation, or the page's words: see the writer). */
  words: HookWords;
  /** The language `words` are in; default `language` (a `source_text` script: the page's). */
  wordsLanguage?: LanguageCode;
  /** Everything the video says after its opening (its screens and its closing): an opening never says it again. */
  later: Array<{ text: string; language: LanguageCode }>;
  /** The reading time an opening fits in (writer.ts SCREEN_NARRATION_SECONDS), the product's name counted as one word. */
  seconds: number;
}

/** The meet line: today's title scene ("Meet <Product>.", the product's name on screen). */
export function meetOpening(language: LanguageCode, name: string): Omit<ScriptOpening, 'variant'> {
  return { kind: 'meet', narration: normalizeText(phrase(language, 'intro', { name })), headline: normalizeText(name) };
}

const fill = (language: LanguageCode, key: PhraseKey, vars: Record<string, string>) => normalizeText(phrase(language, key, vars));

/**
 * An opening's whole frame in `language`: the fixed phrase of its kind with its {placeholders} ({name}, and
 * {benefit} or {figure} for the page's words); a question is asked, then answered with the product's name.
 */
export function openingFrame(language: LanguageCode, kind: OpeningKind): string {
  const p = phraseSet(language);
  if (kind === 'question') return `${p.question}${p.sentenceSeparator}${p.answer}`;
  return { meet: p.intro, benefit: p.benefit, number: p.number }[kind];
}

/** An opening of `kind` from one page phrase: its narration and headline. */
export function hookOpening(language: LanguageCode, kind: Exclude<OpeningKind, 'meet'>, words: string, name: string) {
  const text = normalizeText(words);
  if (kind === 'question') {
    // The page's own question (its marks taken off) or a benefit, asked in the language's question form.
    const question = fill(language, 'question', { benefit: text });
    return {
      kind,
      narration: `${question}${phraseSet(language).sentenceSeparator}${fill(language, 'answer', { name })}`,
      headline: question,
    };
  }
  if (kind === 'benefit') return { kind, narration: fill(language, 'benefit', { name, benefit: text }), headline: text };
  return { kind, narration: fill(language, 'number', { name, figure: text }), headline: text };
}

/**
 * Whether an opening fits its reading time, each part at the reading rate of the voice that says it (the page's
 * words in theirs), the name counted as one word: a long name makes it longer, never cut.
 */
function fits(
  opening: Omit<ScriptOpening, 'variant'>,
  name: string,
  language: LanguageCode,
  wordsLanguage: LanguageCode,
  seconds: number,
): boolean {
  const short = (lang: LanguageCode) => (phraseSet(lang).unit === 'chars' ? 'X' : 'Name');
  const said = openingSegments(opening, language, wordsLanguage, name);
  return said.reduce((total, s) => total + estimateSeconds(s.text.split(name).join(short(s.language)), s.language), 0) <= seconds;
}

/**
 * Whether an opening says again a sentence the video says later (the check's repeated_narration, saysAgain): each
 * part in the language of the voice that says it, the product's name left out (the closing names its domain).
 */
function saidLater(
  opening: Omit<ScriptOpening, 'variant'>,
  name: string,
  language: LanguageCode,
  wordsLanguage: LanguageCode,
  later: OpeningOptions['later'],
): boolean {
  return openingSegments(opening, language, wordsLanguage, name).some((segment) =>
    splitSentences(segment.text.split(name).join(' '), segment.language).some((sentence) =>
      later.some((l) =>
        splitSentences(l.text, l.language).some(
          (before) => saysAgain(sentence, before, segment.language) || saysAgain(sentence, before, l.language),
        ),
      ),
    ),
  );
}

/**
 * The openings of one language's script: one (the meet line, today's title scene) for a single variant; else
 * `count` openings of different kinds, in the order the page supports them — a question, a benefit, a number —
 * then the meet line when the page supports fewer kinds, then a kind's next phrase when it has one. Each fits the
 * reading time, says nothing a later scene says, and differs from the others in narration and headline; a page
 * with too few words gives fewer openings than `count` (never the same opening twice).
 */
export function chooseOpenings(options: OpeningOptions): ScriptOpening[] {
  const { language, name, words, later, seconds } = options;
  const wordsLanguage = options.wordsLanguage ?? language;
  const count = Math.max(1, Math.min(VIDEO_VARIANTS.length, Math.floor(options.count) || 1));
  const meet = meetOpening(language, name);
  if (count === 1) return [{ variant: 'a', ...meet }];
  const usedPhrases = new Set<string>();
  const key = (t: string) => t.toLocaleLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  const candidates: Record<Exclude<OpeningKind, 'meet'>, Array<Omit<ScriptOpening, 'variant'> & { phrase: string }>> = {
    question: [
      ...words.questions.map((q) => ({ ...hookOpening(language, 'question', q, name), phrase: q })),
      ...words.benefits.map((b) => ({ ...hookOpening(language, 'question', b, name), phrase: b })),
    ],
    benefit: words.benefits.map((b) => ({ ...hookOpening(language, 'benefit', b, name), phrase: b })),
    number: words.figures.map((f) => ({ ...hookOpening(language, 'number', f, name), phrase: f })),
  };
  const chosen: Array<Omit<ScriptOpening, 'variant'>> = [];
  const distinct = (o: Omit<ScriptOpening, 'variant'>) =>
    chosen.every((c) => key(c.narration) !== key(o.narration) && key(c.headline) !== key(o.headline));
  const take = (kind: Exclude<OpeningKind, 'meet'>) => {
    const next = candidates[kind].find(
      (c) =>
        !usedPhrases.has(key(c.phrase)) &&
        distinct(c) &&
        fits(c, name, language, wordsLanguage, seconds) &&
        !saidLater(c, name, language, wordsLanguage, later) &&
        endsWhole(c.narration, language),
    );
    if (!next) return false;
    usedPhrases.add(key(next.phrase));
    chosen.push({ kind: next.kind, narration: next.narration, headline: next.headline });
    return true;
  };
  for (const kind of ['question', 'benefit', 'number'] as const) if (chosen.length < count) take(kind);
  if (chosen.length < count && distinct(meet)) chosen.push(meet);
  for (const kind of ['question', 'benefit', 'number'] as const) if (chosen.length < count) take(kind);
  return chosen.slice(0, count).map((o, n) => ({ variant: VIDEO_VARIANTS[n], ...o }));
}

/** An opening ends as a sentence of its language ends: a terminator, or (Thai) no dangling word. */
function endsWhole(narration: string, language: LanguageCode): boolean {
  return cutNarrationEnd(narration, language) === null && (language === 'th' || endsWithSentenceTerminator(narration));
}

const escapePattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What voices say an opening: its frame and the product's name in the video's `language`; the page's words in
 * `wordsLanguage`, the language they are written in (a `source_text` script's openings carry the page's words as
 * they are, said by the page's language's voice, as its screens are). A mark beside the page's words ("?", "。")
 * is said with them. `name`: the product's name as the opening says it (else told apart by the frame alone).
 */
export function openingSegments(
  opening: Pick<ScriptOpening, 'kind' | 'narration'>,
  language: LanguageCode,
  wordsLanguage: LanguageCode,
  name?: string,
): NarrationSegment[] {
  const whole = [{ text: opening.narration, language }];
  if (opening.kind === 'meet' || wordsLanguage === language) return whole;
  const parts = openingFrame(language, opening.kind)
    .split(/(\{\w+\})/u)
    .filter(Boolean);
  const slot = (part: string) => /^\{\w+\}$/u.test(part);
  // The name, when known, as it is (a frame with the name and the page's words side by side: Thai's benefit).
  const pattern = (part: string) =>
    part === '{name}' && name ? `(${escapePattern(normalizeText(name))})` : slot(part) ? '(.+?)' : escapePattern(part);
  const match = new RegExp(`^${parts.map(pattern).join('')}$`, 'u').exec(opening.narration);
  if (!match) return whole;
  let group = 1;
  const pieces = parts.map((part) =>
    slot(part) ? { text: match[group++], language: part === '{name}' ? language : wordsLanguage } : { text: part, language },
  );
  // A frame's marks before its first letter end the piece before ("? Then meet" gives "?" to the question).
  for (let n = 1; n < pieces.length; n++) {
    if (slot(parts[n])) continue;
    const lead = /^[^\p{L}\p{N}]*/u.exec(pieces[n].text)![0];
    pieces[n - 1].text += lead;
    pieces[n].text = pieces[n].text.slice(lead.length);
  }
  // A piece of marks only ("¿") goes with the words after it.
  for (let n = pieces.length - 2; n >= 0; n--) {
    if (pieces[n].text && !/[\p{L}\p{N}]/u.test(pieces[n].text)) {
      pieces[n + 1].text = pieces[n].text + pieces[n + 1].text;
      pieces[n].text = '';
    }
  }
  const segments: NarrationSegment[] = [];
  for (const piece of pieces) {
    if (!piece.text.trim()) continue;
    const last = segments.at(-1);
    if (last && last.language === piece.language) last.text += piece.text;
    else segments.push({ ...piece });
  }
  return segments.map((segment) => ({ ...segment, text: normalizeText(segment.text) })).filter((segment) => segment.text);
}
