/**
 * The clip graph (lib/render/clip-graph.ts) run by the real ffmpeg, read through the real FramePipe: a
 * screen's still composed and zoomed, an overlay shown only in its window, a card's text rising into place,
 * a failing ffmpeg reported with its reason. Frames are small (96×160) so each case takes a fraction of a second.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chooseFocus, planScroll, scrollAt, SCROLL_LEAD, SCROLL_MAX_SPEED } from '../../lib/render/camera';
import { clipFfmpegArgs, composeStillArgs, frameBytes, type ClipGraphInput } from '../../lib/render/clip-graph';
import { FramePipe } from '../../lib/render/frame-pipe';

const WIDTH = 96;
const HEIGHT = 160;
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clip-graph-'));
  // A "screenshot": a 300×200 test pattern; an "overlay": a white 40×20 box, opaque.
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=s=300x200', '-frames:v', '1', path.join(dir, 'shot.png')]);
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=white:s=40x20', '-frames:v', '1', path.join(dir, 'box.png')]);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function frames(input: ClipGraphInput, name: string): Promise<Buffer[]> {
  const pipe = await FramePipe.open('ffmpeg', clipFfmpegArgs(input), path.join(dir, `${name}.yuv`), frameBytes(WIDTH, HEIGHT), {
    frames: input.frames,
    readAll: 3,
  });
  const out: Buffer[] = [];
  for (let frame = await pipe.next(); frame; frame = await pipe.next()) out.push(Buffer.from(frame));
  pipe.close();
  return out;
}

/** Mean luma of a rectangle of a yuv420p frame. */
function luma(frame: Buffer, x: number, y: number, width: number, height: number): number {
  let sum = 0;
  for (let row = y; row < y + height; row += 1) for (let col = x; col < x + width; col += 1) sum += frame[row * WIDTH + col];
  return sum / (width * height);
}

async function still(name: string, scale: number) {
  const { args, still } = composeStillArgs(
    path.join(dir, 'shot.png'),
    path.join(dir, `${name}.raw`),
    { width: WIDTH, height: HEIGHT },
    null,
    scale,
  );
  execFileSync('ffmpeg', args);
  return still;
}

test('a screen: the still is composed at twice the frame, zoomed in over the clip, every frame delivered', async () => {
  const composed = await still('zoom', 2);
  expect(composed).toMatchObject({ width: WIDTH * 2, height: HEIGHT * 2 });
  expect(fs.statSync(composed.path).size).toBe(frameBytes(WIDTH * 2, HEIGHT * 2));
  const zoomIn = await frames(
    {
      width: WIDTH,
      height: HEIGHT,
      fps: 10,
      frames: 20,
      background: { kind: 'screen', still: composed, zoom: 'in', zoomAmount: 0.5 },
      overlays: [],
    },
    'zoom-in',
  );
  expect(zoomIn).toHaveLength(20);
  for (const frame of zoomIn) expect(frame.length).toBe(frameBytes(WIDTH, HEIGHT));
  // The picture grows: the first frame and the last differ, and the change grows frame by frame.
  const difference = (a: Buffer, b: Buffer) => a.reduce((sum, value, i) => sum + Math.abs(value - b[i]), 0);
  expect(difference(zoomIn[0], zoomIn[1])).toBeGreaterThan(0);
  expect(difference(zoomIn[0], zoomIn[19])).toBeGreaterThan(difference(zoomIn[0], zoomIn[5]));
  const zoomOut = await frames(
    {
      width: WIDTH,
      height: HEIGHT,
      fps: 10,
      frames: 20,
      background: { kind: 'screen', still: composed, zoom: 'out', zoomAmount: 0.5 },
      overlays: [],
    },
    'zoom-out',
  );
  // Zooming out starts close to where zooming in ends, and ends where it starts.
  expect(difference(zoomOut[0], zoomIn[19])).toBeLessThan(difference(zoomOut[0], zoomIn[0]));
  expect(difference(zoomOut[19], zoomIn[0])).toBeLessThan(difference(zoomOut[19], zoomIn[19]));
});

test('an overlay is drawn at its place only from its start to its end', async () => {
  const out = await frames(
    {
      width: WIDTH,
      height: HEIGHT,
      fps: 10,
      frames: 10,
      background: { kind: 'color', color: '#000000' },
      overlays: [{ path: path.join(dir, 'box.png'), x: 20, y: 100, from: 0.3, until: 0.6 }],
    },
    'overlay',
  );
  expect(out).toHaveLength(10);
  const shown = out.map((frame) => luma(frame, 24, 104, 30, 12) > 200);
  expect(shown).toEqual([false, false, false, true, true, true, false, false, false, false]);
  // Nothing outside its box.
  for (const frame of out) expect(luma(frame, 0, 0, WIDTH, 90)).toBeLessThan(20);
});

