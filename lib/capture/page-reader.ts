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
import type { Box } from '../framing';

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
      // Two frames let IntersectionObserver see the new position and start the lazy loads (the network-idle
      // wait below lets them finish); 60 ms at most, should the page not be painting.
      await new Promise((resolve) => {
        setTimeout(resolve, 60);
        requestAnimationFrame(() => requestAnimationFrame(resolve));
      });
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

/** One screenshot of the page and what it shows. */
export interface Shot {
  png: Buffer;
  /**
   * The page section it frames: the section's heading as the page reads it (innerText, spaces folded, as
   * readText reads headings), null for the top of the page; undefined for a shot at a fixed scroll offset
   * (a page without section headings).
   */
  heading?: string | null;
  /** The shot's content (its text and media, clipped to what is on screen below a pinned header), in image pixels. */
  content: Box;
}

/** What the browser reports of one region to shoot, in CSS pixels of the document. */
interface Region {
  heading: string | null;
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** Which sections shootSections takes, beyond its `maxShots` bound. */
export interface SectionChoice {
  /** sections at most after the top of the page: the scenes a video has room for (issue 14: each shot costs a
   * scroll, two painted frames and a PNG encode, and most pages have more sections than a video shows) */
  sections?: number;
  /** headings whose sections are never shot (page furniture: they are never a scene) */
  skipHeadings?: RegExp;
}

/**
 * The top of the page, then one shot per section of the page (the element around each <h2> that holds no
 * other section heading), at most `maxShots` in all: each section scrolled to, with the page's pinned header
 * hidden, centred when it fits the viewport, its top near the viewport's top when it does not. A page without section headings is shot
 * screen by screen instead. Each shot records its content box, so a frame can be cropped around it.
 */
export async function shootSections(page: Page, maxShots: number, choice: SectionChoice = {}): Promise<Shot[]> {
  const sectionLimit = Math.max(0, Math.min(maxShots - 1, choice.sections ?? Infinity));
  const skip = choice.skipHeadings ? { source: choice.skipHeadings.source, flags: choice.skipHeadings.flags } : null;
  const layout = await page.evaluate(
    (limit: number, sectionsAtMost: number, skipHeading: { source: string; flags: string } | null) => {
      const skipped = skipHeading ? new RegExp(skipHeading.source, skipHeading.flags) : null;
      const visible = (el: Element) => {
        const rect = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        return rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
      };
      const pinnedHeader = [...document.querySelectorAll('body *')].reduce((bottom, el) => {
        const style = getComputedStyle(el);
        if (style.position !== 'fixed' && style.position !== 'sticky') return bottom;
        const rect = el.getBoundingClientRect();
        const bar = rect.top <= 1 && rect.height > 0 && rect.height < window.innerHeight * 0.2 && rect.width > window.innerWidth * 0.5;
        return bar ? Math.max(bottom, rect.bottom) : bottom;
      }, 0);
      const outside = 'nav,footer,aside,dialog,[role="dialog"],[id*="cookie" i],[class*="cookie" i],[id*="consent" i],[class*="consent" i]';
      const headings = [...document.querySelectorAll('h2')].filter(
        (h) => visible(h) && !h.closest(outside) && (h as HTMLElement).innerText.trim(),
      );
      // Sections framed (each up to the next heading) by every heading; shot only for those not skipped.
      const shotHeadings = headings
        .filter((h) => !skipped?.test((h as HTMLElement).innerText.replace(/\s+/g, ' ').trim()))
        .slice(0, sectionsAtMost);
      /** Leaves that carry content: elements with their own text, and media. */
      const leaves = [...document.querySelectorAll('body *')].filter((el) => {
        if (!visible(el) || el.closest(outside)) return false;
        if (el.matches('img,svg,video,canvas,picture,input,button,select,textarea')) return true;
        return [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim());
      });
      const docRect = (el: Element) => {
        const r = el.getBoundingClientRect();
        return {
          top: r.top + window.scrollY,
          bottom: r.bottom + window.scrollY,
          left: r.left + window.scrollX,
          right: r.right + window.scrollX,
        };
      };
      /** The union of the content leaves inside `area` (document coordinates). */
      const contentOf = (area: { top: number; bottom: number; left: number; right: number }, within?: Element) => {
        let box: { top: number; bottom: number; left: number; right: number } | null = null;
        for (const el of leaves) {
          if (within && !within.contains(el)) continue;
          const r = docRect(el);
          if (r.bottom <= area.top || r.top >= area.bottom || r.right <= area.left || r.left >= area.right) continue;
          const clipped = {
            top: Math.max(r.top, area.top),
            bottom: Math.min(r.bottom, area.bottom),
            left: Math.max(r.left, area.left),
            right: Math.min(r.right, area.right),
          };
          box = box
            ? {
                top: Math.min(box.top, clipped.top),
                bottom: Math.max(box.bottom, clipped.bottom),
                left: Math.min(box.left, clipped.left),
                right: Math.max(box.right, clipped.right),
              }
            : clipped;
        }
        return box ?? area;
      };
      const page = { left: 0, right: document.documentElement.clientWidth };
      const regions: Array<{ heading: string | null; top: number; bottom: number; left: number; right: number }> = [];
      if (headings.length) {
        // The top of the page: from its headline (the hero's h1, when it is on the first screen) down to the fold,
        // so the framing puts the headline, not the site's header bar, first under the video's own headline band.
        const h1 = [...document.querySelectorAll('h1')].find((h) => visible(h) && !h.closest(outside));
        const h1Top = h1 ? docRect(h1).top : Infinity;
        const heroTop = h1Top < window.innerHeight * 0.75 ? Math.max(0, h1Top - 16) : 0;
        regions.push({ heading: null, ...contentOf({ top: heroTop, bottom: window.innerHeight, ...page }) });
        for (const heading of shotHeadings) {
          // The section: the largest ancestor that holds this heading and no other.
          let section: Element = heading;
          while (section.parentElement && section.parentElement !== document.body) {
            const parent = section.parentElement;
            if (parent.tagName === 'MAIN' || headings.some((h) => h !== heading && parent.contains(h))) break;
            section = parent;
          }
          regions.push({
            heading: (heading as HTMLElement).innerText.replace(/\s+/g, ' ').trim(),
            ...contentOf({ ...docRect(section), ...page }, section),
          });
        }
      } else {
        const height = document.documentElement.scrollHeight;
        for (let i = 0; i < limit && i * window.innerHeight < height; i += 1) {
          const top = i * window.innerHeight;
          regions.push({ heading: null, ...contentOf({ top, bottom: top + window.innerHeight, ...page }) });
        }
      }
      return {
        regions,
        pinnedHeader,
        viewportHeight: window.innerHeight,
        pixelRatio: window.devicePixelRatio,
        bySection: headings.length > 0,
      };
    },
    maxShots,
    sectionLimit,
    skip,
  );

  const shots: Shot[] = [];
  for (const [n, region] of (layout.regions as Region[]).entries()) {
    // A pinned header belongs to the page's top; over a section further down it only hides the section's top.
    if (layout.bySection && n === 1) await setPinnedBarsHidden(page, true);
    // Sections (their pinned header hidden): centred when they fit the viewport, else their top 24 px from its top.
    const height = region.bottom - region.top;
    const target = !layout.bySection
      ? n * layout.viewportHeight
      : region.heading === null
        ? 0
        : height <= layout.viewportHeight - 48
          ? region.top - (layout.viewportHeight - height) / 2
          : region.top - 24;
    // Scrolled, then two frames painted at the new position (120 ms at most, should the page not be painting).
    const scrollY = await page.evaluate(async (y: number) => {
      window.scrollTo({ top: Math.max(0, y), behavior: 'instant' });
      await new Promise((resolve) => {
        setTimeout(resolve, 120);
        requestAnimationFrame(() => requestAnimationFrame(resolve));
      });
      return window.scrollY;
    }, target);
    // (optimizeForSpeed, Chromium's fast PNG encoding, saved ~8 ms a desktop shot for larger files: not taken.)
    const png = Buffer.from(await page.screenshot({ type: 'png' }));
    // What is on screen of the region (below a pinned header still shown: a page shot screen by screen).
    const visibleTop = Math.max(region.top - scrollY, scrollY > 0 && !layout.bySection ? layout.pinnedHeader : 0);
    const visibleBottom = Math.min(region.bottom - scrollY, layout.viewportHeight);
    const ratio = layout.pixelRatio;
    shots.push({
      png,
      heading: layout.bySection ? region.heading : undefined,
      content: {
        x: Math.round(region.left * ratio),
        y: Math.round(visibleTop * ratio),
        width: Math.round((region.right - region.left) * ratio),
        height: Math.max(1, Math.round((visibleBottom - visibleTop) * ratio)),
      },
    });
  }
  await setPinnedBarsHidden(page, false);
  await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
  return shots;
}

/** Hides (or shows again) the bars pinned to the top of the viewport, marked so they can be shown again. */
async function setPinnedBarsHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((hide: boolean) => {
    if (!hide) {
      for (const el of document.querySelectorAll('[data-capture-hidden-bar]')) {
        (el as HTMLElement).style.removeProperty('visibility');
        el.removeAttribute('data-capture-hidden-bar');
      }
      return;
    }
    for (const el of document.querySelectorAll('body *')) {
      const style = getComputedStyle(el);
      if (style.position !== 'fixed' && style.position !== 'sticky') continue;
      const rect = el.getBoundingClientRect();
      if (rect.top <= 1 && rect.height > 0 && rect.height < window.innerHeight * 0.2 && rect.width > window.innerWidth * 0.5) {
        (el as HTMLElement).style.setProperty('visibility', 'hidden', 'important');
        el.setAttribute('data-capture-hidden-bar', '');
      }
    }
  }, hidden);
}

