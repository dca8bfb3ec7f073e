/**
 * Whether a text is in a given language, as the video's own check asks it of a scene's narration, headline and
 * page words (decisions §13, wrong_language). Conservative on purpose: a text is called foreign only when it is
 * long enough to judge and clearly another language's — by script for the languages written in their own
 * (LANGUAGE_SCRIPT in lib/text.ts), by common function words among the Latin-script ones (an English sentence in
 * a German video). Names (the brand's, the domain) are left out before judging.
 */
import type { LanguageCode } from '../../config/catalog';
import { LANGUAGE_SCRIPT, letterCounts, type ScriptName } from '../text';

/** Fewer letters than this (names and numbers aside) cannot be judged. */
export const MIN_LETTERS_TO_JUDGE = 12;
/** Below this share of its letters in the language's script, a text is another language's. */
export const MIN_OWN_SCRIPT_SHARE = 0.5;
/** Latin-script languages: words a text needs, and function words of another language it must show, to be called that one. */
const MIN_WORDS_TO_GUESS = 5;
const MIN_FUNCTION_WORDS = 3;

/**
 * Common function words of each Latin-script language, those least shared with its neighbours: enough to tell an
 * English sentence from a German one, not a dictionary.
 */
const FUNCTION_WORDS: Partial<Record<LanguageCode, string[]>> = {
  en: 'the and with for your you our is are of this that from we it be can will all more into have their what then to an by or not just every how'.split(
    ' ',
  ),
  de: 'der die das und mit für ist sind ein eine nicht auf den dem zu von ihre ihr wir sie sich auch noch mehr oder werden bei'.split(' '),
  fr: 'le la les et des du pour avec est sont une dans sur vous votre vos nous notre qui que plus pas par au aux ce cette'.split(' '),
  es: 'el la los las y del para con es son una por que su sus tu tus nuestro nuestra más como al lo este esta'.split(' '),
  pt: 'o os as e do da dos das para com é são uma um em no na por que seu sua você mais como ao não'.split(' '),
  it: 'il lo gli le e di del della per con è sono una un nel che più come al alla non tuo tua nostro'.split(' '),
  nl: 'de het een en van voor met is zijn op aan dat die niet uw je jouw onze wij we ook meer naar bij om'.split(' '),
  pl: 'i w z na do nie się jest są że dla oraz jak to od po przez twój twoje nasz'.split(' '),
  tr: 've bir bu ile için da de çok daha olan gibi sizin bizim her'.split(' '),
  sv: 'och att det som en ett är för med på av till inte din ditt våra vi du kan'.split(' '),
  id: 'dan yang untuk dengan di ke dari ini itu anda kami adalah dalam lebih pada tidak'.split(' '),
  vi: 'và của cho với là các những một được trong không bạn chúng tôi này'.split(' '),
};

/**
 * Simplified Chinese characters that Japanese does not write (it writes 這, 説, 時, 発, 実, 電, 話… instead): a few
 * of them in a run of Han tell Chinese from Japanese kanji.
 */
const SIMPLIFIED_ONLY = new Set([...'们这个么说没对为时还过吗呢让请从给现发经进动实样问种开关见长门东车书应该电话网页码务员业产团队际']);
/** Simplified-only characters a Han-only text needs to be called Chinese in a Japanese video. */
const MIN_SIMPLIFIED_ONLY = 2;

/** How many characters of `text` are SIMPLIFIED_ONLY. */
function simplifiedOnly(text: string): number {
  return [...text].filter((c) => SIMPLIFIED_ONLY.has(c)).length;
}

/** The language a script points to, when a text is mostly in it. */
const SCRIPT_LANGUAGE: Partial<Record<ScriptName, LanguageCode>> = {
  han: 'zh',
  kana: 'ja',
  hangul: 'ko',
  arabic: 'ar',
  devanagari: 'hi',
  thai: 'th',
  cyrillic: 'ru',
};

