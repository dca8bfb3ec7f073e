/**
 * A render node drained by SIGTERM, over Redis, with two render nodes started as operators start
 * them. The node that holds a render in flight gets SIGTERM: it takes nothing new (the other node gets the rest,
 * and the operators' view says draining), its render finishes there and is not redone, then it leaves the cluster;
 * the campaign completes.
 */
import fs from 'node:fs';
import { startHarness, type Harness } from '../support/harness';
import { startRenderNode, waitForRenderers, type RenderNode } from '../support/render-node';
import { waitFor } from '../support/wait';
import type { RenderNodesView } from '../../lib/ops/queries';
import OpsService from '../../services/ops.service';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
const nodes: RenderNode[] = [];

beforeAll(async () => {
  h = await startHarness({
    transport: 'redis',
    render: 'dispatcher',
    config: { rateLimits: limits, videoTargetSeconds: 15, captureMaxShots: 2 },
  });
}, 120_000);
afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  await h?.stop();
}, 120_000);

/** The node's editly children still running. */
function editlyChildren(node: RenderNode): number[] {
  return node.leftovers().filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('editly-child');
    } catch {
      return false;
    }
  });
}

test('SIGTERM mid-render: the render finishes on that node and is not redone, the node leaves, the campaign completes', async () => {
  // One slot each: the drained node holds exactly one render, the other node takes the rest.
  for (const name of ['a', 'b']) nodes.push(startRenderNode(h, `${h.config.namespace}-render-${name}`, { RENDER_CONCURRENCY: '1' }));
  await waitForRenderers(h, 2);
  h.worker.createService(OpsService);
  const { key } = await h.newCustomer('business');
  const created = await h.request('POST', '/api/v1/campaigns', {
    key,
    body: { url: h.pageUrl, languages: ['en', 'ja'], platforms: ['tiktok'] },
  });
  expect(created.status).toBe(201);
  const id = created.body.campaign_id as string;

  const busy = await waitFor(
    async () => nodes.find((node) => editlyChildren(node).length > 0),
    (node) => node !== undefined,
    240_000,
    100,
  );
  const drained = busy!;
  // Which video it renders, as the node itself says (the attempt's node is recorded when the render answers).
  const status = await h.worker.call<{ videos: string[] }, Record<string, never>>('renderer.status', {}, { nodeID: drained.nodeID });
  expect(status.videos).toHaveLength(1);
  const [videoId] = status.videos;
  drained.kill('SIGTERM');
  const termAt = Date.now();

  // Draining: the operators' view says so while its render runs.
  const view = await waitFor(
    () => h.worker.call<RenderNodesView>('ops.renderNodes'),
    (v) => v.nodes.some((n) => n.node_id === drained.nodeID && n.draining),
    10_000,
    100,
  );
  expect(view.nodes.find((n) => n.node_id === drained.nodeID)).toMatchObject({ draining: true });
  expect(view.nodes.find((n) => n.node_id !== drained.nodeID)).toMatchObject({ draining: false });
  // And /metrics: render_node_draining is 1 for it, 0 for the other; it offers no free slot.
  const metrics = String((await h.request('GET', '/metrics')).body);
  expect(metrics).toContain(`campaign_video_render_node_draining{node="${drained.nodeID}"} 1`);
  expect(metrics).toMatch(new RegExp(`campaign_video_render_node_draining\\{node="[^"]*-render-[ab]"\\} 0`));
  expect(metrics).toContain(`campaign_video_render_slots{node="${drained.nodeID}",state="free"} 0`);

  await drained.exit();
  const leftAfterMs = Date.now() - termAt;
  const done = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${id}`, { key }),
    (res) => ['review', 'failed'].includes(res.body.status),
    240_000,
    500,
  );
  expect(done.body.status).toBe('review');

  const attempts = await h.sql<{ video_id: string; node_id: string; outcome: string }>(
    "SELECT video_id, node_id, outcome FROM render_attempts WHERE campaign_id = $1 AND outcome <> 'busy' ORDER BY id",
    [id],
  );
  // The drained node's video: one attempt, finished there; nothing lost, nothing redone.
  expect(attempts.filter((a) => a.video_id === videoId)).toEqual([{ video_id: videoId, node_id: drained.nodeID, outcome: 'ready' }]);
  expect(attempts.every((a) => a.outcome === 'ready')).toBe(true);
  // Nothing new went to it after the SIGTERM: every other video was rendered by the other node.
  const other = nodes.find((node) => node !== drained)!;
  expect(attempts.filter((a) => a.video_id !== videoId).every((a) => a.node_id === other.nodeID)).toBe(true);
  // Moleculer's context tracking held the stop for it; nothing was given back.
  expect(drained.output()).toMatch(/Waiting for 1 running context/);
  expect(drained.output()).not.toMatch(/given back/);
  console.log(`drain test: the drained node finished its render and left ${leftAfterMs} ms after SIGTERM`);
}, 400_000);
