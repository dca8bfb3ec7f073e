/**
 * The rules actions declare (scope, plan rate, dashboard access) are the broker's (mixins/action-rules.ts), not a
 * door's: the API, the dashboard and a direct broker call (the REPL's, the admin tool's) meet the same rule and the
 * same error, and share one budget. Real PostgreSQL and Redis; the actions run on the harness's worker node.
 */
import { startHarness, type Harness } from '../support/harness';

const PASSWORD = 'correct horse battery staple';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    config: { pipelinePaused: true, rateLimits: { ipUnauthenticated: 1000, ipAuthenticated: 1000, windowMs: 60_000 } },
  });
});
afterAll(async () => h?.stop());

/** A dashboard session of a new owner of `orgId`: its cookie and the CSRF token its forms carry. */
async function dashboardSession(orgId: string): Promise<{ cookie: string; csrf: string }> {
  const email = `owner-${Math.random().toString(36).slice(2)}@rules.example`;
  await h.call('accounts.addUser', { org_id: orgId, email, role: 'owner', password: PASSWORD });
  const { token } = await h.call<{ token: string }>('accounts.signIn', { email, password: PASSWORD });
  const cookie = `cv_session=${token}`;
  const form = await fetch(`${h.baseUrl}/dashboard/campaigns/new`, { headers: { cookie } });
  expect(form.status).toBe(200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  expect(csrf).toBeDefined();
  return { cookie, csrf: csrf! };
}

function dashboardCreate(session: { cookie: string; csrf: string }): Promise<Response> {
  const body = new URLSearchParams({ _csrf: session.csrf, url: h.pageUrl, languages: 'en', platforms: 'tiktok' });
  return fetch(`${h.baseUrl}/dashboard/campaigns`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
}

test("the plan's rate is one budget for the API and the dashboard, and both answer it with 429", async () => {
  const growth = await h.newCustomer('growth'); // 10 creations a minute
  const session = await dashboardSession(growth.orgId);
  const api = await Promise.all(
    Array.from({ length: 6 }, () =>
      h.request('POST', '/api/v1/campaigns', { key: growth.key, body: { url: h.pageUrl, languages: ['en'] } }),
    ),
  );
  expect(api.map((r) => r.status)).toEqual(Array(6).fill(201));
  const dashboard: Response[] = [];
  for (let i = 0; i < 4; i++) dashboard.push(await dashboardCreate(session));
  expect(dashboard.map((r) => r.status)).toEqual([303, 303, 303, 303]);
  // The budget is spent, through either door: the dashboard now says so with the API's status, in words.
  const refusedPage = await dashboardCreate(session);
  expect(refusedPage.status).toBe(429);
  expect(await refusedPage.text()).toMatch(/Too many campaigns created this minute on your plan\. Try again in \d+ s\./);
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
  const session = await dashboardSession(customer.orgId);
  const signedIn = await fetch(`${h.baseUrl}/dashboard/`, { headers: { cookie: session.cookie }, redirect: 'manual' });
  expect(signedIn.headers.get('location')).toBe('/dashboard/campaigns');
  const signInPage = await fetch(`${h.baseUrl}/dashboard/sign-in`, { headers: { cookie: session.cookie }, redirect: 'manual' });
  expect(signInPage.headers.get('location')).toBe('/dashboard/campaigns');
  const signedOut = await fetch(`${h.baseUrl}/dashboard/`, { redirect: 'manual' });
  expect(signedOut.headers.get('location')).toBe('/dashboard/sign-in');
});
