/**
 * What a flagged scene may be mended with (lib/quality/candidates.ts): the sections of the page the video's screens come
 * from, in the viewport they were shot in, in the page's order, with their own sentences when they are in the video's
 * language — and with none on a translated video, whose replacement words would be in the page's language.
 */
import type { StoryboardScene } from '../../lib/campaign/storyboard';
import type { CapturedScreens } from '../../lib/campaign/video-document';
import type { ScreenshotRef } from '../../lib/db/models';
import { repairCandidates } from '../../lib/quality/candidates';
import { storyboardOf } from '../support/storyboard';

const shot = (key: string, viewport: ScreenshotRef['viewport'], section: number, heading: string, text: string): ScreenshotRef => ({
  key,
  viewport,
  index: section,
  width: 780,
  height: 1600,
  heading,
  section,
  focus: [
    { box: { x: 0, y: 0, width: 700, height: 60 }, text: heading },
    { box: { x: 0, y: 80, width: 700, height: 200 }, text },
  ],
});

const scene = (index: number, kind: StoryboardScene['kind'], screenshotKey: string | null): StoryboardScene => ({
  index,
  id: `scene_${index}`,
  kind,
  screenshotKey,
  onScreenText: '',
  narration: [{ text: 'Words.', language: 'en' }],
  audioKey: `a${index}.wav`,
  startSeconds: index * 3,
  durationSeconds: 3,
});

const captures: CapturedScreens[] = [
  {
    variant: 'source',
    language: 'en',
    screenshots: [
      shot('p/source-mobile-2', 'mobile', 2, 'Zones', 'Each zone has its days. The roses drink less.'),
      shot('p/source-mobile-0', 'mobile', 0, 'Weather', 'It skips rain. It reads the forecast.'),
      shot('p/source-desktop-1', 'desktop', 1, 'Desktop only', 'Never offered to a phone video.'),
      shot('p/source-mobile-1', 'mobile', 1, 'Showcase', 'A picture.'),
    ],
  },
  { variant: 'ja', language: 'ja', screenshots: [shot('p/ja-mobile-0', 'mobile', 0, '天気', '雨の日は水やりを休みます。')] },
];

const board = (scriptSource: 'localized_page' | 'translated', language: 'en' | 'de' = 'en') =>
  storyboardOf(
    [scene(0, 'title', null), scene(1, 'screen', 'p/source-mobile-0'), scene(2, 'screen', 'p/source-mobile-1'), scene(3, 'closing', null)],
    {
      scriptSource,
      language,
    },
  );

test('the sections of the page its screens come from, in their viewport and the page order, with their own sentences', () => {
  const candidates = repairCandidates(board('localized_page'), captures);
  expect(candidates.map((c) => c.key)).toEqual(['p/source-mobile-0', 'p/source-mobile-1', 'p/source-mobile-2']);
  expect(candidates[2]).toMatchObject({ heading: 'Zones', section: 2, texts: ['Each zone has its days.', 'The roses drink less.'] });
  // Shown sections are there too: a repeated sentence is replaced by its own section's next one.
  expect(candidates[0].texts).toEqual(['It skips rain.', 'It reads the forecast.']);
});

test("a translated video's candidates carry no sentences: the page's words are not in its language", () => {
  const candidates = repairCandidates(board('translated', 'de'), captures);
  expect(candidates).toHaveLength(3);
  expect(candidates.every((c) => c.texts.length === 0)).toBe(true);
});

test('a video whose screens are of no capture has nothing to be mended with', () => {
  expect(repairCandidates(storyboardOf([scene(0, 'title', null), scene(1, 'closing', null)]), captures)).toEqual([]);
});

test('a section\'s eyebrow label is no sentence: never joined to the next one as if it were ("Trusted Worldwide Our rigorous…")', () => {
  const eyebrow: ScreenshotRef = {
    ...shot('p/source-mobile-3', 'mobile', 3, 'Trusted by 40,000 gardeners', 'We never sell your garden data. Your beds stay yours.'),
  };
  eyebrow.focus = [
    { box: { x: 0, y: 0, width: 300, height: 30 }, text: 'Trusted Everywhere' },
    ...eyebrow.focus!,
    { box: { x: 0, y: 300, width: 700, height: 30 }, text: 'Rain sensing for every bed in the garden' },
  ];
  const withEyebrow: CapturedScreens[] = [{ ...captures[0], screenshots: [...captures[0].screenshots, eyebrow] }];
  const candidates = repairCandidates(board('localized_page'), withEyebrow);
  // A line of prose without a full stop is still said (a feature's line).
  expect(candidates.find((c) => c.key === 'p/source-mobile-3')?.texts).toEqual([
    'We never sell your garden data.',
    'Your beds stay yours.',
    'Rain sensing for every bed in the garden',
  ]);
});
