/**
 * The Chromium start deadline (lib/capture/browser-pool.ts): over a pipe puppeteer has none of its own,
 * so a browser that never answers would hold a node's start for the 180 s protocol timeout. Real
 * puppeteer.launch, with an executable that starts and never speaks on the pipe in Chromium's place.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LaunchOptions } from 'puppeteer-core';
import { launchWithDeadline } from '../../lib/capture/browser-pool';
import { processAlive } from '../support/wait';

let dir: string;
let silentBrowser: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-launch-'));
  silentBrowser = path.join(dir, 'silent-browser');
  // Writes its pid, then waits without ever answering on the DevTools pipe.
  fs.writeFileSync(silentBrowser, `#!/bin/sh\necho $$ >> "${dir}/pids"\nexec sleep 600\n`, { mode: 0o755 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a start that never answers is killed at the deadline, tried once more, then fails with a clear error', async () => {
  const puppeteer = (await import('puppeteer-core')).default;
  let calls = 0;
  const started = Date.now();
  const launch = (opts: LaunchOptions) => {
    calls += 1;
    return puppeteer.launch(opts);
  };
  await expect(launchWithDeadline(launch, { executablePath: silentBrowser, pipe: true, headless: true }, 1500)).rejects.toThrow(
    'Chromium did not start within 1.5 s',
  );
  const took = Date.now() - started;
  expect(calls).toBe(2);
  expect(took).toBeGreaterThanOrEqual(3000);
  expect(took).toBeLessThan(30_000); // far below the 180 s protocol timeout it would otherwise wait for
  const pids = fs.readFileSync(path.join(dir, 'pids'), 'utf8').trim().split('\n').map(Number);
  expect(pids).toHaveLength(2);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(pids.filter(processAlive)).toEqual([]);
});

test('a real Chromium starts within the deadline and is returned as is', async () => {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await launchWithDeadline(
    (opts) => puppeteer.launch(opts),
    {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      pipe: true,
      headless: true,
      args: ['--no-sandbox', '--headless=new'],
    },
    30_000,
  );
  try {
    expect(await browser.version()).toMatch(/Chrom/);
    // The deadline's timer is gone: the browser is still up well after a short deadline would have fired.
    expect(browser.connected).toBe(true);
  } finally {
    await browser.close();
  }
});

test('an error that is not the deadline is raised at once, without a second try', async () => {
  let calls = 0;
  await expect(
    launchWithDeadline(
      async () => {
        calls += 1;
        throw new Error('no such executable');
      },
      {},
      5000,
    ),
  ).rejects.toThrow('no such executable');
  expect(calls).toBe(1);
});
