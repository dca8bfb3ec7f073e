/**
 * Which sections of a page sell the product, as data: the capture reads each section's features in the browser
 * (lib/capture/page-reader.ts readSections), and this table of weighted signals scores them. A section is shown
 * and narrated only when its score is positive; the best ones, shown in page order, make a video's screens.
 *
 * Why a table of signals and not a list of words: furniture is recognized first by its shape, in any language
 * (a wall of small logos, a list of dated links, a form, questions that fold open, a list that is mostly links),
 * and what sells by its shape too (prose about the product, a product screenshot, figures and quotes). Heading
 * words are one signal among them, in all 20 supported languages, so a feature titled "Events that trigger
 * workflows" still shows while "Upcoming events" does not.
 */
import { SUPPORTED_LANGUAGES } from '../../config/catalog';

/** What the browser reads of one section of the page (the element around an <h2> that holds no other). */
export interface SectionFeatures {
  /** Position among the page's section headings, in page order, from 0. */
  index: number;
  heading: string;
  /** The section's prose, in order: paragraphs, quotes, definitions and long list items, spaces folded. */
  paragraphs: string[];
  /** The section's visible text without its heading (spaces folded, at most 1,500 characters). */
  text: string;
  /** Characters of the section's visible text, and of the part inside links and buttons. */
  textChars: number;
  linkChars: number;
  /** Logo-sized images (at most 240 × 160 CSS px), and large media (screenshots, charts, video: 320 × 180 and more). */
  smallImages: number;
  largeMedia: number;
  listItems: number;
  /** <time> elements, form fields, quotes, and folding questions (<details>). */
  times: number;
  formFields: number;
  quotes: number;
  disclosures: number;
  /** ids, classes and roles of the section and its heading, lowercased. */
  tokens: string;
  /** Median CSS font size of its text (0 when it has none). */
  fontPx: number;
}

/** One signal: a measure of a section between 0 and 1, and its weight in the score. */
export interface SectionSignal {
  name: string;
  weight: number;
  /** What it means, for the table in docs/video.md and for a reader of a score. */
  meaning: string;
  measure(section: SectionFeatures): number;
}

// ---------------------------------------------------------------------------------------------------------
// Words of page furniture, in every supported language

/**
 * Headings of furniture by concept, in the 20 supported languages. `contains`: a heading that holds one of
 * these words ("Upcoming events", "Our sponsors"); `exact`: a heading that is only the word ("Support",
 * "Resources"), since the same word starts many feature headings ("Support for every currency").
 */
