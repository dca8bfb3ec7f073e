/** The poster's moment: inside the hero scene, after its fade-in has ended and before the next fade begins; on a keyframe where one fits. */
import { buildRenderPlan } from '../../lib/render/plan';
import { heroStretch, posterMoment } from '../../lib/render/poster';
import type { StoryboardScene } from '../../lib/campaign/storyboard';
import { storyboardOf } from '../support/storyboard';

function scene(index: number, kind: StoryboardScene['kind'], start: number, duration: number): StoryboardScene {
  return {
    index,
    kind,
    screenshotKey: kind === 'screen' ? `shots/${index}.png` : null,
    onScreenText: `Scene ${index}`,
    narration: [],
    audioKey: `a/${index}.wav`,
    startSeconds: start,
    durationSeconds: duration,
  };
}

function planOf(scenes: StoryboardScene[], transitionSeconds = 0.4) {
  const storyboard = storyboardOf(scenes);
  return buildRenderPlan(storyboard, [], (key) => `/tmp/${key}`, { quality: 'draft', videoOnlyPath: '/tmp/p.mp4', transitionSeconds });
}

test('the middle of the stretch where the first screen scene alone is on screen', () => {
  // Title 0–3 s, hero 3–9 s: the fade from the title ends at 3.4 s, the fade to the next scene starts at 9 s.
  const plan = planOf([scene(0, 'title', 0, 3), scene(1, 'screen', 3, 6), scene(2, 'screen', 9, 6), scene(3, 'closing', 15, 3.5)]);
  const stretch = heroStretch(plan);
  expect(stretch.from).toBeCloseTo(3.4, 6);
  expect(stretch.until).toBeCloseTo(9, 6);
  expect(posterMoment(plan)).toBeCloseTo((3.4 + 9) / 2, 6);
});

test('a keyframe in the middle third of the stretch is taken instead (the nearest to the middle); others are not', () => {
  const plan = planOf([scene(0, 'title', 0, 3), scene(1, 'screen', 3, 6), scene(2, 'screen', 9, 6), scene(3, 'closing', 15, 3.5)]);
  // Stretch 3.4–9: its middle third is 5.267–7.133, its middle 6.2.
  expect(posterMoment(plan, [0, 250 / 30, 500 / 30])).toBeCloseTo(6.2, 6); // 8.333 s is outside the third
  expect(posterMoment(plan, [0, 5.3, 6.9, 12])).toBeCloseTo(6.9, 6);
  expect(posterMoment(plan, [5, 7.2])).toBeCloseTo(6.2, 6);
  // Rounded up to the millisecond, never just before the keyframe (ffmpeg would then decode from the previous one).
  expect(posterMoment(plan, [0, 6.0000004])).toBe(6.001);
  expect(posterMoment(plan, [0, 6])).toBe(6);
});

test('a short title card halves the fade in, as editly does; the moment stays after the headline band has faded in', () => {
  const plan = planOf([scene(0, 'title', 0, 0.5), scene(1, 'screen', 0.5, 3), scene(2, 'closing', 3.5, 3)]);
  const moment = posterMoment(plan);
  expect(moment).toBeCloseTo((0.75 + 3.5) / 2, 6);
  const hero = plan.clips[1];
  // The band fades in over the first sixth of its clip.
  expect((moment - hero.start) / hero.duration).toBeGreaterThan(1 / 6);
});

test('the hero is the first screen scene even when it is the last clip, or the first', () => {
  expect(posterMoment(planOf([scene(0, 'title', 0, 3), scene(1, 'screen', 3, 4)]))).toBeCloseTo((3.4 + 7) / 2, 6);
  expect(posterMoment(planOf([scene(0, 'screen', 0, 4), scene(1, 'closing', 4, 3)]))).toBeCloseTo(2, 6);
});

test('without a screen scene, the first clip', () => {
  expect(posterMoment(planOf([scene(0, 'title', 0, 3), scene(1, 'closing', 3, 3)]))).toBeCloseTo(1.5, 6);
});
