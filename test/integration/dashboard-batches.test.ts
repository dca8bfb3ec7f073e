/**
 * The dashboard's batches in Chromium, on the product with PostgreSQL, the voices and a renderer (decisions §14): a CSV
 * file of two fixture-site pages and one invalid row is uploaded; the preview names the invalid
 * row by its number in the campaign actor's own words, with no Create button and nothing created; the row fixed in
 * the form's text, Create makes the three campaigns through the API's own batch action; the batch's page shows its
 * progress moving without a reload until every campaign is ready for review (draft quality), and without JavaScript a
 * reload shows the same; the list and the usage page show the batch. The create's refusals (the plan's items per
 * batch, an invalid row or batch webhook URL posted without a preview, the quota) come back in words with nothing
 * created. axe finds no serious or critical violation on the new pages at 1280 and 390 px, and every cell of their
 * tables is labelled at 390 px.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, ElementHandle, Page } from 'puppeteer-core';
import { quotaPeriod } from '../../lib/campaign/quota';
import { launchBrowser } from '../support/browser';
import { dashboardBrowser } from '../support/dashboard-browser';
import { dashboardSession, followRedirect, postForm } from '../support/dashboard-session';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';

jest.setTimeout(600_000);

const PASSWORD = 'correct horse battery staple';
const EMAIL = 'batches@acme.example';
const DOCS = path.resolve(__dirname, '..', '..', 'docs');
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
let browser: Browser;
let customer: { orgId: string; key: string };
let tmp: string;
/** The batch made from the CSV, followed to review by the tests after the first. */
let batchId: string;

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());

const { newPage, press, screenshots, expectAccessible, expectLabelledCells } = dashboardBrowser(
  () => browser,
  () => h.baseUrl,
  EMAIL,
  PASSWORD,
);

const apiBatches = async (key: string) => (await h.request('GET', '/api/v1/batches', { key })).body.batches;
const apiCampaignTotal = async (key: string) => (await h.request('GET', '/api/v1/campaigns', { key })).body;

