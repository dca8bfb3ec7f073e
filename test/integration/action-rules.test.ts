/**
 * The rules actions declare (scope, plan rate, dashboard access) are the broker's (mixins/action-rules.ts), not a
 * door's: the API, the dashboard and a direct broker call (the REPL's, the admin tool's) meet the same rule and the
 * same error, and share one budget. Real PostgreSQL and Redis; the actions run on the harness's worker node.
 */
import { dashboardSession, followRedirect, postForm, type DashboardSession } from '../support/dashboard-session';
import { startHarness, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    config: { pipelinePaused: true, rateLimits: { ipUnauthenticated: 1000, ipAuthenticated: 1000, windowMs: 60_000 } },
  });
});
afterAll(async () => h?.stop());

function dashboardCreate(session: DashboardSession): Promise<Response> {
  return postForm(h, session, '/dashboard/campaigns', { url: h.pageUrl, languages: 'en', platforms: 'tiktok' });
}

test("the plan's rate is one budget for the API and the dashboard, and both refuse past it (429; the dashboard's form says so in words)", async () => {
  const growth = await h.newCustomer('growth'); // 10 creations a minute
  const session = await dashboardSession(h, growth.orgId);
  const api = await Promise.all(
    Array.from({ length: 6 }, () =>
      h.request('POST', '/api/v1/campaigns', { key: growth.key, body: { url: h.pageUrl, languages: ['en'] } }),
    ),
  );
  expect(api.map((r) => r.status)).toEqual(Array(6).fill(201));
  const dashboard: Response[] = [];
  for (let i = 0; i < 4; i++) dashboard.push(await dashboardCreate(session));
  expect(dashboard.map((r) => r.status)).toEqual([303, 303, 303, 303]);
  // The budget is spent, through either door. The dashboard's form answers by post/redirect/get: back to the form, the
  // refusal in words (its one-time flash), and nothing created.
  const refused = await followRedirect(h, session, await dashboardCreate(session));
  expect(refused.location).toBe('/dashboard/campaigns/new');
  expect(refused.text).toMatch(/Too many campaigns created this minute on your plan\. Try again in \d+ s\./);
  const refusedApi = await h.request('POST', '/api/v1/campaigns', { key: growth.key, body: { url: h.pageUrl, languages: ['en'] } });
  expect(refusedApi.status).toBe(429);
  expect(refusedApi.body).toEqual({ error: 'Too many requests' });
  expect(refusedApi.headers.get('x-ratelimit-limit')).toBe('10');
  expect(refusedApi.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(Number(refusedApi.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
});

test("a direct broker call carrying a customer's identity meets the same scope and rate rules as the gateway", async () => {
  const readOnly = await h.newCustomer('growth', ['campaigns:read']);
  const auth = await h.call<{ orgId: string; scopes: string[] }>('accounts.authenticate', { key: readOnly.key });
  expect(auth.scopes).toEqual(['campaigns:read']);
  const scoped = await h.worker.call('campaigns.create', { url: h.pageUrl, languages: ['en'] }, { meta: { auth } }).then(
    () => 'created',
    (err: { code?: number; type?: string; message?: string }) => `${err.code} ${err.type}: ${err.message}`,
  );
  expect(scoped).toBe('403 forbidden: This API key lacks the campaigns:create scope. Create a new key to obtain it.');
  // Reports need reports:read: refused for this key whichever door it comes through.
  const report = await h.request('GET', '/api/v1/reports/usage', { key: readOnly.key });
  expect(report.status).toBe(403);

  const full = await h.newCustomer('growth');
  const fullAuth = await h.call('accounts.authenticate', { key: full.key });
  const outcomes: string[] = [];
  for (let i = 0; i < 11; i++) {
    outcomes.push(
      await h.worker.call('campaigns.create', { url: h.pageUrl, languages: ['en'] }, { meta: { auth: fullAuth } }).then(
        () => 'created',
        (err: { code?: number }) => String(err.code),
      ),
    );
  }
  expect(outcomes).toEqual([...Array(10).fill('created'), '429']);
});

test('a signed-in visitor of /dashboard goes to the campaigns, a signed-out one to the sign-in page', async () => {
  const customer = await h.newCustomer('growth');
  const session = await dashboardSession(h, customer.orgId);
  const signedIn = await fetch(`${h.baseUrl}/dashboard/`, { headers: { cookie: session.cookie }, redirect: 'manual' });
  expect(signedIn.headers.get('location')).toBe('/dashboard/campaigns');
  const signInPage = await fetch(`${h.baseUrl}/dashboard/sign-in`, { headers: { cookie: session.cookie }, redirect: 'manual' });
  expect(signInPage.headers.get('location')).toBe('/dashboard/campaigns');
  const signedOut = await fetch(`${h.baseUrl}/dashboard/`, { redirect: 'manual' });
  expect(signedOut.headers.get('location')).toBe('/dashboard/sign-in');
});
