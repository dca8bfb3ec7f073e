/**
 * What is not a web page (lib/capture/refusal.ts notAWebPage): a PDF, a picture, a feed or a download is refused with
 * the words for what it is, not judged an empty page once Chromium has shown (or downloaded) it.
 */
import { notAWebPage } from '../../lib/capture/refusal';

test.each([
  ['application/pdf', 'https://example.com/brochure.pdf', 'The URL is a PDF document (application/pdf), not a web page.'],
  ['image/png', 'https://example.com/hero', 'The URL is an image (image/png), not a web page.'],
  ['image/svg+xml', 'https://example.com/logo.svg', 'The URL is an image (image/svg+xml), not a web page.'],
  ['video/mp4', 'https://example.com/launch', 'The URL is a video (video/mp4), not a web page.'],
  ['audio/mpeg', 'https://example.com/episode-12', 'The URL is an audio file (audio/mpeg), not a web page.'],
  ['application/json; charset=utf-8', 'https://example.com/api/plans', 'The URL is a JSON document (application/json), not a web page.'],
  ['application/ld+json', 'https://example.com/schema', 'The URL is a JSON document (application/ld+json), not a web page.'],
  ['text/plain; charset=utf-8', 'https://example.com/notes', 'The URL is a plain-text file (text/plain), not a web page.'],
  ['application/rss+xml', 'https://example.com/feed', 'The URL is a news feed (application/rss+xml), not a web page.'],
  ['application/zip', 'https://example.com/download', 'The URL is an archive (application/zip), not a web page.'],
  ['application/x-foo', 'https://example.com/thing', 'The URL is a file (application/x-foo), not a web page.'],
])('%s at %s: refused as what it is', (type, url, message) => {
  expect(notAWebPage(type, url)).toBe(message);
});

test('a download or an untyped response is told by its file name: the URL, or the name it is sent under', () => {
  expect(notAWebPage('application/octet-stream', 'https://example.com/files/report.pdf')).toBe(
    'The URL is a PDF document (application/octet-stream), not a web page.',
  );
  expect(notAWebPage(undefined, 'https://example.com/files/archive.zip')).toBe('The URL is an archive (application/zip), not a web page.');
  expect(notAWebPage('application/octet-stream', 'https://example.com/get?id=7', 'attachment; filename="Q3 report.pdf"')).toBe(
    'The URL is a PDF document (application/octet-stream), not a web page.',
  );
  expect(notAWebPage('application/octet-stream', 'https://example.com/get?id=7')).toBe(
    'The URL is a file to download (application/octet-stream), not a web page.',
  );
});

test('web pages pass, and so does a response that says nothing of itself (Chromium sniffs it; the other rules judge it)', () => {
  expect(notAWebPage('text/html; charset=utf-8', 'https://example.com/')).toBeUndefined();
  expect(notAWebPage('application/xhtml+xml', 'https://example.com/page')).toBeUndefined();
  expect(notAWebPage('TEXT/HTML', 'https://example.com/report.pdf')).toBeUndefined();
  expect(notAWebPage(undefined, 'https://example.com/pricing')).toBeUndefined();
  expect(notAWebPage('', 'https://example.com/')).toBeUndefined();
});
