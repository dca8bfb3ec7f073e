/** The capture pool against the fixture site, with real Chromium, PostgreSQL and Redis. */
import fs from 'node:fs';
import path from 'node:path';
import { startHarness, type Harness } from '../support/harness';
import { startSink, type Sink } from '../fixtures/site/server';
import { waitFor } from '../support/wait';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createCanvas, loadImage } = require('canvas') as typeof import('canvas');

// Generous: these tests are about the pipeline, not the limiter (whose Redis deadline a loaded CI machine can miss).
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

/** Pixels within `tolerance` of an RGB colour in a region of a PNG. */
async function countPixels(
  png: Buffer,
  [r, g, b]: [number, number, number],
  region: { x: number; y: number; w: number; h: number },
  tolerance = 16,
): Promise<number> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const { data } = context.getImageData(region.x, region.y, region.w, region.h);
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.abs(data[i] - r) <= tolerance && Math.abs(data[i + 1] - g) <= tolerance && Math.abs(data[i + 2] - b) <= tolerance) n += 1;
  }
  return n;
}

/** The page as a browser shows it with nothing done to it: the control for the overlay checks. */
async function plainScreenshot(url: string): Promise<Buffer> {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--hide-scrollbars'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1440, height: 900 });
    await page.goto(url, { waitUntil: 'networkidle0' });
    return Buffer.from(await page.screenshot({ type: 'png' }));
  } finally {
    await browser.close();
  }
}

