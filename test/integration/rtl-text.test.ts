/**
 * Right-to-left words drawn whole, read back as a customer would: an Arabic 9:16 video (real renderer, editly in its
 * child process, full quality) whose title card's line under the name wraps, whose screen's headline band wraps,
 * whose two-line caption cues are burned in, and whose closing call to action wraps onto three lines; tesseract
 * (ara) reads each on a frame, and every word of each line must be there (on a card's large bold type, all but one). fabric 5 draws a right-to-left line
 * narrower than its text object from the wrong edge: without lib/render/editly-child.ts's line-by-line drawing, a
 * cue's second line showed only its last letters at the box's edge, the band's second line likewise, and a card's
 * wrapped lines went missing but for a few letters at the frame's edge (each seen on frames of this very video).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from '../../lib/voice/exec';
import { frameAt } from '../../lib/render/contact-sheet';
import { captionLayout, headlineLayout } from '../../lib/render/overlay-layout';
import { renderVideo } from '../../lib/render/render-video';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { toWebVtt } from '../../lib/voice/captions';
import { PLATFORM_UI_INSETS, PLATFORMS } from '../../config/catalog';
import { fold, readWords, type OcrWord } from '../support/ocr';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createCanvas } = require('canvas') as typeof import('canvas');

const PLATFORM = 'tiktok';
const { width: WIDTH, height: HEIGHT } = PLATFORMS[PLATFORM];
const SCENE_SECONDS = 4;

const SUBTITLE = 'منصة تساعد فرق المبيعات الصغيرة على متابعة العملاء والصفقات كل يوم';
const HEADLINE = 'العنوان الأول المميز للغاية. سيذهل عقلك تماماً.';
const CTA = 'جرب الخدمة المجانية اليوم مع فريقك الصغير بدون رسوم شهرية';
/** One two-line cue a scene, shown over the whole scene. */
const CUES = [
  'وجه الإنسان هو جزء معقّد\nومتميّز جداً من جسمه.',
  'زاد 126% في الولايات المتحدة\nالأمريكية وحدها بين عامي 2002 و2009م.',
  'اكتشف الفرق بنفسك\nوشارك تجربتك مع رفاق العمل',
];

let tmp: string;
let video: string;

/** A plain page: grey bars on white (no text of its own for tesseract to read). */
function makePage(file: string): void {
  const canvas = createCanvas(780, 1600);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, 780, 1600);
  ctx.fillStyle = '#9ca3af';
  for (let y = 100; y < 1540; y += 52) ctx.fillRect(60, y, 660, 20);
  fs.writeFileSync(file, canvas.toBuffer('image/png'));
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rtl-text-'));
  const seconds = SCENE_SECONDS * 3;
  // The voice is not what is looked at here: the scenes' sound is silence of their length.
  await run(
    'ffmpeg',
    ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=22050:cl=mono', '-t', String(seconds), path.join(tmp, 'voice.wav')],
    {
      timeoutMs: 30_000,
    },
  );
  makePage(path.join(tmp, 'page.png'));
  const cues = CUES.map((text, i) => ({ start: i * SCENE_SECONDS, end: (i + 1) * SCENE_SECONDS, text }));
  fs.writeFileSync(path.join(tmp, 'captions.vtt'), toWebVtt(cues));
  const scene = { narration: [{ text: 'نص', language: 'ar' as const }], audioKey: 'voice.wav', durationSeconds: SCENE_SECONDS };
  const storyboard: Storyboard = {
    version: 1,
    campaignId: 'rtl-text',
    videoId: 'rtl-text-tiktok',
    language: 'ar',
    platform: PLATFORM,
    frame: { ...PLATFORMS[PLATFORM] },
    direction: 'rtl',
    font: 'Noto Sans Arabic',
    brand: {
      name: 'شرائح',
      domain: 'example.com',
      primary: '#6f42c1',
      background: '#ffffff',
      text: '#111827',
      palette: ['#6f42c1'],
      logoUrl: null,
    },
    scriptSource: 'localized_page',
    scenes: [
      { ...scene, index: 0, kind: 'title', screenshotKey: null, onScreenText: SUBTITLE, startSeconds: 0 },
      {
        ...scene,
        index: 1,
        kind: 'screen',
        screenshotKey: 'page.png',
        screenshotContent: { width: 780, height: 1600, pixelRatio: 2, content: { x: 40, y: 60, width: 700, height: 1500 } },
        onScreenText: HEADLINE,
        startSeconds: SCENE_SECONDS,
      },
      { ...scene, index: 2, kind: 'closing', screenshotKey: null, onScreenText: CTA, startSeconds: 2 * SCENE_SECONDS },
    ],
    narrationKey: 'voice.wav',
    captionsKey: 'captions.vtt',
    totalSeconds: seconds,
    closing: { ctaLabel: CTA, domain: 'example.com' },
  };
  const workDir = path.join(tmp, 'work');
  fs.mkdirSync(workDir);
  const rendered = await renderVideo({
    storyboard,
    workDir,
    quality: 'full',
    memoryLimitBytes: 3 * 2 ** 30,
    timeoutMs: 300_000,
    fetchInput: async (key, local) => fs.copyFileSync(path.join(tmp, key), local),
  });
  video = rendered.outputPath;
}, 360_000);

