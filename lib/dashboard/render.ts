/**
 * The dashboard's HTML: Eta templates (lib/dashboard/views, auto-escaping on: `<%= %>` escapes, only the
 * layout's `<%~ it.body %>` does not), its static files, and the security headers every dashboard answer carries.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Eta } from 'eta';
import { words } from './words';

/** The sources sit beside this file; a compiled dist/lib/dashboard reads them from the source tree. */
function sourceDir(name: string): string {
  const beside = path.join(__dirname, name);
  return fs.existsSync(beside) ? beside : path.resolve(__dirname, '..', '..', '..', 'lib', 'dashboard', name);
}

const eta = new Eta({ views: sourceDir('views'), autoEscape: true, autoTrim: false, cache: process.env.NODE_ENV !== 'development' });

/** No inline script or style anywhere: every script and stylesheet is a file under /dashboard/static. */
export const DASHBOARD_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; object-src 'none'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

const ERROR_HEADINGS: Record<number, string> = {
  400: 'That did not work',
  403: 'Not allowed',
  404: 'Not found',
  409: 'That did not work',
  410: 'No longer valid',
  413: 'Too large',
  429: 'Too many requests',
  503: 'Temporarily unavailable',
};

/** The error page's heading for an HTTP status (the gateway's error page and the dashboard's, with its header). */
export function errorHeading(status: number): string {
  return ERROR_HEADINGS[status] ?? 'Something went wrong';
}

const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const dateTimeFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
});

/** Every template gets these: the product's names in a customer's words (words.ts) and dates. */
const dateTimeSecondsFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
});

export const viewHelpers = {
  ...words,
  fmtDate: (iso: string | Date): string => dateFormat.format(new Date(iso)),
  fmtDateTime: (iso: string | Date): string => dateTimeFormat.format(new Date(iso)),
  /** With seconds: steps and attempts a few seconds apart. */
  fmtDateTimeSeconds: (iso: string | Date): string => dateTimeSecondsFormat.format(new Date(iso)),
};

/** Renders a page of lib/dashboard/views; every template gets the helpers above. */
export function renderView(name: string, data: Record<string, unknown>): string {
  return eta.render(name, { ...viewHelpers, ...data });
}

const STATIC_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The files under /dashboard/static, read once: nothing else on disk can be named by a request. */
export function loadStaticFiles(): Map<string, { type: string; body: Buffer }> {
  const dir = sourceDir('static');
  return new Map(
    fs
      .readdirSync(dir)
      .filter((name) => STATIC_TYPES[path.extname(name)])
      .map((name) => [name, { type: STATIC_TYPES[path.extname(name)], body: fs.readFileSync(path.join(dir, name)) }]),
  );
}

/** A signed download link made relative, so the page loads it from its own origin (CSP 'self'), whatever PUBLIC_BASE_URL says. */
export function sameOriginLink(link: string | null): string | null {
  if (!link) return null;
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}
