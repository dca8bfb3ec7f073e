/**
 * Overlays that never cover the page, through the real renderer (lib/render/render-video.ts: the screens composed by ffmpeg, editly
 * in its child process, draft quality): a synthetic page full of known words, rendered with a headline band and
 * burned captions; frames at the start and the end of the Ken Burns zoom are read with tesseract. No word of the
 * page picture may touch the band's or the caption box's rectangle, both measured on the frame's pixels (the band
 * by the brand colour, the box by its dark fill), and the page picture itself (its white) lies between them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toWebVtt } from '../../lib/voice/captions';
import type { ShotContent } from '../../lib/render/framing';
import { frameAt } from '../../lib/render/contact-sheet';
import { captionBoxHeight, MAX_CAPTION_LINES, screenLayout } from '../../lib/render/overlay-layout';
import { renderVideo } from '../../lib/render/render-video';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { PLATFORM_UI_INSETS, PLATFORMS, type PlatformName } from '../../config/catalog';
import { fold, readWords, type OcrWord } from '../support/ocr';
import { writeSilence } from '../support/silence';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createCanvas } = require('canvas') as typeof import('canvas');

/** The page's words: none of them is a word of the headline or the captions. */
const PAGE_WORDS = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
  'mike',
  'november',
  'oscar',
  'papa',
  'quebec',
  'romeo',
  'sierra',
  'tango',
  'uniform',
  'victor',
  'whiskey',
  'yankee',
  'zulu',
];
const HEADLINE = 'Overlay headline stays above';
const CAPTION = 'Captions are spoken here\nbelow the page picture';
/** A brand colour found nowhere else in the frame: the band is found by it. */
const PRIMARY = '#c026d3';
const SCENE_SECONDS = 3;
const FPS = 25; // draft

interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * A page screenshot: an announcement bar and a badge above the section (outside the content box), then a heading
 * and lines of the page's words to the bottom, in blue on white. Returns the shot as the capture records it.
 */
function makePage(file: string, size: { width: number; height: number; pixelRatio: number; column: number }): ShotContent {
  const { width, height, pixelRatio: pr, column } = size;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  const left = Math.round((width - column) / 2);
  ctx.fillStyle = '#1f2937';
  ctx.fillRect(0, 0, width, 40 * pr);
  ctx.fillStyle = '#ffffff';
  ctx.font = `${14 * pr}px "Noto Sans"`;
  ctx.fillText('Announcement: limited offer this week', left, 26 * pr);
  ctx.fillStyle = '#1d4ed8';
  ctx.font = `bold ${13 * pr}px "Noto Sans"`;
  ctx.fillText('NEW FEATURE', left, 80 * pr);
  const top = 100 * pr;
  ctx.font = `bold ${30 * pr}px "Noto Sans"`;
  ctx.fillText('Tango Whiskey Foxtrot', left, top + 32 * pr);
  ctx.font = `${16 * pr}px "Noto Sans"`;
  let y = top + 80 * pr;
  let n = 0;
  while (y < height - 40 * pr) {
    let line = '';
    for (;;) {
      const next = `${line}${line ? ' ' : ''}${PAGE_WORDS[n % PAGE_WORDS.length]}`;
      if (ctx.measureText(next).width > column) break;
      line = next;
      n += 7; // a different sequence of words on every line
    }
    ctx.fillText(line, left, y);
    y += 26 * pr;
  }
  fs.writeFileSync(file, canvas.toBuffer('image/png'));
  return { width, height, pixelRatio: pr, content: { x: left, y: top, width: column, height: y - 26 * pr + 8 * pr - top } };
}

/** RGB pixels of a PNG frame. */
function rgb(png: string, width: number, height: number): Buffer {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', png, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 64 * 2 ** 20 });
  expect(raw.length).toBe(width * height * 3);
  return raw;
}

/** The bounding box of the rows where at least `share` of the pixels pass `test` (and of those pixels' columns). */
function rowsBox(
  pixels: Buffer,
  width: number,
  height: number,
  share: number,
  test: (r: number, g: number, b: number) => boolean,
): Rect | null {
  let box: Rect | null = null;
  for (let y = 0; y < height; y += 1) {
    let count = 0;
    let first = -1;
    let last = -1;
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 3;
      if (test(pixels[i], pixels[i + 1], pixels[i + 2])) {
        count += 1;
        if (first < 0) first = x;
        last = x;
      }
    }
    if (count < share * width) continue;
    box = box
      ? { left: Math.min(box.left, first), top: box.top, right: Math.max(box.right, last + 1), bottom: y + 1 }
      : { left: first, top: y, right: last + 1, bottom: y + 1 };
  }
  return box;
}

