/**
 * The dashboard's account side in Chromium, on the product with PostgreSQL and Redis:
 * sign-in's words and focus; post/redirect/get with a one-time flash, so a reload or back-navigation after "Create key"
 * makes nothing and shows nothing; an invitation's one-time link, through which a member joins, sees what a member sees
 * and cannot manage keys or people, and which refuses once used; the last owner kept; a password change ending the
 * user's other session; the usage page's chart and numbers; another organization's 404 with the header. Every page is
 * checked with axe-core at 1280 and 390 px and photographed at both widths, side by side, into docs/dashboard-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { quotaPeriod, periodsEndingAt } from '../../lib/campaign/quota';
import { seriousViolations, type AxeViolation } from '../support/axe';
import { launchBrowser } from '../support/browser';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

const PASSWORD = 'correct horse battery staple';
const MEMBER_PASSWORD = 'member horse battery staple';
const NEW_PASSWORD = 'a brand new horse battery';
const OWNER = 'owner@account.example';
const MEMBER = 'new.member@account.example';
const DOCS = path.resolve(__dirname, '..', '..', 'docs');
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
let browser: Browser;
let orgId: string;
let ownerPage: Page;
let inviteLink: string;
let memberPage: Page;

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());

async function newPage(): Promise<Page> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.setViewport({ width: 1280, height: 900 });
  return page;
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${h.baseUrl}/dashboard/sign-in`);
  await page.type('#email', email);
  await page.type('#password', password);
  await Promise.all([page.waitForNavigation(), page.click('form[action="/dashboard/sign-in"] button[type=submit]')]);
}

/** Presses a submit button; the status of the page the redirect lands on. */
async function press(page: Page, selector: string): Promise<number> {
  const [response] = await Promise.all([page.waitForNavigation(), page.click(selector)]);
  return response!.status();
}

/**
 * The page as it is (its one-time flash still shown: no reload) at 1280 and 390 px: axe's serious and critical
 * violations at each width, nothing wider than the phone, and both screenshots side by side in docs/dashboard-<name>.png.
 */
async function atBothWidths(page: Page, name: string): Promise<Record<number, AxeViolation[]>> {
  const found: Record<number, AxeViolation[]> = {};
  const shots: string[] = [];
  for (const width of [1280, 390]) {
    await page.setViewport({ width, height: width === 1280 ? 900 : 844 });
    found[width] = await seriousViolations(page);
    if (width === 390) expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    shots.push(await page.screenshot({ fullPage: true, encoding: 'base64' }));
  }
  await page.setViewport({ width: 1280, height: 900 });
  const sheet = await browser.newPage();
  await sheet.setViewport({ width: 1280 + 390 + 72, height: 600 });
  await sheet.setContent(
    `<body style="margin:0;padding:24px;display:flex;gap:24px;align-items:flex-start;background:#c9ced6">` +
      `<img src="data:image/png;base64,${shots[0]}" width="1280"><img src="data:image/png;base64,${shots[1]}" width="390"></body>`,
  );
  await sheet.screenshot({ path: path.join(DOCS, `dashboard-${name}.png`), fullPage: true });
  await sheet.close();
  return found;
}
const clean = { 1280: [], 390: [] };

/** A link the dashboard shows (on PUBLIC_BASE_URL) as the test reaches it: the harness's own address. */
const reached = (link: string) => `${h.baseUrl}${new URL(link).pathname}`;

/** A form posted from the page with its own CSRF token (as a crafted request would be), redirects followed. */
function postFrom(page: Page, action: string, fields: Record<string, string>): Promise<{ status: number; url: string; body: string }> {
  return page.evaluate(
    async (to, extra) => {
      const csrf = (document.querySelector('input[name=_csrf]') as HTMLInputElement).value;
      const res = await fetch(to, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, ...extra }).toString(),
      });
      return { status: res.status, url: res.url, body: await res.text() };
    },
    action,
    fields,
  );
}

