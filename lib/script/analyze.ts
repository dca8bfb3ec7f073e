/**
 * Processing: from what the capture pool stored, choose the scenes (hero first, then the most distinct
 * screens, a count sized to the target length) and pick the key facts a narrator would say.
 */
import { languageName, withoutSponsorNote } from '../capture/cta-label';
import { difference, fingerprint } from '../capture/images';
import { isOneOf, SUPPORTED_LANGUAGES, type LanguageCode } from '../../config/catalog';
import type { Box, ShotContent, TextBox } from '../render/framing';
import { boilerplateKind } from '../quality/boilerplate';
import { judgeLanguage } from '../quality/language';
import { LANGUAGE_SCRIPT, letterCounts } from '../text';
import { docsFurniture, generatorName, genericName, narratable, notice, pageName, placeholder } from './page-words';
import { bestSections, furnitureHeading, proseSentences, type SectionFeatures, type SectionPlace } from './sections';

/** A captured page's text as capture stores it (page_captures.text) and the script stages read it. */
export interface CapturedText {
  title: string;
  description: string | null;
  open_graph: Record<string, string>;
  headings: Array<{ level: number; text: string }>;
  main_text: string;
  actions?: string[];
  /** Each section as the capture read it (lib/script/sections.ts); absent on captures older than the ranking. */
  sections?: Array<SectionFeatures & SectionPlace>;
  hero_paragraphs?: string[];
  /** The page's own short list items and definition terms (lib/capture/page-reader.ts); absent on older captures. */
  list_items?: string[];
  brand_names?: string[];
  /** The lines of the page's footer that credit someone ("Solstice is a theme by Hollow Pine."): its maker, the vendor. */
  credits?: string[];
  /** The page's hreflang versions, as it links them, then those its language switcher links (`via: 'switcher'`). */
  alternates?: Array<{ hreflang: string; href: string; via?: 'switcher' }>;
}

/**
 * The page's look as capture stores it (page_captures.brand), read on the source page only: a localized version's
 * is empty. The logo is the customer's (create's brand.logo_url), stored by capture.
 */
export interface CapturedBrand {
  theme_color?: string | null;
  icon_urls?: string[];
  /** The dominant colours of the first screenshots, as #rrggbb. */
  palette?: string[];
  logo_key?: string | null;
}

export interface KeyFacts {
  name: string;
  domain: string;
  headline: string;
  valueProposition: string;
  /**
   * The page's sections worth a scene, best first (lib/script/sections.ts): heading, the sentences of its prose
   * (`detail` the first), its position among the page's sections and its score. Older plans have title and detail.
   */
  features: Array<{ title: string; detail: string; sentences?: string[]; section?: number; score?: number }>;
  /**
   * Short phrases the page says of its product beyond its best sections (keyPoints): a documentation site's topics,
   * a component library's feature list, its other headings, its intro's short sentences; in the page's language,
   * best first. The openings draw on them (lib/script/hooks.ts). Absent on older plans.
   */
  points?: string[];
  callToAction: string | null;
}

/** One screen of a scene, as desktop and phone captures. */
export interface SceneScreens {
  screenshotKey: string;
  mobileScreenshotKey: string | null;
  /** Where each capture's content is, so a frame is cropped around it (absent on plans made before section shots). */
  screenshotContent?: ShotContent | null;
  mobileScreenshotContent?: ShotContent | null;
  /**
   * The section these screens show, by its position among that page's sections (absent: the top of the page, or
   * a plan made before it was recorded). On a language's own page, the scene's words are that section's.
   */
  section?: number | null;
}

/** A stored screenshot as the analysis reads it (lib/db/models.ts ScreenshotRef). */
export interface ScreenshotInfo {
  key: string;
  viewport: string;
  width: number;
  height: number;
  pixelRatio?: number;
  heading?: string | null;
  section?: number;
  textPx?: number;
  content?: Box;
  focus?: TextBox[];
}

/** A shot's size and content box, the whole image when the capture did not record one. */
export function shotContent(shot: ScreenshotInfo): ShotContent {
  return {
    width: shot.width,
    height: shot.height,
    pixelRatio: shot.pixelRatio ?? 1,
    content: shot.content ?? { x: 0, y: 0, width: shot.width, height: shot.height },
    ...(shot.textPx ? { textPx: shot.textPx } : {}),
    ...(shot.focus?.length ? { focus: shot.focus } : {}),
  };
}

