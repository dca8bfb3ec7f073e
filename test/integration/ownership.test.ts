/**
 * One owner per table: moleculer-db's generated actions (which would read or write any organization's
 * rows) are not callable on the broker; the owner's own actions scope by organization where a customer asks.
 */
import { GENERATED_ACTIONS } from '../../mixins/db.mixin';
import { startHarness, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { pipelinePaused: true }, render: 'worker' });
});
afterAll(async () => h?.stop());

const OWN_ACTIONS = new Set(['campaigns.create', 'campaigns.get']);
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
      // campaigns.create and campaigns.get are the owner's own actions (the API's): they refuse a call without an organization's key.
      const expected = OWN_ACTIONS.has(name) ? expect.stringMatching(/^(unauthorized|invalid_input)$/) : 'SERVICE_NOT_FOUND';
      expect({ name, outcome }).toEqual({ name, outcome: expected });
    }
  }
  // The owner's customer-facing read stays scoped: organization A cannot read B's campaign.
  const foreign = await h.request('GET', `/api/v1/campaigns/${created.body.campaign_id}`, { key: a.key });
  expect(foreign.status).toBe(404);
});
