/**
 * Capture benchmark: what one page costs in our capture pool (lib/capture/*, behind the egress proxy) against
 * the practical floor, a bare puppeteer-core script on a warm browser (new page, goto until `load`, one
 * screenshot, close). Everything runs on the fixture site served on loopback. See README.md.
 *
 *   npx tsx bench/capture/run.ts          (BENCH_PAGES=15 timed runs per measurement by default)
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { BrowserPool } from '../../lib/capture/browser-pool';
import { DESKTOP, makePresentable, openPage, readText, shootSections } from '../../lib/capture/page-reader';
import { refusalReason } from '../../lib/capture/refusal';
import { EgressProxy, type EgressDecision } from '../../lib/net/egress-proxy';
import { startFixtureSite, type FixtureSite } from '../../test/fixtures/site/server';
import { positiveInteger } from '../support';

const CHROMIUM = '/usr/bin/chromium';
const WARMUP_RUNS = 3;
const PAGE_TIMEOUT_MS = 30_000; // what capture.service passes (capturePageTimeoutMs default)
const MAX_SHOTS = 6; // captureMaxShots default, desktop
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

// The waits by design in lib/capture/page-reader.ts, used to show how much of each step is waiting.
const OPEN_IDLE_MS = 300; // openPage: waitForNetworkIdle({ idleTime: 300 })
const TWO_FRAMES_MS = 33; // two requestAnimationFrame callbacks at 60 frames a second
const SCROLL_PAUSE_MS = TWO_FRAMES_MS; // makePresentable: two frames (at most 60 ms) per scroll step
const PRESENT_IDLE_MS = 300; // makePresentable: waitForNetworkIdle({ idleTime: 300 })
const SHOT_PAUSE_MS = TWO_FRAMES_MS; // shootSections: two frames (at most 120 ms) before each shot

const N = positiveInteger('BENCH_PAGES', 15);

class BenchFailure extends Error {}

function fail(label: string, run: string, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  console.error(
    [
      '',
      '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
      `!!! ${label}, ${run}: RUN FAILED — the figures are not valid`,
      `!!!   ${message}`,
      '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
      '',
    ].join('\n'),
  );
  throw new BenchFailure(`${label} ${run}: ${message}`);
}

// ---------------------------------------------------------------- statistics

interface Stats {
  p50: number;
  mean: number;
  p95: number;
  min: number;
  max: number;
}

/** Percentile with linear interpolation between closest ranks (p in 0..1). */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 1) return sorted[0];
  const rank = p * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 0.5),
    mean: sorted.reduce((s, x) => s + x, 0) / sorted.length,
    p95: percentile(sorted, 0.95),
    min: sorted[0],
    max: sorted[sorted.length - 1],
  };
}

const ms = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');
const pct = (a: number, b: number) => (b > 0 ? `${((a / b) * 100).toFixed(0)}%` : 'n/a');

