/**
 * Chunked rendering, measured: the bench storyboard rendered whole (one editly process), and split at
 * the scene boundary nearest its middle into two storyboards rendered at the same time (two editly
 * processes, as two slots of one node would), then joined without re-encoding (ffmpeg concat, `-c copy`).
 * Both results pass the renderer's own check (probeVideo, deliverableProblems).
 *
 * The join is a hard cut where the whole video has a 0.4 s fade. That is one reason this is a
 * measurement and not part of the product (see bench/render/README.md).
 *
 * Run: BENCH_ROUNDS=2 npx tsx bench/render/chunked.ts
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseWebVtt, toWebVtt } from '../../lib/voice/captions';
import { deliverableProblems, probeVideo } from '../../lib/render/media';
import { renderVideo } from '../../lib/render/render-video';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { run } from '../../lib/voice/exec';
import { median, peakMiB, positiveInteger } from '../support';
import { makeBenchStoryboard, type BenchFixture, type BenchLanguage } from './fixture';

const CASES: Array<{ language: BenchLanguage; width: number; height: number }> = [
  { language: 'en', width: 1280, height: 720 },
  { language: 'ja', width: 1080, height: 1920 },
];

/** Paths for keys: the fixture's own, or files this script wrote (narration and captions of a chunk). */
type Resolve = (key: string) => string;

async function render(storyboard: Storyboard, resolve: Resolve, workDir: string) {
  await fs.mkdir(workDir, { recursive: true });
  return renderVideo({
    storyboard,
    workDir,
    quality: 'full',
    memoryLimitBytes: 8 * 2 ** 30,
    timeoutMs: 15 * 60_000,
    fetchInput: (key, localPath) => fs.copyFile(resolve(key), localPath),
  });
}

/** Scenes [from, to) as a storyboard of their own: times re-based, its slice of the voice track and captions. */
async function chunk(fixture: BenchFixture, from: number, to: number, dir: string): Promise<{ storyboard: Storyboard; resolve: Resolve }> {
  const { storyboard, files } = fixture;
  const scenes = storyboard.scenes.slice(from, to);
  const start = scenes[0].startSeconds;
  const end = scenes.at(-1)!.startSeconds + scenes.at(-1)!.durationSeconds;
  await fs.mkdir(dir, { recursive: true });
  const narrationPath = path.join(dir, 'narration.wav');
  await run(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-y',
      '-i',
      files.resolve(storyboard.narrationKey),
      '-ss',
      start.toFixed(3),
      '-t',
      (end - start).toFixed(3),
      '-c:a',
      'pcm_s16le',
      narrationPath,
    ],
    { timeoutMs: 60_000 },
  );
  const cues = parseWebVtt(await fs.readFile(files.resolve(storyboard.captionsKey), 'utf8'))
    .map((cue) => ({ ...cue, start: Math.max(0, cue.start - start), end: Math.min(end, cue.end) - start }))
    .filter((cue) => cue.end - cue.start >= 0.01); // cues of the other chunk (or a sliver of one at the cut)
  const captionsPath = path.join(dir, 'captions.vtt');
  await fs.writeFile(captionsPath, toWebVtt(cues));
  const own: Record<string, string> = { 'chunk:narration': narrationPath, 'chunk:captions': captionsPath };
  return {
    storyboard: {
      ...storyboard,
      scenes: scenes.map((scene) => ({ ...scene, startSeconds: scene.startSeconds - start })),
      narrationKey: 'chunk:narration',
      captionsKey: 'chunk:captions',
      totalSeconds: end - start,
    },
    resolve: (key) => own[key] ?? files.resolve(key),
  };
}

async function whole(fixture: BenchFixture, dir: string) {
  const started = process.hrtime.bigint();
  const { outputPath, peakRssBytes } = await render(fixture.storyboard, fixture.files.resolve, path.join(dir, 'whole'));
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { wallSeconds, peakRssBytes, outputPath };
}

async function chunked(fixture: BenchFixture, dir: string) {
  const scenes = fixture.storyboard.scenes;
  const middle = fixture.storyboard.totalSeconds / 2;
  // The scene boundary nearest the middle of the video.
  const split = scenes
    .slice(1)
    .reduce((best, scene, i) => (Math.abs(scene.startSeconds - middle) < Math.abs(scenes[best].startSeconds - middle) ? i + 1 : best), 1);
  const started = process.hrtime.bigint();
  const parts = await Promise.all([
    chunk(fixture, 0, split, path.join(dir, 'chunk-0')),
    chunk(fixture, split, scenes.length, path.join(dir, 'chunk-1')),
  ]);
  const rendered = await Promise.all(parts.map((part, i) => render(part.storyboard, part.resolve, path.join(dir, `chunk-${i}`, 'work'))));
  const list = path.join(dir, 'concat.txt');
  await fs.writeFile(list, rendered.map((r) => `file '${r.outputPath}'`).join('\n'));
  const outputPath = path.join(dir, 'joined.mp4');
  await run(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'concat',
      '-safe',
      '0',
      '-i',
      list,
      '-c',
      'copy',
      '-movflags',
      '+faststart',
      outputPath,
    ],
    { timeoutMs: 120_000 },
  );
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { wallSeconds, peakRssBytes: rendered.reduce((sum, r) => sum + r.peakRssBytes, 0), outputPath, split };
}

async function main(): Promise<void> {
  const rounds = positiveInteger('BENCH_ROUNDS', 1);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-chunked-'));
  console.log(`bench/render/chunked: ${rounds} round(s), ${os.cpus().length} cores\n`);
  console.log(
    '| frame | whole, 1 process (s) | 2 chunks at once + join (s) | speed-up | peak RSS whole | peak RSS chunks (sum) | checks |',
  );
  console.log('|---|---|---|---|---|---|---|');
  try {
    for (const { language, width, height } of CASES) {
      const fixture = await makeBenchStoryboard(path.join(dir, `${language}-${width}x${height}`), { language, width, height });
      const wholeRuns = [];
      const chunkRuns = [];
      const problems: string[] = [];
      const expected = { width, height, durationSeconds: fixture.storyboard.totalSeconds };
      for (let round = 0; round < rounds; round += 1) {
        const roundDir = path.join(dir, `${language}-round-${round}`);
        const a = await whole(fixture, roundDir);
        const b = await chunked(fixture, roundDir);
        problems.push(...deliverableProblems(await probeVideo(a.outputPath), expected).map((p) => `whole: ${p}`));
        problems.push(...deliverableProblems(await probeVideo(b.outputPath), expected).map((p) => `chunked: ${p}`));
        wholeRuns.push(a);
        chunkRuns.push(b);
        await fs.rm(roundDir, { recursive: true, force: true });
      }
      const w = median(wholeRuns.map((r) => r.wallSeconds));
      const c = median(chunkRuns.map((r) => r.wallSeconds));
      console.log(
        `| ${width}×${height} ${language}, ${fixture.storyboard.totalSeconds.toFixed(1)} s (split before scene ${chunkRuns[0].split}) | ${w.toFixed(2)} | ${c.toFixed(2)} | ${(w / c).toFixed(2)}× | ${peakMiB(wholeRuns)} | ${peakMiB(chunkRuns)} | ${problems.length ? problems.join('; ') : 'both pass'} |`,
      );
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
