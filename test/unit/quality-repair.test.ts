/**
 * The repair's plan (lib/quality/repair.ts, decisions §13): a flagged screen replaced by the next-best section not
 * yet shown, else dropped while the video keeps two screen scenes, else left flagged; a repeated sentence replaced
 * by the section's next one, else removed; a cut narration cut back to its last whole sentence; furniture replaced
 * by the section's first real sentence; a foreign narration by the section's own sentences. Unchanged scenes keep
 * their ids, new ones get ids the video does not use; nothing to change is null.
 */
import type { StoryboardScene } from '../../lib/campaign/storyboard';
import type { VideoCheck } from '../../lib/quality/check';
import { planRepair, reframes, withReframed, type RepairCandidate } from '../../lib/quality/repair';
import type { ShotContent } from '../../lib/render/framing';
import type { QualityFlag, QualityFlagCode } from '../../lib/quality/report';
import { storyboardOf } from '../support/storyboard';

const scene = (
  position: number,
  kind: StoryboardScene['kind'],
  narration: string,
  headline: string,
  key: string | null = null,
): StoryboardScene => ({
  index: position,
  id: `scene_${position}`,
  kind,
  screenshotKey: key,
  onScreenText: headline,
  narration: [{ text: narration, language: 'en' }],
  audioKey: `a${position}.wav`,
  startSeconds: position * 4,
  durationSeconds: 4,
});

/** A title, three screens (sections 1–3 of the page) and a closing card. */
const video = (screens: Array<[string, string, string]> = DEFAULT_SCREENS) =>
  storyboardOf([
    scene(0, 'title', 'Meet Acme.', 'Acme'),
    ...screens.map(([narration, headline, key], i) => scene(i + 1, 'screen', narration, headline, key)),
    scene(screens.length + 1, 'closing', 'Try it today at acme.test.', 'Start today'),
  ]);
const DEFAULT_SCREENS: Array<[string, string, string]> = [
  ['Compile your whole project in seconds.', 'Fast builds', 's1.png'],
  ['Roll out to a tenth of your users first.', 'Safe deploys', 's2.png'],
  ['Every metric, live, for the whole team.', 'Insights', 's3.png'],
];
const CANDIDATES: RepairCandidate[] = [
  {
    key: 's1.png',
    heading: 'Fast builds',
    texts: ['Compile your whole project in seconds.', 'Caches are shared by the team.', 'Every branch gets a preview.'],
  },
  { key: 's2.png', heading: 'Safe deploys', texts: ['Roll out to a tenth of your users first.', 'Watch the errors, then go wide.'] },
  { key: 's3.png', heading: 'Insights', texts: ['Every metric, live, for the whole team.', 'Alerts reach you where you work.'] },
  { key: 's4.png', heading: 'Pricing', texts: ['Accept all cookies', 'Start free for small teams.', 'Pay per seat as you grow.'] },
  { key: 's5.png', heading: 'Security', texts: ['Single sign-on for every plan.'] },
];
const screenId = (key: string) => `screen_${key.replace('.png', '')}`;
const flag = (code: QualityFlagCode, scene_id: string): QualityFlag => ({ code, scene_id, message: `${code} in ${scene_id}` });
const checkOf = (...flags: QualityFlag[]): VideoCheck => ({ flags, scenes: [] });

test('nothing flagged, or nothing that can change: null', () => {
  expect(planRepair(video(), checkOf(), CANDIDATES, screenId)).toBeNull();
  // A blank screen with no section left to show and only two screen scenes: left flagged, so nothing to change.
  const two = video(DEFAULT_SCREENS.slice(0, 2));
  expect(planRepair(two, checkOf(flag('blank_scene', 'scene_2')), CANDIDATES.slice(0, 2), screenId)).toBeNull();
});

test('a blank screen is replaced by the next-best section not yet shown, its heading and first sentences, under a fresh id', () => {
  const plan = planRepair(video(), checkOf(flag('blank_scene', 'scene_2')), CANDIDATES, screenId)!;
  expect(plan.scenes.map((s) => s.id)).toEqual(['scene_0', 'scene_1', 'scene_5', 'scene_3', 'scene_4']);
  // s4 is the first candidate not shown; its cookie notice is skipped, its sentences fill about the old narration's length.
  expect(plan.scenes[2]).toEqual({
    id: 'scene_5',
    kind: 'screen',
    narration: 'Start free for small teams.',
    headline: 'Pricing',
    screen: 'screen_s4',
  });
  expect(plan.repaired).toEqual([{ code: 'blank_scene', scene_id: 'scene_2', action: 'replaced' }]);
  expect(plan.unrepaired).toEqual([]);
  // Unchanged scenes are as they were, in the edit format.
  expect(plan.scenes[1]).toEqual({
    id: 'scene_1',
    kind: 'screen',
    narration: 'Compile your whole project in seconds.',
    headline: 'Fast builds',
    screen: 'screen_s1',
  });
  expect(plan.scenes[0]).toEqual({ id: 'scene_0', kind: 'title', narration: 'Meet Acme.', headline: 'Acme', screen: null });
});

