/**
 * The extractive script writer (lib/script/writer.ts): the opening and closing lines read whole in every supported
 * language for names of any length ("<Product> Documentationを。"), and a scene says whole sentences of
 * the page, never one cut short.
 */
import { SUPPORTED_LANGUAGES } from '../../config/catalog';
import { ChatScriptModel } from '../../lib/script/model-writer';
import { startOpenAIImitation, type OpenAIImitation } from '../support/openai-imitation';
import { makersIn, productName, supportedPageLanguage, type CampaignPlanDocument, type CapturedText } from '../../lib/script/analyze';
import { PHRASES, phrase } from '../../lib/script/phrases';
import { estimateSeconds } from '../../lib/script/reading-rate';
import { narrationFrom, shortenNarration, writeScript, type CapturedVariant } from '../../lib/script/writer';
import { endsWithSentenceTerminator } from '../../lib/text';

const LONG_NAME = 'Northwind Ledger Accounting Automation Platform Documentation';
const LONG_DOMAIN = 'docs.northwind-ledger-accounting.example.com';

const text = (title: string): CapturedText => ({
  title,
  description: null,
  open_graph: {},
  headings: [{ level: 1, text: 'Accounting that closes itself' }],
  main_text: 'Accounting that closes itself.',
});

const plan: CampaignPlanDocument = {
  facts: {
    name: LONG_NAME,
    domain: LONG_DOMAIN,
    headline: 'Accounting that closes itself',
    valueProposition: 'Northwind Ledger reconciles every account overnight. Your team reviews exceptions instead of spreadsheets.',
    features: [
      {
        title: 'Close the books in hours, not weeks',
        detail: 'Every transaction is matched the moment it lands.',
        sentences: ['Every transaction is matched the moment it lands.', 'Month-end becomes a review, not a marathon.'],
        section: 2,
      },
    ],
    callToAction: 'Start free trial',
  },
  scenes: [
    { feature: null, section: null, screenshotKey: 'k0', mobileScreenshotKey: null },
    { feature: 0, section: 2, screenshotKey: 'k1', mobileScreenshotKey: null },
  ],
  targetSeconds: 25,
  sourceLanguage: 'en',
  brand: { themeColor: null, palette: [], iconUrls: [] },
};
const source: CapturedVariant = { variant: 'source', url: `https://${LONG_DOMAIN}/`, language: 'en', text: text(LONG_NAME) };

describe('opening and closing lines', () => {
  test.each([...SUPPORTED_LANGUAGES])('%s: whole, with a long name and a long domain', async (language) => {
    const script = await writeScript(language, plan, [source]);
    const [before, after] = PHRASES[language].intro.split('{name}');
    const intro = script.title.narration[0].text;
    // The phrase around the name is there in full (not cut to a dangling particle), the name whole inside it.
    expect(intro).toBe(phrase(language, 'intro', { name: LONG_NAME }));
    expect(intro.startsWith(before.trim())).toBe(true);
    expect(intro.endsWith(after.trim())).toBe(true);
    expect(intro).toContain(LONG_NAME);
    expect(script.title.narration[0].language).toBe(language);
    expect(script.closing.narration[0].text).toBe(phrase(language, 'callToAction', { domain: LONG_DOMAIN }));
    expect(script.closing.narration[0].text).toContain(LONG_DOMAIN);
    // Without a page or translator in that language the scenes are the page's own words in its language.
    if (language !== 'en') expect(script.source).toBe('source_text');
  });
});

