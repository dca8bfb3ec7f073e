/**
 * The moving camera, through the real renderer (lib/render/render-video.ts, draft quality, one render for every
 * assertion): a section much taller than the page's zone scrolls (consecutive frames differ by a vertical shift,
 * found by row correlation, upwards and consistent, none before the scroll starts); the paragraph the narration
 * reads is marked (the highlight's outline, found by its colour in a frame, encloses that paragraph's words as
 * tesseract reads them and none of its neighbours'); and the title card's words keep drifting after their rise.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toWebVtt } from '../../lib/voice/captions';
import type { ShotContent } from '../../lib/render/framing';
import { SCROLL_LEAD } from '../../lib/render/camera';
import { frameAt } from '../../lib/render/contact-sheet';
import { renderVideo } from '../../lib/render/render-video';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { fold, readWords } from '../support/ocr';
import { writeSilence } from '../support/silence';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createCanvas } = require('canvas') as typeof import('canvas');

/** Each paragraph's own words: tesseract's reading tells the paragraphs apart. */
const PARAGRAPHS = [
  ['red', 'green', 'blue', 'yellow', 'purple', 'orange'],
  ['tiger', 'zebra', 'otter', 'camel', 'horse', 'rabbit'],
  ['paris', 'london', 'berlin', 'madrid', 'vienna', 'prague'],
  ['copper', 'silver', 'nickel', 'cobalt', 'iron', 'zinc'],
  ['oak', 'maple', 'birch', 'cedar', 'willow', 'spruce'],
  ['apple', 'banana', 'cherry', 'mango', 'peach', 'lemon'],
  ['violin', 'guitar', 'piano', 'flute', 'drums', 'cello'],
  ['mars', 'venus', 'saturn', 'jupiter', 'neptune', 'pluto'],
];
const NARRATED = 5;
const TITLE_SECONDS = 2.4;
const SCREEN_SECONDS = 6;

/** A phone capture (pixel ratio 2) of one tall section: a heading, then the paragraphs, each recorded as a focus box. */
function makePage(file: string): ShotContent {
  const [width, height, pr, column] = [780, 2400, 2, 680];
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  const left = (width - column) / 2;
  const top = 60 * pr;
  ctx.fillStyle = '#1e3a8a';
  ctx.font = `bold ${28 * pr}px "Noto Sans"`;
  ctx.fillText('Section heading', left, top + 30 * pr);
  const focus: NonNullable<ShotContent['focus']> = [{ box: { x: left, y: top, width: column, height: 40 * pr }, text: 'Section heading' }];
  ctx.font = `${16 * pr}px "Noto Sans"`;
  let y = top + 70 * pr;
  for (const words of PARAGRAPHS) {
    const lines: string[] = [];
    for (let i = 0; i < 3; i += 1) lines.push([0, 1, 2, 3, 4, 5].map((k) => words[(k + i * 2) % words.length]).join(' '));
    const blockTop = y;
    for (const line of lines) {
      ctx.fillText(line, left, y + 18 * pr);
      y += 26 * pr;
    }
    focus.push({ box: { x: left, y: blockTop, width: column, height: y - blockTop }, text: lines.join(' ') });
    y += 22 * pr;
  }
  fs.writeFileSync(file, canvas.toBuffer('image/png'));
  return { width, height, pixelRatio: pr, textPx: 16, content: { x: left, y: top, width: column, height: y - top }, focus };
}

function pixels(png: string, format: 'gray' | 'rgb24'): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', png, '-f', 'rawvideo', '-pix_fmt', format, '-'], { maxBuffer: 64 * 2 ** 20 });
}

/**
 * The vertical shift (pixels, positive: the picture moved up) that best maps frame `a` onto frame `b`, comparing
 * grey rows `rows` over columns `cols`: b's row y − d matches a's row y.
 */
