/**
 * The node running a campaign's rendering stage is SIGKILLed while a render node renders one of its
 * videos. The render attempt it had open can never hear its answer; the actor that takes the campaign over closes it
 * as `lost` (naming the render node it was sent to) before rendering again, so that when the campaign reaches review
 * every attempt has a final outcome, in the database and in the customer's report. Real PostgreSQL, Redis, Chromium,
 * espeak-ng, editly; each node a process of its own, started as an operator starts one.
 */
import { CHECK_NOT_THE_SUBJECT_ENV, startHarness, type Harness } from '../support/harness';
import { offers, orchestratorEnv, startNodeProcess, stopHarnessWorker, type NodeProcess } from '../support/node-process';
import { startRenderNode } from '../support/render-node';
import { waitFor } from '../support/wait';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
/** Every service of a campaign but the renderer: render nodes are processes of their own here. */
const ORCHESTRATOR_SERVICES = ['accounts', 'campaigns', 'capture', 'script', 'voice', 'rendering', 'files', 'webhooks', 'reports'];
const FINAL_OUTCOMES = ['ready', 'failed', 'lost', 'busy', 'canceled'];

interface AttemptRow {
  id: number;
  video_id: string;
  node_id: string | null;
  outcome: string;
  error_message: string | null;
  finished_at: Date | null;
}

let h: Harness;
const nodes: NodeProcess[] = [];

beforeAll(async () => {
  h = await startHarness({ transport: 'redis', config: { rateLimits: limits } });
}, 120_000);
afterAll(async () => {
  await Promise.allSettled(nodes.map((node) => node.stop()));
  await h?.stop();
}, 120_000);

function orchestrator(name: string): NodeProcess {
  const node = startNodeProcess(h, {
    nodeID: `${h.config.namespace}-orchestrator-${name}`,
    services: ORCHESTRATOR_SERVICES,
    dataDir: h.config.dataDir,
    detached: true,
    keepOutputChars: 40_000,
    env: orchestratorEnv(h, { CAMPAIGN_LEASE: '4s', CAMPAIGN_SWEEP_INTERVAL: '1s', LOG_LEVEL: 'info' }),
  });
  nodes.push(node);
  return node;
}

async function joined(node: NodeProcess, actions: string[]): Promise<void> {
  const ok = await waitFor(async () => actions.every((action) => offers(h.api, action, node.nodeID)), Boolean, 90_000, 200);
  expect({ node: node.nodeID, joined: ok, exited: node.exited() }).toEqual({ node: node.nodeID, joined: true, exited: false });
}

const attemptsOf = (id: string) =>
  h.sql<AttemptRow>(
    'SELECT id, video_id, node_id, outcome, error_message, finished_at FROM render_attempts WHERE campaign_id = $1 ORDER BY id',
    [id],
  );

test('the orchestrator SIGKILLed mid-render: its open attempt ends lost, every attempt ends final, the report says so', async () => {
  try {
    const { key } = await h.newCustomer('business');
    await stopHarnessWorker(h);

    const renderNode = startRenderNode(h, `${h.config.namespace}-render`, { ...CHECK_NOT_THE_SUBJECT_ENV });
    nodes.push(renderNode);
    const first = orchestrator('a');
    await joined(first, ['campaigns.create', 'accounts.authenticate', 'capture.check']);
    await joined(renderNode, ['renderer.renderVideo']);

    const created = await h.request('POST', '/api/v1/campaigns', {
      key,
      body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok', 'linkedin'] },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.campaign_id;

    // A render is under way on the render node, sent by the first orchestrator.
    const open = await waitFor(
      () => attemptsOf(id),
      (rows) => rows.some((row) => row.outcome === 'rendering' && row.node_id === renderNode.nodeID),
      240_000,
      50,
    );
    const killedAttempt = open.find((row) => row.outcome === 'rendering' && row.node_id === renderNode.nodeID)!;
    first.kill('SIGKILL');
    await first.exit();

    // Nobody closes it while no actor runs.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await attemptsOf(id)).find((row) => row.id === killedAttempt.id)?.outcome).toBe('rendering');

    const second = orchestrator('b');
    await joined(second, ['campaigns.create', 'accounts.authenticate']);
    const done = await waitFor(
      async () => (await h.sql<{ status: string }>('SELECT status FROM campaigns WHERE id = $1', [id]))[0].status,
      (status) => ['review', 'failed'].includes(status),
      300_000,
      500,
    );
    expect(done).toBe('review');

    const attempts = await attemptsOf(id);
    expect(attempts.filter((row) => !FINAL_OUTCOMES.includes(row.outcome) || !row.finished_at)).toEqual([]);
    const killed = attempts.find((row) => row.id === killedAttempt.id)!;
    expect({ outcome: killed.outcome, node: killed.node_id }).toEqual({ outcome: 'lost', node: renderNode.nodeID });
    expect(killed.error_message).toMatch(/rendering stage stopped/);
    // Each video ended with one ready attempt.
    const ready = attempts.filter((row) => row.outcome === 'ready');
    expect(new Set(ready.map((row) => row.video_id)).size).toBe(2);

    // The customer's report shows the lost attempt as lost, and none still rendering.
    const read = await h.request('GET', `/api/v1/campaigns/${id}`, { key });
    const report = await h.request('GET', `/api/v1/reports/${read.body.report_id}`, { key });
    expect(report.status).toBe(200);
    const outcomes = JSON.stringify(report.body).match(/"outcome":"[a-z]+"/g) ?? [];
    expect(outcomes).toContain('"outcome":"lost"');
    expect(outcomes).not.toContain('"outcome":"rendering"');
  } catch (err) {
    for (const node of nodes) console.log(`--- output of ${node.nodeID} (tail) ---\n${node.output().slice(-15_000)}`);
    throw err;
  }
}, 600_000);
