/**
 * One owner per table: moleculer-db's generated actions (which would read or write any organization's
 * rows) are not callable on the broker; the owner's own actions scope by organization where a customer asks.
 */
import { GENERATED_ACTIONS } from '../../mixins/db.mixin';
import { startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { pipelinePaused: true }, render: 'worker' });
});
afterAll(async () => h?.stop());

const OWN_ACTIONS = new Set(['campaigns.create', 'campaigns.get', 'campaigns.list']);
const DB_BACKED = ['accounts', 'campaigns', 'capture', 'script', 'voice', 'files', 'webhooks', 'rendering'];

test('no generated action of any database-backed service answers, so no call can cross organizations', async () => {
  const a = await h.newCustomer('business');
  const b = await h.newCustomer('business');
  const created = await h.request('POST', '/api/v1/campaigns', { key: b.key, body: { url: h.pageUrl } });
  expect(created.status).toBe(201);
  const services = h.worker.registry.getServiceList({ onlyLocal: true }).map((service) => service.name);
  for (const name of DB_BACKED) expect(services).toContain(name);
  for (const service of [...DB_BACKED, 'ops']) {
    for (const action of GENERATED_ACTIONS) {
      const name = `${service}.${action}`;
      const outcome = await h.worker.call(name, { id: created.body.campaign_id, query: { org_id: b.orgId } }).then(
        () => 'answered',
        (err: { type?: string }) => err.type,
      );
      // campaigns.create, .get and .list are the owner's own actions (the API's and the dashboard's): they refuse a call without an organization.
      const expected = OWN_ACTIONS.has(name) ? expect.stringMatching(/^(unauthorized|invalid_input)$/) : 'SERVICE_NOT_FOUND';
      expect({ name, outcome }).toEqual({ name, outcome: expected });
    }
  }
  // The owner's customer-facing read stays scoped: organization A cannot read B's campaign.
  const foreign = await h.request('GET', `/api/v1/campaigns/${created.body.campaign_id}`, { key: a.key });
  expect(foreign.status).toBe(404);
});

test("the campaign actor's outbox is its own table; the dispatcher alone writes deliveries, one per event even when taken over twice", async () => {
  const customer = await h.newCustomer('business');
  const created = await h.request('POST', '/api/v1/campaigns', {
    key: customer.key,
    body: { url: h.pageUrl, webhook_url: 'http://127.0.0.1:9/hook' },
  });
  expect(created.status).toBe(201);
  const id = created.body.campaign_id as string;
  await h.call('campaigns.transition', { campaign_id: id, to: 'failed', error_code: 'render_failed', error_message: 'x' });
  const [event] = await h.sql('SELECT event_id, event_type FROM campaign_webhook_events WHERE campaign_id = $1', [id]);
  expect(event).toEqual({ event_id: expect.stringMatching(/^evt_/), event_type: 'campaign.failed' });
  const deliveries = () => h.sql('SELECT event_id FROM webhook_deliveries WHERE campaign_id = $1', [id]);
  const handedOver = () => h.sql('SELECT handed_over_at FROM campaign_webhook_events WHERE campaign_id = $1', [id]);
  await waitFor(handedOver, (rows) => rows[0]?.handed_over_at !== null, 10_000, 100);
  expect(await deliveries()).toEqual([{ event_id: event.event_id }]);
  // A dispatcher that died after making the delivery but before saying so takes the event over again: still one delivery.
  await h.sql('UPDATE campaign_webhook_events SET handed_over_at = NULL WHERE campaign_id = $1', [id]);
  await h.worker.emit('webhooks.enqueued', { campaign_id: id });
  await waitFor(handedOver, (rows) => rows[0]?.handed_over_at !== null, 10_000, 100);
  expect(await deliveries()).toEqual([{ event_id: event.event_id }]);
});
