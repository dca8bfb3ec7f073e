/**
 * Three nodes over the real Redis transporter: the API, the worker (accounts, campaigns) and the
 * capture pool. A campaign created through the API is checked, collected and moved to processing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    transport: 'redis',
    capture: 'own-node',
    config: { rateLimits: { ipUnauthenticated: 1000, ipAuthenticated: 1000, windowMs: 60_000, redisTimeoutMs: 10_000 } },
  });
});
afterAll(async () => h?.stop());

test('a campaign goes from collecting to processing with screens and text stored; the capture runs on its own node', async () => {
  expect(h.api.getLocalService('campaigns')).toBeUndefined();
  expect(h.worker.getLocalService('capture')).toBeUndefined();
  const customer = await h.newCustomer('business');
  const created = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl, languages: ['en', 'ja'] } });
  expect(created.status).toBe(201);
  const read = () => h.request('GET', `/api/v1/campaigns/${created.body.campaign_id}`, { key: customer.key });
  const after = await waitFor(read, (res) => res.body.status !== 'collecting');
  expect(['processing', 'scripting', 'voiceover', 'rendering']).toContain(after.body.status);
  expect(after.body.progress).toBeGreaterThanOrEqual(15);

  const events = await h.sql('SELECT from_status, to_status FROM campaign_events WHERE campaign_id = $1 ORDER BY id', [
    created.body.campaign_id,
  ]);
  expect(events.slice(0, 2)).toEqual([
    { from_status: null, to_status: 'collecting' },
    { from_status: 'collecting', to_status: 'processing' },
  ]);
  const captures = await h.sql(
    'SELECT variant, language, text, brand, screenshots FROM page_captures WHERE campaign_id = $1 ORDER BY variant',
    [created.body.campaign_id],
  );
  expect(captures.map((c) => c.variant)).toEqual(['ja', 'source']);
  const [ja, source] = captures;
  expect(source.language).toBe('en');
  expect(ja.language).toBe('ja');
  expect(source.text.title).toMatch(/Acme Analytics/);
  expect(ja.text.main_text).toMatch(/[\u3040-\u30ff\u4e00-\u9faf]/);
  expect(source.brand.theme_color).toBe('#3a5bd9');
  const viewports = new Set(source.screenshots.map((s: { viewport: string }) => s.viewport));
  expect(viewports).toEqual(new Set(['desktop', 'mobile']));
  for (const shot of source.screenshots) {
    const file = path.join(h.config.dataDir, 'files', shot.key);
    expect(fs.readFileSync(file).subarray(1, 4).toString()).toBe('PNG');
  }
}, 120_000);
