/**
 * The section signals (lib/script/sections.ts): what sells scores above furniture, by shape in any language, and by
 * heading words in every supported language. Real pages are judged by the fixture sites' tests; these are the rules.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SUPPORTED_LANGUAGES } from '../../config/catalog';
import {
  bestSections,
  countDates,
  furnitureHeading,
  scoreSection,
  SECTION_SIGNALS,
  SHOWN_ABOVE,
  type SectionFeatures,
} from '../../lib/script/sections';

const section = (over: Partial<SectionFeatures>): SectionFeatures => ({
  index: 0,
  heading: 'A section',
  paragraphs: [],
  text: '',
  textChars: 0,
  linkChars: 0,
  smallImages: 0,
  largeMedia: 0,
  listItems: 0,
  times: 0,
  formFields: 0,
  quotes: 0,
  disclosures: 0,
  tokens: '',
  fontPx: 16,
  ...over,
});

const prose = (heading: string, paragraphs: string[], over: Partial<SectionFeatures> = {}) =>
  section({ heading, paragraphs, text: paragraphs.join(' '), textChars: paragraphs.join(' ').length, ...over });

const FEATURE = prose(
  'Close the books in hours, not weeks',
  ['Every transaction is matched the moment it lands in your bank feed. Month-end becomes a review, not a marathon.'],
  { largeMedia: 1 },
);

describe('the signals table', () => {
  test('every signal has a name, a weight and a meaning; names are unique', () => {
    expect(new Set(SECTION_SIGNALS.map((s) => s.name)).size).toBe(SECTION_SIGNALS.length);
    for (const s of SECTION_SIGNALS) {
      expect(s.weight).not.toBe(0);
      expect(s.meaning.length).toBeGreaterThan(10);
    }
  });

  test('the table in docs/video.md is the code’s table', () => {
    const doc = fs.readFileSync(path.join(__dirname, '../../docs/video.md'), 'utf8');
    for (const s of SECTION_SIGNALS) expect(doc).toContain(`| \`${s.name}\` | ${s.weight > 0 ? '+' : ''}${s.weight} | ${s.meaning} |`);
  });

  test('a feature with prose and a product screenshot scores well', () => {
    expect(scoreSection(FEATURE)).toMatchObject({ score: 6, signals: { prose: 4, product_media: 2 } });
  });

  test('a logo wall, whatever its heading says, is furniture', () => {
    const wall = section({
      heading: 'Trusted by 4,000 finance teams',
      smallImages: 12,
      text: 'Trusted by 4,000 finance teams',
      textChars: 30,
    });
    expect(scoreSection(wall).score).toBeLessThan(0);
    expect(scoreSection(wall).signals.logo_wall).toBe(-6);
  });

  test('a list of dated links (events, news) is furniture, in any language', () => {
    const events = section({
      heading: 'イベント情報',
      text: '2026年3月12日 ウェビナー：月次決算の自動化 2026年4月2日 東京ミートアップ 2026年5月20日 年次カンファレンス',
      textChars: 70,
      linkChars: 60,
      listItems: 3,
    });
    const scored = scoreSection(events);
    expect(scored.signals.dated_list).toBeLessThan(0);
    expect(scored.signals.link_list).toBeLessThan(0);
    expect(scored.score).toBeLessThan(0);
    expect(countDates('March 12, 2026 — Webinar. 2 avril 2026 : atelier. 12. März 2026')).toBe(3);
  });

  test('a newsletter form, an FAQ and a price table are furniture', () => {
    expect(
      scoreSection(section({ heading: 'Stay in the loop', formFields: 1, text: 'Get one email a month.', textChars: 22 })).score,
    ).toBeLessThan(0);
    expect(scoreSection(section({ heading: 'Questions?', disclosures: 6, text: 'How does it work?', textChars: 200 })).score).toBeLessThan(
      0,
    );
    expect(
      scoreSection(section({ heading: 'Plans for every team', text: '$0 Free $29 Team $99 Business', textChars: 200 })).score,
    ).toBeLessThan(1);
  });

  test('heading words name furniture in all 20 languages; feature headings that share a word are not caught', () => {
    const sponsors: Record<string, string> = {
      en: 'Our sponsors',
      ja: 'スポンサー',
      ko: '스폰서',
      zh: '赞助商',
      es: 'Patrocinadores',
      fr: 'Nos partenaires',
      de: 'Unsere Sponsoren',
      pt: 'Patrocinadores',
      it: 'I nostri sponsor',
      nl: 'Onze sponsors',
      pl: 'Sponsorzy',
      ru: 'Спонсоры',
      tr: 'Sponsorlar',
      ar: 'الرعاة',
      hi: 'प्रायोजक',
      id: 'Mitra kami',
      vi: 'Nhà tài trợ',
      th: 'ผู้สนับสนุน',
      sv: 'Sponsorer',
      uk: 'Спонсори',
    };
    expect(Object.keys(sponsors).sort()).toEqual([...SUPPORTED_LANGUAGES].sort());
    for (const [language, heading] of Object.entries(sponsors))
      expect({ language, hit: furnitureHeading(heading) }).toEqual({ language, hit: 1 });
    for (const heading of [
      'Upcoming events',
      'Latest news',
      'Frequently asked questions',
      'Pricing',
      'Support',
      'About us',
      'Sign in',
      'We value your privacy',
      'Cookie settings',
      'Careers',
      'Blog',
    ])
      expect(furnitureHeading(heading)).toBe(1);
    for (const heading of ['Support for every currency', 'Close the books in hours', 'Forecast cash with confidence'])
      expect(furnitureHeading(heading)).toBe(0);
  });

  test('a feature whose heading shares a furniture word still shows when its shape sells', () => {
    const eventsFeature = prose(
      'Events that trigger workflows',
      ['Any change in a ledger can start a workflow. Approvals reach the right person in seconds.'],
      {
        largeMedia: 1,
      },
    );
    expect(scoreSection(eventsFeature).score).toBeGreaterThan(0);
  });

  test('a section of one whole sentence scores alike in English, Japanese and Korean: a CJK sentence is not “empty”', () => {
    // The plainest translated page (test/fixtures/real-web/tally): one heading and one sentence per section. The
    // Japanese and Korean sentences have fewer characters than the English one, and say as much.
    const sections = [
      prose('Reconcile in minutes', ['Bank feeds match invoices automatically.']),
      prose('数分で照合', ['銀行の入出金データが請求書と自動で照合されます。']),
      prose('몇 분 만에 대사 완료', ['은행 거래 내역이 청구서와 자동으로 맞춰집니다.']),
    ];
    const scores = sections.map((s) => scoreSection(s));
    expect(scores.map((s) => s.signals)).toEqual([{ prose: 2 }, { prose: 2 }, { prose: 2 }]);
    expect(scores.every((s) => s.score > SHOWN_ABOVE)).toBe(true);
    // A heading over a few words is still empty, in any script.
    expect(scoreSection(prose('数分で照合', ['詳しくはこちら'])).signals).toMatchObject({ empty: -3 });
    expect(scoreSection(prose('Reconcile in minutes', ['Learn more'])).signals).toMatchObject({ empty: -3 });
  });

  test('bestSections: positive scores only, best first, ties to the earlier section, at most the count', () => {
    const sections = [
      section({ index: 0, heading: 'Trusted by', smallImages: 10 }),
      { ...FEATURE, index: 1 },
      prose('Reconcile automatically', ['Bank lines match their invoices without a click. Exceptions come to you with a suggestion.'], {
        index: 2,
      }),
      { ...FEATURE, index: 3, heading: 'Forecast cash' },
    ];
    expect(bestSections(sections).map((s) => s.index)).toEqual([1, 3, 2]);
    expect(bestSections(sections, 2).map((s) => s.index)).toEqual([1, 3]);
  });
});
