/// <reference lib="dom" />
/**
 * The second fixture site (test/fixtures/site2, "Slotwise") in real Chromium: an empty HTML shell that
 * its script renders, in three languages with hreflang alternates; a sticky header, a cookie banner,
 * four sections of unequal height, lazy images; no horizontal overflow on a phone.
 */
import type { Browser, Page } from 'puppeteer-core';
import {
  SITE2_LANGUAGES,
  site2Content,
  site2Url,
  startFixtureSite,
  startFixtureSite2,
  type FixtureSite,
  type FixtureSite2,
  type Site2Language,
} from '../fixtures/site/server';

const DESKTOP = { width: 1440, height: 900, deviceScaleFactor: 1, isMobile: false };
const PHONE = { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

let site: FixtureSite;
let browser: Browser;

beforeAll(async () => {
  site = await startFixtureSite();
  const puppeteer = (await import('puppeteer-core')).default;
  browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--hide-scrollbars'],
  });
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** A fresh context (no consent cookie), the page loaded and rendered by its script. */
async function open(url: string, viewport: typeof DESKTOP | typeof PHONE): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport(viewport);
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#root[data-state="ready"]', { timeout: 10_000 });
  return { page, close: () => context.close() };
}

function scrollThrough(page: Page): Promise<void> {
  return page.evaluate(async () => {
    for (let y = 0; y < document.documentElement.scrollHeight; y += Math.floor(window.innerHeight * 0.8)) {
      window.scrollTo({ top: y, behavior: 'instant' });
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    window.scrollTo({ top: 0, behavior: 'instant' });
  });
}

test('each language is an empty HTML shell with lang, hreflang alternates and metadata; the content comes from its API', async () => {
  for (const lang of SITE2_LANGUAGES) {
    const res = await fetch(site2Url(site, lang));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(new RegExp(`<html lang="${lang}"`));
    expect(html).toMatch(/<div id="root"><\/div>/);
    expect(html).not.toMatch(/<h[12][ >]/);
    const alternates = Object.fromEntries(
      [...html.matchAll(/<link rel="alternate" hreflang="([^"]+)" href="([^"]+)"/g)].map((m) => [m[1], m[2]]),
    );
    expect(alternates).toEqual({
      en: site2Url(site, 'en'),
      ja: site2Url(site, 'ja'),
      ko: site2Url(site, 'ko'),
      'x-default': site2Url(site, 'en'),
    });
    expect(html).toMatch(/<meta\s+name="description"\s+content="[^"]{40,}"/);
    expect(html).toContain('<meta property="og:site_name" content="Slotwise"');
    expect(html).toContain('<meta name="theme-color" content="#0f766e"');
    expect(html).toContain('<link rel="icon" href="/slotwise/favicon.svg"');
    const api = await fetch(site.url(`/slotwise/api/content/${lang}.json`));
    expect(api.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await api.json()) as { lang: string }).lang).toBe(lang);
  }
  expect((await fetch(site.url('/slotwise'), { redirect: 'manual' })).headers.get('location')).toBe('/slotwise/');
  expect((await fetch(site.url('/slotwise/ja'), { redirect: 'manual' })).headers.get('location')).toBe('/slotwise/ja/');
  expect((await fetch(site.url('/slotwise/no-such-page'))).status).toBe(404);
  expect((await fetch(site.url('/slotwise/img/../server.ts'))).status).toBe(404);
});

