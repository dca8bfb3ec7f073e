/**
 * The dashboard's campaign side in Chromium (its words, and the campaign pages' accessibility checks), on the
 * product with PostgreSQL, the voices and a renderer: a campaign created from the New campaign form with every option
 * has them (the API's GET says so), a voice's sample plays and is made once; the list's status and progress move
 * without a reload; the campaign page, its report and its webhook deliveries in plain words, Redeliver with its
 * allowance and refusals in words; Cancel asked on a page of its own, without JavaScript; every cell labelled at
 * 390 px; axe finds no serious or critical violation on any of these pages at 1280 and 390 px. Screenshots of each
 * page at both widths, side by side, go to docs/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { dashboardSession, followRedirect, postForm } from '../support/dashboard-session';
import { launchBrowser } from '../support/browser';
import { dashboardBrowser } from '../support/dashboard-browser';
import { startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

jest.setTimeout(600_000);

const PASSWORD = 'correct horse battery staple';
const EMAIL = 'campaigns@acme.example';
const DOCS = path.resolve(__dirname, '..', '..', 'docs');
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const SAMPLE_VOICE = 'en-espeak-female';

let h: Harness;
let browser: Browser;
let customer: { orgId: string; key: string };
let hook: WebhookReceiver;
/** The campaign made from the form with every option; followed to review and used by most tests. */
let mainId: string;

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());
const attr = (page: Page, selector: string, name: string) => page.$eval(selector, (el, n) => el.getAttribute(n), name);

const { newPage, press, screenshots, expectAccessible, expectLabelledCells } = dashboardBrowser(
  () => browser,
  () => h.baseUrl,
  EMAIL,
  PASSWORD,
);

const apiCampaign = async (id: string) => (await h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key })).body;

