/**
 * The video document's assembly (decisions §12, lib/campaign/video-document.ts): stable scene ids (stored, or derived
 * from position for storyboards stored before ids), the measured times carried over, screenshot ids from their storage
 * keys, every capture listed in assets, and the result valid against the one published schema.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Storyboard, StoryboardScene } from '../../lib/campaign/storyboard';
import { buildVideoDocument, hexColor, type CapturedScreens } from '../../lib/campaign/video-document';
import { universalVideoJsonFile } from '../../lib/http/api-schemas';
import { storageKeys } from '../../lib/storage/keys';
import { storyboardOf, TEST_BRAND } from '../support/storyboard';

const CAMPAIGN = '11111111-2222-4333-8444-555555555555';
const VIDEO = '66666666-7777-4888-8999-aaaaaaaaaaaa';
const shot = (variant: string, viewport: 'desktop' | 'mobile', index: number, heading?: string | null) => ({
  key: storageKeys.screenshot(CAMPAIGN, variant, viewport, index),
  viewport,
  index,
  width: viewport === 'desktop' ? 2560 : 780,
  height: viewport === 'desktop' ? 1440 : 1688,
  ...(heading !== undefined ? { heading } : {}),
});

function scene(index: number, kind: StoryboardScene['kind'], start: number, duration: number, key: string | null = null): StoryboardScene {
  return {
    index,
    kind,
    screenshotKey: key,
    onScreenText: kind === 'closing' ? 'acme.test' : `Headline ${index}`,
    narration: [
      { text: `Scene ${index} says this.`, language: 'en' },
      { text: ' And more. ', language: 'en' },
    ],
    audioKey: `a${index}.wav`,
    startSeconds: start,
    durationSeconds: duration,
  };
}

/** The document's own ids, an upper-case brand colour (the document lower-cases it) and the voice that spoke. */
const documentStoryboard = (scenes: StoryboardScene[], extra: Partial<Storyboard> = {}): Storyboard =>
  storyboardOf(scenes, {
    campaignId: CAMPAIGN,
    videoId: VIDEO,
    brand: { ...TEST_BRAND, primary: '#1F2937' },
    voice: { engine: 'rhvoice', name: 'clb' },
    ...extra,
  });

const captures: CapturedScreens[] = [
  { variant: 'ja', language: 'ja', screenshots: [shot('ja', 'desktop', 0, null)] },
  {
    variant: 'source',
    language: 'en',
    screenshots: [shot('source', 'mobile', 0, 'Pricing'), shot('source', 'desktop', 1, 'Features'), shot('source', 'desktop', 0, null)],
  },
];
const screenUrl = (id: string) => `https://cdn.test/files/screens/${CAMPAIGN}/${id}.png?expires=1&signature=x`;

const scenes = () => [
  scene(0, 'title', 0, 2.5),
  scene(1, 'screen', 2.5, 6.25, shot('source', 'mobile', 0).key),
  scene(2, 'screen', 8.75, 5, shot('source', 'desktop', 1).key),
  scene(3, 'closing', 13.75, 3),
];

const validate = (() => {
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  return ajv.compile(universalVideoJsonFile());
})();

test('a storyboard stored before scenes had ids: ids from position, times as measured, narration joined, screens by id', () => {
  const document = buildVideoDocument({
    storyboard: documentStoryboard(scenes()),
    captures,
    options: null,
    defaultQuality: 'full',
    screenUrl,
  });
  expect(validate(document)).toBe(true);
  expect(document).toMatchObject({
    format: 'universal-video-json',
    format_version: '0.1',
    revision: 1,
    campaign_id: CAMPAIGN,
    video_id: VIDEO,
    language: 'en',
    platform: 'tiktok',
    frame: { width: 1080, height: 1920, fps: 30 },
    voice: { id: 'en-rhvoice-clb', engine: 'rhvoice', name: 'clb' },
    captions: 'burned',
    quality: 'full',
    brand: { primary_color: '#1f2937', logo_url: null },
  });
  expect(document.scenes).toEqual([
    {
      id: 'scene_0',
      kind: 'title',
      narration: 'Scene 0 says this. And more.',
      headline: 'Headline 0',
      start_seconds: 0,
      duration_seconds: 2.5,
    },
    {
      id: 'scene_1',
      kind: 'screen',
      narration: 'Scene 1 says this. And more.',
      headline: 'Headline 1',
      screen: 'source-mobile-0',
      start_seconds: 2.5,
      duration_seconds: 6.25,
    },
    {
      id: 'scene_2',
      kind: 'screen',
      narration: 'Scene 2 says this. And more.',
      headline: 'Headline 2',
      screen: 'source-desktop-1',
      start_seconds: 8.75,
      duration_seconds: 5,
    },
    {
      id: 'scene_3',
      kind: 'closing',
      narration: 'Scene 3 says this. And more.',
      headline: 'acme.test',
      start_seconds: 13.75,
      duration_seconds: 3,
    },
  ]);
  // Every capture, the source page's first, desktop before phone, by index; each with its signed link.
  expect(document.assets.screens).toEqual([
    {
      id: 'source-desktop-0',
      language: 'en',
      viewport: 'desktop',
      heading: null,
      width: 2560,
      height: 1440,
      url: screenUrl('source-desktop-0'),
    },
    {
      id: 'source-desktop-1',
      language: 'en',
      viewport: 'desktop',
      heading: 'Features',
      width: 2560,
      height: 1440,
      url: screenUrl('source-desktop-1'),
    },
    {
      id: 'source-mobile-0',
      language: 'en',
      viewport: 'mobile',
      heading: 'Pricing',
      width: 780,
      height: 1688,
      url: screenUrl('source-mobile-0'),
    },
    { id: 'ja-desktop-0', language: 'ja', viewport: 'desktop', heading: null, width: 2560, height: 1440, url: screenUrl('ja-desktop-0') },
  ]);
  const ids = new Set(document.assets.screens.map((s) => s.id));
  for (const s of document.scenes) if (s.kind === 'screen') expect(ids.has(s.screen!)).toBe(true);
});

