/**
 * Processing: from what the capture pool stored, choose the scenes (hero first, then the most distinct
 * screens, a count sized to the target length) and pick the key facts a narrator would say.
 */
import { difference, fingerprint } from '../capture/images';
import type { Box, ShotContent } from '../framing';

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
  /** Where each capture's content is, so a frame is cropped around it (absent on plans made before section shots). */
  screenshotContent?: ShotContent | null;
  mobileScreenshotContent?: ShotContent | null;
}

/** A stored screenshot as the analysis reads it (lib/db/models.ts ScreenshotRef). */
export interface ScreenshotInfo {
  key: string;
  viewport: string;
  width: number;
  height: number;
  pixelRatio?: number;
  heading?: string | null;
  content?: Box;
}

/** A shot's size and content box, the whole image when the capture did not record one. */
export function shotContent(shot: ScreenshotInfo): ShotContent {
  return {
    width: shot.width,
    height: shot.height,
    pixelRatio: shot.pixelRatio ?? 1,
    content: shot.content ?? { x: 0, y: 0, width: shot.width, height: shot.height },
  };
}

/** Whether a capture framed the page section by section (shootSections), rather than screen by screen. */
export function hasSectionShots(screenshots: ScreenshotInfo[]): boolean {
  return screenshots.some((s) => s.viewport === 'desktop' && typeof s.heading === 'string');
}

/**
 * The screens that show each scene's part of a page captured section by section: the top of the page for a
 * scene without a section (`null`: the hero), else the section under that heading; a heading this version
 * does not have falls back to its section in the same position (`ordinal`), then to the top of the page.
 */
export function sectionScreens(screenshots: ScreenshotInfo[], roles: Array<{ heading: string | null; ordinal: number }>): SceneScreens[] {
  const pick = (viewport: string, role: { heading: string | null; ordinal: number }) => {
    const shots = screenshots.filter((s) => s.viewport === viewport);
    const top = shots.find((s) => s.heading === null) ?? shots[0];
    if (role.heading === null) return top;
    const sections = shots.filter((s) => typeof s.heading === 'string');
    return sections.find((s) => s.heading === role.heading) ?? sections[role.ordinal] ?? top;
  };
  return roles.map((role) => {
    const desktop = pick('desktop', role);
    const mobile = pick('mobile', role);
    return {
      screenshotKey: desktop.key,
      mobileScreenshotKey: mobile?.key ?? null,
      screenshotContent: shotContent(desktop),
      mobileScreenshotContent: mobile ? shotContent(mobile) : null,
    };
  });
}

/** How many screens fit the target length: target = title + screens × SECONDS_PER_SCREEN + closing. */
export function screenBudget(targetSeconds: number): number {
  return Math.max(1, Math.floor((targetSeconds - TITLE_SECONDS - CLOSING_SECONDS) / SECONDS_PER_SCREEN));
}

/**
 * The scenes of a page captured by section: the hero (the top of the page), then one scene per feature whose
 * section was shot, in page order, as many as the target length holds. Each shows its own section, so no two
 * scenes show the same picture.
 */
export function sectionScenes(
  facts: KeyFacts,
  screenshots: ScreenshotInfo[],
  targetSeconds: number,
): Array<{ feature: number | null; heading: string | null }> {
  const shot = new Set(screenshots.filter((s) => s.viewport === 'desktop' && typeof s.heading === 'string').map((s) => s.heading));
  const features = facts.features.flatMap((f, index) => (shot.has(f.title) ? [{ feature: index, heading: f.title }] : []));
  return [{ feature: null, heading: null }, ...features].slice(0, screenBudget(targetSeconds));
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
  variants: Array<{ language: string; screenshots: ScreenshotInfo[] }>,
): Array<Record<string, SceneScreens>> {
  return chosen.map((index) => {
    const byLanguage: Record<string, SceneScreens> = {};
    for (const { language, screenshots } of variants) {
      const desktop = screenshots.filter((s) => s.viewport === 'desktop');
      const mobile = screenshots.filter((s) => s.viewport === 'mobile');
      const screen = desktop[index] ?? desktop.at(-1);
      if (!screen) continue;
      const phone = mobile[index] ?? mobile.at(-1);
      byLanguage[language] = {
        screenshotKey: screen.key,
        mobileScreenshotKey: phone?.key ?? null,
        screenshotContent: shotContent(screen),
        mobileScreenshotContent: phone ? shotContent(phone) : null,
      };
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
  /** logoKey: the campaign's own logo (create's brand.logo_url) as stored by the capture stage, or null */
  brand: { themeColor: string | null; palette: string[]; iconUrls: string[]; logoKey?: string | null };
}

/** Headings that belong to page furniture, not to the product: never a feature, so never shot (shootSections). */
export const FURNITURE =
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
  const budget = screenBudget(targetSeconds);
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
