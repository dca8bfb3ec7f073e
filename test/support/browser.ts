/**
 * Debian's Chromium driven by puppeteer-core, launched the one way the dashboard's browser tests use it (no sandbox in
 * the test machine's container, no GPU, nothing fetched in the background, videos allowed to play unmuted).
 */
import type { Browser } from 'puppeteer-core';

export async function launchBrowser(): Promise<Browser> {
  const puppeteer = (await import('puppeteer-core')).default;
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}
