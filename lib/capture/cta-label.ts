/**
 * A call to action's label: the control's own words, not a neighbour's. A real closing card read "Try online demo
 * Powered by <cloud vendor>": the button and its sponsor line were one link, the sponsor line on a line of its own.
 * The browser reports each candidate's text line by line (page-reader.ts callsToAction); the label is made here.
 */
import { SUPPORTED_LANGUAGES } from '../../config/catalog';

/** A candidate as the browser read it: its text, line by line (a <br> or a block inside it starts a line), and its aria-label. */
export interface ActionSeen {
  lines: string[];
  ariaLabel: string | null;
}

/** A trailing "Powered by …", "Sponsored by …" (and the like) note, with what separates it from the label. */
const SPONSOR_NOTE =
  /(?:^|\s+(?:[-–—|·•,/]\s+)?|\s*\(\s*)(?:(?:powered|sponsored|hosted|supported|presented|brought to you)\s+by|in partnership with)\s+\S.*$/iu;

/** The longest label a call to action has: longer, it is a sentence of the page, not a control's name. */
const MAX_LABEL = 40;

/** `text` without a sponsor's note at its end ("Try online demo — Powered by Nimbus Cloud" → "Try online demo"). */
export function withoutSponsorNote(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(SPONSOR_NOTE, '')
    .replace(/[\s,;:|·•–—-]+$/u, '');
}

/**
 * The control's label: its first line that says something once a sponsor's note is dropped, else (an icon
 * control with no text of its own) its aria-label. The visible words come first, the aria-label being what the
 * contract is silent on: the video shows what a visitor reads on the button.
 */
export function actionLabel(seen: ActionSeen): string {
  for (const line of seen.lines) {
    const label = withoutSponsorNote(line);
    if (/[\p{L}\p{N}]/u.test(label)) return label;
  }
  return withoutSponsorNote(seen.ariaLabel ?? '');
}

/**
 * The names of languages, in their own words and in English ("English", "עברית", "Français", "Русский"): a language
 * switcher's buttons, which a real closing card showed as its call to action ("English"). The supported languages
 * and others a page may be offered in.
 */
const SWITCHER_LANGUAGES = [...SUPPORTED_LANGUAGES, 'he', 'fa', 'el', 'cs', 'ro', 'hu', 'da', 'fi', 'nb', 'no', 'ms', 'bn', 'ur', 'ca'];
const LANGUAGE_NAMES = new Set(
  SWITCHER_LANGUAGES.flatMap((code) => [
    code,
    ...[code, 'en'].map((shown) => new Intl.DisplayNames([shown], { type: 'language' }).of(code) ?? ''),
  ]).map((name) => name.toLocaleLowerCase()),
);

/** Whether `label` only names a language (a switcher's control): "English", "EN", "Español", "中文". */
export function languageName(label: string): boolean {
  return LANGUAGE_NAMES.has(label.trim().toLocaleLowerCase());
}

/**
 * The labels of the page's calls to action in the order given, each once, those that read as a control's name and
 * not a language's (a language switcher's control).
 */
export function actionLabels(seen: ActionSeen[]): string[] {
  const labels = seen.map(actionLabel).filter((t) => t.length >= 2 && t.length <= MAX_LABEL && /[\p{L}\p{N}]/u.test(t) && !languageName(t));
  return [...new Set(labels)].slice(0, 6);
}