test('a card: the colour fills the frame and the text block rises into place, then stays', async () => {
  const out = await frames(
    {
      width: WIDTH,
      height: HEIGHT,
      fps: 10,
      frames: 10,
      background: { kind: 'color', color: '#336699' },
      overlays: [{ path: path.join(dir, 'box.png'), x: 0, y: 60, rise: { pixels: 20, seconds: 0.5 } }],
    },
    'card',
  );
  const top = (frame: Buffer) => {
    for (let row = 0; row < HEIGHT; row += 1) if (frame[row * WIDTH + 10] > 200) return row;
    return -1;
  };
  expect(top(out[0])).toBe(80);
  expect(top(out[2])).toBeGreaterThan(60);
  expect(top(out[2])).toBeLessThan(80);
  expect(out.slice(5).map(top)).toEqual([60, 60, 60, 60, 60]);
  // #336699: a blue, luma about 90 in limited range.
  expect(luma(out[9], 0, 0, WIDTH, 40)).toBeGreaterThan(70);
  expect(luma(out[9], 0, 0, WIDTH, 40)).toBeLessThan(110);
});

test('a clip whose ffmpeg fails rejects with its reason', async () => {
  const input: ClipGraphInput = {
    width: WIDTH,
    height: HEIGHT,
    fps: 10,
    frames: 5,
    background: {
      kind: 'screen',
      still: { path: path.join(dir, 'missing.raw'), width: WIDTH * 2, height: HEIGHT * 2 },
      zoom: 'in',
      zoomAmount: 0.1,
    },
    overlays: [],
  };
  const pipe = await FramePipe.open('ffmpeg', clipFfmpegArgs(input), path.join(dir, 'failing.yuv'), frameBytes(WIDTH, HEIGHT), {
    frames: 5,
    readAll: 2,
  });
  await expect(pipe.next()).rejects.toThrow(/missing\.raw/);
  expect(fs.existsSync(path.join(dir, 'failing.yuv'))).toBe(false);
});

test('frames are read into reused buffers: the one handed out before is recycled, never the one in use', async () => {
  const composed = await still('reuse', 1);
  const pipe = await FramePipe.open(
    'ffmpeg',
    clipFfmpegArgs({
      width: WIDTH,
      height: HEIGHT,
      fps: 10,
      frames: 8,
      background: { kind: 'screen', still: composed, zoom: 'in', zoomAmount: 0.3 },
      overlays: [],
    }),
    path.join(dir, 'reuse.yuv'),
    frameBytes(WIDTH, HEIGHT),
    { frames: 8, readAll: 2 },
  );
  const seen = new Set<Buffer>();
  let previous: Buffer | null = null;
  for (let frame = await pipe.next(); frame; frame = await pipe.next()) {
    expect(frame).not.toBe(previous);
    seen.add(frame);
    previous = frame;
  }
  pipe.close();
  expect(seen.size).toBeLessThanOrEqual(4);
});

test("a closed pipe's buffers serve the next pipe: no new frame memory a clip, the frames still right", async () => {
  // A frame size no other test uses, so the pool holds only this test's buffers.
  const [width, height] = [WIDTH + 16, HEIGHT + 16];
  const open = (name: string, color: string) =>
    FramePipe.open(
      'ffmpeg',
      clipFfmpegArgs({ width, height, fps: 10, frames: 6, background: { kind: 'color', color }, overlays: [] }),
      path.join(dir, `${name}.yuv`),
      frameBytes(width, height),
      { frames: 6, readAll: 3 },
    );
  const read = async (pipe: FramePipe) => {
    const buffers = new Set<Buffer>();
    const lumas: number[] = [];
    for (let frame = await pipe.next(); frame; frame = await pipe.next()) {
      buffers.add(frame);
      lumas.push(frame[0]);
    }
    return { buffers, lumas };
  };
  const first = await open('pool-a', '#000000');
  const a = await read(first);
  first.close();
  const second = await open('pool-b', '#ffffff');
  const b = await read(second);
  second.close();
  // Every buffer the second clip handed out had been the first clip's.
  for (const buffer of b.buffers) expect(a.buffers.has(buffer)).toBe(true);
  expect(a.lumas).toEqual(Array(6).fill(16));
  expect(b.lumas).toEqual(Array(6).fill(235));
});

test('colours are ffmpeg colours; an odd frame is refused', () => {
  expect(() =>
    clipFfmpegArgs({ width: 95, height: 160, fps: 10, frames: 1, background: { kind: 'color', color: '#000' }, overlays: [] }),
  ).toThrow(/even/);
  const args = clipFfmpegArgs({ width: 96, height: 160, fps: 10, frames: 1, background: { kind: 'color', color: '#abc' }, overlays: [] });
  expect(args.join(' ')).toContain('color=c=0xaabbcc');
});

