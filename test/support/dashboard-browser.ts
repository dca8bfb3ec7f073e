/**
 * What the dashboard's browser tests share: a signed-in tab per JavaScript setting (one sign-in per context, since
 * sign-in is limited to 5 a minute per email), a click that waits for the next page, the page at 1280 and 390 px
 * side by side in docs/ (nothing at 390 px wider than the screen), axe at both widths, and every labelled cell's label
 * shown at 390 px.
 */
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { violationsAtWidths } from './axe';

const DOCS = path.resolve(__dirname, '..', '..', 'docs');

export interface DashboardBrowser {
  newPage: (javaScript?: boolean) => Promise<Page>;
  press: (page: Page, selector: string) => Promise<number>;
  screenshots: (page: Page, name: string) => Promise<void>;
  expectAccessible: (page: Page) => Promise<void>;
  expectLabelledCells: (page: Page) => Promise<void>;
}

/** Helpers for one browser and one person (`email`, `password`) on the dashboard at `baseUrl()`. */
export function dashboardBrowser(browser: () => Browser, baseUrl: () => string, email: string, password: string): DashboardBrowser {
  const contexts = new Map<boolean, BrowserContext>();
  return {
    newPage: async (javaScript = true) => {
      let context = contexts.get(javaScript);
      const signedIn = !!context;
      if (!context) contexts.set(javaScript, (context = await browser().createBrowserContext()));
      const page = await context.newPage();
      await page.setJavaScriptEnabled(javaScript);
      await page.setViewport({ width: 1280, height: 900 });
      if (signedIn) return page;
      await page.goto(`${baseUrl()}/dashboard/sign-in`);
      await page.type('#email', email);
      await page.type('#password', password);
      await Promise.all([page.waitForNavigation(), page.click('form[action="/dashboard/sign-in"] button[type=submit]')]);
      return page;
    },

    press: async (page, selector) => {
      const [response] = await Promise.all([page.waitForNavigation({ timeout: 120_000 }), page.click(selector)]);
      return response!.status();
    },

    screenshots: async (page, name) => {
      // Every part painted before a full-page capture: nothing focused, the page scrolled through once.
      await page.evaluate(async () => {
        (document.activeElement as HTMLElement | null)?.blur();
        window.scrollTo(0, document.body.scrollHeight);
        await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 100)));
        window.scrollTo(0, 0);
      });
      const wide = await page.screenshot({ fullPage: true, encoding: 'base64' });
      await page.setViewport({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      const narrow = await page.screenshot({ fullPage: true, encoding: 'base64' });
      await page.setViewport({ width: 1280, height: 900 });
      const sheet = await browser().newPage();
      await sheet.setViewport({ width: 1280 + 390 + 72, height: 600 });
      await sheet.setContent(
        `<body style="margin:0;padding:24px;display:flex;gap:24px;align-items:flex-start;background:#c9ced6">` +
          `<img src="data:image/png;base64,${wide}" width="1280"><img src="data:image/png;base64,${narrow}" width="390"></body>`,
      );
      await sheet.screenshot({ path: path.join(DOCS, name), fullPage: true });
      await sheet.close();
    },

    /** axe-core's serious and critical violations of the page at both widths: none. */
    expectAccessible: async (page) => {
      expect(await violationsAtWidths(page)).toEqual({ 1280: [], 390: [] });
    },

    /** At 390 px every cell of the page's labelled tables shows its label (the ::before of its data-label). */
    expectLabelledCells: async (page) => {
      await page.setViewport({ width: 390, height: 844 });
      const cells = await page.$$eval('table.labelled tbody td, table.labelled tbody th', (els) =>
        els.map((el) => ({ label: el.getAttribute('data-label'), shown: getComputedStyle(el, '::before').content })),
      );
      await page.setViewport({ width: 1280, height: 900 });
      expect(cells.length).toBeGreaterThan(0);
      for (const cell of cells) expect(cell.shown).toBe(JSON.stringify(cell.label));
    },
  };
}
