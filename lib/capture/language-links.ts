/**
 * A page's language versions reached only through its language switcher. Many sites declare no
 * <link rel="alternate" hreflang>: their versions are links labelled with each language's own name (中文, Deutsch),
 * or carrying a lang / hreflang attribute, sometimes to a client-rendered hash route (/#/zh-cn/). Without them a
 * Chinese video was narrated in English from the English page. The browser reports the page's links
 * (page-reader.ts readHead); which of them are versions of the page is decided here.
 */
import { isOneOf, SUPPORTED_LANGUAGES, type LanguageCode } from '../../config/catalog';
import { inPageScript } from '../script/analyze';
import { LANGUAGE_SCRIPT, letterCounts } from '../text';

/** A link as the browser read it: its absolute address, its words (or its icon's alt text), its lang and hreflang attributes. */
export interface LinkSeen {
  href: string;
  text: string;
  lang: string | null;
  hreflang: string | null;
}

/** A version of the page in a language: declared by hreflang, or (`via: 'switcher'`) found through its language switcher. */
export interface LanguageVersion {
  hreflang: string;
  href: string;
  via?: 'switcher';
}

/**
 * Each supported language's own name as switchers write it (lower case), with its hreflang. Only the language's
 * own name counts, not its English one: a link "Japanese" is as likely a blog post as a version of the page
 * (the contract is silent; this is the narrower reading).
 */
const OWN_NAMES: Record<LanguageCode, Array<string | [string, string]>> = {
  en: ['english'],
  ja: ['日本語'],
  ko: ['한국어'],
  zh: [
    '中文',
    ['简体中文', 'zh-hans'],
    ['中文(简体)', 'zh-hans'],
    ['简体', 'zh-hans'],
    ['汉语', 'zh-hans'],
    ['繁體中文', 'zh-hant'],
    ['中文(繁體)', 'zh-hant'],
    ['繁體', 'zh-hant'],
  ],
  es: ['español'],
  fr: ['français'],
  de: ['deutsch'],
  pt: ['português', ['português (brasil)', 'pt-br'], ['português do brasil', 'pt-br']],
  it: ['italiano'],
  nl: ['nederlands'],
  pl: ['polski'],
  ru: ['русский'],
  tr: ['türkçe'],
  ar: ['العربية', 'عربي'],
  hi: ['हिन्दी', 'हिंदी'],
  id: ['bahasa indonesia', 'indonesia'],
  vi: ['tiếng việt'],
  th: ['ไทย', 'ภาษาไทย'],
  sv: ['svenska'],
  uk: ['українська'],
};

/** Own name (normalized) → its hreflang. */
const BY_NAME = new Map<string, string>(
  Object.entries(OWN_NAMES).flatMap(([code, names]) =>
    names.map((name): [string, string] => (typeof name === 'string' ? [normalized(name), code] : [normalized(name[0]), name[1]])),
  ),
);

/** A label folded for comparison: NFC, lower case, flags and emoji gone, full-width brackets as ASCII, spaces folded. */
function normalized(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/\p{Extended_Pictographic}|[\u{1F1E6}-\u{1F1FF}]|\uFE0F/gu, '')
    .replace(/（/g, '(')
    .replace(/）/g, ')')
    .replace(/\s*\(\s*/g, ' (')
    .replace(/\s*\)/g, ')')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The language a link's words name in that language's own words ("简体中文" → zh-hans, "Español (España)" → es), or null. */
export function ownLanguageName(text: string): string | null {
  const label = normalized(text);
  if (!label || label.length > 30) return null;
  return BY_NAME.get(label) ?? BY_NAME.get(label.replace(/\s*\(.*\)$/, '')) ?? BY_NAME.get(label.replace(/[()\s]/g, '')) ?? null;
}

/** The supported language an attribute's tag is in ("zh-CN" → zh-cn), or null (x-default, an unsupported language). */
function attributeLanguage(tag: string | null): string | null {
  const value = (tag ?? '').trim().toLowerCase();
  return isOneOf(SUPPORTED_LANGUAGES, value.split(/[-_]/)[0]) ? value.replace(/_/g, '-') : null;
}

const host = (url: URL) => url.hostname.toLowerCase().replace(/^www\./, '');

/**
 * Whether `link` is on the page's own site: the same host (www. aside), one host under the other (zh.example.com
 * from example.com), or a sibling whose first label is a language code (zh.example.com from en.example.com).
 * Not a registrable-domain rule: without the public-suffix list, two sites under one provider (a.github.io,
 * b.github.io) must not count as one.
 */
