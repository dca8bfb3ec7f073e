/**
 * The writer never says the same thing twice in one video (decisions §13 repeated_narration, prevented where the
 * words are written): across the title line, every screen scene and the closing line, a sentence said before — the
 * check's folding, or a near-duplicate — gives way to the section's next unused sentence, else to its heading said
 * as a sentence, else the scene is left out (a video keeps two screen scenes). In English, Japanese and Arabic, on
 * the page's own words, translated words and the source text; and narration taken from a cut text ends whole.
 */
import type { LanguageCode } from '../../config/catalog';
import type { CampaignPlanDocument, CapturedText } from '../../lib/script/analyze';
import { phrase } from '../../lib/script/phrases';
import type { Translator } from '../../lib/script/translate';
import { narrationFrom, plannedFor, writeScript, type CapturedVariant, type ScriptDocument } from '../../lib/script/writer';
import { cutNarrationEnd, endWhole, headingSentence, repeatedSentences, saysAgain } from '../../lib/quality/narration';

interface Section {
  heading: string;
  sentences: string[];
}

/** A page in `language`: a hero (its promise `hero`) and sections, each a scene of the plan, in page order. */
function page(language: LanguageCode, hero: string, sections: Section[]): { plan: CampaignPlanDocument; variant: CapturedVariant } {
  const text: CapturedText = {
    title: 'Fernbrook',
    description: null,
    open_graph: { site_name: 'Fernbrook' },
    headings: [{ level: 1, text: 'Fernbrook' }],
    main_text: hero,
    hero_paragraphs: [hero],
  };
  const plan: CampaignPlanDocument = {
    facts: {
      name: 'Fernbrook',
      domain: 'fernbrook.example',
      headline: 'Fernbrook',
      valueProposition: hero,
      features: sections.map((s, n) => ({ title: s.heading, detail: s.sentences[0] ?? '', sentences: s.sentences, section: n + 1 })),
      callToAction: null,
    },
    scenes: [
      { feature: null, section: null, screenshotKey: 'k0', mobileScreenshotKey: null },
      ...sections.map((_, n) => ({ feature: n, section: n + 1, screenshotKey: `k${n + 1}`, mobileScreenshotKey: null })),
    ],
    targetSeconds: 40,
    sourceLanguage: language,
    brand: { themeColor: null, palette: [], iconUrls: [] },
  };
  return { plan, variant: { variant: 'source', url: 'https://fernbrook.example/', language, text } };
}

/** Every narration of a script in play order: title, screens, closing. */
const narrations = (script: ScriptDocument) =>
  [script.title, ...script.screens, script.closing].map((scene) => scene.narration.map((n) => n.text).join(' '));
const screens = (script: ScriptDocument) => script.screens.map((scene) => scene.narration.map((n) => n.text).join(' '));

describe('English: a sentence the page says in two sections is said once', () => {
  const repeated = 'Fernbrook skips watering when rain is on the way.';
  const { plan, variant } = page('en', 'Fernbrook waters each zone of your garden on its own schedule, from your phone.', [
    { heading: 'Schedules that follow the weather', sentences: [repeated, 'It reads the local forecast every morning.'] },
    { heading: 'One schedule for every zone', sentences: [repeated, 'Each zone gets its own days and minutes.'] },
  ]);

  test('the later section says its next unused sentence; the check finds nothing said twice', async () => {
    const script = await writeScript('en', plan, [variant]);
    expect(screens(script)).toEqual([
      'Fernbrook waters each zone of your garden on its own schedule, from your phone.',
      `${repeated} It reads the local forecast every morning.`,
      'Each zone gets its own days and minutes.',
    ]);
    expect(repeatedSentences(narrations(script), 'en')).toEqual([]);
  });

  test('source text in another video language (no page, no translator): said once too', async () => {
    const script = await writeScript('ja', plan, [variant]);
    expect(script.source).toBe('source_text');
    expect(screens(script).filter((n) => n.includes(repeated))).toHaveLength(1);
  });

  test('a translator that makes two sentences one: the second scene says its translated heading', async () => {
    const same = 'Fernbrook überspringt das Gießen, wenn Regen kommt.';
    const translator: Translator = {
      name: 'dictionary',
      translate: async (texts) =>
        texts.map((t) =>
          t.includes('skips watering') || t.includes('forecast') || t.includes('own days')
            ? same
            : t === 'One schedule for every zone'
              ? 'Ein Zeitplan für jede Zone'
              : `DE ${t}`,
        ),
    };
    const script = await writeScript('de', plan, [variant], { translator });
    expect(script.source).toBe('translated');
    expect(screens(script).slice(1)).toEqual([same, 'Ein Zeitplan für jede Zone.']);
    expect(repeatedSentences(narrations(script), 'de')).toEqual([]);
  });
});

