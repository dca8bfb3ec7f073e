/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * What the capture service does on one page, in the browser: load and classify, make the page
 * presentable (consent banners, lazy content, fixed overlays), shoot it, and read its text and brand.
 */
import fs from 'node:fs';
import type { HTTPResponse, Page } from 'puppeteer-core';
import { actionLabels, type ActionSeen } from './cta-label';
import { switcherVersions, type LanguageVersion } from './language-links';
import { NotAWebPageError, notAWebPage, SHOWS_SOMETHING, type PageSignals } from './refusal';
import { EGRESS_REFUSED_HEADER } from '../net/egress-proxy';
import type { Box, TextBox } from '../render/framing';
import type { SectionFeatures } from '../script/sections';

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
  alternates: LanguageVersion[];
  /** Labels of the page's prominent buttons and call-to-action links, first screen first, without a neighbour's text. */
  actions: string[];
  /** What the browser read of each section of the page (lib/script/sections.ts scores them). */
  sections?: PageSection[];
  /** The hero's prose: the paragraphs between the page's h1 and its first section, notices and banners left out. */
  heroParagraphs?: string[];
  /**
   * The short items of the page's own lists and definition lists (a docs page's topics, a component library's
   * feature list), each its own words without a nested list's, outside navigation, sidebars, headers, footers,
   * code and forms: lib/script/analyze.ts keyPoints reads them for the openings.
   */
  listItems?: string[];
  /** Names the page gives itself besides its title: application-name, the header logo's alt text. */
  brandNames?: string[];
  /** The footer's lines that credit someone ("… by Hollow Pine."): who made the product (lib/script/analyze.ts makersIn). */
  credits?: string[];
}

/** A section as the capture reads it: its features, and where its top is (in viewport heights from the page's top). */
export interface PageSection extends SectionFeatures {
  topScreens: number;
  bottomScreens: number;
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
  // The main frame's navigation that failed after the page was shown (its own meta refresh or script sending the
  // visitor to a host that cannot be reached): seen when the request fails, before Chromium has committed its error
  // page, which on a busy node can come after the waits below.
  let ownNavigationFailed: string | null = null;
  page.on('requestfailed', (failed) => {
    const reason = failed.failure()?.errorText ?? 'net::ERR_FAILED';
    // An address of a scheme we do not load (tel:, an app's own) is aborted by us, and a navigation replaced by the
    // next one (or by our own goto) is aborted by Chromium: the page stays as it was, or the next one is read.
    if (reason === 'net::ERR_BLOCKED_BY_CLIENT' || reason === 'net::ERR_ABORTED') return;
    if (failed.isNavigationRequest() && failed.frame() === page.mainFrame()) ownNavigationFailed = reason;
  });
  // The main frame's last document response: a file Chromium downloads instead of showing (a zip, a PDF sent as
  // application/octet-stream) fails the navigation (net::ERR_ABORTED) with no response handed back, but was seen here.
  let documentResponse: HTTPResponse | null = null;
  page.on('response', (seen) => {
    if (!seen.request().isNavigationRequest() || seen.frame() !== page.mainFrame()) return;
    documentResponse = seen;
    ownNavigationFailed = null;
  });
  const notAPage = (seen: HTTPResponse | null) => {
    const status = seen?.status() ?? 0;
    if (!seen || status < 200 || status >= 300 || seen.headers()[EGRESS_REFUSED_HEADER]) return;
    const reason = notAWebPage(seen.headers()['content-type'], seen.url(), seen.headers()['content-disposition']);
    if (reason) throw new NotAWebPageError(reason);
  };
  let response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: timeoutMs }).catch((err: unknown) => {
    notAPage(documentResponse);
    throw err;
  });
  const refused = response?.headers()[EGRESS_REFUSED_HEADER];
  if (refused) throw new Error(`ERR_EGRESS_${refused}`);
  notAPage(response);
  await page.waitForNetworkIdle({ idleTime: 300, timeout: Math.min(5000, timeoutMs) }).catch(() => undefined);
  // An entry page that sends its visitors on with <meta http-equiv="refresh"> (a tiny project site's index): the
  // page it names is the one to read, followed here (three hops at most) rather than raced by the reads below.
  for (let hop = 0; hop < 3; hop += 1) {
    const next = await metaRefreshTarget(page).catch(() => null);
    if (!next || next === page.url()) break;
    response = await page.goto(next, { waitUntil: 'domcontentloaded', timeout: timeoutMs }).catch((err: unknown) => {
      notAPage(documentResponse);
      throw err;
    });
    const refusedNext = response?.headers()[EGRESS_REFUSED_HEADER];
    if (refusedNext) throw new Error(`ERR_EGRESS_${refusedNext}`);
    notAPage(response);
    await page.waitForNetworkIdle({ idleTime: 300, timeout: Math.min(5000, timeoutMs) }).catch(() => undefined);
  }
  // A navigation the page made by itself (a meta refresh or a script, before the loop above could follow it) that
  // failed: what Chromium shows is its own error page ("This site can't be reached") or the egress guard's refusal,
  // not the customer's page, and it must not be filmed and narrated.
  const lastDocument = documentResponse as HTTPResponse | null;
  const refusedLater = lastDocument?.headers()[EGRESS_REFUSED_HEADER];
  if (refusedLater) throw new Error(`ERR_EGRESS_${refusedLater}`);
  const failedLater = ownNavigationFailed as string | null;
  if (failedLater || page.url().startsWith('chrome-error:')) {
    const code = await page.evaluate(() => document.querySelector('.error-code')?.textContent ?? '').catch(() => '');
    throw new Error(`the page's own navigation failed: ${code.trim() || failedLater || 'net::ERR_FAILED'}`);
  }
  // A page drawn by its own scripts (a single-page app, a Markdown page rendered in the browser) can still be blank
  // when the network falls quiet, the more so on a busy node: it has a few seconds to show text or a picture before
  // it is judged empty (the rule of lib/capture/refusal.ts).
  await page
    .waitForFunction(
      (least: typeof SHOWS_SOMETHING) =>
        (document.body?.innerText ?? '').replace(/\s+/g, ' ').trim().length >= least.textLength ||
        [...document.images].some((img) => img.naturalWidth > least.imageWidth),
      { timeout: Math.min(5000, timeoutMs), polling: 250 },
      SHOWS_SOMETHING,
    )
    .catch(() => undefined);
  const seen = await page.evaluate((least: typeof SHOWS_SOMETHING) => {
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
      imageCount: [...document.images].filter((img) => img.naturalWidth > least.imageWidth && visible(img)).length,
    };
  }, SHOWS_SOMETHING);
  return { response, signals: { status: response?.status() ?? 0, finalUrl: page.url(), ...seen } };
}

