/**
 * The editly process: `node editly-child.js [plan.json]` (else the plan's path on stdin) renders the plan's picture (no audio) to
 * plan.videoOnlyPath and exits 0, or prints the reason on stderr and exits 1. It runs apart from the
 * node (lib/render/run-editly.ts) so a crash, a hang or a leak of editly or canvas never takes the node down.
 * No X display and no headless-gl (not even built: package.json allowScripts): editly loads it only for GL
 * transitions, and with yuv420p frames (below) it blends its fades itself.
 */
import { readFileSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { luminance } from './color';
import { KEN_BURNS_ZOOM } from './framing';
import { clipFfmpegArgs, FRAME_PIXEL_FORMAT, frameBytes, type ClipOverlay } from './clip-graph';
import { FramePipe } from './frame-pipe';
import { splitOutputArgs } from './splice';
import { ACTIVE_WORD_COLOR, wordSeparator } from '../voice/captions';
import { BAND, CAPTIONS, captionLayout, planFrame, screenLayout, WORD_CAPTIONS } from './overlay-layout';
import type { PlannedCaption, PlannedClip, RenderPlan } from './plan';
import { breakForBox } from '../text';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadImage } = require('canvas') as typeof import('canvas');
type CanvasImage = Awaited<ReturnType<typeof loadImage>>;
interface NodeCanvas2d {
  getContext(kind: '2d'): import('canvas').CanvasRenderingContext2D;
}

/** The part of fabric 5 used here: editly hands its fabric module to a fabric layer, and fabric 5 ships no types. */
interface FabricObject {
  width: number;
  height: number;
  set(options: Record<string, unknown>): void;
  /** A node-canvas canvas holding the object's bitmap. */
  toCanvasElement(): unknown;
}
interface FabricText extends FabricObject {
  calcTextWidth(): number;
  /** Its lines as laid out (a Textbox's as it wrapped them). */
  textLines: string[];
}
interface Fabric {
  Text: new (text: string, options: Record<string, unknown>) => FabricText;
  Textbox: new (text: string, options: Record<string, unknown>) => FabricText;
  Rect: new (options: Record<string, unknown>) => FabricObject;
  Group: new (objects: FabricObject[], options: Record<string, unknown>) => FabricObject;
  Image: new (element: unknown, options: Record<string, unknown>) => FabricObject;
  StaticCanvas: new (element: null, options: { width: number; height: number }) => FabricStaticCanvas;
  util: { getNodeCanvas(element: unknown): unknown };
}
interface FabricStaticCanvas {
  add(object: FabricObject): void;
  renderAll(): void;
  dispose(): void;
  lowerCanvasEl: unknown;
}
interface FabricArgs {
  width: number;
  height: number;
  fabric: Fabric;
}

function contrastText(hex: string): string {
  return luminance(hex) > 150 ? '#111827' : '#ffffff';
}

/**
 * The direction to lay a text out in: the video's, unless the text has no right-to-left letter at all (an English
 * sentence of a page translated in part, in an Arabic video), which fabric would misplace laid out right to left.
 */
function directionOf(plan: RenderPlan, text: string): 'ltr' | 'rtl' {
  return plan.direction === 'rtl' && !/[\p{Script=Arabic}\p{Script=Hebrew}]/u.test(text) ? 'ltr' : plan.direction;
}

function textbox(fabric: Fabric, plan: RenderPlan, text: string, options: Record<string, unknown>) {
  return new fabric.Textbox(text, {
    fontFamily: plan.font,
    textAlign: 'center',
    originX: 'center',
    direction: directionOf(plan, text),
    ...options,
  });
}

/**
 * Text is laid out once and drawn from its bitmap on every frame: fabric's text layout (per-glyph
 * measuring) is the costliest part of a frame, and the words of a card, headline or cue do not change.
 */
