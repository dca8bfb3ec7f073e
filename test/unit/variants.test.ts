/**
 * Hook variants (decisions §15), the pure parts: which variants a campaign asking for n gets, each variant's title
 * scene (its opening, or the script's title for a script written before openings), the voice stage's jobs (each
 * variant's opening once, the shared scenes once per language, not once per variant) and each variant's scenes put
 * back together from them, the plan caps, and the campaign page's groups (side by side, each with its opening).
 */
import { variantsOf } from '../../config/catalog';
import { effectiveLimits, MAX_VARIANTS, PLANS } from '../../config/plans';
import { storageKeys } from '../../lib/storage/keys';
import type { ScriptDocument, ScriptOpening } from '../../lib/script/writer';
import { languageVariants, openingScene, sceneJobs, variantScenes } from '../../lib/voice/variants';
import { variantGroups } from '../../lib/dashboard/variants';

const say = (text: string) => [{ text, language: 'en' as const }];
// Without openings: a script stored before they existed (its JSON lacks the member).
const script = (openings?: ScriptOpening[]): ScriptDocument =>
  ({
    language: 'en',
    source: 'localized_page',
    title: { onScreenText: 'Acme', narration: say('Meet Acme.') },
    screens: [
      { onScreenText: 'Sync', narration: say('Sync every order.') },
      { onScreenText: 'Ship', narration: say('Ship in minutes.') },
    ],
    closing: { onScreenText: 'Try it', ctaLabel: 'Try it', narration: say('Visit acme.example.') },
    ...(openings ? { openings } : {}),
  }) as ScriptDocument;
const OPENINGS: ScriptOpening[] = [
  { variant: 'a', kind: 'meet', narration: 'Meet Acme.', headline: 'Acme' },
  { variant: 'b', kind: 'question', narration: 'Still syncing orders by hand?', headline: 'Still by hand?' },
];

test('a campaign asking n gets a…, at least a, at most c; plans: Growth 2, Business and Enterprise 3', () => {
  expect(variantsOf(undefined)).toEqual(['a']);
  expect(variantsOf(2)).toEqual(['a', 'b']);
  expect(variantsOf(3)).toEqual(['a', 'b', 'c']);
  expect(variantsOf(9)).toEqual(['a', 'b', 'c']);
  expect([PLANS.growth, PLANS.business, PLANS.enterprise].map((p) => p.variantsPerCampaign)).toEqual([2, 3, 3]);
  expect(effectiveLimits('growth').variantsPerCampaign).toBe(2);
  expect(MAX_VARIANTS).toBe(3);
});

test("each variant opens with its opening's headline and narration; without openings, with the script's title", () => {
  expect(openingScene(script(OPENINGS), 'b')).toEqual({ onScreenText: 'Still by hand?', narration: say('Still syncing orders by hand?') });
  expect(openingScene(script(), 'b')).toEqual(script().title);
  // A source_text script (a Japanese video of an English page): the page's words in b's opening are said by the
  // page's voice, the frame by the video's, as the writer says variant a's.
  const sourceText = {
    ...script(),
    language: 'ja',
    source: 'source_text',
    openings: [OPENINGS[0], { variant: 'b', kind: 'number', narration: 'Trusted by 2,000+ teams。それがAcmeです。', headline: '2,000+' }],
  } as ScriptDocument;
  expect(openingScene(sourceText, 'b').narration).toEqual([
    { text: 'Trusted by 2,000+ teams。', language: 'en' },
    { text: 'それがAcmeです。', language: 'ja' },
  ]);
  expect(
    languageVariants(
      [
        { language: 'en', variant: 'b' },
        { language: 'en', variant: 'a' },
        { language: 'ja', variant: 'c' },
      ],
      'en',
    ),
  ).toEqual(['a', 'b']);
  expect(languageVariants([{ language: 'en' }], 'en')).toEqual(['a']);
});

