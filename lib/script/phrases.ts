/**
 * Fixed phrases of a narrated product demo video, per supported language, plus the reading-rate helpers
 * that turn narration text into time budgets before any audio exists.
 *
 * The phrases are written the way a native speaker would say them in a short marketing video, not as
 * word-for-word translations of the English. Placeholders: {name} (product or site name) in `intro`,
 * {domain} (site domain) in `callToAction`. The phrases avoid grammar that would have to agree with the
 * substituted name (Korean particles, Turkish suffixes, gendered pronouns), so any name or domain slots in.
 */
import type { LanguageCode } from '../../config/catalog';

export interface PhraseSet {
  /** Opening line; {name} = product or site name. e.g. en "Meet {name}." */
  intro: string;
  /** Lead-in before listing features, e.g. en "Here's what it can do." */
  featuresLead: string;
  /** Closing call to action; {domain} = site domain, e.g. en "Try it today at {domain}." */
  callToAction: string;
  /** Short on-screen label for the closing card, e.g. en "Start today" */
  ctaLabel: string;
  /** Sentence terminator appended to sentences that lack one: "." for most, "。" for ja/zh, "।" for hi, "" for th (Thai separates sentences with a space). */
  fullStop: string;
  /** Separator between sentences when joining them: " ", or "" for ja/zh. */
  sentenceSeparator: string;
  /** Reading speed for narration budgets: words per second, or characters per second when `unit` is 'chars'. */
  readingRate: number;
  unit: 'words' | 'chars';
  /** Text direction, for captions and the renderer. */
  direction: 'ltr' | 'rtl';
}

export type PhraseKey = 'intro' | 'featuresLead' | 'callToAction' | 'ctaLabel';

const latin = (rate: number): Pick<PhraseSet, 'fullStop' | 'sentenceSeparator' | 'readingRate' | 'unit' | 'direction'> => ({
  fullStop: '.', sentenceSeparator: ' ', readingRate: rate, unit: 'words', direction: 'ltr',
});

