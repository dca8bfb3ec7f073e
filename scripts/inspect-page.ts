/**
 * What the pipeline reads of a page, for a developer deciding why a video shows what it shows: each section
 * with its score and the signals that made it (lib/script/sections.ts), the sections a capture shoots, and the
 * facts the script is written from (name, headline, value proposition, features with their narration, call to
 * action). `npm run inspect-page -- <url> [--phone] [--shots <dir>]`. It loads the page directly (no egress proxy): point it
 * only at pages you trust, such as the fixture sites.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DESKTOP, MOBILE, makePresentable, openPage, readText, shootSections } from '../lib/capture/page-reader';
import { keyFacts, type CapturedText } from '../lib/script/analyze';
import { scoreSection, sectionsToShoot } from '../lib/script/sections';

async function main(): Promise<void> {
  const url = process.argv.slice(2).find((a) => !a.startsWith('--'));
  if (!url) throw new Error('usage: inspect-page <url> [--phone]');
  const viewport = process.argv.includes('--phone') ? MOBILE : DESKTOP;
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage();
    const opened = await openPage(page, url, viewport, 30_000);
    await makePresentable(page);
    const text = await readText(page);
    const sections = text.sections ?? [];
    const shot = new Set(sectionsToShoot(sections, 4));
    console.log(`${opened.signals.finalUrl} (${text.language ?? 'no language'})`);
    for (const section of sections) {
      const ranked = scoreSection(section);
      const mark = shot.has(section.index) ? '▶' : ' ';
      console.log(
        `${mark} ${String(ranked.score).padStart(6)}  ${section.heading.slice(0, 48).padEnd(48)}  ${JSON.stringify(ranked.signals)}  top ${section.topScreens.toFixed(1)}`,
      );
    }
    const captured: CapturedText = {
      title: text.title,
      description: text.description,
      open_graph: text.openGraph,
      headings: text.headings,
      main_text: text.mainText,
      actions: text.actions,
      sections,
      hero_paragraphs: text.heroParagraphs,
      list_items: text.listItems,
      brand_names: text.brandNames,
    };
    console.log(JSON.stringify(keyFacts(captured, opened.signals.finalUrl, text.language), null, 2));
    // --shots <dir>: the shots a capture would take, as PNGs, with their content boxes.
    const dir = process.argv[process.argv.indexOf('--shots') + 1];
    if (process.argv.includes('--shots') && dir) {
      fs.mkdirSync(dir, { recursive: true });
      const shots = await shootSections(page, 8, { indices: [...shot] });
      for (const [n, s] of shots.entries()) {
        fs.writeFileSync(path.join(dir, `${viewport.name}-${n}.png`), s.png);
        console.log(
          `${viewport.name}-${n}.png  ${s.heading ?? '(top of the page)'}  content ${JSON.stringify(s.content)}  text ${s.textPx ?? '-'} px`,
        );
      }
    }
  } finally {
    await browser.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