const languageName = new Intl.DisplayNames(['en'], { type: 'language' });
/** A language's English name ("Japanese"), for customers' messages. */
export function nameOfLanguage(language: string): string {
  try {
    return languageName.of(language) ?? language;
  } catch {
    return language;
  }
}

/** `text` without the names given (brand, domain): they are in any language. */
function withoutNames(text: string, names: string[]): string {
  let out = ` ${text} `;
  for (const name of names.filter((n) => n.trim().length >= 2)) out = out.split(name).join(' ');
  return out.replace(/\s+/gu, ' ').trim();
}

/** Function words of each Latin-script language found in `text` (every occurrence). */
function functionWordHits(text: string): Map<LanguageCode, number> {
  const words = text.toLocaleLowerCase().match(/[\p{L}\p{M}']+/gu) ?? [];
  const hits = new Map<LanguageCode, number>();
  for (const [language, list] of Object.entries(FUNCTION_WORDS) as Array<[LanguageCode, string[]]>) {
    const set = new Set(list);
    hits.set(language, words.filter((w) => set.has(w)).length);
  }
  return hits;
}

/** The Latin-script language `text` reads as, by its function words; null when it does not clearly read as one. */
export function latinLanguageOf(text: string, expected?: LanguageCode): LanguageCode | null {
  const words = text.match(/[\p{L}\p{M}']+/gu) ?? [];
  if (words.length < MIN_WORDS_TO_GUESS) return null;
  const hits = functionWordHits(text);
  const [best, count] = [...hits.entries()].sort((a, b) => b[1] - a[1])[0];
  const own = expected ? (hits.get(expected) ?? 0) : 0;
  if (count < MIN_FUNCTION_WORDS || best === expected) return null;
  // Clearly more of the other's words than of the expected one's (neighbours share a few: de, la, en, die).
  return count >= 2 * own + 1 ? best : null;
}

export interface LanguageVerdict {
  /** Whether the text is clearly not in the language. */
  foreign: boolean;
  /** What it reads as instead, when that can be told. */
  seems: LanguageCode | null;
}

/**
 * Whether `text` is clearly not in `language`: too short to judge (fewer than MIN_LETTERS_TO_JUDGE letters once
 * `names` are left out) is never foreign. `minShare`: the share of its letters a text must have in the language's
 * script (lower for OCR'd page text, where a screen mixes scripts).
 */
export function judgeLanguage(text: string, language: LanguageCode, opts: { names?: string[]; minShare?: number } = {}): LanguageVerdict {
  const clean = withoutNames(text, opts.names ?? []);
  const counts = letterCounts(clean);
  const fine = { foreign: false, seems: null };
  if (counts.total < MIN_LETTERS_TO_JUDGE) return fine;
  const script = LANGUAGE_SCRIPT[language];
  const own = script ? script.share(counts) : counts.latin;
  const dominant = (Object.entries(counts) as Array<[ScriptName | 'total', number]>)
    .filter(([name]) => name !== 'total' && name !== 'other')
    .sort((a, b) => b[1] - a[1])[0][0] as ScriptName;
  const seemsByScript = dominant === 'latin' ? latinLanguageOf(clean) : (SCRIPT_LANGUAGE[dominant] ?? null);
  if (own / counts.total < (opts.minShare ?? MIN_OWN_SCRIPT_SHARE)) return { foreign: true, seems: seemsByScript };
  // Han alone: Chinese and Japanese share it. A long run of Han without any kana, written with Simplified Chinese's own
  // characters, is Chinese (Japanese labels such as 東京都 神奈川県 都道府県別 are Han alone too); Chinese with kana is Japanese.
  if (language === 'ja' && counts.han >= 15 && counts.kana === 0 && simplifiedOnly(clean) >= MIN_SIMPLIFIED_ONLY)
    return { foreign: true, seems: 'zh' };
  if (language === 'zh' && counts.kana >= 3 && counts.kana / counts.total > 0.1) return { foreign: true, seems: 'ja' };
  if (!script) {
    const seems = latinLanguageOf(clean, language);
    if (seems) return { foreign: true, seems };
  }
  return fine;
}
