/**
 * An optional script writer backed by an OpenAI-compatible chat model (SCRIPT_BASE_URL, SCRIPT_API_KEY,
 * SCRIPT_MODEL, SCRIPT_TIMEOUT; config.scriptWriter). The model is asked for one narration per screen scene, in
 * the video's language, from the page's facts only, each readable within its scene's seconds; its answer is then
 * checked here and used only when every check passes:
 *
 *   - shape: JSON {"scenes": ["…", …]} (or a bare array; a ```json fence is accepted), exactly one non-empty
 *     string per scene;
 *   - length: each narration reads (lib/script/reading-rate.ts estimateSeconds) within its scene's seconds + 15 %;
 *   - whole sentences: each ends with a sentence terminator of the language (Thai, which has none, excepted) and
 *     does not trail off in an ellipsis;
 *   - facts only: every number (digits: "4,000", "92%", "٤٬٠٠٠") is on the page (separators and digit scripts
 *     normalized), and every name-like word (a capitalized Latin word not at a sentence start; in a narration of a
 *     non-Latin script, any Latin word) is on the page or is the product's name or domain. German capitalizes
 *     every noun, so there only words shaped like brands (inner capitals, all capitals, digits) count as names;
 *   - language: textIsInLanguage() below.
 *
 * write() never throws: a transport error, a timeout, an HTTP error or a refused answer is {ok: false, reason};
 * the caller then writes the extractive script and logs the reason. A reason never contains the API key.
 * The checks are heuristics against the usual ways a model goes wrong (made-up customers and figures, the wrong
 * language, too long); they cannot prove that a sentence says only what the page says.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type OpenAI from 'openai';
import { detectAll } from 'tinyld';
import type { AppConfig } from '../../config';
import type { LanguageCode } from '../../config/catalog';
import { deadline } from '../deadline';
import { LANGUAGE_SCRIPT, letterCounts, normalizeText } from '../text';
import {
  chatCompletionsUrl,
  createChatClient,
  languageLabel,
  networkReason,
  providerErrorText,
  stripFence,
  truncate,
  type ChatCompletion,
} from './translate';
import { phraseSet } from './phrases';
import { estimateSeconds } from './reading-rate';
import { isOneOf } from '../../config/catalog';

export interface ModelScriptRequest {
  /** The narration's language (target). */
  language: LanguageCode;
  /** The language the facts are written in. */
  pageLanguage: string;
  facts: {
    name: string;
    headline: string;
    valueProposition: string;
    callToAction: string | null;
    /** The page's sections chosen for scenes, in scene order. */
    sections: Array<{ heading: string; sentences: string[] }>;
    /** The page's whole readable text (for fact checking). */
    pageText: string;
    /** The site's domain ("acme.io"), which the narration may name like the product. Optional. */
    domain?: string;
  };
  /** One entry per screen scene, in order: the hero (section null) or a section index into facts.sections, and the seconds its narration may take. */
  scenes: Array<{ section: number | null; seconds: number }>;
}

export type ModelScriptResult = { ok: true; narration: string[] } | { ok: false; reason: string };

export interface ScriptModel {
  readonly name: string;
  /** Never throws: any failure, and any answer refused by validateModelScript(), is {ok: false, reason}. */
  write(request: ModelScriptRequest): Promise<ModelScriptResult>;
}

/** A narration may read this much longer than its scene's seconds (the prompt asks for the seconds themselves). */
export const READING_TIME_TOLERANCE = 0.15;
/** At most this much of the page's text goes into the prompt (the fact checks use all of it). */
export const PROMPT_PAGE_TEXT_LIMIT = 12_000;
/** At most this many problems are listed in a refusal's reason. */
const REASON_PROBLEMS = 4;

// ---------------------------------------------------------------------------------------------------------
// Language

const LATIN_LANGUAGES = ['en', 'es', 'fr', 'de', 'pt', 'it', 'nl', 'pl', 'tr', 'id', 'vi', 'sv'] as const satisfies readonly LanguageCode[];
const isLatinLanguage = (language: LanguageCode): boolean => isOneOf(LATIN_LANGUAGES, language);