function table(header: string[], rows: string[][], leftColumns = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

// ---------------------------------------------------------------- the three measured tasks

interface FullTimes {
  openPage: number;
  makePresentable: number;
  readText: number;
  shootSections: number;
  shots: number;
}

/** "check": what POST /campaigns waits for (capture.check → loadChecked → openPage). */
async function runCheck(pool: BrowserPool, url: string): Promise<{ total: number; inside: number }> {
  const start = performance.now();
  const { signals, inside } = await pool.run(async (page) => {
    const t0 = performance.now();
    const opened = await openPage(page, url, DESKTOP, PAGE_TIMEOUT_MS);
    return { signals: opened.signals, inside: performance.now() - t0 };
  });
  const total = performance.now() - start;
  if (signals.status !== 200) throw new Error(`status ${signals.status}`);
  const refused = refusalReason(signals);
  if (refused) throw new Error(`refused: ${refused}`);
  if (!signals.title.startsWith('Acme Analytics')) throw new Error(`unexpected title "${signals.title}"`);
  return { total, inside };
}

/** "full page": what the collecting stage does per viewport (capture.service captureVariant, desktop). */
async function runFull(pool: BrowserPool, url: string): Promise<{ total: number; steps: FullTimes }> {
  const start = performance.now();
  const result = await pool.run(async (page) => {
    const t0 = performance.now();
    const opened = await openPage(page, url, DESKTOP, PAGE_TIMEOUT_MS);
    const t1 = performance.now();
    await makePresentable(page);
    const t2 = performance.now();
    const text = await readText(page);
    const t3 = performance.now();
    const shots = (await shootSections(page, MAX_SHOTS)).map((shot) => shot.png);
    const t4 = performance.now();
    return {
      opened,
      text,
      shots,
      steps: { openPage: t1 - t0, makePresentable: t2 - t1, readText: t3 - t2, shootSections: t4 - t3, shots: shots.length },
    };
  });
  const total = performance.now() - start;
  if (result.opened.signals.status !== 200) throw new Error(`status ${result.opened.signals.status}`);
  const refused = refusalReason(result.opened.signals);
  if (refused) throw new Error(`refused: ${refused}`);
  if (result.shots.length === 0 || result.shots.some((s) => !s.subarray(0, 4).equals(PNG_MAGIC)))
    throw new Error('screenshots missing or not PNG');
  if (result.text.mainText.length < 200) throw new Error(`main text too short (${result.text.mainText.length} characters)`);
  return { total, steps: result.steps };
}

/** The floor: new page, goto until `load`, one 1440×900 screenshot, close. */
async function runBare(browser: Browser, url: string): Promise<number> {
  const start = performance.now();
  let page: Page | undefined;
  try {
    page = await browser.newPage();
    const response = await page.goto(url, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
    if (response?.status() !== 200) throw new Error(`status ${response?.status()}`);
    const shot = Buffer.from(await page.screenshot());
    if (!shot.subarray(0, 4).equals(PNG_MAGIC)) throw new Error('screenshot is not PNG');
  } finally {
    await page?.close();
  }
  return performance.now() - start;
}

interface Probe {
  scrollHeight: number;
  innerHeight: number;
  scrollBehavior: string;
  scrollToMs: number;
  lazyLeft: number;
  lazyTotal: number;
}

/**
 * One extra, untimed page: its geometry after presentation (to count the scroll steps and shots the fixed
 * sleeps apply to), the page's CSS scroll-behavior, how long one `scrollTo` by shootSections takes, and how
 * many lazy images (`img[data-src]`, the fixture's lazy loader) makePresentable's scroll-through left unloaded.
 */
async function probe(pool: BrowserPool, url: string): Promise<Probe> {
  return pool.run(async (page) => {
    await openPage(page, url, DESKTOP, PAGE_TIMEOUT_MS);
    const lazyTotal = await page.evaluate(() => document.querySelectorAll('img[data-src]').length);
    await makePresentable(page);
    const g = await page.evaluate(() => ({
      scrollHeight: document.documentElement.scrollHeight,
      innerHeight: window.innerHeight,
      scrollBehavior: getComputedStyle(document.documentElement).scrollBehavior,
      lazyLeft: document.querySelectorAll('img[data-src]').length,
    }));
    const start = performance.now();
    await page.evaluate((y) => window.scrollTo(0, y), g.innerHeight); // the call shootSections makes per shot
    return { ...g, scrollToMs: performance.now() - start, lazyTotal };
  });
}

/** Runs `task` `count` times with `parallel` in flight; returns pages per second. */
async function throughput(
  count: number,
  parallel: number,
  task: (i: number) => Promise<unknown>,
): Promise<{ seconds: number; perSecond: number }> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next;
        next += 1;
        await task(i);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { seconds, perSecond: count / seconds };
}

async function guarded<T>(label: string, run: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    return fail(label, run, err);
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  let site: FixtureSite | undefined;
  let proxy: EgressProxy | undefined;
  let pool: BrowserPool | undefined;
  let pool2: BrowserPool | undefined;
  let bare: Browser | undefined;
  const decisions: EgressDecision[] = [];
  try {
    site = await startFixtureSite();
    const url = site.url('/');
    const siteHost = new URL(site.origin);
    proxy = new EgressProxy({ allowLoopback: true, onDecision: (d) => decisions.push(d) });
    await proxy.start();
    const poolOptions = {
      executablePath: CHROMIUM,
      concurrency: 1,
      pagesPerBrowser: 1_000_000, // no recycling during the bench: every timed page runs on a warm browser
      taskTimeoutMs: PAGE_TIMEOUT_MS * 4,
      proxyUrl: proxy.url,
    };
    pool = new BrowserPool(poolOptions);
    await pool.start();
    bare = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
      defaultViewport: { width: 1440, height: 900 },
    });
    const chromiumVersion = await bare.version();

    console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${chromiumVersion}`);
    console.log(`N = ${N} timed runs per measurement, after ${WARMUP_RUNS} untimed warm-up runs; page: ${url} (fixture product page)`);
    console.log('');

    // Warm-up: untimed, same tasks.
    process.stdout.write(`warm-up: ${WARMUP_RUNS} × check, full page, bare … `);
    for (let i = 0; i < WARMUP_RUNS; i += 1) {
      await guarded('check', `warm-up ${i + 1}`, () => runCheck(pool!, url));
      await guarded('full page', `warm-up ${i + 1}`, () => runFull(pool!, url));
      await guarded('bare', `warm-up ${i + 1}`, () => runBare(bare!, url));
    }
    const geo = await guarded('probe', 'page', () => probe(pool!, url));
    console.log('done');

    // Timed: interleaved (check, full, bare) so drift on the machine hits all three alike.
    const check: number[] = [];
    const checkInside: number[] = [];
    const full: number[] = [];
    const steps: FullTimes[] = [];
    const floor: number[] = [];
    process.stdout.write(`measuring: ${N} rounds of check, full page, bare (concurrency 1) `);
    for (let i = 0; i < N; i += 1) {
      const c = await guarded('check', `run ${i + 1}`, () => runCheck(pool!, url));
      check.push(c.total);
      checkInside.push(c.inside);
      const f = await guarded('full page', `run ${i + 1}`, () => runFull(pool!, url));
      full.push(f.total);
      steps.push(f.steps);
      floor.push(await guarded('bare', `run ${i + 1}`, () => runBare(bare!, url)));
      process.stdout.write('.');
    }
    console.log(' done');
    if (pool.browserLaunches !== 1)
      throw new BenchFailure(`the pool launched ${pool.browserLaunches} browsers: not a warm-pool measurement`);
    await pool.stop();
    pool = undefined;

    // Throughput: 2 in flight.
    const M = 2 * N;
    process.stdout.write(`throughput: ${M} pages each, 2 in flight … `);
    pool2 = new BrowserPool({ ...poolOptions, concurrency: 2 });
    await pool2.start();
    await Promise.all([0, 1].map((k) => guarded('check ×2', `warm-up ${k + 1}`, () => runCheck(pool2!, url))));
    await Promise.all([0, 1].map((k) => guarded('bare ×2', `warm-up ${k + 1}`, () => runBare(bare!, url))));
    const tputCheck = await throughput(M, 2, (i) => guarded('check ×2', `run ${i + 1}`, () => runCheck(pool2!, url)));
    const tputBare = await throughput(M, 2, (i) => guarded('bare ×2', `run ${i + 1}`, () => runBare(bare!, url)));
    console.log('done');
    console.log('');

    // Egress: nothing to the fixture site may have been refused.
    const refused = decisions.filter((d) => !d.allowed);
    const refusedSite = refused.filter((d) => d.host === siteHost.hostname && String(d.port) === siteHost.port);
    if (refusedSite.length > 0) throw new BenchFailure(`the egress proxy refused ${refusedSite.length} connections to the fixture site`);

    // ---- latency table
    const sCheck = stats(check);
    const sFull = stats(full);
    const sBare = stats(floor);
    console.log('Per-page latency, warm browser, one page at a time (ms)');
    console.log('');
    console.log(
      table(
        ['', 'p50', 'mean', 'p95', 'min', 'max'],
        [
          ['check           (ours: openPage)', ...[sCheck.p50, sCheck.mean, sCheck.p95, sCheck.min, sCheck.max].map(ms)],
          ['full page       (ours: open+present+text+6 shots)', ...[sFull.p50, sFull.mean, sFull.p95, sFull.min, sFull.max].map(ms)],
          ['bare goto+shot  (puppeteer-core, load, 1 shot)', ...[sBare.p50, sBare.mean, sBare.p95, sBare.min, sBare.max].map(ms)],
        ],
      ),
    );
    console.log('');
    console.log(`check / bare   p50: ${ratio(sCheck.p50, sBare.p50)}   mean: ${ratio(sCheck.mean, sBare.mean)}`);
    console.log(`full  / bare   p50: ${ratio(sFull.p50, sBare.p50)}   mean: ${ratio(sFull.mean, sBare.mean)}`);
    console.log('');

    // ---- throughput
    console.log('Throughput, 2 pages in flight (pool concurrency 2 vs 2 parallel pages on the bare browser)');
    console.log('');
    console.log(
      table(
        ['', 'pages/s', 'pages', 'seconds'],
        [
          ['check, pool concurrency 2', tputCheck.perSecond.toFixed(2), String(M), tputCheck.seconds.toFixed(1)],
          ['bare goto+shot, 2 parallel', tputBare.perSecond.toFixed(2), String(M), tputBare.seconds.toFixed(1)],
        ],
      ),
    );
    console.log('');
    console.log(`check / bare  pages/s: ${ratio(tputCheck.perSecond, tputBare.perSecond)}`);
    console.log('');

    // ---- what the extra work is
    console.log('What ours does that the bare script does not:');
    console.log(
      '  egress proxy hop   every request goes Chromium → EgressProxy (DNS + address check) → site, one extra loopback hop per connection',
    );
    console.log(
      '  fresh context      puppeteer-cluster opens an incognito browser context per task and closes it after (bare reuses the default context)',
    );
    console.log('  page setup         setBypassCSP, evaluateOnNewDocument, setViewport: three CDP round trips before the navigation');
    console.log(
      '  interception       setRequestInterception(true): every request pauses for a CDP round trip to Node (continue/abort by scheme)',
    );
    console.log(
      '  network idle       openPage waits for DOMContentLoaded, then for 300 ms without requests (up to 5 s); one in-page evaluate of signals',
    );
    console.log(
      '  consent            makePresentable tries up to 15 consent selectors ($ + isVisible per selector) and clicks the first visible one',
    );
    console.log(
      '  scroll-through     scrolls the whole page in 0.8-screen steps, two frames each, so lazy images load, then waits for network idle again',
    );
    console.log(
      '  overlays           walks every element under body (getComputedStyle) to hide fixed/sticky banners, bubbles and modals; counts images',
    );
    console.log(
      '  Readability        readText injects Mozilla Readability (~90 KB of source) on a clone of the DOM, then reads meta, headings, hreflang',
    );
    console.log(
      `  ${MAX_SHOTS} shots            shootSections scrolls to each section (page.evaluate(scrollTo)), waits two frames, and takes a PNG per screen (at most ${MAX_SHOTS}) instead of one`,
    );
    console.log('');

    // ---- where full page spends its time
    const pick = (k: keyof FullTimes) => steps.map((s) => s[k]);
    const poolOverhead = full.map(
      (t, i) => t - (steps[i].openPage + steps[i].makePresentable + steps[i].readText + steps[i].shootSections),
    );
    const scrollSteps = Math.ceil(Math.min(geo.scrollHeight, 30_000) / Math.max(200, Math.floor(geo.innerHeight * 0.8)));
    const shotsTaken = stats(pick('shots')).mean;
    const fixed: Record<string, number> = {
      'pool: context + page, close': 0,
      openPage: OPEN_IDLE_MS,
      makePresentable: scrollSteps * SCROLL_PAUSE_MS + PRESENT_IDLE_MS,
      readText: 0,
      shootSections: shotsTaken * SHOT_PAUSE_MS,
    };
    const rows: Array<[string, number[]]> = [
      ['pool: context + page, close', poolOverhead],
      ['openPage', pick('openPage')],
      ['makePresentable', pick('makePresentable')],
      ['readText', pick('readText')],
      ['shootSections', pick('shootSections')],
    ];
    console.log(
      `Where "full page" spends its time (ms; page ${geo.scrollHeight} px tall, ${scrollSteps} scroll steps, ${shotsTaken} shots of ${geo.innerHeight} px)`,
    );
    console.log('');
    console.log(
      table(
        ['step', 'p50', 'mean', 'p95', 'share of mean', 'waits by design (min)'],
        [
          ...rows.map(([name, samples]) => {
            const s = stats(samples);
            return [name, ms(s.p50), ms(s.mean), ms(s.p95), pct(s.mean, sFull.mean), fixed[name] ? ms(fixed[name]) : '-'];
          }),
          ['total', ms(sFull.p50), ms(sFull.mean), ms(sFull.p95), '100%', ms(Object.values(fixed).reduce((a, b) => a + b, 0))],
        ],
      ),
    );
    console.log('');
    console.log(
      `page probe: CSS scroll-behavior "${geo.scrollBehavior}"; one page.evaluate(scrollTo) as shootSections makes it: ${ms(geo.scrollToMs)} ms; ` +
        `lazy images still unloaded after makePresentable: ${geo.lazyLeft} of ${geo.lazyTotal}`,
    );
    const sInside = stats(checkInside);
    console.log('');
    console.log(
      `check: openPage itself p50 ${ms(sInside.p50)} ms (of which ≥ ${OPEN_IDLE_MS} ms is the network-idle wait), pool context + page + close p50 ${ms(stats(check.map((t, i) => t - checkInside[i])).p50)} ms`,
    );
    console.log(
      `egress proxy: ${decisions.length} connection decisions, ${refused.length} refused${refused.length ? ` (${[...new Set(refused.map((d) => `${d.host}:${d.port} ${d.reason}`))].join('; ')})` : ''}`,
    );
    console.log('');
    console.log(
      `All runs succeeded: ${N + WARMUP_RUNS} check, ${N + WARMUP_RUNS} full page (+1 probe), ${N + WARMUP_RUNS} bare; throughput ${M + 2} + ${M + 2}.`,
    );
    return 0;
  } catch (err) {
    console.error(err instanceof BenchFailure ? `\nBENCH FAILED: ${err.message}` : err);
    return 1;
  } finally {
    await pool?.stop().catch((err: Error) => console.error('pool stop failed:', err.message));
    await pool2?.stop().catch((err: Error) => console.error('pool stop failed:', err.message));
    await bare?.close().catch((err: Error) => console.error('bare browser close failed:', err.message));
    await proxy?.stop().catch((err: Error) => console.error('proxy stop failed:', err.message));
    await site?.close().catch((err: Error) => console.error('site close failed:', err.message));
  }
}

void main().then((code) => process.exit(code));