beforeAll(async () => {
  h = await startHarness({ config: { rateLimits: limits } });
  ({ org_id: orgId } = await h.call<{ org_id: string }>('accounts.createOrganization', { name: 'Acme <Account>', plan: 'growth' }));
  await h.call('accounts.addUser', { org_id: orgId, email: OWNER, role: 'owner', password: PASSWORD });
  // Usage to show: this month's campaign made through the API, and the two months before it as their quota counters say.
  const { key } = await h.call<{ key: string }>('accounts.createKey', { org_id: orgId, by: OWNER, name: 'usage' });
  const created = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'] } });
  expect(created.status).toBe(201);
  const [twoAgo, lastMonth] = periodsEndingAt(quotaPeriod(), 3);
  await h.sql('INSERT INTO usage_counters (org_id, period, used) VALUES ($1, $2, 5), ($1, $3, 2)', [orgId, twoAgo, lastMonth]);
  browser = await launchBrowser();
  fs.mkdirSync(DOCS, { recursive: true });
  ownerPage = await newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

test('sign-in names the product, says how to get access in words, and after a wrong password keeps the email and focuses the password', async () => {
  const page = ownerPage;
  await page.goto(`${h.baseUrl}/dashboard/sign-in`);
  expect(await text(page, '.product')).toBe('Campaign videos');
  expect(await text(page, 'main')).toMatch(/invites you/);
  expect(await page.content()).not.toMatch(/npm run|admin --/);
  await signIn(page, OWNER, 'not the password!');
  expect(page.url()).toBe(`${h.baseUrl}/dashboard/sign-in`);
  expect(await text(page, '.error')).toBe('That email and password do not match an account.');
  expect(await page.$eval('#email', (el) => (el as HTMLInputElement).value)).toBe(OWNER);
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('password');
  expect(await atBothWidths(page, 'sign-in')).toEqual(clean);
  // The message was said once: a reload shows the plain form.
  await page.reload();
  expect(await page.$('.error')).toBeNull();
  expect(await page.$eval('#email', (el) => (el as HTMLInputElement).value)).toBe('');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
});

test('a reload or back-navigation after "Create key" makes nothing and shows nothing', async () => {
  const page = ownerPage;
  await signIn(page, OWNER, PASSWORD);
  await page.goto(`${h.baseUrl}/dashboard/keys`);
  const before = (await h.call<unknown[]>('accounts.listKeys', { org_id: orgId })).length;
  await page.type('#key-name', 'ci server');
  // The POST answers 303 to GET /dashboard/keys, which shows the key once.
  expect(await press(page, 'form[action="/dashboard/keys"] button[type=submit]')).toBe(200);
  expect(page.url()).toBe(`${h.baseUrl}/dashboard/keys`);
  const key = await text(page, '#new-key');
  expect(key).toMatch(/^sk_live_[0-9a-f]{32}$/);
  expect(await h.call<unknown[]>('accounts.listKeys', { org_id: orgId })).toHaveLength(before + 1);
  expect(await atBothWidths(page, 'keys')).toEqual(clean);

  await page.reload();
  expect(await page.$('#new-key')).toBeNull();
  expect(await page.content()).not.toContain(key);
  await page.goBack();
  await page.goForward();
  expect(await page.content()).not.toContain(key);
  expect(await h.call<unknown[]>('accounts.listKeys', { org_id: orgId })).toHaveLength(before + 1);
  // Key prefixes stay whole on one line.
  expect(await page.$eval('#keys td code', (el) => getComputedStyle(el).whiteSpace)).toBe('nowrap');

  await Promise.all([page.waitForNavigation(), page.click('a.danger-link')]);
  expect(await atBothWidths(page, 'revoke')).toEqual(clean);
});

test('an owner invites by email: the one-time link is shown once, and the pending invitation can be withdrawn', async () => {
  const page = ownerPage;
  await page.goto(`${h.baseUrl}/dashboard/people`);
  // A first invitation, withdrawn: its link stops working.
  await page.type('#invite-email', 'withdrawn@account.example');
  await press(page, 'form.invite button[type=submit]');
  const withdrawnLink = await text(page, '#invite-link');
  expect(withdrawnLink.startsWith(`${h.config.publicBaseUrl}/dashboard/invite/`)).toBe(true);
  expect(await text(page, '#invites')).toContain('withdrawn@account.example');
  await press(page, '#invites button[type=submit]');
  expect(await text(page, '.notice')).toContain('withdrawn');
  expect((await fetch(reached(withdrawnLink))).status).toBe(410);

  await page.type('#invite-email', MEMBER);
  await page.select('#invite-role', 'member');
  expect(await press(page, 'form.invite button[type=submit]')).toBe(200);
  const shown = await text(page, '#invite-link');
  expect(shown).toMatch(/\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/);
  inviteLink = reached(shown);
  expect(await text(page, '#invites')).toContain(MEMBER);
  expect(await atBothWidths(page, 'people')).toEqual(clean);
  await page.reload();
  expect(await page.$('#invite-link')).toBeNull();
  expect(await page.content()).not.toContain(shown);
});

test('the invited member joins through the link, sees what a member sees, and cannot manage keys or people', async () => {
  memberPage = await newPage();
  const page = memberPage;
  const res = await page.goto(inviteLink);
  expect(res!.status()).toBe(200);
  expect(await text(page, 'h1')).toBe('Join Acme <Account>');
  expect(await text(page, 'main')).toContain('invited as a member of Acme <Account>');
  expect(await page.$eval('#invite-email', (el) => (el as HTMLInputElement).value)).toBe(MEMBER);
  // Two passwords that differ: said in words, back on the link's page.
  await page.type('#password', MEMBER_PASSWORD);
  await page.type('#password-confirm', 'something else entirely');
  await press(page, 'main form button[type=submit]');
  expect(page.url()).toBe(inviteLink);
  expect(await text(page, '.error')).toMatch(/differ/);
  expect(await atBothWidths(page, 'invite')).toEqual(clean);

  await page.type('#password', MEMBER_PASSWORD);
  await page.type('#password-confirm', MEMBER_PASSWORD);
  await press(page, 'main form button[type=submit]');
  expect(page.url()).toBe(`${h.baseUrl}/dashboard/campaigns`);
  expect(await text(page, '.notice')).toBe(`Welcome to Acme <Account>. You are signed in as ${MEMBER} (member).`);
  expect(await text(page, 'header .who')).toBe(`${MEMBER} (member)`);

  // Keys: the list, no controls; a crafted create is refused (403, on a page with the header).
  await page.goto(`${h.baseUrl}/dashboard/keys`);
  expect(await page.$('#key-name')).toBeNull();
  expect(await page.$('a.danger-link')).toBeNull();
  const keysBefore = (await h.call<unknown[]>('accounts.listKeys', { org_id: orgId })).length;
  const create = await postFrom(page, '/dashboard/keys', { name: 'mine', scopes: 'campaigns:read' });
  expect(create.status).toBe(403);
  expect(create.body).toContain('aria-label="Main"');
  expect(await h.call<unknown[]>('accounts.listKeys', { org_id: orgId })).toHaveLength(keysBefore);

  // People: the list with roles, no invite form, no role or remove controls; crafted posts are refused in words.
  await page.goto(`${h.baseUrl}/dashboard/people`);
  expect(await text(page, '#people')).toContain(OWNER);
  expect(await page.$('form.invite')).toBeNull();
  expect(await page.$('#people select')).toBeNull();
  expect(await page.$('#people a.danger-link')).toBeNull();
  const [owner] = await h.sql<{ id: string }>('SELECT id FROM users WHERE email = $1', [OWNER]);
  const invite = await postFrom(page, '/dashboard/people/invite', { email: 'friend@account.example', role: 'owner' });
  expect(invite.url).toBe(`${h.baseUrl}/dashboard/people`);
  expect(invite.body).toContain('Only owners and admins manage people.');
  const demote = await postFrom(page, `/dashboard/people/${owner.id}/role`, { role: 'member' });
  expect(demote.body).toMatch(/Only (owners and admins manage people|an owner can make or change an owner)\./);
  const remove = await postFrom(page, `/dashboard/people/${owner.id}/remove`, {});
  expect(remove.body).toContain('Only owners and admins manage people.');
  expect(await h.sql('SELECT email FROM user_invites WHERE email = $1', ['friend@account.example'])).toEqual([]);
  expect(await h.sql('SELECT role FROM users WHERE id = $1', [owner.id])).toEqual([{ role: 'owner' }]);
});

test('a used invitation link refuses, in words', async () => {
  const page = await newPage();
  const res = await page.goto(inviteLink);
  expect(res!.status()).toBe(410);
  expect(await text(page, '#invite-unusable')).toMatch(/not valid any more: it was used, withdrawn or has expired/);
  expect(await page.$('#password')).toBeNull();
  await page.browserContext().close();
});

test('the last owner cannot be removed; the rule is said in words', async () => {
  const page = ownerPage;
  await page.goto(`${h.baseUrl}/dashboard/people`);
  const [owner] = await h.sql<{ id: string }>('SELECT id FROM users WHERE email = $1', [OWNER]);
  const ownRow = `#people tr[data-user-id="${owner.id}"]`;
  expect(await text(page, ownRow)).toContain('The organization’s last owner cannot be removed; make someone else owner first.');
  expect(await page.$(`${ownRow} a.danger-link`)).toBeNull();
  // Asked for anyway: the confirmation page says why, and a crafted post is refused with the same words.
  await page.goto(`${h.baseUrl}/dashboard/people/${owner.id}/remove`);
  expect(await text(page, 'h1')).toBe('This person cannot be removed');
  expect(await text(page, '.person')).toBe(`${OWNER} (owner)`);
  await page.goto(`${h.baseUrl}/dashboard/people`);
  const forced = await postFrom(page, `/dashboard/people/${owner.id}/remove`, {});
  expect(forced.url).toBe(`${h.baseUrl}/dashboard/people`);
  expect(forced.body).toContain('The organization’s last owner cannot be removed; make someone else owner first.');
  expect(await h.sql('SELECT role FROM users WHERE id = $1', [owner.id])).toEqual([{ role: 'owner' }]);

  // The member made admin, then asked about before removal.
  const [member] = await h.sql<{ id: string }>('SELECT id FROM users WHERE email = $1', [MEMBER]);
  await page.select(`#role-${member.id}`, 'admin');
  await press(page, `#people tr[data-user-id="${member.id}"] .role-form button`);
  expect(await text(page, '.notice')).toBe(`${MEMBER} is now an admin.`);
  await page.goto(`${h.baseUrl}/dashboard/people/${member.id}/remove`);
  expect(await text(page, 'h1')).toBe('Remove this person?');
  expect(await text(page, '.person')).toBe(`${MEMBER} (admin)`);
  expect(await atBothWidths(page, 'remove-person')).toEqual(clean);
});

test('a user changes their password: the current one is required, and their other session ends', async () => {
  const other = await newPage();
  await signIn(other, MEMBER, MEMBER_PASSWORD);
  expect(other.url()).toBe(`${h.baseUrl}/dashboard/campaigns`);

  const page = memberPage;
  await page.goto(`${h.baseUrl}/dashboard/account`);
  await page.type('#current-password', 'not my password at all');
  await page.type('#new-password', NEW_PASSWORD);
  await page.type('#new-password-confirm', NEW_PASSWORD);
  await press(page, 'form.password button[type=submit]');
  expect(await text(page, '.error')).toBe('Current password: that is not your current password.');

  await page.type('#current-password', MEMBER_PASSWORD);
  await page.type('#new-password', NEW_PASSWORD);
  await page.type('#new-password-confirm', NEW_PASSWORD);
  expect(await press(page, 'form.password button[type=submit]')).toBe(200);
  expect(await text(page, '#account-notice')).toBe('Your password is changed. 1 other session was signed out; this one stays signed in.');
  expect(await atBothWidths(page, 'account')).toEqual(clean);

  // The other browser is signed out; this one is not; the new password signs in.
  await other.goto(`${h.baseUrl}/dashboard/keys`);
  expect(other.url()).toBe(`${h.baseUrl}/dashboard/sign-in`);
  await page.goto(`${h.baseUrl}/dashboard/keys`);
  expect(page.url()).toBe(`${h.baseUrl}/dashboard/keys`);
  await signIn(other, MEMBER, NEW_PASSWORD);
  expect(other.url()).toBe(`${h.baseUrl}/dashboard/campaigns`);
  await other.browserContext().close();
});

test('the usage page: this month against the plan, by status, and the last 12 months as a chart with its numbers', async () => {
  const page = ownerPage;
  await page.goto(`${h.baseUrl}/dashboard/usage`);
  expect(await text(page, '#month-used')).toBe('1 of 40 campaigns');
  expect(await text(page, '#by-status tfoot')).toMatch(/^All\s*1$/);
  const months = periodsEndingAt(quotaPeriod(), 12);
  const bars = await page.$$eval('#usage-chart rect.bar', (rects) =>
    rects.map((r) => ({
      month: r.getAttribute('data-month'),
      value: Number(r.getAttribute('data-value')),
      height: Number(r.getAttribute('height')),
    })),
  );
  expect(bars.map((b) => b.month)).toEqual(months);
  expect(bars.slice(-3).map((b) => b.value)).toEqual([5, 2, 1]);
  expect(bars.slice(0, 9).every((b) => b.value === 0)).toBe(true);
  // Heights in proportion: 5 : 2 : 1.
  const [five, two, one] = bars.slice(-3).map((b) => b.height);
  expect(five / one).toBeCloseTo(5, 0);
  expect(two / one).toBeCloseTo(2, 0);
  expect(await page.$eval('#usage-chart', (svg) => svg.getAttribute('role'))).toBe('img');
  expect(await text(page, '#chart-title')).toBe('Campaigns counted against the quota, by month');
  expect(await text(page, '#chart-desc')).toContain('The most was 5');
  // The same numbers as a table.
  const rows = await page.$$eval('#by-month tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? '').trim())));
  expect(rows).toHaveLength(12);
  expect(rows.slice(-3).map((row) => row[1])).toEqual(['5', '2', '1']);
  expect(rows.at(-1)![2]).toBe('1');
  expect(await atBothWidths(page, 'usage')).toEqual(clean);
});

test("another organization's campaign is a 404 page that keeps the header and navigation", async () => {
  const [mine] = await h.sql<{ id: string }>('SELECT id FROM campaigns WHERE org_id = $1', [orgId]);
  const { org_id: otherOrg } = await h.call<{ org_id: string }>('accounts.createOrganization', { name: 'Other', plan: 'business' });
  await h.call('accounts.addUser', { org_id: otherOrg, email: 'owner@other-account.example', role: 'owner', password: PASSWORD });
  const page = await newPage();
  await signIn(page, 'owner@other-account.example', PASSWORD);
  const res = await page.goto(`${h.baseUrl}/dashboard/campaigns/${mine.id}`);
  expect(res!.status()).toBe(404);
  expect(await text(page, 'h1')).toBe('Not found');
  expect(await page.$$eval('header nav a', (links) => links.map((a) => a.textContent))).toEqual([
    'Campaigns',
    'New campaign',
    'Batches',
    'Usage',
    'API keys',
    'People',
    'Account',
  ]);
  expect(await text(page, '#usage')).toMatch(/0 of \d+ campaigns this month/);
  expect(await page.content()).not.toContain(mine.id.slice(0, 8) + '…');
  // The header on one row of links and one of usage at 1280 px: "Sign out" beside the user, not below.
  const top = await page.$eval('.signout button', (el) => el.getBoundingClientRect().top);
  const brand = await page.$eval('header .brand', (el) => el.getBoundingClientRect().top);
  expect(Math.abs(top - brand)).toBeLessThan(12);
  expect(await atBothWidths(page, 'not-found')).toEqual(clean);
  await page.browserContext().close();
});