describe.each(SITE2_LANGUAGES)('the %s page', (lang: Site2Language) => {
  const expected = site2Content(lang);

  test('desktop 1440×900: h1 and four sections rendered, sticky header, cookie banner until accepted, lazy images on scroll', async () => {
    const { page, close } = await open(site2Url(site, lang), DESKTOP);
    try {
      const seen = await page.evaluate(() => {
        const header = document.querySelector('.topbar')!;
        const banner = document.querySelector<HTMLElement>('.cky-consent-container');
        return {
          lang: document.documentElement.lang,
          h1: document.querySelector('h1')?.textContent,
          h2Count: document.querySelectorAll('h2').length,
          sections: [...document.querySelectorAll('main > section.feature')].map((s) => ({
            id: s.id,
            heading: s.querySelector('h2')?.textContent,
            next: s.querySelector('h2')?.nextElementSibling?.textContent,
            height: s.getBoundingClientRect().height,
          })),
          cta: document.querySelector('.hero a[class*="btn"]')?.textContent,
          alternates: [...document.querySelectorAll('link[rel="alternate"][hreflang]')].map((l) => l.getAttribute('hreflang')),
          header: { position: getComputedStyle(header).position, height: header.getBoundingClientRect().height },
          banner: banner && {
            position: getComputedStyle(banner).position,
            bottom: banner.getBoundingClientRect().bottom,
            accept: document.querySelector('.cky-btn-accept')?.textContent,
          },
          viewport: window.innerHeight,
          lastImageSrc: document.querySelector('#locations img')?.getAttribute('src') ?? null,
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
        };
      });
      expect(seen.lang).toBe(lang);
      expect(seen.h1).toBe(expected.h1);
      expect(seen.h2Count).toBe(4);
      expect(seen.sections.map((s) => ({ id: s.id, heading: s.heading, firstSentence: s.next }))).toEqual(expected.sections);
      expect(new Set(expected.sections.map((s) => s.heading)).size).toBe(4);
      const heights = seen.sections.map((s) => Math.round(s.height));
      expect(Math.max(...heights)).toBeGreaterThan(900);
      for (let i = 0; i < heights.length; i += 1)
        for (let j = i + 1; j < heights.length; j += 1) expect(Math.abs(heights[i] - heights[j])).toBeGreaterThan(80);
      expect(seen.cta).toBe(expected.cta);
      expect(seen.alternates).toEqual(['en', 'ja', 'ko', 'x-default']);
      expect(seen.header.position).toBe('sticky');
      expect(seen.header.height).toBeLessThan(seen.viewport * 0.2);
      expect(seen.banner).toMatchObject({ position: 'fixed' });
      expect(Math.abs(seen.banner!.bottom - seen.viewport)).toBeLessThanOrEqual(32);
      expect(seen.lastImageSrc).toBeNull(); // not loaded before it is scrolled near
      expect(seen.scrollWidth).toBeLessThanOrEqual(seen.innerWidth);

      await scrollThrough(page);
      await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0), { timeout: 10_000 });
      const lazy = await page.evaluate(() => (window as unknown as { __slotwise: { lazyTotal: number; lazyLoaded: number } }).__slotwise);
      expect(lazy.lazyTotal).toBeGreaterThanOrEqual(4);
      expect(lazy.lazyLoaded).toBe(lazy.lazyTotal);

      // Headings are drawn with a font that has the script's glyphs (fonts-noto-cjk for ja/ko), not tofu.
      const cdp = await page.createCDPSession();
      await cdp.send('DOM.enable');
      await cdp.send('CSS.enable');
      const { root } = await cdp.send('DOM.getDocument');
      const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: 'h1' });
      const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
      if (lang !== 'en') expect(fonts.map((f) => f.familyName).join(',')).toMatch(/CJK/);

      await page.click('.cky-btn-accept');
      expect(await page.$('.cky-consent-container')).toBeNull();
    } finally {
      await close();
    }
  });

  test('phone 390×844: no horizontal overflow, headings wrap inside the screen', async () => {
    const { page, close } = await open(site2Url(site, lang), PHONE);
    try {
      await scrollThrough(page);
      const seen = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        headings: [...document.querySelectorAll('h1, h2')].map((h) => {
          const r = h.getBoundingClientRect();
          return { left: r.left, right: r.right, lines: Math.round(r.height / parseFloat(getComputedStyle(h).lineHeight)) };
        }),
        header: document.querySelector('.topbar')!.getBoundingClientRect().height,
        banner: !!document.querySelector('.cky-btn-accept'),
      }));
      expect(seen.innerWidth).toBe(390);
      expect(seen.scrollWidth).toBeLessThanOrEqual(seen.innerWidth);
      expect(seen.headings).toHaveLength(5);
      for (const h of seen.headings) {
        expect(h.left).toBeGreaterThanOrEqual(0);
        expect(h.right).toBeLessThanOrEqual(seen.innerWidth);
      }
      expect(seen.headings[0].lines).toBeGreaterThan(1); // the headline wraps instead of running off the screen
      expect(seen.header).toBeLessThan(844 * 0.2);
      expect(seen.banner).toBe(true);
    } finally {
      await close();
    }
  });
});

describe('on an origin of its own (startFixtureSite2)', () => {
  let own: FixtureSite2;
  beforeAll(async () => {
    own = await startFixtureSite2();
  });
  afterAll(async () => own?.close());

  test('the same pages at /, /ja/ and /ko/, alternates on that origin', async () => {
    expect(own.pageUrl('ja')).toBe(`${own.origin}/ja/`);
    const { page, close } = await open(own.pageUrl('ko'), DESKTOP);
    try {
      const seen = await page.evaluate(() => ({
        h1: document.querySelector('h1')?.textContent,
        alternates: [...document.querySelectorAll('link[rel="alternate"][hreflang]')].map((l) => (l as HTMLLinkElement).href),
      }));
      expect(seen.h1).toBe(site2Content('ko').h1);
      expect(seen.alternates).toEqual([`${own.origin}/`, `${own.origin}/ja/`, `${own.origin}/ko/`, `${own.origin}/`]);
    } finally {
      await close();
    }
  });
});