beforeAll(async () => {
  h = await startHarness({
    render: 'worker',
    config: { rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 3, webhookRetryDelaysMs: [1000, 1000] },
  });
  customer = await h.newCustomer('business');
  await h.call('accounts.addUser', { org_id: customer.orgId, email: EMAIL, role: 'owner', password: PASSWORD });
  // The receiver fails the first attempt, so the deliveries page has an error and a success to show.
  hook = await startWebhookReceiver((n) => ({ status: n === 0 ? 500 : 204 }));
  browser = await launchBrowser();
  fs.mkdirSync(DOCS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await hook?.close();
  await h?.stop();
});

test('New campaign: every option of the API in the form, a voice sample made once; the campaign has them all (GET)', async () => {
  const page = await newPage();
  await page.goto(`${h.baseUrl}/dashboard/campaigns/new`);
  await expectAccessible(page);

  // Only the chosen languages' voice pickers show; a metadata row can be added.
  for (const code of ['ja', 'ko']) await page.click(`input[name=languages][value=${code}]`);
  expect(await page.$$eval('.voice-language:not([hidden])', (els) => els.map((el) => el.getAttribute('data-language')))).toEqual(['en']);
  const rows = await page.$$eval('.pair-row', (els) => els.length);
  await page.click('.add-row');
  expect(await page.$$eval('.pair-row', (els) => els.length)).toBe(rows + 1);

  // The sample of a voice plays; it is made once and kept in the file store.
  await page.click('details[data-language=en] summary');
  const sample = await page.evaluate(async (voice) => {
    const res = await fetch(`/dashboard/voices/${voice}/sample`);
    return { status: res.status, type: res.headers.get('content-type'), bytes: (await res.arrayBuffer()).byteLength };
  }, SAMPLE_VOICE);
  expect(sample).toMatchObject({ status: 200, type: 'audio/mpeg' });
  expect(sample.bytes).toBeGreaterThan(2000);
  const samplesDir = path.join(h.config.dataDir, 'files', 'voice-samples');
  const [kept] = fs.readdirSync(samplesDir).filter((name) => name.startsWith(`${SAMPLE_VOICE}-`));
  const madeAt = fs.statSync(path.join(samplesDir, kept)).mtimeMs;
  const played = await page.$eval(`input[value="${SAMPLE_VOICE}"]`, async (radio) => {
    const audio = radio.closest('li')!.querySelector('audio')!;
    audio.muted = true;
    await audio.play();
    for (let waited = 0; audio.currentTime === 0 && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    return { played: audio.currentTime > 0, duration: audio.duration };
  });
  expect(played.played).toBe(true);
  expect(played.duration).toBeGreaterThan(1);
  expect(fs.statSync(path.join(samplesDir, kept)).mtimeMs).toBe(madeAt);

  // Every option filled in, as a customer would.
  await page.type('#url', h.pageUrl);
  await page.type('#title', 'Every option');
  await page.click(`input[name="voice.en"][value="${SAMPLE_VOICE}"]`);
  expect(await text(page, 'details[data-language=en] summary .choice-label')).toBe('Basic English voice (eSpeak NG), female variant');
  await page.click('input[name=captions][value=file_only]');
  await page.click('input[name=quality][value=draft]');
  await page.type('#brand-primary_color', '#FF5500');
  await page.type('#brand-logo_url', h.site.url('/logo.svg'));
  await page.type('#music-url', h.site.url('/music.mp3'));
  await page.type('#music-volume', '0.3');
  await page.type('#webhook_url', hook.url);
  const keys = await page.$$('input[name="metadata.key"]');
  const values = await page.$$('input[name="metadata.value"]');
  await keys[0].type('crm_id');
  await values[0].type('opp_0042');
  await keys[1].type('team');
  await values[1].type('<b>growth</b>');
  await screenshots(page, 'dashboard-new-campaign.png');
  // "Create campaign" stands on its own below the last section, not beside the webhook field.
  const layout = await page.evaluate(() => {
    const button = document.querySelector('.form-actions button')!.getBoundingClientRect();
    const webhook = document.getElementById('webhook_url')!.getBoundingClientRect();
    const sections = [...document.querySelectorAll('.form-section')];
    return { below: button.top > sections[sections.length - 1].getBoundingClientRect().bottom, webhookAbove: webhook.bottom < button.top };
  });
  expect(layout).toEqual({ below: true, webhookAbove: true });

  expect(await press(page, '.form-actions button[type=submit]')).toBe(200);
  expect(page.url()).toMatch(/\/dashboard\/campaigns\/[0-9a-f-]{36}$/);
  mainId = page.url().split('/').pop()!;
  expect(await apiCampaign(mainId)).toMatchObject({
    title: 'Every option',
    languages: ['en'],
    platforms: ['tiktok'],
    voice: { en: SAMPLE_VOICE },
    captions: 'file_only',
    quality: 'draft',
    brand: { primary_color: '#ff5500', logo_url: h.site.url('/logo.svg') },
    music: { url: h.site.url('/music.mp3'), volume: 0.3 },
    metadata: { crm_id: 'opp_0042', team: '<b>growth</b>' },
  });
  expect(await text(page, '#campaign-options')).toContain('team = <b>growth</b>');
  await page.close();
});

test('the campaigns list moves on its own: status and progress change without a reload', async () => {
  const page = await newPage();
  await page.goto(`${h.baseUrl}/dashboard/campaigns`);
  const row = `tr[data-campaign-id="${mainId}"]`;
  const first = {
    status: await attr(page, `${row} .live-status`, 'data-status'),
    progress: await text(page, `${row} .live-progress-text`),
  };
  await page.evaluate(() => {
    (window as unknown as { notReloaded: boolean }).notReloaded = true;
  });
  await page.waitForFunction(
    (selector, seen) =>
      document.querySelector(`${selector} .live-status`)!.getAttribute('data-status') !== seen.status ||
      document.querySelector(`${selector} .live-progress-text`)!.textContent !== seen.progress,
    { timeout: 120_000 },
    row,
    first,
  );
  await page.waitForFunction(
    (selector) => document.querySelector(`${selector} .live-status`)!.getAttribute('data-status') === 'review',
    {
      timeout: 300_000,
      polling: 500,
    },
    row,
  );
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  expect(await text(page, `${row} .live-status`)).toBe('Ready for review');
  expect(await text(page, `${row} .live-progress-text`)).toBe('100%');
  expect(await text(page, `${row} td[data-label=Platforms]`)).toBe('TikTok');
  expect(await text(page, `${row} td[data-label=Languages]`)).toBe('English');
  await expectLabelledCells(page);
  await screenshots(page, 'dashboard-campaigns.png');
  await expectAccessible(page);
  await page.close();
});

test('a refused form shows the API’s message in words, every value kept', async () => {
  const page = await newPage(false);
  await page.goto(`${h.baseUrl}/dashboard/campaigns/new`);
  await page.type('#url', h.pageUrl);
  // A logo address the browser lets through and the API refuses (only http and https).
  await page.type('#brand-logo_url', 'ftp://acme.example/logo.png');
  const keys = await page.$$('input[name="metadata.key"]');
  await keys[0].type('kept');
  // Post/redirect/get: the refusal comes back by redirect to the form, its words and values kept once (the flash).
  expect(await press(page, '.form-actions button[type=submit]')).toBe(200);
  expect(page.url()).toBe(`${h.baseUrl}/dashboard/campaigns/new`);
  expect(await text(page, '#form-error')).toMatch(/logo_url/);
  expect(await attr(page, '#brand-logo_url', 'value')).toBe('ftp://acme.example/logo.png');
  expect(await attr(page, 'input[name="metadata.key"]', 'value')).toBe('kept');
  await page.close();
});

test('the campaign page in plain words: states, steps, platforms, languages, the script source', async () => {
  const page = await newPage();
  await page.goto(`${h.baseUrl}/dashboard/campaigns/${mainId}`);
  expect(await text(page, '#campaign-status')).toBe('Ready for review');
  const timeline = await text(page, '.timeline');
  for (const step of ['Campaign created', 'Page captured', 'Scripts written', 'Voices recorded', 'Videos rendered'])
    expect(timeline).toContain(step);
  expect(timeline).not.toMatch(/capture\.collect|script\.write|voice\.speak|rendering\.renderCampaign/);
  expect(await text(page, 'figure.video figcaption')).toMatch(/^English · TikTok · Ready/);
  expect(await text(page, '.script .source')).toMatch(/^(From the page's English version|Translated into English|The page's own words)/);
  const options = await page.$$eval('#campaign-options div', (divs) =>
    divs.map((d) => `${d.querySelector('dt')!.textContent}: ${d.querySelector('dd')!.textContent}`),
  );
  expect(options).toEqual([
    'Voices: English: Basic English voice (eSpeak NG), female variant',
    'Captions: As files only',
    'Quality: Draft',
    'Brand colour: #ff5500',
    `Logo: ${h.site.url('/logo.svg')}`,
    `Music: ${h.site.url('/music.mp3')} at volume 0.3`,
    'Metadata: crm_id = opp_0042; team = <b>growth</b>',
  ]);
  expect(await page.$('#cancel')).toBeNull();
  await screenshots(page, 'dashboard-campaign-overview.png');
  await expectAccessible(page);
  // The video editor's title in the same words.
  await Promise.all([page.waitForNavigation(), page.click('a.edit-link')]);
  expect(await text(page, 'h1')).toBe('Edit video: English · TikTok');
  await page.close();
});

test('the campaign’s report: time in each state, voices used, render attempts per video and node', async () => {
  const page = await newPage();
  await page.goto(`${h.baseUrl}/dashboard/campaigns/${mainId}`);
  await Promise.all([page.waitForNavigation(), page.click('#report-link')]);
  const { report_id: reportId } = await apiCampaign(mainId);
  const api = (await h.request('GET', `/api/v1/reports/${reportId}`, { key: customer.key })).body;
  expect(await page.$$eval('#report-states tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-state')))).toEqual(
    api.states.map((s: { state: string }) => s.state),
  );
  expect(await text(page, '#report-states')).toContain('Capturing the page');
  expect(await text(page, '#report-voices tr[data-language=en]')).toMatch(/^English .*\(eSpeak NG\)/);
  const attempts = await page.$$eval('.video-attempts tbody tr', (trs) =>
    trs.map((tr) => ({
      node: tr.querySelector('[data-label=Node]')!.textContent,
      outcome: tr.querySelector('[data-label=Outcome]')!.textContent,
    })),
  );
  const apiAttempts = api.videos.flatMap((v: { render_attempts: Array<{ node_id: string }> }) => v.render_attempts);
  expect(attempts.map((a) => a.node)).toEqual(apiAttempts.map((a: { node_id: string }) => a.node_id));
  expect(attempts.at(-1)!.outcome).toBe('Rendered');
  expect(await text(page, '#report-total')).toMatch(/^\d+(\.\d)? s$|^\d+ min \d\d s$/);
  await expectLabelledCells(page);
  await screenshots(page, 'dashboard-report.png');
  await expectAccessible(page);
  await page.close();
});