afterAll(() => {
  // RTL_KEEP_FRAMES=1 keeps the frames, to look at them.
  if (!process.env.RTL_KEEP_FRAMES) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`frames kept in ${tmp}`);
});

/** Arabic folded as tesseract reads it: no marks (fold), alef forms as bare alef, alef maqsura as ya, ta marbuta as ha. */
const arabic = (text: string) => fold(text).replace(/[أإآ]/g, 'ا').replace(/ى/g, 'ي').replace(/ة/g, 'ه');

/** The words of `line` (of three letters or more, without figures) that are not among those read. */
function unread(line: string, words: OcrWord[]): string[] {
  const read = arabic(words.map((w) => w.text).join(' '));
  return line
    .split(/\s+/)
    .map(arabic)
    .filter((word) => [...word].length >= 3 && !/\p{N}/u.test(word))
    .filter((word) => !read.includes(word));
}

/** The words tesseract reads on the frame `seconds` into the video, in rows [top, bottom), at full and half size. */
async function readAt(seconds: number, rows: { top: number; bottom: number }): Promise<OcrWord[]> {
  const frame = await frameAt(video, seconds, path.join(tmp, `frame-${seconds}.png`));
  // Large bold type reads better halved, small type as it is: both readings count.
  return readWords(frame, 'ar', { rows, scales: [1, 0.5], minConfidence: 0 });
}

const captions = captionLayout({ width: WIDTH, height: HEIGHT, insets: PLATFORM_UI_INSETS[PLATFORM] });
/** The caption box's rows: three lines of type above its bottom edge at most. */
const captionRows = { top: captions.bottom - captions.fontSize * 4 - captions.pad * 2, bottom: captions.bottom + 4 };
/** Mid-scene, once the band and the cards' words have faded or risen in. */
const middleOf = (scene: number) => scene * SCENE_SECONDS + SCENE_SECONDS * 0.7;

test.each(CUES.map((cue, scene) => [scene + 1, cue] as const))(
  'the two-line Arabic caption of scene %i shows both its lines whole',
  async (scene, cue) => {
    const words = await readAt(middleOf(scene - 1), captionRows);
    for (const line of cue.split('\n')) expect({ line, unread: unread(line, words) }).toEqual({ line, unread: [] });
  },
  120_000,
);

test('a wrapping Arabic headline band shows all its words', async () => {
  const band = headlineLayout({ width: WIDTH, height: HEIGHT, insets: PLATFORM_UI_INSETS[PLATFORM] }, HEADLINE, 'ar');
  expect(band?.lines.length).toBe(2);
  const words = await readAt(middleOf(1), { top: band!.box.y, bottom: band!.box.y + band!.box.height });
  expect(unread(HEADLINE, words)).toEqual([]);
}, 120_000);

test.each([
  ['the title card, its line under the name wrapped', 0, SUBTITLE],
  ['the closing card, its call to action on three lines', 2, CTA],
])(
  '%s: every word drawn',
  async (_, scene, text) => {
    const words = await readAt(middleOf(scene), { top: HEIGHT * 0.2, bottom: captionRows.top });
    // Large bold type: tesseract may miss one word of a whole card (a fault loses a line or more of it).
    expect(unread(text, words).length).toBeLessThanOrEqual(1);
  },
  120_000,
);

/** RGB pixels of a PNG frame. */
function rgb(png: string): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', png, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 64 * 2 ** 20 });
}

test("the title card's name keeps the bowl of its last letter, which reaches below fabric's line (ح of شرائح)", async () => {
  const frame = await frameAt(video, middleOf(0), path.join(tmp, 'title.png'));
  const pixels = rgb(frame);
  // The name is the first run of rows with white ink from the top (the accent line under it is not white).
  const white = (y: number) => {
    for (let x = 0; x < WIDTH; x += 1) {
      const i = (y * WIDTH + x) * 3;
      if (pixels[i] > 235 && pixels[i + 1] > 235 && pixels[i + 2] > 235) return true;
    }
    return false;
  };
  let top = 0;
  while (top < HEIGHT && !white(top)) top += 1;
  let bottom = top;
  while (bottom < HEIGHT && white(bottom)) bottom += 1;
  // Its ink as tall as the word's own from its highest to its lowest point, at the card's type size (bold, 8.5 % of
  // the frame's width): cut flat at fabric's line, it was some 16 px shorter.
  const ctx = createCanvas(10, 10).getContext('2d');
  ctx.font = `bold ${Math.round(WIDTH * 0.085)}px "Noto Sans Arabic"`;
  const measured = ctx.measureText('شرائح');
  expect(bottom - top).toBeGreaterThanOrEqual(Math.floor((measured.actualBoundingBoxAscent + measured.actualBoundingBoxDescent) * 0.95));
}, 120_000);
