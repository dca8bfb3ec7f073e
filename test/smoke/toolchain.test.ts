/**
 * Smoke test of the native stack on this machine: Node 22, editly (canvas + ffmpeg) as the renderer drives it,
 * puppeteer-core and puppeteer-cluster on Debian's Chromium, espeak-ng.
 * Needs NODE_OPTIONS=--experimental-vm-modules (editly and puppeteer-core are ESM-only and loaded with a real
 * dynamic import()). headless-gl is not built (package.json allowScripts): editly loads it only for GL transitions
 * on RGBA frames, and the renderer gives it yuv420p frames and fades (patches/editly+0.14.2.patch).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Cluster } from 'puppeteer-cluster';

const run = promisify(execFile);

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const PAGE_TITLE = 'Smoke page 煙';

let tmp: string;
let server: http.Server;
let pageUrl: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'toolchain-smoke-'));
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>${PAGE_TITLE}</title></head><body><h1>hello</h1></body></html>`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  pageUrl = `http://127.0.0.1:${port}/`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('runs on Node 22', () => {
  expect(process.versions.node.startsWith('22.')).toBe(true);
});

test('editly renders two yuv420p clips with a fade into a 320x240 h264 video, without headless-gl', async () => {
  // editly is ESM with a default export, but its index.d.ts says `export =`: type the default by hand.
  const editly = ((await import('editly')) as unknown as { default: (config: Record<string, unknown>) => Promise<void> }).default;
  const outPath = path.join(tmp, 'fade.mp4');
  // A clip's one layer gives finished yuv420p frames, as lib/render/editly-child.ts's do: here a flat grey.
  const flat = (luma: number) => ({
    type: 'fabric',
    func: () =>
      Promise.resolve({
        onRender: () => Promise.resolve(Buffer.concat([Buffer.alloc(320 * 240, luma), Buffer.alloc((320 * 240) / 2, 128)])),
      }),
  });
  const log = jest.spyOn(console, 'log').mockImplementation(() => {}); // editly's progress lines
  try {
    await editly({
      outPath,
      width: 320,
      height: 240,
      fps: 25,
      framePixelFormat: 'yuv420p',
      defaults: { transition: { name: 'fade', duration: 0.4 } },
      clips: [
        { duration: 0.7, layers: [flat(40)] },
        { duration: 0.7, layers: [flat(200)] },
      ],
    });
  } finally {
    log.mockRestore();
  }
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_streams', '-of', 'json', outPath]);
  const streams: Array<Record<string, unknown>> = JSON.parse(stdout).streams;
  const video = streams.find((s) => s.codec_type === 'video');
  expect(video).toBeDefined();
  expect(video!.codec_name).toBe('h264');
  expect(video!.width).toBe(320);
  expect(video!.height).toBe(240);
  const duration = Number(video!.duration);
  expect(duration).toBeGreaterThan(0.8);
  expect(duration).toBeLessThan(1.3);
});

test('puppeteer-core drives /usr/bin/chromium headless and reads a local page title', async () => {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto(pageUrl, { waitUntil: 'load' });
    expect(await page.title()).toBe(PAGE_TITLE);
  } finally {
    await browser.close();
  }
});

test('puppeteer-cluster runs a task on puppeteer-core (CONCURRENCY_CONTEXT, 2 workers)', async () => {
  const puppeteer = (await import('puppeteer-core')).default;
  const cluster: Cluster<string, string> = await Cluster.launch({
    puppeteer,
    concurrency: Cluster.CONCURRENCY_CONTEXT,
    maxConcurrency: 2,
    puppeteerOptions: { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS },
  });
  try {
    await cluster.task(async ({ page, data: url }) => {
      await page.goto(url, { waitUntil: 'load' });
      return page.title();
    });
    expect(await cluster.execute(pageUrl)).toBe(PAGE_TITLE);
    await cluster.idle();
  } finally {
    await cluster.close();
  }
});

test('espeak-ng speaks to a wav file', async () => {
  const out = path.join(tmp, 'out.wav');
  await run('espeak-ng', ['-v', 'en', '-w', out, 'hello']);
  const { size } = await stat(out);
  expect(size).toBeGreaterThan(1000);
  const head = await readFile(out);
  expect(head.subarray(0, 4).toString('ascii')).toBe('RIFF');
  expect(head.subarray(8, 12).toString('ascii')).toBe('WAVE');
});