describe('hook openings (variants 3) with a long name', () => {
  test.each([...SUPPORTED_LANGUAGES])('%s: a question and a benefit from the page, then the meet line, each whole', async (language) => {
    const script = await writeScript(language, plan, [source], { variants: 3 });
    // English is the page's own language: its hero says its headline, so the question asks its section's heading
    // and nothing is left for a benefit (two openings, not three: never the same one twice).
    expect(script.openings.map((o) => [o.variant, o.kind])).toEqual(
      language === 'en'
        ? [
            ['a', 'question'],
            ['b', 'meet'],
          ]
        : [
            ['a', 'question'],
            ['b', 'benefit'],
            ['c', 'meet'],
          ],
    );
    for (const opening of script.openings) {
      expect(opening.narration).toContain(LONG_NAME);
      expect(opening.narration).not.toMatch(/[{}]/);
      if (language === 'th') expect(opening.narration).not.toMatch(/[.!?]$/);
      else expect(endsWithSentenceTerminator(opening.narration)).toBe(true);
    }
    if (language === 'en') {
      expect(script.openings[0].narration).toBe(`Close the books in hours, not weeks? Then meet ${LONG_NAME}.`);
      expect(script.openings[1].narration).toBe(`Meet ${LONG_NAME}.`);
      return;
    }
    expect(script.openings[0].narration).toContain('Accounting that closes itself');
    expect(script.openings[1].headline).toBe('Close the books in hours, not weeks');
    expect(script.openings[2].narration).toBe(phrase(language, 'intro', { name: LONG_NAME }));
    // The title scene is variant a's: the page's words said by the page's voice, the frame and the name by the video's.
    expect(script.title.onScreenText).toBe(script.openings[0].headline);
    expect(script.title.narration.map((n) => n.text).join(language === 'ja' || language === 'zh' ? '' : ' ')).toBe(
      script.openings[0].narration,
    );
    expect(script.title.narration.at(-1)).toEqual({ text: expect.stringContaining(LONG_NAME), language });
    expect(script.title.narration.some((n) => n.language === 'en' && n.text.includes('Accounting that closes itself'))).toBe(true);
    // The closing line is the same whatever the opening.
    expect(script.closing.narration[0].text).toBe(phrase(language, 'callToAction', { domain: LONG_DOMAIN }));
  });
});

test('a page translated in part: a section left in English is said by the English voice, the translated ones by their own', async () => {
  const ar: CapturedVariant = {
    variant: 'ar',
    url: 'https://example.com/ar/',
    language: 'ar',
    text: {
      ...text('Quarry'),
      headings: [{ level: 1, text: 'محاسبة تغلق نفسها' }],
      hero_paragraphs: ['يطابق Northwind Ledger كل حساب خلال الليل.'],
      sections: [],
    },
  };
  const partial = { ...plan, facts: { ...plan.facts, features: [{ ...plan.facts.features[0] }] } };
  const script = await writeScript('ar', partial, [source, ar]);
  expect(script.source).toBe('localized_page');
  expect(script.screens.map((s) => s.narration[0].language)).toEqual(['ar', 'en']);
});

test("a language's own page keeps the source's product name where it carries it, not its header's vendor", async () => {
  const lumen = { ...plan, facts: { ...plan.facts, name: 'Lumen', domain: 'lumen.example' } };
  const zh: CapturedVariant = {
    variant: 'zh',
    url: 'https://lumen.example/zh/',
    language: 'zh-CN',
    text: {
      ...text('Lumen – 安静的网页阅读器 · Fieldnote Studio'),
      headings: [{ level: 1, text: 'Lumen，安静的网页阅读器' }],
      brand_names: ['Fieldnote Studio'],
      credits: [],
      hero_paragraphs: ['Lumen 把任何文章变成一页安静的文字，方便阅读、标注和保存。'],
      sections: [],
    },
  };
  const script = await writeScript('zh', lumen, [source, zh]);
  expect(script.source).toBe('localized_page');
  expect(script.title.onScreenText).toBe('Lumen');
});