test('webhook deliveries: each attempt with its answer and time; Redeliver, its allowance and its refusals in words', async () => {
  await waitFor(
    () => h.sql<{ status: string }>('SELECT status FROM webhook_deliveries WHERE campaign_id = $1', [mainId]),
    (rows) => rows[0]?.status === 'delivered',
    30_000,
    200,
  );
  const page = await newPage();
  await page.goto(`${h.baseUrl}/dashboard/campaigns/${mainId}/webhooks`);
  expect(await text(page, 'main')).toContain('Campaign completed Delivered');
  expect(await text(page, '.delivery h2')).toBe('Campaign completed Delivered');
  expect(await page.$$eval('.delivery tbody tr', (trs) => trs.map((tr) => tr.querySelector('.answer')!.textContent.trim()))).toEqual([
    'HTTP 500',
    'HTTP 204',
  ]);
  expect(await text(page, '#redeliveries-left')).toBe('10');

  expect(await press(page, '#redeliver')).toBe(200);
  expect(page.url()).toBe(`${h.baseUrl}/dashboard/campaigns/${mainId}/webhooks`);
  expect(await text(page, '#webhooks-notice')).toMatch(/^Sent again, with the same event id .* 9 more redeliveries allowed/);
  await waitFor(
    async () => hook.received.length,
    (n) => n >= 3,
    20_000,
    100,
  );
  await waitFor(
    async () => {
      await page.reload();
      return page.$$eval('.delivery tbody tr', (trs) => trs.length);
    },
    (n) => n === 3,
    20_000,
    300,
  );
  expect(await text(page, '.delivery tbody tr[data-attempt="3"]')).toMatch(/^3 \(redelivery\) .* HTTP 204/);
  expect(await text(page, '#redeliveries-left')).toBe('9');
  await expectLabelledCells(page);
  await screenshots(page, 'dashboard-deliveries.png');
  await expectAccessible(page);

  // The allowance used up: the API's 429 in words.
  const [{ id: deliveryId }] = await h.sql<{ id: string }>('SELECT id FROM webhook_deliveries WHERE campaign_id = $1', [mainId]);
  for (let i = 0; i < 9; i += 1) {
    await h.sql('INSERT INTO webhook_redeliveries (delivery_id, campaign_id, requested_at, attempt) VALUES ($1, $2, now(), 3)', [
      deliveryId,
      mainId,
    ]);
  }
  expect(await press(page, '#redeliver')).toBe(200);
  expect(await text(page, '#webhooks-error')).toMatch(/redelivered 10 times in the last 24 hours, the most allowed; retry in \d+ s\./);
  expect(await text(page, '#redeliveries-left')).toBe('0');
  await page.close();
});

