/**
 * Captions `words` through the real path — festival says a sentence and reports when each word
 * is said (lib/voice/festival-process.ts), the caption words are timed from it (lib/voice/word-timing.ts), the word
 * cues go into WebVTT with cue-internal timestamps (lib/voice/captions.ts), and the real renderer (screens composed by
 * ffmpeg, editly in its child process, draft quality) reads them back and burns them in. At each word's start,
 * taken from festival's own times, the frame's caption row holds exactly one box of the highlight colour, and
 * tesseract reads that very word inside it. One render serves every assertion.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ACTIVE_WORD_COLOR, asWordCues, buildWordCues, parseWebVtt, toWebVtt } from '../../lib/voice/captions';
import { frameAt } from '../../lib/render/contact-sheet';
import { captionLayout } from '../../lib/render/overlay-layout';
import { renderVideo, type RenderedVideo } from '../../lib/render/render-video';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { measureDuration } from '../../lib/voice/audio';
import { FestivalProvider } from '../../lib/voice/festival';
import { wordTimings } from '../../lib/voice/word-timing';
import { type WordTiming } from '../../lib/voice/speech';
import { PLATFORM_UI_INSETS, PLATFORMS } from '../../config/catalog';
import { fold, readWords } from '../support/ocr';
import { parseSrtStrict } from '../support/srt';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createCanvas } = require('canvas') as typeof import('canvas');

const NARRATION = 'Reports arrive every morning, ready before coffee.';
const FPS = 25; // draft
const PLATFORM = 'tiktok';

let tmp: string;
let words: WordTiming[];
let rendered: RenderedVideo;
let vtt: string;

/** A plain page: grey lines on white (nothing of the highlight's yellow). */
function makePage(file: string): void {
  const canvas = createCanvas(780, 1600);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, 780, 1600);
  ctx.fillStyle = '#374151';
  ctx.font = 'bold 56px "Noto Sans"';
  ctx.fillText('Morning reports', 60, 140);
  ctx.font = '30px "Noto Sans"';
  for (let y = 240; y < 1540; y += 52) ctx.fillText('Numbers, charts and notes for the team.', 60, y);
  fs.writeFileSync(file, canvas.toBuffer('image/png'));
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'word-captions-'));
  const festival = new FestivalProvider();
  try {
    const req = { text: NARRATION, language: 'en' as const, outFile: path.join(tmp, 'voice.wav'), words: true };
    const result = await festival.synthesize(req);
    const timed = await wordTimings((r) => festival.synthesize(r), req, req.outFile, result.words);
    expect(timed.source).toBe('engine');
    words = timed.words;
  } finally {
    await festival.close();
  }
  const seconds = Math.round((await measureDuration(path.join(tmp, 'voice.wav'))) * 1000) / 1000 + 0.4;
  makePage(path.join(tmp, 'page.png'));
  const cues = buildWordCues([{ words, startSeconds: 0, durationSeconds: seconds }], 'en');
  vtt = toWebVtt(cues);
  fs.writeFileSync(path.join(tmp, 'captions.vtt'), vtt);
  const storyboard: Storyboard = {
    version: 1,
    campaignId: 'word-captions',
    videoId: 'word-captions-tiktok',
    language: 'en',
    platform: PLATFORM,
    frame: { ...PLATFORMS[PLATFORM] },
    direction: 'ltr',
    font: 'Noto Sans',
    brand: {
      name: 'Words',
      domain: 'words.example',
      primary: '#1d4ed8',
      background: '#ffffff',
      text: '#111827',
      palette: ['#1d4ed8'],
      logoUrl: null,
    },
    scriptSource: 'localized_page',
    scenes: [
      {
        index: 0,
        kind: 'screen',
        screenshotKey: 'page.png',
        screenshotContent: { width: 780, height: 1600, pixelRatio: 2, content: { x: 40, y: 60, width: 700, height: 1500 } },
        onScreenText: 'Morning reports',
        narration: [{ text: NARRATION, language: 'en' }],
        audioKey: 'voice.wav',
        startSeconds: 0,
        durationSeconds: seconds,
      },
    ],
    narrationKey: 'voice.wav',
    captionsKey: 'captions.vtt',
    totalSeconds: seconds,
    closing: { ctaLabel: 'Try it', domain: 'words.example' },
    captions: 'words',
  };
  const workDir = path.join(tmp, 'work');
  fs.mkdirSync(workDir);
  rendered = await renderVideo({
    storyboard,
    workDir,
    quality: 'draft',
    memoryLimitBytes: 3 * 2 ** 30,
    timeoutMs: 120_000,
    fetchInput: async (key, local) => fs.copyFileSync(path.join(tmp, key), local),
  });
}, 180_000);

afterAll(() => {
  // WORDS_KEEP_FRAMES=1 keeps the frames, to look at them.
  if (!process.env.WORDS_KEEP_FRAMES) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`frames kept in ${tmp}`);
});