describe('the product name', () => {
  const named = (title: string, extra: Partial<CapturedText> = {}) => productName({ ...text(title), ...extra }, 'example.com');
  test.each([
    ['Accounting that closes itself | Northwind Ledger', {}, 'Northwind Ledger'],
    ['Introduction — Quarry Documentation', { brand_names: ['Quarry'] }, 'Quarry'],
    ['Home | Acme', {}, 'Acme'],
    ['Acme Analytics — Dashboards your team will actually read', {}, 'Acme Analytics'],
    ['Accounting that closes itself — Ledger', { open_graph: { site_name: 'Northwind' } }, 'Northwind'],
    ['Slotwise', {}, 'Slotwise'],
    // The page names its product first and its vendor after: the product, not the vendor of the header and footer.
    [
      'Solstice – Hollow Pine Theme',
      {
        open_graph: { site_name: 'Hollow Pine', title: 'Solstice – Hollow Pine Theme' },
        brand_names: ['Hollow Pine'],
        headings: [{ level: 1, text: 'Solstice' }],
        credits: ['Solstice is a theme by Hollow Pine.'],
      },
      'Solstice',
    ],
    [
      'Lumen – The calm reader for the web · Fieldnote Studio',
      {
        open_graph: { title: 'Lumen – The calm reader for the web' },
        brand_names: ['Fieldnote Studio', 'Features', 'English'],
        headings: [{ level: 1, text: 'Lumen, the calm reader for the web' }],
        credits: ['Lumen is made with care by Fieldnote Studio in Lisbon.'],
      },
      'Lumen',
    ],
    // A page of a site ("Page – Site"), whose heading repeats the page's name: the site.
    ['Introduction — Quarry Documentation', { brand_names: ['Quarry'], headings: [{ level: 1, text: 'Introduction' }] }, 'Quarry'],
    ['Pricing – Acme', { open_graph: { site_name: 'Acme' }, headings: [{ level: 1, text: 'Pricing' }] }, 'Acme'],
    // Title, logo and og:title name the product; og:site_name names the vendor's site that hosts the demo.
    [
      'Breezeway - Tailwind CSS Landing Page Demo',
      {
        open_graph: { title: 'Breezeway - Tailwind CSS Landing Page', site_name: 'Ridgeline Labs' },
        brand_names: ['Breezeway'],
        headings: [{ level: 1, text: 'Building calm tools for busy teams.' }],
      },
      'Breezeway',
    ],
    // A generator's own home, its name in the title, the logo and the h1 (served from a host that is not its domain).
    [
      'Hugo',
      {
        brand_names: ['Hugo'],
        headings: [
          { level: 1, text: 'Hugo' },
          { level: 2, text: 'Features' },
        ],
      },
      'Hugo',
    ],
    // An unconfigured site keeps the generator's name in its title and logo, not in its heading: not the product.
    ['Hugo', { brand_names: ['Hugo'], headings: [{ level: 1, text: 'Welcome to my notes' }] }, 'Example'],
    // "<Template> – <Vendor> Template", the vendor the header's logo: the template, not the vendor.
    [
      'Shop Homepage - Hollow Pine Template',
      { brand_names: ['Hollow Pine'], headings: [{ level: 1, text: 'Shop in style' }] },
      'Shop Homepage',
    ],
    // A Chinese tagline after the name is no name, though it has no lower-case letter.
    ['Tilekit 3 - 小巧、好用的移动端界面组件', { headings: [{ level: 2, text: 'Tilekit' }] }, 'Tilekit 3'],
  ] as Array<[string, Partial<CapturedText>, string]>)('%s → %s', (title, extra, name) => {
    expect(named(title, extra)).toBe(name);
  });

  test('a footer credit names the maker', () => {
    expect(makersIn(['Solstice is a theme by Hollow Pine.', '© 2026 Hollow Pine Studio'])).toEqual(['Hollow Pine']);
    expect(makersIn(['Lumen is made with care by Fieldnote Studio in Lisbon.'])).toEqual(['Fieldnote Studio']);
    expect(makersIn(['Made with love by the team'])).toEqual([]);
  });
});

describe('scene narration', () => {
  test('the first sentences that fit, whole; a heading never doubles as the narration when prose exists', () => {
    const said = narrationFrom(plan.facts.features[0].sentences!, plan.facts.features[0].title, 'en', 6.5);
    expect(said).toBe('Every transaction is matched the moment it lands. Month-end becomes a review, not a marathon.');
  });

  test('a first sentence too long for the scene gives way to a later one that fits, never to a cut', () => {
    const long =
      'Northwind Ledger connects to every bank, card issuer, payroll provider and payment processor your company uses, in every country and every currency, and keeps them all in step.';
    const said = narrationFrom([long, 'It reconciles them overnight.'], 'Heading', 'en', 6.5);
    expect(said).toBe('It reconciles them overnight.');
    // Nothing fits even stretched: the heading, not a fragment.
    expect(narrationFrom([long], 'Connect every bank', 'en', 3)).toBe('Connect every bank.');
  });

  test('list items without a full stop are said only when the section has no whole sentence', () => {
    expect(narrationFrom(['Five-minute sync, no pipelines', 'Sources sync into one model automatically.'], 'H', 'en', 6.5)).toBe(
      'Sources sync into one model automatically.',
    );
  });

  test('Japanese: whole sentences only', () => {
    const ja = ['すべての取引は、届いた瞬間に照合されます。', '月末の締めは、確認するだけの作業になります。'];
    const said = narrationFrom(ja, '数時間で締める', 'ja', 6.5);
    expect(endsWithSentenceTerminator(said!)).toBe(true);
    expect(ja.join('')).toContain(said);
  });

  test('a slow voice shortens a scene to whole sentences, never inside one', () => {
    const scene = {
      onScreenText: 'A heading far too long to be said in the time that is left for this scene of the video',
      narration: [
        { text: 'Every transaction is matched the moment it lands, across every account and currency you hold.', language: 'en' as const },
      ],
    };
    const shorter = shortenNarration(scene, 0.5);
    expect(shorter[0].text).toBe(scene.narration[0].text);
    expect(estimateSeconds(shorter[0].text, 'en')).toBeGreaterThan(0);
  });
});

