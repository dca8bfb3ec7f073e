/**
 * The video's own check on the render node (decisions §13): a real render (draft) through renderer.renderVideo of a
 * small storyboard made with a defect — the same screenshot and the same sentence in two screen scenes — answers
 * with the flags a customer would raise, on the later scene, and none for the clean scenes; with QUALITY_CHECK off
 * the node says it did not look.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Storyboard } from '../../lib/campaign/storyboard';
import type { RenderVideoResult } from '../../services/renderer.service';
import { storyboardOf } from '../support/storyboard';
import { drawPage, sceneOf, writeSilentAudio } from '../support/quality-pages';
import { startHarness, type Harness } from '../support/harness';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
let storyboard: Storyboard;
const prefix = 'campaigns/quality-render';

beforeAll(async () => {
  h = await startHarness({ render: 'worker', config: { rateLimits: limits } });
  const dir = path.join(h.config.dataDir, 'files', prefix);
  fs.mkdirSync(dir, { recursive: true });
  const builds = drawPage(path.join(dir, 'builds.png'), {
    heading: 'Fast builds',
    lines: ['Compile your whole project in seconds,', 'with caches shared by the team.', 'Every branch gets its own preview.'],
  });
  const deploys = drawPage(path.join(dir, 'deploys.png'), {
    heading: 'Safe deploys',
    lines: ['Roll out to a tenth of your users first,', 'watch the errors, then go wide.', 'One click takes it all back.'],
    accent: '#16a34a',
  });
  const sentence = 'Compile your whole project in seconds, with caches shared by the team.';
  const scenes = [
    sceneOf(0, 'title', 'Meet Acme.', 'Acme'),
    sceneOf(1, 'screen', sentence, 'Fast builds', { key: `${prefix}/builds.png`, content: builds }),
    sceneOf(2, 'screen', sentence, 'Fast builds', { key: `${prefix}/builds.png`, content: builds }),
    sceneOf(3, 'screen', 'Roll out to a tenth of your users first, watch the errors, then go wide.', 'Safe deploys', {
      key: `${prefix}/deploys.png`,
      content: deploys,
    }),
    sceneOf(4, 'closing', 'Try it today at acme.test.', 'Start today'),
  ].map((scene) => ({ ...scene, audioKey: `${prefix}/${scene.audioKey}` }));
  storyboard = storyboardOf(scenes, {
    campaignId: 'quality-render',
    videoId: 'quality-render',
    narrationKey: `${prefix}/voice.wav`,
    captionsKey: `${prefix}/captions.vtt`,
  });
  writeSilentAudio(storyboard, path.join(h.config.dataDir, 'files'));
}, 120_000);
afterAll(async () => h?.stop());

const render = (name: string): Promise<RenderVideoResult> =>
  h.call('renderer.renderVideo', {
    video_id: name,
    output_key: `${prefix}/${name}.mp4`,
    thumbnail_key: `${prefix}/${name}.jpg`,
    captions_srt_key: `${prefix}/${name}.srt`,
    storyboard,
  });

test('the render node answers with the flags of the video it made: the same screen and the same sentence, on the later scene', async () => {
  const result = await render('with-defect');
  expect(fs.existsSync(path.join(h.config.dataDir, 'files', result.file_key))).toBe(true);
  expect(result.quality_flags.map((f) => [f.scene_id, f.code])).toEqual([
    ['scene_2', 'duplicate_screen'],
    ['scene_2', 'repeated_narration'],
  ]);
  expect(result.quality_flags[0].message).toBe('Scene 3 shows the same screen as scene 2');
  expect(result.quality_scenes.map((s) => [s.scene_id, s.kind])).toEqual([
    ['scene_0', 'title'],
    ['scene_1', 'screen'],
    ['scene_2', 'screen'],
    ['scene_3', 'screen'],
    ['scene_4', 'closing'],
  ]);
  // The screens' words are known from the capture's text boxes, cropped as the renderer framed them: no OCR needed.
  expect(result.quality_scenes[3].pageWords).toEqual(expect.arrayContaining(['roll', 'tenth', 'errors']));
  expect(result.quality_scenes.some((s) => s.ocrUsed)).toBe(false);
  expect(result.quality_note).toBeUndefined();
  expect(result.quality_ms).toBeGreaterThan(0);
}, 240_000);

test('QUALITY_CHECK off: no flags, and a note that the node did not look', async () => {
  h.config.qualityCheck = false;
  try {
    const result = await render('unchecked');
    expect(result.quality_flags).toEqual([]);
    expect(result.quality_scenes).toEqual([]);
    expect(result.quality_note).toMatch(/QUALITY_CHECK=off/);
  } finally {
    h.config.qualityCheck = true;
  }
}, 240_000);
