/**
 * Pages we refuse to capture (decisions.md §1, issue 3): access denied, bot challenges, sign-in walls,
 * empty pages. Each rule names what it saw, so the 422 tells the customer why.
 */

/** What the page looked like once loaded; gathered in the browser by page-reader.ts. */
export interface PageSignals {
  status: number;
  finalUrl: string;
  title: string;
  /** Visible text of the body, whitespace collapsed. */
  visibleTextLength: number;
  visiblePasswordFields: number;
  challengeMarkers: string[];
  imageCount: number;
}

const LOGIN_PATH = /\/(log-?in|sign-?in|signon|auth|sso|session\/new|account\/login)(\/|$|\?)/i;
const CHALLENGE_TITLE =
  /just a moment|attention required|checking your browser|verify you are human|are you a robot|access denied|captcha|ddos protection/i;

/** A page shows something once it has this much visible text, or a visible picture wider than this (CSS pixels). */
export const SHOWS_SOMETHING = { textLength: 20, imageWidth: 32 } as const;

export function refusalReason(signals: PageSignals): string | undefined {
  const { status } = signals;
  if (status === 401) return 'The page requires sign-in (HTTP 401).';
  if (status === 403) return 'The page refuses automated browsers (HTTP 403).';
  if (status === 429) return 'The page is rate limiting automated browsers (HTTP 429).';
  if (status >= 400) return `The page could not be loaded (HTTP ${status}).`;
  if (signals.challengeMarkers.length || CHALLENGE_TITLE.test(signals.title)) {
    return `The page shows a bot check (${signals.challengeMarkers[0] ?? `title "${signals.title}"`}) instead of its content.`;
  }
  let path = '';
  try {
    path = new URL(signals.finalUrl).pathname;
  } catch {
    /* keep empty */
  }
  if (LOGIN_PATH.test(path)) return `The page redirects to a sign-in page (${path}).`;
  if (signals.visiblePasswordFields > 0 && signals.visibleTextLength < 800) return 'The page is a sign-in form.';
  if (signals.visibleTextLength < SHOWS_SOMETHING.textLength && signals.imageCount === 0) return 'The page is empty.';
  return undefined;
}
