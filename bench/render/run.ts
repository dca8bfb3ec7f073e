/**
 * bench/render: the same storyboard (5 scenes, voice, captions) at 1280×720 (en) and 1080×1920 (ja),
 * rendered by the product's renderer (lib/render/render-video.ts: editly in its child process, the
 * narration muxed, ffprobe check) and, in the same run, by one hand-written ffmpeg command producing the
 * equivalent slideshow (the practical floor). Prints wall times, the ratio and peak memory, for the
 * product's encoding and for the variants tried to close the gap.
 * Run: npm run bench:render   (BENCH_ROUNDS=1 by default; BENCH_VARIANTS=all adds the variants)
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ENCODING, TRANSITION_SECONDS, type RenderEncoding } from '../../lib/render/plan';
import * as sourceRenderer from '../../lib/render/render-video';
import { median, peakMiB, positiveInteger } from '../support';
import { renderWithFfmpeg } from './ffmpeg-baseline';
import { makeBenchStoryboard, type BenchFixture, type BenchLanguage } from './fixture';

const ALL_CASES: Array<{ language: BenchLanguage; width: number; height: number }> = [
  { language: 'en', width: 1280, height: 720 },
  { language: 'ja', width: 1080, height: 1920 },
];
/**
 * BENCH_DIST=1: the compiled renderer from dist/ (run `npm run build` first), as production runs it — its editly
 * child is plain JavaScript, without tsx's loader and transpiler (about 40 MB and half a second of start-up).
 */
const { renderVideo } = process.env.BENCH_DIST
  ? // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('../../dist/lib/render/render-video') as typeof sourceRenderer)
  : sourceRenderer;
/** BENCH_CASES=ja (or en): one frame only. */
const CASES = ALL_CASES.filter(({ language }) => !process.env.BENCH_CASES || process.env.BENCH_CASES.split(',').includes(language));
/** The targets, printed beside the figures: ratio ≤ 1.2× (the floor doing the same scroll and highlight), peak memory ≤ 600 MiB. */
const TARGET_RATIO = 1.2;
const TARGET_PEAK_MIB = 600;
const VARIANTS: Array<{ name: string; encoding: RenderEncoding }> = [
  { name: 'product (full)', encoding: ENCODING.full },
  { name: 'ultrafast preset', encoding: { ...ENCODING.full, preset: 'ultrafast' } },
  { name: '25 fps', encoding: { ...ENCODING.full, fps: 25 } },
];

/** BENCH_KEEP=<dir>: each of our videos is kept there (`<language>-<variant>.mp4`), to be looked at. */
const KEEP_DIR = process.env.BENCH_KEEP;

async function ours(fixture: BenchFixture, encoding: RenderEncoding, dir: string, name: string) {
  const workDir = await fs.mkdtemp(path.join(dir, 'ours-'));
  const started = process.hrtime.bigint();
  const { peakRssBytes, peakPssBytes, outputPath } = await renderVideo({
    storyboard: fixture.storyboard,
    workDir,
    quality: 'full',
    encoding,
    memoryLimitBytes: 8 * 2 ** 30,
    timeoutMs: 15 * 60_000,
    fetchInput: (key, localPath) => fs.copyFile(fixture.files.resolve(key), localPath),
  });
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (KEEP_DIR) {
    await fs.mkdir(KEEP_DIR, { recursive: true });
    await fs.copyFile(outputPath, path.join(KEEP_DIR, `${name}.mp4`));
  }
  await fs.rm(workDir, { recursive: true, force: true });
  return { wallSeconds, peakRssBytes, peakPssBytes };
}

async function floor(fixture: BenchFixture, encoding: RenderEncoding, dir: string, width: number, height: number) {
  const out = path.join(dir, `ffmpeg-${width}x${height}.mp4`);
  return renderWithFfmpeg(fixture.storyboard, fixture.files, out, { ...encoding, width, height, transitionSeconds: TRANSITION_SECONDS });
}

async function main(): Promise<void> {
  const rounds = positiveInteger('BENCH_ROUNDS', 1);
  const variants = process.env.BENCH_VARIANTS === 'all' ? VARIANTS : VARIANTS.slice(0, 1);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-render-'));
  console.log(
    `bench/render: ${rounds} round(s), ${os.cpus().length} cores, renderer ${process.env.BENCH_DIST ? 'compiled (dist/)' : 'from source (tsx)'}\n`,
  );
  console.log(
    `| frame | variant | ours (s) | ffmpeg (s) | ratio (target ≤ ${TARGET_RATIO}×) | ours peak RSS (target ≤ ${TARGET_PEAK_MIB} MiB) | ours peak PSS | ffmpeg peak RSS |`,
  );
  console.log('|---|---|---|---|---|---|---|---|');
  const verdicts: string[] = [];
  try {
    for (const { language, width, height } of CASES) {
      const fixture = await makeBenchStoryboard(path.join(dir, `${language}-${width}x${height}`), { language, width, height });
      for (const variant of variants) {
        const ourRuns = [];
        const floorRuns = [];
        for (let round = 0; round < rounds; round += 1) {
          ourRuns.push(await ours(fixture, variant.encoding, dir, `${language}-${variant.name.replace(/\W+/g, '-')}`));
          floorRuns.push(await floor(fixture, variant.encoding, dir, width, height));
        }
        const oursSeconds = median(ourRuns.map((r) => r.wallSeconds));
        const floorSeconds = median(floorRuns.map((r) => r.wallSeconds));
        const e = variant.encoding;
        const ratio = oursSeconds / floorSeconds;
        const peakPss = `${Math.round(Math.max(...ourRuns.map((r) => r.peakPssBytes)) / 2 ** 20)} MiB`;
        console.log(
          `| ${width}×${height} ${language}, ${fixture.storyboard.totalSeconds.toFixed(1)} s | ${variant.name} (${e.preset}, crf ${e.crf}, ${e.fps} fps) | ${oursSeconds.toFixed(2)} | ${floorSeconds.toFixed(2)} | ${ratio.toFixed(2)}× | ${peakMiB(ourRuns)} | ${peakPss} | ${peakMiB(floorRuns)} |`,
        );
        if (variant === VARIANTS[0]) {
          const peak = Math.max(...ourRuns.map((r) => r.peakRssBytes)) / 2 ** 20;
          verdicts.push(
            `${width}×${height}: ratio ${ratio.toFixed(2)}× ${ratio <= TARGET_RATIO ? 'meets' : 'MISSES'} ≤ ${TARGET_RATIO}×; ` +
              `peak RSS ${Math.round(peak)} MiB ${peak <= TARGET_PEAK_MIB ? 'meets' : 'MISSES'} ≤ ${TARGET_PEAK_MIB} MiB`,
          );
        }
      }
    }
    console.log(`\n${verdicts.join('\n')}`);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
