/**
 * Render nodes over the real Redis transporter, each a process of its own started as operators start
 * one (SERVICES=renderer TRANSPORTER=redis://…), with no disk shared with the rest of the cluster.
 * A node joins mid-campaign and takes work; a node SIGKILLed mid-render has its video redone on the
 * other; every video of the campaign ends ready, and nothing half-written is left.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { probeVideo } from '../../lib/render/media';
import { CHECK_NOT_THE_SUBJECT_ENV, startHarness, type Harness } from '../support/harness';
import { startRenderNode, waitForRenderers, type RenderNode } from '../support/render-node';
import { waitFor } from '../support/wait';

// Generous: these tests are about the pipeline, not the limiter (whose Redis deadline a loaded CI machine can miss).
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
const nodes: RenderNode[] = [];

beforeAll(async () => {
  h = await startHarness({
    transport: 'redis',
    render: 'dispatcher',
    // The worker's own drain at the end is not what this file tests: should a call still run on it then (seen twice
    // on a loaded machine, after the campaign was in review), its stop gives it 20 s, not the 5 minutes of DRAIN_TIMEOUT.
    config: { rateLimits: limits, videoTargetSeconds: 12, captureMaxShots: 3, drainTimeoutMs: 20_000 },
  });
});
// A node stops by draining: a render it still holds (a retry sent late in the test) is waited for, on a loaded machine longer than Jest's default minute.
afterAll(async () => {
  await Promise.allSettled(nodes.map((node) => node.stop()));
  await h?.stop();
}, 180_000);

async function busy(nodeID: string): Promise<number> {
  const status = await h.worker
    .call<{ busy: number }, Record<string, unknown>>('renderer.status', {}, { nodeID, retries: 0, timeout: 3000 })
    .catch(() => ({ busy: 0 }));
  return status.busy;
}

test('work spreads to a node that joins mid-campaign; a node killed mid-render loses no video', async () => {
  const first = startRenderNode(h, `${h.config.namespace}-render-a`, { ...CHECK_NOT_THE_SUBJECT_ENV });
  nodes.push(first);
  await waitForRenderers(h);

  const { key } = await h.newCustomer('business');
  const created = await h.request('POST', '/api/v1/campaigns', {
    key,
    body: { url: h.pageUrl, languages: ['en', 'ja'], platforms: ['tiktok', 'linkedin'] },
  });
  expect(created.status).toBe(201);
  const id = created.body.campaign_id;
  await waitFor(
    () => busy(first.nodeID),
    (n) => n === 1,
    240_000,
    250,
  );

  // A second node joins while the first renders, and is given work (one slot each: never two on one node).
  const second = startRenderNode(h, `${h.config.namespace}-render-b`, { ...CHECK_NOT_THE_SUBJECT_ENV });
  nodes.push(second);
  await waitFor(
    () => busy(second.nodeID),
    (n) => n === 1,
    120_000,
    250,
  );
  expect(await busy(first.nodeID)).toBeLessThanOrEqual(1);

  // Kill the first node in the middle of a render.
  await waitFor(
    () => busy(first.nodeID),
    (n) => n === 1,
    120_000,
    100,
  );
  const killedAt = Date.now();
  first.process.kill('SIGKILL');

  const done = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${id}`, { key }),
    (res) => ['review', 'failed'].includes(res.body.status),
    300_000,
    500,
  );
  expect(done.body.error).toBeUndefined();
  expect(done.body.status).toBe('review');
  expect(done.body.videos.map((v: { status: string }) => v.status)).toEqual(['ready', 'ready', 'ready', 'ready']);

  const attempts = await h.sql(
    "SELECT video_id, node_id, outcome, started_at, finished_at FROM render_attempts WHERE campaign_id = $1 AND outcome <> 'busy' ORDER BY id",
    [id],
  );
  const lost = attempts.filter((a) => a.outcome === 'lost');
  expect(lost.length).toBeGreaterThanOrEqual(1);
  expect(lost.every((a) => a.node_id === first.nodeID)).toBe(true);
  // The lost video is redone on the surviving node, within seconds of the kill (heartbeat timeout), not a minute.
  const redo = attempts.find((a) => a.video_id === lost[0].video_id && a.outcome === 'ready');
  expect(redo?.node_id).toBe(second.nodeID);
  const noticedAfterMs = new Date(lost[0].finished_at).getTime() - killedAt;
  expect(noticedAfterMs).toBeLessThan(20_000);
  const readyNodes = new Set(attempts.filter((a) => a.outcome === 'ready').map((a) => a.node_id));
  expect(readyNodes.has(second.nodeID)).toBe(true);

  // The files live in the store (the worker's disk), not on the render nodes; nothing half-written anywhere.
  const rows = await h.sql('SELECT file_key FROM videos WHERE campaign_id = $1', [id]);
  for (const row of rows) {
    const probe = await probeVideo(path.join(h.config.dataDir, 'files', row.file_key));
    expect(probe).toMatchObject({ videoCodec: 'h264', pixelFormat: 'yuv420p', audioCodec: 'aac', faststart: true });
  }
  const stored = fs.readdirSync(path.join(h.config.dataDir, 'files'), { recursive: true }) as string[];
  expect(stored.filter((name) => name.endsWith('~partial'))).toEqual([]);
  for (const node of nodes) expect(fs.existsSync(path.join(node.dataDir, 'files'))).toBe(false);
  // The killed node's editly process died with it and took its work directory along.
  await waitFor(
    async () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`render-${first.process.pid}-`)),
    (left) => left.length === 0,
    10_000,
    250,
  );
}, 600_000);
