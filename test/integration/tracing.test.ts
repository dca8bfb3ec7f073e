/**
 * Tracing over the real Redis transporter: TRACING_EXPORTER=event makes each node emit its finished
 * spans as `$tracing.spans`; a collector on the worker gathers them. One campaign, run from create to review with
 * capture on a node of its own, leaves spans of its stages on both nodes, all with the campaign id as trace id.
 */
import { loadConfig } from '../../config';
import { STAGE_ACTIONS } from '../../lib/campaign/states';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { runCampaign } from '../support/campaign-run';
import { spanCollector, type ExportedSpan } from '../support/spans';
import { waitFor } from '../support/wait';

const spans: ExportedSpan[] = [];

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    transport: 'redis',
    capture: 'own-node',
    render: 'worker',
    workerServices: [spanCollector(spans)],
    config: {
      ...CHECK_NOT_THE_SUBJECT,
      rateLimits: limits,
      videoTargetSeconds: 10,
      captureMaxShots: 2,
      tracing: { exporter: 'event', zipkinUrl: '' },
    },
  });
}, 120_000);
afterAll(async () => h?.stop());

test("one campaign's spans, on every node that worked on it, share the campaign id as their trace id", async () => {
  const { key } = await h.newCustomer('business');
  const { id, campaign } = await runCampaign(h, key, { languages: ['en'], platforms: ['tiktok'], quality: 'draft' });
  expect(campaign.status).toBe('review');

  const stages = [...Object.values(STAGE_ACTIONS), 'renderer.renderVideo'];
  // Each node sends its finished spans every second.
  const traced = await waitFor(
    async () => spans.filter((span) => span.traceID === id),
    (found) => stages.every((stage) => found.some((span) => span.tags.action?.name === stage)),
    15_000,
    250,
  );
  const byAction = new Map(traced.map((span) => [span.tags.action?.name, span]));
  // Capture ran on its own node, the other stages on the worker: one trace across both.
  expect(byAction.get('capture.collect')?.tags.nodeID).toBe(h.captureNode!.nodeID);
  expect(byAction.get('voice.speak')?.tags.nodeID).toBe(h.worker.nodeID);
  // Calls a stage makes to other actors join the campaign's trace too (the script stage, on the worker, reads the
  // captured pages from capture, on its own node). The actor hands each stage its input; only the rendering stage
  // reads its videos afresh (their state changes while it runs), once.
  expect(traced.filter((span) => span.tags.action?.name === 'capture.pages').map((s) => s.tags.nodeID)).toContain(h.captureNode!.nodeID);
  expect(traced.filter((span) => span.tags.action?.name === 'campaigns.stageInput')).toHaveLength(1);
}, 300_000);

test('TRACING_EXPORTER chooses the exporter; tracing is off by default; an unknown exporter stops the start', () => {
  expect(loadConfig({}).tracing).toEqual({ exporter: 'none', zipkinUrl: 'http://127.0.0.1:9411' });
  expect(loadConfig({ TRACING_EXPORTER: 'zipkin', TRACING_ZIPKIN_URL: 'http://jaeger:9411/' }).tracing).toEqual({
    exporter: 'zipkin',
    zipkinUrl: 'http://jaeger:9411',
  });
  expect(() => loadConfig({ TRACING_EXPORTER: 'jaegerx' })).toThrow(/TRACING_EXPORTER/);
});
