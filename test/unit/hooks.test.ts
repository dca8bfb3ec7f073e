/**
 * Hook openings (lib/script/hooks.ts, decisions §15): on the fixture pages as the capture reads them (real Chromium:
 * test/fixtures/site in English, Japanese and Korean, test/fixtures/site2 in English and Japanese), through the
 * analysis and the writer, a campaign with 2 or 3 variants gets openings of different kinds whose narrations and
 * headlines differ, each made of the frame of the video's language and the page's own words in that language (every
 * number on the page), fitting the title scene and saying nothing a later scene says; one variant is today's title
 * scene. The 20 languages' frames, the figures a page offers, and the translator's words.
 */
import type { Browser } from 'puppeteer-core';
import type { LanguageCode } from '../../config/catalog';
import { DESKTOP, makePresentable, openPage, readText, type PageText } from '../../lib/capture/page-reader';
import { keyFacts, type CampaignPlanDocument, type CapturedText } from '../../lib/script/analyze';
import {
  chooseOpenings,
  hookOpening,
  withoutName,
  hookWords,
  openingSegments,
  pageFigures,
  type HookWords,
  type ScriptOpening,
} from '../../lib/script/hooks';
import { PHRASES } from '../../lib/script/phrases';
import { estimateSeconds } from '../../lib/script/reading-rate';
import type { Translator } from '../../lib/script/translate';
import { SCREEN_NARRATION_SECONDS, writeScript, type CapturedVariant, type ScriptDocument } from '../../lib/script/writer';
import { cutNarrationEnd, repeatedSentences, saysAgain } from '../../lib/quality/narration';
import { splitSentences } from '../../lib/text';
import { startFixtureSite, site2Url, type FixtureSite } from '../fixtures/site/server';
import { launchBrowser } from '../support/browser';

let site: FixtureSite;
let browser: Browser;
const pages: Record<string, { url: string; text: CapturedText; language: string | null }> = {};

const captured = (t: PageText): CapturedText => ({
  title: t.title,
  description: t.description,
  open_graph: t.openGraph,
  headings: t.headings,
  main_text: t.mainText,
  actions: t.actions,
  alternates: t.alternates,
  sections: t.sections ?? [],
  hero_paragraphs: t.heroParagraphs ?? [],
  list_items: t.listItems ?? [],
  brand_names: t.brandNames ?? [],
  credits: t.credits ?? [],
});