describe('English: a tagline said in the hero, a later section and the call-to-action band', () => {
  const tagline = 'Deliver great service experiences fast.';
  const { plan, variant } = page('en', `${tagline} Helpdesk answers every customer in one inbox.`, [
    {
      heading: 'Automate the busywork',
      sentences: [`${tagline.slice(0, -1)}, with AI agents.`, 'Routine questions are answered for you.'],
    },
    { heading: 'Start your free trial today', sentences: [tagline] },
  ]);

  test('the section drops the near-duplicate; the band, with no other sentence, says its heading', async () => {
    const script = await writeScript('en', plan, [variant]);
    expect(screens(script)).toEqual([
      `${tagline} Helpdesk answers every customer in one inbox.`,
      'Routine questions are answered for you.',
      'Start your free trial today.',
    ]);
    expect(script.screens.every((s) => s.planScene === undefined)).toBe(true);
  });

  test('a band whose heading says again what was said is left out; the plan the voice stage reads follows', async () => {
    const band = {
      ...plan,
      facts: { ...plan.facts, features: plan.facts.features.map((f, n) => (n === 1 ? { ...f, title: tagline } : f)) },
    };
    const script = await writeScript('en', band, [variant]);
    expect(script.screens).toHaveLength(2);
    expect(script.screens.map((s) => s.planScene)).toEqual([0, 1]);
    expect(plannedFor(band, script).scenes.map((s) => s.screenshotKey)).toEqual(['k0', 'k1']);
  });

  test('a video keeps two screen scenes: with one section, it stays (and the check will flag it)', async () => {
    const two = { ...plan, scenes: [plan.scenes[0], { ...plan.scenes[2], feature: 1 }] };
    const one = { ...two, facts: { ...two.facts, features: two.facts.features.map((f, n) => (n === 1 ? { ...f, title: tagline } : f)) } };
    const script = await writeScript('en', one, [variant]);
    expect(script.screens).toHaveLength(2);
    expect(plannedFor(one, script)).toBe(one);
  });
});

test('a one-word heading is a label, never said alone as a scene’s narration', () => {
  expect(headingSentence('Testimonials', 'en')).toBeNull();
  expect(headingSentence('Fernbrook', 'en')).toBeNull();
  expect(headingSentence('ガイド', 'ja')).toBeNull();
  expect(headingSentence('Schedules that follow the weather', 'en')).toBe('Schedules that follow the weather.');
  expect(headingSentence('はじめかた', 'ja')).toBe('はじめかた。');
});

test('near-duplicates: one sentence inside the other, or most content words shared; not two sentences about one product', () => {
  const tagline = 'Deliver great service experiences fast.';
  expect(
    saysAgain(`${tagline.slice(0, -1)}, whatever channel your customers pick and wherever your agents happen to work.`, tagline, 'en'),
  ).toBe(true);
  expect(saysAgain('Great service experiences, delivered fast.', tagline, 'en')).toBe(true);
  expect(saysAgain('Fernbrook reads the local forecast every morning.', 'Fernbrook skips watering when rain is on the way.', 'en')).toBe(
    false,
  );
  expect(saysAgain('Yes.', 'Yes.', 'en')).toBe(false);
});

test('a page read screen by screen, past its sections: a later screen with only the promise to say is left out', async () => {
  const { plan, variant } = page('en', 'Status is a secure messaging app, crypto wallet, and Web3 browser.', []);
  const screensOnly = {
    ...plan,
    facts: { ...plan.facts, headline: 'Private messages for everyone' },
    scenes: [0, 1, 2].map((n) => ({ feature: null, screenshotKey: `k${n}`, mobileScreenshotKey: null })),
  };
  const headed = { ...variant, text: { ...variant.text, headings: [{ level: 1, text: 'Private messages for everyone' }] } };
  const script = await writeScript('en', screensOnly, [headed]);
  // The hero says the promise, the next screen its headline as a sentence, the third has nothing new: left out.
  expect(screens(script)).toEqual(['Status is a secure messaging app, crypto wallet, and Web3 browser.', 'Private messages for everyone.']);
  expect(plannedFor(screensOnly, script).scenes.map((s) => s.screenshotKey)).toEqual(['k0', 'k1']);
  expect(repeatedSentences(narrations(script), 'en')).toEqual([]);
});