function bakedText(
  fabric: Fabric,
  plan: RenderPlan,
  text: string,
  options: Record<string, unknown>,
  box?: { fill: string; pad: number; radius: number; fullWidth?: number; fullHeight?: number },
  keepLines = false,
) {
  if (plan.wrapAnywhere && !keepLines) {
    const { width, fontSize } = options as { width: number; fontSize: number };
    text = breakForBox(text, plan.language, width, fontSize);
    keepLines = true;
  }
  let wrapped = keepLines ? null : textbox(fabric, plan, text, { ...options, left: 0, top: 0, originX: 'left', originY: 'top' });
  if (wrapped && directionOf(plan, text) === 'rtl') {
    // A right-to-left Textbox shows the fault linesAsGiven works around (an Arabic card's wrapped call to action
    // showed its first line, a gap, and the last letters of its last line at the frame's edge): its lines, as the
    // Textbox broke them, are drawn as given.
    text = wrapped.textLines.map((line) => line.trim()).join('\n');
    wrapped = null;
  }
  const label: FabricObject = wrapped ?? linesAsGiven(fabric, plan, text, options);
  if (!box) return { element: label.toCanvasElement(), width: label.width, height: label.height };
  const width = box.fullWidth ?? (wrapped ? Math.min(wrapped.width, wrapped.calcTextWidth() + box.pad * 3) : label.width + box.pad * 2);
  const height = box.fullHeight ?? label.height + box.pad * 2;
  // No stroke: fabric counts a stroke's width into an object's size even when none is drawn.
  const back = new fabric.Rect({ left: 0, top: 0, width, height, rx: box.radius, ry: box.radius, fill: box.fill, strokeWidth: 0 });
  label.set({ left: (width - label.width) / 2, top: (height - label.height) / 2 });
  const group = new fabric.Group([back, label], { left: 0, top: 0 });
  return { element: group.toCanvasElement(), width, height };
}

/** Room below a right-to-left line's picture, as a share of its type size: fabric's line ends about 0.2 em below the
 * baseline, Noto Sans Arabic's deepest letters about 0.4 em. */
const DESCENT_ROOM = 0.25;

/**
 * Caption cues arrive already broken into lines (lib/voice/captions.ts, per language): drawn as given, the font
 * made smaller if the widest line would not fit, never re-wrapped into ragged extra lines.
 */
function linesAsGiven(fabric: Fabric, plan: RenderPlan, text: string, options: Record<string, unknown>): FabricObject {
  const { width: maxWidth, fontSize, ...rest } = options as { width: number; fontSize: number };
  const make = (size: number, line = text) =>
    new fabric.Text(line, {
      fontFamily: plan.font,
      textAlign: 'center',
      direction: directionOf(plan, text),
      ...rest,
      fontSize: size,
      left: 0,
      top: 0,
    });
  const label = make(fontSize);
  const size = label.width > maxWidth ? Math.floor((fontSize * maxWidth) / label.width) : fontSize;
  if (directionOf(plan, text) === 'ltr') return size === fontSize ? label : make(size);
  // fabric 5 draws a right-to-left line narrower than its text object from the wrong edge (the second line of an
  // Arabic cue showed only its last letters), and clips its first letters when baked alone: each line, a single one
  // too, is drawn on a canvas of its own with room on both sides, and the lines' pictures are stacked, centred. Arabic
  // letters reach further below the baseline than fabric's line allows (the bowl of a final ح, about 0.4 em, was cut
  // flat on a card's title): each picture has DESCENT_ROOM below its line, which the next line may cover.
  const room = Math.ceil(size / 2);
  const below = Math.ceil(size * DESCENT_ROOM);
  const lines = text.split('\n').map((line) => {
    const drawn = make(size, line);
    const height = Math.ceil(drawn.height);
    const canvas = new fabric.StaticCanvas(null, { width: Math.ceil(drawn.width) + 2 * room, height: height + below });
    drawn.set({ left: room, top: 0 });
    canvas.add(drawn);
    canvas.renderAll();
    return { picture: new fabric.Image(canvas.lowerCanvasEl, { left: 0, top: 0 }), height };
  });
  const pictures = lines.map((line) => line.picture);
  const widest = Math.max(...pictures.map((picture) => picture.width));
  let top = 0;
  for (const { picture, height } of lines) {
    picture.set({ left: (widest - picture.width) / 2, top });
    top += height;
  }
  return new fabric.Group(pictures, { left: 0, top: 0 });
}

function placed(fabric: Fabric, baked: { element: unknown }, options: Record<string, unknown>) {
  return new fabric.Image(baked.element, { originX: 'center', ...options });
}

