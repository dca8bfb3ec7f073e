/**
 * lib/capture/page-reader.ts on a real Chromium: shootSections takes only the sections a video can
 * show (the count asked for, page furniture never), and readHead gives the page's language and hreflang
 * versions as soon as it has loaded, as absolute URLs; each text box records how many lines it shows.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'puppeteer-core';
import { readHead, readSections, shootSections } from '../../lib/capture/page-reader';
import { sectionsToShoot } from '../../lib/script/sections';

const SECTIONS = ['Connect every source', 'Pricing', 'Dashboards that explain themselves', 'Share insights', 'About us', 'Security'];

const PAGE = `<!doctype html>
<html lang="en-GB"><head><meta charset="utf-8"><title>Acme</title>
<link rel="alternate" hreflang="ja" href="/ja/">
<link rel="alternate" hreflang="KO-kr" href="https://example.com/ko/">
<style>body { margin: 0; font: 18px sans-serif; } section { height: 700px; padding: 40px; } h1 { margin: 40px; }</style>
</head><body><h1>Acme analytics</h1>
${SECTIONS.map(
  (heading) =>
    `<section><h2>${heading}</h2><p>${heading} works for every team in the company. It takes a minute to set up and nothing to maintain.</p></section>`,
).join('\n')}
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

test('with a choice: the sections ranked best (furniture, Pricing and About us, never), in page order', async () => {
  const found = await readSections(page);
  expect(found.map((s) => s.heading)).toEqual(SECTIONS);
  // The first section starts on the first screen: the top of the page's shot shows it, so it is not shot again.
  expect(found[0].topScreens).toBeLessThan(0.8);
  const indices = sectionsToShoot(found, 3);
  const shots = await shootSections(page, 6, { indices });
  expect(shots.map((s) => s.heading)).toEqual([null, 'Dashboards that explain themselves', 'Share insights', 'Security']);
  expect(shots.map((s) => s.section)).toEqual([undefined, 2, 3, 5]);
  // maxShots still bounds it.
  const bounded = await shootSections(page, 2, { indices });
  expect(bounded.map((s) => s.heading)).toEqual([null, 'Dashboards that explain themselves']);
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

test('each section shot records its heading and paragraphs with their text and boxes, for the narrated one to be marked', async () => {
  const shots = await shootSections(page, 3);
  const shot = shots[1];
  expect(shot.focus?.map((f) => f.text)).toEqual([
    SECTIONS[0],
    `${SECTIONS[0]} works for every team in the company. It takes a minute to set up and nothing to maintain.`,
  ]);
  const [heading, paragraph] = shot.focus!.map((f) => f.box);
  // In image pixels of the shot, inside its content box, the paragraph under the heading.
  for (const box of [heading, paragraph]) {
    expect(box.x).toBeGreaterThanOrEqual(shot.content.x);
    expect(box.y).toBeGreaterThanOrEqual(shot.content.y);
    expect(box.y + box.height).toBeLessThanOrEqual(shot.content.y + shot.content.height + 1);
  }
  expect(paragraph.y).toBeGreaterThanOrEqual(heading.y + heading.height);
  // The top of the page records none.
  expect(shots[0].focus).toBeUndefined();
}, 60_000);

test('each text box records how many lines it shows, inline type of other sizes on a line counted once', async () => {
  const own = await browser.newPage();
  try {
    await own.setViewport({ width: 1000, height: 800 });
    const words = 'Reconcile every account in minutes with bank feeds that match themselves';
    await own.setContent(
      `<!doctype html><html><head><style>body { margin: 0; font: 16px/24px sans-serif; } section { padding: 40px; } p { width: 260px; }</style></head>
      <body><h1>Acme</h1><section style="margin-top: 900px"><h2>Close the month</h2>
      <p>${words} <a href="#" style="font-size: 22px">and a link in larger type</a>, <small>small print too</small>, ${words}.</p>
      <p>One line.</p></section></body></html>`,
    );
    const [, shot] = await shootSections(own, 2);
    // Its lines are 24 px apart (the larger link's line a little taller): the paragraph's height tells how many.
    const heights = await own.$$eval('section h2, section p', (els) => els.map((el) => el.getBoundingClientRect().height));
    expect(shot.focus?.map((f) => f.lines)).toEqual([1, Math.round(heights[1] / 24), 1]);
    expect(shot.focus![1].lines).toBeGreaterThanOrEqual(5);
  } finally {
    await own.close();
  }
}, 60_000);

test('the top of the page ends where a shot section starts on its first screen: a tall first section is not shot down to it', async () => {
  // The plainest page on a phone (test/fixtures/real-web/tally): sections 700 px tall on an 844 px screen, so the first
  // screen ends with the next section's heading; the hero's content is its headline, sentence and link, not the white
  // below them down to that heading (the camera would scroll through it).
  const phone = await browser.newPage();
  try {
    await phone.setViewport({ width: 390, height: 844 });
    await phone.setContent(
      `<!doctype html><html lang="ja"><head><meta charset="utf-8"><style>section { min-height: 700px; }</style></head><body>
      <section><h1>事業のスピードについてくる帳簿</h1><p>あなたが事業に集中している間に、Tally が口座の照合を済ませます。</p><a href="#">無料で試してみる</a></section>
      <section><h2>数分で照合</h2><p>銀行の入出金データが請求書と自動で照合されます。</p></section>
      <section><h2>月末の締めを期日どおりに</h2><p>最後の入金が確認された瞬間に、レポートが仕上がります。</p></section></body></html>`,
    );
    const found = await readSections(phone);
    expect(found[0].topScreens).toBeLessThan(1);
    const [top, ...sections] = await shootSections(phone, 4, { indices: [0, 1] });
    expect(sections.map((s) => s.section)).toEqual([0, 1]);
    const sectionTop = await phone.evaluate(() => document.querySelectorAll('section')[1].getBoundingClientRect().top + window.scrollY);
    expect(top.content.y + top.content.height).toBeLessThanOrEqual(sectionTop);
    // Without that section shot, the first screen is the hero's, down to the fold as before.
    const [alone] = await shootSections(phone, 4, { indices: [1] });
    expect(alone.content.y + alone.content.height).toBeGreaterThan(sectionTop);
  } finally {
    await phone.close();
  }
}, 60_000);
