/**
 * The capture's Chromium pool (lib/capture/browser-pool.ts) on a real Chromium: pages in their own contexts, the
 * browser recycled after its allowance of pages, relaunched after a crash, and, when it cannot be started at all,
 * a retryable failure for the tasks that wait instead of a hang and an error nobody can catch (what CI met with
 * puppeteer-cluster's built-in concurrency on a loaded machine: "Unable to get browser page").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrowserPool } from '../../lib/capture/browser-pool';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
let dir: string;
let browser: string;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-pool-'));
  browser = path.join(dir, 'browser');
  // Chromium, unless the file `broken` exists: then a start fails at once, as on a node out of memory.
  fs.writeFileSync(browser, `#!/bin/sh\n[ -e "${dir}/broken" ] && exit 1\nexec "${CHROMIUM}" "$@"\n`, { mode: 0o755 });
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  fs.rmSync(dir, { recursive: true, force: true });
});

const poolOf = (pagesPerBrowser: number) =>
  new BrowserPool({
    executablePath: browser,
    concurrency: 2,
    pagesPerBrowser,
    taskTimeoutMs: 30_000,
    // Nothing here leaves the browser: the pages are set from strings.
    proxyUrl: 'http://127.0.0.1:9',
  });

/** What a task sees of its page: the page's own content, and the browser context it is in. */
const visit = (label: string) => async (page: import('puppeteer-core').Page) => {
  await page.setContent(`<title>${label}</title>`);
  const context = page.browserContext();
  return { title: await page.title(), context: context.id, incognito: context !== context.browser().defaultBrowserContext() };
};

test('pages run side by side in their own contexts, and the browser is relaunched after its allowance of pages', async () => {
  const pool = poolOf(2);
  await pool.start();
  try {
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((label) => pool.run(visit(label))));
    expect(results.map((r) => r.title)).toEqual(['a', 'b', 'c', 'd', 'e']);
    // Each page in an incognito context of its own: nothing one page stores is seen by the next.
    expect(results.every((r) => r.incognito)).toBe(true);
    expect(new Set(results.map((r) => r.context)).size).toBe(5);
    // 2 pages per browser: pages 1–2, 3–4 and 5 each on their own launch.
    expect(pool.browserLaunches).toBe(3);
  } finally {
    await pool.stop();
  }
}, 120_000);

test('a crashed browser is relaunched for the next page; one that cannot start fails the waiting task, retryable, and the pool recovers', async () => {
  const pool = poolOf(50);
  await pool.start();
  try {
    expect((await pool.run(visit('first'))).title).toBe('first');
    process.kill(pool.currentBrowserPid()!, 'SIGKILL');
    expect((await pool.run(visit('after a crash'))).title).toBe('after a crash');
    expect(pool.browserLaunches).toBe(2);

    fs.writeFileSync(path.join(dir, 'broken'), '');
    process.kill(pool.currentBrowserPid()!, 'SIGKILL');
    const failure = await pool.run(visit('never')).then(
      () => undefined,
      (err: unknown) => err as { retryable?: boolean; type?: string; message: string },
    );
    expect(failure).toMatchObject({ retryable: true, type: 'capture_failed' });
    expect(failure?.message).toMatch(/^The browser could not open a page/);
    // While Chromium cannot start, each task fails the same way (it does not wait forever).
    await expect(pool.run(visit('still never'))).rejects.toMatchObject({ retryable: true, type: 'capture_failed' });

    fs.rmSync(path.join(dir, 'broken'));
    expect((await pool.run(visit('recovered'))).title).toBe('recovered');
    expect(unhandled).toEqual([]);
  } finally {
    fs.rmSync(path.join(dir, 'broken'), { force: true });
    await pool.stop();
  }
}, 180_000);

test("a page's own dialogs are answered: alert, confirm and prompt dismissed while it loads, 'leave this page?' accepted", async () => {
  const pool = poolOf(10);
  await pool.start();
  try {
    const html =
      "<title>dialogs</title><script>alert('Welcome!'); window.answers = [confirm('Notify you?'), prompt('Your e-mail?')];" +
      "addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });</script><p>Loaded after its dialogs.</p>";
    const seen = await pool.run(async (page) => {
      await page.goto(`data:text/html,${encodeURIComponent(html)}`, { waitUntil: 'domcontentloaded', timeout: 5000 });
      const answers = await page.evaluate(() => (window as unknown as { answers: unknown[] }).answers);
      // A click gives the page the user activation Chromium asks before it shows a beforeunload dialog.
      await page.click('p');
      await page.goto(`data:text/html,${encodeURIComponent('<title>next</title>')}`, { timeout: 5000 });
      return { answers, next: await page.title() };
    });
    expect(seen).toEqual({ answers: [false, null], next: 'next' });
  } finally {
    await pool.stop();
  }
}, 60_000);
