/**
 * Processing: from what the capture pool stored, choose the scenes (hero first, then the most distinct
 * screens, a count sized to the target length) and pick the key facts a narrator would say.
 */
import { difference, fingerprint } from '../capture/images';

export interface CapturedText {
  title: string;
  description: string | null;
  open_graph: Record<string, string>;
  headings: Array<{ level: number; text: string }>;
  main_text: string;
  actions?: string[];
}

export interface KeyFacts {
  name: string;
  domain: string;
  headline: string;
  valueProposition: string;
  features: Array<{ title: string; detail: string }>;
  callToAction: string | null;
}

/** One screen of a scene, as desktop and phone captures. */
export interface SceneScreens {
  screenshotKey: string;
  mobileScreenshotKey: string | null;
}

export interface PlannedScene extends SceneScreens {
  feature: number | null;
  /**
   * The same screen on each language's own version of the page (hreflang), by language code. A language's
   * video shows these; a language without its own page shows the source page's screens above.
   */
  localized?: Record<string, SceneScreens>;
}

/**
 * The screens of each captured page version at the positions chosen on the source page: the page's own
 * versions share its layout, so the n-th screen of one is the n-th of the other (or its last, if shorter).
 */
export function localizedScreens(
  chosen: number[],
  variants: Array<{ language: string; screenshots: Array<{ key: string; viewport: string }> }>,
): Array<Record<string, SceneScreens>> {
  return chosen.map((index) => {
    const byLanguage: Record<string, SceneScreens> = {};
    for (const { language, screenshots } of variants) {
      const desktop = screenshots.filter((s) => s.viewport === 'desktop');
      const mobile = screenshots.filter((s) => s.viewport === 'mobile');
      const screen = desktop[index] ?? desktop.at(-1);
      if (!screen) continue;
      byLanguage[language] = { screenshotKey: screen.key, mobileScreenshotKey: (mobile[index] ?? mobile.at(-1))?.key ?? null };
    }
    return byLanguage;
  });
}

export interface CampaignPlanDocument {
  facts: KeyFacts;
  scenes: PlannedScene[];
  /** Seconds the video should last (title card, screens, closing card). */
  targetSeconds: number;
  sourceLanguage: string;
  brand: { themeColor: string | null; palette: string[]; iconUrls: string[] };
}

/** Headings that belong to page furniture, not to the product. */
const FURNITURE =
  /^(product|company|legal|resources|support|contact|about( us)?|pricing|privacy|cookies?|terms|blog|careers|menu|navigation|we value your privacy|cookie (settings|preferences)|sign in|log in)$/i;

export const SECONDS_PER_SCREEN = 6;
export const TITLE_SECONDS = 3;
export const CLOSING_SECONDS = 3.5;

export function sentences(text: string): string[] {
  // CJK full stops end a sentence with no space after them.
  return text
    .split(/(?<=[.!?])\s+|(?<=[。！？])|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 1);
}

/** The sentence after a heading in the main text: what the section says about itself. */
function detailFor(heading: string, mainText: string): string {
  const at = mainText.indexOf(heading);
  if (at < 0) return '';
  return sentences(mainText.slice(at + heading.length))[0] ?? '';
}

export function keyFacts(text: CapturedText, pageUrl: string): KeyFacts {
  const domain = new URL(pageUrl).hostname.replace(/^www\./i, '');
  const titleHead = text.title.split(/\s+[—–|:-]\s+/)[0]?.trim();
  const name = text.open_graph.site_name || titleHead || domain;
  const h1 = text.headings.find((h) => h.level === 1)?.text;
  const headline = h1 || text.open_graph.title || text.title || name;
  const valueProposition = text.description || text.open_graph.description || sentences(text.main_text)[0] || '';
  const features = text.headings
    .filter((h) => h.level === 2 && !FURNITURE.test(h.text) && h.text !== headline)
    .slice(0, 4)
    .map((h) => ({ title: h.text, detail: detailFor(h.text, text.main_text) }));
  return { name, domain, headline, valueProposition, features, callToAction: text.actions?.[0] ?? null };
}

/**
 * Hero first, then the screens that differ most from what is already chosen, shown in page order.
 * The count fits the target: target = title + screens × SECONDS_PER_SCREEN + closing.
 */
export async function chooseScreens(desktop: Array<{ key: string; png: Buffer }>, targetSeconds: number): Promise<number[]> {
  if (desktop.length === 0) return [];
  const budget = Math.max(1, Math.floor((targetSeconds - TITLE_SECONDS - CLOSING_SECONDS) / SECONDS_PER_SCREEN));
  const prints = await Promise.all(desktop.map((shot) => fingerprint(shot.png)));
  const chosen = [0];
  while (chosen.length < Math.min(budget, desktop.length)) {
    let best = -1;
    let bestDistance = -1;
    for (let i = 1; i < desktop.length; i += 1) {
      if (chosen.includes(i)) continue;
      const distance = Math.min(...chosen.map((c) => difference(prints[c], prints[i])));
      if (distance > bestDistance) {
        best = i;
        bestDistance = distance;
      }
    }
    chosen.push(best);
  }
  return chosen.sort((a, b) => a - b);
}
