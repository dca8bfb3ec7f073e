/**
 * bench/render/slots: how many renders at once a node should run (RENDER_CONCURRENCY). A campaign's videos
 * (the bench fixture's 1080×1920 storyboard, full quality, as a tiktok campaign's) rendered through the
 * product's path (lib/render/render-video.ts) one at a time and two at a time, for a campaign of 3 videos and
 * of 6; prints the wall time of the whole batch and the peak memory of the batch's renders added together.
 * Run: npx tsx bench/render/slots.ts   (BENCH_VIDEOS=3,6 BENCH_SLOTS=1,2 by default)
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { renderVideo } from '../../lib/render/render-video';
import { makeBenchStoryboard, type BenchFixture } from './fixture';

const list = (name: string, fallback: number[]) => (process.env[name] ? process.env[name].split(',').map(Number) : fallback);

async function batch(fixture: BenchFixture, videos: number, slots: number, dir: string) {
  const queue = Array.from({ length: videos }, (_, i) => i);
  const renders: Array<{ from: number; until: number; peak: number }> = [];
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    const index = queue.shift();
    if (index === undefined) return;
    const workDir = await fs.mkdtemp(path.join(dir, `v${index}-`));
    const from = Date.now();
    const { peakRssBytes } = await renderVideo({
      storyboard: fixture.storyboard,
      workDir,
      quality: 'full',
      memoryLimitBytes: 8 * 2 ** 30,
      timeoutMs: 15 * 60_000,
      fetchInput: (key, localPath) => fs.copyFile(fixture.files.resolve(key), localPath),
    });
    renders.push({ from, until: Date.now(), peak: peakRssBytes });
    await fs.rm(workDir, { recursive: true, force: true });
    return worker();
  };
  await Promise.all(Array.from({ length: slots }, () => worker()));
  // An upper bound of what the node needed at once: each render's peak plus the peaks of those that overlapped it.
  const peakSum = Math.max(
    ...renders.map((r) => renders.filter((o) => o.from < r.until && r.from < o.until).reduce((sum, o) => sum + o.peak, 0)),
  );
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, peakMiB: Math.round(peakSum / 2 ** 20) };
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-slots-'));
  try {
    const fixture = await makeBenchStoryboard(path.join(dir, 'fixture'), { language: 'ja', width: 1080, height: 1920 });
    console.log(
      `bench/render/slots: ${os.cpus().length} cores, 1080×1920 full quality, ${fixture.storyboard.totalSeconds.toFixed(1)} s videos\n`,
    );
    console.log('| videos | slots | wall (s) | per video (s) | peak RSS of renders that overlapped, added |');
    console.log('|---|---|---|---|---|');
    for (const videos of list('BENCH_VIDEOS', [3, 6])) {
      const results: Array<{ slots: number; seconds: number }> = [];
      for (const slots of list('BENCH_SLOTS', [1, 2])) {
        const { seconds, peakMiB } = await batch(fixture, videos, slots, dir);
        results.push({ slots, seconds });
        console.log(`| ${videos} | ${slots} | ${seconds.toFixed(1)} | ${(seconds / videos).toFixed(1)} | ${peakMiB} MiB |`);
      }
      const best = results.reduce((a, b) => (b.seconds < a.seconds ? b : a));
      console.log(`| ${videos} | faster: ${best.slots} slot(s) | | | |`);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