/** A Latin-script word (with its inner apostrophes, hyphens and digits: "Acme's", "Wi-Fi", "Web3"). */
const LATIN_WORD = /\p{Script=Latin}[\p{Script=Latin}\p{M}\p{Nd}'’-]*/gu;
const trimWord = (word: string) => word.replace(/['’-]+$/u, '');

/** At least this share of a narration's letters (names of the product left out) are in its language's script. */
const SCRIPT_SHARE = 0.5;
/** Japanese writes its grammar in kana: a "Japanese" text with (almost) none is Chinese. */
const JA_MIN_KANA_SHARE = 0.1;
/** Letters only Ukrainian / only Russian uses (among the Cyrillic of the two). */
const UK_ONLY = /[іїєґІЇЄҐ]/gu;
const RU_ONLY = /[ыэъёЫЭЪЁ]/gu;
/** A Ukrainian text this long without one of і, ї, є, ґ is not Ukrainian (і alone is about 6 % of Ukrainian letters). */
const UK_MIN_LETTERS_FOR_MARKERS = 60;
/** Letters of Persian and Urdu that Arabic does not use (پ چ ژ گ ک ی ٹ ڈ ڑ ں ے ہ). */
const NOT_ARABIC = /[\u067e\u0686\u0698\u06af\u06a9\u06cc\u0679\u0688\u0691\u06ba\u06d2\u06c1]/gu;

/**
 * The commonest function words of each Latin-script language: the tie-breaker when tinyld is unsure (short
 * texts), where one "the" or "und" says more than letter statistics.
 */
const wordSet = (list: string) => new Set(list.split(' '));
const STOPWORDS: Record<(typeof LATIN_LANGUAGES)[number], Set<string>> = {
  en: wordSet(
    'the and of to in is are for with your you it that this on by from at be can an our we more all every as or not will than has have its into just now',
  ),
  es: wordSet('el la los las de del y en que para con por un una es son tu su sus tus más lo al se como cada todo todos sin ya hoy'),
  fr: wordSet(
    'le la les de des du et en un une est sont pour avec sur dans par votre vos nous vous que qui au aux plus ce cette ne pas sans chaque tout tous',
  ),
  de: wordSet(
    'der die das den dem des und ist sind für mit auf in im ein eine einen einem zu zum zur von vom sie ihr ihre ihren wir nicht mehr noch oder auch bei aus jeden alle',
  ),
  pt: wordSet(
    'o a os as de do da dos das e em no na nos nas que para com por um uma é são seu sua seus suas mais ao se cada todos sem hoje você',
  ),
  it: wordSet(
    'il lo la i gli le di del della dei e è in nel nella che per con un una uno sono tuo tua tuoi più al alla si ogni tutti senza oggi',
  ),
  nl: wordSet(
    'de het een en van in is zijn voor met op je jouw uw wij we niet meer of ook bij uit dat die dit naar te elke alle zonder vandaag',
  ),
  pl: wordSet('i w na z do że się jest są dla to nie od po za jak lub oraz twój twoje twoja każdy wszystkie bez już więcej przez o a'),
  tr: wordSet('ve bir bu için ile da de daha en her çok gibi olarak ne mi sizin siz biz bugün hemen tüm kadar değil'),
  id: wordSet(
    'dan yang di ke dari untuk dengan ini itu anda kami kita tidak lebih pada dalam akan bisa atau juga setiap semua tanpa hari sekarang',
  ),
  vi: wordSet('và của là cho với các những một có không được trong bạn chúng này để từ khi mọi hơn ngay hôm nay'),
  sv: wordSet('och att det en ett är för med på i av som till din ditt dina vi inte mer eller också från varje alla utan idag dag'),
};

/** tinyld's score at or above which its top language is taken as said; below, the stopwords decide. */
const DETECTOR_CONFIDENT = 0.5;
/** The asked language counts as a match when its score is at least this share of the top one (close languages, short texts). */
const DETECTOR_CLOSE = 0.5;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` without the given names (case-insensitively), which belong to no language. */
function withoutNames(text: string, names: readonly string[]): string {
  let out = text;
  for (const name of names
    .map((n) => n.trim())
    .filter(Boolean)
    .sort((a, b) => b.length - a.length)) {
    out = out.replace(new RegExp(escapeRegExp(name), 'giu'), ' ');
  }
  return out;
}

function latinLanguageProblem(text: string, language: (typeof LATIN_LANGUAGES)[number]): string | null {
  const words = text
    .replace(/\S*[\p{L}\p{N}]\.[\p{L}]\S*/gu, ' ') // domains, e-mail addresses, file names
    .toLowerCase()
    .match(/[\p{L}\p{M}'’]+/gu);
  if (!words) return null;
  const detected = detect(words.join(' '), language, LATIN_LANGUAGES);
  if (detected.confident) return detected.problem;
  // tinyld is unsure (a short text): count function words; on a tie, tinyld's ranking decides after all, and with
  // none at all ("Over 12,345 teams.") the text is given the benefit of the doubt.
  const hits = (lang: (typeof LATIN_LANGUAGES)[number]) => words.filter((w) => STOPWORDS[lang].has(w.replace(/[’']/g, "'"))).length;
  const own = hits(language);
  let other = { lang: language as string, hits: -1 };
  for (const lang of LATIN_LANGUAGES) if (lang !== language && hits(lang) > other.hits) other = { lang, hits: hits(lang) };
  if (other.hits > own) return readsAs(other.lang, language);
  if (own > other.hits || own === 0) return null;
  return detected.problem;
}

const readsAs = (other: string, language: LanguageCode) => `reads as ${languageLabel(other)}, not ${languageLabel(language)}`;

/**
 * tinyld's ranking among `candidates`: a problem when another language is ahead and the asked one scores less
 * than DETECTOR_CLOSE of it; `confident` when the top score is DETECTOR_CONFIDENT or more.
 */
function detect(text: string, language: LanguageCode, candidates: readonly string[]): { confident: boolean; problem: string | null } {
  const ranking = detectAll(text, { only: [...candidates] });
  const top = ranking[0];
  if (!top) return { confident: false, problem: null };
  const mine = ranking.find((r) => r.lang === language)?.accuracy ?? 0;
  const problem = top.lang === language || mine >= top.accuracy * DETECTOR_CLOSE ? null : readsAs(top.lang, language);
  return { confident: top.accuracy >= DETECTOR_CONFIDENT, problem };
}

/** Why `text` is not in `language`, or null when it is (see textIsInLanguage). */
function languageProblem(text: string, language: LanguageCode, names: readonly string[] = []): string | null {
  const label = languageLabel(language);
  if (letterCounts(text).total === 0) return `has no words, so it is not in ${label}`;
  const cleaned = withoutNames(text, names);
  const counts = letterCounts(cleaned);
  if (counts.total === 0) return null; // only the product's name: no language to tell
  if (isLatinLanguage(language)) {
    if (counts.latin / counts.total < SCRIPT_SHARE)
      return `is not in ${label}: only ${Math.round((100 * counts.latin) / counts.total)} % of its letters are Latin`;
    return latinLanguageProblem(cleaned, language as (typeof LATIN_LANGUAGES)[number]);
  }
  const script = LANGUAGE_SCRIPT[language];
  if (!script) return null;
  // Capitalized Latin words in a narration of another script are names (GitHub, Salesforce: checked against the
  // page on their own), not the narration's language; lower-case Latin words are English or the like.
  const core = letterCounts(cleaned.replace(LATIN_WORD, (word) => (/^\p{Lu}/u.test(word) ? ' ' : word)));
  if (core.total === 0) return `is not in ${label}: none of its letters are ${script.label}`;
  const share = script.share(core) / core.total;
  if (share < SCRIPT_SHARE) return `is not in ${label}: only ${Math.round(share * 100)} % of its letters are ${script.label}`;
  if (language === 'ja' && core.kana < JA_MIN_KANA_SHARE * (core.kana + core.han))
    return `is not in ${label}: it has (almost) no kana, so it reads as Chinese`;
  if (language === 'zh' && core.kana > 0) return `is not in ${label}: it has kana, so it reads as Japanese`;
  const ukOnly = cleaned.match(UK_ONLY)?.length ?? 0;
  const ruOnly = cleaned.match(RU_ONLY)?.length ?? 0;
  if (language === 'ru' && ukOnly > 0 && ukOnly >= ruOnly) return `is not in ${label}: it has Ukrainian letters (і, ї, є, ґ)`;
  if (language === 'uk' && ruOnly > 0 && ruOnly >= ukOnly) return `is not in ${label}: it has Russian letters (ы, э, ъ, ё)`;
  if (language === 'uk' && ukOnly === 0 && core.cyrillic >= UK_MIN_LETTERS_FOR_MARKERS)
    return `is not in ${label}: it has none of the Ukrainian letters і, ї, є, ґ`;
  if (language === 'ru' || language === 'uk') {
    const detected = detect(cleaned, language, ['ru', 'uk']);
    if (detected.confident && detected.problem) return detected.problem;
  }
  if (language === 'ar' && (cleaned.match(NOT_ARABIC)?.length ?? 0) > 0.05 * core.arabic)
    return `is not in ${label}: it has Persian or Urdu letters`;
  return null;
}

/**
 * True when `text` is written in `language`. Languages of their own script (ja, ko, zh, ar, hi, th, ru, uk): at
 * least half its letters are in that script (ja: kana and kanji with some kana; zh: Han and no kana; ru and uk
 * told apart by the letters only one of them uses; Persian and Urdu letters are not Arabic). Latin-script
 * languages: mostly Latin letters, and the tinyld detector (restricted to our Latin-script languages) does not
 * say it is another one; when tinyld is unsure (short texts), the commonest function words decide. Close
 * languages are given the benefit of the doubt. `names` (the product's name, its domain) are left out first:
 * they belong to no language. A text with no letters at all is in no language.
 */
export function textIsInLanguage(text: string, language: LanguageCode, names: readonly string[] = []): boolean {
  return languageProblem(text, language, names) === null;
}

// ---------------------------------------------------------------------------------------------------------
// Facts: numbers and names

/** Zeros of the decimal digit sets a narration may use: ASCII, Arabic-Indic, Persian, Devanagari, Bengali, Thai, fullwidth. */
const DIGIT_ZEROS = [0x30, 0x660, 0x6f0, 0x966, 0x9e6, 0xe50, 0xff10];
const asciiDigits = (text: string) =>
  text.replace(/\p{Nd}/gu, (d) => {
    const cp = d.codePointAt(0)!;
    const zero = DIGIT_ZEROS.find((z) => cp >= z && cp <= z + 9);
    return zero === undefined ? d : String(cp - zero);
  });

/** A number: digits with thousands or decimal separators (".", ",", "'", Arabic ٫ ٬, or a space before three digits). */
const NUMBER = /\p{Nd}+(?:(?:[.,'’\u066b\u066c]|[ \u00a0\u202f\u2009](?=\p{Nd}{3}(?!\p{Nd})))\p{Nd}+)*/gu;
const numberKey = (digits: string) => digits.replace(/^0+(?=\d)/, '');

function numbersIn(text: string): Array<{ raw: string; key: string; lead: string }> {
  return Array.from(text.matchAll(NUMBER), ([raw]) => {
    const ascii = asciiDigits(raw);
    return { raw, key: numberKey(ascii.replace(/\D/g, '')), lead: numberKey(ascii.match(/^\d+/)?.[0] ?? '') };
  });
}

/** Every number of the page, separators removed; also each one's leading group ("4,000" allows "4" of "4 thousand", "4千"). */
function pageNumbers(text: string): Set<string> {
  const set = new Set<string>();
  for (const n of numbersIn(text)) {
    set.add(n.key);
    set.add(n.lead);
  }
  return set;
}

function pageWords(text: string): Set<string> {
  const set = new Set<string>();
  for (const [word] of text.matchAll(LATIN_WORD)) {
    const w = trimWord(word).toLowerCase();
    set.add(w);
    set.add(w.replace(/['’]s$/u, ''));
    for (const part of w.split('-')) if (part) set.add(part);
  }
  return set;
}

function onPage(word: string, words: Set<string>): boolean {
  const w = word.toLowerCase();
  if (words.has(w) || words.has(w.replace(/['’]s?$/u, ''))) return true;
  const parts = w.split(/['’-]/u).filter(Boolean);
  return parts.length > 1 && parts.every((p) => words.has(p));
}

/** True when the word at `index` starts a sentence (or a clause after a colon), opening quotes and brackets aside. */
function atSentenceStart(text: string, index: number): boolean {
  const before = text.slice(0, index).replace(/[\s"'“”‘’«»„‹›¡¿([{「『（-]+$/u, '');
  return before === '' || /[.!?…:;。！？।؟]$/u.test(before);
}

/** Words a language writes capitalized anywhere that are not names: English "I", Indonesian polite "Anda". */
const CAPITALIZED_WORDS: Partial<Record<LanguageCode, Set<string>>> = {
  en: new Set(['I', "I'm", "I'll", "I've", "I'd"]),
  id: new Set(['Anda', 'Anda-lah']),
};

/** A word the narration uses as a name: in a non-Latin narration any Latin word; else a capitalized word not at a sentence start. */
function isNameLike(word: string, index: number, text: string, language: LanguageCode): boolean {
  if (!isLatinLanguage(language)) return true;
  if (CAPITALIZED_WORDS[language]?.has(word.replace(/’/g, "'"))) return false;
  if (language === 'de') return /^.+\p{Lu}/u.test(word) || /\p{Nd}/u.test(word); // every German noun is capitalized
  return /^[\p{Lu}\p{Lt}]/u.test(word) && !atSentenceStart(text, index);
}

// ---------------------------------------------------------------------------------------------------------
// Validation

const TERMINATORS: Partial<Record<LanguageCode, string>> = { ja: '。！？!?', zh: '。！？!?', hi: '।॥.!?', ar: '.!?؟' };
const CLOSERS = `["'”’»)\\]」』）]*`;

function endsAsSentence(text: string, language: LanguageCode): string | null {
  if (language === 'th') return null; // Thai has no sentence terminator
  if (new RegExp(`(?:\\.\\.\\.|…)${CLOSERS}$`, 'u').test(text)) return 'trails off in an ellipsis instead of ending as a whole sentence';
  const terminators = TERMINATORS[language] ?? '.!?';
  if (!new RegExp(`[${escapeRegExp(terminators)}]${CLOSERS}$`, 'u').test(text))
    return `does not end as a whole sentence (no ${[...terminators].join(' ')} at its end)`;
  return null;
}

const quote = (text: string) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
/** 'number "12,345" is not' / 'numbers "12,345", "99" are not' */
const listed = (noun: string, items: string[]) =>
  items.length === 1 ? `${noun} ${quote(items[0])} is not` : `${noun}s ${items.map(quote).join(', ')} are not`;

/** The narrations of a parsed answer: {"scenes": [...]} or a bare array. */
function narrationList(answer: unknown): unknown[] | null {
  const list: unknown = Array.isArray(answer) ? answer : (answer as { scenes?: unknown } | null)?.scenes;
  return Array.isArray(list) ? (list as unknown[]) : null;
}

/**
 * Why a model's answer cannot be used for `request`, or null when it can. `narration` is the parsed answer:
 * {"scenes": ["…", …]} or a bare array of strings. Lists up to four problems, each naming its scene (1-based).
 */
export function validateModelScript(request: ModelScriptRequest, narration: unknown): string | null {
  const list = narrationList(narration);
  if (!list) return 'the answer is not {"scenes": [...]}';
  const expected = request.scenes.length;
  if (list.length !== expected) return `${list.length} narrations for ${expected} scenes`;

  const { facts, language } = request;
  const factText = [
    facts.pageText,
    facts.name,
    facts.domain ?? '',
    facts.headline,
    facts.valueProposition,
    facts.callToAction ?? '',
    ...facts.sections.flatMap((s) => [s.heading, ...s.sentences]),
  ].join('\n');
  const numbers = pageNumbers(factText);
  const words = pageWords(factText);
  const names = [facts.name, facts.domain ?? ''].filter((n) => n.trim());

  const problems: string[] = [];
  list.forEach((item, i) => {
    const scene = `scene ${i + 1}`;
    if (typeof item !== 'string') return problems.push(`${scene}: narration is not a string`);
    const text = normalizeText(item);
    if (!text) return problems.push(`${scene}: narration is empty`);

    const seconds = request.scenes[i].seconds;
    const reads = estimateSeconds(text, language);
    if (reads > seconds * (1 + READING_TIME_TOLERANCE) + 1e-9)
      problems.push(`${scene}: too long, reads in about ${reads.toFixed(1)} s where the scene has ${seconds} s`);

    const ending = endsAsSentence(text, language);
    if (ending) problems.push(`${scene}: ${ending}`);

    const invented = numbersIn(text).filter((n) => !numbers.has(n.key));
    if (invented.length)
      problems.push(
        `${scene}: ${listed(
          'number',
          invented.map((n) => n.raw),
        )} on the page`,
      );

    const unknown = new Set<string>();
    for (const m of text.matchAll(LATIN_WORD)) {
      const word = trimWord(m[0]);
      if (word && isNameLike(word, m.index, text, language) && !onPage(word, words)) unknown.add(word);
    }
    if (unknown.size) problems.push(`${scene}: ${listed('name', [...unknown])} on the page`);

    const wrongLanguage = languageProblem(text, language, names);
    if (wrongLanguage) problems.push(`${scene}: ${wrongLanguage}`);
  });
  if (!problems.length) return null;
  const shown = problems.slice(0, REASON_PROBLEMS).join('; ');
  return problems.length > REASON_PROBLEMS ? `${shown}; and ${problems.length - REASON_PROBLEMS} more` : shown;
}

// ---------------------------------------------------------------------------------------------------------
// The chat model

export interface ChatScriptModelOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Whole request, headers and body, in milliseconds. */
  timeoutMs: number;
}

/** How much a scene's narration may hold at the language's reading rate, as the prompt states it. */
function sceneAllowance(language: LanguageCode, seconds: number): { maxWords: number } | { maxCharacters: number } {
  const set = phraseSet(language);
  const units = Math.max(1, Math.floor(seconds * set.readingRate));
  return set.unit === 'words' ? { maxWords: units } : { maxCharacters: units };
}

function systemPrompt(request: ModelScriptRequest): string {
  const label = languageLabel(request.language);
  const thai = request.language === 'th';
  return [
    `You write the voice-over of a short narrated demo video of a web page, in ${label}. The video shows one screen per scene; you write what the voice says during each scene.`,
    `The facts are given in ${languageLabel(request.pageLanguage)}; write natural, spoken ${label} that a native marketer would publish.`,
    'Use only facts stated in the page facts and page text you are given. Do not add numbers, prices, customers, partners, awards, product names or claims that are not there; keep names and numbers exactly as on the page.',
    'Scene "hero" introduces the product: its name and its main promise. A "section" scene speaks about that section of the page only.',
    'Each narration must be readable within its scene: at most its maxWords words (or maxCharacters characters). Shorter is better than longer.',
    thai
      ? 'Each narration is one or more complete sentences; separate Thai sentences with a space.'
      : `Each narration is one or more complete sentences, each ending with the sentence terminator of ${label}.`,
    `Answer with JSON only: an object {"scenes": [...]} holding exactly ${request.scenes.length} strings, one per scene, in scene order. No commentary, no markdown.`,
  ].join('\n');
}

function userMessage(request: ModelScriptRequest): string {
  const { facts } = request;
  return JSON.stringify({
    task: 'narration-script',
    language: request.language,
    pageLanguage: request.pageLanguage,
    facts: {
      name: facts.name,
      ...(facts.domain ? { domain: facts.domain } : {}),
      headline: facts.headline,
      valueProposition: facts.valueProposition,
      callToAction: facts.callToAction,
      sections: facts.sections,
    },
    scenes: request.scenes.map((scene, i) => ({
      scene: i + 1,
      shows: scene.section === null ? 'hero' : 'section',
      section: scene.section,
      ...(scene.section === null ? {} : { heading: facts.sections[scene.section]?.heading ?? '' }),
      seconds: scene.seconds,
      ...sceneAllowance(request.language, scene.seconds),
    })),
    pageText: facts.pageText.length > PROMPT_PAGE_TEXT_LIMIT ? facts.pageText.slice(0, PROMPT_PAGE_TEXT_LIMIT) : facts.pageText,
  });
}

/** A request the caller got wrong (no model call is made for it). */
function requestProblem(request: ModelScriptRequest): string | null {
  for (const [i, scene] of request.scenes.entries()) {
    if (!Number.isFinite(scene.seconds) || scene.seconds <= 0) return `scene ${i + 1} has no time (${scene.seconds} s)`;
    if (scene.section !== null && !(Number.isInteger(scene.section) && scene.section >= 0 && scene.section < request.facts.sections.length))
      return `scene ${i + 1} refers to section ${scene.section}, but there are ${request.facts.sections.length}`;
  }
  return null;
}

export class ChatScriptModel implements ScriptModel {
  readonly name: string;
  readonly endpoint: string;
  private readonly apiKey: string;
  private readonly model: string;
  private readonly timeoutMs: number;
  private readonly client: OpenAI;

  constructor(options: ChatScriptModelOptions) {
    this.endpoint = chatCompletionsUrl(options.baseUrl, 'Script model');
    if (!options.model?.trim()) throw new TypeError('Script model name is required (SCRIPT_MODEL).');
    this.model = options.model.trim();
    this.apiKey = (options.apiKey ?? '').trim();
    this.timeoutMs = options.timeoutMs;
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs <= 0)
      throw new TypeError('Script model timeout must be a positive number of milliseconds.');
    this.name = `openai-chat:${this.model}`;
    this.client = createChatClient(this.endpoint, this.apiKey, this.timeoutMs);
  }

  async write(request: ModelScriptRequest): Promise<ModelScriptResult> {
    try {
      const wrong = requestProblem(request);
      if (wrong) return this.fail(`script request is invalid: ${wrong}`);
      if (request.scenes.length === 0) return { ok: true, narration: [] };
      const answer = await this.ask(request);
      if (!answer.ok) return this.fail(answer.reason);
      const reason = validateModelScript(request, answer.parsed);
      if (reason) return this.fail(`script model's answer was refused: ${reason}`);
      return { ok: true, narration: (narrationList(answer.parsed) as string[]).map(normalizeText) };
    } catch (err) {
      return this.fail(`script model failed: ${truncate(err instanceof Error ? err.message : String(err))}`);
    }
  }

  private async ask(request: ModelScriptRequest): Promise<{ ok: true; parsed: unknown } | { ok: false; reason: string }> {
    let completion: unknown;
    // Our own deadline for the whole request (the SDK's `timeout` is only a backstop behind it).
    const limit = deadline(this.timeoutMs);
    try {
      completion = await this.client.chat.completions.create(
        {
          model: this.model,
          messages: [
            { role: 'system', content: systemPrompt(request) },
            { role: 'user', content: userMessage(request) },
          ],
          response_format: { type: 'json_object' },
        },
        { signal: limit.signal },
      );
    } catch (err) {
      return { ok: false, reason: this.transportReason(err, limit.passed) };
    } finally {
      limit.clear();
    }
    const invalid = (why: string) => ({ ok: false as const, reason: `script model returned ${why}` });
    if (typeof completion !== 'object' || completion === null) return invalid('malformed JSON (the response body is not JSON)');
    const choice = (completion as ChatCompletion).choices?.[0];
    const message = choice?.message;
    if (message && typeof message.refusal === 'string' && message.refusal.trim())
      return { ok: false, reason: `script model refused: ${truncate(message.refusal)}` };
    if (choice?.finish_reason === 'length') return invalid('an answer that was cut short (finish_reason "length")');
    if (typeof message?.content !== 'string') return invalid('malformed JSON (no choices[0].message.content string)');
    try {
      return { ok: true, parsed: JSON.parse(stripFence(message.content)) };
    } catch {
      return invalid('malformed JSON (the message content is not JSON)');
    }
  }

  private transportReason(err: unknown, timedOut: boolean): string {
    if (timedOut || err instanceof APIConnectionTimeoutError) return `script model timed out after ${this.timeoutMs} ms`;
    if (err instanceof APIError && typeof err.status === 'number') {
      // Never quote 401/403 bodies: some providers echo (part of) the key back.
      if (err.status === 401 || err.status === 403) return `script model answered HTTP ${err.status} (check SCRIPT_API_KEY)`;
      const inner: unknown = err.error;
      const body = inner === undefined ? err.message.replace(/^\d{3}\s*/, '') : JSON.stringify({ error: inner });
      const detail = providerErrorText(body);
      return `script model answered HTTP ${err.status}${detail ? `: ${detail}` : ''}`;
    }
    if (err instanceof APIConnectionError) return `script model could not be reached (${networkReason(err.cause ?? err)})`;
    return `script model returned an unreadable answer (${truncate(err instanceof Error ? err.message : String(err))})`;
  }

  private fail(reason: string): { ok: false; reason: string } {
    return { ok: false, reason: this.apiKey ? reason.split(this.apiKey).join('[redacted]') : reason };
  }
}

/**
 * From config.scriptWriter: undefined when no script model is configured (SCRIPT_BASE_URL unset or empty). Throws a
 * TypeError for a configuration that cannot work (no model, a base URL that is not http(s)).
 */
export function createScriptModel(settings: AppConfig['scriptWriter'] | undefined): ScriptModel | undefined {
  const baseUrl = settings?.baseUrl?.trim();
  if (!settings || !baseUrl) return undefined;
  return new ChatScriptModel({ baseUrl, apiKey: settings.apiKey, model: settings.model, timeoutMs: settings.timeoutMs });
}