beforeAll(async () => {
  site = await startFixtureSite();
  browser = await launchBrowser();
  const urls = {
    acme: site.url('/'),
    'acme-ja': site.url('/ja/'),
    'acme-ko': site.url('/ko/'),
    slotwise: site2Url(site, 'en'),
    'slotwise-ja': site2Url(site, 'ja'),
    // A GitBook docs home (a note, then its topics as a nested list) in English and Japanese, a Chinese component
    // library (a feature list, a grid of components), and a demo home with one line in Chinese (test/fixtures/wild).
    switchyard: site.url('/wild/switchyard/'),
    'switchyard-ja': site.url('/wild/switchyard/ja/'),
    tilekit: site.url('/wild/tilekit/'),
    'tilekit-bare': site.url('/wild/tilekit/bare/'),
    // A book generator's docs home whose only words about its product are its topics.
    tracklist: site.url('/wild/tracklist/'),
  };
  for (const [key, url] of Object.entries(urls)) {
    const page = await browser.newPage();
    await openPage(page, url, DESKTOP, 30_000);
    await makePresentable(page);
    const text = await readText(page);
    pages[key] = { url, text: captured(text), language: text.language };
    await page.close();
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** The plan the analysis makes of a source page: the hero, then its three best sections, each shown on the language versions too. */
function planOf(key: string): CampaignPlanDocument {
  const { text, url } = pages[key];
  const facts = keyFacts(text, url, 'en');
  return {
    facts,
    scenes: [
      { feature: null, section: null, screenshotKey: 'k0', mobileScreenshotKey: null },
      ...facts.features.slice(0, 3).map((f, n) => ({
        feature: n,
        section: f.section,
        screenshotKey: `k${n + 1}`,
        mobileScreenshotKey: null,
        localized: Object.fromEntries(
          ['ja', 'ko'].map((l) => [l, { screenshotKey: `${l}${n}`, mobileScreenshotKey: null, section: f.section }]),
        ),
      })),
    ],
    targetSeconds: 30,
    sourceLanguage: 'en',
    brand: { themeColor: null, palette: [], iconUrls: [] },
  };
}

function variantsOf(key: string, languages: string[]): CapturedVariant[] {
  const source = pages[key];
  return [
    { variant: 'source', url: source.url, language: source.language, text: source.text },
    ...languages.map((l) => ({
      variant: l,
      url: pages[`${key}-${l}`].url,
      language: pages[`${key}-${l}`].language,
      text: pages[`${key}-${l}`].text,
    })),
  ];
}

/** Everything the page says, as one text without spaces (a line the layout runs together is the same words). */
const pageText = (text: CapturedText) =>
  [
    text.title,
    ...text.headings.map((h) => h.text),
    text.main_text,
    ...(text.hero_paragraphs ?? []),
    ...(text.sections ?? []).flatMap((s) => s.paragraphs),
    ...(text.list_items ?? []),
  ]
    .join('\n')
    .replace(/\s+/gu, '');
const onPage = (words: string, page: string) => page.includes(words.replace(/\s+/gu, ''));

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The frame of an opening's kind in `language`, as a pattern whose groups are its page words and its name. */
function frame(language: LanguageCode, kind: ScriptOpening['kind']): RegExp {
  const p = PHRASES[language];
  const separator = language === 'ja' || language === 'zh' ? '' : ' ';
  const template = { meet: p.intro, question: `${p.question}${separator}${p.answer}`, benefit: p.benefit, number: p.number }[kind];
  const pattern = template
    .split(/(\{\w+\})/)
    .map((part) => (/^\{\w+\}$/.test(part) ? `(?<${part.slice(1, -1)}>.+?)` : escape(part)))
    .join('');
  return new RegExp(`^${pattern}$`, 'u');
}

/** The page words an opening carries (its frame and the product's name taken off). */
function pageWordsOf(opening: ScriptOpening, language: LanguageCode, name: string): string[] {
  const match = frame(language, opening.kind).exec(opening.narration);
  expect(match).not.toBeNull();
  expect(match!.groups!.name).toBe(name);
  return Object.entries(match!.groups!)
    .filter(([group]) => group !== 'name')
    .map(([, words]) => words);
}

const narrationOf = (scene: { narration: Array<{ text: string }> }) => scene.narration.map((n) => n.text).join(' ');

/** The checks every opening of a script passes: its page words on the page, numbers too; it fits; it says nothing said later. */
function expectOpeningsOfPage(script: ScriptDocument, count: number, page: CapturedText, name: string) {
  const language = script.language;
  const text = pageText(page);
  const { openings } = script;
  expect(openings.map((o) => o.variant)).toEqual(['a', 'b', 'c'].slice(0, count));
  expect(new Set(openings.map((o) => o.kind)).size).toBe(count);
  expect(new Set(openings.map((o) => o.narration)).size).toBe(count);
  expect(new Set(openings.map((o) => o.headline)).size).toBe(count);
  // The title scene is variant a's.
  expect(script.title.onScreenText).toBe(openings[0].headline);
  expect(narrationOf(script.title)).toBe(openings[0].narration);
  const later = [...script.screens, script.closing].map(narrationOf);
  for (const opening of openings) {
    for (const words of pageWordsOf(opening, language, name))
      expect({ words, onPage: onPage(words, text) }).toEqual({ words, onPage: true });
    if (opening.kind !== 'meet') expect(onPage(opening.headline.replace(/[?？؟¿]/gu, ''), text)).toBe(true);
    for (const number of opening.narration.match(/\p{Nd}+/gu) ?? []) expect(text).toContain(number);
    expect(estimateSeconds(opening.narration.replace(name, 'Name'), language)).toBeLessThanOrEqual(SCREEN_NARRATION_SECONDS);
    expect(cutNarrationEnd(opening.narration, language)).toBeNull();
    // The product's name left out, as the writer compares (a docs page's hero scene may say only its name).
    for (const sentence of splitSentences(opening.narration.split(name).join(' '), language))
      for (const scene of later)
        for (const before of splitSentences(scene, language)) expect(saysAgain(sentence, before, language)).toBe(false);
    expect(repeatedSentences([opening.narration, ...later], language)).toEqual([]);
  }
}

describe('the fixture pages through the analysis and the writer', () => {
  test('one variant: the title scene as today, its one opening the meet line', async () => {
    const plan = planOf('acme');
    for (const language of ['en', 'ja', 'ko', 'de'] as const) {
      const today = await writeScript(language, plan, variantsOf('acme', ['ja', 'ko']));
      const one = await writeScript(language, plan, variantsOf('acme', ['ja', 'ko']), { variants: 1 });
      expect(one).toEqual(today);
      expect(one.openings).toEqual([
        { variant: 'a', kind: 'meet', narration: narrationOf(today.title), headline: today.title.onScreenText },
      ]);
      expect(narrationOf(one.title)).toBe(PHRASES[language].intro.replace('{name}', 'Acme Analytics'));
    }
  });

  test.each([
    ['acme', 'en', []],
    ['acme', 'ja', ['ja']],
    ['acme', 'ko', ['ko']],
    ['slotwise', 'en', []],
  ] as const)(
    '%s in %s: three openings, a question, a benefit and a number, from its page in that language',
    async (key, language, own) => {
      const plan = planOf(key);
      const script = await writeScript(language, plan, variantsOf(key, [...own]), { variants: 3 });
      expect(script.source).toBe('localized_page');
      expect(script.openings.map((o) => o.kind)).toEqual(['question', 'benefit', 'number']);
      const page = own.length ? pages[`${key}-${language}`].text : pages[key].text;
      expectOpeningsOfPage(script, 3, page, plan.facts.name);
      const two = await writeScript(language, plan, variantsOf(key, [...own]), { variants: 2 });
      expect(two.openings).toEqual(script.openings.slice(0, 2));
      expect(two.screens).toEqual(script.screens);
    },
  );

  test('the English page: the question its headline, the benefit its best section, the number its 2,000+ teams', async () => {
    const script = await writeScript('en', planOf('acme'), variantsOf('acme', []), { variants: 3 });
    expect(script.openings).toEqual([
      {
        variant: 'a',
        kind: 'question',
        narration: 'Dashboards your team will actually read? Then meet Acme Analytics.',
        headline: 'Dashboards your team will actually read?',
      },
      {
        variant: 'b',
        kind: 'benefit',
        narration: 'With Acme Analytics: Connect every source in minutes.',
        headline: 'Connect every source in minutes',
      },
      { variant: 'c', kind: 'number', narration: "Trusted by 2,000+ teams: that's Acme Analytics.", headline: 'Trusted by 2,000+ teams' },
    ]);
    const ja = await writeScript('ja', planOf('acme'), variantsOf('acme', ['ja']), { variants: 3 });
    expect(ja.openings[2]).toEqual({
      variant: 'c',
      kind: 'number',
      narration: '2,000 以上のチームが利用中。それがAcme Analyticsです。',
      headline: '2,000 以上のチームが利用中',
    });
  });

  test('Slotwise in Japanese: its main text runs its stats into their labels, its list items read them apart: the third opening is a stat as the list shows it', async () => {
    const plan = planOf('slotwise');
    const script = await writeScript('ja', plan, variantsOf('slotwise', ['ja']), { variants: 3 });
    expect(script.openings.map((o) => o.kind)).toEqual(['question', 'benefit', 'number']);
    expect(script.openings[2]).toEqual({
      variant: 'c',
      kind: 'number',
      narration: '4.9 / 5 平均評価。それがSlotwiseです。',
      headline: '4.9 / 5 平均評価',
    });
    expectOpeningsOfPage(script, 3, pages['slotwise-ja'].text, 'Slotwise');
    // "12,000社+導入企業" (the main text's, run together) is no figure; each list item's value and label are.
    expect(
      hookWords({ ...keyFacts(pages['slotwise-ja'].text, pages['slotwise-ja'].url, 'ja'), text: pages['slotwise-ja'].text }, 'ja').figures,
    ).toEqual(['4.9 / 5 平均評価', '70% 無断キャンセルの削減']);
  });

  test('a translated script: the openings carry the translation of the page words, in one more call', async () => {
    const calls: string[][] = [];
    const dictionary: Record<string, string> = {
      'Dashboards your team will actually read': 'Dashboards, die Ihr Team wirklich liest',
      // A translator's full stop is the frame's to add.
      'Connect every source in minutes': 'Jede Quelle in Minuten verbinden.',
      'Trusted by 2,000+ teams': 'Über 2.000 Teams vertrauen darauf',
    };
    const translator: Translator = {
      name: 'dictionary',
      async translate(texts) {
        calls.push(texts);
        return texts.map((t) => dictionary[t] ?? `[de] ${t}`);
      },
    };
    const plan = planOf('acme');
    const one = await writeScript('de', plan, variantsOf('acme', []), { translator });
    expect(calls).toHaveLength(1);
    expect(one.openings.map((o) => o.kind)).toEqual(['meet']);
    const script = await writeScript('de', plan, variantsOf('acme', []), { translator, variants: 3 });
    expect(calls).toHaveLength(3);
    expect(calls[2]).toEqual(expect.arrayContaining(Object.keys(dictionary)));
    expect(script.openings).toEqual([
      {
        variant: 'a',
        kind: 'question',
        narration: 'Dashboards, die Ihr Team wirklich liest? Dann entdecken Sie Acme Analytics.',
        headline: 'Dashboards, die Ihr Team wirklich liest?',
      },
      {
        variant: 'b',
        kind: 'benefit',
        narration: 'Mit Acme Analytics: Jede Quelle in Minuten verbinden.',
        headline: 'Jede Quelle in Minuten verbinden',
      },
      {
        variant: 'c',
        kind: 'number',
        narration: 'Über 2.000 Teams vertrauen darauf: Das ist Acme Analytics.',
        headline: 'Über 2.000 Teams vertrauen darauf',
      },
    ]);
  });
});

test("a language without its own page or a translator: the page's words said by the page's voice, the frame by the video's", async () => {
  const plan = planOf('acme');
  const script = await writeScript('de', plan, variantsOf('acme', []), { variants: 3 });
  expect(script.source).toBe('source_text');
  expect(script.openings.map((o) => o.kind)).toEqual(['question', 'benefit', 'number']);
  // Each opening carries the source page's words (the text a source_text script is made from).
  const text = pageText(pages.acme.text);
  for (const opening of script.openings)
    for (const words of pageWordsOf(opening, 'de', 'Acme Analytics')) expect(onPage(words, text)).toBe(true);
  expect(script.title.narration).toEqual([
    { text: 'Dashboards your team will actually read?', language: 'en' },
    { text: 'Dann entdecken Sie Acme Analytics.', language: 'de' },
  ]);
  expect(openingSegments(script.openings[1], 'de', 'en')).toEqual([
    { text: 'Mit Acme Analytics:', language: 'de' },
    { text: 'Connect every source in minutes.', language: 'en' },
  ]);
  expect(openingSegments(hookOpening('es', 'question', 'Dashboards', 'Acme'), 'es', 'en')).toEqual([
    { text: '¿Dashboards?', language: 'en' },
    { text: 'Entonces te presentamos Acme.', language: 'es' },
  ]);
  expect(openingSegments(hookOpening('ja', 'number', 'Trusted by 2,000+ teams', 'Acme'), 'ja', 'en')).toEqual([
    { text: 'Trusted by 2,000+ teams。', language: 'en' },
    { text: 'それがAcmeです。', language: 'ja' },
  ]);
  // The meet line, and words in the video's own language, are one segment.
  expect(openingSegments(script.openings[0], 'de', 'de')).toEqual([{ text: script.openings[0].narration, language: 'de' }]);
});

test("the page's own question is translated as a question and asked in the video's language", async () => {
  const plan = planOf('acme');
  const asking: CampaignPlanDocument = { ...plan, facts: { ...plan.facts, headline: 'Why do dashboards go unread?' } };
  const sent: string[] = [];
  const translator: Translator = {
    name: 'dictionary',
    async translate(texts) {
      sent.push(...texts);
      return texts.map((t) => (t === 'Why do dashboards go unread?' ? 'Warum bleiben Dashboards ungelesen?' : `[de] ${t}`));
    },
  };
  const script = await writeScript('de', asking, variantsOf('acme', []), { translator, variants: 2 });
  expect(sent).toContain('Why do dashboards go unread?');
  expect(script.openings[0]).toEqual({
    variant: 'a',
    kind: 'question',
    narration: 'Warum bleiben Dashboards ungelesen? Dann entdecken Sie Acme Analytics.',
    headline: 'Warum bleiben Dashboards ungelesen?',
  });
});

test("a translation that comes back outside the language's script is not said: the next kind, else the meet line", async () => {
  const translator: Translator = {
    name: 'partial',
    async translate(texts) {
      // Only the headline is translated; the rest comes back as it was sent, in English.
      return texts.map((t) => (t === 'Dashboards your team will actually read' ? 'チームが本当に読むダッシュボード' : t));
    },
  };
  const script = await writeScript('ja', planOf('acme'), variantsOf('acme', []), { translator, variants: 3 });
  expect(script.source).toBe('translated');
  expect(script.openings).toEqual([
    {
      variant: 'a',
      kind: 'question',
      narration: 'チームが本当に読むダッシュボード？それならAcme Analytics。',
      headline: 'チームが本当に読むダッシュボード？',
    },
    { variant: 'b', kind: 'meet', narration: 'Acme Analyticsをご紹介します。', headline: 'Acme Analytics' },
  ]);
});

describe('documentation sites and component libraries: no marketing feature grid', () => {
  /** The plan of a page in its own language: the hero, then its best sections (none on these pages). */
  const planIn = (key: string, language: LanguageCode): CampaignPlanDocument => {
    const facts = keyFacts(pages[key].text, pages[key].url, language);
    return {
      facts,
      scenes: [{ feature: null, section: null, screenshotKey: 'k0', mobileScreenshotKey: null }],
      targetSeconds: 30,
      sourceLanguage: language,
      brand: { themeColor: null, palette: [], iconUrls: [] },
    };
  };
  const source = (key: string): CapturedVariant => ({
    variant: 'source',
    url: pages[key].url,
    language: pages[key].language,
    text: pages[key].text,
  });

  test("a docs home's note is no value proposition, its topics are key points; its docs parts, identifiers and the note are not", () => {
    const en = keyFacts(pages.switchyard.text, pages.switchyard.url, 'en');
    expect(en.headline).toBe('switchyard');
    expect(en.features).toEqual([]);
    expect(en.valueProposition).not.toMatch(/Note|@/u);
    expect(en.points?.slice(0, 3)).toEqual(['Dynamic Track Matching', 'Nested Tracks', 'Named Signals']);
    for (const none of ['Installation', 'Getting Started', 'Essentials', 'Release Notes', 'API Reference', 'tracks', 'linkActiveClass'])
      expect(en.points).not.toContain(none);
    expect(en.points?.some((p) => /Note|TypeScript|Published/u.test(p))).toBe(false);
    const ja = keyFacts(pages['switchyard-ja'].text, pages['switchyard-ja'].url, 'ja');
    expect(ja.valueProposition).not.toMatch(/注意|@/u);
    expect(ja.points?.slice(0, 2)).toEqual(['動的トラックマッチング', 'ネストされたトラック']);
    for (const none of ['インストール', 'はじめに', '基本的な使い方', 'リリースノート', 'API リファレンス'])
      expect(ja.points).not.toContain(none);
    // The Chinese component library: its feature list, not its callout ("注意：…") nor its version.
    const zh = keyFacts(pages.tilekit.text, pages.tilekit.url, 'zh');
    expect(zh.points).toEqual(expect.arrayContaining(['支持按需引入', '支持主题定制']));
    expect(zh.points?.some((p) => /注意|Node/u.test(p))).toBe(false);
    // Half in English (a real Chinese page's "搜索相关 Search Bar"): the video's check would call its headline foreign.
    expect(zh.points).not.toContain('搜索相关 Search Bar');
    // A docs heading ("浏览器支持", browser support) is no point; a list item's leading emoji is its bullet.
    expect(zh.points).not.toContain('浏览器支持');
    expect(zh.points?.some((p) => /🍭/u.test(p))).toBe(false);
    expect(zh.valueProposition).toBe('轻量、可靠的移动端组件库');
  });

  test.each([
    ['switchyard', 'en', 'switchyard'],
    ['switchyard-ja', 'ja', 'switchyard'],
    ['tilekit', 'zh', 'TileKit'],
  ] as const)('%s in %s with variants 2: two different openings, each of the page words in its language', async (key, language, name) => {
    const script = await writeScript(language, planIn(key, language), [source(key)], { variants: 2 });
    expect(script.source).toBe('localized_page');
    expect(script.openings.map((o) => o.kind)).not.toContain('meet');
    expectOpeningsOfPage(script, 2, pages[key].text, name);
  });

  test("a docs home without a sentence about its product: its hero says the page's topics, not its name again", async () => {
    const script = await writeScript('en', planIn('tracklist', 'en'), [source('tracklist')]);
    const hero = script.screens[0].narration.map((s) => s.text).join(' ');
    // A real router library's docs home was "Meet vue-router." then, over its topics, "vue-router".
    expect(hero).not.toBe('tracklist');
    expect(hero).toMatch(/^Coupling Rules\. Sidings and Spurs\./u);
    expect(hero).not.toMatch(/Tip|Installation|Getting Started|coupleMode/u);
  });

  test('a demo home with one line in its language, said by the hero scene: one opening, the meet line, never the same one twice', async () => {
    const script = await writeScript('zh', planIn('tilekit-bare', 'zh'), [source('tilekit-bare')], { variants: 2 });
    expect(script.openings).toEqual([{ variant: 'a', kind: 'meet', narration: '来认识一下TileKit。', headline: 'TileKit' }]);
  });
});

describe('the frames in every language', () => {
  const LONG_NAME = 'Northwind Ledger Accounting Automation Platform Documentation';
  const LANGUAGES = Object.keys(PHRASES) as LanguageCode[];
  const END = /[.!?。！？।؟]$/u;

  test.each(LANGUAGES)('%s: each kind renders whole with a long name, a long phrase and a number', (language) => {
    const benefit = language === 'ja' ? 'チームが本当に読むダッシュボード' : 'Dashboards your whole team will actually read every week';
    const figure = language === 'ja' ? '10,000 以上のチームが利用中' : 'Trusted by 10,000+ teams in 99.9 % of cases';
    for (const [kind, words] of [
      ['question', benefit],
      ['benefit', benefit],
      ['number', figure],
    ] as const) {
      const opening = hookOpening(language, kind, words, LONG_NAME);
      for (const text of [opening.narration, opening.headline]) expect(text).not.toMatch(/[{}]/);
      expect(opening.narration).toContain(LONG_NAME);
      expect(opening.narration).toContain(words);
      expect(opening.narration).toMatch(frame(language, kind));
      if (language === 'th') expect(opening.narration).not.toMatch(/[.!?]$/);
      else expect(opening.narration).toMatch(END);
      expect(cutNarrationEnd(opening.narration, language)).toBeNull();
      if (kind === 'question') {
        expect(opening.headline).toContain(words);
        if (language !== 'th') expect(opening.headline).toMatch(language === 'ar' ? /؟$/u : /[?？]$/u);
        if (language === 'es') expect(opening.headline.startsWith('¿')).toBe(true);
      } else expect(opening.headline).toBe(words);
      // The question is one sentence, the product named in the next.
      if (kind === 'question' && language !== 'th') expect(splitSentences(opening.narration, language)).toHaveLength(2);
      if (kind === 'number') expect(opening.narration).toMatch(/10,000/);
    }
  });
});

describe('choosing the openings', () => {
  const words: HookWords = {
    questions: [],
    benefits: ['Dashboards your team will actually read', 'Connect every source in minutes', 'Dashboards that explain themselves'],
    figures: ['Trusted by 2,000+ teams'],
  };
  const base = { language: 'en' as const, name: 'Acme Analytics', words, later: [], seconds: SCREEN_NARRATION_SECONDS };

  test('one variant is the meet line; more are the kinds the page supports, in order, then the meet line', () => {
    expect(chooseOpenings({ ...base, count: 1 })).toEqual([
      { variant: 'a', kind: 'meet', narration: 'Meet Acme Analytics.', headline: 'Acme Analytics' },
    ]);
    expect(chooseOpenings({ ...base, count: 3 }).map((o) => o.kind)).toEqual(['question', 'benefit', 'number']);
    expect(chooseOpenings({ ...base, count: 3, words: { ...words, figures: [] } }).map((o) => o.kind)).toEqual([
      'question',
      'benefit',
      'meet',
    ]);
    expect(chooseOpenings({ ...base, count: 2, words: { questions: [], benefits: [], figures: [] } })).toEqual([
      { variant: 'a', kind: 'meet', narration: 'Meet Acme Analytics.', headline: 'Acme Analytics' },
    ]);
  });

  test("the page's own question is asked as it is, before a benefit asked back", () => {
    const [first] = chooseOpenings({ ...base, count: 2, words: { ...words, questions: ['Tired of dashboards nobody opens'] } });
    expect(first).toEqual({
      variant: 'a',
      kind: 'question',
      narration: 'Tired of dashboards nobody opens? Then meet Acme Analytics.',
      headline: 'Tired of dashboards nobody opens?',
    });
  });

  test('an opening never says what a later scene says: the next phrase of its kind is taken', () => {
    const later = [{ text: 'Dashboards your team will actually read. Everyone sees the same numbers.', language: 'en' as const }];
    const openings = chooseOpenings({ ...base, count: 2, later });
    expect(openings[0].narration).toBe('Connect every source in minutes? Then meet Acme Analytics.');
    expect(openings[1].narration).toBe('With Acme Analytics: Dashboards that explain themselves.');
  });

  test("an opening fits the title scene's reading time: a phrase too long to say is passed over, a long name is not", () => {
    const long = 'Dashboards for product, billing, CRM, support, finance, marketing, sales and every other team you have';
    const openings = chooseOpenings({ ...base, count: 2, words: { ...words, benefits: [long, ...words.benefits] } });
    expect(openings.every((o) => !o.narration.includes(long))).toBe(true);
    const longName = 'Northwind Ledger Accounting Automation Platform Documentation Hub for Finance and Reporting Teams Worldwide';
    expect(chooseOpenings({ ...base, name: longName, count: 3 }).map((o) => o.kind)).toEqual(['question', 'benefit', 'number']);
  });
});

describe("the page's figures", () => {
  test('a number with its words, never a time, a year, a version, a step number or a stat run into its label', () => {
    expect(
      pageFigures(
        [
          'Trusted by 2,000+ teams',
          'A weekly digest, posted every Monday at 9:00.',
          '© 2026 Acme Analytics, Inc.',
          'Data is encrypted with AES-256 at rest.',
          'SOC 2 Type II and GDPR',
          '3 minto set up',
          '12,000+businesses',
          '24/7online rescheduling',
          '12,000社+導入企業',
          '22日前道順と持ち物',
          // A plain count or a price on a line of its own: a rank, a code sample's caption, a price table.
          'Top 10 routes by revenue',
          '$290 / month',
        ],
        ['Start from 40 ready-made templates.', 'Free for 14 days.', 'and then 99.9% uptime', 'Plans start at $9 a month.'],
        'en',
      ),
    ).toEqual([
      'Trusted by 2,000+ teams',
      '12,000+ businesses',
      '24/7 online rescheduling',
      'Start from 40 ready-made templates',
      'Free for 14 days',
      'Plans start at $9 a month',
    ]);
    // Japanese writes a number against its words in a sentence; a sentence too long to open with is passed over.
    expect(
      pageFigures([], ['無断キャンセルを最大70%減らせます。', 'SMSとメールの自動リマインドで、無断キャンセルを最大70%減らせます。'], 'ja'),
    ).toEqual(['無断キャンセルを最大70%減らせます']);
    expect(pageFigures(['12,000社+導入企業', '70%無断キャンセルの削減', '2,000 以上のチームが利用中'], [], 'ja')).toEqual([
      '2,000 以上のチームが利用中',
    ]);
  });

  test("the product's name is the frame's to say: a phrase led by it loses it, one that names it elsewhere is none", () => {
    expect(withoutName('Quarry: query any file with SQL', 'Quarry', 'en')).toBe('Query any file with SQL');
    expect(withoutName('Lumen, the calm reader for the web', 'Lumen', 'en')).toBe('The calm reader for the web');
    expect(withoutName('Tome turns Markdown folders into documentation', 'Tome', 'en')).toBeNull();
    expect(withoutName('Acme Analytics', 'Acme Analytics', 'en')).toBeNull();
    expect(withoutName('Connect every source in minutes', 'Acme', 'en')).toBe('Connect every source in minutes');
    expect(withoutName('Lumen，安静的网页阅读器', 'Lumen', 'zh')).toBe('安静的网页阅读器');
  });

  test("a page's words: its headline and headings as benefits, its own questions, its figures", () => {
    const words = hookWords(
      {
        name: 'Acme',
        headline: 'Why do dashboards go unread?',
        features: [{ title: 'Connect every source in minutes' }, { title: 'Pricing' }, { title: 'Acme' }],
        text: {
          title: 'Acme',
          description: null,
          open_graph: {},
          // A question of the page's furniture is not the page's question.
          headings: [
            { level: 1, text: 'Why do dashboards go unread?' },
            { level: 2, text: 'Was this page helpful?' },
          ],
          main_text: 'Trusted by 2,000+ teams',
        },
      },
      'en',
    );
    expect(words).toEqual({
      questions: ['Why do dashboards go unread'],
      benefits: ['Connect every source in minutes'],
      figures: ['Trusted by 2,000+ teams'],
    });
  });
});
