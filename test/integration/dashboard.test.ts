/**
 * The dashboard in a real browser: puppeteer-core drives Debian's Chromium against the product on
 * PostgreSQL with a renderer on the worker. Sign in, make a key and use it, create a campaign from the form, watch
 * it reach review, play a video, publish, sign out; then the refusals: CSRF, a member's rights, another
 * organization's campaign, a title that is markup. A screenshot of the campaign page goes to docs/ (the keys page's is
 * test/integration/dashboard-account.test.ts's).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowser } from '../support/browser';
import { startHarness, type Harness } from '../support/harness';
import { XSS_TITLE } from '../fixtures/site/server';

jest.setTimeout(600_000);

const PASSWORD = 'correct horse battery staple';
const DOCS = path.resolve(__dirname, '..', '..', 'docs');

let h: Harness;
let browser: Browser;
let orgId: string;
const dialogs: string[] = [];

async function newPage(): Promise<Page> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  await page.setViewport({ width: 1280, height: 900 });
  return page;
}

async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${h.baseUrl}/dashboard/sign-in`);
  await page.type('#email', email);
  await page.type('#password', password);
  await Promise.all([page.waitForNavigation(), page.click('form[action="/dashboard/sign-in"] button[type=submit]')]);
}

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el.textContent ?? '').trim());

beforeAll(async () => {
  h = await startHarness({ render: 'worker' });
  ({ orgId } = await h.call<{ org_id: string }>('accounts.createOrganization', { name: 'Acme <Corp>', plan: 'growth' }).then((r) => ({
    orgId: r.org_id,
  })));
  await h.call('accounts.addUser', { org_id: orgId, email: 'owner@acme.example', role: 'owner', password: PASSWORD });
  await h.call('accounts.addUser', { org_id: orgId, email: 'member@acme.example', role: 'member', password: PASSWORD });
  browser = await launchBrowser();
  fs.mkdirSync(DOCS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

describe('signing in', () => {
  test('pages need a session; a wrong password and an unknown email answer alike; the answers carry a strict CSP', async () => {
    const res = await fetch(`${h.baseUrl}/dashboard/campaigns`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/sign-in');

    const page = await newPage();
    const response = await page.goto(`${h.baseUrl}/dashboard/sign-in`);
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(await page.title()).toMatch(/Sign in/);
    expect(await page.$eval('link[rel=icon]', (el) => el.getAttribute('href'))).toBe('/dashboard/static/favicon.svg');

    await signIn(page, 'owner@acme.example', 'wrong password!!');
    const wrong = await text(page, '.error');
    await signIn(page, 'nobody@acme.example', 'wrong password!!');
    expect(await text(page, '.error')).toBe(wrong);
    expect(page.url()).toContain('/dashboard/sign-in');
    await page.browserContext().close();
  });
});

describe('the owner', () => {
  let page: Page;
  let campaignUrl: string;

  beforeAll(async () => {
    page = await newPage();
    await signIn(page, 'owner@acme.example');
  });
  afterAll(async () => {
    await page.browserContext().close();
  });

  test('lands on the campaigns list, empty, with usage in the header', async () => {
    expect(page.url()).toBe(`${h.baseUrl}/dashboard/campaigns`);
    expect(await text(page, '.empty')).toContain('No campaigns yet');
    expect(await text(page, '#usage')).toMatch(/0 of 40 campaigns this month/);
    const cookies = await page.browserContext().cookies();
    const session = cookies.find((c) => c.name === 'cv_session')!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Lax');
    const stored = await h.sql<{ token_hash: string }>('SELECT token_hash FROM user_sessions');
    expect(stored.map((r) => r.token_hash)).not.toContain(session.value);
  });

  test('creates an API key, sees it once, and uses it against the API', async () => {
    await page.goto(`${h.baseUrl}/dashboard/keys`);
    await page.type('#key-name', 'ci server');
    await Promise.all([page.waitForNavigation(), page.click('form[action="/dashboard/keys"] button[type=submit]')]);
    const key = await text(page, '#new-key');
    expect(key).toMatch(/^sk_live_[0-9a-f]{32}$/);
    expect(await text(page, '#keys tbody')).toContain('ci server');
    const api = await h.request('GET', '/api/v1/openapi.json', { key });
    expect(api.status).toBe(200);
    // Reloading does not show it again.
    await page.goto(`${h.baseUrl}/dashboard/keys`);
    expect(await page.$('#new-key')).toBeNull();
  });

  test('a form without its CSRF token is refused with 403', async () => {
    const cookies = await page.browserContext().cookies();
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const res = await fetch(`${h.baseUrl}/dashboard/keys`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=forged&scopes=campaigns%3Aread',
      redirect: 'manual',
    });
    expect(res.status).toBe(403);
    const keys = await h.call<Array<{ name: string }>>('accounts.listKeys', { org_id: orgId });
    expect(keys.map((k) => k.name)).not.toContain('forged');
  });

  test('a bad URL gets the API’s own message, not a 500', async () => {
    await page.goto(`${h.baseUrl}/dashboard/campaigns/new`);
    await page.type('#url', 'ftp://example.com/x');
    await Promise.all([page.waitForNavigation(), page.click('form.create button[type=submit]')]);
    expect(await text(page, '#form-error')).toMatch(/url/i);
  });

  test('creates a campaign from the form, watches it reach review, plays a video and publishes', async () => {
    await page.goto(`${h.baseUrl}/dashboard/campaigns/new`);
    await page.type('#url', h.pageUrl);
    // One language, one platform: the harness renders drafts.
    for (const code of ['ja', 'ko']) await page.click(`input[name=languages][value=${code}]`);
    await Promise.all([page.waitForNavigation({ timeout: 120_000 }), page.click('form.create button[type=submit]')]);
    expect(page.url()).toMatch(/\/dashboard\/campaigns\/[0-9a-f-]{36}$/);
    campaignUrl = page.url();
    const seen = new Set<string>();
    const deadline = Date.now() + 420_000;
    // The page polls and reloads itself on each new state.
    while (Date.now() < deadline) {
      const status = (await page.$eval('#campaign-status', (el) => el.getAttribute('data-status')).catch(() => '')) ?? '';
      if (status) seen.add(status);
      if (status === 'review' || status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(await text(page, '#campaign-status')).toBe('Ready for review');
    expect(seen.size).toBeGreaterThan(1);
    await page.waitForSelector('video track');
    const played = await page.$eval('video', async (video) => {
      const v = video;
      v.muted = true;
      await v.play();
      const start = v.currentTime;
      // Under the full suite's load the first frames can take seconds: wait for the clock to move, up to 15 s.
      for (let waited = 0; v.currentTime <= start && waited < 15_000; waited += 250) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      return {
        readyState: v.readyState,
        start,
        now: v.currentTime,
        poster: v.poster,
        track: v.querySelector('track')!.getAttribute('src'),
      };
    });
    expect(played.readyState).toBeGreaterThanOrEqual(2);
    expect(played.now).toBeGreaterThan(played.start);
    expect(played.poster).toContain('/files/thumbnails/');
    expect(played.track).toContain('/files/captions/');
    expect(await text(page, '.script .source')).toMatch(/^(From the page's .* version|Translated into|The page's own words)/);
    expect(await text(page, '.timeline')).toContain('Videos rendered');
    await page.screenshot({ path: path.join(DOCS, 'dashboard-campaign.png'), fullPage: true });

    await Promise.all([page.waitForNavigation(), page.click('#publish')]);
    expect(await text(page, '#campaign-status')).toBe('Published');
    expect(dialogs.some((d) => d.startsWith('Publish this campaign'))).toBe(true);
    await page.goto(`${h.baseUrl}/dashboard/campaigns?status=published`);
    expect(await text(page, 'tbody')).toContain('Published');
    expect(await text(page, '#usage')).toMatch(/1 of 40/);
  });

  test('a title that is markup is shown as text', async () => {
    await page.goto(`${h.baseUrl}/dashboard/campaigns/new`);
    await page.type('#url', h.site.url('/xss-title'));
    await page.type('#title', XSS_TITLE);
    for (const code of ['ja', 'ko']) await page.click(`input[name=languages][value=${code}]`);
    await Promise.all([page.waitForNavigation({ timeout: 120_000 }), page.click('form.create button[type=submit]')]);
    expect(await text(page, 'h1')).toBe(XSS_TITLE);
    expect(await page.$('main img')).toBeNull();
    await page.goto(`${h.baseUrl}/dashboard/campaigns`);
    expect(await page.$$eval('tbody a', (links) => links.map((a) => a.textContent))).toContain(XSS_TITLE);
    expect(await page.$('main img')).toBeNull();
    expect(dialogs.filter((d) => d === '1')).toEqual([]);
  });

  test('revokes a key after confirming, and signs out', async () => {
    await page.goto(`${h.baseUrl}/dashboard/keys`);
    await Promise.all([page.waitForNavigation(), page.click('a.danger-link')]);
    await Promise.all([page.waitForNavigation(), page.click('main form button[type=submit]')]);
    expect(await text(page, '.notice')).toContain('revoked');
    await Promise.all([page.waitForNavigation(), page.click('.signout button')]);
    expect(page.url()).toContain('/dashboard/sign-in');
    await page.goto(campaignUrl);
    expect(page.url()).toContain('/dashboard/sign-in');
    expect(await h.sql('SELECT s.id FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE u.role = $1', ['owner'])).toEqual([]);
  });
});

describe('refusals', () => {
  test('a member sees the keys but cannot create or revoke them', async () => {
    const page = await newPage();
    await signIn(page, 'member@acme.example');
    await page.goto(`${h.baseUrl}/dashboard/keys`);
    expect(await page.$('#key-name')).toBeNull();
    expect(await page.$('a.danger-link')).toBeNull();
    const csrf = await page.$eval('input[name=_csrf]', (el) => el.value);
    const keys = await h.call<Array<{ key_id: string; revoked_at: string | null }>>('accounts.listKeys', { org_id: orgId });
    const status = await page.evaluate(
      async (token, keyId) => {
        const post = (url: string, body: string) =>
          fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });
        const create = await post('/dashboard/keys', `_csrf=${encodeURIComponent(token)}&name=mine&scopes=campaigns%3Aread`);
        const revoke = await post(`/dashboard/keys/${keyId}/revoke`, `_csrf=${encodeURIComponent(token)}`);
        return [create.status, revoke.status];
      },
      csrf,
      keys[0].key_id,
    );
    expect(status).toEqual([403, 403]);
    await page.browserContext().close();
  });

  test("another organization's campaign is not found", async () => {
    const [mine] = await h.sql<{ id: string }>('SELECT id FROM campaigns WHERE org_id = $1', [orgId]);
    const { org_id: otherOrg } = await h.call<{ org_id: string }>('accounts.createOrganization', { name: 'Other', plan: 'business' });
    await h.call('accounts.addUser', { org_id: otherOrg, email: 'owner@other.example', role: 'owner', password: PASSWORD });
    const page = await newPage();
    await signIn(page, 'owner@other.example');
    const res = await page.goto(`${h.baseUrl}/dashboard/campaigns/${mine.id}`);
    expect(res!.status()).toBe(404);
    const poll = await page.goto(`${h.baseUrl}/dashboard/campaigns/${mine.id}/status`);
    expect(poll!.status()).toBe(404);
    await page.goto(`${h.baseUrl}/dashboard/campaigns`);
    expect(await page.content()).not.toContain(mine.id);
    expect(await text(page, '.empty')).toContain('No campaigns yet');
    await page.browserContext().close();
  });

  test('works at 390 px', async () => {
    const page = await newPage();
    await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
    await signIn(page, 'member@acme.example');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.browserContext().close();
  });
});
