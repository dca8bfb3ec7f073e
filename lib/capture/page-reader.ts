/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * What the capture service does on one page, in the browser: load and classify, make the page
 * presentable (consent banners, lazy content, fixed overlays), shoot it, and read its text and brand.
 */
import fs from 'node:fs';
import type { HTTPResponse, Page } from 'puppeteer-core';
import type { PageSignals } from './refusal';
import { EGRESS_REFUSED_HEADER } from '../egress-proxy';

export interface Viewport {
  name: 'desktop' | 'mobile';
  width: number;
  height: number;
  deviceScaleFactor: number;
  isMobile: boolean;
}
export const DESKTOP: Viewport = { name: 'desktop', width: 1440, height: 900, deviceScaleFactor: 1, isMobile: false };
export const MOBILE: Viewport = { name: 'mobile', width: 390, height: 844, deviceScaleFactor: 2, isMobile: true };

export interface PageText {
  title: string;
  description: string | null;
  openGraph: Record<string, string>;
  headings: Array<{ level: number; text: string }>;
  /** Main readable text (Mozilla Readability), paragraphs separated by blank lines. */
  mainText: string;
  language: string | null;
  themeColor: string | null;
  iconUrls: string[];
  alternates: Array<{ hreflang: string; href: string }>;
  /** Labels of the page's prominent buttons and call-to-action links, first screen first. */
  actions: string[];
}

const ALLOWED_SCHEMES = /^(https?|data|blob|about):/i;

/** Loads `url` (http/https only; every other scheme a page asks for is aborted) and reports what it saw. */
export async function openPage(
  page: Page,
  url: string,
  viewport: Viewport,
  timeoutMs: number,
): Promise<{ response: HTTPResponse | null; signals: PageSignals }> {
  await page.setBypassCSP(true);
  // tsx/esbuild (keepNames) wraps functions we send to the page in __name(); give the page a no-op one.
  await page.evaluateOnNewDocument('globalThis.__name = globalThis.__name || ((fn) => fn);');
  await page.setViewport({
    width: viewport.width,
    height: viewport.height,
    deviceScaleFactor: viewport.deviceScaleFactor,
    isMobile: viewport.isMobile,
    hasTouch: viewport.isMobile,
  });
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.isInterceptResolutionHandled()) return;
    if (ALLOWED_SCHEMES.test(request.url())) request.continue().catch(() => undefined);
    else request.abort('blockedbyclient').catch(() => undefined);
  });
  const response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: timeoutMs });
  const refused = response?.headers()[EGRESS_REFUSED_HEADER];
  if (refused) throw new Error(`ERR_EGRESS_${refused}`);
  await page.waitForNetworkIdle({ idleTime: 300, timeout: Math.min(5000, timeoutMs) }).catch(() => undefined);
  const seen = await page.evaluate(() => {
    const visible = (el: Element) => {
      const rect = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      return rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
    };
    const markers: string[] = [];
    const selectors: Record<string, string> = {
      '#challenge-form': 'challenge form',
      '#cf-challenge-running': 'Cloudflare challenge',
      '.cf-browser-verification': 'Cloudflare browser check',
      'iframe[src*="recaptcha"]': 'reCAPTCHA',
      'iframe[src*="hcaptcha"]': 'hCaptcha',
      'iframe[src*="challenges.cloudflare.com"]': 'Turnstile',
      '.g-recaptcha': 'reCAPTCHA',
      '.h-captcha': 'hCaptcha',
    };
    for (const [selector, name] of Object.entries(selectors)) if (document.querySelector(selector)) markers.push(name);
    return {
      title: document.title,
      visibleTextLength: (document.body?.innerText ?? '').replace(/\s+/g, ' ').trim().length,
      visiblePasswordFields: [...document.querySelectorAll('input[type="password"]')].filter(visible).length,
      challengeMarkers: markers,
      imageCount: [...document.images].filter((img) => img.naturalWidth > 32 && visible(img)).length,
    };
  });
  return { response, signals: { status: response?.status() ?? 0, finalUrl: page.url(), ...seen } };
}

