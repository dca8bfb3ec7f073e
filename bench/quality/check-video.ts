/**
 * What the video's own check (lib/quality/check.ts) costs on a render node: a full-quality 1080×1920 video of 5
 * scenes (title, 3 screens, closing), rendered by the product's own path, then checked twice — with the capture's
 * text boxes recorded (the page's words known: no OCR) and without them (OCR on every screen scene). Run each step
 * in its own process under /usr/bin/time so the CPU of tesseract and ffmpeg is counted (bench/quality/README.md):
 *
 *   npx tsx bench/quality/check-video.ts render /tmp/quality-bench     # once: the video
 *   /usr/bin/time -f '%e s wall, %U s user, %S s sys' npx tsx bench/quality/check-video.ts check /tmp/quality-bench
 *   /usr/bin/time -f '%e s wall, %U s user, %S s sys' npx tsx bench/quality/check-video.ts check-ocr /tmp/quality-bench
 *   /usr/bin/time -f '%e s wall, %U s user, %S s sys' npx tsx bench/quality/check-video.ts noop /tmp/quality-bench   # node + tsx alone
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { difference } from '../../lib/capture/images';
import { checkVideo } from '../../lib/quality/check';
import { fingerprintBytes } from '../../lib/quality/frame-stats';
import { renderVideo } from '../../lib/render/render-video';
import { drawPage, sceneOf, writeSilentAudio } from '../../test/support/quality-pages';
import { storyboardOf } from '../../test/support/storyboard';

const SCREENS = [
  {
    heading: 'Fast builds',
    lines: [
      'Compile your whole project in seconds,',
      'with caches shared by the team.',
      'Every branch gets its own preview.',
      'Reviews happen where the code is.',
    ],
  },
  {
    heading: 'Safe deploys',
    lines: [
      'Roll out to a tenth of your users first,',
      'watch the errors, then go wide.',
      'One click takes it all back.',
      'Audit logs keep every step.',
    ],
    accent: '#16a34a',
  },
  {
    heading: 'Insights',
    lines: ['Every metric, live, for the whole team.', 'Alerts reach you where you work.', 'Dashboards build themselves.'],
    accent: '#7c3aed',
  },
];

function storyboardIn(dir: string, focus: boolean): Storyboard {
  const screens = SCREENS.map((spec, i) => {
    const content = drawPage(path.join(dir, `page-${i}.png`), spec);
    return sceneOf(
      i + 1,
      'screen',
      spec.lines.slice(0, 2).join(' '),
      spec.heading,
      {
        key: `page-${i}.png`,
        content: focus ? content : { ...content, focus: undefined },
      },
      5,
    );
  });
  return storyboardOf(
    [
      sceneOf(0, 'title', 'Meet Acme.', 'Acme', null, 4),
      ...screens.map((s) => ({ ...s, startSeconds: 4 + (s.index - 1) * 5 })),
      { ...sceneOf(4, 'closing', 'Try it today at acme.test.', 'Start today', null, 4), startSeconds: 19 },
    ],
    {
      narrationKey: 'voice.wav',
      captionsKey: 'captions.vtt',
    },
  );
}

async function main(): Promise<void> {
  const [mode, dir] = process.argv.slice(2);
  if (!mode || !dir) throw new Error('usage: check-video.ts render|check|check-ocr|noop <dir>');
  if (mode === 'noop') return;
  if (mode === 'render') {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.join(dir, 'work'), { recursive: true });
    const storyboard = storyboardIn(dir, true);
    writeSilentAudio(storyboard, dir);
    const started = Date.now();
    const rendered = await renderVideo({
      storyboard,
      workDir: path.join(dir, 'work'),
      quality: 'full',
      memoryLimitBytes: 3 * 2 ** 30,
      timeoutMs: 600_000,
      fetchInput: (key, local) => fs.promises.copyFile(path.join(dir, key), local),
    });
    fs.copyFileSync(rendered.outputPath, path.join(dir, 'video.mp4'));
    console.log(
      `rendered ${rendered.probe.width}×${rendered.probe.height}, ${rendered.probe.durationSeconds.toFixed(1)} s, in ${Date.now() - started} ms`,
    );
    return;
  }
  const storyboard = storyboardIn(dir, mode === 'check');
  const workDir = path.join(dir, `check-${mode}`);
  fs.rmSync(workDir, { recursive: true, force: true });
  const started = Date.now();
  const result = await checkVideo({ videoPath: path.join(dir, 'video.mp4'), storyboard, workDir });
  if (process.env.QUALITY_DEBUG) {
    const prints = result.scenes.flatMap((s) => (s.fingerprint ? [fingerprintBytes(s.fingerprint)] : []));
    for (let i = 0; i < prints.length; i += 1)
      for (let j = i + 1; j < prints.length; j += 1) console.log(i, j, difference(prints[i], prints[j]));
    console.log(JSON.stringify(result.flags));
  }
  console.log(
    `${mode}: ${Date.now() - started} ms in checkVideo; OCR on ${result.scenes.filter((s) => s.ocrUsed).length} scenes; flags: ${JSON.stringify(result.flags.map((f) => f.code))}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