/** A baked bitmap (a node-canvas canvas, or the jsdom element fabric wraps around one) as a PNG file. */
async function writePng(fabric: Fabric, element: unknown, file: string): Promise<string> {
  const canvas = (fabric.util.getNodeCanvas(element) ?? element) as { toBuffer(mime: 'image/png'): Buffer };
  await fs.writeFile(file, canvas.toBuffer('image/png'));
  return file;
}

/** How far a card's words drift up over the whole clip, as a share of the frame's shorter side (about 5 px a second at 1080). */
const CARD_DRIFT_SHARE = 0.02;

/**
 * Title and closing cards: brand colour, the name or call to action large, a line under it, rising into
 * place in the first quarter of the clip. The text block is laid out once and drawn as one picture.
 */
async function cardOverlays(fabric: Fabric, plan: RenderPlan, clip: PlannedClip, prefix: string): Promise<ClipOverlay[]> {
  const { width, height } = plan;
  const ink = contrastText(plan.brand.primary);
  const [main, sub] =
    clip.kind === 'title' ? [plan.brand.name, clip.headline] : [plan.closing.ctaLabel || clip.headline, plan.closing.domain];
  // A title scene whose headline is the brand's name says it once.
  const subLine = sub && sub.trim() !== main.trim() ? sub : '';
  const min = Math.min(width, height);
  // The campaign's logo (brand.logo_url) above the words, on a white plate so that it reads on any brand colour.
  const logo = plan.logoPath ? await loadImage(plan.logoPath) : null;
  const badge = logo ? logoBadge(logo, width, min) : null;
  const titleTop = badge ? badge.height + min * 0.05 : 0;
  const title = bakedText(fabric, plan, main, { fill: ink, fontSize: Math.round(min * 0.085), fontWeight: 'bold', width: width * 0.84 });
  const subtitle = subLine ? bakedText(fabric, plan, subLine, { fill: ink, fontSize: Math.round(min * 0.045), width: width * 0.84 }) : null;
  const accentTop = titleTop + title.height + min * 0.03;
  const subtitleTop = accentTop + min * 0.05;
  const blockHeight = Math.ceil(subtitle ? subtitleTop + subtitle.height : accentTop + Math.max(2, min * 0.008)) + 2;
  const block = new fabric.StaticCanvas(null, { width, height: blockHeight });
  block.add(placed(fabric, title, { left: width / 2, top: titleTop }));
  block.add(
    new fabric.Rect({
      left: width / 2,
      originX: 'center',
      top: accentTop,
      width: min * 0.16,
      height: Math.max(2, min * 0.008),
      fill: ink,
      opacity: 0.7,
    }),
  );
  if (subtitle) block.add(placed(fabric, subtitle, { left: width / 2, top: subtitleTop, opacity: 0.92 }));
  block.renderAll();
  if (logo && badge) {
    const context = (fabric.util.getNodeCanvas(block.lowerCanvasEl) as NodeCanvas2d).getContext('2d');
    const left = (width - badge.width) / 2;
    context.fillStyle = '#ffffff';
    context.beginPath();
    context.roundRect(left, 0, badge.width, badge.height, badge.pad);
    context.fill();
    context.drawImage(logo, left + badge.pad, badge.pad, badge.width - badge.pad * 2, badge.height - badge.pad * 2);
  }
  const path = await writePng(fabric, block.lowerCanvasEl, `${prefix}-card.png`);
  block.dispose();
  // The words stay where they were without a logo; the logo sits above them. Risen into place, they keep drifting
  // up, slowly (CARD_DRIFT_SHARE of the shorter side over the clip): a card that never stands still.
  return [
    { path, x: 0, y: height * 0.36 - titleTop, rise: { pixels: min * 0.03, seconds: clip.duration / 4 }, drift: min * CARD_DRIFT_SHARE },
  ];
}

/** The logo's plate: the logo at most 12 % of the frame's shorter side high and 40 % of its width wide, padded. */
function logoBadge(logo: CanvasImage, width: number, min: number): { width: number; height: number; pad: number } {
  const scale = Math.min((min * 0.12) / logo.height, (width * 0.4) / logo.width);
  const pad = Math.round(min * 0.022);
  return { width: Math.round(logo.width * scale) + pad * 2, height: Math.round(logo.height * scale) + pad * 2, pad };
}

