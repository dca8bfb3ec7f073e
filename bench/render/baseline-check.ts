/**
 * Self-check of the ffmpeg baseline: builds the fixture for en 1280×720 and ja 1080×1920, renders both with
 * renderWithFfmpeg (veryfast, crf 23, 25 fps), prints wall time and ffmpeg's peak RSS, and verifies the files
 * with the renderer's own check (probeVideo, deliverableProblems). Saves one frame from the middle of a
 * Japanese caption to /tmp/bench-render-ja.png for a look.
 * Run: npx tsx bench/render/baseline-check.ts   (BENCH_KEEP=1 keeps the work directories)
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseWebVtt } from '../../lib/voice/captions';
import { deliverableProblems, probeVideo } from '../../lib/render/media';
import { run } from '../../lib/voice/exec';
import { renderWithFfmpeg } from './ffmpeg-baseline';
import { makeBenchStoryboard, type BenchFixture, type BenchLanguage } from './fixture';

const CASES: Array<{ language: BenchLanguage; width: number; height: number }> = [
  { language: 'en', width: 1280, height: 720 },
  { language: 'ja', width: 1080, height: 1920 },
];
const ENCODING = { fps: 25, preset: 'veryfast', crf: 23 };
const JA_FRAME_PATH = '/tmp/bench-render-ja.png';

/** The middle of the first caption shown over a screenshot (the busiest picture). */
async function captionMoment({ storyboard, files }: BenchFixture): Promise<number> {
  const cues = parseWebVtt(await fs.readFile(files.resolve(storyboard.captionsKey), 'utf8'));
  const screen = storyboard.scenes.find((s) => s.kind === 'screen') ?? storyboard.scenes[0];
  const cue = cues.find((c) => c.start >= screen.startSeconds) ?? cues[0];
  if (!cue) throw new Error('the fixture has no captions');
  return (cue.start + cue.end) / 2;
}

async function extractFrame(video: string, atSeconds: number, outFile: string): Promise<void> {
  await run(
    'ffmpeg',
    ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-ss', atSeconds.toFixed(3), '-i', video, '-frames:v', '1', outFile],
    { timeoutMs: 30_000 },
  );
}

async function main(): Promise<void> {
  const keep = process.env.BENCH_KEEP === '1';
  let failures = 0;
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs; ffmpeg baseline, preset ${ENCODING.preset}, crf ${ENCODING.crf}, ${ENCODING.fps} fps\n`,
  );
  for (const { language, width, height } of CASES) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), `bench-render-${language}-`));
    try {
      const fixture = await makeBenchStoryboard(dir, { language, width, height });
      const outPath = path.join(dir, 'baseline.mp4');
      const stats = await renderWithFfmpeg(fixture.storyboard, fixture.files, outPath, { ...ENCODING, width, height });
      const probed = await probeVideo(outPath);
      const problems = deliverableProblems(probed, { width, height, durationSeconds: fixture.storyboard.totalSeconds });
      console.log(
        `${language} ${width}x${height}: ${fixture.storyboard.totalSeconds.toFixed(2)} s of video in ${stats.wallSeconds.toFixed(2)} s wall` +
          ` (${(fixture.storyboard.totalSeconds / stats.wallSeconds).toFixed(2)}x realtime), ffmpeg peak RSS ${(stats.peakRssBytes / 2 ** 20).toFixed(0)} MiB`,
      );
      console.log(
        `  ffprobe: ${probed.videoCodec} ${probed.pixelFormat} ${probed.width}x${probed.height}, audio ${probed.audioCodec ?? 'none'},` +
          ` faststart ${probed.faststart}, duration ${probed.durationSeconds.toFixed(3)} s (storyboard ${fixture.storyboard.totalSeconds.toFixed(3)} s)`,
      );
      console.log(`  ${problems.length ? `FAIL: ${problems.join('; ')}` : 'ok'}`);
      failures += problems.length ? 1 : 0;
      if (language === 'ja') {
        const at = await captionMoment(fixture);
        await extractFrame(outPath, at, JA_FRAME_PATH);
        console.log(`  frame at ${at.toFixed(2)} s (mid-caption) -> ${JA_FRAME_PATH}`);
      }
      if (keep) console.log(`  kept ${dir}`);
    } finally {
      if (!keep) await fs.rm(dir, { recursive: true, force: true });
    }
  }
  if (failures) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
