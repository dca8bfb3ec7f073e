/**
 * Nodes over the real Redis transporter: the API on one broker, accounts and campaigns on another.
 * Also the stage interface: a campaign waits in its state until a service offering that stage joins.
 */
import { ServiceBroker, type ServiceSchema } from 'moleculer';
import { brokerOptions } from '../../config/broker';
import { startHarness, TEST_REDIS_URL, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ transport: 'redis', config: { rateLimits: { ipUnauthenticated: 1000, ipAuthenticated: 1000, windowMs: 60_000 } } });
});
afterAll(async () => h?.stop());

async function waitFor<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('create and read go through the gateway to a campaigns service on another node', async () => {
  expect(h.api.getLocalService('campaigns')).toBeUndefined();
  const customer = await h.newCustomer('business');
  const created = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: 'http://127.0.0.1:9/', languages: ['en'] } });
  expect(created.status).toBe(201);
  const read = await h.request('GET', `/api/v1/campaigns/${created.body.campaign_id}`, { key: customer.key });
  expect(read.status).toBe(200);
  expect(read.body.status).toBe('collecting');
});

test('a campaign waits in collecting until a node offering capture.collect joins, then moves on and waits again', async () => {
  const customer = await h.newCustomer('business');
  const created = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: 'http://127.0.0.1:9/', languages: ['en'] } });
  const read = () => h.request('GET', `/api/v1/campaigns/${created.body.campaign_id}`, { key: customer.key });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect((await read()).body.status).toBe('collecting');

  // A stand-in for the capture pool (issue 3), on its own node: it only reports the stage done.
  const collected: string[] = [];
  const stage: ServiceSchema = {
    name: 'capture',
    actions: { collect: { visibility: 'public', handler: (ctx: any) => { collected.push(ctx.params.campaign_id); return { ok: true }; } } },
  };
  const captureNode = new ServiceBroker({ ...brokerOptions(h.config), nodeID: `capture-${h.config.namespace}`, transporter: TEST_REDIS_URL as any, logger: false });
  captureNode.createService(stage);
  await captureNode.start();
  try {
    const after = await waitFor(read, (res) => res.body.status === 'processing');
    expect(after.body.status).toBe('processing');
    expect(after.body.progress).toBe(15);
    expect(collected).toContain(created.body.campaign_id);
    const events = await h.sql('SELECT from_status, to_status FROM campaign_events WHERE campaign_id = $1 ORDER BY id', [created.body.campaign_id]);
    expect(events).toEqual([{ from_status: null, to_status: 'collecting' }, { from_status: 'collecting', to_status: 'processing' }]);
  } finally {
    await captureNode.stop();
  }
});