/**
 * The scene's headline in a brand-coloured band at the top of a screen, fading in over the first sixth: its lines,
 * type and rectangle are lib/render/overlay-layout.ts's, which the page's picture is framed below.
 */
async function headlineOverlay(fabric: Fabric, plan: RenderPlan, clip: PlannedClip, prefix: string): Promise<ClipOverlay[]> {
  const layout = screenLayout(plan, clip).headline;
  if (!layout) return [];
  const { box, pad } = layout;
  const band = bakedText(
    fabric,
    plan,
    layout.lines.join('\n'),
    { fill: contrastText(plan.brand.primary), fontSize: layout.fontSize, fontWeight: 'bold', width: layout.textWidth },
    { fill: plan.brand.primary, pad, radius: pad, fullWidth: box.width, fullHeight: box.height },
    true,
  );
  const path = await writePng(fabric, band.element, `${prefix}-band.png`);
  return [{ path, x: box.x, y: box.y, opacity: BAND.opacity, fadeInSeconds: clip.duration / 6 }];
}

/**
 * Burned-in captions: each cue of the clip on a dark rounded box standing on the caption row of
 * lib/render/overlay-layout.ts (above the app's own UI on vertical feeds), while it is spoken.
 */
async function captionOverlays(fabric: Fabric, plan: RenderPlan, clip: PlannedClip, prefix: string): Promise<ClipOverlay[]> {
  if (plan.captions === 'words')
    return (await Promise.all(clip.captions.map((cue, index) => wordCueOverlays(fabric, plan, clip, cue, `${prefix}-cue${index}`)))).flat();
  const layout = captionLayout(planFrame(plan));
  return Promise.all(
    clip.captions.map(async (cue, index) => {
      const baked = bakedText(
        fabric,
        plan,
        cue.text,
        { fill: '#ffffff', fontSize: layout.fontSize, width: layout.textWidth },
        { fill: CAPTIONS.fill, pad: layout.pad, radius: layout.pad },
        true,
      );
      const path = await writePng(fabric, baked.element, `${prefix}-cue${index}.png`);
      return {
        path,
        x: layout.centerX - baked.width / 2,
        y: layout.bottom - baked.height,
        from: cue.start - clip.start,
        until: cue.end - clip.start,
      };
    }),
  );
}

/**
 * Captions `words`: the cue's word group on one line, large and bold, white on the dark box (one picture for the
 * cue's time), and over each word, from its start to the next word's, that word in dark type on a box of
 * ACTIVE_WORD_COLOR (one small picture a word, laid exactly over it). A cue without word times (an older
 * storyboard's captions) is drawn whole in the same style.
 */