/** What a page's head says of its language and versions: readable as soon as it has loaded. */
export interface PageHead {
  language: string | null;
  alternates: Array<{ hreflang: string; href: string }>;
}

/** The page's declared language and its hreflang versions (absolute URLs). */
export async function readHead(page: Page): Promise<PageHead> {
  return page.evaluate(() => {
    const absolute = (href: string | null) => {
      try {
        return href ? new URL(href, location.href).href : null;
      } catch {
        return null;
      }
    };
    return {
      language:
        document.documentElement.getAttribute('lang') ||
        document.querySelector('meta[http-equiv="content-language"]')?.getAttribute('content')?.trim() ||
        null,
      alternates: [...document.querySelectorAll('link[rel="alternate"][hreflang]')]
        .map((l) => ({ hreflang: l.getAttribute('hreflang')!.toLowerCase(), href: absolute(l.getAttribute('href')) }))
        .filter((a): a is { hreflang: string; href: string } => !!a.href),
    };
  });
}

let readabilitySource: string | undefined;

export async function readText(page: Page): Promise<PageText> {
  readabilitySource ??= fs.readFileSync(require.resolve('@mozilla/readability/Readability.js'), 'utf8');
  const article = (await page.evaluate(`(() => {
    ${readabilitySource}
    try {
      // Markup rendered by a framework has no whitespace between elements: without a break after each block,
      // Readability's text runs one paragraph into the next ("…confirmation.Put the link…").
      const copy = document.cloneNode(true);
      for (const block of copy.querySelectorAll('p,h1,h2,h3,h4,h5,h6,li,dt,dd,blockquote,figcaption,td,th,div,section,article,header,footer'))
        block.appendChild(copy.createTextNode('\\n'));
      const parsed = new Readability(copy, { charThreshold: 200 }).parse();
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
    };
  });
  const head = await readHead(page);
  const mainText = (article?.text ?? meta.bodyText)
    .replace(/[ \t]+/g, ' ')
    .replace(/\s*\n\s*\n\s*/g, '\n\n')
    .trim()
    .slice(0, 20_000);
  const { bodyText: _unused, ...rest } = meta;
  return { ...rest, mainText, alternates: head.alternates, language: head.language ?? article?.lang ?? null };
}
