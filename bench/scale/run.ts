/**
 * bench/scale: does a second render node double the cluster's rendering? On one machine two
 * nodes would share its cores, so each render node is pinned to a core of its own with `taskset` (its whole tree:
 * editly, ffmpeg inherit the affinity), one slot each (RENDER_CONCURRENCY=1):
 *   - 1 node on core 0, against 2 nodes on cores 0 and 1;
 *   - the same batch: one campaign of 6 videos (en, ja, ko × tiktok, youtube), its rendering stage timed from
 *     campaign_events (entering rendering → review), throughput = videos / that time;
 *   - and the cluster's end-to-end for one 3-language campaign (en, ja, ko × tiktok): submit → review.
 * The orchestrator (the test harness: API, campaign actor, capture, script, voice and the rendering stage) runs in
 * this process on the Redis transporter, unpinned; render nodes are started as operators start them
 * (SERVICES=renderer npm start), with their own DATA_DIR.
 * Run: npm run bench:scale   (BENCH_QUALITY=full by default; draft for a quick look)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RenderQuality } from '../../config/catalog';
import { startHarness, type Harness } from '../../test/support/harness';
import { startRenderNode, waitForRenderers, type RenderNode } from '../../test/support/render-node';
import { runCampaign } from '../../test/support/campaign-run';

const QUALITY = (process.env.BENCH_QUALITY ?? 'full') as RenderQuality;
const TARGET_RATIO = 1.8;
const BATCH = { languages: ['en', 'ja', 'ko'], platforms: ['tiktok', 'youtube'] };
const E2E = { languages: ['en', 'ja', 'ko'], platforms: ['tiktok'] };

interface Figures {
  nodes: number;
  batchVideos: number;
  renderingSeconds: number;
  videosPerMinute: number;
  /** From the first render's start to the last one's end (render_attempts): the nodes' own throughput. */
  renderWindowSeconds: number;
  windowVideosPerMinute: number;
  e2eSeconds: number;
  attemptsByNode: Record<string, number>;
}

/** A render node pinned to `cpu`: the node process and every thread it has; its children inherit the affinity. */
function pinnedRenderNode(h: Harness, nodeID: string, cpu: number): RenderNode {
  const node = startRenderNode(h, nodeID, { RENDER_CONCURRENCY: '1', RENDER_QUALITY: QUALITY, SHARED_FILES_DIR: h.config.sharedFilesDir! });
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(node.process.pid)], { stdio: 'ignore' });
  return node;
}

async function renderingSeconds(h: Harness, id: string): Promise<number> {
  const events = await h.sql<{ to_status: string; created_at: Date }>(
    'SELECT to_status, created_at FROM campaign_events WHERE campaign_id = $1 ORDER BY id',
    [id],
  );
  const at = (status: string) => {
    const event = events.find((e) => e.to_status === status);
    if (!event) throw new Error(`campaign ${id}: never entered ${status} (${events.map((e) => e.to_status).join(' → ')})`);
    return new Date(event.created_at).getTime();
  };
  return (at('review') - at('rendering')) / 1000;
}

