import fs from 'node:fs';
import path from 'node:path';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server';
import { REAL_WEB_PREFIXES } from '../fixtures/real-web/server';
import { REAL_WEB_ENTRY_PATHS, REAL_WEB_PAGES, realWebPage, type RealWebPage } from '../fixtures/real-web/truth';

const ROOT = path.resolve(__dirname, '../fixtures/real-web');

const TYPES: Record<string, RegExp> = {
  '.html': /^text\/html; charset=utf-8$/,
  '.css': /^text\/css; charset=utf-8$/,
  '.js': /^text\/javascript; charset=utf-8$/,
  '.svg': /^image\/svg\+xml$/,
  '.md': /^text\/markdown; charset=utf-8$/,
};

let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});

afterAll(async () => {
  await site?.close();
});

async function get(route: string) {
  const res = await fetch(site.url(route), { redirect: 'manual' });
  return { status: res.status, type: res.headers.get('content-type') ?? '', location: res.headers.get('location'), body: await res.text() };
}

const cache = new Map<string, string>();
async function text(route: string): Promise<string> {
  if (!cache.has(route)) {
    const res = await get(route);
    expect(res.status).toBe(200);
    cache.set(route, res.body);
  }
  return cache.get(route)!;
}

function plain(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

/** The h2 headings of a page, in order: from its HTML, or from the Markdown it renders. */
function h2s(source: string, markdown: boolean): string[] {
  if (markdown) return [...source.matchAll(/^## +(.+?)\s*$/gm)].map((m) => m[1]);
  return [...source.matchAll(/<h2\b[^>]*>([\s\S]*?)<\/h2>/g)].map((m) => plain(m[1]));
}

function h1(source: string, markdown: boolean): string | undefined {
  if (markdown) return /^# +(.+?)\s*$/m.exec(source)?.[1];
  const match = /<h1\b[^>]*>([\s\S]*?)<\/h1>/.exec(source);
  return match ? plain(match[1]) : undefined;
}

function attr(html: string, pattern: RegExp): string | undefined {
  return pattern.exec(html)?.[1];
}

function hreflangs(html: string, origin: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<link rel="alternate" hreflang="([^"]+)" href="([^"]+)"/g)) out[m[1]] = m[2].replace(origin, '');
  return out;
}

/** Every file served from the fixture folders (not the TypeScript next to them), as a URL path. */
function servedFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(`/${path.relative(ROOT, full).split(path.sep).join('/')}`);
    }
  };
  for (const prefix of REAL_WEB_PREFIXES) walk(path.join(ROOT, prefix.slice(1)));
  return out;
}

const pages = REAL_WEB_PAGES.map((page) => [page.id, page] as const);

test('truth lists every entry page once, one per site and language', () => {
  expect(REAL_WEB_ENTRY_PATHS).toEqual([
    '/ledger/',
    '/ledger/ja/',
    '/quarry/',
    '/quarry/ja/',
    '/quarry/ar/',
    '/md/',
    '/tiny/',
    '/dark/',
    '/tally/',
    '/tally/ja/',
    '/tally/ko/',
  ]);
  expect(new Set(REAL_WEB_PAGES.map((p) => p.id)).size).toBe(REAL_WEB_PAGES.length);
  expect(realWebPage('quarry', 'ar').dir).toBe('rtl');
  expect(() => realWebPage('ledger', 'ko')).toThrow();
});

test('every fixture file answers 200 with its content type', async () => {
  const files = servedFiles();
  expect(files.length).toBeGreaterThan(40);
  for (const file of files) {
    const res = await get(file);
    expect({ file, status: res.status }).toEqual({ file, status: 200 });
    const type = TYPES[path.extname(file)];
    expect(type).toBeDefined();
    expect(res.type).toMatch(type);
    expect(res.body).not.toContain('{{ORIGIN}}');
  }
});