test('Cancel, asked on a page of its own, without JavaScript; a finished campaign cannot be canceled, said in words', async () => {
  const created = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl, languages: ['en'] } });
  expect(created.status).toBe(201);
  const id: string = created.body.campaign_id;
  const page = await newPage(false);
  await page.goto(`${h.baseUrl}/dashboard/campaigns/${id}`);
  expect(await text(page, '#progress-card')).toMatch(/^Status: (Capturing the page|Reading the page|Writing scripts)/);
  expect(await press(page, '#cancel')).toBe(200);
  expect(page.url()).toBe(`${h.baseUrl}/dashboard/campaigns/${id}/cancel`);
  expect(await text(page, 'h1')).toBe('Cancel this campaign?');
  // axe runs in the page (and the screenshots settle there): a page with JavaScript on shows the same confirmation.
  const checked = await newPage();
  await checked.goto(`${h.baseUrl}/dashboard/campaigns/${id}/cancel`);
  await screenshots(checked, 'dashboard-cancel.png');
  await expectAccessible(checked);
  await checked.close();
  expect(await press(page, '#confirm-cancel')).toBe(200);
  expect(page.url()).toBe(`${h.baseUrl}/dashboard/campaigns/${id}`);
  expect(await text(page, '.notice')).toMatch(/^Canceled\./);
  expect(await attr(page, '#campaign-status', 'data-status')).toBe('failed');
  expect(await text(page, '.timeline li:last-child strong')).toBe('Canceled');
  expect(await apiCampaign(id)).toMatchObject({ status: 'failed', error: { code: 'canceled' } });

  // Again: the campaign's 409, in words; its report is there, and it has no webhook to redeliver.
  const session = await dashboardSession(h, customer.orgId);
  const again = await followRedirect(h, session, await postForm(h, session, `/dashboard/campaigns/${id}/cancel`));
  expect(again.location).toBe(`/dashboard/campaigns/${id}/cancel`);
  expect(again.text).toContain('Only a generating campaign can be canceled; this one is failed.');
  await page.goto(`${h.baseUrl}/dashboard/campaigns/${id}/cancel`);
  expect(await text(page, 'h1')).toBe('This campaign has finished');
  await page.goto(`${h.baseUrl}/dashboard/campaigns/${id}/report`);
  expect(await text(page, '#report-summary')).toContain('Canceled: Canceled by the customer.');
  await page.goto(`${h.baseUrl}/dashboard/campaigns/${id}/webhooks`);
  expect(await page.$('#redeliver')).toBeNull();
  expect(await text(page, '#no-deliveries')).toMatch(/no webhook URL/);
  const redeliver = await followRedirect(h, session, await postForm(h, session, `/dashboard/campaigns/${id}/webhooks/redeliver`));
  expect(redeliver.text).toContain('The campaign was created without a webhook_url');
  await page.close();
});

