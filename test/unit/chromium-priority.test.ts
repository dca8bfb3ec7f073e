/**
 * Chromium without CAP_SYS_NICE (lib/capture/chromium-priority.ts), on a real Chromium: launched as root the plain way
 * it raises some of its threads (browser, IO, compositor, audio) to a negative niceness; launched by the capture's
 * pool, through the setpriv wrapper, no thread of any of its processes has a negative niceness while a page loads, and
 * the pool still ends the browser it started. Run as root only: otherwise Chromium never had the capability.
 */
import fs from 'node:fs';
import type { Page } from 'puppeteer-core';
import { BrowserPool } from '../../lib/capture/browser-pool';
import { chromiumLaunchPath, SETPRIV } from '../../lib/capture/chromium-priority';
import { processAlive } from '../support/wait';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const asRoot = process.getuid?.() === 0 && fs.existsSync(SETPRIV);
const rootTest = asRoot ? test : test.skip;

function read(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return ''; // a process or thread that has just ended
  }
}

function tasksOf(pid: number): string[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

/** The browser's process and every process below it. */
function processTree(pid: number): number[] {
  const children = tasksOf(pid).flatMap((tid) => read(`/proc/${pid}/task/${tid}/children`).split(/\s+/).filter(Boolean).map(Number));
  return [pid, ...children.flatMap(processTree)];
}

/** The niceness of each thread of the browser's processes (field 19 of /proc/<pid>/task/<tid>/stat), by "pid/thread name". */
function threadNiceness(browserPid: number): Map<string, number> {
  const seen = new Map<string, number>();
  for (const pid of processTree(browserPid)) {
    for (const tid of tasksOf(pid)) {
      const stat = read(`/proc/${pid}/task/${tid}/stat`);
      if (!stat) continue;
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      seen.set(`${pid}/${tid}/${name}`, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    }
  }
  return seen;
}

/** A page that draws and computes while it loads, read every 50 ms from its start until a while after it has loaded. */
async function loadWhileWatching(page: Page, browserPid: number): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  const watch = (): void => {
    for (const [thread, nice] of threadNiceness(browserPid)) seen.set(thread, Math.min(nice, seen.get(thread) ?? nice));
  };
  const timer = setInterval(watch, 50);
  try {
    await page.setContent(
      `<style>@keyframes s{to{transform:rotate(1turn)}}div{animation:s 1s infinite}</style><div>busy</div>
       <script>const t = Date.now(); while (Date.now() - t < 300) {}</script>`,
    );
    await new Promise((resolve) => setTimeout(resolve, 700));
  } finally {
    clearInterval(timer);
  }
  watch();
  return seen;
}

const raised = (seen: Map<string, number>) => [...seen].filter(([, nice]) => nice < 0).map(([thread, nice]) => `${thread}: ${nice}`);

rootTest('launched plainly as root, Chromium raises some of its threads above the others (the reason for the wrapper)', async () => {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    pipe: true,
    headless: true,
    args: ['--no-sandbox', '--headless=new'],
  });
  try {
    const seen = await loadWhileWatching(await browser.newPage(), browser.process()!.pid!);
    expect(raised(seen).length).toBeGreaterThan(0);
  } finally {
    await browser.close();
  }
});

rootTest(
  "the capture pool's Chromium, launched through the wrapper, has no thread at a negative niceness, and is ended by stop()",
  async () => {
    expect(await chromiumLaunchPath(CHROMIUM)).not.toBe(CHROMIUM);
    const pool = new BrowserPool({
      executablePath: CHROMIUM,
      concurrency: 1,
      pagesPerBrowser: 10,
      taskTimeoutMs: 30_000,
      // Nothing here leaves the browser: the page is set from a string.
      proxyUrl: 'http://127.0.0.1:9',
    });
    await pool.start();
    let browserPid: number | undefined;
    try {
      const seen = await pool.run((page) => {
        browserPid = pool.currentBrowserPid();
        return loadWhileWatching(page, browserPid!);
      });
      // The browser and its renderer, GPU and utility processes, each with its threads, were read.
      expect(new Set([...seen.keys()].map((thread) => thread.split('/')[0])).size).toBeGreaterThanOrEqual(3);
      expect(seen.size).toBeGreaterThan(30);
      expect(raised(seen)).toEqual([]);
      // exec keeps the pid: the process puppeteer started is Chromium itself, not a shell waiting for it.
      expect(read(`/proc/${browserPid}/cmdline`).split('\0')[0]).toMatch(/chrom/);
      // …and holds CAP_SYS_NICE (bit 23) neither in effect nor in its bounding set.
      const status = read(`/proc/${browserPid}/status`);
      for (const set of ['CapEff', 'CapBnd']) {
        const bits = BigInt(`0x${new RegExp(`^${set}:\\s+([0-9a-f]+)$`, 'm').exec(status)?.[1] ?? '0'}`);
        expect(`${set} sys_nice ${(bits >> 23n) & 1n}`).toBe(`${set} sys_nice 0`);
      }
      expect(status).toMatch(/^CapEff:/m);
    } finally {
      await pool.stop();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(processAlive(browserPid!)).toBe(false);
  },
);
