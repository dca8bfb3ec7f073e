import { buildRenderPlan, frameFor } from '../../lib/render/plan';
import { breakForBox } from '../../lib/text';
import type { Storyboard, StoryboardScene } from '../../lib/campaign/storyboard';
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

const storyboard = (language: Storyboard['language'] = 'en'): Storyboard =>
  storyboardOf([scene(0, 'title', 0, 2.5), scene(1, 'screen', 2.5, 6), scene(2, 'screen', 8.5, 0.6), scene(3, 'closing', 9.1, 3)], {
    language,
  });

test('clips overlap by the transition so each starts at its scene and the video lasts the narration', () => {
  const plan = buildRenderPlan(storyboard(), [], (key) => `/tmp/${key}`, {
    quality: 'full',
    videoOnlyPath: '/tmp/p.mp4',
    transitionSeconds: 0.4,
  });
  const durations = plan.clips.map((c) => c.duration);
  // Every clip but the last is lengthened by its overlap; a short neighbour (0.6 s) halves the overlap.
  [2.9, 6.3, 0.9, 3].forEach((expected, i) => expect(durations[i]).toBeCloseTo(expected, 6));
  const overlaps = [0.4, 0.3, 0.3];
  const visible = durations.reduce((sum, d) => sum + d, 0) - overlaps.reduce((sum, o) => sum + o, 0);
  expect(visible).toBeCloseTo(12.1, 6);
  expect(plan.clips.map((c) => c.start)).toEqual([0, 2.5, 8.5, 9.1]);
  expect(plan.clips[1].imagePath).toBe('/tmp/shots/1.png');
  expect(plan.clips[0].imagePath).toBeNull();
});

test('captions go to every clip they overlap, in video time', () => {
  const cues = [
    { start: 0, end: 2.5, text: 'one' },
    { start: 2.5, end: 8.5, text: 'two' },
    { start: 9.1, end: 12.1, text: 'three' },
  ];
  const plan = buildRenderPlan(storyboard(), cues, (key) => key, { quality: 'full', videoOnlyPath: 'p.mp4' });
  expect(plan.clips[0].captions.map((c) => c.text)).toEqual(['one', 'two']); // the transition shows the next cue
  expect(plan.clips[3].captions.map((c) => c.text)).toEqual(['three']);
});

test('a campaign that asked for captions as files only gets no caption drawn in any clip', () => {
  const cues = [
    { start: 0, end: 2.5, text: 'one' },
    { start: 9.1, end: 12.1, text: 'three' },
  ];
  const plan = buildRenderPlan({ ...storyboard(), captions: 'file_only' }, cues, (key) => key, { quality: 'full', videoOnlyPath: 'p.mp4' });
  expect(plan.clips.length).toBeGreaterThan(1);
  expect(plan.clips.flatMap((clip) => clip.captions)).toEqual([]);
  const texts = (captions?: 'burned' | 'file_only') =>
    buildRenderPlan({ ...storyboard(), ...(captions ? { captions } : {}) }, cues, (key) => key, {
      quality: 'full',
      videoOnlyPath: 'p.mp4',
    }).clips.flatMap((clip) => clip.captions.map((c) => c.text));
  expect(texts('burned')).toEqual(texts());
  expect(new Set(texts('burned'))).toEqual(new Set(['one', 'three']));
});

test('draft renders a quarter of the frame area with even sides; full keeps the platform frame', () => {
  expect(frameFor({ width: 1080, height: 1920 }, 'draft')).toEqual({ width: 540, height: 960 });
  expect(frameFor({ width: 1920, height: 1080 }, 'draft')).toEqual({ width: 960, height: 540 });
  expect(frameFor({ width: 1080, height: 1080 }, 'draft')).toEqual({ width: 540, height: 540 });
  expect(frameFor({ width: 1080, height: 1920 }, 'full')).toEqual({ width: 1080, height: 1920 });
  const plan = buildRenderPlan(storyboard(), [], (k) => k, { quality: 'draft', videoOnlyPath: 'p.mp4' });
  expect([plan.width, plan.height]).toEqual([540, 960]);
});

test('scripts without spaces wrap anywhere; spaced scripts wrap at spaces', () => {
  expect(buildRenderPlan(storyboard('ja'), [], (k) => k, { quality: 'draft', videoOnlyPath: 'p' }).wrapAnywhere).toBe(true);
  expect(buildRenderPlan(storyboard('ko'), [], (k) => k, { quality: 'draft', videoOnlyPath: 'p' }).wrapAnywhere).toBe(false);
});

describe('titles of scripts without spaces are broken between phrases, never inside a word', () => {
  // A 1080-wide portrait title card: 907 px box, 92 px type, about 9 CJK characters a line.
  const portrait = (text: string, language: Storyboard['language']) => breakForBox(text, language, 907, 92).split('\n');

  test('ja: lines end between words, every line fits', () => {
    const lines = portrait('ファイル共有を自動化するクラウドサービス', 'ja');
    expect(lines.join('')).toBe('ファイル共有を自動化するクラウドサービス');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(9);
    // A box breaking where it is full would cut クラウド or サービス.
    expect(lines.some((line) => /^(ウド|ラウド|ド|ービス|ビス|ス)/.test(line))).toBe(false);
  });

  test('ja: a katakana name longer than a line stays whole (drawn smaller), never cut', () => {
    expect(portrait('アカウントマネージャー', 'ja')).toEqual(['アカウントマネージャー']);
  });

  test('zh and th break too; a title that fits stays on one line', () => {
    expect(portrait('团队协作从未如此简单高效', 'zh')).toEqual(['团队协作从未如此', '简单高效']);
    expect(portrait('แพลตฟอร์มจัดการโครงการสำหรับทีม', 'th')).toEqual(['แพลตฟอร์มจัดการ', 'โครงการสำหรับทีม']);
    expect(breakForBox('ファイル共有を自動化する', 'ja', 1075, 61)).toBe('ファイル共有を自動化する');
  });
});