describe('the script model (SCRIPT_BASE_URL), against a local imitation of an OpenAI-compatible server', () => {
  let api: OpenAIImitation;
  beforeAll(async () => {
    api = await startOpenAIImitation();
  });
  afterAll(() => api.close());
  const model = () => new ChatScriptModel({ baseUrl: api.baseUrl, apiKey: 'sk-test', model: 'writer', timeoutMs: 5000 });
  const pageText =
    'Accounting that closes itself. Northwind Ledger reconciles every account overnight. Your team reviews exceptions instead of spreadsheets. Every transaction is matched the moment it lands. Month-end becomes a review, not a marathon.';
  const page: CapturedVariant = {
    ...source,
    text: { ...source.text, main_text: pageText, hero_paragraphs: [plan.facts.valueProposition] },
  };

  test('an accepted answer is the narration of each screen scene, in scene order', async () => {
    api.setMode('script');
    const refused: string[] = [];
    const script = await writeScript('en', plan, [page], { model: model(), onModelRefused: (_l, reason) => refused.push(reason) });
    expect(refused).toEqual([]);
    expect(script.source).toBe('localized_page');
    // The imitation answers each scene with the first sentence of its section (the hero: of the value proposition).
    expect(script.screens.map((s) => s.narration[0].text)).toEqual([
      'Northwind Ledger reconciles every account overnight.',
      'Every transaction is matched the moment it lands.',
    ]);
    const request = api.requests.at(-1)!;
    expect(JSON.stringify(request.body)).toContain('Close the books in hours, not weeks');
  });

  test("with hook variants the model writes the screens as before; the openings are the page's words (lib/script/hooks.ts)", async () => {
    api.setMode('script');
    const script = await writeScript('en', plan, [page], { model: model(), variants: 2 });
    expect(script.screens.map((s) => s.narration[0].text)).toEqual([
      'Northwind Ledger reconciles every account overnight.',
      'Every transaction is matched the moment it lands.',
    ]);
    expect(script.openings).toEqual([
      {
        variant: 'a',
        kind: 'question',
        narration: `Accounting that closes itself? Then meet ${LONG_NAME}.`,
        headline: 'Accounting that closes itself?',
      },
      {
        variant: 'b',
        kind: 'benefit',
        narration: `With ${LONG_NAME}: Close the books in hours, not weeks.`,
        headline: 'Close the books in hours, not weeks',
      },
    ]);
    expect(script.title).toEqual({
      onScreenText: script.openings[0].headline,
      narration: [{ text: script.openings[0].narration, language: 'en' }],
    });
  });

  test.each(['script-invented-number', 'script-wrong-count', 'script-invented-name', 'malformed', 'error500'] as const)(
    '%s: refused, the reason told, the extractive script said instead',
    async (mode) => {
      api.setMode(mode);
      const refused: string[] = [];
      const script = await writeScript('en', plan, [page], { model: model(), onModelRefused: (_l, reason) => refused.push(reason) });
      expect(refused).toHaveLength(1);
      expect(refused[0]).not.toContain('sk-test');
      expect(script.screens.map((s) => s.narration[0].text)).toEqual([
        'Northwind Ledger reconciles every account overnight. Your team reviews exceptions instead of spreadsheets.',
        'Every transaction is matched the moment it lands. Month-end becomes a review, not a marathon.',
      ]);
    },
  );
});

