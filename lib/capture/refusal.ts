/**
 * Pages we refuse to capture (decisions.md §1): access denied, bot challenges, sign-in walls,
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

/** What a response that is not a web page is, by its Content-Type's media type (the part before any parameter). */
const NOT_A_PAGE: Array<[RegExp, string]> = [
  [/^application\/pdf$/, 'a PDF document'],
  [/^image\//, 'an image'],
  [/^video\//, 'a video'],
  [/^audio\//, 'an audio file'],
  [/^(application|text)\/(json|[\w.-]+\+json)$/, 'a JSON document'],
  [/^text\/plain$/, 'a plain-text file'],
  [/^text\/(csv|tab-separated-values)$/, 'a spreadsheet file'],
  [/^text\/markdown$/, 'a Markdown file'],
  [/^(application|text)\/(rss|atom)\+xml$/, 'a news feed'],
  [/^(application|text)\/xml$/, 'an XML document'],
  [/^application\/(zip|x-zip-compressed|gzip|x-gzip|x-tar|x-7z-compressed|x-rar-compressed|vnd\.rar|x-bzip2)$/, 'an archive'],
  [/^application\/(msword|vnd\.ms-[\w.-]+|vnd\.openxmlformats-[\w.-]+|vnd\.oasis\.opendocument\.[\w.-]+|rtf)$/, 'an office document'],
  [/^(text\/css|(application|text)\/(javascript|ecmascript|x-javascript))$/, 'a script or style sheet'],
];

/** What a file is by its name's extension: the sniff for a response whose type says nothing (none, or a download). */
const BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  json: 'application/json',
  txt: 'text/plain',
  csv: 'text/csv',
  zip: 'application/zip',
  gz: 'application/gzip',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/**
 * Why the response at `url` is not a web page to capture, from its Content-Type ("The URL is a PDF document
 * (application/pdf), not a web page."), or undefined for a page (HTML, XHTML) and for what cannot be told.
 * A response without a type, or sent as a download (application/octet-stream), is told by its name's extension
 * (Content-Disposition's filename, else the URL's path);
 * a download without one is still refused, as a file to download. The contract's code for a page that cannot be
 * captured (422 invalid_input) carries this message: no new error code (decisions §1).
 */
export function notAWebPage(contentType: string | undefined, url: string, disposition?: string): string | undefined {
  const declared = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (/^(text\/html|application\/xhtml\+xml)$/.test(declared)) return undefined;
  // The name it is sent under (Content-Disposition's filename), else the URL's last path segment.
  const fileName = /filename\*?\s*=\s*(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition ?? '')?.[1];
  let extension = '';
  try {
    extension = /\.([a-z0-9]{2,5})$/i.exec(fileName ?? new URL(url).pathname)?.[1]?.toLowerCase() ?? '';
  } catch {
    /* no extension */
  }
  const sniffed = !declared || declared === 'application/octet-stream' ? BY_EXTENSION[extension] : undefined;
  const type = sniffed ?? declared;
  if (!type) return undefined;
  const kind =
    NOT_A_PAGE.find(([pattern]) => pattern.test(type))?.[1] ?? (declared === 'application/octet-stream' ? 'a file to download' : 'a file');
  return `The URL is ${kind} (${declared || type}), not a web page.`;
}

/** A load that reached something other than a web page; its message is notAWebPage's. */
export class NotAWebPageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotAWebPageError';
  }
}