async function wordCueOverlays(
  fabric: Fabric,
  plan: RenderPlan,
  clip: PlannedClip,
  cue: PlannedCaption,
  prefix: string,
): Promise<ClipOverlay[]> {
  const layout = captionLayout(planFrame(plan), 'words');
  const words = cue.words?.length ? cue.words : [{ text: cue.text.replace(/\s*\n\s*/g, ' '), start: cue.start }];
  const min = Math.min(plan.width, plan.height);
  const wordPad = Math.round(min * WORD_CAPTIONS.wordPadShare);
  const make = (text: string, size: number, fill: string) =>
    new fabric.Text(text, {
      fontFamily: plan.font,
      fontWeight: 'bold',
      fontSize: size,
      fill,
      direction: directionOf(plan, text),
      left: 0,
      top: 0,
    });
  const space = (size: number) => make('a a', size, '#fff').width - 2 * make('a', size, '#fff').width;
  // Between two words: a space, or none between the words of a script written without (lib/voice/captions.ts).
  const spaced = words.map((w, i) => (i > 0 && wordSeparator(words[i - 1].text, w.text, plan.language) ? 1 : 0));
  const gaps = (size: number) => spaced.reduce<number>((sum, n) => sum + n, 0) * space(size);
  const lineWidth = (size: number) => words.reduce((sum, w) => sum + make(w.text, size, '#fff').width + 2 * wordPad, 0) + gaps(size);
  let fontSize = layout.fontSize;
  const natural = lineWidth(fontSize);
  if (natural > layout.textWidth) fontSize = Math.floor((fontSize * layout.textWidth) / natural);
  const gap = space(fontSize);
  const labels = words.map((w) => make(w.text, fontSize, '#ffffff'));
  const slots = labels.map((label) => label.width + 2 * wordPad);
  const lineHeight = Math.max(...labels.map((label) => label.height));
  const width = Math.ceil(slots.reduce((a, b) => a + b, 0) + gaps(fontSize) + 2 * layout.pad);
  const height = Math.ceil(lineHeight + 2 * layout.pad);
  // Each word's slot from the box's left edge: in reading order, right to left in a right-to-left video.
  const lefts: number[] = [];
  let at = layout.pad;
  const rtl = plan.direction === 'rtl';
  for (const i of rtl ? [...slots.keys()].reverse() : slots.keys()) {
    lefts[i] = at;
    // The next word placed is i + 1 (i - 1 right to left); spaced[k] says whether a space goes before word k.
    at += slots[i] + ((rtl ? spaced[i] : spaced[i + 1]) ? gap : 0);
  }
  const back = new fabric.Rect({ left: 0, top: 0, width, height, rx: layout.pad, ry: layout.pad, fill: CAPTIONS.fill, strokeWidth: 0 });
  labels.forEach((label, i) => label.set({ left: lefts[i] + wordPad, top: layout.pad + (lineHeight - label.height) / 2 }));
  const base = new fabric.Group([back, ...labels], { left: 0, top: 0 });
  const x = layout.centerX - width / 2;
  const y = layout.bottom - height;
  const overlays: ClipOverlay[] = [
    {
      path: await writePng(fabric, base.toCanvasElement(), `${prefix}.png`),
      x,
      y,
      from: cue.start - clip.start,
      until: cue.end - clip.start,
    },
  ];
  for (const [i, word] of words.entries()) {
    const until = words[i + 1]?.start ?? cue.end;
    if (until <= word.start) continue;
    const label = make(word.text, fontSize, WORD_CAPTIONS.activeText);
    const boxHeight = lineHeight + 2 * wordPad;
    const mark = new fabric.Rect({
      left: 0,
      top: 0,
      width: slots[i],
      height: boxHeight,
      rx: wordPad,
      ry: wordPad,
      fill: ACTIVE_WORD_COLOR,
      strokeWidth: 0,
    });
    label.set({ left: wordPad, top: wordPad + (lineHeight - label.height) / 2 });
    const picture = new fabric.Group([mark, label], { left: 0, top: 0 });
    overlays.push({
      path: await writePng(fabric, picture.toCanvasElement(), `${prefix}-word${i}.png`),
      x: x + lefts[i],
      y: y + layout.pad - wordPad,
      from: word.start - clip.start,
      until: until - clip.start,
    });
  }
  return overlays;
}

/** The last clip editly opened (it opens them in order): the next one's ffmpeg starts when this one's has ended. */
let lastClip: Promise<FramePipe> | null = null;

/**
 * One editly layer per clip: its frames come finished, as yuv420p, from the clip's ffmpeg graph
 * (lib/render/clip-graph.ts). editly passes the frame of a clip's only layer straight to its encoder and
 * blends the frames of the fades between clips itself.
 */
