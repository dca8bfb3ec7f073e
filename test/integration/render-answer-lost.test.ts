/**
 * Found by bench/redis-soak: a render node's answer can be lost in transit (Redis pub/sub keeps nothing
 * for a subscriber that is reconnecting). The rendering stage then waited for the call's timeout, minutes, with the
 * node idle. Now it asks the node about the render every 10 s, and once the node no longer renders the video and no
 * answer came, the attempt ends `lost` and the video is sent again. The answer is dropped here on the real render
 * node, where its transit would publish it.
 */
import crypto from 'node:crypto';
import { ServiceBroker } from 'moleculer';
import { brokerOptions } from '../../broker-options';
import RendererService from '../../services/renderer.service';
import { ANNOUNCE_SOON, CHECK_NOT_THE_SUBJECT, LOOK_EVERY_MS, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
let renderNode: ServiceBroker;

beforeAll(async () => {
  h = await startHarness({
    render: 'dispatcher',
    config: { ...CHECK_NOT_THE_SUBJECT, rateLimits: limits, renderQuality: 'draft', videoTargetSeconds: 10, captureMaxShots: 2 },
  });
  renderNode = new ServiceBroker({
    ...brokerOptions({ ...h.config, renderConcurrency: 1 }),
    ...ANNOUNCE_SOON,
    nodeID: `render-${crypto.randomBytes(3).toString('hex')}`,
    transporter: 'Fake',
    logger: false,
  });
  renderNode.createService(RendererService);
  await renderNode.start();
  await h.worker.waitForServices(['renderer'], undefined, LOOK_EVERY_MS);
}, 120_000);

afterAll(async () => {
  await renderNode?.stop();
  await h?.stop();
});

test('a render whose answer never arrives ends lost and is sent again, long before the call would time out', async () => {
  // The first answer of a finished render (it carries the video's file) is lost on its way.
  const transit = renderNode.transit! as unknown as { sendResponse(...args: unknown[]): unknown };
  const send = transit.sendResponse.bind(transit);
  let dropped = 0;
  transit.sendResponse = (...args: unknown[]) => {
    const data = args[4] as { file_key?: string } | undefined;
    if (dropped === 0 && data?.file_key) {
      dropped += 1;
      return Promise.resolve();
    }
    return send(...args);
  };

  const { key } = await h.newCustomer('business');
  const created = await h.request('POST', '/api/v1/campaigns', {
    key,
    body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'] },
  });
  expect(created.status).toBe(201);
  const id: string = created.body.campaign_id;
  const done = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${id}`, { key }),
    (res) => ['review', 'failed'].includes(res.body.status),
    300_000,
    500,
  );
  expect(done.body.status).toBe('review');
  expect(dropped).toBe(1);

  const attempts = await h.sql<{ node_id: string; outcome: string; error_message: string | null; seconds: number }>(
    "SELECT node_id, outcome, error_message, EXTRACT(EPOCH FROM finished_at - started_at)::float AS seconds FROM render_attempts WHERE campaign_id = $1 AND outcome <> 'busy' ORDER BY id",
    [id],
  );
  expect(attempts.map((a) => a.outcome)).toEqual(['lost', 'ready']);
  expect(attempts[0].node_id).toBe(renderNode.nodeID);
  expect(attempts[0].error_message).toMatch(/no longer renders the video and its answer never came/);
  // Noticed by the watch (every 10 s, two checks), not by the call's timeout (RENDER_TIMEOUT + 60 s).
  expect(attempts[0].seconds).toBeLessThan(60);
}, 360_000);