test('a scroll waits, eases in and out, never passes the readable speed, and ends with the narrated element in view', () => {
  const frameHeight = 1920;
  const short = planScroll({ pictureHeight: 1500, windowHeight: 1000, frameHeight, duration: 8 })!;
  expect(short).toEqual({ from: 0, to: 500, start: 8 * SCROLL_LEAD, end: 8 * (1 - SCROLL_LEAD) });
  // Still before the start and after the end; eased: slow at both ends, fastest midway, never above the bound.
  expect(scrollAt(short, 0.5)).toBe(0);
  expect(scrollAt(short, 7.5)).toBe(500);
  let fastest = 0;
  for (let t = 0; t < 8; t += 0.01) fastest = Math.max(fastest, (scrollAt(short, t + 0.01) - scrollAt(short, t)) / 0.01);
  expect(fastest).toBeLessThanOrEqual(SCROLL_MAX_SPEED * frameHeight + 1e-6);
  expect(scrollAt(short, 1.3) - scrollAt(short, 1.2)).toBeLessThan(scrollAt(short, 4.05) - scrollAt(short, 3.95));
  // A picture that fits: no scroll.
  expect(planScroll({ pictureHeight: 1000, windowHeight: 1000, frameHeight, duration: 8 })).toBeNull();
  // Too tall to scroll whole at that speed: as far as readable, from the top, without a focus…
  const tall = { pictureHeight: 6000, windowHeight: 1000, frameHeight, duration: 6 };
  const readable = Math.floor((SCROLL_MAX_SPEED * frameHeight * 6 * (1 - 2 * SCROLL_LEAD)) / 1.5);
  expect(planScroll(tall)).toMatchObject({ from: 0, to: readable });
  // …and with the narrated element far down, the stretch that ends with it in view (a tenth of the window under it).
  const focused = planScroll({ ...tall, focus: { top: 4000, bottom: 4200 } })!;
  expect(focused.to).toBe(4200 + 100 - 1000);
  expect(focused.to - focused.from).toBe(readable);
});

test('the narrated element is the one holding most of the narration’s words; none when nothing matches', () => {
  const focus = [
    { box: { x: 0, y: 0, width: 10, height: 10 }, text: 'Connect every source' },
    { box: { x: 0, y: 20, width: 10, height: 10 }, text: 'Sync billing and CRM data in minutes. No engineers needed.' },
    { box: { x: 0, y: 40, width: 10, height: 10 }, text: 'Dashboards explain themselves.' },
  ];
  expect(chooseFocus(focus, 'Sync billing and CRM data in minutes.', 'en')?.box.y).toBe(20);
  expect(chooseFocus(focus, 'Ein ganz anderer Satz.', 'de')).toBeNull();
  expect(chooseFocus(undefined, 'anything', 'en')).toBeNull();
});

test('a scrolled screen: the page moves up under its window, the still around it does not', async () => {
  const composed = await still('scroll-still', 1);
  // The strip: a white picture with one black bar 10 rows high at rows 20–30, 60 wide, 200 tall.
  const strip = path.join(dir, 'strip.raw');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'color=c=white:s=60x200,drawbox=x=0:y=20:w=60:h=10:color=black:t=fill',
    '-frames:v',
    '1',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'yuv420p',
    strip,
  ]);
  const move = { from: 0, to: 100, start: 0.2, end: 1.6 };
  const out = await frames(
    {
      width: WIDTH,
      height: HEIGHT,
      fps: 10,
      frames: 20,
      background: {
        kind: 'screen',
        still: composed,
        zoom: 'in',
        zoomAmount: 0,
        scroll: { strip: { path: strip, width: 60, height: 200 }, window: { x: 18, y: 40, width: 60, height: 80 }, move },
      },
      overlays: [],
    },
    'scroll',
  );
  expect(out).toHaveLength(20);
  // The bar's top row in the window's column, frame by frame: 40 + 20 − the scroll of the moment.
  const barTop = (frame: Buffer) => {
    for (let row = 40; row < 120; row += 1) if (frame[row * WIDTH + 40] < 60) return row;
    return -1;
  };
  expect(barTop(out[0])).toBe(60);
  expect(barTop(out[2])).toBe(60);
  const expected = (n: number) => Math.round(60 - scrollAt(move, n / 10));
  expect([3, 4, 5, 6].map((n) => barTop(out[n]))).toEqual([3, 4, 5, 6].map(expected));
  // Scrolled past the window's top by the end: the window shows white only; the still outside the window is unchanged.
  expect(barTop(out[19])).toBe(-1);
  const outside = (frame: Buffer) => luma(frame, 0, 0, WIDTH, 38);
  expect(Math.abs(outside(out[0]) - outside(out[19]))).toBeLessThan(1);
});

test('a card’s words keep drifting up after their rise', async () => {
  const out = await frames(
    {
      width: WIDTH,
      height: HEIGHT,
      fps: 10,
      frames: 20,
      background: { kind: 'color', color: '#336699' },
      overlays: [{ path: path.join(dir, 'box.png'), x: 0, y: 60, rise: { pixels: 20, seconds: 0.5 }, drift: 20 }],
    },
    'drift',
  );
  const top = (frame: Buffer) => {
    for (let row = 0; row < HEIGHT; row += 1) if (frame[row * WIDTH + 10] > 200) return row;
    return -1;
  };
  // Risen at 0.5 s, then still rising: 20 px over the clip's 2 s.
  expect(Math.abs(top(out[5]) - 55)).toBeLessThanOrEqual(1);
  expect(Math.abs(top(out[19]) - 41)).toBeLessThanOrEqual(1);
});