test.each(pages)('%s: the entry page answers 200 as HTML in its language', async (_id, page: RealWebPage) => {
  const res = await get(page.path);
  expect(res.status).toBe(200);
  expect(res.type).toMatch(TYPES['.html']);
  const html = await text(page.finalPath);
  expect(attr(html, /<html lang="([^"]+)"/)).toBe(page.lang);
  expect(attr(html, /<title>([^<]+)<\/title>/)).toBe(page.title);
  if (page.dir === 'rtl') expect(html).toMatch(/<html lang="[^"]+" dir="rtl">/);
  else expect(html).not.toContain('dir="rtl"');
  expect(html).toMatch(/<meta\s+name="description"\s+content="[^"]{60,}"/);
});

test.each(pages)('%s: every heading in truth is on the page, and every h2 is classified', async (_id, page: RealWebPage) => {
  const markdown = page.contentPath.endsWith('.md');
  const source = await text(page.contentPath);
  const headings = h2s(source, markdown);
  for (const heading of [...page.productHeadings, ...page.furnitureHeadings]) expect(headings).toContain(heading);
  expect([...headings].sort()).toEqual([...page.productHeadings, ...page.furnitureHeadings].sort());
  expect(headings.filter((h) => page.productHeadings.includes(h))).toEqual(page.productHeadings);
  expect(headings.filter((h) => page.furnitureHeadings.includes(h))).toEqual(page.furnitureHeadings);
  expect(h1(source, markdown)).toBe(page.headline);
  for (const label of page.forbiddenLabels) expect(page.productHeadings).not.toContain(label);
});

test.each(pages)('%s: the call to action is a link with exactly that label', async (_id, page: RealWebPage) => {
  if (page.contentPath.endsWith('.md')) {
    expect(await text(page.contentPath)).toContain(`[${page.cta}](`);
    return;
  }
  const html = await text(page.finalPath);
  const labels = [...html.matchAll(/<a\b[^>]*>([\s\S]*?)<\/a>/g)].map((m) => plain(m[1]));
  expect(labels).toContain(page.cta);
  expect(plain(html)).toContain(page.name);
});

test('every local image, stylesheet and script a page references exists, except the carousel script that 404s', async () => {
  for (const page of REAL_WEB_PAGES) {
    const html = await text(page.finalPath);
    const base = site.url(page.finalPath);
    const refs = [...html.matchAll(/<(?:img|script|link)\b[^>]*?\s(?:src|href)="([^"]+)"/g)]
      .map((m) => m[1])
      .filter((ref) => !ref.includes('{{') && !ref.startsWith('http'));
    expect(refs.length).toBeGreaterThan(1);
    for (const ref of refs) {
      const target = new URL(ref, base).pathname;
      const res = await get(target);
      const expected = ref === 'carousel.missing.js' ? 404 : 200;
      expect({ page: page.id, ref, status: res.status }).toEqual({ page: page.id, ref, status: expected });
    }
  }
});