/** The address a <meta http-equiv="refresh"> sends the visitor to within 10 s (absolute, http or https), or null. */
async function metaRefreshTarget(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const meta = [...document.querySelectorAll('meta[http-equiv]')].find((m) => m.getAttribute('http-equiv')?.toLowerCase() === 'refresh');
    const match = /^\s*(\d+(?:\.\d+)?)\s*[;,]\s*(?:url\s*=\s*)?['"]?([^'"]+)['"]?\s*$/i.exec(meta?.getAttribute('content') ?? '');
    if (!match || Number(match[1]) > 10) return null;
    try {
      const target = new URL(match[2].trim(), location.href);
      return /^https?:$/.test(target.protocol) ? target.href : null;
    } catch {
      return null;
    }
  });
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
          words.test((b instanceof HTMLElement ? b.innerText : (b.textContent ?? '')).trim()),
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
  // On a busy node the network can fall quiet before every image has arrived (or before a lazy one scrolled past
  // started): those are asked for now and waited for, a few seconds at most, so no shot shows an empty frame.
  await page
    .evaluate(async (waitMs) => {
      const frames = (most: number) =>
        new Promise((resolve) => {
          setTimeout(resolve, most);
          requestAnimationFrame(() => requestAnimationFrame(resolve));
        });
      // A lazy image whose script sets its source when it is seen (data-src and an IntersectionObserver) can be
      // passed over by the scroll above on a busy node, before the observer ran: each still without a source is
      // brought into view and given its frames (a few dozen at most).
      const unsourced = [...document.images].filter(
        (img) => !img.currentSrc && !img.getAttribute('src') && !img.getAttribute('srcset') && img.getBoundingClientRect().width > 0,
      );
      for (const img of unsourced.slice(0, 40)) {
        img.scrollIntoView({ block: 'center', behavior: 'instant' });
        await frames(250);
      }
      if (unsourced.length > 0) window.scrollTo({ top: 0, behavior: 'instant' });
      const pending = [...document.images].filter((img) => !img.complete && (img.currentSrc || img.src));
      for (const img of pending) img.loading = 'eager';
      const settled = (img: HTMLImageElement) =>
        new Promise((resolve) => {
          if (img.complete) return resolve(undefined);
          img.addEventListener('load', resolve, { once: true });
          img.addEventListener('error', resolve, { once: true });
        });
      await Promise.race([Promise.all(pending.map(settled)), new Promise((resolve) => setTimeout(resolve, waitMs))]);
    }, 5000)
    .catch(() => undefined);
  await fitToPhoneWidth(page);
  const hiddenOverlays = await page.evaluate(() => {
    const viewportArea = window.innerWidth * window.innerHeight;
    let hidden = 0;
    for (const el of document.querySelectorAll('body *')) {
      const style = getComputedStyle(el);
      // Fixed layers float over the page. A sticky element keeps its place in the layout (a documentation site's
      // sidebar, its table of contents): hiding it would move the page's columns, so it stays (a sticky bar at the
      // top is hidden over the sections below by setPinnedBarsHidden, which keeps its room).
      if (style.position !== 'fixed') continue;
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

/**
 * On a phone's screen, a page laid out for desktops only (a table, a `nowrap` block of a fixed width, a stylesheet that
 * did not load) runs off the right edge: every line of it is cut in the video, and the phone browser zooms the whole
 * page out to show it, which moves every section away from where the shots look for it. The parts wider than the
 * screen that the page does not clip itself are fitted to it, their text wrapped, as a reader mode would; the page
 * is then as wide as the phone. Pages that fit, and any desktop viewport, are left as they are.
 */
async function fitToPhoneWidth(page: Page): Promise<number> {
  return page
    .evaluate(() => {
      const width = document.documentElement.clientWidth;
      if (width > 600 || document.documentElement.scrollWidth <= width + 1) return 0;
      const clipped = (el: Element) => {
        for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
          const { overflowX } = getComputedStyle(up);
          if (overflowX !== 'visible') return true;
        }
        return false;
      };
      let fitted = 0;
      for (const el of document.querySelectorAll<HTMLElement>('body *')) {
        const rect = el.getBoundingClientRect();
        if (rect.right <= width + 1 || rect.width === 0 || getComputedStyle(el).position === 'fixed' || clipped(el)) continue;
        const style = getComputedStyle(el);
        el.style.setProperty('max-width', '100%', 'important');
        el.style.setProperty('min-width', '0', 'important');
        if (parseFloat(style.width) > width) el.style.setProperty('width', 'auto', 'important');
        if (/nowrap|pre$/.test(style.whiteSpace)) el.style.setProperty('white-space', 'normal', 'important');
        el.style.setProperty('overflow-wrap', 'anywhere', 'important');
        fitted += 1;
      }
      document.documentElement.style.setProperty('overflow-x', 'hidden', 'important');
      return fitted;
    })
    .catch(() => 0);
}

/**
 * A page laid out for desktops only, whatever the screen: its own root (html or body) is wider than the phone's
 * screen (a documentation site's body given a desktop's min-width, its sidebar, text column and demo pane side by
 * side). Fitting its parts (fitToPhoneWidth) cannot help: they are as wide as that root, and narrowing the root
 * squeezes its text column to nothing. Its phone screenshots would show the left part of every line, cut at the
 * right edge; its vertical videos show its desktop screenshots instead (lib/render/framing.ts: whole lines).
 */
export async function laidOutForDesktopOnly(page: Page): Promise<boolean> {
  return page
    .evaluate(() => {
      const width = document.documentElement.clientWidth;
      const root = Math.max(document.documentElement.getBoundingClientRect().width, document.body?.getBoundingClientRect().width ?? 0);
      return width <= 600 && root > width + 1;
    })
    .catch(() => false);
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
  /** The section's position among the page's sections (readSections' `index`); absent for the top of the page. */
  section?: number;
  /** The median CSS font size of the text it shows (absent when it shows none). */
  textPx?: number;
  /** The shot's content (its text and media, clipped to what is on screen below a pinned header), in image pixels. */
  content: Box;
  /** The section's heading and paragraph-level blocks on screen, with their text, in image pixels (lib/render/framing.ts ShotContent.focus). */
  focus?: TextBox[];
}

/** What the browser reports of one region to shoot, in CSS pixels of the document. */
interface Region {
  heading: string | null;
  section: number | null;
  textPx: number;
  top: number;
  bottom: number;
  left: number;
  right: number;
  /** The section's heading and paragraph-level blocks (document CSS pixels), for the narrated one to be marked. */
  focus: Array<{ top: number; bottom: number; left: number; right: number; text: string; lines: number }>;
}

/**
 * The page's sections, found the same way by readSections and shootSections: each visible <h2> outside the page's
 * chrome (navigation, footer, sidebars, dialogs, consent banners), and its section, the largest ancestor that holds
 * that heading and no other. Installed in the page as functions (`__captureSections`, and `__captureVisible` for
 * what is on screen), so both read one definition.
 */
const SECTION_FINDER = `globalThis.__captureVisible = (el) => {
  const rect = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  return rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
};
globalThis.__captureSections = () => {
  const visible = globalThis.__captureVisible;
  const outside = 'nav,footer,aside,dialog,[role="dialog"],[role="navigation"],[role="contentinfo"],[id*="cookie" i],[class*="cookie" i],[id*="consent" i],[class*="consent" i]';
  const headings = [...document.querySelectorAll('h2')].filter((h) => visible(h) && !h.closest(outside) && h.innerText.trim());
  const isBoundary = (el) => el.matches('h1,h2') || headings.some((h) => el.contains(h)) || !!el.querySelector('h1');
  return headings.map((heading) => {
    let section = heading;
    while (section.parentElement && section.parentElement !== document.body) {
      const parent = section.parentElement;
      if (parent.tagName === 'MAIN' || headings.some((h) => h !== heading && parent.contains(h))) break;
      section = parent;
    }
    // As written, not as styled: a heading set in capitals by CSS is said and shown in its own case.
    const title = (getComputedStyle(heading).textTransform !== 'none' ? heading.textContent : heading.innerText).replace(/\\s+/g, ' ').trim();
    // A flat page (a document's headings and paragraphs side by side): the heading's block and what follows it,
    // up to the next heading.
    const parts = [section];
    const bare = section.innerText.replace(/\\s+/g, ' ').trim().length - title.length < 40 && !section.querySelector('img,svg,video,canvas,picture');
    if (bare) {
      for (let next = section.nextElementSibling; next && !isBoundary(next); next = next.nextElementSibling) parts.push(next);
    }
    return { heading, section, parts, title };
  });
};`;

interface FoundSection {
  heading: HTMLElement;
  section: HTMLElement;
  /** The section element, or on a flat page the heading's block and the blocks that follow it up to the next heading. */
  parts: HTMLElement[];
  title: string;
}
type SectionFinderWindow = typeof globalThis & { __captureSections: () => FoundSection[]; __captureVisible: (el: Element) => boolean };

/**
 * What each section of the page is made of (lib/script/sections.ts scores it): its prose, how much of its text
 * is links, its images by size, dates, forms, quotes and folding questions, its markup's names, and where it is.
 */
export async function readSections(page: Page): Promise<PageSection[]> {
  await page.evaluate(SECTION_FINDER);
  return page.evaluate(() => {
    const { __captureSections, __captureVisible: visible } = globalThis as SectionFinderWindow;
    const found = __captureSections();
    const folded = (text: string) => text.replace(/\s+/g, ' ').trim();
    return found.slice(0, 40).map(({ heading, section, parts, title }, index) => {
      const all = (selector: string) =>
        parts.flatMap((part) => [...(part.matches(selector) ? [part] : []), ...part.querySelectorAll(selector)]);
      const inside = all('*').filter((el) => visible(el));
      const text = folded(parts.map((part) => part.innerText).join('\n'))
        .replace(title, '')
        .trim();
      const linkText = all('a,button,[role="button"]')
        .filter((el) => visible(el) && !el.parentElement?.closest('a,button'))
        .reduce((n, el) => n + folded(el instanceof HTMLElement ? el.innerText : (el.textContent ?? '')).length, 0);
      const paragraphs = all('p,blockquote,dd,li,figcaption')
        .filter((el) => visible(el) && !el.closest('nav,pre,code,form') && !el.parentElement?.closest('p,blockquote,li'))
        .map((el) => folded(el instanceof HTMLElement ? el.innerText : (el.textContent ?? '')))
        .filter((t) => t && (t.length >= 40 || /[.!?。！？]$/.test(t)))
        .slice(0, 12);
      let small = 0;
      let large = 0;
      for (const el of inside) {
        if (!el.matches('img,svg,video,canvas,picture,iframe') || el.parentElement?.closest('svg,picture')) continue;
        const r = el.getBoundingClientRect();
        if (r.width >= 320 && r.height >= 180) large += 1;
        else if (r.width >= 24 && r.height >= 12 && r.width <= 240 && r.height <= 160) small += 1;
      }
      const sizes = inside
        .filter((el) => [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim()))
        .map((el) => parseFloat(getComputedStyle(el).fontSize))
        .filter((n) => n > 0)
        .sort((a, b) => a - b);
      const tokens = [section, heading, section.parentElement, ...parts.slice(1, 3)]
        .filter((el): el is HTMLElement => !!el && el !== document.body)
        .map((el) => `${el.id} ${typeof el.className === 'string' ? el.className : ''} ${el.getAttribute('role') ?? ''}`)
        .join(' ')
        .toLowerCase();
      return {
        index,
        heading: title,
        paragraphs,
        text: text.slice(0, 1500),
        textChars: text.length,
        linkChars: linkText,
        smallImages: small,
        largeMedia: large,
        listItems: all('li').length,
        times: all('time').length,
        formFields: all('input:not([type="hidden"]),select,textarea').filter(visible).length,
        quotes: all('blockquote,q,[class*="testimonial" i],[class*="quote" i]').length,
        disclosures: all('details,[aria-expanded]').length,
        tokens: tokens.slice(0, 300),
        fontPx: sizes.length ? sizes[Math.floor(sizes.length / 2)] : 0,
        topScreens: (Math.min(...parts.map((part) => part.getBoundingClientRect().top)) + window.scrollY) / window.innerHeight,
        bottomScreens: (Math.max(...parts.map((part) => part.getBoundingClientRect().bottom)) + window.scrollY) / window.innerHeight,
      };
    });
  });
}

/** Which sections shootSections takes, beyond its `maxShots` bound. */
export interface SectionChoice {
  /** The sections to shoot, by position among the page's sections (readSections' `index`); by default the first ones. */
  indices?: number[];
  /** sections at most after the top of the page, when `indices` is not given (each shot costs a
   * scroll, two painted frames and a PNG encode, and most pages have more sections than a video shows) */
  sections?: number;
}

/**
 * The top of the page, then one shot per chosen section of the page (the element around each <h2> that holds no
 * other section heading), at most `maxShots` in all: each section scrolled to, with the page's pinned header
 * hidden, centred when it fits the viewport, its top near the viewport's top when it does not. A page without
 * section headings is shot screen by screen instead. Each shot records its content box (a large panel left empty,
 * such as a carousel whose script did not load, is not content), so a frame can be cropped around it.
 */
export async function shootSections(page: Page, maxShots: number, choice: SectionChoice = {}): Promise<Shot[]> {
  const sectionLimit = Math.max(0, Math.min(maxShots - 1, choice.sections ?? Infinity));
  await page.evaluate(SECTION_FINDER);
  const layout = await page.evaluate(
    (limit: number, sectionsAtMost: number, indices: number[] | null) => {
      const visible = (globalThis as SectionFinderWindow).__captureVisible;
      const pinnedHeader = [...document.querySelectorAll('body *')].reduce((bottom, el) => {
        const style = getComputedStyle(el);
        if (style.position !== 'fixed' && style.position !== 'sticky') return bottom;
        const rect = el.getBoundingClientRect();
        const bar = rect.top <= 1 && rect.height > 0 && rect.height < window.innerHeight * 0.2 && rect.width > window.innerWidth * 0.5;
        return bar ? Math.max(bottom, rect.bottom) : bottom;
      }, 0);
      const outside = 'nav,footer,aside,dialog,[role="dialog"],[id*="cookie" i],[class*="cookie" i],[id*="consent" i],[class*="consent" i]';
      const found = (globalThis as SectionFinderWindow).__captureSections();
      const chosen = indices
        ? found.map((f, index) => ({ ...f, index })).filter((f) => indices.includes(f.index))
        : found.slice(0, sectionsAtMost).map((f, index) => ({ ...f, index }));
      /**
       * Large panels with nothing in them but controls (a carousel whose slides never came, a video poster that
       * did not load): their controls are not content, and the top of the page ends above them.
       */
      const emptyPanels = [...document.querySelectorAll('body *')].filter((el) => {
        if (!visible(el) || el.closest(outside)) return false;
        const r = el.getBoundingClientRect();
        if (r.width < window.innerWidth * 0.3 || r.height < Math.min(200, window.innerHeight * 0.25)) return false;
        const media = [...el.querySelectorAll('img,svg,video,canvas,picture,iframe')].some((m) => {
          const mr = m.getBoundingClientRect();
          return visible(m) && mr.width * mr.height > r.width * r.height * 0.05;
        });
        if (media || el.matches('img,svg,video,canvas,picture,iframe')) return false;
        const own = (el instanceof HTMLElement ? el.innerText : (el.textContent ?? '')).replace(/\s+/g, ' ').trim();
        const controls = [...el.querySelectorAll('button,[role="button"]')]
          .map((b) => (b instanceof HTMLElement ? b.innerText : (b.textContent ?? '')).replace(/\s+/g, ' ').trim())
          .join(' ');
        return own.length - controls.length < 20 && getComputedStyle(el).backgroundImage === 'none';
      });
      const innermostEmpty = emptyPanels.filter((el) => !emptyPanels.some((other) => other !== el && el.contains(other)));
      /** Leaves that carry content: elements with their own text, and media; not inside an empty panel. */
      const leaves = [...document.querySelectorAll('body *')].filter((el) => {
        if (!visible(el) || el.closest(outside)) return false;
        if (innermostEmpty.some((panel) => panel.contains(el))) return false;
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
      /** The union of the content leaves inside `area` (document coordinates), null when it holds none. */
      const leavesIn = (area: { top: number; bottom: number; left: number; right: number }, within?: Element[]) => {
        let box: { top: number; bottom: number; left: number; right: number } | null = null;
        for (const el of leaves) {
          if (within && !within.some((part) => part.contains(el))) continue;
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
        return box;
      };
      const contentOf = (area: { top: number; bottom: number; left: number; right: number }, within?: Element[]) =>
        leavesIn(area, within) ?? area;
      /** The median CSS font size of the text inside `area`: how large the page's type is (lib/render/framing.ts keeps it legible). */
      const textPxOf = (area: { top: number; bottom: number }, within?: Element[]) => {
        const sizes = leaves
          .filter(
            (el) =>
              (!within || within.some((part) => part.contains(el))) &&
              !el.matches('img,svg,video,canvas,picture,input,button,select,textarea'),
          )
          .filter((el) => {
            const r = docRect(el);
            return r.bottom > area.top && r.top < area.bottom;
          })
          .map((el) => parseFloat(getComputedStyle(el).fontSize))
          .filter((n) => n > 0)
          .sort((a, b) => a - b);
        return sizes.length ? sizes[Math.floor(sizes.length / 2)] : 0;
      };
      const pageBox = { left: 0, right: document.documentElement.clientWidth };
      const regions: Region[] = [];
      if (found.length) {
        // The top of the page: from its headline (the hero's h1, when it is on the first screen) down to the fold, an
        // empty panel below the headline or a shot section, so the framing puts the headline, not the site's header bar, first.
        const h1 = [...document.querySelectorAll('h1')].find((h) => visible(h) && !h.closest(outside));
        const h1Top = h1 ? docRect(h1).top : Infinity;
        const heroTop = h1Top < window.innerHeight * 0.75 ? Math.max(0, h1Top - 16) : 0;
        // It ends, too, where a section shot on its own starts on the first screen (a phone's first screen often
        // shows the next section's heading): that section is its own scene, and the hero's box kept to its own
        // content is not scrolled down through the empty rest of a tall first section to reach it.
        const panelBelow = [...innermostEmpty, ...chosen.flatMap((c) => c.parts)]
          .map((el) => docRect(el).top)
          .filter((top) => top > heroTop + 120 && top < window.innerHeight)
          .sort((a, b) => a - b)[0];
        const hero = { top: heroTop, bottom: panelBelow ?? window.innerHeight, ...pageBox };
        regions.push({ heading: null, section: null, textPx: textPxOf(hero), ...contentOf(hero), focus: [] });
        /**
         * How many lines of text a block shows (its text's boxes, top to bottom: one whose middle lies below the line
         * so far starts the next; inline type of other sizes on a line is counted once): the renderer's crop stops
         * between two of them, not across one (lib/render/framing.ts).
         */
        const linesOf = (el: Element) => {
          const range = document.createRange();
          range.selectNodeContents(el);
          const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0).sort((a, b) => a.top - b.top);
          let lines = 0;
          let bottom = -Infinity;
          for (const r of rects) {
            if (r.top + r.height / 2 > bottom) {
              lines += 1;
              bottom = r.bottom;
            } else bottom = Math.max(bottom, r.bottom);
          }
          return Math.max(1, lines);
        };
        /** The heading and the blocks of prose that the narration may quote (lib/render/camera.ts marks one). */
        const focusOf = (heading: Element, parts: Element[]) =>
          [heading, ...parts.flatMap((part) => [...part.querySelectorAll('p,li,blockquote,dd,figcaption,h3,h4')])]
            .filter((el) => visible(el) && !el.closest(outside) && (el === heading || !el.parentElement?.closest('p,li,blockquote')))
            .map((el) => ({
              ...docRect(el),
              text: (el instanceof HTMLElement ? el.innerText : (el.textContent ?? '')).replace(/\s+/g, ' ').trim(),
              lines: linesOf(el),
            }))
            .filter((f) => f.text)
            .slice(0, 40);
        for (const { heading, parts, title, index } of chosen) {
          const rects = parts.map(docRect);
          const area = { top: Math.min(...rects.map((r) => r.top)), bottom: Math.max(...rects.map((r) => r.bottom)), ...pageBox };
          regions.push({
            heading: title,
            section: index,
            textPx: textPxOf(area, parts),
            ...contentOf(area, parts),
            focus: focusOf(heading, parts),
          });
        }
      } else {
        const height = document.documentElement.scrollHeight;
        for (let i = 0; i < limit && i * window.innerHeight < height; i += 1) {
          const top = i * window.innerHeight;
          const area = { top, bottom: top + window.innerHeight, ...pageBox };
          // A screen below the first that holds nothing but furniture (the footer under a product grid that ended on
          // the first screen) adds no scene: a real shop template's second shot showed its footer alone (blank_scene).
          const content = leavesIn(area);
          if (i > 0 && !content) continue;
          regions.push({ heading: null, section: null, textPx: textPxOf(area), ...(content ?? area), focus: [] });
        }
      }
      return {
        regions,
        pinnedHeader,
        viewportHeight: window.innerHeight,
        pixelRatio: window.devicePixelRatio,
        bySection: found.length > 0,
      };
    },
    maxShots,
    sectionLimit,
    choice.indices ? choice.indices.slice(0, Math.max(0, maxShots - 1)) : null,
  );

  const shots: Shot[] = [];
  for (const [n, region] of layout.regions.entries()) {
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
      ...(layout.bySection && region.section !== null ? { section: region.section } : {}),
      ...(region.textPx > 0 ? { textPx: region.textPx } : {}),
      content: {
        x: Math.round(region.left * ratio),
        y: Math.round(visibleTop * ratio),
        width: Math.round((region.right - region.left) * ratio),
        height: Math.max(1, Math.round((visibleBottom - visibleTop) * ratio)),
      },
      // The blocks wholly on screen (below a pinned header still shown).
      ...(region.focus.length
        ? {
            focus: region.focus
              .filter((f) => f.top - scrollY >= visibleTop - 1 && f.bottom - scrollY <= layout.viewportHeight + 1)
              .map((f) => ({
                text: f.text,
                lines: f.lines,
                box: {
                  x: Math.round(f.left * ratio),
                  y: Math.round((f.top - scrollY) * ratio),
                  width: Math.round((f.right - f.left) * ratio),
                  height: Math.round((f.bottom - f.top) * ratio),
                },
              })),
          }
        : {}),
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
      // A sticky bar below an announcement bar is not at the top yet, but will be once the page scrolls (its top: 0).
      const pinned = rect.top <= 1 || (style.position === 'sticky' && style.top !== 'auto' && parseFloat(style.top) <= 1);
      if (pinned && rect.height > 0 && rect.height < window.innerHeight * 0.2 && rect.width > window.innerWidth * 0.5) {
        (el as HTMLElement).style.setProperty('visibility', 'hidden', 'important');
        el.setAttribute('data-capture-hidden-bar', '');
      }
    }
  }, hidden);
}

/** What a page's head says of its language and versions: readable as soon as it has loaded. */
export interface PageHead {
  language: string | null;
  /** Its hreflang versions, then the versions its language switcher links for languages hreflang does not declare. */
  alternates: LanguageVersion[];
}

/** The page's declared language and its language versions (absolute URLs): hreflang first, then its switcher's links. */
export async function readHead(page: Page): Promise<PageHead> {
  const seen = await page.evaluate(() => {
    const absolute = (href: string | null) => {
      try {
        return href ? new URL(href, location.href).href : null;
      } catch {
        return null;
      }
    };
    return {
      url: location.href,
      language:
        document.documentElement.getAttribute('lang') ||
        document.querySelector('meta[http-equiv="content-language"]')?.getAttribute('content')?.trim() ||
        null,
      alternates: [...document.querySelectorAll('link[rel="alternate"][hreflang]')]
        .map((l) => ({ hreflang: l.getAttribute('hreflang')!.toLowerCase(), href: absolute(l.getAttribute('href')) }))
        .filter((a): a is { hreflang: string; href: string } => !!a.href),
      // Links a language switcher may hold (hidden in a closed menu too): short words, an icon's alt text, or a
      // lang / hreflang attribute.
      links: [...document.querySelectorAll('a[href]')]
        .map((a) => ({
          href: (a as HTMLAnchorElement).href,
          text: (
            a.textContent?.trim() ||
            a.getAttribute('aria-label') ||
            a.getAttribute('title') ||
            a.querySelector('img[alt]')?.getAttribute('alt') ||
            ''
          )
            .replace(/\s+/g, ' ')
            .trim(),
          lang: a.getAttribute('lang'),
          hreflang: a.getAttribute('hreflang'),
        }))
        .filter((l) => l.lang || l.hreflang || (l.text.length > 0 && l.text.length <= 40))
        .slice(0, 800),
    };
  });
  const declared = new Set(seen.alternates.map((a) => a.hreflang.split('-')[0]));
  const switcher = switcherVersions(seen.links, seen.url).filter((v) => !declared.has(v.hreflang.split('-')[0]));
  return { language: seen.language, alternates: [...seen.alternates, ...switcher] };
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
        .map((h) => ({
          level: Number(h.tagName[1]),
          text: (getComputedStyle(h).textTransform === 'none' && h instanceof HTMLElement ? h.innerText : (h.textContent ?? ''))
            .replace(/\s+/g, ' ')
            .trim(),
        }))
        .filter((h) => h.text)
        .slice(0, 40),
      bodyText: (document.body?.innerText ?? '')
        .replace(/[ \t]+/g, ' ')
        .replace(/\n{3,}/g, '\n\n')
        .trim(),
      themeColor: content('meta[name="theme-color"]'),
      iconUrls: [...new Set(icons)].slice(0, 8),
      actionsSeen: callsToAction(),
      heroParagraphs: heroProse(),
      listItems: listItems(),
      brandNames: [
        // The header's logo link: one named or styled as the brand, or the header's first link when it goes to the site's
        // root or to this page itself (not its menu's other links, which a real page pointed at "" too, nor a contact
        // bar's "#" links).
        ...[
          ...document.querySelectorAll('[class*="brand" i] a[href], a[class*="brand" i], a[class*="logo" i], [class*="logo" i] a[href]'),
          ...[...document.querySelectorAll('header a[href]')]
            .slice(0, 1)
            .filter((a) => /^(?:|\/|\.\/|index\.html?)$/i.test((a.getAttribute('href') ?? '').trim())),
        ]
          // A phone number or an e-mail address beside the logo ("footer-brand") is not its name.
          .filter((a) => !/^(?:tel|mailto|sms):/i.test((a.getAttribute('href') ?? '').trim()))
          .map((a) => (a instanceof HTMLElement ? a.innerText : (a.textContent ?? '')).replace(/\s+/g, ' ').trim())
          .filter((t) => t && t.split(' ').length <= 3),
        // A logo set as text in an element of its own (<p class="logo">Fashion</p>) near the top of the page.
        ...[...document.querySelectorAll('[class*="logo" i]:not(a):not(img):not(svg), [class*="brand" i]:not(a):not(img):not(svg)')]
          .filter((el) => !el.querySelector('a,img,svg') && el.getBoundingClientRect().top + window.scrollY < 200)
          .map((el) => (el instanceof HTMLElement ? el.innerText : (el.textContent ?? '')).replace(/\s+/g, ' ').trim())
          .filter((t) => t && t.split(' ').length <= 3),
        content('meta[name="application-name"]'),
        ...[
          ...document.querySelectorAll('header img[alt], [class*="logo" i] img[alt], img[class*="logo" i][alt], a[href="/"] img[alt]'),
        ].map((img) =>
          (img.getAttribute('alt') ?? '')
            .replace(/\b(logo|home)\b/gi, '')
            .replace(/\s+/g, ' ')
            .trim(),
        ),
      ].filter((n): n is string => !!n && n.length <= 40),
      credits: [...document.querySelectorAll('footer, [role="contentinfo"]')]
        .flatMap((footer) => (footer instanceof HTMLElement ? footer.innerText : (footer.textContent ?? '')).split(/\n+|(?<=[.!?])\s+/))
        .map((line) => line.replace(/\s+/g, ' ').trim())
        .filter((line) => line.length <= 160 && /\bby\s/i.test(line))
        .slice(0, 8),
    };

    /**
     * The page's calls to action on its first screen and a half, in the order a visitor meets them (the header's
     * last): links styled as buttons,
     * and buttons, outside navigation, menus, sidebars and dropdowns, language switchers, carts and account links (a
     * real closing card read "View Cart", another a category menu's "Clothes"), forms, consent banners and carousels
     * (whose "Previous" and "Next" are controls, not calls), not skip links, not hidden off screen. A label is the element's own words: text in a
     * smaller type inside it ("Powered by …") is a neighbour's note, not part of the call, and so is a line of its
     * own under the label (actionLabel in lib/capture/cta-label.ts).
     */
    function callsToAction(): ActionSeen[] {
      // A link is a button when it is named so, or styled so: a filled background of its own and padding around its words.
      const styledAsButton = (el: Element) => {
        const style = getComputedStyle(el);
        const filled = style.backgroundColor !== 'rgba(0, 0, 0, 0)' && style.backgroundColor !== 'transparent';
        return filled && parseFloat(style.paddingLeft) >= 8 && parseFloat(style.paddingRight) >= 8;
      };
      const candidates = [
        ...document.querySelectorAll('a[class*="btn" i],a[class*="button" i],a[class*="cta" i],button:not([aria-label]),[role="button"]'),
        ...[...document.querySelectorAll('a[href]')].filter(styledAsButton),
      ].filter((el) => {
        const r = el.getBoundingClientRect();
        const href = el.getAttribute('href') ?? '';
        return (
          r.width > 40 &&
          r.height > 20 &&
          r.top + window.scrollY >= 0 &&
          // A call to action is made on the first screens; a "Yes" under "Was this page helpful?" is feedback.
          r.top + window.scrollY < window.innerHeight * 1.5 &&
          r.left + window.scrollX >= 0 &&
          !el.closest(
            'nav,footer,form,dialog,aside,[role="menu"],[role="menubar"],[role="navigation"],[class*="menu" i],[class*="dropdown" i],[class*="sidebar" i],[class*="cart" i],[class*="basket" i],[class*="account" i],[class*="wishlist" i],[class*="language" i],[class*="locale" i],[class*="switcher" i],[id*="cookie" i],[class*="cookie" i],[id*="consent" i],[class*="consent" i],[class*="carousel" i],[class*="slider" i],[class*="swiper" i],[class*="slick" i],[aria-roledescription="carousel"]',
          ) &&
          !el.hasAttribute('aria-controls') &&
          // A language switcher's link, a cart's, an account's: the page's furniture, not its call to action.
          !el.hasAttribute('hreflang') &&
          !el.hasAttribute('lang') &&
          !/(?:^|[/?#=_-])(?:cart|basket|checkout|account|my-account|login|log-in|signin|sign-in|wishlist)(?:$|[/?#.=_-])/i.test(href) &&
          !/^#(main|content|skip)/i.test(href) &&
          !/skip/i.test(`${el.id} ${typeof el.className === 'string' ? el.className : ''}`)
        );
      });
      // The element's words line by line: a <br>, or a block inside it (a sponsor line under the label), starts a line.
      const lines = (el: Element): string[] => {
        const size = parseFloat(getComputedStyle(el).fontSize);
        const pieces: string[] = [];
        const walk = (node: Node) => {
          if (node.nodeType === Node.TEXT_NODE) pieces.push(node.textContent ?? '');
          else if (node.nodeType === Node.ELEMENT_NODE) {
            const child = node as HTMLElement;
            if (child.tagName === 'BR') return void pieces.push('\n');
            const style = getComputedStyle(child);
            if (style.display === 'none' || style.visibility === 'hidden') return;
            if (parseFloat(style.fontSize) < size * 0.9 || child.matches('small,sub,sup')) return;
            // Items of a row flex container are blocks to CSS but sit side by side: one line ("icon, label").
            const parent = child.parentElement ? getComputedStyle(child.parentElement) : null;
            const inRow = !!parent && parent.display.includes('flex') && parent.flexDirection.startsWith('row');
            const block = !inRow && !style.display.startsWith('inline') && style.display !== 'contents';
            if (block) pieces.push('\n');
            for (const n of child.childNodes) walk(n);
            if (block) pieces.push('\n');
          }
        };
        for (const n of el.childNodes) walk(n);
        return pieces
          .join(' ')
          .split('\n')
          .map((line) => line.replace(/\s+/g, ' ').trim())
          .filter(Boolean);
      };
      const inHeader = (el: Element) => !!el.closest('header') && el.getBoundingClientRect().top + window.scrollY < 120;
      const primary = (el: Element) => /primary|cta|main/i.test(typeof el.className === 'string' ? el.className : '');
      const ordered = candidates.sort(
        (a, b) =>
          Number(inHeader(a)) - Number(inHeader(b)) ||
          a.getBoundingClientRect().top - b.getBoundingClientRect().top ||
          Number(primary(b)) - Number(primary(a)),
      );
      // Their labels are made in Node (lib/capture/cta-label.ts), where the rule is tested.
      return ordered.map((el) => ({ lines: lines(el), ariaLabel: el.getAttribute('aria-label') }));
    }

    /**
     * The page's own list items and definition terms, short ones (a topic, a feature), each without its nested
     * list's words: not the chrome's (navigation, sidebars, header, footer, dialogs), nor code, forms, notices.
     */
    function listItems(): string[] {
      const chrome =
        'nav,header,footer,aside,dialog,form,pre,code,[role="navigation"],[role="dialog"],[role="contentinfo"],[role="banner"],[role="note"],[role="alert"]';
      // Named as chrome by a class: a layout's wrapper named so ("book with-summary") holds the page's h1 too, and is not.
      const named = /(^|[\s_-])(sidebar|menu|toc|breadcrumbs?|cookie|consent)([\s_-]|$)/i;
      const inChrome = (el: Element) => {
        if (el.closest(chrome)) return true;
        for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
          if (typeof up.className === 'string' && named.test(up.className) && !up.querySelector('h1')) return true;
        }
        return false;
      };
      const own = (el: Element) =>
        [...el.childNodes]
          .filter((n) => !(n instanceof Element && n.matches('ul,ol,dl')))
          .map((n) => (n instanceof HTMLElement ? n.innerText : (n.textContent ?? '')))
          .join(' ')
          .replace(/\s+/g, ' ')
          .trim();
      return [...document.querySelectorAll('li,dt')]
        .filter((el) => el.getBoundingClientRect().height > 0 && !inChrome(el))
        .map(own)
        .filter((t) => t.length >= 2 && t.length <= 120)
        .slice(0, 60);
    }

    /** The hero's paragraphs: after the page's h1, before its first section heading, notices and banners left out. */
    function heroProse(): string[] {
      const h1 = [...document.querySelectorAll('h1')].find((h) => h.getBoundingClientRect().height > 0);
      if (!h1) return [];
      const firstSection = [...document.querySelectorAll('h2')].find(
        (h) => h.getBoundingClientRect().height > 0 && !h.closest('nav,footer,aside'),
      );
      return [...document.querySelectorAll('p')]
        .filter((p) => {
          if (!(h1.compareDocumentPosition(p) & Node.DOCUMENT_POSITION_FOLLOWING)) return false;
          if (firstSection && !(p.compareDocumentPosition(firstSection) & Node.DOCUMENT_POSITION_FOLLOWING)) return false;
          const r = p.getBoundingClientRect();
          return (
            r.height > 0 &&
            !p.closest(
              'nav,footer,aside,form,[role="note"],[role="alert"],[role="status"],[class*="notice" i],[class*="alert" i],[class*="banner" i],[class*="announce" i],[class*="badge" i],[id*="cookie" i],[class*="cookie" i]',
            )
          );
        })
        .map((p) => p.innerText.replace(/\s+/g, ' ').trim())
        .filter((t) => t.length >= 20)
        .slice(0, 4);
    }
  });
  const head = await readHead(page);
  const mainText = (article?.text ?? meta.bodyText)
    .replace(/[ \t]+/g, ' ')
    .replace(/\s*\n\s*\n\s*/g, '\n\n')
    .trim()
    .slice(0, 20_000);
  const { bodyText: _unused, actionsSeen, ...rest } = meta;
  const sections = await readSections(page);
  return {
    ...rest,
    actions: actionLabels(actionsSeen),
    mainText,
    sections,
    alternates: head.alternates,
    language: head.language ?? article?.lang ?? null,
  };
}
