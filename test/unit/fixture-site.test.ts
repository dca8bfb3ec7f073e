import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startFixtureSite, startSink, type FixtureSite, type Sink } from '../fixtures/site/server';

const SITE_DIR = path.resolve(__dirname, '../fixtures/site');

let sink: Sink;
let site: FixtureSite;

beforeAll(async () => {
  sink = await startSink();
  site = await startFixtureSite({ sinkUrl: sink.origin });
});

afterAll(async () => {
  await site?.close();
  await sink?.close();
});

async function get(route: string, init: RequestInit = {}) {
  const res = await fetch(site.url(route), { redirect: 'manual', ...init });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

function attr(html: string, pattern: RegExp): string | undefined {
  return pattern.exec(html)?.[1];
}

function hreflangs(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">/g)) out[m[1]] = m[2];
  return out;
}

function waitFor(check: () => boolean, ms = 3000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() - started > ms) return reject(new Error('condition not met in time'));
      setTimeout(tick, 20);
    };
    tick();
  });
}

test('origin is loopback on an ephemeral port and url() resolves paths against it', () => {
  expect(site.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(site.url('/ja/')).toBe(`${site.origin}/ja/`);
  expect(sink.origin).toBe(`http://127.0.0.1:${sink.port}`);
});

test('the product page is a full page with metadata, four sections, lazy images and overlays', async () => {
  const { status, headers, body } = await get('/');
  expect(status).toBe(200);
  expect(headers.get('content-type')).toMatch(/text\/html/);
  expect(attr(body, /<html lang="([^"]+)"/)).toBe('en');
  expect(body).toContain('<title>Acme Analytics');
  expect(body).toMatch(/<meta name="description" content="[^"]{40,}">/);
  expect(body).toContain('<meta name="theme-color" content="#3a5bd9">');
  expect(body).toContain('<link rel="icon" href="/logo.svg"');
  for (const prop of ['og:title', 'og:description', 'og:image', 'og:site_name']) expect(body).toContain(`property="${prop}"`);
  expect(body).toMatch(/<h1>[^<]+<\/h1>/);
  expect(body).toContain('id="cta"');
  const h2s = [...body.matchAll(/<section class="feature[^"]*"[\s\S]*?<h2>([^<]+)<\/h2>/g)].map((m) => m[1]);
  expect(h2s).toHaveLength(4);
  expect(new Set(h2s).size).toBe(4);
  expect(body.match(/<img loading="lazy" data-src="[^"]+"/g)).toHaveLength(2);
  expect(body).toContain('window.__lazyLoaded');
  expect(body).toContain('IntersectionObserver');
  expect(body).toContain('id="onetrust-banner-sdk"');
  expect(body).toContain('id="onetrust-accept-btn-handler"');
  expect(body).toContain('class="chat-widget"');
  expect(body).toContain('<footer');
  expect((await get('/en/')).body).toBe(body);
});

test('/, /en/, /ja/ and /ko/ carry the same hreflang block and their own lang', async () => {
  const expected = { en: '/en/', ja: '/ja/', ko: '/ko/', 'x-default': '/' };
  const english = (await get('/')).body;
  for (const [route, lang, sample] of [
    ['/', 'en', 'Dashboards your team'],
    ['/en/', 'en', 'Dashboards your team'],
    ['/ja/', 'ja', 'チームが本当に読むダッシュボード'],
    ['/ko/', 'ko', '팀이 실제로 읽는 대시보드'],
  ]) {
    const { status, body } = await get(route);
    expect(status).toBe(200);
    expect(attr(body, /<html lang="([^"]+)"/)).toBe(lang);
    expect(hreflangs(body)).toEqual(expected);
    expect(body).toContain(sample);
    // Translations keep the structure: same number of headings, images and lazy images.
    for (const tag of [/<h2>/g, /<img /g, /data-src=/g]) expect(body.match(tag)?.length).toBe(english.match(tag)?.length);
  }
  expect((await get('/ja')).headers.get('location')).toBe('/ja/');
});

test('sign-in walls', async () => {
  const wall = await get('/login-wall');
  expect(wall.status).toBe(200);
  expect(wall.body).toContain('<h1>Sign in</h1>');
  expect(wall.body).toContain('type="email"');
  expect(wall.body).toContain('type="password"');

  const redirect = await get('/redirect-to-login');
  expect(redirect.status).toBe(302);
  expect(redirect.headers.get('location')).toBe('/login?next=/app');
  const login = await get('/login?next=/app');
  expect(login.status).toBe(200);
  expect(login.body).toContain('type="password"');
  expect(login.body).toMatch(/<h1>Sign in/);
});

test('bot challenge and CAPTCHA', async () => {
  const challenge = await get('/challenge');
  expect(challenge.status).toBe(403);
  expect(challenge.body).toContain('<title>Just a moment...</title>');
  expect(challenge.body).toContain('Checking your browser before accessing');
  expect(challenge.body).toContain('id="challenge-form"');
  expect(challenge.body).toContain('Ray ID');
  expect(challenge.headers.get('cf-mitigated')).toBe('challenge');

  const captcha = await get('/captcha');
  expect(captcha.status).toBe(200);
  expect(captcha.body).toContain('Verify you are human');
  expect(captcha.body).toContain('<iframe title="reCAPTCHA" src="https://www.google.com/recaptcha/api2/anchor?');
});

test('error statuses, empty page, huge page, 404', async () => {
  for (const code of [401, 403, 429]) {
    const res = await get(`/status/${code}`);
    expect(res.status).toBe(code);
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body.length).toBeLessThan(500);
  }
  const empty = await get('/empty');
  expect(empty.status).toBe(200);
  expect(empty.body).toBe('<html><body></body></html>');

  const huge = await get('/huge');
  expect(huge.status).toBe(200);
  expect(huge.body.match(/<section class="chapter"/g)).toHaveLength(60);
  expect(huge.body.trimEnd().endsWith('</html>')).toBe(true);

  expect((await get('/no-such-page')).status).toBe(404);
});

test('/slow does not answer within 500 ms (and ?ms= shortens it)', async () => {
  const controller = new AbortController();
  const pending = fetch(site.url('/slow'), { signal: controller.signal }).then(
    () => 'answered',
    () => 'aborted',
  );
  const first = await Promise.race([pending, new Promise((resolve) => setTimeout(() => resolve('waiting'), 500))]);
  expect(first).toBe('waiting');
  controller.abort();
  expect(await pending).toBe('aborted');

  const quick = await get('/slow?ms=50');
  expect(quick.status).toBe(200);
  expect(quick.body).toContain('Finally loaded');
});

test('images, logo and robots.txt', async () => {
  const logo = await get('/logo.svg');
  expect(logo.status).toBe(200);
  expect(logo.headers.get('content-type')).toBe('image/svg+xml');
  expect(logo.body).toContain('<svg');

  const home = (await get('/')).body;
  const images = new Set([...home.matchAll(/(?:src|data-src|content)="(\/img\/[^"]+)"/g)].map((m) => m[1]));
  expect(images.size).toBeGreaterThanOrEqual(6);
  for (const image of images) {
    const res = await fetch(site.url(image));
    expect([image, res.status]).toEqual([image, 200]);
    expect(res.headers.get('content-type')).toMatch(/^image\//);
    await res.arrayBuffer();
  }
  const png = Buffer.from(await (await fetch(site.url('/img/og.png'))).arrayBuffer());
  expect(png.subarray(1, 4).toString()).toBe('PNG');

  const robots = await get('/robots.txt');
  expect(robots.status).toBe(200);
  expect(robots.body).toContain('User-agent: *');
  expect(robots.body).toContain(`Sitemap: ${site.origin}/sitemap.xml`);
  expect((await get('/sitemap.xml')).body).toContain(`<loc>${site.origin}/ja/</loc>`);
  expect((await get('/img/../server.ts')).status).toBe(404);
});

test('attack pages point at the sink', async () => {
  const redirect = await get('/redirect-private');
  expect(redirect.status).toBe(302);
  expect(redirect.headers.get('location')).toBe(`${sink.origin}/redirected`);

  const embeds = await get('/embeds-private');
  expect(embeds.status).toBe(200);
  const ws = sink.origin.replace('http', 'ws');
  expect(embeds.body).toContain(`<iframe src="${sink.origin}/iframe"`);
  expect(embeds.body).toContain(`<img src="${sink.origin}/img.png"`);
  expect(embeds.body).toContain(`fetch('${sink.origin}/fetch'`);
  expect(embeds.body).toContain(`xhr.open('GET', '${sink.origin}/xhr')`);
  expect(embeds.body).toContain(`new WebSocket('${ws}/ws')`);
  expect(embeds.body).toContain(`navigator.sendBeacon('${sink.origin}/beacon'`);
  expect(embeds.body).not.toContain('{{');
});

test('every request to the site is recorded', () => {
  const paths = site.hits.map((h) => h.path);
  for (const p of ['/', '/ja/', '/ko/', '/challenge', '/empty', '/slow', '/robots.txt']) expect(paths).toContain(p);
  expect(site.hits.every((h) => h.method === 'GET' && typeof h.at === 'number')).toBe(true);
});

test('the sink records HTTP requests, WebSocket upgrades and raw TCP connections', async () => {
  const res = await fetch(`${sink.origin}/probe?x=1`, { method: 'POST', body: 'hello' });
  expect(res.status).toBe(200);
  await res.text();
  expect(sink.hits).toContainEqual({ method: 'POST', path: '/probe?x=1', kind: 'http' });

  const before = sink.hits.filter((h) => h.kind === 'tcp').length;
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(sink.port, '127.0.0.1', () => socket.write('\x16\x03\x01 not http\r\n'));
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
  await waitFor(() => sink.hits.filter((h) => h.kind === 'tcp').length === before + 1);

  const silent = net.connect(sink.port, '127.0.0.1');
  await new Promise((resolve) => silent.once('connect', resolve));
  silent.destroy();
  await waitFor(() => sink.hits.filter((h) => h.kind === 'tcp').length === before + 2);

  const upgraded = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(sink.port, '127.0.0.1', () =>
      socket.write(
        'GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      ),
    );
    socket.once('data', (d) => {
      resolve(d.toString('latin1'));
      socket.destroy();
    });
    socket.on('error', reject);
  });
  expect(upgraded).toContain('101 Switching Protocols');
  expect(upgraded).toContain('Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
  expect(sink.hits).toContainEqual({ method: 'GET', path: '/ws', kind: 'upgrade' });

  if (sink.ipv6) {
    const v6 = await fetch(`http://[::1]:${sink.port}/over-ipv6`);
    expect(v6.status).toBe(200);
    await v6.text();
    expect(sink.hits).toContainEqual({ method: 'GET', path: '/over-ipv6', kind: 'http' });
  }
});

test('the fixture folder stays small', () => {
  let total = 0;
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else total += fs.statSync(full).size;
    }
  };
  walk(SITE_DIR);
  expect(total).toBeLessThan(300 * 1024);
});

test('close() ends pending slow requests and is idempotent', async () => {
  const extraSink = await startSink();
  const extra = await startFixtureSite({ sinkUrl: extraSink.origin });
  const pending = fetch(extra.url('/slow')).then(
    () => 'answered',
    () => 'failed',
  );
  await waitFor(() => extra.hits.some((h) => h.path === '/slow'));
  const started = Date.now();
  await Promise.all([extra.close(), extra.close()]);
  expect(await pending).toBe('failed');
  expect(Date.now() - started).toBeLessThan(2000);
  await extraSink.close();
  await expect(fetch(extra.url('/'))).rejects.toThrow();
  await expect(fetch(`${extraSink.origin}/`)).rejects.toThrow();
});