test('two flagged screens take the next two sections in order; every flag of a replaced scene is mended with it', () => {
  const plan = planRepair(
    video(),
    checkOf(flag('duplicate_screen', 'scene_2'), flag('repeated_narration', 'scene_2'), flag('cut_text', 'scene_3')),
    CANDIDATES,
    screenId,
  )!;
  expect(plan.scenes.map((s) => s.screen)).toEqual([null, 'screen_s1', 'screen_s4', 'screen_s5', null]);
  expect(plan.repaired).toEqual([
    { code: 'duplicate_screen', scene_id: 'scene_2', action: 'replaced' },
    { code: 'repeated_narration', scene_id: 'scene_2', action: 'replaced' },
    { code: 'cut_text', scene_id: 'scene_3', action: 'replaced' },
  ]);
  expect(new Set(plan.scenes.map((s) => s.id)).size).toBe(5);
});

test('no section left: the flagged screen is dropped while two screen scenes remain, else left flagged', () => {
  const shown = CANDIDATES.slice(0, 3);
  const dropped = planRepair(video(), checkOf(flag('blank_scene', 'scene_3')), shown, screenId)!;
  expect(dropped.scenes.map((s) => s.id)).toEqual(['scene_0', 'scene_1', 'scene_2', 'scene_4']);
  expect(dropped.repaired).toEqual([{ code: 'blank_scene', scene_id: 'scene_3', action: 'dropped' }]);
  const both = planRepair(video(), checkOf(flag('blank_scene', 'scene_2'), flag('cut_text', 'scene_3')), shown, screenId)!;
  expect(both.scenes.filter((s) => s.kind === 'screen').map((s) => s.id)).toEqual(['scene_1', 'scene_3']);
  expect(both.repaired).toEqual([{ code: 'blank_scene', scene_id: 'scene_2', action: 'dropped' }]);
  expect(both.unrepaired).toEqual([flag('cut_text', 'scene_3')]);
});

test('a repeated sentence is replaced by the section’s next sentence not yet said, else removed if narration is left', () => {
  const repeated = video([
    ['Compile your whole project in seconds.', 'Fast builds', 's1.png'],
    ['Roll out to a tenth of your users first. Compile your whole project in seconds.', 'Safe deploys', 's2.png'],
    ['Every metric, live, for the whole team.', 'Insights', 's3.png'],
  ]);
  const plan = planRepair(repeated, checkOf(flag('repeated_narration', 'scene_2')), CANDIDATES, screenId)!;
  expect(plan.scenes[2]).toMatchObject({
    id: 'scene_2',
    narration: 'Roll out to a tenth of your users first. Watch the errors, then go wide.',
    screen: 'screen_s2',
  });
  expect(plan.repaired).toEqual([{ code: 'repeated_narration', scene_id: 'scene_2', action: 'renarrated' }]);
  // The section has nothing more to say: the repeat is removed, the scene keeps its first sentence.
  const spent = CANDIDATES.map((c) => (c.key === 's2.png' ? { ...c, texts: c.texts.slice(0, 1) } : c));
  const removed = planRepair(repeated, checkOf(flag('repeated_narration', 'scene_2')), spent, screenId)!;
  expect(removed.scenes[2].narration).toBe('Roll out to a tenth of your users first.');
});

test('a scene that says nothing but the repeat, its section with nothing else to say: its heading as a sentence, else dropped while two screens remain, else left flagged', () => {
  const only = video([
    ['Compile your whole project in seconds.', 'Fast builds', 's1.png'],
    ['Compile your whole project in seconds.', 'Safe deploys', 's2.png'],
  ]);
  const nothing = CANDIDATES.map((c) => (c.key === 's2.png' ? { ...c, texts: ['Compile your whole project in seconds.'] } : c));
  const heading = planRepair(only, checkOf(flag('repeated_narration', 'scene_2')), nothing, screenId)!;
  expect(heading.scenes[2]).toMatchObject({ id: 'scene_2', narration: 'Safe deploys.', headline: 'Safe deploys', screen: 'screen_s2' });
  expect(heading.repaired).toEqual([{ code: 'repeated_narration', scene_id: 'scene_2', action: 'renarrated' }]);
  // The heading said already too (the title's line here): dropped when the video keeps two screen scenes.
  const named = (narration: string): Array<[string, string, string]> => [
    ['Compile your whole project in seconds.', 'Fast builds', 's1.png'],
    [narration, 'Meet Acme', 's2.png'],
    ['Every metric, live, for the whole team.', 'Insights', 's3.png'],
  ];
  const spent = CANDIDATES.map((c) => (c.key === 's2.png' ? { ...c, heading: 'Meet Acme', texts: [] } : c));
  const three = planRepair(
    video(named('Compile your whole project in seconds.')),
    checkOf(flag('repeated_narration', 'scene_2')),
    spent,
    screenId,
  )!;
  expect(three.scenes.map((s) => s.id)).toEqual(['scene_0', 'scene_1', 'scene_3', 'scene_4']);
  expect(three.repaired).toEqual([{ code: 'repeated_narration', scene_id: 'scene_2', action: 'dropped' }]);
  const two = video(named('Compile your whole project in seconds.').slice(0, 2));
  expect(planRepair(two, checkOf(flag('repeated_narration', 'scene_2')), spent, screenId)).toBeNull();
});