test('stored scene ids are kept wherever the scene now is; a stored revision and the options are shown', () => {
  const [title, first, second, closing] = scenes();
  // As an edit will store them: the two screens swapped, their ids with them.
  const moved = [
    { ...title, id: 'scene_0' },
    { ...second, id: 'scene_2', startSeconds: 2.5 },
    { ...first, id: 'scene_1', startSeconds: 7.5 },
    { ...closing, id: 'scene_3' },
  ];
  const storyboard = documentStoryboard(moved, {
    revision: 3,
    quality: 'draft',
    captions: 'words',
    platform: 'youtube',
    frame: { width: 1920, height: 1080 },
  });
  const document = buildVideoDocument({
    storyboard,
    captures,
    options: { voice: { en: 'en-flite-slt' }, brand: { logo_url: 'https://acme.test/logo.svg' } },
    defaultQuality: 'full',
    screenUrl,
  });
  expect(validate(document)).toBe(true);
  expect(document.scenes.map((s) => [s.id, s.screen, s.start_seconds])).toEqual([
    ['scene_0', undefined, 0],
    ['scene_2', 'source-desktop-1', 2.5],
    ['scene_1', 'source-mobile-0', 7.5],
    ['scene_3', undefined, 13.75],
  ]);
  expect(document).toMatchObject({
    revision: 3,
    quality: 'draft',
    captions: 'words',
    frame: { width: 1920, height: 1080, fps: 25 },
    voice: { id: 'en-flite-slt' },
    brand: { logo_url: 'https://acme.test/logo.svg' },
  });
});

test('the same storyboard gives the same document (ids do not depend on when it is read)', () => {
  const read = () =>
    buildVideoDocument({ storyboard: documentStoryboard(scenes()), captures, options: null, defaultQuality: 'full', screenUrl });
  expect(read()).toEqual(read());
});

test('the schema refuses what the document may not hold', () => {
  const good = buildVideoDocument({ storyboard: documentStoryboard(scenes()), captures, options: null, defaultQuality: 'full', screenUrl });
  expect(validate({ ...good, extra: 1 })).toBe(false);
  expect(validate({ ...good, scenes: good.scenes.map((s) => ({ ...s, screen: undefined })) })).toBe(false); // a screen scene without its screen
  expect(validate({ ...good, scenes: [{ ...good.scenes[0], screen: 'source-desktop-0' }] })).toBe(false); // a title with one
  expect(validate({ ...good, format_version: '9' })).toBe(false);
});

test('a screen scene whose screenshot is not a captured one is an error, not a document without it', () => {
  const broken = scenes();
  broken[1].screenshotKey = 'campaigns/other/capture/x.png';
  expect(() =>
    buildVideoDocument({ storyboard: documentStoryboard(broken), captures, options: null, defaultQuality: 'full', screenUrl }),
  ).toThrow(/screen scene 1/);
});

test('colours: #rgb and #RRGGBB to #rrggbb, anything else null', () => {
  expect(hexColor('#ABC')).toBe('#aabbcc');
  expect(hexColor('#FF5500')).toBe('#ff5500');
  expect(hexColor('rgb(1, 2, 3)')).toBeNull();
  expect(hexColor(null)).toBeNull();
});