function verticalShift(a: Buffer, b: Buffer, width: number, rows: [number, number], cols: [number, number], range = 80): number {
  let best = { shift: 0, cost: Infinity };
  for (let d = -range; d <= range; d += 1) {
    let cost = 0;
    let count = 0;
    for (let y = rows[0]; y < rows[1]; y += 1) {
      const yb = y - d;
      if (yb < rows[0] - range || yb < 0) continue;
      for (let x = cols[0]; x < cols[1]; x += 2) {
        cost += Math.abs(a[y * width + x] - b[yb * width + x]);
        count += 1;
      }
    }
    if (count && cost / count < best.cost) best = { shift: d, cost: cost / count };
  }
  return best.shift;
}

/** The highlight's outline: highlighter yellow (the wash over white is pale, the page's ink blue). */
const isOutline = (r: number, g: number, b: number) => r > 190 && g > 150 && b < 120 && r - b > 100;

let tmp: string;
let video: string;
let size: { width: number; height: number };
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'camera-motion-'));
  const shot = makePage(path.join(tmp, 'page.png'));
  writeSilence(path.join(tmp, 'title.wav'), TITLE_SECONDS);
  writeSilence(path.join(tmp, 'screen.wav'), SCREEN_SECONDS);
  writeSilence(path.join(tmp, 'voice.wav'), TITLE_SECONDS + SCREEN_SECONDS);
  const narration = PARAGRAPHS[NARRATED].join(' ');
  fs.writeFileSync(
    path.join(tmp, 'captions.vtt'),
    toWebVtt([{ start: TITLE_SECONDS, end: TITLE_SECONDS + SCREEN_SECONDS, text: 'Fruit of the page' }]),
  );
  const storyboard: Storyboard = {
    version: 1,
    campaignId: 'camera-motion',
    videoId: 'camera-motion',
    language: 'en',
    platform: 'tiktok',
    frame: { width: 1080, height: 1920 },
    direction: 'ltr',
    font: 'Noto Sans',
    brand: {
      name: 'Camera',
      domain: 'camera.example',
      primary: '#0f766e',
      background: '#ffffff',
      text: '#111827',
      palette: [],
      logoUrl: null,
    },
    scriptSource: 'localized_page',
    scenes: [
      {
        index: 0,
        kind: 'title',
        screenshotKey: null,
        onScreenText: 'A camera that moves',
        narration: [{ text: 'A camera that moves.', language: 'en' }],
        audioKey: 'title.wav',
        startSeconds: 0,
        durationSeconds: TITLE_SECONDS,
      },
      {
        index: 1,
        kind: 'screen',
        screenshotKey: 'page.png',
        screenshotContent: shot,
        onScreenText: 'A tall section',
        narration: [{ text: narration, language: 'en' }],
        audioKey: 'screen.wav',
        startSeconds: TITLE_SECONDS,
        durationSeconds: SCREEN_SECONDS,
      },
    ],
    narrationKey: 'voice.wav',
    captionsKey: 'captions.vtt',
    totalSeconds: TITLE_SECONDS + SCREEN_SECONDS,
    closing: { ctaLabel: 'Try it', domain: 'camera.example' },
  };
  const workDir = path.join(tmp, 'work');
  fs.mkdirSync(workDir);
  const rendered = await renderVideo({
    storyboard,
    workDir,
    quality: 'draft',
    memoryLimitBytes: 3 * 2 ** 30,
    timeoutMs: 120_000,
    fetchInput: async (key, local) => fs.copyFileSync(path.join(tmp, key), local),
  });
  video = rendered.outputPath;
  size = { width: rendered.probe.width, height: rendered.probe.height };
}, 180_000);
afterAll(() => {
  // CAMERA_KEEP_FRAMES=1 keeps the frames, to look at them.
  if (!process.env.CAMERA_KEEP_FRAMES) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`frames kept in ${tmp}`);
});

const grey = async (seconds: number, name: string) => pixels(await frameAt(video, seconds, path.join(tmp, `${name}.png`)), 'gray');