test('a cut narration is cut back to its last whole sentence; one without any takes the section’s first sentence', () => {
  const cut = video([
    ['Compile your whole project in seconds. Caches are shared by the', 'Fast builds', 's1.png'],
    ['Roll out to a tenth of your users first, watch the', 'Safe deploys', 's2.png'],
    ['Every metric, live, for the whole team.', 'Insights', 's3.png'],
  ]);
  const plan = planRepair(cut, checkOf(flag('cut_narration', 'scene_1'), flag('cut_narration', 'scene_2')), CANDIDATES, screenId)!;
  expect(plan.scenes[1].narration).toBe('Compile your whole project in seconds.');
  expect(plan.scenes[2].narration).toBe('Roll out to a tenth of your users first.');
  expect(plan.scenes.map((s) => s.id)).toEqual(['scene_0', 'scene_1', 'scene_2', 'scene_3', 'scene_4']);
  expect(plan.repaired.map((r) => r.action)).toEqual(['renarrated', 'renarrated']);
});

test('furniture as narration is replaced by the section’s first real sentence; a furniture headline by its heading', () => {
  const furniture = video([
    ['Compile your whole project in seconds.', 'Fast builds', 's1.png'],
    ['Accept all cookies', 'Next slide', 's4.png'],
    ['Every metric, live, for the whole team.', 'Insights', 's3.png'],
  ]);
  const plan = planRepair(furniture, checkOf(flag('boilerplate', 'scene_2')), CANDIDATES, screenId)!;
  expect(plan.scenes[2]).toEqual({
    id: 'scene_2',
    kind: 'screen',
    narration: 'Start free for small teams.',
    headline: 'Pricing',
    screen: 'screen_s4',
  });
  expect(plan.repaired).toEqual([{ code: 'boilerplate', scene_id: 'scene_2', action: 'renarrated' }]);
});

test('a narration in another language takes the section’s own sentences; page text in another language replaces the screen', () => {
  const foreign = storyboardOf(
    [
      { ...scene(0, 'title', 'Acmeをご紹介します。', 'Acme'), narration: [{ text: 'Acmeをご紹介します。', language: 'ja' }] },
      {
        ...scene(1, 'screen', 'Roll out to a tenth of your users first, then go wide.', '安全なデプロイ', 's2.png'),
        narration: [{ text: 'Roll out to a tenth of your users first, then go wide.', language: 'ja' }],
      },
      {
        ...scene(2, 'screen', 'すべての指標をチーム全員でリアルタイムに見られます。', '分析', 's3.png'),
        narration: [{ text: 'すべての指標をチーム全員でリアルタイムに見られます。', language: 'ja' }],
      },
    ],
    { language: 'ja' },
  );
  const ja: RepairCandidate[] = [
    { key: 's2.png', heading: '安全なデプロイ', texts: ['まずユーザーの一割に公開します。', 'エラーを見てから全員に広げます。'] },
    { key: 's3.png', heading: '分析', texts: ['すべての指標をチーム全員でリアルタイムに見られます。'] },
    { key: 's6.png', heading: '料金', texts: ['小さなチームは無料で始められます。'] },
  ];
  const plan = planRepair(foreign, checkOf(flag('wrong_language', 'scene_1'), flag('wrong_language', 'scene_2')), ja, screenId)!;
  expect(plan.scenes[1]).toMatchObject({
    id: 'scene_1',
    narration: 'まずユーザーの一割に公開します。エラーを見てから全員に広げます。',
    screen: 'screen_s2',
  });
  // Scene 2's words are Japanese: its page was the foreign part, so its screen is replaced.
  expect(plan.scenes[2]).toMatchObject({
    id: 'scene_3',
    narration: '小さなチームは無料で始められます。',
    headline: '料金',
    screen: 'screen_s6',
  });
  expect(plan.repaired).toEqual([
    { code: 'wrong_language', scene_id: 'scene_1', action: 'renarrated' },
    { code: 'wrong_language', scene_id: 'scene_2', action: 'replaced' },
  ]);
});