beforeAll(async () => {
  h = await startHarness({
    render: 'worker',
    config: { rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 3, ...CHECK_NOT_THE_SUBJECT },
  });
  customer = await h.newCustomer('business');
  await h.call('accounts.addUser', { org_id: customer.orgId, email: EMAIL, role: 'owner', password: PASSWORD });
  browser = await launchBrowser();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-batches-'));
  fs.mkdirSync(DOCS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('a CSV with an invalid row: the preview names it and creates nothing; fixed, Create makes the batch', async () => {
  const file = path.join(tmp, 'pages.csv');
  // Quoted fields (a comma in a title), lists split by ";" and by a space, CRLF line ends; row 3's language is none.
  fs.writeFileSync(
    file,
    `url,title,languages,platforms\r\n${h.pageUrl},"Acme, the product",en,tiktok\r\n` +
      `${h.site.url('/?second')},Second page,en,tiktok\r\n${h.site.url('/?third')},Third,"en;xx",tiktok\r\n`,
  );
  const page = await newPage();
  await page.goto(`${h.baseUrl}/dashboard/batches/new`);
  await expectAccessible(page);
  const upload = (await page.$('#file')) as ElementHandle<HTMLInputElement>;
  await upload.uploadFile(file);
  await page.click('input[name=quality][value=draft]');
  expect(await press(page, '#batch-form .form-actions button[type=submit]')).toBe(200);

  // The preview: row 3 named in the actor's own words; no Create; nothing created.
  expect(new URL(page.url()).pathname).toBe('/dashboard/batches/new');
  expect(await text(page, '#preview-summary')).toBe(
    '1 of 3 rows are refused: row 3. Fix it above and preview again; nothing has been created.',
  );
  expect(await text(page, '#row-errors')).toBe('Row 3: Languages: "xx" is not a supported language code.');
  expect(await page.$$eval('#preview-rows tbody tr', (rows) => rows.map((r) => [r.getAttribute('data-row'), r.className]))).toEqual([
    ['1', ''],
    ['2', ''],
    ['3', 'refused'],
  ]);
  expect(await text(page, '#preview-rows tr[data-row="1"] td[data-label=Title]')).toBe('Acme, the product');
  expect(await page.$('#create-batch')).toBeNull();
  expect(await apiBatches(customer.key)).toEqual([]);
  expect((await apiCampaignTotal(customer.key)).campaigns).toEqual([]);
  await expectLabelledCells(page);
  await expectAccessible(page);

  // axe reloaded the page: the same preview again (the form is kept for another read).
  expect(await text(page, '#row-errors')).toBe('Row 3: Languages: "xx" is not a supported language code.');
  // Fixed in the form's text (the file's rows are there now), previewed again: every row valid, Create offered.
  const rows = await page.$eval('#rows', (el) => (el as HTMLTextAreaElement).value);
  expect(rows).toContain('"en;xx"');
  await page.$eval('#rows', (el, v) => ((el as HTMLTextAreaElement).value = v), rows.replace('"en;xx"', 'en'));
  expect(await page.$eval('input[name=quality][value=draft]', (el) => el.checked)).toBe(true);
  expect(await press(page, '#batch-form .form-actions button[type=submit]')).toBe(200);
  expect(await text(page, '#preview-summary')).toBe('All 3 rows are valid. Nothing is created until you press Create.');
  expect(await text(page, '#create-batch button')).toBe('Create 3 campaigns');
  await screenshots(page, 'dashboard-batch-preview.png');
  await expectAccessible(page);

  expect(await press(page, '#create-batch button')).toBe(200);
  const match = /^\/dashboard\/batches\/([0-9a-f-]{36})$/.exec(new URL(page.url()).pathname);
  expect(match).not.toBeNull();
  batchId = match![1];
  expect(await text(page, '.notice')).toBe('3 campaigns created. Their videos are being made.');

  // The API's own batch: three campaigns in the rows' order, draft quality from the defaults, the row's own title.
  const batch = (await h.request('GET', `/api/v1/batches/${batchId}`, { key: customer.key })).body;
  expect(batch.campaigns.map((c: { url: string }) => c.url)).toEqual([h.pageUrl, h.site.url('/?second'), h.site.url('/?third')]);
  const first = (await h.request('GET', `/api/v1/campaigns/${batch.campaigns[0].campaign_id}`, { key: customer.key })).body;
  expect(first).toMatchObject({ title: 'Acme, the product', quality: 'draft', languages: ['en'], platforms: ['tiktok'] });
  await page.close();
});

test("the batch's page: progress moves without a reload until every campaign is ready for review", async () => {
  const page = await newPage();
  await page.goto(`${h.baseUrl}/dashboard/batches/${batchId}`);
  await page.evaluate(() => {
    (window as unknown as { notReloaded: boolean }).notReloaded = true;
  });
  await page.waitForFunction(() => document.getElementById('batch-counts')!.textContent === '3 campaigns: 3 ready for review', {
    timeout: 400_000,
    polling: 500,
  });
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  expect(await page.$eval('#batch-progress', (el) => (el as HTMLProgressElement).value)).toBe(100);
  expect(await text(page, '#batch-settled')).toBe('3 of 3');
  expect(await page.$$eval('#batch-campaigns .live-status', (els) => els.map((el) => el.textContent))).toEqual([
    'Ready for review',
    'Ready for review',
    'Ready for review',
  ]);
  // Each campaign links to its page.
  const href = await page.$eval('#batch-campaigns tbody tr:first-child a', (a) => a.getAttribute('href'));
  expect(href).toMatch(/^\/dashboard\/campaigns\/[0-9a-f-]{36}$/);
  await expectLabelledCells(page);
  await screenshots(page, 'dashboard-batch.png');
  await expectAccessible(page);
  await press(page, '#batch-campaigns tbody tr:first-child a');
  expect(await text(page, 'h1')).toBe('Acme, the product');

  // Without JavaScript, a load shows the same.
  const plain = await newPage(false);
  await plain.goto(`${h.baseUrl}/dashboard/batches/${batchId}`);
  expect(await text(plain, '#batch-counts')).toBe('3 campaigns: 3 ready for review');
  expect(await plain.$eval('#batch-progress', (el) => el.getAttribute('value'))).toBe('100');
  await plain.close();
  await page.close();
});

test('the batches list (from the navigation) and the usage page show the batch', async () => {
  const page = await newPage();
  await page.goto(`${h.baseUrl}/dashboard/campaigns`);
  await press(page, 'nav[aria-label=Main] a[href="/dashboard/batches"]');
  expect(await page.$$eval('#batches tbody tr', (rows) => rows.map((r) => r.getAttribute('data-batch-id')))).toEqual([batchId]);
  expect(await text(page, `#batches tr[data-batch-id="${batchId}"] td[data-label=Campaigns]`)).toBe('3 campaigns: 3 ready for review');
  await expectLabelledCells(page);
  await expectAccessible(page);
  await page.goto(`${h.baseUrl}/dashboard/usage`);
  expect(await text(page, '#month-batches')).toBe('1 batch this month, with 3 of these campaigns.');
  await page.close();
});

test("the create's refusals in words, nothing created: the plan's items per batch, an invalid row, a bad webhook URL, the quota", async () => {
  const growth = await h.newCustomer('growth');
  const session = await dashboardSession(h, growth.orgId);
  const defaults = { languages: 'en', platforms: 'tiktok', quality: 'draft' };
  // 21 rows on a plan of 20 items per batch: the preview says so, and so does Create if posted anyway.
  const many = Array.from({ length: 21 }, (_, i) => h.site.url(`/?n=${i}`)).join('\n');
  const preview = await followRedirect(h, session, await postForm(h, session, '/dashboard/batches/preview', { rows: many, ...defaults }));
  expect(preview.text).toContain('The growth plan allows at most 20 items per batch (got 21).');
  expect(preview.text).not.toContain('id="create-batch"');
  const tooMany = await followRedirect(h, session, await postForm(h, session, '/dashboard/batches', { rows: many, ...defaults }));
  expect(tooMany.location).toBe('/dashboard/batches/new');
  expect(tooMany.text).toContain('The growth plan allows at most 20 items per batch (got 21).');

  // Create posted with an invalid row (no preview first): refused whole, the row named, nothing created.
  const invalid = `url,languages\n${h.pageUrl},en\n${h.site.url('/?second')},xx\n`;
  const refusedRow = await followRedirect(h, session, await postForm(h, session, '/dashboard/batches', { rows: invalid, ...defaults }));
  expect(refusedRow.location).toBe('/dashboard/batches/new');
  expect(refusedRow.text).toContain('Row 2: Languages: &quot;xx&quot; is not a supported language code.');

  // The batch's webhook URL is checked by Create as the API checks it: refused in words, nothing created.
  const badHook = await followRedirect(
    h,
    session,
    await postForm(h, session, '/dashboard/batches', { rows: h.pageUrl, webhook_url: 'ftp://hooks.example.com/', ...defaults }),
  );
  expect(badHook.location).toBe('/dashboard/batches/new');
  expect(badHook.text).toMatch(/<p class="error"[^>]*>[^<]*webhook_url/);

  // 39 of 40 used: a batch of two is refused whole, in the quota's words.
  await h.sql('INSERT INTO usage_counters (org_id, period, used) VALUES ($1, $2, 39)', [growth.orgId, quotaPeriod()]);
  const two = `${h.pageUrl}\n${h.site.url('/?second')}`;
  const quota = await followRedirect(h, session, await postForm(h, session, '/dashboard/batches', { rows: two, ...defaults }));
  expect(quota.location).toBe('/dashboard/batches/new');
  expect(quota.text).toContain(
    'Monthly video quota too low for this batch: it asks for 2 campaigns and 1 of 40 are left this month; nothing was created.',
  );
  expect(await apiBatches(growth.key)).toEqual([]);
  expect((await apiCampaignTotal(growth.key)).campaigns).toEqual([]);
});