async function measure(h: Harness, key: string, nodes: number): Promise<Figures> {
  const started = Array.from({ length: nodes }, (_, cpu) => pinnedRenderNode(h, `scale-render-${nodes}-${cpu}`, cpu));
  try {
    await waitForRenderers(h, nodes, 120_000);
    process.stdout.write(`${nodes} pinned node(s): batch of ${BATCH.languages.length * BATCH.platforms.length} videos … `);
    const batch = await runCampaign(h, key, { ...BATCH, quality: QUALITY }, 60 * 60_000);
    if (batch.campaign.status !== 'review') throw new Error(`the batch campaign ended ${batch.campaign.status}`);
    const seconds = await renderingSeconds(h, batch.id);
    const [window] = await h.sql<{ seconds: number }>(
      "SELECT EXTRACT(EPOCH FROM max(finished_at) - min(started_at))::float AS seconds FROM render_attempts WHERE campaign_id = $1 AND outcome = 'ready'",
      [batch.id],
    );
    const attempts = await h.sql<{ node_id: string; n: string }>(
      "SELECT node_id, count(*) AS n FROM render_attempts WHERE campaign_id = $1 AND outcome = 'ready' GROUP BY node_id",
      [batch.id],
    );
    process.stdout.write(`rendered in ${seconds.toFixed(1)} s; 3-language campaign … `);
    const t0 = Date.now();
    const e2e = await runCampaign(h, key, { ...E2E, quality: QUALITY }, 60 * 60_000);
    if (e2e.campaign.status !== 'review') throw new Error(`the 3-language campaign ended ${e2e.campaign.status}`);
    const e2eSeconds = (Date.now() - t0) / 1000;
    console.log(`review in ${e2eSeconds.toFixed(1)} s`);
    const batchVideos = batch.campaign.videos.length;
    return {
      nodes,
      batchVideos,
      renderingSeconds: seconds,
      videosPerMinute: (batchVideos / seconds) * 60,
      renderWindowSeconds: window.seconds,
      windowVideosPerMinute: (batchVideos / window.seconds) * 60,
      e2eSeconds,
      attemptsByNode: Object.fromEntries(attempts.map((a) => [a.node_id, Number(a.n)])),
    };
  } finally {
    await Promise.all(started.map((node) => node.stop()));
  }
}

async function main(): Promise<number> {
  if (os.availableParallelism() < 2) {
    console.error('bench/scale needs at least 2 cores to pin two render nodes apart');
    return 2;
  }
  // Files in a directory every node uses directly (SHARED_FILES_DIR), as render nodes on other machines use a bucket
  // (STORAGE_URL): no byte of a screenshot or video passes through the orchestrator, whose cores the nodes share here.
  const shared = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-scale-files-'));
  const h = await startHarness({
    transport: 'redis',
    render: 'dispatcher',
    config: {
      renderQuality: QUALITY,
      sharedFilesDir: shared,
      rateLimits: { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000 },
    },
  });
  try {
    const { key } = await h.newCustomer('business');
    const one = await measure(h, key, 1);
    const two = await measure(h, key, 2);
    const ratio = two.windowVideosPerMinute / one.windowVideosPerMinute;
    const stageRatio = two.videosPerMinute / one.videosPerMinute;
    console.log('');
    console.log(
      `node ${process.version}, ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), quality ${QUALITY}, RENDER_CONCURRENCY=1 per node, each node pinned with taskset, files in SHARED_FILES_DIR`,
    );
    console.log('');
    console.log(
      '| render nodes (cores) | batch | first render start → last render end | videos / min | rendering stage (with its set-up) | videos / min | 3-language campaign, submit → review | renders per node |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const f of [one, two]) {
      console.log(
        `| ${f.nodes} (${f.nodes === 1 ? 'core 0' : 'cores 0, 1'}) | ${f.batchVideos} videos | ${f.renderWindowSeconds.toFixed(1)} s | ${f.windowVideosPerMinute.toFixed(2)} | ${f.renderingSeconds.toFixed(1)} s | ${f.videosPerMinute.toFixed(2)} | ${f.e2eSeconds.toFixed(1)} s | ${Object.values(f.attemptsByNode).join(' + ')} |`,
      );
    }
    console.log('');
    console.log(
      `render throughput, 2 nodes / 1 node: ${ratio.toFixed(2)}× (target ≥ ${TARGET_RATIO}×: ${ratio >= TARGET_RATIO ? 'met' : 'missed'}); rendering stage: ${stageRatio.toFixed(2)}×`,
    );
    console.log(`3-language campaign, 1 node / 2 nodes: ${(one.e2eSeconds / two.e2eSeconds).toFixed(2)}× faster with 2`);
    return 0;
  } catch (err) {
    console.error(err);
    return 1;
  } finally {
    await h.stop();
    await fs.rm(shared, { recursive: true, force: true });
  }
}

void main().then((code) => process.exit(code));
