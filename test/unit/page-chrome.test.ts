/**
 * What the capture reads as the page's own name and its calls to action (lib/capture/page-reader.ts readText, real
 * Chromium), on a shop built from a template (test/fixtures/wild/shopfront): real pages gave "About us" and a contact
 * bar's phone number as the header logo's name, and "View Cart", a category menu's "Clothes" and a language
 * switcher's "English" as the closing card's call to action.
 */
import type { Browser, Page } from 'puppeteer-core';
import { DESKTOP, openPage, readText, type PageText } from '../../lib/capture/page-reader';
import { keyFacts, type CapturedText } from '../../lib/script/analyze';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server';

let site: FixtureSite;
let browser: Browser;
let page: Page;
let text: PageText;

beforeAll(async () => {
  site = await startFixtureSite();
  const puppeteer = (await import('puppeteer-core')).default;
  browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage();
  await openPage(page, site.url('/wild/shopfront/'), DESKTOP, 30_000);
  text = await readText(page);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

test("the logo's name is the logo set as text, not the header's menu links or its contact bar", () => {
  expect(text.brandNames).toEqual(['Harborline']);
});

test("the call to action is the hero's button, not the cart's, the account's, the category menu's or the language switcher's", () => {
  expect(text.actions).toEqual(['Shop the summer range']);
});

test('the title card names the shop and the closing card shows its call to action', () => {
  const captured: CapturedText = {
    title: text.title,
    description: text.description,
    open_graph: text.openGraph,
    headings: text.headings,
    main_text: text.mainText,
    actions: text.actions,
    brand_names: text.brandNames,
  };
  const facts = keyFacts(captured, site.url('/wild/shopfront/'));
  expect(facts.name).toBe('Harborline');
  expect(facts.callToAction).toBe('Shop the summer range');
});
