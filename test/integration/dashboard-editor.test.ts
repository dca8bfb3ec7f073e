/**
 * The dashboard's scene editor in Chromium, on the product with PostgreSQL, the voices and editly:
 * without JavaScript, the form's buttons move, add and remove scenes with nothing saved, and Preview with an empty
 * narration shows the API's 400 in words, the form kept; with JavaScript, a user edits a narration, previews, sees the
 * draft render while revision 1 plays, then edits again and renders, and the page plays the new revision's file (the
 * API's GET agrees). Then a stale form's 409 in words, and a failed re-render's reason on the campaign page.
 * Screenshots of the editor at 1280 and 390 px go to docs/dashboard-editor.png.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { storageKeys } from '../../lib/storage/keys';
import { violationsAtWidths } from '../support/axe';
import { runCampaign } from '../support/campaign-run';
import { launchBrowser } from '../support/browser';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(600_000);

const PASSWORD = 'correct horse battery staple';
const EMAIL = 'editor@acme.example';
const DOCS = path.resolve(__dirname, '..', '..', 'docs');
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const PREVIEW_WORDS = 'Previewed words: the zebra dashboard tracks every order.';
const RENDER_WORDS = 'Rendered words: the zebra dashboard ships every order today.';

let h: Harness;
let browser: Browser;
let customer: { orgId: string; key: string };
let campaignId: string;
let videoId: string;
/** The page without JavaScript, left on a form read at revision 1 (its stale Preview is tried last). */
let plainPage: Page;

const campaignPath = () => `/dashboard/campaigns/${campaignId}`;
const editorPath = () => `/dashboard/campaigns/${campaignId}/videos/${videoId}/edit`;
const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());
const sceneIds = (page: Page) => page.$$eval('li.scene', (items) => items.map((li) => li.getAttribute('data-scene-id')));

async function newPage(javaScript = true): Promise<Page> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setJavaScriptEnabled(javaScript);
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(`${h.baseUrl}/dashboard/sign-in`);
  await page.type('#email', EMAIL);
  await page.type('#password', PASSWORD);
  await Promise.all([page.waitForNavigation(), page.click('form[action="/dashboard/sign-in"] button[type=submit]')]);
  return page;
}

/** Presses a submit button and waits for the page the form answers with. */
async function press(page: Page, selector: string): Promise<number> {
  const [response] = await Promise.all([page.waitForNavigation(), page.click(selector)]);
  return response!.status();
}

async function replaceText(page: Page, selector: string, value: string): Promise<void> {
  await page.$eval(selector, (el) => {
    (el as HTMLTextAreaElement).value = '';
  });
  await page.type(selector, value);
}

/** The campaign page (reloading itself while the edit renders) until the video's files are of `revision`. */
async function untilPlaying(page: Page, revision: number, timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const shown = await page
      .$eval(`#video-${videoId}`, (figure) => [
        figure.getAttribute('data-file-revision'),
        figure.querySelector('.status')?.getAttribute('data-status'),
      ])
      .catch(() => null);
    if (shown && shown[0] === String(revision) && shown[1] === 'ready') return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`revision ${revision} did not play within ${timeoutMs} ms`);
}