/**
 * The runs of rows (top, bottom exclusive) where at least `share` of the pixels outside `masks` pass `test`; runs
 * apart by `gap` rows or less are one.
 */
function rowRuns(
  pixels: Buffer,
  size: { width: number; height: number },
  share: number,
  test: (r: number, g: number, b: number) => boolean,
  masks: Rect[],
  gap = 2,
) {
  const { width, height } = size;
  const runs: Array<{ top: number; bottom: number }> = [];
  for (let y = 0; y < height; y += 1) {
    let count = 0;
    for (let x = 0; x < width; x += 1) {
      if (masks.some((m) => x >= m.left && x < m.right && y >= m.top && y < m.bottom)) continue;
      const i = (y * width + x) * 3;
      if (test(pixels[i], pixels[i + 1], pixels[i + 2])) count += 1;
    }
    if (count < share * width) continue;
    const last = runs.at(-1);
    if (last && y - last.bottom <= gap) last.bottom = y + 1;
    else runs.push({ top: y, bottom: y + 1 });
  }
  return runs;
}

const intersects = (w: OcrWord, r: Rect) => w.left < r.right && w.left + w.width > r.left && w.top < r.bottom && w.top + w.height > r.top;
const [pr, pg, pb] = [0xc0, 0x26, 0xd3];
const isBand = (r: number, g: number, b: number) => Math.abs(r - pr) + Math.abs(g - pg) + Math.abs(b - pb) < 90;
/** The caption box's fill: black at 72 % over the backdrop, a dark neutral grey (the page's text is blue). */
const isCaptionFill = (r: number, g: number, b: number) => r < 110 && g < 110 && b < 110 && Math.max(r, g, b) - Math.min(r, g, b) < 24;
/** The page's white: the backdrop is the page blurred and darkened, never this bright. */
const isPageWhite = (r: number, g: number, b: number) => r > 246 && g > 246 && b > 246;

const CASES: Array<{
  platform: PlatformName;
  page: { width: number; height: number; pixelRatio: number; column: number };
  textPx?: number;
}> = [
  // A phone capture on 9:16; a desktop capture on 16:9 with its type measured (16 px: the section shown as far
  // down as that type stays legible).
  { platform: 'tiktok', page: { width: 780, height: 2400, pixelRatio: 2, column: 680 } },
  { platform: 'youtube', page: { width: 1440, height: 1800, pixelRatio: 1, column: 1000 }, textPx: 16 },
];

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'overlay-clearance-'));
});
afterAll(() => {
  // OVERLAY_KEEP_FRAMES=1 keeps the frames, to look at them.
  if (!process.env.OVERLAY_KEEP_FRAMES) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`frames kept in ${tmp}`);
});

