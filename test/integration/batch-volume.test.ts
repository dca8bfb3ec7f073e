/**
 * Batches at volume (decisions §14), on the whole pipeline (PostgreSQL, Redis, Chromium, the voices, editly at draft
 * quality, one language, one platform, the shortest target, one screen a page): a CSV of 20 fixture-site pages
 * uploaded on the dashboard's New batch in Chromium, with the batch's webhook URL, previews as 20 valid rows and makes
 * one batch of 20 through campaigns.createBatch (the action behind POST /api/v1/batches); every campaign reaches review,
 * the batch's page says so without a reload, and the webhook URL gets exactly one signed batch.completed naming all 20,
 * which the API's batch read, its keyset-paged ?batch_id list and the typed client agree with; the batch page's
 * Redeliver sends that event again (same event id and body, signed afresh). Meanwhile another organization's batch of
 * 20 pages, created through POST /api/v1/batches at the same moment, runs beside it (the stages take the two
 * organizations' work in turn) and reaches its own batch.completed with every campaign in review.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, ElementHandle, Page } from 'puppeteer-core';
import { createCampaignClient, getBatch, verifyWebhook } from '../../clients/typescript/src';
import { webhookReceivers } from '../fixtures/webhook-receiver';
import { launchBrowser } from '../support/browser';
import { dashboardBrowser } from '../support/dashboard-browser';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

// 20 renders: about 2.5 min on an idle 2-core machine, several times that when it is shared (the limits allow for it).
jest.setTimeout(1_260_000);

const PAGES = 20;
const PASSWORD = 'correct horse battery staple';
const EMAIL = 'volume@acme.example';
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

let h: Harness;
let browser: Browser;
let customer: { orgId: string; key: string };
let other: { orgId: string; key: string };
let secret: string;
let otherSecret: string;
let tmp: string;
const receivers = webhookReceivers();

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());
const { newPage, press } = dashboardBrowser(
  () => browser,
  () => h.baseUrl,
  EMAIL,
  PASSWORD,
);

beforeAll(async () => {
  h = await startHarness({
    render: 'worker',
    config: { rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 1, ...CHECK_NOT_THE_SUBJECT },
  });
  // Growth: 20 items per batch is its plan's most, so the batch is as large as the smallest plan allows.
  customer = await h.newCustomer('growth');
  await h.call('accounts.addUser', { org_id: customer.orgId, email: EMAIL, role: 'owner', password: PASSWORD });
  ({ secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: customer.orgId }));
  other = await h.newCustomer('growth');
  ({ secret: otherSecret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: other.orgId }));
  browser = await launchBrowser();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'batch-volume-'));
}, 120_000);

afterAll(async () => {
  await receivers.closeAll();
  await browser?.close();
  await h?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('a CSV of 20 pages and, beside it, an API batch of 20 from another organization: each batch completes with every campaign in review', async () => {
  const hook = await receivers.start();
  // The other organization's 20 pages, created through the API first: the CSV batch is made while they run.
  const otherHook = await receivers.start();
  const otherPages = Array.from({ length: PAGES }, (_, i) => h.site.url(`/?api=${i + 1}`));
  const created = await h.request('POST', '/api/v1/batches', {
    key: other.key,
    body: {
      items: otherPages.map((url) => ({ url })),
      defaults: { languages: ['en'], platforms: ['tiktok'], quality: 'draft' },
      webhook_url: otherHook.url,
    },
  });
  expect(created.status).toBe(201);
  const otherBatchId: string = created.body.batch_id;
  expect(created.body.campaigns).toHaveLength(PAGES);
  // Twenty distinct pages: the product page under twenty query strings, each its own campaign and capture.
  const pages = Array.from({ length: PAGES }, (_, i) => h.site.url(`/?page=${i + 1}`));
  const file = path.join(tmp, 'pages.csv');
  fs.writeFileSync(file, `url,title,languages,platforms\n${pages.map((url, i) => `${url},Page ${i + 1},en,tiktok`).join('\n')}\n`);

  const page = await newPage();
  await page.goto(`${h.baseUrl}/dashboard/batches/new`);
  const upload = (await page.$('#file')) as ElementHandle<HTMLInputElement>;
  await upload.uploadFile(file);
  await page.click('input[name=quality][value=draft]');
  await page.type('#batch-webhook-url', hook.url);
  expect(await press(page, '#batch-form .form-actions button[type=submit]')).toBe(200);
  expect(await text(page, '#preview-summary')).toBe(`All ${PAGES} rows are valid. Nothing is created until you press Create.`);
  expect(await page.$$eval('#preview-rows tbody tr.refused', (rows) => rows.length)).toBe(0);
  // The URL is kept for Create.
  expect(await page.$eval('#batch-webhook-url', (el) => (el as HTMLInputElement).value)).toBe(hook.url);
  expect(await text(page, '#create-batch button')).toBe(`Create ${PAGES} campaigns`);
  expect(await press(page, '#create-batch button')).toBe(200);
  const match = /^\/dashboard\/batches\/([0-9a-f-]{36})$/.exec(new URL(page.url()).pathname);
  expect(match).not.toBeNull();
  const batchId = match![1];
  expect(await text(page, '.notice')).toBe(`${PAGES} campaigns created. Their videos are being made.`);

  // The batch's page follows it to the end without a reload.
  await page.evaluate(() => {
    (window as unknown as { notReloaded: boolean }).notReloaded = true;
  });
  // Polled from here, not by waitForFunction: one protocol call that long would outlast puppeteer's protocol timeout.
  const settled = `${PAGES} campaigns: ${PAGES} ready for review`;
  expect(
    await waitFor(
      () => text(page, '#batch-counts'),
      (counts) => counts === settled,
      1_200_000,
      1000,
    ),
  ).toBe(settled);
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  expect(await text(page, '#batch-settled')).toBe(`${PAGES} of ${PAGES}`);
  expect(await page.$$eval('#batch-campaigns .live-status', (els) => els.map((el) => el.textContent))).toEqual(
    Array.from({ length: PAGES }, () => 'Ready for review'),
  );
  await page.close();

  // The API: the batch in row order, every campaign in review, completed.
  const client = createCampaignClient({ baseUrl: h.baseUrl, apiKey: customer.key });
  const read = await getBatch(client, batchId);
  expect(read.data!.campaigns.map((c) => c.url)).toEqual(pages);
  expect(read.data!.campaigns.map((c) => c.status)).toEqual(Array.from({ length: PAGES }, () => 'review'));
  expect(read.data!.counts).toMatchObject({ review: PAGES, failed: 0 });
  expect(read.data!.completed_at).not.toBeNull();
  const ids = read.data!.campaigns.map((c) => c.campaign_id);
  // ?batch_id in keyset pages of 8: the 20, each once.
  const listed: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await h.request('GET', `/api/v1/campaigns?batch_id=${batchId}&limit=8${cursor ? `&cursor=${cursor}` : ''}`, {
      key: customer.key,
    });
    expect(res.status).toBe(200);
    listed.push(...res.body.campaigns.map((c: { campaign_id: string; status: string }) => c.campaign_id));
    if (!res.body.has_more) break;
    cursor = res.body.next_cursor;
  }
  expect([...listed].sort()).toEqual([...ids].sort());

  // Exactly one batch.completed, signed with the organization's secret, naming every campaign in review.
  await waitFor(
    async () => hook.received.length,
    (n) => n >= 1,
    30_000,
    100,
  );
  const [delivery] = hook.received;
  expect(verifyWebhook({ headers: delivery.headers, rawBody: delivery.body }, secret)).toEqual({
    event: 'batch.completed',
    batch_id: batchId,
    counts: expect.objectContaining({ review: PAGES, failed: 0 }),
    campaigns: ids.map((id) => ({ campaign_id: id, status: 'review' })),
    timestamp: expect.any(String),
  });
  // The dispatcher's next polls send nothing more.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  expect(hook.received).toHaveLength(1);

  // The batch's page sends it again (its Redeliver, the API's batch redelivery): the same event id and body, signed afresh.
  const again = await newPage();
  await again.goto(`${h.baseUrl}/dashboard/batches/${batchId}`);
  expect(await press(again, '#redeliver-batch button')).toBe(200);
  expect(await text(again, '.notice')).toBe(
    'batch.completed sent again, with the same event id and a fresh signature. 9 more redeliveries allowed in the next 24 hours.',
  );
  await waitFor(
    async () => hook.received.length,
    (n) => n >= 2,
    30_000,
    100,
  );
  const resent = hook.received[1];
  expect(resent.headers['x-service-event-id']).toBe(delivery.headers['x-service-event-id']);
  expect(resent.body).toBe(delivery.body);
  expect(verifyWebhook({ headers: resent.headers, rawBody: resent.body }, secret)).not.toBeNull();
  await again.close();

  // The API batch: every campaign in review, and one signed batch.completed naming them, at its own webhook URL.
  await waitFor(
    async () => otherHook.received.length,
    (n) => n >= 1,
    1_200_000,
    1000,
  );
  const otherRead = await h.request('GET', `/api/v1/batches/${otherBatchId}`, { key: other.key });
  expect(otherRead.body.campaigns.map((c: { url: string }) => c.url)).toEqual(otherPages);
  expect(otherRead.body.counts).toMatchObject({ review: PAGES, failed: 0 });
  expect(verifyWebhook({ headers: otherHook.received[0].headers, rawBody: otherHook.received[0].body }, otherSecret)).toEqual({
    event: 'batch.completed',
    batch_id: otherBatchId,
    counts: expect.objectContaining({ review: PAGES, failed: 0 }),
    campaigns: otherRead.body.campaigns.map((c: { campaign_id: string }) => ({ campaign_id: c.campaign_id, status: 'review' })),
    timestamp: expect.any(String),
  });
  expect(otherHook.received).toHaveLength(1);
});