describe('capturing the fixture site', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness({ config: { rateLimits: limits, captureMaxShots: 5, capturePageTimeoutMs: 5000 } });
    ({ key } = await h.newCustomer('business'));
  });
  afterAll(async () => h?.stop());

  test('the product page: screens, text, brand, hreflang versions; consent banner and chat bubble gone from the shots', async () => {
    const created = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, languages: ['en', 'ja', 'ko', 'fr'] } });
    expect(created.status).toBe(201);
    const done = await waitFor(
      () => h.request('GET', `/api/v1/campaigns/${created.body.campaign_id}`, { key }),
      (r) => r.body.status !== 'collecting',
    );
    // Collected: later stages may already have moved it further along.
    expect(['processing', 'scripting', 'voiceover', 'rendering']).toContain(done.body.status);

    const rows = await h.sql('SELECT * FROM page_captures WHERE campaign_id = $1 ORDER BY variant', [created.body.campaign_id]);
    // fr has no localized version on the site: only the source and the two hreflang pages.
    expect(rows.map((r) => r.variant)).toEqual(['ja', 'ko', 'source']);
    const byVariant = Object.fromEntries(rows.map((r) => [r.variant, r]));
    const source = byVariant.source;
    expect(source.language).toBe('en');
    expect(source.text.title).toBe(await h.request('GET', '/').then(() => source.text.title));
    expect(source.text.title).toMatch(/^Acme Analytics/);
    expect(source.text.description).toMatch(/dashboards/i);
    expect(source.text.open_graph).toMatchObject({ site_name: 'Acme Analytics', title: expect.any(String), image: expect.any(String) });
    expect(source.text.headings.map((x: { text: string }) => x.text)).toEqual(
      expect.arrayContaining([
        'Dashboards your team will actually read',
        'Connect every source in minutes',
        'Dashboards that explain themselves',
        'Share insights where your team already works',
        'Enterprise-grade security by default',
      ]),
    );
    expect(source.text.main_text).toMatch(/Connect every source in minutes/);
    expect(source.text.main_text.length).toBeGreaterThan(400);
    expect(source.text.alternates.map((a: { hreflang: string }) => a.hreflang)).toEqual(expect.arrayContaining(['en', 'ja', 'ko']));
    expect(source.brand.theme_color).toBe('#3a5bd9');
    expect(source.brand.icon_urls).toContain(h.site.url('/logo.svg'));
    expect(source.brand.palette.length).toBeGreaterThanOrEqual(3);
    const blue = source.brand.palette.find((hex: string) => {
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
      return b > 150 && b > r + 60 && b > g + 40;
    });
    expect(blue).toBeDefined();
    expect(byVariant.ja.language).toBe('ja');
    expect(byVariant.ja.text.headings[0].text).toBe('チームが本当に読むダッシュボード');
    expect(byVariant.ko.language).toBe('ko');
    expect(byVariant.ko.text.main_text).toMatch(/[\uac00-\ud7af]/);

    // Lazy images loaded by scrolling; consent accepted; fixed overlays hidden.
    expect(source.presentation.consent_dismissed).toBe(true);
    expect(source.presentation.hidden_overlays).toBeGreaterThanOrEqual(1);
    expect(source.presentation.images_total).toBeGreaterThan(4);
    expect(source.presentation.images_loaded).toBe(source.presentation.images_total);

    const desktop = source.screenshots.filter((s: { viewport: string }) => s.viewport === 'desktop');
    const mobile = source.screenshots.filter((s: { viewport: string }) => s.viewport === 'mobile');
    expect(desktop.length).toBeGreaterThanOrEqual(3);
    expect(desktop.length).toBeLessThanOrEqual(5);
    expect(mobile.length).toBeGreaterThanOrEqual(1);
    const files = source.screenshots.map((s: { key: string }) => fs.readFileSync(path.join(h.config.dataDir, 'files', s.key)));
    const first = await loadImage(files[0]);
    expect([first.width, first.height]).toEqual([1440, 900]);
    const firstMobile = await loadImage(files[desktop.length]);
    expect([firstMobile.width, firstMobile.height]).toEqual([780, 1688]);
    // The chat bubble (#22b07d, 60 px, 28 px from the right, 150 px from the bottom) sits over every screen of
    // the live page, as a plain screenshot shows; none of its pixels may remain in our shots.
    const bubble = { x: 1440 - 28 - 60, y: 900 - 150 - 60, w: 60, h: 60 };
    const green: [number, number, number] = [0x22, 0xb0, 0x7d];
    expect(await countPixels(await plainScreenshot(h.pageUrl), green, bubble)).toBeGreaterThan(1000);
    for (const file of files.slice(0, desktop.length)) expect(await countPixels(file, green, bubble)).toBe(0);
  }, 120_000);

  test.each([
    ['/login-wall', /sign-in form/],
    ['/redirect-to-login', /sign-in page/],
    ['/challenge', /automated browsers \(HTTP 403\)/],
    ['/captcha', /bot check/],
    ['/status/401', /HTTP 401/],
    ['/status/403', /HTTP 403/],
    ['/status/429', /HTTP 429/],
    ['/empty', /empty/],
    ['/moved-away', /could not be (reached|resolved)/],
    ['/moved-away-https', /could not be (reached|resolved)/],
    ['/slow', /did not load in time/],
  ])(
    '%s is refused with 422 and a reason, creating nothing',
    async (route, reason) => {
      const res = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.site.url(route), title: `refused ${route}` } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ success: false, error: { code: 'invalid_input', message: expect.stringMatching(reason) } });
      const rows = await h.sql('SELECT count(*)::int AS n FROM campaigns WHERE title = $1', [`refused ${route}`]);
      expect(rows[0].n).toBe(0);
    },
    30_000,
  );

  test('a huge page is shot within the bound', async () => {
    const created = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.site.url('/huge'), languages: ['en'] } });
    expect(created.status).toBe(201);
    const done = await waitFor(
      () => h.request('GET', `/api/v1/campaigns/${created.body.campaign_id}`, { key }),
      (r) => r.body.status !== 'collecting',
    );
    // Collected: later stages may already have moved it further along.
    expect(['processing', 'scripting', 'voiceover', 'rendering']).toContain(done.body.status);
    const [row] = await h.sql('SELECT screenshots FROM page_captures WHERE campaign_id = $1 AND variant = $2', [
      created.body.campaign_id,
      'source',
    ]);
    expect(row.screenshots.filter((s: { viewport: string }) => s.viewport === 'desktop').length).toBeLessThanOrEqual(5);
  }, 120_000);

  test('a crashed browser is replaced and the next capture succeeds', async () => {
    const before = await h.call('capture.health');
    expect(before.check_browser_pid).toEqual(expect.any(Number));
    process.kill(before.check_browser_pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const res = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, languages: ['en'] } });
    expect(res.status).toBe(201);
    const after = await h.call('capture.health');
    expect(after.browser_launches).toBeGreaterThan(before.browser_launches);
    expect(after.check_browser_pid).not.toBe(before.check_browser_pid);
  }, 60_000);
});