/** RGB pixels of a PNG frame. */
function rgb(png: string): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', png, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 64 * 2 ** 20 });
}

const [hr, hg, hb] = [1, 3, 5].map((i) => parseInt(ACTIVE_WORD_COLOR.slice(i, i + 2), 16));
const isHighlight = (r: number, g: number, b: number) => Math.abs(r - hr) + Math.abs(g - hg) + Math.abs(b - hb) < 80;

/** The bounding boxes of the highlight colour's columns runs in rows [top, bottom): one per separate box. */
function highlightBoxes(pixels: Buffer, width: number, rows: { top: number; bottom: number }) {
  const columns: number[] = [];
  let top = Infinity;
  let bottom = -1;
  for (let x = 0; x < width; x += 1) {
    let count = 0;
    for (let y = rows.top; y < rows.bottom; y += 1) {
      const i = (y * width + x) * 3;
      if (isHighlight(pixels[i], pixels[i + 1], pixels[i + 2])) {
        count += 1;
        top = Math.min(top, y);
        bottom = Math.max(bottom, y + 1);
      }
    }
    if (count >= 4) columns.push(x);
  }
  const boxes: Array<{ left: number; right: number; top: number; bottom: number }> = [];
  for (const x of columns) {
    const last = boxes.at(-1);
    if (last && x - last.right <= 2) last.right = x + 1;
    else boxes.push({ left: x, right: x + 1, top, bottom });
  }
  return boxes.filter((b) => b.right - b.left >= 8);
}

test('the WebVTT carries each word start as a cue-internal timestamp, read back as festival said them', () => {
  const cues = asWordCues(parseWebVtt(vtt));
  const read = cues.flatMap((c) => c.words ?? []);
  expect(read.map((w) => w.text)).toEqual(words.map((w) => w.text));
  read.forEach((w, i) => expect(Math.abs(w.start - words[i].start)).toBeLessThanOrEqual(0.001));
  expect(vtt).toMatch(/<00:00:0\d\.\d{3}>/);
  // Every cue's text is its words (tags stripped).
  for (const cue of cues) expect(cue.text).toBe(cue.words!.map((w) => w.text).join(' '));
});

test('the SubRip file has one cue per word, the word said in the highlight colour', () => {
  const srt = parseSrtStrict(fs.readFileSync(rendered.captionsSrtPath, 'utf8'));
  expect(srt).toHaveLength(words.length);
  srt.forEach((cue, i) => {
    expect(cue.text).toContain(`<font color="${ACTIVE_WORD_COLOR}">${words[i].text}</font>`);
    expect(Math.abs(cue.start - words[i].start)).toBeLessThanOrEqual(0.001);
  });
});

test('at each word start the caption row highlights that word, and only it', async () => {
  const { width, height } = rendered.probe;
  const layout = captionLayout({ width, height, insets: PLATFORM_UI_INSETS[PLATFORM] }, 'words');
  const rows = { top: Math.floor(layout.bottom - layout.fontSize * 3), bottom: Math.ceil(layout.bottom) + 2 };
  const wrong: string[] = [];
  // Which cue each word is in: within a cue, each word's box lies right of the one before (the word's own place).
  const cueOf = asWordCues(parseWebVtt(vtt)).flatMap((cue, k) => cue.words!.map(() => k));
  const lefts: number[] = [];
  for (const [i, word] of words.entries()) {
    // The first frame shown at or after the word's start (frame n is shown from n / FPS), plus half a frame.
    const at = (Math.ceil(word.start * FPS) + 0.5) / FPS;
    const png = await frameAt(rendered.outputPath, at, path.join(tmp, `word${i}.png`));
    const boxes = highlightBoxes(rgb(png), width, rows);
    expect({ word: word.text, boxes: boxes.length }).toEqual({ word: word.text, boxes: 1 });
    const box = boxes[0];
    lefts.push(box.left);
    if (i > 0 && cueOf[i] === cueOf[i - 1])
      expect({ word: word.text, rightOfTheWordBefore: box.left > lefts[i - 1] + 8 }).toEqual({
        word: word.text,
        rightOfTheWordBefore: true,
      });
    const crop = path.join(tmp, `word${i}-box.png`);
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-i',
      png,
      '-vf',
      `crop=${box.right - box.left}:${box.bottom - box.top}:${box.left}:${box.top},pad=iw+40:ih+40:20:20:color=${ACTIVE_WORD_COLOR.replace('#', '0x')}`,
      crop,
    ]);
    // Read at twice the size, and at three times should that miss it (tesseract's sweet spot varies with the word).
    let read = await readWords(crop, 'en', { scales: [2] });
    if (!read.some((w) => fold(w.text) === fold(word.text))) read = await readWords(crop, 'en', { scales: [3] });
    if (!read.some((w) => fold(w.text) === fold(word.text)))
      wrong.push(`${word.text} at ${at.toFixed(2)} s read as ${read.map((w) => w.text).join(' ')}`);
  }
  expect(wrong).toEqual([]);
}, 120_000);