test('hook variants: chosen in the form within the plan; the campaign page shows both variants side by side with their openings', async () => {
  const page = await newPage();
  await page.goto(`${h.baseUrl}/dashboard/campaigns/new`);
  expect(await text(page, '#variants legend')).toBe('Hook variants (up to 3 on your plan)');
  await page.type('#url', h.pageUrl);
  for (const code of ['ja', 'ko']) await page.click(`input[name=languages][value=${code}]`);
  await page.click('input[name=variants][value="2"]');
  await page.click('input[name=quality][value=draft]');
  expect(await press(page, '.form-actions button[type=submit]')).toBe(200);
  const id = page.url().split('/').pop()!;
  expect(await apiCampaign(id)).toMatchObject({ variants: 2, languages: ['en'], platforms: ['tiktok'] });
  await waitFor(
    () => apiCampaign(id),
    (c) => c.status === 'review',
    300_000,
    1000,
  );
  await page.reload();
  expect(await text(page, '#variants-note')).toMatch(/^Hook variants: each language and platform has 2 videos side by side/);
  expect(await text(page, '.variant-group h3')).toBe('English · TikTok');
  const figures = await page.$$eval('.variant-group figure.video', (els) =>
    els.map((el) => ({
      variant: el.getAttribute('data-variant'),
      label: el.querySelector('.variant-label')?.textContent,
      headline: el.querySelector('.opening-headline')?.textContent,
      opening: (el.querySelector('.opening')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
      box: { top: el.getBoundingClientRect().top, left: el.getBoundingClientRect().left },
    })),
  );
  expect(figures.map((f) => [f.variant, f.label])).toEqual([
    ['a', 'Variant A'],
    ['b', 'Variant B'],
  ]);
  // Each shows its own opening, as the script wrote it; side by side at 1280 px (stacked at 390 px, in the screenshot).
  for (const f of figures) {
    expect(f.opening).toMatch(/^Opens with \S/);
    expect(f.headline).toEqual(expect.stringMatching(/\S/));
  }
  expect(figures[0].opening).not.toBe(figures[1].opening);
  expect(figures[1].box.top).toBe(figures[0].box.top);
  expect(figures[1].box.left).toBeGreaterThan(figures[0].box.left);
  // The script lists the openings, one per variant, beside its scenes.
  const openings = await page.$$eval('.script .openings li', (els) => els.map((el) => el.getAttribute('data-variant')));
  expect(openings).toEqual(['a', 'b']);
  await screenshots(page, 'dashboard-campaign-variants.png');
  await expectAccessible(page);
  await page.close();
});
