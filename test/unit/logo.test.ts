/**
 * The campaign's logo fetch (lib/capture/logo.ts) against a real local HTTP server: a big bitmap is scaled down to
 * 512 px, an SVG drawn sharp at 512 px, a redirect to a private address refused at connection time, and what is not
 * an image, too big or missing is a LogoError saying so (retryable only for the server's own trouble).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchLogo, LOGO_MAX_PIXELS, LogoError } from '../../lib/capture/logo';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createCanvas, loadImage } = require('canvas') as typeof import('canvas');

const wide = createCanvas(1200, 300);
wide.getContext('2d').fillRect(0, 0, 1200, 300);
const widePng = wide.toBuffer('image/png');
const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32"><rect width="64" height="32" fill="#3a5bd9"/></svg>';

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    if (req.url === '/wide.png') return send(200, 'image/png', widePng);
    if (req.url === '/logo.svg') return send(200, 'image/svg+xml', svg);
    if (req.url === '/moved') return send(302, 'text/plain', '', { location: '/logo.svg' });
    if (req.url === '/to-metadata') return send(302, 'text/plain', '', { location: 'http://169.254.169.254/latest/logo.png' });
    if (req.url === '/page') return send(200, 'text/html', '<!doctype html><p>not a logo</p>');
    if (req.url === '/huge') return send(200, 'image/png', Buffer.alloc(2048, 1));
    if (req.url === '/down') return send(503, 'text/plain', 'busy');
    send(404, 'text/plain', 'no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const options = { guard: { allowLoopback: true }, timeoutMs: 5_000 };
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (err: unknown) => err as LogoError,
  );

test('a bitmap larger than 512 px is scaled down, its shape kept; an SVG is drawn at 512 px; redirects are followed', async () => {
  const scaled = await loadImage(await fetchLogo(`${base}/wide.png`, options));
  expect([scaled.width, scaled.height]).toEqual([LOGO_MAX_PIXELS, 128]);
  const vector = await loadImage(await fetchLogo(`${base}/moved`, options));
  expect([vector.width, vector.height]).toEqual([LOGO_MAX_PIXELS, 256]);
});

test('a redirect to a private address is refused at connection time; so is the address itself', async () => {
  for (const url of [`${base}/to-metadata`, 'http://169.254.169.254/logo.png']) {
    const err = await failure(fetchLogo(url, options));
    expect(err).toBeInstanceOf(LogoError);
    expect(err?.message).toMatch(/public address/);
    expect(err?.retryable).toBe(false);
  }
});

test('not an image, too big, missing or a server error: a LogoError saying which, retryable only for the server', async () => {
  const cases: Array<[string, RegExp, boolean, number?]> = [
    ['/page', /not an image/, false],
    ['/huge', /larger than 1024 bytes/, false, 1024],
    ['/nothing', /answered 404/, false],
    ['/down', /answered 503/, true],
  ];
  for (const [path, message, retryable, maxBytes] of cases) {
    const err = await failure(fetchLogo(`${base}${path}`, { ...options, maxBytes }));
    expect({ path, message: err?.message, retryable: err?.retryable }).toEqual({
      path,
      message: expect.stringMatching(message),
      retryable,
    });
  }
});
