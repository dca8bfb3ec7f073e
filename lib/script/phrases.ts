/**
 * Fixed phrases of a narrated product demo video, per supported language, with each language's sentence
 * conventions and reading rate (used by lib/script/reading-rate.ts).
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
    ...latin(2.5),
  },
  ja: {
    intro: '{name}をご紹介します。',
    featuresLead: '主な機能を見ていきましょう。',
    callToAction: '今すぐ{domain}でお試しください。',
    ctaLabel: '今すぐ始める',
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
