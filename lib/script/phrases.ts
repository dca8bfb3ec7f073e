/**
 * Fixed phrases of a narrated product demo video, per supported language, with each language's sentence
 * conventions and reading rate (used by lib/script/reading-rate.ts).
 *
 * The phrases are written the way a native speaker would say them in a short marketing video, not as
 * word-for-word translations of the English. Placeholders: {name} (product or site name) in `intro`, `answer`,
 * `benefit` and `number`; {domain} (site domain) in `callToAction`; {benefit} (a phrase of the page) in `question`
 * and `benefit`; {figure} (the page's words around one of its numbers) in `number` (lib/script/hooks.ts). The
 * phrases avoid grammar that would have to agree with the substituted name or phrase (Korean particles, Turkish
 * suffixes, gendered pronouns, Slavic cases), so any name, domain or page phrase slots in.
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
  /**
   * Hook openings (lib/script/hooks.ts, decisions §15): a question built from one of the page's benefits, said as
   * the page words it (an echo question: any phrase slots in, a noun phrase or a verb phrase); {benefit} = the
   * page's phrase. e.g. en "{benefit}?", ja "{benefit}？", es "¿{benefit}?". The page's own question is said as it is.
   */
  question: string;
  /** What follows the question and names the product; {name}. e.g. en "Then meet {name}." */
  answer: string;
  /** A benefit opening; {name}, {benefit} = one of the page's benefit phrases. e.g. en "With {name}: {benefit}." */
  benefit: string;
  /** A number opening; {figure} = the page's words around one of its numbers ("Trusted by 2,000+ teams"), {name}. */
  number: string;
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

export type PhraseKey = 'intro' | 'featuresLead' | 'callToAction' | 'ctaLabel' | 'question' | 'answer' | 'benefit' | 'number';

const latin = (rate: number): Pick<PhraseSet, 'fullStop' | 'sentenceSeparator' | 'readingRate' | 'unit' | 'direction'> => ({
  fullStop: '.',
  sentenceSeparator: ' ',
  readingRate: rate,
  unit: 'words',
  direction: 'ltr',
});