/** Well-known "accept" buttons of consent tools (OneTrust, Cookiebot, Didomi, Quantcast, Osano, CookieYes, Complianz, generic). */
const CONSENT_ACCEPT = [
  '#onetrust-accept-btn-handler',
  '#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll',
  '#CybotCookiebotDialogBodyButtonAccept',
  '#didomi-notice-agree-button',
  '.qc-cmp2-summary-buttons button[mode="primary"]',
  '.osano-cm-accept-all',
  '.cky-btn-accept',
  '.cmplz-accept',
  '.cc-allow',
  '.cc-accept',
  '#cookie-accept',
  '#accept-cookies',
  '[data-testid="cookie-accept"]',
  'button[aria-label*="accept" i]',
  'button[id*="accept" i][id*="cookie" i]',
];

/** Accepts consent banners, scrolls through so lazy content loads, then hides what would cover every shot. */
export interface Presentation {
  consentDismissed: boolean;
  hiddenOverlays: number;
  imagesLoaded: number;
  imagesTotal: number;
}

export async function makePresentable(page: Page, maxScrollPx = 30_000): Promise<Presentation> {
  let consentDismissed = false;
  for (const selector of CONSENT_ACCEPT) {
    const button = await page.$(selector).catch(() => null);
    if (button && (await button.isVisible().catch(() => false))) {
      await button.click().catch(() => undefined);
      consentDismissed = true;
      break;
    }
  }
  if (!consentDismissed) {
    consentDismissed = await page.evaluate(() => {
      const words =
        /^(accept( all)?( cookies)?|allow all|i agree|agree|got it|ok(ay)?|alle akzeptieren|tout accepter|aceptar( todo)?|同意する|동의)$/i;
      const containers = [
        ...document.querySelectorAll(
          '[id*="cookie" i],[class*="cookie" i],[id*="consent" i],[class*="consent" i],[id*="gdpr" i],[class*="gdpr" i]',
        ),
      ];
      for (const container of containers) {
        const button = [...container.querySelectorAll('button,a,[role="button"]')].find((b) =>
          words.test((b as HTMLElement).innerText.trim()),
        );
        if (button) {
          (button as HTMLElement).click();
          return true;
        }
      }
      return false;
    });
  }
  await page.evaluate(async (limit) => {
    const step = Math.max(200, Math.floor(window.innerHeight * 0.8));
    for (let y = 0; y < Math.min(document.documentElement.scrollHeight, limit); y += step) {
      // 'instant': with CSS scroll-behavior smooth, each call would start an animation the next one cancels.
      window.scrollTo({ top: y, behavior: 'instant' });
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    window.scrollTo({ top: 0, behavior: 'instant' });
  }, maxScrollPx);
  await page.waitForNetworkIdle({ idleTime: 300, timeout: 4000 }).catch(() => undefined);
  const hiddenOverlays = await page.evaluate(() => {
    const viewportArea = window.innerWidth * window.innerHeight;
    let hidden = 0;
    for (const el of document.querySelectorAll('body *')) {
      const style = getComputedStyle(el);
      if (style.position !== 'fixed' && style.position !== 'sticky') continue;
      const rect = el.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0) continue;
      const consentLike = /cookie|consent|gdpr|cmp|onetrust|didomi/i.test(`${el.id} ${el.className}`);
      // A header bar pinned to the top stays (it is part of the page); banners, bubbles and modals go.
      const topBar = rect.top <= 1 && rect.height < window.innerHeight * 0.2;
      if (consentLike || !topBar || rect.width * rect.height > viewportArea * 0.4) {
        (el as HTMLElement).style.setProperty('display', 'none', 'important');
        hidden += 1;
      }
    }
    return hidden;
  });
  const images = await page.evaluate(() => {
    // Every image, lazy ones included: one still without a source counts as not loaded.
    const all = [...document.images];
    return { loaded: all.filter((img) => img.complete && img.naturalWidth > 0).length, total: all.length };
  });
  return { consentDismissed, hiddenOverlays, imagesLoaded: images.loaded, imagesTotal: images.total };
}