test('a tall section scrolls up, eased, in step with its scene, and stands still before the scroll starts', async () => {
  const { width, height } = size;
  // The page's zone on a 540×960 draft of a vertical frame lies well inside these rows; the page's column in these columns.
  const rows: [number, number] = [Math.round(height * 0.3), Math.round(height * 0.55)];
  const cols: [number, number] = [Math.round(width * 0.2), Math.round(width * 0.8)];
  const at = (share: number) => TITLE_SECONDS + SCREEN_SECONDS * share;
  const step = 0.2;
  const shifts: number[] = [];
  for (const share of [0.35, 0.45, 0.55, 0.65])
    shifts.push(verticalShift(await grey(at(share), `a${share}`), await grey(at(share) + step, `b${share}`), width, rows, cols));
  // Upwards in every pair, by more than the zoom's drift, and never faster than 0.2 frame heights a second.
  for (const shift of shifts) {
    expect(shift).toBeGreaterThanOrEqual(3);
    expect(shift).toBeLessThanOrEqual(Math.ceil(0.2 * height * step) + 2);
  }
  // Before the scroll starts (the first SCROLL_LEAD of the clip, the fade from the title past), only the slow zoom.
  const early = at(SCROLL_LEAD * 0.9);
  const still = verticalShift(await grey(early - 0.2, 'still-a'), await grey(early, 'still-b'), width, rows, cols);
  expect(Math.abs(still)).toBeLessThanOrEqual(1);
}, 60_000);

test('the paragraph the narration reads is marked: the highlight encloses its words and no other paragraph’s', async () => {
  const { width, height } = size;
  // After the scroll has ended (it stops SCROLL_LEAD before the clip's end).
  const png = await frameAt(video, TITLE_SECONDS + SCREEN_SECONDS * (1 - SCROLL_LEAD / 2), path.join(tmp, 'marked.png'));
  const rgb = pixels(png, 'rgb24');
  let box: { left: number; top: number; right: number; bottom: number } | null = null;
  for (let y = 0; y < height; y += 1)
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 3;
      if (!isOutline(rgb[i], rgb[i + 1], rgb[i + 2])) continue;
      box = box
        ? { left: Math.min(box.left, x), top: Math.min(box.top, y), right: Math.max(box.right, x + 1), bottom: Math.max(box.bottom, y + 1) }
        : { left: x, top: y, right: x + 1, bottom: y + 1 };
    }
  expect(box).not.toBeNull();
  const inside = (w: { left: number; top: number; width: number; height: number }) =>
    w.left >= box!.left && w.top >= box!.top && w.left + w.width <= box!.right && w.top + w.height <= box!.bottom;
  // Read on the red channel: the mark (yellow: red high) vanishes there, the page's blue ink stays dark —
  // tesseract skips text on a coloured panel.
  const red = path.join(tmp, 'marked-red.png');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', png, '-vf', 'extractplanes=r', red]);
  const words = await readWords(red, 'en', { minConfidence: 60, scales: [1, 2] });
  const paragraphOf = (text: string) => PARAGRAPHS.findIndex((words) => words.includes(fold(text)));
  const narrated = words.filter((w) => paragraphOf(w.text) === NARRATED);
  const others = words.filter((w) => paragraphOf(w.text) >= 0 && paragraphOf(w.text) !== NARRATED);
  // The narrated paragraph is on screen and read, and so are its neighbours (the check means something)…
  expect(narrated.length).toBeGreaterThanOrEqual(6);
  expect(others.length).toBeGreaterThanOrEqual(6);
  // …its words all inside the mark, none of another paragraph's.
  expect(narrated.filter((w) => !inside(w)).map((w) => w.text)).toEqual([]);
  expect(others.filter((w) => inside(w)).map((w) => w.text)).toEqual([]);
  // A rectangle around the paragraph, not a stray pixel: as wide as the column, about three lines high.
  expect(box!.right - box!.left).toBeGreaterThan(width * 0.6);
  expect(box!.bottom - box!.top).toBeLessThan(height * 0.2);
}, 60_000);

test('the title card’s words keep moving after they have risen into place', async () => {
  const { width, height } = size;
  const rows: [number, number] = [Math.round(height * 0.25), Math.round(height * 0.7)];
  const shift = verticalShift(await grey(0.8, 'card-a'), await grey(2.0, 'card-b'), width, rows, [0, width], 30);
  expect(shift).toBeGreaterThanOrEqual(2);
}, 60_000);

export {};