/** Whether a capture framed the page section by section (shootSections), rather than screen by screen. */
export function hasSectionShots(screenshots: ScreenshotInfo[]): boolean {
  return screenshots.some((s) => s.viewport === 'desktop' && typeof s.heading === 'string');
}

/** What a scene shows of a page: the top of the page (`heading` and `section` null: the hero), else one section. */
export interface SectionRole {
  /** The section's heading on this page, when known (older captures are matched by it). */
  heading: string | null;
  /** The scene's place among the plan's section scenes (older captures without section positions only). */
  ordinal: number;
  /** The section's position among the page's sections (readSections' `index`), the same on every version of the page. */
  section?: number | null;
}

/**
 * One viewport's shot of a scene's part of the page: the top of the page for the hero; else the shot of that
 * section, by its position among the page's sections (the same on each language's version of the page, whose
 * headings are in its own language), else by its heading. A capture that recorded no section positions (older
 * ones, which shot the first sections in page order) is matched by the scene's place among them. Null when this
 * viewport did not shoot that section: never another section's shot, nor the top of the page, in its place.
 */
export function sectionShot(screenshots: ScreenshotInfo[], viewport: string, role: SectionRole): ScreenshotInfo | null {
  const shots = screenshots.filter((s) => s.viewport === viewport);
  const top = shots.find((s) => s.heading === null) ?? shots[0] ?? null;
  if (role.heading === null && (role.section === null || role.section === undefined)) return top;
  const sections = shots.filter((s) => typeof s.heading === 'string');
  const positioned = sections.some((s) => typeof s.section === 'number');
  if (positioned && typeof role.section === 'number') return sections.find((s) => s.section === role.section) ?? null;
  return (
    sections.find((s) => role.heading !== null && s.heading === role.heading) ?? (positioned ? undefined : sections[role.ordinal]) ?? null
  );
}

/**
 * The screens that show each scene's part of a page captured section by section (sectionShot): desktop and phone
 * of the same section. Null for a scene whose section this page's desktop capture does not have; a phone capture
 * without it leaves the desktop shot to be shown on every frame (never another part of the page on the phone).
 */
export function sectionScreens(screenshots: ScreenshotInfo[], roles: SectionRole[]): Array<SceneScreens | null> {
  return roles.map((role) => {
    const desktop = sectionShot(screenshots, 'desktop', role);
    if (!desktop) return null;
    const mobile = sectionShot(screenshots, 'mobile', role);
    return {
      screenshotKey: desktop.key,
      mobileScreenshotKey: mobile?.key ?? null,
      screenshotContent: shotContent(desktop),
      mobileScreenshotContent: mobile ? shotContent(mobile) : null,
      ...(typeof desktop.section === 'number' ? { section: desktop.section } : {}),
    };
  });
}

/** How many screens fit the target length: target = title + screens × SECONDS_PER_SCREEN + closing. */
export function screenBudget(targetSeconds: number): number {
  return Math.max(1, Math.floor((targetSeconds - TITLE_SECONDS - CLOSING_SECONDS) / SECONDS_PER_SCREEN));
}

/**
 * The scenes of a page captured by section: the hero (the top of the page), then the best sections that were
 * shot (facts.features is best first), as many as the target length holds, shown in page order. Each shows its
 * own section, so no two scenes show the same picture.
 */
export function sectionScenes(
  facts: KeyFacts,
  screenshots: ScreenshotInfo[],
  targetSeconds: number,
): Array<{ feature: number | null; heading: string | null; section: number | null }> {
  const desktop = screenshots.filter((s) => s.viewport === 'desktop' && typeof s.heading === 'string');
  const shotFor = (f: KeyFacts['features'][number]) =>
    desktop.find((s) => typeof f.section === 'number' && s.section === f.section) ?? desktop.find((s) => s.heading === f.title);
  const features = facts.features
    .flatMap((f, index) => {
      const shot = shotFor(f);
      return shot ? [{ feature: index, heading: f.title, section: f.section ?? null, order: f.section ?? desktop.indexOf(shot) }] : [];
    })
    .slice(0, screenBudget(targetSeconds) - 1)
    .sort((a, b) => a.order - b.order)
    .map(({ order: _order, ...scene }) => scene);
  return [{ feature: null, heading: null, section: null }, ...features];
}