/** Plays the campaign page's video (muted) until its clock moves: its source and whether it played. */
async function play(page: Page): Promise<{ src: string; played: boolean }> {
  return page.$eval(`#video-${videoId} video`, async (video) => {
    video.muted = true;
    await video.play();
    const start = video.currentTime;
    for (let waited = 0; video.currentTime <= start && waited < 15_000; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return { src: video.currentSrc, played: video.currentTime > start };
  });
}

const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');

/** Whether the file the page's video plays is the stored file of `revision` (links name the video, not the revision). */
async function plays(src: string, revision: number): Promise<boolean> {
  const served = Buffer.from(await (await fetch(src)).arrayBuffer());
  const stored = fs.readFileSync(path.join(h.config.dataDir, 'files', storageKeys.video(campaignId, videoId, revision)));
  return sha256(served) === sha256(stored);
}

async function videoOf() {
  const res = await h.request('GET', `/api/v1/campaigns/${campaignId}`, { key: customer.key });
  return res.body.videos.find((v: { id: string }) => v.id === videoId);
}

beforeAll(async () => {
  h = await startHarness({ render: 'worker', config: { rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 3 } });
  customer = await h.newCustomer('business');
  await h.call('accounts.addUser', { org_id: customer.orgId, email: EMAIL, role: 'member', password: PASSWORD });
  browser = await launchBrowser();
  const run = await runCampaign(h, customer.key, { languages: ['en'], platforms: ['tiktok'] });
  expect(run.campaign.status).toBe('review');
  campaignId = run.id;
  videoId = run.campaign.videos[0].id;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

test('without JavaScript: the buttons change the form only; Preview with an empty narration shows the API’s 400 in words', async () => {
  plainPage = await newPage(false);
  await plainPage.goto(`${h.baseUrl}${campaignPath()}`);
  await Promise.all([plainPage.waitForNavigation(), plainPage.click(`#video-${videoId} a.edit-link`)]);
  expect(plainPage.url()).toBe(`${h.baseUrl}${editorPath()}`);
  const first = await sceneIds(plainPage);
  expect(first[0]).toBe('scene_0');

  // A new screen scene goes before the closing one, with a screenshot picked and nothing to say yet.
  expect(await press(plainPage, '#add-scene')).toBe(200);
  const added = await sceneIds(plainPage);
  expect(added).toEqual([...first.slice(0, -1), 'added_1', first.at(-1)]);
  expect(await text(plainPage, '#editor-notice')).toMatch(/Scene \d+ added.*Nothing is saved/);
  const at = added.indexOf('added_1');
  expect(await plainPage.$eval(`#scene-${at} input[type=radio]:checked`, (el) => el.value)).toMatch(/-\d+$/);

  // Up, then removed: the scene before it moves down, then goes.
  expect(await press(plainPage, `button[value="up:${at}"]`)).toBe(200);
  expect((await sceneIds(plainPage))[at - 1]).toBe('added_1');
  expect(await press(plainPage, `button[value="remove:${at}"]`)).toBe(200);
  const edited = await sceneIds(plainPage);
  expect(edited).toEqual(added.filter((id) => id !== added[at - 1]));

  // Nothing was saved.
  const document = await h.request('GET', `/api/v1/campaigns/${campaignId}/videos/${videoId}/document`, { key: customer.key });
  expect(document.body.document.revision).toBe(1);
  expect(document.body.document.scenes.map((s: { id: string }) => s.id)).toEqual(first);

  // Preview: the action's own refusal, about the new scene, in words; the form as it was.
  expect(await press(plainPage, '#preview')).toBe(400);
  const error = await text(plainPage, '#editor-error');
  expect(error).toBe(`Scene ${at}, narration: a screen scene says something; it is empty.`);
  expect(await sceneIds(plainPage)).toEqual(edited);
  expect(await plainPage.$eval('li.scene.invalid', (li) => li.getAttribute('data-scene-id'))).toBe('added_1');
  expect(await h.sql('SELECT id FROM video_edits WHERE video_id = $1', [videoId])).toEqual([]);
});

test('with JavaScript: edit a narration, preview while revision 1 plays, then edit again and render; the new revision plays', async () => {
  const page = await newPage();
  await page.goto(`${h.baseUrl}${campaignPath()}`);
  await Promise.all([page.waitForNavigation(), page.click(`#video-${videoId} a.edit-link`)]);
  const response = await page.reload();
  expect(response!.headers()['content-security-policy']).toContain("img-src 'self'");
  // The thumbnails load under that policy: same-origin signed links.
  expect(await page.$$eval('summary img.thumb', (imgs) => imgs.every((img) => img.naturalWidth > 0))).toBe(true);

  // The editor at 1280 and 390 px, side by side in one picture, a screenshot picker open; nothing wider than the phone's screen.
  await page.click('.screens summary');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.screen-grid img')].every((img) => (img as HTMLImageElement).naturalWidth > 0),
  );
  const wide = await page.screenshot({ fullPage: true, encoding: 'base64' });
  await page.setViewport({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  const narrow = await page.screenshot({ fullPage: true, encoding: 'base64' });
  await page.setViewport({ width: 1280, height: 900 });
  const sheet = await browser.newPage();
  await sheet.setViewport({ width: 1280 + 390 + 72, height: 600 });
  await sheet.setContent(
    `<body style="margin:0;padding:24px;display:flex;gap:24px;align-items:flex-start;background:#c9ced6">` +
      `<img src="data:image/png;base64,${wide}" width="1280"><img src="data:image/png;base64,${narrow}" width="390"></body>`,
  );
  fs.mkdirSync(DOCS, { recursive: true });
  await sheet.screenshot({ path: path.join(DOCS, 'dashboard-editor.png'), fullPage: true });
  await sheet.close();
  // No serious or critical accessibility violation (axe-core) at either width.
  expect(await violationsAtWidths(page)).toEqual({ 1280: [], 390: [] });

  const at = await page.$$eval('li.scene', (items) => items.findIndex((li) => li.getAttribute('data-kind') === 'screen'));
  await replaceText(page, `#scene_${at}_narration`, PREVIEW_WORDS);
  expect(await press(page, '#preview')).toBe(200);
  expect(page.url()).toBe(`${h.baseUrl}${campaignPath()}#video-${videoId}`);
  // Revision 2 renders; revision 1 keeps playing meanwhile.
  expect(await text(page, `#video-${videoId} .rendering-note`)).toBe('Revision 2 is being rendered; revision 1 plays meanwhile.');
  expect(await text(page, `#video-${videoId} .status`)).toBe('Rendering');
  const meanwhile = await play(page);
  expect(meanwhile.played).toBe(true);
  expect(await plays(meanwhile.src, 1)).toBe(true);
  await untilPlaying(page, 2);
  const previewed = await play(page);
  expect(previewed.played).toBe(true);
  expect(await plays(previewed.src, 2)).toBe(true);

  // Again, from revision 2 (a draft): the editor shows the previewed words; this time Render, full quality.
  await Promise.all([page.waitForNavigation(), page.click(`#video-${videoId} a.edit-link`)]);
  expect(await text(page, '#editor-intro')).toMatch(/^Revision 2 plays now \(a draft preview\)/);
  expect(await page.$eval(`#scene_${at}_narration`, (el) => (el as HTMLTextAreaElement).value)).toBe(PREVIEW_WORDS);
  await replaceText(page, `#scene_${at}_narration`, RENDER_WORDS);
  expect(await press(page, '#render')).toBe(200);
  expect(await text(page, `#video-${videoId} .rendering-note`)).toBe('Revision 3 is being rendered; revision 2 plays meanwhile.');
  await untilPlaying(page, 3);
  const rendered = await play(page);
  expect(rendered.played).toBe(true);
  expect(await plays(rendered.src, 3)).toBe(true);
  expect(await plays(rendered.src, 2)).toBe(false);
  await page.browserContext().close();

  // The API says the same: revision 3 served, its document the rendered words at full quality.
  expect(await videoOf()).toMatchObject({ status: 'ready', revision: 3, file_revision: 3, error: null });
  const document = (await h.request('GET', `/api/v1/campaigns/${campaignId}/videos/${videoId}/document`, { key: customer.key })).body
    .document;
  expect(document).toMatchObject({ revision: 3, quality: 'full' });
  expect(document.scenes[at].narration).toBe(RENDER_WORDS);
});

test('a form read at an earlier revision gets the API’s 409 in words, what was typed kept; a failed re-render shows why', async () => {
  const at = (await sceneIds(plainPage)).indexOf('added_1');
  await plainPage.type(`#scene_${at}_narration`, 'A new scene says this.');
  expect(await press(plainPage, '#preview')).toBe(409);
  expect(await text(plainPage, '#editor-error')).toMatch(
    /^revision: this video is at revision 3, and the document sent was read at revision 1/,
  );
  expect(await plainPage.$eval(`#scene_${at}_narration`, (el) => (el as HTMLTextAreaElement).value)).toBe('A new scene says this.');
  await plainPage.browserContext().close();

  // What the actor records when a re-render fails: the previous revision ready, the reason on the video.
  await h.sql("UPDATE videos SET error_code = 'render_failed', error_message = 'The screenshot <b>could not</b> be read.' WHERE id = $1", [
    videoId,
  ]);
  const page = await newPage(false);
  await page.goto(`${h.baseUrl}${campaignPath()}`);
  expect(await text(page, `#video-${videoId} .edit-error`)).toBe(
    'The last edit could not be rendered (render_failed): The screenshot <b>could not</b> be read. Revision 3 still plays.',
  );
  await page.browserContext().close();
  await h.sql('UPDATE videos SET error_code = NULL, error_message = NULL WHERE id = $1', [videoId]);
});