test.each(CASES)(
  'on $platform no word of the page is under the headline band or the caption box, at the start and the end of the zoom',
  async ({ platform, page, textPx }) => {
    const dir = path.join(tmp, platform);
    fs.mkdirSync(dir, { recursive: true });
    const shot: ShotContent = { ...makePage(path.join(dir, 'page.png'), page), ...(textPx ? { textPx } : {}) };
    writeSilence(path.join(dir, 'voice.wav'), SCENE_SECONDS);
    fs.writeFileSync(path.join(dir, 'captions.vtt'), toWebVtt([{ start: 0, end: SCENE_SECONDS, text: CAPTION }]));
    const frame = { ...PLATFORMS[platform] };
    const storyboard: Storyboard = {
      version: 1,
      campaignId: 'overlay-clearance',
      videoId: `overlay-${platform}`,
      language: 'en',
      platform,
      frame,
      direction: 'ltr',
      font: 'Noto Sans',
      brand: {
        name: 'Clearance',
        domain: 'clearance.example',
        primary: PRIMARY,
        background: '#ffffff',
        text: '#111827',
        palette: [PRIMARY],
        logoUrl: null,
      },
      scriptSource: 'localized_page',
      scenes: [
        {
          index: 0,
          kind: 'screen',
          screenshotKey: 'page.png',
          screenshotContent: shot,
          onScreenText: HEADLINE,
          narration: [{ text: CAPTION.replace('\n', ' '), language: 'en' }],
          audioKey: 'voice.wav',
          startSeconds: 0,
          durationSeconds: SCENE_SECONDS,
        },
      ],
      narrationKey: 'voice.wav',
      captionsKey: 'captions.vtt',
      totalSeconds: SCENE_SECONDS,
      closing: { ctaLabel: 'Try it', domain: 'clearance.example' },
    };
    const workDir = path.join(dir, 'work');
    fs.mkdirSync(workDir);
    const { outputPath, probe } = await renderVideo({
      storyboard,
      workDir,
      quality: 'draft',
      memoryLimitBytes: 3 * 2 ** 30,
      timeoutMs: 120_000,
      fetchInput: async (key, local) => fs.copyFileSync(path.join(dir, key), local),
    });
    const { width, height } = probe;
    // The band fades in over the first sixth of the clip: its rectangle is measured once it is drawn whole, and
    // holds for the whole clip (it does not move). The zoom goes in: the end is its closest point.
    const moments = { start: 0, settled: SCENE_SECONDS / 6 + 0.1, end: SCENE_SECONDS - 1.5 / FPS };
    const frames: Record<string, string> = {};
    for (const [name, seconds] of Object.entries(moments)) frames[name] = await frameAt(outputPath, seconds, path.join(dir, `${name}.png`));
    const settled = rgb(frames.settled, width, height);
    const band = rowsBox(settled, width, height, 0.3, isBand);
    const captions = rowsBox(settled, width, height, 0.25, isCaptionFill);
    expect(band).not.toBeNull();
    expect(captions).not.toBeNull();
    expect(band!.bottom).toBeLessThan(height / 2);
    expect(captions!.top).toBeGreaterThan(height / 2);
    // Drawn where the layout that the page was framed by says (lib/render/overlay-layout.ts), to a pixel or two of
    // the encoder's blur: one source of truth.
    const layout = screenLayout(
      { width, height, uiInsets: PLATFORM_UI_INSETS[platform], captions: 'burned', language: 'en' },
      { headline: HEADLINE },
    );
    const box = layout.headline!.box;
    expect(Math.abs(band!.top - box.y)).toBeLessThanOrEqual(2);
    expect(Math.abs(band!.bottom - (box.y + box.height))).toBeLessThanOrEqual(2);
    expect(Math.abs(captions!.bottom - layout.captions!.bottom)).toBeLessThanOrEqual(2);
    expect(captions!.top).toBeGreaterThanOrEqual(layout.captions!.bottom - captionBoxHeight(layout.captions!, MAX_CAPTION_LINES) - 2);

    for (const name of ['start', 'settled', 'end']) {
      const pixels = rgb(frames[name], width, height);
      // The page picture: one run of rows with the page's white (a line of its text leaves some white in a row,
      // the blurred backdrop none), between the band and the caption box — the white of their own words aside.
      const white = rowRuns(pixels, { width, height }, 0.08, isPageWhite, [band!, captions!]);
      expect({ frame: name, runs: white.length }).toEqual({ frame: name, runs: 1 });
      expect({ frame: name, pageTop: white[0].top > band!.bottom }).toEqual({ frame: name, pageTop: true });
      expect({ frame: name, pageBottom: white[0].bottom <= captions!.top }).toEqual({ frame: name, pageBottom: true });

      const words = await readWords(frames[name], 'en', { minConfidence: 60, scales: [1, 2] });
      const pageWords = words.filter((w) => PAGE_WORDS.includes(fold(w.text)));
      // Enough of the page is read for the check to mean something…
      expect(pageWords.length).toBeGreaterThanOrEqual(15);
      // …and none of it is under our overlays.
      const under = pageWords.filter((w) => intersects(w, band!) || intersects(w, captions!)).map((w) => `${w.text}@${w.left},${w.top}`);
      expect({ frame: name, under }).toEqual({ frame: name, under: [] });
    }
    // The overlays are ours and readable: the headline's words are read inside the band (in its rows alone: on the
    // whole frame tesseract overlooks white type on colour).
    const settledWords = await readWords(frames.settled, 'en', {
      minConfidence: 60,
      rows: { top: band!.top - 4, bottom: band!.bottom + 4 },
      scales: [1, 2],
    });
    const headlineWords = settledWords.filter((w) => ['overlay', 'headline', 'stays', 'above'].includes(fold(w.text)));
    expect(headlineWords.length).toBeGreaterThanOrEqual(2);
    for (const w of headlineWords) expect(intersects(w, band!)).toBe(true);
  },
  180_000,
);