export interface PlannedScene extends SceneScreens {
  feature: number | null;
  /** The section it shows, by position among the page's sections (absent: the hero, or an older plan). */
  section?: number | null;
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

/** Codes pages declare for a language that are not its ISO 639-1 code (country codes, withdrawn codes). */
const DECLARED_LANGUAGE_ALIASES: Record<string, LanguageCode> = { kr: 'ko', jp: 'ja', cn: 'zh', ua: 'uk', se: 'sv', in: 'id', vn: 'vi' };

/**
 * The supported language a page's declared code means ('ja-JP' → ja, the common misspelling 'kr' → ko), or null for a
 * language the product has no phrases or voices for ('he'): the scripts then measure and voice the page's text as
 * English rather than fail the campaign, and a video whose words are not in its language says so (its warning, and
 * the video's own check's wrong_language flag).
 */
export function supportedPageLanguage(declared: string | null | undefined): LanguageCode | null {
  const code = (declared ?? '').trim().toLowerCase().split(/[-_]/)[0];
  const meant = DECLARED_LANGUAGE_ALIASES[code] ?? code;
  return isOneOf(SUPPORTED_LANGUAGES, meant) ? meant : null;
}

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

/** The sentence after a heading in the main text: what the section says about itself (captures without sections). */
function detailFor(heading: string, mainText: string): string {
  const at = mainText.indexOf(heading);
  if (at < 0) return '';
  return sentences(mainText.slice(at + heading.length))[0] ?? '';
}

/** A text with less than this share of its letters in the page language's own script is not in that language. */
const PAGE_SCRIPT_SHARE = 0.3;

/**
 * Whether `text` may be in the page's language: for a language with its own script (lib/text.ts LANGUAGE_SCRIPT),
 * it must use that script (an untranslated meta description does not); a Latin-script language is not told here.
 */
export function inPageScript(text: string, language: string | null | undefined): boolean {
  const script = language ? LANGUAGE_SCRIPT[language.toLowerCase().split('-')[0] as LanguageCode] : undefined;
  if (!script) return true;
  const counts = letterCounts(text);
  return script.share(counts) >= counts.total * PAGE_SCRIPT_SHARE;
}

const SEPARATORS = /\s+(?:[—–|:·•»›~-]|::)\s+/;
const plain = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** Words in a title's later part that say it names who made the product: "<Product> – <Vendor> Theme", "… by <Studio>". */
const MAKER_WORDS = /\b(theme|template|plugin|extension|add-?on|by|from)\b/i;

/** The names a footer credits as maker: "Solstice is a theme by Hollow Pine." → Hollow Pine (capitalised words after "by"). */
export function makersIn(credits: string[] | undefined): string[] {
  const names: string[] = [];
  for (const line of credits ?? []) {
    for (const match of line.matchAll(/\bby\s+([\p{Lu}\p{N}][\p{L}\p{N}&'’.-]*(?:\s+[\p{Lu}\p{N}&][\p{L}\p{N}&'’.-]*){0,3})/gu)) {
      names.push(match[1].replace(/[.'’-]+$/u, ''));
    }
  }
  return names;
}

/** Whether `text` begins with the words of `name` ("Lumen, the calm reader" begins with "Lumen"; "Lumenous" does not). */
function leadsWith(text: string, name: string): boolean {
  const said = wordsOf(text);
  const named = wordsOf(name);
  return named.length > 0 && named.every((word, i) => said[i] === word);
}

/** A title's part that reads as a name: four words at most, none starting in lower case ("Solstice", not "Accounting that closes itself"). */
function nameLike(part: string): boolean {
  const words = part.split(/\s+/);
  // In a script without spaces or case, a phrase with a list's or a sentence's marks, or longer than a name is, is a
  // tagline: a real component library titled "Vant 4 - 轻量、可定制的移动端组件库" was "Meet 轻量、可定制的移动端组件库.".
  const unspaced = part.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/gu)?.length ?? 0;
  if (unspaced > 8 || (unspaced > 0 && /[、，。！？：；,]/u.test(part))) return false;
  return words.length <= 4 && words.every((word) => !/^\p{Ll}/u.test(word));
}

/**
 * The product's name when the page names it first and its vendor after: the title's first part, which the h1 or
 * og:title also begins with, when the title's later part names a vendor (og:site_name, the header logo's name, a
 * maker the footer credits) as its maker ("Theme", "by", or the footer's credit). Real pages: a theme page titled
 * "<Product> – <Vendor> Theme" and a studio's landing page were introduced as "Meet <Vendor>." (The contract is
 * silent on naming: the page's own title, og:title and heading agreeing are taken over its navigation and footer.)
 */
function productBeforeVendor(text: CapturedText, parts: string[], h1: string): string | undefined {
  const first = parts[0];
  if (parts.length < 2 || !nameLike(first)) return undefined;
  const rest = plain(parts.slice(1).join(' '));
  const makers = makersIn(text.credits);
  const vendor = [text.open_graph.site_name, ...(text.brand_names ?? []), ...makers].find(
    (v): v is string => !!v && plain(v).length >= 2 && rest.includes(plain(v)) && !plain(first).includes(plain(v)),
  );
  if (!vendor) return undefined;
  // A title whose later part is only "<Vendor> Template" (or Theme) says outright who made what: a real shop
  // template "Shop Homepage – Start Bootstrap Template", its heading "Shop in style", was "Meet Start Bootstrap.".
  const madeBy = new RegExp(`^${plain(vendor)}(?:theme|template)s?$`, 'u').test(rest);
  if (!madeBy && !leadsWith(h1, first) && !leadsWith(text.open_graph.title ?? '', first)) return undefined;
  const credited = makers.some((m) => plain(m) === plain(vendor));
  return MAKER_WORDS.test(parts.slice(1).join(' ')) || credited ? first : undefined;
}

/**
 * The name the page gives its product in three places at once: its title's first part, its header logo's name, and
 * its h1 or og:title leading with it. It comes before og:site_name, which may name the site the page is hosted on
 * (a real theme demo titled "Landwind - Tailwind CSS Landing Page Demo", its logo "Landwind", had its vendor's
 * og:site_name "Themesberg" and was "Meet Themesberg."), and a generator's name said so is its own site's (the
 * MkDocs home, titled, logo'd and headed "MkDocs", served from another host than mkdocs.org was "Meet Features.").
 */
function nameAgreed(text: CapturedText, parts: string[], h1: string): string | undefined {
  const first = parts[0];
  if (!first || !nameLike(first) || !(text.brand_names ?? []).some((n) => plain(n) === plain(first))) return undefined;
  return leadsWith(h1, first) || leadsWith(text.open_graph.title ?? '', first) ? first : undefined;
}

/** A part of a title that reads as a tagline, not a name: three words or more, some of them lower case after the first. */
function taglineLike(part: string): boolean {
  const words = part.split(/\s+/);
  return words.length >= 5 || (words.length >= 3 && words.slice(1).some((word) => /^\p{Ll}/u.test(word)));
}

/** An IP address or a machine name is not a name a product goes by. */
const domainLabel = (domain: string): string => {
  if (/^[\d.]+$|^\[|^localhost$/i.test(domain)) return '';
  return plain(domain.split('.').slice(-2, -1)[0] ?? '');
};

/**
 * The product's name: the title's first part when the page names its product first and its vendor after
 * (productBeforeVendor), else what the site calls itself (og:site_name, application-name), else the header logo's
 * name where the title or headline carries it, else the part of the title that names the domain, else the title's
 * part that is not its tagline (the part that repeats the h1, or that reads as a sentence), else the header logo's
 * name, a short name-like first heading, the domain's label, the first heading. A generic candidate is skipped
 * everywhere (lib/script/page-words.ts genericName: "Home", "Document", "GitBook", "HTML Ecommerce Template"): real
 * pages were introduced as "Meet Home." and "Meet eCommerce Website.".
 */
export function productName(text: CapturedText, domain: string): string {
  const parts = text.title
    .split(SEPARATORS)
    .map((p) => p.trim())
    .filter(Boolean);
  const h1 = text.headings.find((h) => h.level === 1)?.text ?? '';
  const product = productBeforeVendor(text, parts, h1);
  const label = domainLabel(domain);
  const generic = (candidate: string) => genericName(candidate, label);
  // A template's own name is the product of its demo page ("Shop Homepage"), not a page's place in a site ("Home").
  if (product && (!generic(product) || (!pageName(product) && !placeholder(product)))) return product;
  const agreed = nameAgreed(text, parts, h1);
  if (agreed && (!generic(agreed) || generatorName(agreed))) return agreed;
  const titled = parts.filter((p) => !generic(p));
  const siteName = [text.open_graph.site_name].find((n): n is string => !!n && !generic(n) && !taglineLike(n));
  if (siteName) return siteName;
  // A contact bar's phone number or e-mail address in the header is no logo's name.
  const brands = (text.brand_names ?? []).filter(
    (n) => /\p{L}/u.test(n) && !/[@+]|\d{3}/.test(n) && !/\s{2}/.test(n) && n.split(/\s+/).length <= 4 && !generic(n),
  );
  const title = titled.join(' ');
  const carried = brands.find((n) => plain(title).includes(plain(n)) || plain(h1).includes(plain(n)));
  if (carried) return carried;
  const named = brands[0];
  const byDomain = label.length >= 3 && !/^\d+$/.test(label) ? titled.find((p) => plain(p).includes(label)) : undefined;
  if (byDomain) return byDomain;
  if (titled.length > 1) {
    // "Page | Site" is the common order ("Introduction — Quarry Documentation", "Pricing | Acme"); a part that
    // repeats the headline, or reads as a sentence (five words and more), is a tagline, not a name.
    const words = (p: string) => p.split(/\s+/).length;
    const short = titled.filter((p) => plain(p) !== plain(h1) && words(p) <= 4);
    const names = short.some(nameLike) ? short.filter(nameLike) : short;
    const last = titled[titled.length - 1];
    const chosen = names.includes(last) ? last : names[0];
    if (chosen) return named && plain(chosen).includes(plain(named)) ? named : chosen;
  }
  // The title's one part that is left: "Anon – eCommerce Website" names Anon; a tagline gives way to the logo's name.
  const only = titled.length === 1 && (titled.length < parts.length || !taglineLike(titled[0]) || !named) ? titled[0] : undefined;
  if (only) return only;
  if (named) return named;
  const headings = text.headings.map((h) => h.text).filter((h) => !generic(h));
  const heading = headings.find((h) => nameLike(h) && h.split(/\s+/).length <= 3);
  if (heading) return heading;
  if (label.length >= 2) return label.charAt(0).toUpperCase() + label.slice(1);
  return headings.find((h) => h.split(/\s+/).length <= 6) ?? titled[0] ?? (parts[0] || domain);
}

export function keyFacts(text: CapturedText, pageUrl: string, language?: string | null): KeyFacts {
  const domain = new URL(pageUrl).hostname.replace(/^www\./i, '');
  const name = productName(text, domain);
  // The headline is the page's own words: neither a generic page name ("Introduction" on a Russian guide) nor a
  // template's placeholder ("Title of the project"), nor a template's name in the title ("… – HTML Ecommerce Template").
  const own = (t: string | null | undefined): t is string => !!t && !genericName(t);
  const titleOwn = text.title
    .split(SEPARATORS)
    .map((p) => p.trim())
    .filter(own)
    .join(' – ');
  const headline =
    text.headings.filter((h) => h.level === 1).find((h) => own(h.text))?.text || [text.open_graph.title, titleOwn].find(own) || name;
  const inLanguage = (t: string | null | undefined): t is string => !!t && inPageScript(t, language);
  // What the page says of itself, in its own words and language: its hero's prose before its meta description
  // (often left untranslated on a translated page, or written for search engines). Prose only: not a contact bar, a
  // lone label, nor placeholder copy (lib/script/page-words.ts narratable).
  // Never a notice ("Note: for TypeScript users, vue-router@3.0+ requires vue@2.5+", a real docs page's first
  // paragraph), nor code (lib/script/page-words.ts notice).
  const said = (t: string | null | undefined): t is string => inLanguage(t) && narratable(t) && !notice(t) && !docsFurniture(t);
  const heroProse = (text.hero_paragraphs ?? []).filter(said);
  const valueProposition =
    heroProse[0] ??
    [text.description, text.open_graph.description].find(said) ??
    sentences(text.main_text).find((s) => s !== headline && said(s)) ??
    '';
  // A section's placeholder paragraphs are absent; a section made only of them is not shown.
  const sections = text.sections
    ?.filter((s) => !placeholder(s.heading) && !(s.paragraphs.length > 0 && s.paragraphs.every(placeholder)))
    .map((s) => ({ ...s, paragraphs: s.paragraphs.filter((p) => !placeholder(p)) }));
  const features: KeyFacts['features'] = sections
    ? bestSections(
        sections.filter((s) => s.topScreens >= 0.8 && s.heading !== headline),
        8,
      ).map((ranked) => {
        const section = sections.find((s) => s.index === ranked.index)!;
        const prose = proseSentences(section).filter((t) => narratable(t) && !notice(t));
        return {
          title: section.heading,
          detail: prose[0] ?? '',
          sentences: prose.slice(0, 6),
          section: section.index,
          score: ranked.score,
        };
      })
    : text.headings
        .filter((h) => h.level === 2 && !furnitureHeading(h.text) && !placeholder(h.text) && h.text !== headline)
        .slice(0, 4)
        .map((h) => ({ title: h.text, detail: [detailFor(h.text, text.main_text)].find((t) => narratable(t) && !notice(t)) ?? '' }));
  // A capture made before calls to action were read line by line may carry a sponsor's note: dropped here too.
  // A language switcher's control is no call to action (captures made before the capture left it out carry it).
  // Nor is a consent widget's ("Cookie preferences" closed a real page's videos and was flagged boilerplate).
  const action = text.actions?.find((a) => !languageName(a) && boilerplateKind(a) !== 'consent');
  const callToAction = action ? withoutSponsorNote(action) || null : null;
  const points = keyPoints(text, { name, headline, valueProposition, features }, language);
  return { name, domain, headline, valueProposition, features, ...(points.length ? { points } : {}), callToAction };
}

/** A point's length at most: nine words, or 22 letters in a language written without spaces. */
const POINT_WORDS = 9;
const POINT_CHARS = 22;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** Whether `text` is short enough to be said as one phrase of an opening, and long enough to say something. */
function pointSized(text: string): boolean {
  if (UNSPACED.test(text)) {
    const length = [...text.replace(/[^\p{L}\p{N}]/gu, '')].length;
    return length >= 3 && length <= POINT_CHARS;
  }
  const count = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  // One word is a label ("Transitions"), not a point; a hyphenated or camel-cased term is a name ("SearchBar").
  return count >= 2 && count <= POINT_WORDS;
}

/**
 * The short phrases a page says of its product beyond its best sections, best first, in the page's language
 * (inPageScript): the headings of its other sections (h2, h3), the first sentence of each section that is short,
 * its list items and definition terms (a documentation site's topics, a component library's feature list: real
 * docs and component-library pages have no marketing feature grid, and their openings were all "Meet X."), and its
 * intro's short sentences. Never a notice or code (notice), a part of a docs site ("Installation", "API Reference":
 * docsFurniture), page furniture, placeholder copy, the product's name, its headline or value proposition, or what
 * the key facts already carry. Pure: page words only, each whole as the page writes it.
 */
export function keyPoints(
  text: CapturedText,
  facts: Pick<KeyFacts, 'name' | 'headline' | 'valueProposition' | 'features'>,
  language?: string | null,
): string[] {
  const key = (t: string) => t.toLocaleLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  const taken = new Set([facts.name, facts.headline, facts.valueProposition, ...facts.features.map((f) => f.title)].map(key));
  // A list item's leading pictograph ("🍭 支持按需引入") is its bullet, not its words.
  const clean = (t: string) =>
    t
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^(?:[\p{Extended_Pictographic}\p{So}\uFE0F\u200D]+\s*)+/u, '')
      .replace(/[:：]$/u, '');
  // In the page's language as the video's own check judges a headline (lib/quality/language.ts): a real Chinese
  // page's "搜索相关 Search Bar" is in its script by a third, yet its headline was flagged wrong_language.
  const supported = supportedPageLanguage(language);
  const fit = (t: string) =>
    pointSized(t) &&
    inPageScript(t, language) &&
    !(supported && judgeLanguage(t, supported, { names: [facts.name] }).foreign) &&
    // In a cased script a point starts in upper case: a lower-case start is an identifier ("routes", "linkActiveClass")
    // or the middle of a sentence; nor is a word in lower camel case (an identifier) part of one.
    !/^[\p{Ll}]/u.test(t) &&
    !/(?:^|\s)\p{Ll}+\p{Lu}/u.test(t) &&
    // A version, a date or a count alone is no point ("v3.1.0", "2018").
    /\p{L}{2}/u.test(t) &&
    !notice(t) &&
    !docsFurniture(t) &&
    !furnitureHeading(t) &&
    !genericName(t) &&
    !placeholder(t);
  const headings = text.headings.filter((h) => h.level >= 2).map((h) => h.text);
  const firstSentences = (text.sections ?? []).map((s) => proseSentences(s).find((t) => narratable(t) && !notice(t)) ?? '');
  const intro = (text.hero_paragraphs ?? []).flatMap(sentences);
  const points: string[] = [];
  for (const candidate of [...headings, ...(text.list_items ?? []), ...firstSentences, ...intro].map(clean)) {
    const folded = key(candidate);
    if (!folded || taken.has(folded) || !fit(candidate)) continue;
    taken.add(folded);
    points.push(candidate);
    if (points.length >= 12) break;
  }
  return points;
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