export function sameSite(page: URL, link: URL): boolean {
  const a = host(page);
  const b = host(link);
  if (a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`)) return true;
  const parent = (h: string) => h.split('.').slice(1).join('.');
  const languageLabel = /^[a-z]{2}(-[a-z]{2,4})?$/;
  return parent(a) === parent(b) && parent(a).includes('.') && languageLabel.test(b.split('.')[0]);
}

/**
 * The page's versions its links lead to, one per language tag, in the links' order: a link labelled with a
 * supported language's own name, or carrying a lang or hreflang attribute of one, to another page of the same
 * site (http or https), or to a client-rendered route of this one (a hash beginning "#/" or "#!/"); not the page
 * itself. Each is loaded later as every page is (capture.service captureVariant: the pool's browser, through
 * the egress proxy).
 */
export function switcherVersions(links: LinkSeen[], pageUrl: string): LanguageVersion[] {
  const page = new URL(pageUrl);
  const found = new Map<string, LanguageVersion>();
  for (const link of links) {
    let target: URL;
    try {
      target = new URL(link.href, page);
    } catch {
      continue;
    }
    if (!/^https?:$/.test(target.protocol) || !sameSite(page, target)) continue;
    const route = /^#!?\//.test(target.hash);
    const samePage = target.origin === page.origin && target.pathname === page.pathname && target.search === page.search;
    if (samePage && (!route || target.hash === page.hash)) continue;
    if (!route) target.hash = '';
    const tag = attributeLanguage(link.hreflang) ?? attributeLanguage(link.lang) ?? ownLanguageName(link.text);
    if (!tag || found.has(tag)) continue;
    found.set(tag, { hreflang: tag, href: target.href, via: 'switcher' });
  }
  // Traditional Chinese after the rest: a video in zh is read and voiced in Simplified Chinese.
  return [...found.values()].sort((a, b) => Number(a.hreflang === 'zh-hant') - Number(b.hreflang === 'zh-hant'));
}

/** What switcherVersionLanguage reads of a captured version (page-reader.ts PageText). */
export interface VersionText {
  language: string | null;
  title: string;
  headings: Array<{ text: string }>;
  mainText: string;
}

/**
 * The language of a version found through the source's language switcher, or null when it is not one: declared in
 * its markup as `language`; or, when its markup declares the source's language or none (a client-rendered route
 * keeps its shell's <html lang>), written in that language's own script. A Latin-script language cannot be told by
 * its script: such a page is taken at its link's word (contract silent; the reading chosen).
 */
export function switcherVersionLanguage(text: VersionText, language: string, sourceLanguage: string | null): string | null {
  const declared = text.language?.toLowerCase().split('-')[0] ?? null;
  if (declared === language) return text.language;
  if (declared && declared !== sourceLanguage) return null;
  const sample = [text.title, ...text.headings.map((h) => h.text), text.mainText.slice(0, 4000)].join('\n');
  return inPageScript(sample, language) ? language : null;
}

/** Of a text's letters, at least this share (a CJK or Thai character weighing as two Latin letters) in one script. */
const WRITTEN_IN_SHARE = 0.5;

/**
 * The language the page's text is written in when its markup says otherwise, among the campaign's `wanted`
 * languages, or null when the markup holds: a client-rendered documentation home's Chinese route keeps its shell's
 * <html lang="en"> (a real one's Chinese video was narrated in English from its meta description, its English video
 * said to be the page's own). Only a language with a script of its own can be told (lib/text.ts LANGUAGE_SCRIPT),
 * when most of the text is in that script; Japanese by its kana, Chinese by Han characters without kana.
 */
export function writtenLanguage(text: VersionText, wanted: readonly string[]): string | null {
  const declared = text.language?.toLowerCase().split('-')[0] ?? null;
  const sample = [text.title, ...text.headings.map((h) => h.text), text.mainText.slice(0, 4000)].join('\n');
  const counts = letterCounts(sample);
  const wide = counts.han + counts.kana + counts.hangul + counts.thai;
  const total = counts.total + wide;
  if (total === 0) return null;
  for (const language of wanted) {
    const script = isOneOf(SUPPORTED_LANGUAGES, language) ? LANGUAGE_SCRIPT[language] : undefined;
    if (!script || language === declared) continue;
    if (declared && isOneOf(SUPPORTED_LANGUAGES, declared) && LANGUAGE_SCRIPT[declared] === script) continue;
    const share = script.share(counts);
    const weighted = share * (['ja', 'zh', 'ko', 'th'].includes(language) ? 2 : 1);
    const kana = counts.kana / Math.max(1, counts.han + counts.kana);
    if (language === 'zh' && kana >= 0.05) continue;
    if (language === 'ja' && kana < 0.05) continue;
    if (weighted >= total * WRITTEN_IN_SHARE) return language;
  }
  return null;
}