test('/ledger/: announcement, sticky header, cookie banner, hero chip, CTA with a neighbour, empty carousel', async () => {
  const html = await text('/ledger/');
  const body = html.slice(html.indexOf('<body>'));
  const order = [
    'class="announce"',
    'class="site-header"',
    'class="cookie-banner"',
    'class="badge"',
    '<h1>',
    'class="carousel"',
    'Trusted by 4,000 finance teams',
    'Upcoming events',
    'Close the books in hours, not weeks',
    'Our sponsors',
    'Reconcile every account automatically',
    'Latest news',
    'Numbers that speak for themselves',
    'Forecast cash with confidence',
    'Subscribe to our newsletter',
    'Pricing</h2>',
    'Frequently asked questions',
    'class="site-footer"',
  ].map((marker) => body.indexOf(marker));
  expect(order.every((i) => i >= 0)).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);

  expect(plain(body)).toContain('New: Northwind Ledger 4.0 is here — read the release notes →');
  expect(body).toContain('<a class="btn btn-primary" href="/ledger/signup">Start free trial</a>');
  expect(body).toContain('<a class="btn" href="/ledger/demo">Try online demo <small class="powered">Powered by Nimbus Cloud</small></a>');
  expect(body).toMatch(/<div class="cookie-banner"[\s\S]*?<button[^>]*>Accept all<\/button>[\s\S]*?<\/div>\s*<\/div>/);
  expect(body).toContain('<img src="/ledger/img/logo.svg" alt="Northwind Ledger"');
  expect(body).toContain('<script src="carousel.missing.js"></script>');
  expect(body).toMatch(/<button class="carousel-prev" type="button">Previous<\/button>/);
  expect(body).toMatch(/<button class="carousel-next" type="button">Next<\/button>/);
  expect(body.match(/<img src="\/ledger\/img\/customers\//g)).toHaveLength(12);
  expect(body.match(/<time datetime="2026-0[3-5]-\d\d">/g)).toHaveLength(4);
  expect(html).not.toContain('og:site_name');
  const carousel = await text('/ledger/ledger.css');
  expect(carousel).toMatch(/\.carousel \{[^}]*height: 420px;/);
});

test('/ledger/: English and Japanese point at each other; the Japanese title and description are left in English', async () => {
  const en = await text('/ledger/');
  const ja = await text('/ledger/ja/');
  expect(hreflangs(en, site.origin)).toEqual(realWebPage('ledger').alternates);
  expect(hreflangs(ja, site.origin)).toEqual(realWebPage('ledger', 'ja').alternates);
  expect(attr(ja, /<title>([^<]+)<\/title>/)).toBe(attr(en, /<title>([^<]+)<\/title>/));
  const description = /<meta\s+name="description"\s+content="([^"]+)"/;
  expect(attr(ja, description)).toBe(attr(en, description));
  expect(realWebPage('ledger', 'ja').metaLang).toBe('en');
  expect(ja).toContain('<a class="btn btn-primary" href="/ledger/signup">無料トライアルを開始</a>');
  expect(ja).toContain('Powered by Nimbus Cloud');
  expect(ja).not.toContain('hreflang="ko"');
});