function clipLayer(plan: RenderPlan, clip: PlannedClip, index: number) {
  return {
    type: 'fabric',
    func: async ({ width, height, fabric }: FabricArgs) => {
      const prefix = path.join(path.dirname(plan.videoOnlyPath), `clip${index}`);
      const screen = clip.kind === 'screen' && clip.still;
      const overlays = screen
        ? [...(await headlineOverlay(fabric, plan, clip, prefix)), ...(await captionOverlays(fabric, plan, clip, prefix))]
        : [...(await cardOverlays(fabric, plan, clip, prefix)), ...(await captionOverlays(fabric, plan, clip, prefix))];
      const { fps } = plan.encoding;
      const frames = Math.max(1, Math.round(clip.duration * fps));
      const args = clipFfmpegArgs({
        width,
        height,
        fps,
        frames,
        background: screen
          ? { kind: 'screen', still: clip.still!, zoom: clip.zoom, zoomAmount: KEN_BURNS_ZOOM, scroll: clip.scroll }
          : { kind: 'color', color: plan.brand.primary },
        overlays,
      });
      // One clip's ffmpeg at a time (each is ~80 MB of the render's memory): this clip's starts as soon as the
      // one before has ended — which is before the transition into this clip, because the last frames of a
      // clip are read ahead (FramePipe) — so it has its first frame ready when editly asks for it.
      const transitionFrames = Math.ceil(plan.transitionSeconds * fps) + 1;
      const before = lastClip;
      let closed = false;
      const starting = (async () => {
        if (before) await (await before).finished();
        const pipe = await FramePipe.open('ffmpeg', args, `${prefix}.yuv`, frameBytes(width, height), {
          frames,
          readAll: transitionFrames,
        });
        if (closed) pipe.close();
        return pipe;
      })();
      starting.catch(() => undefined); // awaited by onRender
      lastClip = starting;
      let pipe: FramePipe | null = null;
      let last: Buffer | null = null;
      return {
        async onRender(): Promise<Buffer> {
          if (!pipe) {
            // Should the clip before still hold frames editly has not read (a transition longer than the read
            // ahead), they are read into memory now so that its process can end.
            if (before) (await before).drain();
            pipe = await starting;
          }
          const frame = await pipe.next();
          if (frame) last = frame;
          if (!last) throw new Error(`clip ${index}: ffmpeg gave no frame`);
          return last;
        },
        onClose: () => {
          closed = true;
          pipe?.close();
        },
      };
    },
  };
}

export function editlyConfig(plan: RenderPlan): Record<string, unknown> {
  const clips = plan.clips.map((clip, index) => ({ duration: clip.shownSeconds ?? clip.duration, layers: [clipLayer(plan, clip, index)] }));
  const { preset, crf, fps } = plan.encoding;
  const encode = ['-an', '-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-profile:v', 'high', '-preset:v', preset, '-crf', String(crf)];
  // A hook variant's render: its head (and the tail the variants share, when this render makes it) to files of their own.
  const split = plan.split ? splitOutputArgs(plan.split, encode) : null;
  return {
    outPath: split?.outPath ?? plan.videoOnlyPath,
    width: plan.width,
    height: plan.height,
    fps,
    defaults: { transition: { name: 'fade', duration: plan.transitionSeconds } },
    clips,
    keepSourceAudio: false,
    framePixelFormat: FRAME_PIXEL_FORMAT,
    customOutputArgs: split?.args ?? [...encode, '-movflags', '+faststart'],
  };
}

/**
 * If the node dies (SIGKILL), this process is orphaned: it then removes the render's work directory and
 * kills its own process group (itself and ffmpeg), so nothing of the render outlives the node.
 */
function dieWithParent(workDir: string): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid === parent) return;
    rmSync(workDir, { recursive: true, force: true });
    process.kill(-process.pid, 'SIGKILL');
  }, 500).unref();
}

/** The first line of stdin: the parent sends the plan's path once the plan is ready. */
async function firstLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0].trim();
}

/**
 * The renderer needs editly as patched (patches/editly+0.14.2.patch, applied by npm's postinstall): unpatched,
 * it would take our yuv420p frames for RGBA and write a video of noise that still passes ffprobe's check.
 */
function assertEditlyPatched(): void {
  if (!readFileSync(require.resolve('editly'), 'utf8').includes('framePixelFormat'))
    throw new Error('editly is not patched (patches/editly+0.14.2.patch): run npm ci, or npx patch-package');
}

async function main(planArg?: string): Promise<void> {
  assertEditlyPatched();
  // editly (fabric, jsdom, canvas) loads while the parent composes the screens and writes the plan.
  const loading = import('editly') as Promise<unknown> as Promise<{ default: (config: Record<string, unknown>) => Promise<void> }>;
  loading.catch(() => undefined);
  const planPath = planArg ?? (await firstLine());
  if (!planPath) throw new Error('no render plan was given');
  dieWithParent(path.dirname(planPath));
  const plan = JSON.parse(await fs.readFile(planPath, 'utf8')) as RenderPlan;
  // editly prints progress on stdout; the parent keeps only stderr.
  const editly = (await loading).default;
  await editly(editlyConfig(plan));
}

if (require.main === module) {
  main(process.argv[2]).then(
    () => process.exit(0),
    (err: Error) => {
      process.stderr.write(`editly failed: ${err?.stack ?? err}\n`);
      process.exit(1);
    },
  );
}