// prettier-ignore
const FURNITURE_WORDS: { contains: string[]; exact: string[] } = {
  contains: [
    // sponsors and partners
    'sponsor', 'sponsors', 'partners', 'スポンサー', 'パートナー', '스폰서', '후원', '파트너', '赞助', '合作伙伴', 'patrocinador',
    'patrocinadores', 'partenaires', 'mécènes', 'sponsoren', 'parceiros', 'sponsorzy', 'partnerzy', 'спонсоры',
    'партнёры', 'партнеры', 'sponsorlar', 'الرعاة', 'الشركاء', 'प्रायोजक', 'mitra', 'nhà tài trợ', 'ผู้สนับสนุน',
    'พันธมิตร', 'sponsorer', 'спонсори', 'партнери',
    // events
    'events', 'upcoming', 'meetups', 'webinars', 'conferences', 'イベント', '勉強会', '이벤트', '행사', '活动', 'eventos',
    'événements', 'veranstaltungen', 'termine', 'eventi', 'evenementen', 'wydarzenia', 'мероприятия', 'события',
    'etkinlikler', 'الفعاليات', 'الأحداث', 'कार्यक्रम', 'acara', 'sự kiện', 'กิจกรรม', 'evenemang', 'заходи', 'події',
    // news, blog, press, changelog
    'news', 'blog', 'press', 'announcements', 'changelog', 'release notes', 'ニュース', 'お知らせ', 'ブログ', '更新履歴', '뉴스', '소식',
    '블로그', '공지', '新闻', '博客', '动态', '公告', '更新日志', 'noticias', 'prensa', 'novedades', 'actualités', 'presse',
    'nouveautés', 'neuigkeiten', 'aktuelles', 'notícias', 'imprensa', 'novidades', 'notizie', 'stampa', 'novità',
    'nieuws', 'aktualności', 'wiadomości', 'новости', 'блог', 'haberler', 'duyurular', 'الأخبار', 'المدونة', 'समाचार',
    'ब्लॉग', 'berita', 'tin tức', 'ข่าว', 'บล็อก', 'nyheter', 'blogg', 'новини',
    // newsletter
    'newsletter', 'subscribe', 'ニュースレター', '購読', '뉴스레터', '구독', '订阅', 'boletín', 'suscríbete', 'abonnez', 'abonnieren',
    'boletim', 'inscreva', 'iscriviti', 'nieuwsbrief', 'subskrybuj', 'рассылка', 'подпишитесь', 'bülten', 'abone',
    'النشرة', 'न्यूज़लेटर', 'berlangganan', 'bản tin', 'จดหมายข่าว', 'nyhetsbrev', 'розсилка',
    // pricing
    'pricing', 'prices', '料金', '価格', '요금', '가격', '价格', '定价', 'precios', 'tarifs', 'preise', 'preços', 'prezzi',
    'prijzen', 'cennik', 'цены', 'тарифы', 'fiyatlandırma', 'fiyatlar', 'الأسعار', 'मूल्य', 'harga', 'bảng giá',
    'ราคา', 'priser', 'ціни', 'тарифи',
    // questions
    'faq', 'frequently asked', 'よくある質問', 'よくあるご質問', '자주 묻는 질문', '常见问题', 'preguntas frecuentes', 'questions fréquentes',
    'foire aux questions', 'häufige fragen', 'häufig gestellte', 'perguntas frequentes', 'domande frequenti',
    'veelgestelde vragen', 'najczęściej zadawane', 'частые вопросы', 'вопросы и ответы', 'sık sorulan',
    'الأسئلة الشائعة', 'अक्सर पूछे', 'pertanyaan umum', 'câu hỏi thường gặp', 'คำถามที่พบบ่อย', 'vanliga frågor',
    'поширені запитання',
    // careers, contact, legal
    'careers', 'jobs', 'contact us', 'cookie', 'cookies', 'privacy', 'お問い合わせ', '採用', 'プライバシー', '利用規約', '문의', '채용',
    '개인정보', '이용약관', '联系我们', '招聘', '隐私', 'contacto', 'empleo', 'privacidad', 'carrières', 'confidentialité', 'karriere',
    'datenschutz', 'impressum', 'contato', 'carreiras', 'privacidade', 'contatti', 'lavora con noi', 'vacatures',
    'kariera', 'prywatność', 'контакты', 'вакансии', 'конфиденциальность', 'iletişim', 'kariyer', 'gizlilik',
    'اتصل بنا', 'الوظائف', 'الخصوصية', 'संपर्क', 'गोपनीयता', 'karier', 'privasi', 'liên hệ', 'tuyển dụng', 'ติดต่อ',
    'ความเป็นส่วนตัว', 'karriär', 'integritet', 'контакти', 'вакансії',
  ],
  exact: [
    'product', 'products', 'company', 'legal', 'resources', 'support', 'contact', 'about', 'about us', 'terms', 'menu',
    'navigation', 'sign in', 'log in', 'community', 'sitemap', 'plans', 'follow us', 'social', '会社概要', '회사 소개', '关于我们',
    'sobre nosotros', 'à propos', 'über uns', 'sobre nós', 'chi siamo', 'over ons', 'o nas', 'о нас', 'hakkımızda',
    'من نحن', 'हमारे बारे में', 'tentang kami', 'về chúng tôi', 'เกี่ยวกับเรา', 'om oss', 'про нас',
  ],
};