test('fresh ids never reuse one the video has, and flags of scenes it does not have are left', () => {
  const board = video();
  board.scenes[4].id = 'scene_5';
  const plan = planRepair(board, checkOf(flag('blank_scene', 'scene_2'), flag('blank_scene', 'scene_9')), CANDIDATES, screenId)!;
  expect(plan.scenes.map((s) => s.id)).toEqual(['scene_0', 'scene_1', 'scene_6', 'scene_3', 'scene_5']);
  expect(plan.unrepaired).toEqual([flag('blank_scene', 'scene_9')]);
});

test('no section left: a scene whose text is cut at a side still shows its section, so it stays, flagged (not dropped)', () => {
  const plan = planRepair(video(), checkOf(flag('cut_text', 'scene_3')), CANDIDATES.slice(0, 3), screenId);
  expect(plan).toBeNull();
});

describe('a line cut at the crop’s top or bottom: reframed', () => {
  /** A phone capture of a section shot down to the middle of a paragraph's 8th line (one box for the paragraph, as a <p>). */
  const cutShot: ShotContent = {
    width: 780,
    height: 900,
    pixelRatio: 2,
    textPx: 16,
    content: { x: 24, y: 24, width: 732, height: 96.8 + 7 * 51.2 + 20 - 24 },
    focus: [
      { box: { x: 40, y: 44, width: 315, height: 62.4 }, text: 'Plan and test' },
      { box: { x: 40, y: 120.8, width: 475, height: 502.4 }, text: 'Plans are written down before work starts, and more.' },
    ],
  };
  const withShot = (content: ShotContent | null, extra: Partial<StoryboardScene> = {}) => {
    const board = video();
    board.scenes[2] = { ...board.scenes[2], screenshotContent: content, ...extra };
    return board;
  };

  it('frames the same section again, its words kept and nothing spoken, when the further reach leaves the line whole', () => {
    const board = withShot(cutShot);
    expect(reframes(board, 'scene_2')).toBe(true);
    const plan = planRepair(board, checkOf(flag('cut_text', 'scene_2')), CANDIDATES, screenId)!;
    expect(plan.reframed).toEqual(['scene_2']);
    expect(plan.speak).toBe(false);
    expect(plan.repaired).toEqual([{ code: 'cut_text', scene_id: 'scene_2', action: 'reframed' }]);
    expect(plan.scenes.map((s) => s.id)).toEqual(['scene_0', 'scene_1', 'scene_2', 'scene_3', 'scene_4']);
    const mended = withReframed(board, plan.reframed);
    expect(mended.scenes.map((s) => s.reframed ?? false)).toEqual([false, false, true, false, false]);
    expect(reframes(mended, 'scene_2')).toBe(false);
    // A cut narration in the same scene is still renarrated beside the reframe (and spoken again).
    const cutWords = withShot(cutShot, {
      narration: [{ text: 'Roll out to a tenth of your users first. Then watch the', language: 'en' }],
    });
    const both = planRepair(cutWords, checkOf(flag('cut_text', 'scene_2'), flag('cut_narration', 'scene_2')), CANDIDATES, screenId)!;
    expect(both.repaired.map((r) => r.action)).toEqual(['reframed', 'renarrated']);
    expect([both.reframed, both.speak]).toEqual([['scene_2'], true]);
    expect(both.scenes[2]).toMatchObject({ id: 'scene_2', narration: 'Roll out to a tenth of your users first.' });
  });

  it('replaces the scene as before when a reframe cannot help: no text boxes, a cut at a side, already reframed, a blank screen too', () => {
    for (const board of [
      withShot(null),
      withShot({ ...cutShot, content: { ...cutShot.content, height: 800 } }),
      withShot(cutShot, { reframed: true }),
    ]) {
      const plan = planRepair(board, checkOf(flag('cut_text', 'scene_2')), CANDIDATES, screenId)!;
      expect(plan.reframed).toEqual([]);
      expect(plan.repaired).toEqual([{ code: 'cut_text', scene_id: 'scene_2', action: 'replaced' }]);
    }
    const blank = planRepair(
      withShot(cutShot),
      checkOf(flag('cut_text', 'scene_2'), flag('blank_scene', 'scene_2')),
      CANDIDATES,
      screenId,
    )!;
    expect(blank.reframed).toEqual([]);
    expect(blank.repaired.map((r) => r.action)).toEqual(['replaced', 'replaced']);
  });
});
