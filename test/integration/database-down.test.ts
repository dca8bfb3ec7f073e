/**
 * The database down: with a PostgreSQL of the test's own stopped (`pg_ctl stop -m fast`, as a
 * restart begins), every /api/v1 endpoint answers 503 `internal` with Retry-After (the key check included), /readyz
 * says the database is what is down, quickly, and the dashboard shows a page saying so; once PostgreSQL is back the
 * same requests answer 200 again (the pool recovers), and the campaign that was running is not failed for it.
 */
import { SESSION_COOKIE } from '../../lib/http/session';
import { DatabaseUnavailableError, RETRY_AFTER_SECONDS } from '../../lib/errors';
import { startHarness, type Harness } from '../support/harness';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server';
import { waitFor } from '../support/wait';

jest.setTimeout(300_000);

const PASSWORD = 'correct horse battery staple';

let db: PostgresServer;
let h: Harness;
let key: string;
let session: string;
let campaignId: string;

beforeAll(async () => {
  db = await startPostgresServer();
  // A short lease: a campaign whose actor met the outage is taken up again by the sweep soon after.
  h = await startHarness({ config: { databaseUrl: db.url, campaignLeaseMs: 3000 } });
  const customer = await h.newCustomer('business');
  key = customer.key;
  await h.call('accounts.addUser', { org_id: customer.orgId, email: 'dash@test.example', role: 'owner', password: PASSWORD });
  const signedIn = await h.call<{ token: string }>('accounts.signIn', { email: 'dash@test.example', password: PASSWORD });
  session = signedIn.token;
  const created = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, languages: ['en'] } });
  expect(created.status).toBe(201);
  campaignId = created.body.campaign_id;
});

afterAll(async () => {
  await h?.stop();
  await db?.destroy();
});

const dashboardPage = (path: string) =>
  fetch(`${h.baseUrl}${path}`, { headers: { Cookie: `${SESSION_COOKIE}=${session}` }, redirect: 'manual' });

test('the database down: 503 with Retry-After everywhere, /readyz names it, the dashboard says so; then it recovers', async () => {
  expect((await h.request('GET', `/api/v1/campaigns/${campaignId}`, { key })).status).toBe(200);
  expect((await dashboardPage(`/dashboard/campaigns/${campaignId}`)).status).toBe(200);

  await db.stop();

  const documented = { success: false, error: { code: 'internal', message: DatabaseUnavailableError.MESSAGE } };
  const requests: Array<[string, string, unknown?]> = [
    ['GET', `/api/v1/campaigns/${campaignId}`],
    ['GET', '/api/v1/campaigns'],
    ['POST', '/api/v1/campaigns', { url: h.pageUrl, languages: ['en'] }],
  ];
  for (const [method, route, body] of requests) {
    const res = await h.request(method, route, { key, body });
    expect({ route: `${method} ${route}`, status: res.status, body: res.body }).toEqual({
      route: `${method} ${route}`,
      status: 503,
      body: documented,
    });
    expect(res.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  }

  // Readiness names the dependency that is down, and answers in bounded time.
  const askedAt = Date.now();
  const ready = await h.request('GET', '/readyz');
  expect(Date.now() - askedAt).toBeLessThan(5000);
  expect(ready.status).toBe(503);
  expect(ready.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  expect(ready.body.status).toBe('not_ready');
  expect(ready.body.checks.database).toBe('unreachable');
  for (const [name, state] of Object.entries(ready.body.checks as Record<string, string>)) {
    if (name !== 'database') expect(`${name}: ${state}`).toBe(`${name}: ok`);
  }

  // The dashboard: a page, not a 500 or a raw error; its status poll, the standard JSON body.
  const page = await dashboardPage(`/dashboard/campaigns/${campaignId}`);
  const html = await page.text();
  expect(page.status).toBe(503);
  expect(page.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  expect(html).toContain('Temporarily unavailable');
  expect(html).toContain('reach our database right now; try again in a few seconds.');
  expect(html).toContain(`href="/dashboard/campaigns/${campaignId}">Try again</a>`);
  expect(html).not.toMatch(/ECONNREFUSED|Sequelize|Internal error/);
  const poll = await dashboardPage(`/dashboard/campaigns/${campaignId}/status`);
  expect(poll.status).toBe(503);
  expect(poll.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  expect(await poll.json()).toEqual(documented);

  await db.start();

  const back = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${campaignId}`, { key }),
    (res) => res.status === 200,
    30_000,
    500,
  );
  expect(back.status).toBe(200);
  expect((await h.request('GET', '/readyz')).status).toBe(200);
  expect((await dashboardPage(`/dashboard/campaigns/${campaignId}`)).status).toBe(200);

  // The campaign was not failed for the outage: it goes on to rendering, where it waits (no renderer here).
  const onward = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${campaignId}`, { key }),
    (res) => res.status === 200 && ['rendering', 'failed'].includes(res.body.status),
    180_000,
    1000,
  );
  expect({ status: onward.body.status, error: onward.body.error }).toEqual({ status: 'rendering', error: undefined });
});