describe('attack table: the browser reaches no private address (ALLOW_PRIVATE_NETWORK off)', () => {
  let h: Harness;
  let sink: Sink;
  let key: string;
  beforeAll(async () => {
    sink = await startSink();
    h = await startHarness({
      config: { rateLimits: limits, allowPrivateNetwork: false, pipelinePaused: true, capturePageTimeoutMs: 5000 },
    });
    ({ key } = await h.newCustomer('business'));
  });
  afterAll(async () => {
    await h?.stop();
    await sink?.close();
  });

  const port = () => sink.port;
  const attacks: Array<[string, () => string]> = [
    ['127.0.0.1', () => `http://127.0.0.1:${port()}/`],
    ['[::1]', () => `http://[::1]:${port()}/`],
    ['[::ffff:7f00:1]', () => `http://[::ffff:7f00:1]:${port()}/`],
    ['2130706433', () => `http://2130706433:${port()}/`],
    ['0x7f.1', () => `http://0x7f.1:${port()}/`],
    ['0177.0.0.1', () => `http://0177.0.0.1:${port()}/`],
    ['localhost (a name resolving to loopback)', () => `http://localhost:${port()}/`],
    ['https to loopback', () => `https://127.0.0.1:${port()}/`],
    ['169.254.169.254 (cloud metadata)', () => 'http://169.254.169.254/latest/meta-data/'],
    ['10.0.0.1', () => 'http://10.0.0.1/'],
    ['172.16.0.1', () => 'http://172.16.0.1/'],
    ['192.168.0.1', () => 'http://192.168.0.1/'],
    ['100.64.0.1', () => 'http://100.64.0.1/'],
    ['[fd00::1]', () => 'http://[fd00::1]/'],
    ['file://', () => 'file:///etc/passwd'],
  ];

  test.each(attacks)('create refuses %s with 400', async (_name, url) => {
    const res = await h.request('POST', '/api/v1/campaigns', { key, body: { url: url() } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_input');
  });

  test.each(attacks)('the browser itself refuses %s (defence in depth): 422', async (_name, url) => {
    await expect(h.call('capture.check', { url: url() })).rejects.toMatchObject({ code: 422, type: 'invalid_input' });
  });

  const page = (body: string) =>
    `data:text/html,${encodeURIComponent(`<!doctype html><html><body><h1>Hello there, a normal page</h1>${body}</body></html>`)}`;
  const embeds: Array<[string, () => string]> = [
    ['a redirect to loopback (script)', () => page(`<script>location.href='http://127.0.0.1:${port()}/redirected'</script>`)],
    ['a redirect to loopback (meta refresh)', () => page(`<meta http-equiv="refresh" content="0;url=http://localhost:${port()}/meta">`)],
    ['an iframe to loopback', () => page(`<iframe src="http://127.0.0.1:${port()}/frame"></iframe>`)],
    ['a fetch to loopback', () => page(`<script>fetch('http://[::1]:${port()}/fetch').catch(()=>{})</script>`)],
    ['a websocket to loopback', () => page(`<script>try{new WebSocket('ws://127.0.0.1:${port()}/ws')}catch(e){}</script>`)],
    ['an image to cloud metadata', () => page('<img src="http://169.254.169.254/latest/meta-data/x.png">')],
  ];

  test.each(embeds)('%s never connects', async (_name, url) => {
    const before = (await h.call('capture.health')).blocked_connections;
    await h.call('capture.check', { url: url() }).catch(() => undefined);
    // Until the guard counts the page's attempt (a redirect or a request may come after the check has answered).
    const after = await waitFor(
      async () => (await h.call('capture.health')).blocked_connections,
      (blocked) => blocked > before,
      5000,
      25,
    );
    expect(after).toBeGreaterThan(before);
  });

  test('the loopback sink recorded zero hits', () => {
    expect(sink.hits).toEqual([]);
  });
});

describe('browser recycling', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { rateLimits: limits, pipelinePaused: true, capturePagesPerBrowser: 2 } });
  });
  afterAll(async () => h?.stop());

  test('the pooled browser is relaunched after CAPTURE_PAGES_PER_BROWSER pages, and captures go on', async () => {
    const first = await h.call('capture.health');
    for (let i = 0; i < 5; i += 1) await expect(h.call('capture.check', { url: h.pageUrl })).resolves.toMatchObject({ status: 200 });
    const after = await h.call('capture.health');
    // 5 pages at 2 per browser: the check pool's browser was replaced twice.
    expect(after.browser_launches - first.browser_launches).toBe(2);
    expect(after.check_browser_pid).not.toBe(first.check_browser_pid);
  }, 60_000);
});
