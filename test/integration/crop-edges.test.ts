/**
 * Through the real renderer (lib/render/render-video.ts, draft) and the video's own check on the file it made
 * (lib/quality/check.ts): a section shot down to the middle of a line — the capture's content box ends across it —
 * is cropped above that line, in the gap between two of the capture's text boxes (lib/render/framing.ts), so the
 * frame shows no line sliced at the picture's bottom edge; and a scene whose crop could not be moved that far
 * (one paragraph's box across the cut) is flagged, planned for a reframe by the repair (lib/quality/repair.ts), and
 * rendered again with only its framing changed (StoryboardScene.reframed): whole lines.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { checkVideo } from '../../lib/quality/check';
import { pageViews } from '../../lib/quality/page-view';
import { planRepair, withReframed } from '../../lib/quality/repair';
import { renderVideo } from '../../lib/render/render-video';
import { storyboardOf } from '../support/storyboard';
import { drawPage, sceneOf, writeSilentAudio, type PageSpec } from '../support/quality-pages';

const LINES = [
  'Plans are written down before work starts,',
  'estimates come from the last sprints.',
  'Boards show who is on what today.',
  'Reviews happen where the work is.',
  'Tests run on every push you make,',
  'and failures point at the line.',
  'Releases are tagged for you too.',
  'Rollbacks take a single click.',
  'Logs are kept for ninety days.',
  'Support answers within the hour.',
];
/** Its lines start 96.8 px under the content's top, every 51.2 px, 41.6 px tall: the crop (24 px under the content) ends mid-line 8. */
const MID_LINE: PageSpec = { heading: 'Plan and test', lines: LINES, contentHeight: 96.8 + 7 * 51.2 + 20 - 24 };

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crop-edges-'));
});
afterAll(() => {
  if (!process.env.QUALITY_KEEP_FRAMES) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`frames kept in ${tmp}`);
});

/** A title and one screen of `page`. */
function storyboardFor(dir: string, page: PageSpec): Storyboard {
  fs.mkdirSync(dir, { recursive: true });
  const content = drawPage(path.join(dir, 'page.png'), page);
  const screen = { ...sceneOf(1, 'screen', 'Tests run on every push you make.', 'Tests', { key: 'page.png', content }, 4) };
  return storyboardOf([sceneOf(0, 'title', 'Meet Acme.', 'Acme', null, 2), { ...screen, startSeconds: 2 }], {
    narrationKey: 'voice.wav',
    captionsKey: 'captions.vtt',
    quality: 'draft',
  });
}

/** `storyboard` (its files in `dir`) rendered (draft) into `name` and checked. */
async function renderAndCheck(dir: string, name: string, storyboard: Storyboard) {
  const content = storyboard.scenes[1].screenshotContent!;
  writeSilentAudio(storyboard, dir);
  fs.mkdirSync(path.join(dir, name, 'work'), { recursive: true });
  const rendered = await renderVideo({
    storyboard,
    workDir: path.join(dir, name, 'work'),
    quality: 'draft',
    memoryLimitBytes: 3 * 2 ** 30,
    timeoutMs: 120_000,
    fetchInput: async (key, local) => fs.copyFileSync(path.join(dir, key), local),
  });
  const check = await checkVideo({ videoPath: rendered.outputPath, storyboard, workDir: path.join(dir, name, 'check') });
  return { check, view: pageViews(storyboard, rendered.probe)[1], content };
}

test('a section shot down to the middle of a line is cropped in the gap above it: the frame cuts no line', async () => {
  const dir = path.join(tmp, 'mid-line');
  const { check, view, content } = await renderAndCheck(dir, 'first', storyboardFor(dir, MID_LINE));
  expect(check.flags).toEqual([]);
  // The crop ends where the line it would have cut begins (its box's top), not across it.
  const cut = content.focus!.find((f) => f.text === 'Rollbacks take a single click.')!.box;
  expect(view.shown!.y + view.shown!.height).toBeCloseTo(cut.y, 1);
}, 180_000);

test('a paragraph’s box across the cut: flagged as rendered, the repair reframes it, and the new render cuts no line', async () => {
  const dir = path.join(tmp, 'paragraph');
  const storyboard = storyboardFor(dir, { ...MID_LINE, paragraph: true });
  const { check } = await renderAndCheck(dir, 'first', storyboard);
  expect(check.flags.map((f) => [f.scene_id, f.code])).toEqual([['scene_1', 'cut_text']]);
  expect(check.flags[0].message).toMatch(/bottom edge/);
  // The repair's plan: the same section framed again, nothing to speak; only that scene's framing differs.
  const plan = planRepair(storyboard, check, [], (key) => key)!;
  expect(plan.repaired).toEqual([{ code: 'cut_text', scene_id: 'scene_1', action: 'reframed' }]);
  expect(plan.speak).toBe(false);
  const mended = withReframed(storyboard, plan.reframed);
  expect(mended.scenes.map(({ reframed: _reframed, ...rest }) => rest)).toEqual(storyboard.scenes);
  expect(mended.scenes.map((s) => s.reframed ?? false)).toEqual([false, true]);
  const again = await renderAndCheck(dir, 'reframed', mended);
  expect(again.check.flags).toEqual([]);
}, 240_000);