test('/quarry/: a skip link first, a sidebar, breadcrumbs, an edit link and Previous/Next links', async () => {
  for (const page of REAL_WEB_PAGES.filter((p) => p.site === 'quarry')) {
    const html = await text(page.path);
    expect(html).toMatch(/<body>\s*<a class="skip-link" href="#main">[^<]+<\/a>/);
    expect(html).toMatch(/<aside class="sidebar"[^>]*>\s*<nav>/);
    expect(html.match(/<li><a href="\/quarry\/[^"]*"[^>]*>/g)!.length).toBeGreaterThan(35);
    expect(html).toContain('class="breadcrumbs"');
    expect(html).toContain('<main id="main"');
    expect(html).toMatch(/<pre>[\s\S]*?<code>[\s\S]*curl -fsSL https:\/\/get\.quarry\.dev \| sh<\/code><\/pre>/);
    expect(html).toContain('class="pager-prev"');
    expect(html).toContain('class="pager-next"');
    expect(html).toMatch(/github\/edit\/main\/docs\//);
    expect(hreflangs(html, site.origin)).toEqual(page.alternates);
    const notice = /<div class="notice" role="note">\s*<p>([\s\S]*?)<\/p>/.exec(html);
    if (page.lang === 'en') {
      expect(notice).toBeNull();
      expect(page.notice).toBeUndefined();
    } else {
      expect(plain(notice![1])).toContain(page.notice!);
      expect(html.indexOf('class="notice"')).toBeLessThan(html.indexOf('<h1>'));
      expect(html.indexOf('class="notice"')).toBeGreaterThan(html.indexOf('<article>'));
    }
  }
  const css = await text('/quarry/docs.css');
  expect(css).toMatch(/\.skip-link \{[^}]*top: -100px;/);
  expect(css).toMatch(/\.skip-link:focus \{[^}]*top: 8px;/);
});

test('/quarry/ar/: right to left, only the first two sections translated', async () => {
  const page = realWebPage('quarry', 'ar');
  const en = realWebPage('quarry');
  const html = await text(page.path);
  const arabic = /[\u0600-\u06ff]/;
  expect(page.translatedSections).toEqual(page.productHeadings.slice(0, 2));
  expect(page.untranslatedSections).toEqual(page.productHeadings.slice(2));
  for (const heading of page.translatedSections!) expect(heading).toMatch(arabic);
  for (const heading of page.untranslatedSections!) {
    expect(heading).not.toMatch(arabic);
    expect(en.productHeadings).toContain(heading);
  }
  // The paragraph after each untranslated heading is the English one.
  const enHtml = await text(en.path);
  for (const heading of page.untranslatedSections!) {
    const after = (source: string) => plain(new RegExp(`${heading}</h2>\\s*<p>([\\s\\S]*?)</p>`).exec(source)![1]);
    expect(after(html)).toBe(after(enHtml));
  }
});

test('/md/: a shell that renders content.md after load with its own renderer', async () => {
  const html = await text('/md/');
  expect(html).toContain('<div id="app">Loading…</div>');
  expect(plain(html.slice(html.indexOf('<body>')))).toBe('Loading…');
  const script = await text('/md/app.js');
  expect(script).toContain("fetch('/md/content.md'");
  expect(script).toMatch(/setTimeout\(load, 300\)/);
  const markdown = await text('/md/content.md');
  expect(markdown).toMatch(/^# /);
  expect(markdown).toMatch(/^### (?:January|February|March) \d+, 2026 — Inkwell 3\.\d$/m);
  expect(markdown).toMatch(/!\[[^\]]+\]\(img\/[a-z]+\.svg\)/);
  expect(markdown).toMatch(/\*\*[^*]+\*\*/);
});

test('/tiny/: a meta refresh to home.html, which is the project page', async () => {
  const entry = await get('/tiny/');
  expect(entry.status).toBe(200);
  expect(entry.body).toContain('<meta http-equiv="refresh" content="0; url=home.html" />');
  expect(plain(entry.body.slice(entry.body.indexOf('<body>')))).toBe('Redirecting…');
  const home = await text('/tiny/home.html');
  expect(home.match(/<img src="img\/sponsors\/[a-z-]+\.svg"/g)).toHaveLength(6);
  expect(home).toContain('<footer');
});

test('/tally/: three languages that point at each other, three plain sections a screen tall each', async () => {
  for (const page of REAL_WEB_PAGES.filter((p) => p.site === 'tally')) {
    const html = await text(page.path);
    expect(hreflangs(html, site.origin)).toEqual(page.alternates);
    expect(html.match(/<section>/g)).toHaveLength(3);
    expect(html.match(/<h1>/g)).toHaveLength(1);
    expect(html.match(/<p>/g)).toHaveLength(3);
  }
  const css = await text('/tally/tally.css');
  expect(css).toMatch(/^section \{\s*min-height: 900px;\s*\}/m);
  expect(css).toMatch(/@media \(max-width: 600px\) \{\s*section \{\s*min-height: 700px;/);
});

test('/dark/: a dark theme colour and a meetups list', async () => {
  const html = await text('/dark/');
  expect(html).toContain('<meta name="theme-color" content="#0b0b10" />');
  expect(html.match(/<time datetime="2026-\d\d-\d\d">/g)).toHaveLength(4);
  expect(html).toContain('<blockquote>');
  const css = await text('/dark/nightjar.css');
  expect(css).toContain('--bg: #0b0b10;');
});

test('folders redirect to their slash; unknown paths, directory escapes and the TypeScript are not served', async () => {
  for (const p of ['/ledger', '/ledger/ja', '/quarry/ar', '/md', '/tiny', '/dark', '/tally', '/tally/ko']) {
    const res = await get(p);
    expect(res.status).toBe(301);
    expect(res.location).toBe(`${p}/`);
  }
  for (const p of [
    '/ledger/signup',
    '/ledger/carousel.missing.js',
    '/ledger/%2e%2e/server.ts',
    '/md/..%2ftruth.ts',
    '/dark/%00',
    '/quarry/%zz',
  ]) {
    const res = await get(p);
    expect([400, 404]).toContain(res.status);
    expect(res.body).not.toContain('import ');
  }
  expect((await get('/')).status).toBe(200);
});
