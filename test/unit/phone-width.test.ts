/**
 * A page laid out for desktops only, on a phone (lib/capture/page-reader.ts makePresentable, real Chromium with the
 * capture's phone viewport): the parts wider than the screen are fitted to it, their text wrapped, so the page is as
 * wide as the phone — no line cut at the frame's right edge, and no zoomed-out page whose sections the shots miss
 * (each section's shot shows its own heading). Served from the fixture page /flaws/ (test/fixtures/real-web/flaws).
 */
import { createCanvas, loadImage } from 'canvas';
import type { Browser, Page } from 'puppeteer-core';
import { MOBILE, makePresentable, openPage, shootSections } from '../../lib/capture/page-reader';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server';

let site: FixtureSite;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  site = await startFixtureSite();
  const puppeteer = (await import('puppeteer-core')).default;
  browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage();
  await openPage(page, site.url('/flaws/'), MOBILE, 30_000);
  await makePresentable(page);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

test('the desktop-only table is fitted to the phone: the page is no wider than the screen, its lines wrap', async () => {
  const widths = await page.evaluate(() => {
    const table = document.querySelector('.wide')!.getBoundingClientRect();
    return { page: document.documentElement.scrollWidth, screen: document.documentElement.clientWidth, table: table.right };
  });
  expect(widths.screen).toBe(MOBILE.width);
  expect(widths.page).toBeLessThanOrEqual(widths.screen);
  expect(widths.table).toBeLessThanOrEqual(widths.screen);
});

test("each section's shot finds its section: its heading's box is in the picture, near its top", async () => {
  const shots = await shootSections(page, 5);
  const light = ['Schedules that follow the weather', 'One schedule for every zone', 'Built for every garden'];
  const sections = shots.filter((shot) => light.includes(shot.heading ?? ''));
  expect(sections.map((s) => s.heading)).toEqual(light);
  for (const shot of sections) {
    const heading = shot.focus?.find((block) => block.text === shot.heading);
    expect({ heading: shot.heading, found: Boolean(heading) }).toEqual({ heading: shot.heading, found: true });
    // Where the shot says its heading is, the picture shows the light section behind dark type — not the dark showcase
    // band a zoomed-out page put there instead.
    const image = await loadImage(shot.png);
    const canvas = createCanvas(image.width, image.height);
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    // The box clamped to the picture (a box outside it shows nothing of the heading).
    const x = Math.min(Math.max(0, Math.round(heading!.box.x)), image.width - 1);
    const y = Math.min(Math.max(0, Math.round(heading!.box.y)), image.height - 1);
    const width = Math.max(1, Math.min(Math.round(heading!.box.width), image.width - x));
    const height = Math.max(1, Math.min(Math.round(heading!.box.height), image.height - y));
    const pixels = context.getImageData(x, y, width, height).data;
    let sum = 0;
    for (let i = 0; i < pixels.length; i += 4) sum += (pixels[i] + pixels[i + 1] + pixels[i + 2]) / 3;
    expect({ heading: shot.heading, light: sum / (pixels.length / 4) > 150 }).toEqual({ heading: shot.heading, light: true });
  }
}, 60_000);