test("the title's line is not said again by the hero", async () => {
  const { plan, variant } = page('en', 'Meet Fernbrook. It waters each zone of your garden on its own schedule.', [
    { heading: 'Schedules that follow the weather', sentences: ['It reads the local forecast every morning.'] },
  ]);
  const script = await writeScript('en', plan, [variant]);
  expect(script.title.narration[0].text).toBe(phrase('en', 'intro', { name: 'Fernbrook' }));
  expect(screens(script)[0]).toBe('It waters each zone of your garden on its own schedule.');
});

describe('Japanese: sentences written without spaces, split at 。', () => {
  const repeated = 'デザインガイドラインを理解して、一貫した体験をつくりましょう。';
  const { plan, variant } = page('ja', '庭のすべてのエリアに、それぞれの予定で水をまきます。', [
    { heading: 'ガイドライン', sentences: [`${repeated}コンポーネントはすべて公開されています。`] },
    { heading: 'デザインの原則', sentences: [`${repeated}`, '色と余白の決まりを一つにまとめました。'] },
    { heading: 'はじめかた', sentences: [repeated] },
  ]);

  test('the repeated sentence is said once; the section with nothing new says its heading', async () => {
    const script = await writeScript('ja', plan, [variant]);
    expect(script.source).toBe('localized_page');
    expect(screens(script)).toEqual([
      '庭のすべてのエリアに、それぞれの予定で水をまきます。',
      repeated,
      '色と余白の決まりを一つにまとめました。',
      'はじめかた。',
    ]);
    expect(repeatedSentences(narrations(script), 'ja')).toEqual([]);
  });

  test('near-duplicates by shared letter pairs', () => {
    expect(saysAgain('デザインガイドラインを理解して、一貫した体験をつくろう。', repeated, 'ja')).toBe(true);
    expect(saysAgain('色と余白の決まりを一つにまとめました。', repeated, 'ja')).toBe(false);
  });
});

describe('Arabic', () => {
  const repeated = 'يتخطى فيرنبروك الري عندما يقترب المطر.';
  const { plan, variant } = page('ar', 'يسقي فيرنبروك كل منطقة من حديقتك وفق جدولها الخاص.', [
    { heading: 'جداول تتبع الطقس', sentences: [repeated, 'يقرأ توقعات الطقس المحلية كل صباح.'] },
    { heading: 'جدول لكل منطقة', sentences: [repeated, 'تحصل كل منطقة على أيامها ودقائقها الخاصة.'] },
  ]);

  test('the later section says its next unused sentence', async () => {
    const script = await writeScript('ar', plan, [variant]);
    expect(screens(script).slice(1)).toEqual([
      `${repeated} يقرأ توقعات الطقس المحلية كل صباح.`,
      'تحصل كل منطقة على أيامها ودقائقها الخاصة.',
    ]);
    expect(repeatedSentences(narrations(script), 'ar')).toEqual([]);
  });
});

describe('narration from a cut text ends whole', () => {
  test.each([
    ['en', 'Understand the design guidelines and build with', 'Understand the design guidelines and build.'],
    ['en', 'Deliver great service experiences fast with…', 'Deliver great service experiences fast.'],
    ['en', 'Five-minute sync, no pipelines', 'Five-minute sync, no pipelines.'],
    ['ja', 'すべての取引が照合されます、月末の締めまで', 'すべての取引が照合されます。'],
    ['ja', '一貫した体験を', ''],
    ['ar', 'يسقي فيرنبروك كل منطقة من', 'يسقي فيرنبروك كل منطقة.'],
    ['ru', 'Поливает каждую зону сада и', 'Поливает каждую зону сада.'],
  ] as Array<[LanguageCode, string, string]>)('%s: %s', (language, text, whole) => {
    const ended = endWhole(text, language, language === 'ja' ? '。' : '.');
    expect(ended).toBe(whole);
    if (ended) expect(cutNarrationEnd(ended, language)).toBeNull();
  });

  test('a section of list items only: the narration ends at a boundary with a full stop', () => {
    expect(narrationFrom(['Sync every bank account and', 'Close the month with'], 'Banks', 'en', 6.5)).toBe(
      'Sync every bank account. Close the month.',
    );
  });
});