/** The first screen, then one shot per screen further down, at most `maxShots`. */
export async function shootScreens(page: Page, maxShots: number): Promise<Buffer[]> {
  const { height, viewport } = await page.evaluate(() => ({ height: document.documentElement.scrollHeight, viewport: window.innerHeight }));
  const shots: Buffer[] = [];
  for (let i = 0; i < maxShots && i * viewport < height; i += 1) {
    await page.evaluate((y) => window.scrollTo({ top: y, behavior: 'instant' }), i * viewport);
    await new Promise((resolve) => setTimeout(resolve, 120));
    shots.push(Buffer.from(await page.screenshot({ type: 'png' })));
  }
  await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
  return shots;
}

let readabilitySource: string | undefined;

export async function readText(page: Page): Promise<PageText> {
  readabilitySource ??= fs.readFileSync(require.resolve('@mozilla/readability/Readability.js'), 'utf8');
  const article = (await page.evaluate(`(() => {
    ${readabilitySource}
    try {
      const parsed = new Readability(document.cloneNode(true), { charThreshold: 200 }).parse();
      return parsed ? { text: parsed.textContent, lang: parsed.lang } : null;
    } catch (e) { return null; }
  })()`)) as { text: string; lang: string } | null;
  const meta = await page.evaluate(() => {
    const content = (selector: string) => document.querySelector(selector)?.getAttribute('content')?.trim() || null;
    const openGraph: Record<string, string> = {};
    for (const el of document.querySelectorAll('meta[property^="og:"]')) {
      const key = el.getAttribute('property')!.slice(3);
      const value = el.getAttribute('content');
      if (value && !(key in openGraph)) openGraph[key] = value.trim();
    }
    const absolute = (href: string | null) => {
      try {
        return href ? new URL(href, location.href).href : null;
      } catch {
        return null;
      }
    };
    const icons = [
      ...[...document.querySelectorAll('link[rel~="icon"],link[rel="apple-touch-icon"]')].map((l) => absolute(l.getAttribute('href'))),
      ...[...document.querySelectorAll('header img, img[class*="logo" i], img[alt*="logo" i], img[src*="logo" i]')].map((i) =>
        absolute(i.getAttribute('src')),
      ),
    ].filter((u): u is string => !!u);
    return {
      title: document.title.trim(),
      description: content('meta[name="description"]'),
      openGraph,
      headings: [...document.querySelectorAll('h1,h2,h3')]
        .map((h) => ({ level: Number(h.tagName[1]), text: (h as HTMLElement).innerText.replace(/\s+/g, ' ').trim() }))
        .filter((h) => h.text)
        .slice(0, 40),
      bodyText: (document.body?.innerText ?? '')
        .replace(/[ \t]+/g, ' ')
        .replace(/\n{3,}/g, '\n\n')
        .trim(),
      language: document.documentElement.getAttribute('lang') || content('meta[http-equiv="content-language"]') || null,
      themeColor: content('meta[name="theme-color"]'),
      iconUrls: [...new Set(icons)].slice(0, 8),
      actions: [
        ...new Set(
          [
            ...document.querySelectorAll(
              'a[class*="btn" i],a[class*="button" i],a[class*="cta" i],button:not([aria-label]),[role="button"]',
            ),
          ]
            .filter((el) => {
              const r = el.getBoundingClientRect();
              return (
                r.width > 40 &&
                r.height > 20 &&
                !el.closest('nav,footer,form,[id*="cookie" i],[class*="cookie" i],[id*="consent" i],[class*="consent" i]')
              );
            })
            .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
            .map((el) => (el as HTMLElement).innerText.replace(/\s+/g, ' ').trim())
            .filter((t) => t.length >= 3 && t.length <= 40),
        ),
      ].slice(0, 6),
      alternates: [...document.querySelectorAll('link[rel="alternate"][hreflang]')]
        .map((l) => ({ hreflang: l.getAttribute('hreflang')!.toLowerCase(), href: absolute(l.getAttribute('href')) }))
        .filter((a): a is { hreflang: string; href: string } => !!a.href),
    };
  });
  const mainText = (article?.text ?? meta.bodyText)
    .replace(/[ \t]+/g, ' ')
    .replace(/\s*\n\s*\n\s*/g, '\n\n')
    .trim()
    .slice(0, 20_000);
  const { bodyText: _unused, ...rest } = meta;
  return { ...rest, mainText, language: meta.language ?? article?.lang ?? null };
}