export const PHRASES: Record<LanguageCode, PhraseSet> = {
  en: {
    intro: 'Meet {name}.',
    featuresLead: "Here's what it can do.",
    callToAction: 'Try it today at {domain}.',
    ctaLabel: 'Start today',
    question: '{benefit}?',
    answer: 'Then meet {name}.',
    benefit: 'With {name}: {benefit}.',
    number: "{figure}: that's {name}.",
    ...latin(2.5),
  },
  ja: {
    intro: '{name}をご紹介します。',
    featuresLead: '主な機能を見ていきましょう。',
    callToAction: '今すぐ{domain}でお試しください。',
    ctaLabel: '今すぐ始める',
    question: '{benefit}？',
    answer: 'それなら{name}。',
    benefit: '{name}なら、{benefit}。',
    number: '{figure}。それが{name}です。',
    fullStop: '。',
    sentenceSeparator: '',
    readingRate: 7,
    unit: 'chars',
    direction: 'ltr',
  },
  ko: {
    // "{name}을/를 소개합니다" would need the particle to match the name's last syllable; this form needs none.
    intro: '{name}, 지금 만나보세요.',
    featuresLead: '어떤 기능이 있는지 살펴볼까요?',
    callToAction: '지금 바로 {domain}에서 시작해 보세요.',
    ctaLabel: '지금 시작하기',
    question: '{benefit}?',
    answer: '그렇다면 {name}, 지금 만나보세요.',
    benefit: '{benefit}, 바로 {name}입니다.',
    number: '{figure}. 이것이 {name}입니다.',
    fullStop: '.',
    sentenceSeparator: ' ',
    readingRate: 2.2,
    unit: 'words',
    direction: 'ltr',
  },
  zh: {
    intro: '来认识一下{name}。',
    featuresLead: '看看它能为你做些什么。',
    callToAction: '立即访问{domain}，开始体验。',
    ctaLabel: '立即开始',
    question: '{benefit}？',
    answer: '那就来认识一下{name}。',
    benefit: '有了{name}，{benefit}。',
    number: '{figure}，这就是{name}。',
    fullStop: '。',
    sentenceSeparator: '',
    readingRate: 4.5,
    unit: 'chars',
    direction: 'ltr',
  },
  es: {
    intro: 'Te presentamos {name}.',
    featuresLead: 'Descubre todo lo que puede hacer.',
    callToAction: 'Pruébalo hoy mismo en {domain}.',
    ctaLabel: 'Empieza hoy',
    question: '¿{benefit}?',
    answer: 'Entonces te presentamos {name}.',
    benefit: 'Con {name}: {benefit}.',
    number: '{figure}: así es {name}.',
    ...latin(2.6),
  },
  fr: {
    intro: 'Découvrez {name}.',
    featuresLead: "Voici tout ce qu'il peut faire pour vous.",
    callToAction: "Essayez-le dès aujourd'hui sur {domain}.",
    ctaLabel: 'Commencez maintenant',
    question: '{benefit} ?',
    answer: 'Alors découvrez {name}.',
    benefit: 'Avec {name} : {benefit}.',
    number: '{figure} : voilà {name}.',
    ...latin(2.6),
  },
  de: {
    intro: 'Entdecken Sie {name}.',
    featuresLead: 'Das sind die wichtigsten Funktionen.',
    callToAction: 'Testen Sie es noch heute auf {domain}.',
    ctaLabel: 'Jetzt starten',
    question: '{benefit}?',
    answer: 'Dann entdecken Sie {name}.',
    benefit: 'Mit {name}: {benefit}.',
    number: '{figure}: Das ist {name}.',
    ...latin(2.1),
  },
  pt: {
    intro: 'Conheça {name}.',
    featuresLead: 'Veja do que ele é capaz.',
    callToAction: 'Experimente hoje mesmo em {domain}.',
    ctaLabel: 'Comece agora',
    question: '{benefit}?',
    answer: 'Então conheça {name}.',
    benefit: 'Com {name}: {benefit}.',
    number: '{figure}: assim é {name}.',
    ...latin(2.6),
  },
  it: {
    intro: 'Ti presentiamo {name}.',
    featuresLead: 'Ecco cosa può fare per te.',
    callToAction: 'Provalo oggi stesso su {domain}.',
    ctaLabel: 'Inizia ora',
    question: '{benefit}?',
    answer: 'Allora scopri {name}.',
    benefit: 'Con {name}: {benefit}.',
    number: '{figure}: ecco {name}.',
    ...latin(2.6),
  },
  nl: {
    intro: 'Maak kennis met {name}.',
    featuresLead: 'Dit is wat het voor je kan doen.',
    callToAction: 'Probeer het vandaag nog op {domain}.',
    ctaLabel: 'Begin vandaag',
    question: '{benefit}?',
    answer: 'Maak dan kennis met {name}.',
    benefit: 'Met {name}: {benefit}.',
    number: '{figure}: dat is {name}.',
    ...latin(2.1),
  },
  pl: {
    intro: 'Poznaj {name}.',
    featuresLead: 'Zobacz, co potrafi.',
    callToAction: 'Wypróbuj już dziś na {domain}.',
    ctaLabel: 'Zacznij już dziś',
    question: '{benefit}?',
    answer: 'W takim razie poznaj {name}.',
    benefit: 'Oto {name}: {benefit}.',
    number: '{figure} — to właśnie {name}.',
    ...latin(2.1),
  },
  ru: {
    intro: 'Знакомьтесь: {name}.',
    featuresLead: 'Вот что вы получите.',
    callToAction: 'Попробуйте уже сегодня на сайте {domain}.',
    ctaLabel: 'Попробовать',
    question: '{benefit}?',
    answer: 'Тогда знакомьтесь: {name}.',
    benefit: 'Вот что даёт {name}: {benefit}.',
    number: '{figure} — это {name}.',
    ...latin(2.1),
  },
  tr: {
    // "{domain} adresinde" keeps the locative suffix off the domain itself (no vowel harmony needed).
    intro: 'Karşınızda {name}.',
    featuresLead: 'İşte sunduğu başlıca özellikler.',
    callToAction: 'Hemen bugün {domain} adresinde deneyin.',
    ctaLabel: 'Hemen başla',
    question: '{benefit}?',
    answer: 'O hâlde karşınızda {name}.',
    benefit: 'İşte {name}: {benefit}.',
    number: '{figure}: işte {name}.',
    ...latin(2.0),
  },
  ar: {
    intro: 'تعرّف على {name}.',
    featuresLead: 'إليك أبرز ما يقدّمه.',
    callToAction: 'جرّبه اليوم على {domain}.',
    ctaLabel: 'ابدأ الآن',
    question: '{benefit}؟',
    answer: 'إذن تعرّف على {name}.',
    benefit: 'مع {name}: {benefit}.',
    number: '{figure}، مع {name}.',
    fullStop: '.',
    sentenceSeparator: ' ',
    readingRate: 2.0,
    unit: 'words',
    direction: 'rtl',
  },
  hi: {
    intro: 'पेश है {name}।',
    featuresLead: 'आइए देखें, यह क्या-क्या कर सकता है।',
    callToAction: 'आज ही {domain} पर आज़माएँ।',
    ctaLabel: 'अभी शुरू करें',
    question: '{benefit}?',
    answer: 'तो पेश है {name}।',
    benefit: '{name} के साथ: {benefit}।',
    number: '{figure}: यही है {name}।',
    fullStop: '।',
    sentenceSeparator: ' ',
    readingRate: 2.3,
    unit: 'words',
    direction: 'ltr',
  },
  id: {
    intro: 'Perkenalkan, {name}.',
    featuresLead: 'Ini dia fitur-fitur unggulannya.',
    callToAction: 'Coba sekarang juga di {domain}.',
    ctaLabel: 'Mulai sekarang',
    question: '{benefit}?',
    answer: 'Kalau begitu, kenalan dengan {name}.',
    benefit: 'Bersama {name}: {benefit}.',
    number: '{figure}: itulah {name}.',
    ...latin(2.3),
  },
  vi: {
    intro: 'Xin giới thiệu {name}.',
    featuresLead: 'Cùng xem những tính năng nổi bật nhé.',
    callToAction: 'Dùng thử ngay hôm nay tại {domain}.',
    ctaLabel: 'Bắt đầu ngay',
    question: '{benefit}?',
    answer: 'Vậy thì hãy làm quen với {name}.',
    benefit: 'Với {name}: {benefit}.',
    number: '{figure}: đó chính là {name}.',
    ...latin(3.0),
  },
  th: {
    intro: 'ขอแนะนำ {name}',
    featuresLead: 'มาดูกันว่าทำอะไรได้บ้าง',
    callToAction: 'ทดลองใช้ได้แล้ววันนี้ที่ {domain}',
    ctaLabel: 'เริ่มเลย',
    question: '{benefit} ใช่ไหม',
    answer: 'ถ้าอย่างนั้น ขอแนะนำ {name}',
    benefit: 'ด้วย {name} {benefit}',
    number: '{figure} นี่คือ {name}',
    fullStop: '',
    sentenceSeparator: ' ',
    readingRate: 6,
    unit: 'chars',
    direction: 'ltr',
  },
  sv: {
    intro: 'Möt {name}.',
    featuresLead: 'Så här kan det hjälpa dig.',
    callToAction: 'Testa redan i dag på {domain}.',
    ctaLabel: 'Kom igång',
    question: '{benefit}?',
    answer: 'Möt då {name}.',
    benefit: 'Med {name}: {benefit}.',
    number: '{figure}: det är {name}.',
    ...latin(2.1),
  },
  uk: {
    intro: 'Знайомтеся: {name}.',
    featuresLead: 'Ось що ви отримаєте.',
    callToAction: 'Спробуйте вже сьогодні на сайті {domain}.',
    ctaLabel: 'Спробувати',
    question: '{benefit}?',
    answer: 'Тоді знайомтеся: {name}.',
    benefit: 'Ось що дає {name}: {benefit}.',
    number: '{figure} — це {name}.',
    ...latin(2.1),
  },
};

/** The phrase set of a supported language; throws RangeError for any other. */
export function phraseSet(language: LanguageCode): PhraseSet {
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
