/**
 * Pages built after defects seen on real public pages (test/fixtures/wild), through POST /campaigns and the capture
 * pool, with real Chromium, PostgreSQL and Redis: a page with dialogs, what is not a web page, a studio's landing page
 * whose versions are reached only through its language switcher and whose call to action shares its link with a
 * sponsor line, a theme page named after its vendor, a shop template whose grid ends on the first screen, a Chinese
 * docs home whose shell declares English, and a client-rendered page whose Chinese version is a hash route.
 * Each campaign is canceled once collected: what is checked here is the capture, not the video.
 */
import { startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';
import { productName, type CapturedText } from '../../lib/script/analyze';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

interface CaptureRow {
  variant: string;
  url: string;
  language: string | null;
  text: CapturedText & { alternates: Array<{ hreflang: string; href: string; via?: string }> };
  screenshots: Array<{ viewport: string; key: string; width: number }>;
}

describe('pages seen in the wild', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness({ config: { rateLimits: limits, captureMaxShots: 4, capturePageTimeoutMs: 15_000 } });
    ({ key } = await h.newCustomer('business'));
  }, 120_000);
  afterAll(async () => h?.stop());

  /** Creates a campaign, waits until its pages are collected, cancels it, and returns its captures by variant. */
  async function collected(path: string, languages: string[]): Promise<Record<string, CaptureRow>> {
    const created = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.site.url(path), languages } });
    expect(created.status).toBe(201);
    const id = created.body.campaign_id as string;
    const done = await waitFor(
      () => h.request('GET', `/api/v1/campaigns/${id}`, { key }),
      (r) => r.body.status !== 'collecting',
      120_000,
    );
    await h.request('POST', `/api/v1/campaigns/${id}/cancel`, { key });
    expect(done.body.status).not.toBe('collecting');
    expect(done.body.error ?? null).toBeNull();
    const rows = await h.sql<CaptureRow>('SELECT variant, url, language, text, screenshots FROM page_captures WHERE campaign_id = $1', [
      id,
    ]);
    return Object.fromEntries(rows.map((row) => [row.variant, row]));
  }

  test('a page that calls alert(), confirm() and prompt() while it loads, and sets onbeforeunload, is captured', async () => {
    const rows = await collected('/wild/dialogs/', ['en']);
    expect(rows.source.text.headings[0].text).toBe('Shared notes for small crews');
  }, 180_000);

  test('a documentation page laid out for desktops only (its body a desktop width on a phone): no phone shots, its text would run off their right edge', async () => {
    const rows = await collected('/wild/deskdocs/', ['en']);
    const viewports = rows.source.screenshots.map((s) => s.viewport);
    expect(viewports).toContain('desktop');
    // Its vertical videos show the desktop shots, whose lines are whole (lib/render/framing.ts).
    expect(viewports).not.toContain('mobile');
  }, 180_000);

  test('a carousel page whose pictures and logo are SVG elements is captured (an SVG element has no innerText)', async () => {
    const rows = await collected('/wild/carousel/', ['en']);
    expect(rows.source.text.headings[0].text).toBe('Notes that find their way back to you');
  }, 180_000);

  test.each([
    ['/wild/files/brochure.pdf', 'The URL is a PDF document (application/pdf), not a web page.'],
    ['/wild/files/photo.png', 'The URL is an image (image/png), not a web page.'],
    ['/wild/files/data.json', 'The URL is a JSON document (application/json), not a web page.'],
    ['/wild/files/notes.txt', 'The URL is a plain-text file (text/plain), not a web page.'],
    ['/wild/files/archive.zip', 'The URL is an archive (application/zip), not a web page.'],
    ['/wild/files/report-2026', 'The URL is a file to download (application/octet-stream), not a web page.'],
  ])(
    '%s is refused with 422 invalid_input saying what it is',
    async (path, message) => {
      const res = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.site.url(path) } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ success: false, error: { code: 'invalid_input', message } });
    },
    60_000,
  );

  test("a studio's landing page: versions through its switcher (same site only), its own call to action, its own name", async () => {
    const rows = await collected('/wild/lumen/', ['en', 'zh', 'de', 'ko', 'ja']);
    // 日本語 links to another site: no Japanese version.
    expect(Object.keys(rows).sort()).toEqual(['de', 'ko', 'source', 'zh']);
    expect(rows.zh.url).toBe(h.site.url('/wild/lumen/zh/'));
    expect(rows.zh.language).toBe('zh-CN');
    expect(rows.zh.text.headings[0].text).toBe('Lumen，安静的网页阅读器');
    expect(rows.de.text.headings[0].text).toBe('Lumen, der ruhige Reader für das Web');
    expect(rows.ko.language).toBe('ko');
    expect(rows.source.text.alternates.map((a) => [a.hreflang, a.via])).toEqual([
      ['zh-hans', 'switcher'],
      ['de', 'switcher'],
      ['ko', 'switcher'],
    ]);
    // The sponsor line under the demo's label is not part of it; a row of an icon and two words is one label.
    expect(rows.source.text.actions).toEqual(['Try online demo', 'Get Lumen for free']);
    expect(productName(rows.source.text, '127.0.0.1')).toBe('Lumen');
  }, 240_000);

  test('a theme page titled "<Product> – <Vendor> Theme": the product, not the vendor', async () => {
    const rows = await collected('/wild/solstice/', ['en']);
    expect(rows.source.text.credits).toEqual(['Solstice is a theme by Hollow Pine.']);
    expect(productName(rows.source.text, '127.0.0.1')).toBe('Solstice');
  }, 180_000);

  test('a shop template whose product grid ends on the first desktop screen: no shot of its footer alone; named after the template, not its vendor', async () => {
    const rows = await collected('/wild/cornershop/', ['en']);
    const desktop = rows.source.screenshots.filter((s) => s.viewport === 'desktop');
    // The page is taller than one screen, but all it shows below the first is its footer.
    expect(desktop).toHaveLength(1);
    expect(rows.source.screenshots.filter((s) => s.viewport === 'mobile').length).toBeGreaterThan(1);
    expect(productName(rows.source.text, '127.0.0.1')).toBe('Corner Shop');
  }, 180_000);

  test('a client-rendered Chinese docs home whose shell says lang="en": its language is the one it is written in', async () => {
    const rows = await collected('/wild/kitedocs/#/zh-CN', ['zh', 'en']);
    expect(rows.source.text.headings[0].text).toBe('Kite');
    expect(rows.source.language).toBe('zh');
    // Named by its logo, not by its title's Chinese tagline.
    expect(productName(rows.source.text, '127.0.0.1')).toBe('Kite');
  }, 180_000);

  test('a client-rendered page whose Chinese version is the hash route #/zh-cn/: loaded and read once rendered', async () => {
    const rows = await collected('/wild/tome/', ['en', 'zh']);
    expect(Object.keys(rows).sort()).toEqual(['source', 'zh']);
    expect(rows.zh.url).toBe(h.site.url('/wild/tome/#/zh-cn/'));
    // Its <html lang> stays "en": the version is in Chinese by its own script.
    expect(rows.zh.language).toBe('zh');
    expect(rows.zh.text.headings[0].text).toBe('Tome 把 Markdown 文件夹变成文档网站');
    expect(rows.source.text.headings[0].text).toBe('Tome turns Markdown folders into documentation');
  }, 180_000);
});