describe('a language with its own page says the section its own screens show', () => {
  const section = (index: number, heading: string, sentence: string, topScreens: number) => ({
    index,
    heading,
    paragraphs: [sentence],
    text: sentence,
    textChars: sentence.length,
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
    topScreens,
  });
  const english = [
    section(0, 'Reconcile in minutes', 'Bank feeds match invoices automatically.', 1.05),
    section(1, 'Close the month on time', 'Reports are ready the moment the last payment clears.', 2.07),
  ];
  const tally: CampaignPlanDocument = {
    ...plan,
    facts: {
      ...plan.facts,
      name: 'Tally',
      domain: 'tally.example',
      headline: 'Bookkeeping that keeps up with you',
      valueProposition: 'Tally reconciles your accounts while you run your business.',
      features: english.map((s) => ({ title: s.heading, detail: s.paragraphs[0], sentences: s.paragraphs, section: s.index, score: 2 })),
    },
    scenes: [
      {
        feature: null,
        section: null,
        screenshotKey: 'en-0',
        mobileScreenshotKey: 'en-m0',
        localized: { ja: { screenshotKey: 'ja-0', mobileScreenshotKey: 'ja-m0' } },
      },
      {
        feature: 0,
        section: 0,
        screenshotKey: 'en-1',
        mobileScreenshotKey: 'en-m1',
        localized: { ja: { screenshotKey: 'ja-1', mobileScreenshotKey: null, section: 0 } },
      },
      // The ja page has no screen of this section: the scene shows the English page's, and says its words.
      { feature: 1, section: 1, screenshotKey: 'en-2', mobileScreenshotKey: 'en-m2', localized: {} },
    ],
  };
  const japanese = (topScreens: number): CapturedVariant => ({
    variant: 'ja',
    url: 'https://tally.example/ja/',
    language: 'ja',
    text: {
      title: 'Tally — 事業のスピードについてくる帳簿',
      description: null,
      open_graph: {},
      headings: [{ level: 1, text: '事業のスピードについてくる帳簿' }],
      main_text: '事業のスピードについてくる帳簿',
      hero_paragraphs: ['あなたが事業に集中している間に、Tally が口座の照合を済ませます。'],
      // Where the ja page's own ranking chose none of them (on its first screen here), or chose them all.
      sections: [
        section(0, '数分で照合', '銀行の入出金データが請求書と自動で照合されます。', topScreens),
        section(1, '月末の締めを期日どおりに', '最後の入金が確認された瞬間に、レポートが仕上がります。', topScreens),
      ],
    },
  });
  const englishPage: CapturedVariant = { ...source, url: 'https://tally.example/', text: { ...text('Tally'), sections: english } };

  test.each([0.5, 1.5])('ja sections at %s screens from the top: the shown section’s heading and sentence, in Japanese', async (top) => {
    const script = await writeScript('ja', tally, [englishPage, japanese(top)]);
    expect(script.source).toBe('localized_page');
    expect(script.screens.map((s) => [s.onScreenText, s.narration.map((n) => [n.text, n.language])])).toEqual([
      ['事業のスピードについてくる帳簿', [['あなたが事業に集中している間に、Tally が口座の照合を済ませます。', 'ja']]],
      ['数分で照合', [['銀行の入出金データが請求書と自動で照合されます。', 'ja']]],
      // Never the ja page's other section over the English screen: the English section, said by the English voice.
      ['Close the month on time', [['Reports are ready the moment the last payment clears.', 'en']]],
    ]);
  });

  test('the shown section, by its position on the ja page, not the source section’s rank there', async () => {
    const shown: CampaignPlanDocument = {
      ...tally,
      scenes: tally.scenes.map((scene, n) =>
        n === 2 ? { ...scene, localized: { ja: { screenshotKey: 'ja-2', mobileScreenshotKey: 'ja-m2', section: 1 } } } : scene,
      ),
    };
    const script = await writeScript('ja', shown, [englishPage, japanese(1.5)]);
    expect(script.screens.slice(1).map((s) => s.onScreenText)).toEqual(['数分で照合', '月末の締めを期日どおりに']);
    expect(script.screens.flatMap((s) => s.narration.map((n) => n.language))).toEqual(['ja', 'ja', 'ja']);
  });
});

describe('a page that declares a language the product does not speak, or a wrong code for one', () => {
  test("Hebrew ('he'): the script is written, its page words voiced as the fallback English, not a failed campaign", async () => {
    const hebrew: CapturedVariant = { ...source, language: 'he' };
    const script = await writeScript('en', { ...plan, sourceLanguage: 'he' }, [hebrew]);
    expect(script.title.narration[0].text).toBe(phrase('en', 'intro', { name: LONG_NAME }));
    expect(script.screens.length).toBeGreaterThan(0);
    expect(script.screens.flatMap((s) => s.narration).every((segment) => segment.language === 'en')).toBe(true);
  });

  test("'kr' is read as Korean: a Korean video of that page is narrated from the page itself", async () => {
    const korean: CapturedVariant = { ...source, language: 'kr' };
    const script = await writeScript('ko', { ...plan, sourceLanguage: 'kr' }, [korean]);
    expect(script.source).toBe('localized_page');
  });

  test.each([
    ['he', null],
    ['kr', 'ko'],
    ['ja-JP', 'ja'],
    ['zh_Hans', 'zh'],
    ['', null],
  ])('%s means %s', (declared, meant) => {
    expect(supportedPageLanguage(declared)).toBe(meant);
  });
});