const fold = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
const CONTAINS = FURNITURE_WORDS.contains.map(fold);
const EXACT = new Set(FURNITURE_WORDS.exact.map(fold));
/** Scripts written without spaces between words: a term there is found anywhere in the heading. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** 1 when a heading names page furniture in one of the supported languages ("Upcoming events", "Our sponsors"). */
export function furnitureHeading(heading: string): number {
  const h = fold(heading);
  if (EXACT.has(h.replace(/[:.!?。]+$/u, ''))) return 1;
  for (const term of CONTAINS) {
    if (UNSPACED.test(term) || /[\s]/.test(term)) {
      if (h.includes(term)) return 1;
    } else if (new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(term)}($|[^\\p{L}\\p{N}])`, 'u').test(h)) return 1;
  }
  return 0;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Classes and ids that page builders give furniture. */
const FURNITURE_TOKENS =
  /(^|[\s_-])(sponsors?|partners?|logos?|logo-(wall|grid|cloud|strip)|events?|meetups?|news|blog|press|newsletter|subscribe|footer|cookie|consent|announcement|promo|faq|pricing|changelog|breadcrumbs?|sidebar|pagination|pager)($|[\s_-])/;

// ---------------------------------------------------------------------------------------------------------
// Dates, in every supported language

/** Month names (long and short) of every supported language, from the runtime's own locale data. */
const MONTHS = (() => {
  const names = new Set<string>();
  for (const language of SUPPORTED_LANGUAGES) {
    for (const month of ['long', 'short'] as const) {
      const format = new Intl.DateTimeFormat(language, { month });
      for (let m = 0; m < 12; m += 1) {
        const name = fold(format.format(new Date(Date.UTC(2024, m, 15))).replace(/[.]/g, ''));
        // Numeric "month names" (ja "1月", zh "1月", ko "1월") are caught by DATE_PATTERN.
        if (name.length >= 3 && !/\d/.test(name)) names.add(name);
      }
    }
  }
  return [...names];
})();
const MONTH_PATTERN = new RegExp(
  `(^|[^\\p{L}])(${MONTHS.map(escapeRegExp).join('|')})[.]?\\s*\\d{1,2}\\b|\\b\\d{1,2}\\.?\\s*(${MONTHS.map(escapeRegExp).join('|')})($|[^\\p{L}])`,
  'gu',
);
/** Numeric dates (2026-03-12, 12/03/2026, 12.03.2026) and CJK dates (2026年3月12日, 3月12日, 3월 12일). */
const DATE_PATTERN =
  /\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b|\d{1,2}\s*月\s*\d{1,2}\s*日|\d{1,2}\s*월\s*\d{1,2}\s*일/gu;

/** How many dates a text holds, in any supported language. */
export function countDates(text: string): number {
  const folded = fold(text);
  return (folded.match(MONTH_PATTERN)?.length ?? 0) + (folded.match(DATE_PATTERN)?.length ?? 0);
}

/** Prices: a currency sign or code next to a number ($29, 29 €, ¥3,000, USD 29). */
const PRICE = /[$€£¥₩₹₽₺]\s?\d|\d\s?[$€£¥₩₹₽₺]|\b(usd|eur|gbp|jpy)\s?\d|\d+\s?(円|元|원)(?!\p{L})/giu;
/** Proof: a percentage, a multiplier or a large figure ("92%", "10×", "4,000"). */
const FIGURE = /\d+(?:[.,]\d+)?\s?(%|×|x\b)|\b\d{1,3}(?:[,.\s]\d{3})+\b|\d+\s?[kKmM]\+/gu;

// ---------------------------------------------------------------------------------------------------------
// Prose

/** Letters and digits in a text; a sentence of the page counts as prose from 24 of them (about 5 words, 12 CJK characters × 2). */
const letters = (text: string) => (text.match(/[\p{L}\p{N}]/gu) ?? []).length;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/gu;
/** A CJK or Thai character carries about as much as two Latin letters. */
const weight = (text: string) => letters(text) + (text.match(CJK)?.length ?? 0);

/** The sentences of a section's prose that say something: whole sentences of 24 letters or more. */
export function proseSentences(section: Pick<SectionFeatures, 'paragraphs' | 'heading'>): string[] {
  const heading = fold(section.heading);
  return section.paragraphs
    .flatMap((p) => p.split(/(?<=[.!?…।؟])\s+|(?<=[。！？])/u))
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => weight(s) >= 24 && fold(s) !== heading);
}

// ---------------------------------------------------------------------------------------------------------
// The table

const share = (part: number, whole: number) => (whole > 0 ? part / whole : 0);
const atLeast = (value: number, full: number) => Math.min(1, Math.max(0, value / full));

export const SECTION_SIGNALS: SectionSignal[] = [
  {
    name: 'prose',
    weight: 4,
    meaning: 'sentences about the product (two or more whole sentences count fully)',
    measure: (s) => atLeast(proseSentences(s).length, 2),
  },
  {
    name: 'product_media',
    weight: 2,
    meaning: 'a large image, chart or video: a screenshot of the product',
    measure: (s) => (s.largeMedia > 0 ? 1 : 0),
  },
  {
    name: 'proof',
    weight: 1,
    meaning: 'figures (92 %, 4,000 teams) and quotes from customers',
    measure: (s) => atLeast(s.quotes + (s.text.match(FIGURE)?.length ?? 0), 2),
  },
  {
    name: 'logo_wall',
    weight: -6,
    meaning: 'a wall of small logos with little prose: sponsors, partners, "trusted by"',
    measure: (s) => (s.smallImages >= 5 && s.smallImages > proseSentences(s).length * 2 ? 1 : 0),
  },
  {
    name: 'link_list',
    weight: -4,
    meaning: 'text that is mostly links: news, navigation, link columns',
    measure: (s) => atLeast(share(s.linkChars, s.textChars) - 0.3, 0.3),
  },
  {
    name: 'dated_list',
    weight: -5,
    meaning: 'a list of dated entries: events, news, changelogs',
    measure: (s) => atLeast(s.times + countDates(s.text) - 1, 2),
  },
  {
    name: 'form',
    weight: -4,
    meaning: 'a form to fill in: newsletter, sign-in, contact',
    measure: (s) => (s.formFields > 0 ? 1 : 0),
  },
  {
    name: 'questions',
    weight: -4,
    meaning: 'questions that fold open: an FAQ',
    measure: (s) => atLeast(s.disclosures - 1, 2),
  },
  {
    name: 'prices',
    weight: -3,
    meaning: 'a price table',
    measure: (s) => atLeast((s.text.match(PRICE)?.length ?? 0) - 1, 2),
  },
  {
    name: 'furniture_heading',
    weight: -4,
    meaning: 'a heading that names furniture in one of the 20 languages ("Upcoming events", "スポンサー")',
    measure: (s) => furnitureHeading(s.heading),
  },
  {
    name: 'furniture_markup',
    weight: -2,
    meaning: 'classes and ids page builders give furniture (sponsors, events, news, footer, faq…)',
    measure: (s) => (FURNITURE_TOKENS.test(s.tokens) ? 1 : 0),
  },
  {
    name: 'empty',
    weight: -3,
    meaning: 'almost no text: a heading over nothing, or a picture alone',
    // Counted as prose is (a CJK or Thai character as two letters): a whole Japanese or Korean sentence of 24
    // characters says as much as an English one of 40, and its section is no emptier than the English one.
    measure: (s) => (s.textChars + (s.text.match(CJK)?.length ?? 0) < 40 && s.largeMedia === 0 ? 1 : 0),
  },
];

export interface RankedSection {
  index: number;
  heading: string;
  score: number;
  /** Each signal that fired, with its weighted share of the score. */
  signals: Record<string, number>;
}

/** A section's score under the table, with the signals that made it. */
export function scoreSection(section: SectionFeatures): RankedSection {
  const signals: Record<string, number> = {};
  let score = 0;
  for (const signal of SECTION_SIGNALS) {
    const value = signal.measure(section) * signal.weight;
    if (value !== 0) signals[signal.name] = Math.round(value * 100) / 100;
    score += value;
  }
  return { index: section.index, heading: section.heading, score: Math.round(score * 100) / 100, signals };
}

/** A section is worth a scene when it scores above this. */
export const SHOWN_ABOVE = 0.5;

/**
 * The sections worth a scene, best first (a tie goes to the earlier section), at most `count`; each scores
 * above SHOWN_ABOVE. Shown in page order by the caller.
 */
export function bestSections(sections: SectionFeatures[], count = Infinity): RankedSection[] {
  return sections
    .map(scoreSection)
    .filter((s) => s.score > SHOWN_ABOVE)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, Math.max(0, count));
}

/** Where a section is on the page, in viewport heights from its top (bottom absent on older captures). */
export interface SectionPlace {
  topScreens: number;
  bottomScreens?: number;
}

/**
 * The sections a capture shoots: the best ones (bestSections), at most `count`, in page order. Left out: a section
 * whose top is on the first screen (`topScreens` below `heroScreens`), which the top of the page's shot already
 * shows, and a section that shares most of its screen with a better one (cards side by side in one row): a
 * second scene of them would show the same screen again.
 */
export function sectionsToShoot(sections: Array<SectionFeatures & SectionPlace>, count: number, heroScreens = 0.8): number[] {
  const byIndex = new Map(sections.map((s) => [s.index, s]));
  const chosen: Array<SectionFeatures & SectionPlace> = [];
  for (const ranked of bestSections(sections.filter((s) => s.topScreens >= heroScreens))) {
    if (chosen.length >= count) break;
    const section = byIndex.get(ranked.index)!;
    if (chosen.some((other) => sameScreen(section, other))) continue;
    chosen.push(section);
  }
  return chosen.map((s) => s.index).sort((a, b) => a - b);
}

/** Whether two sections' vertical spans overlap by more than half of the shorter one. */
function sameScreen(a: SectionPlace, b: SectionPlace): boolean {
  const bottom = (s: SectionPlace) => s.bottomScreens ?? s.topScreens + 0.5;
  const overlap = Math.min(bottom(a), bottom(b)) - Math.max(a.topScreens, b.topScreens);
  const shorter = Math.min(bottom(a) - a.topScreens, bottom(b) - b.topScreens);
  return overlap > 0 && overlap > shorter / 2;
}