export const PHRASES: Record<LanguageCode, PhraseSet> = {
  en: {
    intro: 'Meet {name}.',
    featuresLead: "Here's what it can do.",
    callToAction: 'Try it today at {domain}.',
    ctaLabel: 'Start today',
    ...latin(2.5),
  },
  ja: {
    intro: '{name}をご紹介します。',
    featuresLead: '主な機能を見ていきましょう。',
    callToAction: '今すぐ{domain}でお試しください。',
    ctaLabel: '今すぐ始める',
    fullStop: '。', sentenceSeparator: '', readingRate: 7, unit: 'chars', direction: 'ltr',
  },
  ko: {
    // "{name}을/를 소개합니다" would need the particle to match the name's last syllable; this form needs none.
    intro: '{name}, 지금 만나보세요.',
    featuresLead: '어떤 기능이 있는지 살펴볼까요?',
    callToAction: '지금 바로 {domain}에서 시작해 보세요.',
    ctaLabel: '지금 시작하기',
    fullStop: '.', sentenceSeparator: ' ', readingRate: 2.2, unit: 'words', direction: 'ltr',
  },
  zh: {
    intro: '来认识一下{name}。',
    featuresLead: '看看它能为你做些什么。',
    callToAction: '立即访问{domain}，开始体验。',
    ctaLabel: '立即开始',
    fullStop: '。', sentenceSeparator: '', readingRate: 4.5, unit: 'chars', direction: 'ltr',
  },
  es: {
    intro: 'Te presentamos {name}.',
    featuresLead: 'Descubre todo lo que puede hacer.',
    callToAction: 'Pruébalo hoy mismo en {domain}.',
    ctaLabel: 'Empieza hoy',
    ...latin(2.6),
  },
  fr: {
    intro: 'Découvrez {name}.',
    featuresLead: "Voici tout ce qu'il peut faire pour vous.",
    callToAction: "Essayez-le dès aujourd'hui sur {domain}.",
    ctaLabel: 'Commencez maintenant',
    ...latin(2.6),
  },
  de: {
    intro: 'Entdecken Sie {name}.',
    featuresLead: 'Das sind die wichtigsten Funktionen.',
    callToAction: 'Testen Sie es noch heute auf {domain}.',
    ctaLabel: 'Jetzt starten',
    ...latin(2.1),
  },
  pt: {
    intro: 'Conheça {name}.',
    featuresLead: 'Veja do que ele é capaz.',
    callToAction: 'Experimente hoje mesmo em {domain}.',
    ctaLabel: 'Comece agora',
    ...latin(2.6),
  },
  it: {
    intro: 'Ti presentiamo {name}.',
    featuresLead: 'Ecco cosa può fare per te.',
    callToAction: 'Provalo oggi stesso su {domain}.',
    ctaLabel: 'Inizia ora',
    ...latin(2.6),
  },
  nl: {
    intro: 'Maak kennis met {name}.',
    featuresLead: 'Dit is wat het voor je kan doen.',
    callToAction: 'Probeer het vandaag nog op {domain}.',
    ctaLabel: 'Begin vandaag',
    ...latin(2.1),
  },
  pl: {
    intro: 'Poznaj {name}.',
    featuresLead: 'Zobacz, co potrafi.',
    callToAction: 'Wypróbuj już dziś na {domain}.',
    ctaLabel: 'Zacznij już dziś',
    ...latin(2.1),
  },
  ru: {
    intro: 'Знакомьтесь: {name}.',
    featuresLead: 'Вот что вы получите.',
    callToAction: 'Попробуйте уже сегодня на сайте {domain}.',
    ctaLabel: 'Попробовать',
    ...latin(2.1),
  },
  tr: {
    // "{domain} adresinde" keeps the locative suffix off the domain itself (no vowel harmony needed).
    intro: 'Karşınızda {name}.',
    featuresLead: 'İşte sunduğu başlıca özellikler.',
    callToAction: 'Hemen bugün {domain} adresinde deneyin.',
    ctaLabel: 'Hemen başla',
    ...latin(2.0),
  },
  ar: {
    intro: 'تعرّف على {name}.',
    featuresLead: 'إليك أبرز ما يقدّمه.',
    callToAction: 'جرّبه اليوم على {domain}.',
    ctaLabel: 'ابدأ الآن',
    fullStop: '.', sentenceSeparator: ' ', readingRate: 2.0, unit: 'words', direction: 'rtl',
  },
  hi: {
    intro: 'पेश है {name}।',
    featuresLead: 'आइए देखें, यह क्या-क्या कर सकता है।',
    callToAction: 'आज ही {domain} पर आज़माएँ।',
    ctaLabel: 'अभी शुरू करें',
    fullStop: '।', sentenceSeparator: ' ', readingRate: 2.3, unit: 'words', direction: 'ltr',
  },
  id: {
    intro: 'Perkenalkan, {name}.',
    featuresLead: 'Ini dia fitur-fitur unggulannya.',
    callToAction: 'Coba sekarang juga di {domain}.',
    ctaLabel: 'Mulai sekarang',
    ...latin(2.3),
  },
  vi: {
    intro: 'Xin giới thiệu {name}.',
    featuresLead: 'Cùng xem những tính năng nổi bật nhé.',
    callToAction: 'Dùng thử ngay hôm nay tại {domain}.',
    ctaLabel: 'Bắt đầu ngay',
    ...latin(3.0),
  },
  th: {
    intro: 'ขอแนะนำ {name}',
    featuresLead: 'มาดูกันว่าทำอะไรได้บ้าง',
    callToAction: 'ทดลองใช้ได้แล้ววันนี้ที่ {domain}',
    ctaLabel: 'เริ่มเลย',
    fullStop: '', sentenceSeparator: ' ', readingRate: 6, unit: 'chars', direction: 'ltr',
  },
  sv: {
    intro: 'Möt {name}.',
    featuresLead: 'Så här kan det hjälpa dig.',
    callToAction: 'Testa redan i dag på {domain}.',
    ctaLabel: 'Kom igång',
    ...latin(2.1),
  },
  uk: {
    intro: 'Знайомтеся: {name}.',
    featuresLead: 'Ось що ви отримаєте.',
    callToAction: 'Спробуйте вже сьогодні на сайті {domain}.',
    ctaLabel: 'Спробувати',
    ...latin(2.1),
  },
};

function phraseSet(language: LanguageCode): PhraseSet {
  const set = PHRASES[language];
  if (!set) throw new RangeError(`Unsupported language: ${String(language)}`);
  return set;
}

/** A fixed phrase with its {placeholders} filled in. Throws if the phrase uses a placeholder missing from `vars`. */
export function phrase(language: LanguageCode, key: PhraseKey, vars: Record<string, string>): string {
  const template = phraseSet(language)[key];
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = vars[name];
    if (typeof value !== 'string') throw new Error(`phrase ${language}.${key} needs {${name}}`);
    return value.trim();
  });
}

// ---------------------------------------------------------------------------------------------------------
// Text helpers shared with lib/captions.ts

const graphemeSegmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });
const thaiWordSegmenter = new Intl.Segmenter('th', { granularity: 'word' });

/** User-perceived characters (grapheme clusters): a Devanagari conjunct with its vowel sign, or a Thai consonant with its tone mark, is one. */
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

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

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
    while (s < e && /\s/u.test(text[s]!)) s++;
    while (e > s && /\s/u.test(text[e - 1]!)) e--;
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