test('the shared scenes are spoken once per language, each opening once; each variant is its opening and the same shared audio', () => {
  const jobs = sceneJobs(script(OPENINGS), ['a', 'b']);
  // Two openings, then the two screens and the closing once (not once per variant).
  expect(jobs.map((j) => [j.kind, j.index, j.variant])).toEqual([
    ['title', 0, 'a'],
    ['title', 0, 'b'],
    ['screen', 1, null],
    ['screen', 2, null],
    ['closing', 3, null],
  ]);
  const spoken = jobs.map((job) => `${job.index}${job.variant ?? ''}`);
  expect(variantScenes(jobs, spoken, 'a')).toEqual(['0a', '1', '2', '3']);
  expect(variantScenes(jobs, spoken, 'b')).toEqual(['0b', '1', '2', '3']);
  // One variant: the script as it was before variants.
  expect(sceneJobs(script(), ['a']).map((j) => j.scene)).toEqual([script().title, ...script().screens, script().closing]);
  // An opening that could not differ (no opening of its own: the title) is a's, spoken once: b and c reuse a's audio.
  const same = sceneJobs(script([OPENINGS[0]]), ['a', 'b', 'c']);
  expect(same.map((j) => [j.kind, j.variant, j.opens ?? null])).toEqual([
    ['title', 'a', ['a', 'b', 'c']],
    ['screen', null, null],
    ['screen', null, null],
    ['closing', null, null],
  ]);
  const once = same.map((job) => `${job.index}${job.variant ?? ''}`);
  for (const variant of ['a', 'b', 'c'] as const) expect(variantScenes(same, once, variant)).toEqual(['0a', '1', '2', '3']);
  // b's own opening, c's the same as a's: two openings spoken.
  const mixed = sceneJobs(script(OPENINGS), ['a', 'b', 'c']);
  expect(mixed.filter((j) => j.kind === 'title').map((j) => [j.variant, j.opens])).toEqual([
    ['a', ['a', 'c']],
    ['b', ['b']],
  ]);
  const twice = mixed.map((job) => `${job.index}${job.variant ?? ''}`);
  expect(variantScenes(mixed, twice, 'c')).toEqual(['0a', '1', '2', '3']);
});

test("variant a's files keep their names; another variant's opening, track and captions have their own", () => {
  expect(storageKeys.sceneAudio('c1', 'en', 0)).toBe('campaigns/c1/voice/en/scene-0.wav');
  expect(storageKeys.sceneAudio('c1', 'en', 0, 'b')).toBe('campaigns/c1/voice/en/scene-0-b.wav');
  expect(storageKeys.narration('c1', 'en', 'a')).toBe('campaigns/c1/voice/en/narration.wav');
  expect(storageKeys.narration('c1', 'en', 'c')).toBe('campaigns/c1/voice/en/narration-c.wav');
  expect(storageKeys.captions('c1', 'ja', 'b')).toBe('campaigns/c1/voice/ja/captions-b.vtt');
});

test('the campaign page groups variants by language × platform, side by side, each with its opening; none without variants', () => {
  const videos = [
    { id: '1', language: 'en', platform: 'tiktok', variant: 'a' },
    { id: '2', language: 'en', platform: 'tiktok', variant: 'b' },
    { id: '3', language: 'en', platform: 'youtube', variant: 'a' },
    { id: '4', language: 'en', platform: 'youtube', variant: 'b' },
  ];
  const groups = variantGroups(videos, [{ language: 'en', script: script(OPENINGS) }])!;
  expect(groups.map((g) => [g.platform, g.videos.map((v) => v.id)])).toEqual([
    ['tiktok', ['1', '2']],
    ['youtube', ['3', '4']],
  ]);
  expect(groups[0].videos.map((v) => [v.variantLabel, v.opening])).toEqual([
    ['Variant A', { headline: 'Acme', narration: 'Meet Acme.' }],
    ['Variant B', { headline: 'Still by hand?', narration: 'Still syncing orders by hand?' }],
  ]);
  expect(variantGroups(videos, [])![0].videos[1].opening).toBeNull();
  expect(variantGroups([videos[0], videos[2]], [])).toBeNull();
});
