/**
 * lib/capture/page-reader.ts on a real Chromium (issue 14): shootSections takes only the sections a video can
 * show (the count asked for, page furniture never), and readHead gives the page's language and hreflang
 * versions as soon as it has loaded, as absolute URLs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'puppeteer-core';
import { readHead, shootSections } from '../../lib/capture/page-reader';
import { FURNITURE } from '../../lib/script/analyze';

const SECTIONS = ['Connect every source', 'Pricing', 'Dashboards that explain themselves', 'Share insights', 'About us', 'Security'];

const PAGE = `<!doctype html>
<html lang="en-GB"><head><meta charset="utf-8"><title>Acme</title>
<link rel="alternate" hreflang="ja" href="/ja/">
<link rel="alternate" hreflang="KO-kr" href="https://example.com/ko/">
<style>body { margin: 0; font: 18px sans-serif; } section { height: 700px; padding: 40px; } h1 { margin: 40px; }</style>
</head><body><h1>Acme analytics</h1>
${SECTIONS.map((heading) => `<section><h2>${heading}</h2><p>About ${heading.toLowerCase()}.</p></section>`).join('\n')}
</body></html>`;

let server: http.Server;
let baseUrl: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const puppeteer = (await import('puppeteer-core')).default;
  browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage();
  await page.setViewport({ width: 1000, height: 800 });
  await page.goto(`${baseUrl}/`, { waitUntil: 'load' });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

test('without a choice: the top of the page, then every section in page order, up to maxShots', async () => {
  const shots = await shootSections(page, 5);
  expect(shots.map((s) => s.heading)).toEqual([null, ...SECTIONS.slice(0, 4)]);
  for (const shot of shots) expect(shot.png.subarray(1, 4).toString('latin1')).toBe('PNG');
}, 60_000);

test('with a choice: only as many sections as asked, furniture (Pricing, About us) never', async () => {
  const shots = await shootSections(page, 6, { sections: 3, skipHeadings: FURNITURE });
  expect(shots.map((s) => s.heading)).toEqual([null, 'Connect every source', 'Dashboards that explain themselves', 'Share insights']);
  // maxShots still bounds it.
  const bounded = await shootSections(page, 2, { sections: 3, skipHeadings: FURNITURE });
  expect(bounded.map((s) => s.heading)).toEqual([null, 'Connect every source']);
}, 60_000);

test('readHead: the declared language and the hreflang versions, absolute, their codes lower-cased', async () => {
  expect(await readHead(page)).toEqual({
    language: 'en-GB',
    alternates: [
      { hreflang: 'ja', href: `${baseUrl}/ja/` },
      { hreflang: 'ko-kr', href: 'https://example.com/ko/' },
    ],
  });
}, 30_000);