/** Narration units in `text`: words (tokens with a letter or digit) or characters (letter/digit grapheme clusters). */
export function countUnits(text: string, language: LanguageCode): number {
  if (phraseSet(language).unit === 'words') {
    let n = 0;
    for (const token of text.split(/\s+/u)) if (LETTER_OR_DIGIT.test(token)) n++;
    return n;
  }
  let n = 0;
  for (const { segment } of graphemeSegmenter.segment(text)) if (LETTER_OR_DIGIT.test(segment)) n++;
  return n;
}

/** How long narration of `text` takes at the language's reading rate, in seconds (for scene budgets before audio exists). */
export function estimateSeconds(text: string, language: LanguageCode): number {
  return countUnits(text, language) / phraseSet(language).readingRate;
}

// Small float slack so that a text estimated at exactly the budget still fits.
const EPSILON = 1e-9;

const TRAILING_CLAUSE_PUNCTUATION = /[\s,;:、，；：\-–—،؛]+$/u;
const ENDS_WITH_TERMINATOR = /[.!?…。！？।॥؟]["'”’»)\]」』）]*$/u;

/** Closes a sentence that was cut short: drops a dangling comma or dash and adds the language's full stop. */
function closeSentence(fragment: string, language: LanguageCode): string {
  const trimmed = fragment.replace(TRAILING_CLAUSE_PUNCTUATION, '');
  if (!trimmed) return '';
  return ENDS_WITH_TERMINATOR.test(trimmed) ? trimmed : trimmed + phraseSet(language).fullStop;
}

/** Characters that may not start a line (or be cut off from what precedes them) in Japanese and Chinese. */
export const CJK_NO_START = new Set([...'、。，．！？）」』】〕〉》〗〙〟’”｝］・：；ー…‥ゝゞヽヾ々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ),.!?:;]}%％']);
/** Characters that may not end a line (opening brackets) in Japanese and Chinese. */
export const CJK_NO_END = new Set([...'（「『【〔〈《〖〘〝‘“｛［([{']);
const CJK_CLAUSE_END = new Set([...'、，；：」』）']);
const CJK_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

/** True for characters of a Latin-style token inside CJK text ("acme.io", "2.5"), which must not be split. */
export function isEmbeddedWordChar(g: string): boolean {
  return (/[\p{L}\p{N}\p{M}]/u.test(g) && !CJK_SCRIPT.test(g)) || /^[.\-_/@:%+#&']$/u.test(g);
}

/** Break costs shared with caption line breaking: lower is a nicer place to end a line or cut a sentence. */
export const BREAK_COST = {
  sentence: 0, clause: 0.15, space: 0.3, cjkPhrase: 0.3, cjkWord: 0.45, thaiWord: 0.5, cjkCompound: 0.6, hyphen: 0.7,
  cjkWeakWord: 0.8, cjkChar: 0.9,
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
  for (let i = 1; i < gs.length; pos += gs[i]!.length, i++) {
    const prev = gs[i - 1]!;
    const cur = gs[i]!;
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
        const before = segments[k - 1]!.text;
        const here = segments[k]!.text;
        const after = segments[k + 1]?.text ?? '';
        const phraseStart = startsJaContent(here) || (JA_PREFIX.test(here) && startsJaContent(after));
        if (!phraseStart || JA_PREFIX.test(before)) cost = BREAK_COST.cjkWeakWord; // before a particle or inflection, after お/ご
        else if (jaScript(prev) === jaScript(cur) && jaScript(cur) !== 'hiragana') cost = BREAK_COST.cjkCompound; // アップ|ロード, 自動|翻訳
        else cost = BREAK_COST.cjkPhrase;
      } else {
        cost = ZH_CLITICS.has(segments[k]!.text[0]!) ? BREAK_COST.cjkWeakWord : BREAK_COST.cjkWord;
      }
    }
    out.push({ pos, cost });
  }
  return out;
}

/**
 * Longest-reasonable prefix of one sentence (no sentence boundary inside) within `budget` units. Each allowed
 * cut is scored by how much it drops relative to the longest fitting cut plus its break cost, so a comma or
 * a clause mark a little earlier beats a cut right after "and" or inside a Japanese phrase.
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
    const breaks = language === 'th'
      ? thaiWordBoundaries(sentence).map((pos) => ({ pos, cost: BREAK_COST.thaiWord }))
      : cjkBreaks(sentence, language);
    for (const b of breaks) {
      const units = countUnits(sentence.slice(0, b.pos), language);
      if (units > budget + EPSILON) break;
      candidates.push({ end: b.pos, units, cost: b.cost });
    }
  }
  const most = Math.max(0, ...candidates.map((c) => c.units));
  if (most === 0) return '';
  let best = candidates[0]!;
  let bestScore = Infinity;
  for (const c of candidates) {
    if (c.units === 0) continue;
    const score = 1 - c.units / most + c.cost;
    if (score <= bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return closeSentence(sentence.slice(0, best.end), language);
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
