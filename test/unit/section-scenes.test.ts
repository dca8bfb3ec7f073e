/** Scenes chosen by section (lib/script/analyze.ts): the hero shows the page's top, each feature its own section. */
import {
  hasSectionShots,
  screenBudget,
  sectionScenes,
  sectionScreens,
  sectionShot,
  type KeyFacts,
  type ScreenshotInfo,
} from '../../lib/script/analyze';

const shot = (viewport: string, n: number, heading: string | null | undefined): ScreenshotInfo => ({
  key: `c/capture/source/${viewport}-${n}.png`,
  viewport,
  width: viewport === 'desktop' ? 1440 : 780,
  height: viewport === 'desktop' ? 900 : 1688,
  pixelRatio: viewport === 'desktop' ? 1 : 2,
  ...(heading === undefined ? {} : { heading }),
  content: { x: 40, y: 100 + n, width: 700, height: 500 },
});

const HEADINGS = ['Connect every source', 'Dashboards that explain', 'Share insights', 'Security by default'];
const captured = (headings: string[]) =>
  ['desktop', 'mobile'].flatMap((viewport) => [shot(viewport, 0, null), ...headings.map((h, i) => shot(viewport, i + 1, h))]);

const facts = (titles: string[]): KeyFacts => ({
  name: 'Acme',
  domain: 'acme.test',
  headline: 'Dashboards your team will read',
  valueProposition: 'Live dashboards.',
  features: titles.map((title) => ({ title, detail: `${title}: detail.` })),
  callToAction: null,
});

describe('section scenes', () => {
  test('the hero and then each feature whose section was shot, as many as the target holds', () => {
    expect(screenBudget(25)).toBe(3);
    const scenes = sectionScenes(facts(HEADINGS), captured(HEADINGS), 25);
    expect(scenes).toEqual([
      { feature: null, heading: null, section: null },
      { feature: 0, heading: 'Connect every source', section: null },
      { feature: 1, heading: 'Dashboards that explain', section: null },
    ]);
    // A longer video takes every feature, and no more scenes than the page has sections.
    expect(sectionScenes(facts(HEADINGS), captured(HEADINGS), 60)).toHaveLength(5);
  });

  test('the best sections (facts.features is best first) within the target, shown in page order, matched by position', () => {
    const ranked: KeyFacts = {
      ...facts([]),
      features: [
        { title: 'Share insights', detail: 'Share.', section: 2, score: 7 },
        { title: 'Connect every source', detail: 'Connect.', section: 0, score: 6 },
        { title: 'Dashboards that explain', detail: 'Explain.', section: 1, score: 2 },
      ],
    };
    // The shots name their sections' positions; the headings of this capture may differ (another language).
    const shots = captured(['Connect', 'Dashboards', 'Share']).map((s) =>
      typeof s.heading === 'string' ? { ...s, section: ['Connect', 'Dashboards', 'Share'].indexOf(s.heading) } : s,
    );
    expect(sectionScenes(ranked, shots, 25)).toEqual([
      { feature: null, heading: null, section: null },
      { feature: 1, heading: 'Connect every source', section: 0 },
      { feature: 0, heading: 'Share insights', section: 2 },
    ]);
    const screens = sectionScreens(shots, [{ heading: 'Not on this page', ordinal: 0, section: 2 }]);
    expect(screens[0]?.screenshotKey).toBe('c/capture/source/desktop-3.png');
  });

  test('a feature without a section shot is skipped, not shown over another section', () => {
    const scenes = sectionScenes(facts(HEADINGS), captured(['Share insights']), 60);
    expect(scenes).toEqual([
      { feature: null, heading: null, section: null },
      { feature: 2, heading: 'Share insights', section: null },
    ]);
  });

  test('each scene gets its own section’s desktop and phone shots, with their content boxes', () => {
    const screenshots = captured(HEADINGS);
    const screens = sectionScreens(screenshots, [
      { heading: null, ordinal: -1 },
      { heading: 'Share insights', ordinal: 0 },
    ]);
    expect(screens.map((s) => s?.screenshotKey)).toEqual(['c/capture/source/desktop-0.png', 'c/capture/source/desktop-3.png']);
    expect(screens.map((s) => s?.mobileScreenshotKey)).toEqual(['c/capture/source/mobile-0.png', 'c/capture/source/mobile-3.png']);
    expect(screens[1]?.screenshotContent).toEqual({
      width: 1440,
      height: 900,
      pixelRatio: 1,
      content: { x: 40, y: 103, width: 700, height: 500 },
    });
    expect(screens[1]?.mobileScreenshotContent?.pixelRatio).toBe(2);
  });

  test('an older capture without section positions, whose heading differs, falls back to its section in the same place', () => {
    const ja = captured(['接続', 'ダッシュボード', '共有', 'セキュリティ']);
    const [screen] = sectionScreens(ja, [{ heading: 'not on this page', ordinal: 2 }]);
    expect(screen?.screenshotKey).toBe('c/capture/source/desktop-3.png');
  });

  test('each language and viewport shows the section at the source’s position, whatever else it shot, or none of its own', () => {
    // What a plain en/ja page's capture looks like when the phone and the translation chose other sections than the
    // source's desktop: the ja desktop shot sections 1 and 2, its phone the page's top and section 2 only.
    const positioned = (viewport: string, n: number, heading: string | null, section?: number): ScreenshotInfo => ({
      ...shot(viewport, n, heading),
      key: `c/capture/ja/${viewport}-${n}.png`,
      ...(section === undefined ? {} : { section }),
    });
    const ja = [
      positioned('desktop', 0, null),
      positioned('desktop', 1, '数分で照合', 1),
      positioned('desktop', 2, '月末の締めを期日どおりに', 2),
      positioned('mobile', 0, null),
      positioned('mobile', 1, '月末の締めを期日どおりに', 2),
    ];
    const roles = [
      { heading: null, ordinal: -1, section: null },
      { heading: '数分で照合', ordinal: 0, section: 1 },
      { heading: '月末の締めを期日どおりに', ordinal: 1, section: 2 },
      { heading: 'Pricing', ordinal: 2, section: 0 },
    ];
    const screens = sectionScreens(ja, roles);
    expect(screens.map((s) => s && [s.screenshotKey, s.mobileScreenshotKey, s.section])).toEqual([
      ['c/capture/ja/desktop-0.png', 'c/capture/ja/mobile-0.png', undefined],
      // The phone has no shot of section 1: the desktop's is shown on every frame, never the phone's first shot.
      ['c/capture/ja/desktop-1.png', null, 1],
      ['c/capture/ja/desktop-2.png', 'c/capture/ja/mobile-1.png', 2],
      // Section 0 is not on this capture at all: the scene keeps the source's screens (and words), not the page's top.
      null,
    ]);
    expect(sectionShot(ja, 'mobile', roles[1])).toBeNull();
  });

  test('older captures (screen by screen, no headings) are told apart', () => {
    expect(hasSectionShots(captured(HEADINGS))).toBe(true);
    expect(hasSectionShots([shot('desktop', 0, undefined), shot('desktop', 1, undefined)])).toBe(false);
  });
});
