/**
 * The editly process: `node editly-child.js <plan.json>` renders the plan's picture (no audio) to
 * plan.videoOnlyPath and exits 0, or prints the reason on stderr and exits 1. It runs apart from the
 * node (lib/render/run-editly.ts) so a crash, a hang or a leak of editly, canvas or headless-gl never
 * takes the node down. Needs an X display (DISPLAY) for headless-gl.
 */
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { luminance } from '../color';
import { KEN_BURNS_ZOOM } from '../framing';
import { breakForBox, captionAt, type PlannedClip, type RenderPlan } from './plan';

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
}
interface Fabric {
  Text: new (text: string, options: Record<string, unknown>) => FabricText;
  Textbox: new (text: string, options: Record<string, unknown>) => FabricText;
  Rect: new (options: Record<string, unknown>) => FabricObject;
  Group: new (objects: FabricObject[], options: Record<string, unknown>) => FabricObject;
  Image: new (element: unknown, options: Record<string, unknown>) => FabricObject;
}
interface FabricCanvas {
  add(object: FabricObject): void;
}
interface FabricArgs {
  width: number;
  height: number;
  fabric: Fabric;
}

function contrastText(hex: string): string {
  return luminance(hex) > 150 ? '#111827' : '#ffffff';
}

function textbox(fabric: Fabric, plan: RenderPlan, text: string, options: Record<string, unknown>) {
  return new fabric.Textbox(text, {
    fontFamily: plan.font,
    textAlign: 'center',
    originX: 'center',
    direction: plan.direction,
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
  box?: { fill: string; pad: number; radius: number; fullWidth?: number },
  keepLines = false,
) {
  if (plan.wrapAnywhere && !keepLines) {
    const { width, fontSize } = options as { width: number; fontSize: number };
    text = breakForBox(text, plan.language, width, fontSize);
    keepLines = true;
  }
  const label = keepLines
    ? linesAsGiven(fabric, plan, text, options)
    : textbox(fabric, plan, text, { ...options, left: 0, top: 0, originX: 'left', originY: 'top' });
  if (!box) return { element: label.toCanvasElement(), width: label.width, height: label.height };
  const width = box.fullWidth ?? (keepLines ? label.width + box.pad * 2 : Math.min(label.width, label.calcTextWidth() + box.pad * 3));
  const height = label.height + box.pad * 2;
  const back = new fabric.Rect({ left: 0, top: 0, width, height, rx: box.radius, ry: box.radius, fill: box.fill });
  label.set({ left: (width - label.width) / 2, top: box.pad });
  const group = new fabric.Group([back, label], { left: 0, top: 0 });
  return { element: group.toCanvasElement(), width, height };
}

/**
 * Caption cues arrive already broken into lines (lib/captions.ts, per language): drawn as given, the font
 * made smaller if the widest line would not fit, never re-wrapped into ragged extra lines.
 */
function linesAsGiven(fabric: Fabric, plan: RenderPlan, text: string, options: Record<string, unknown>) {
  const { width: maxWidth, fontSize, ...rest } = options as { width: number; fontSize: number };
  const make = (size: number) =>
    new fabric.Text(text, {
      fontFamily: plan.font,
      textAlign: 'center',
      direction: plan.direction,
      ...rest,
      fontSize: size,
      left: 0,
      top: 0,
    });
  const label = make(fontSize);
  return label.width > maxWidth ? make(Math.floor((fontSize * maxWidth) / label.width)) : label;
}

function placed(fabric: Fabric, baked: { element: unknown }, options: Record<string, unknown>) {
  return new fabric.Image(baked.element, { originX: 'center', ...options });
}

/** Title and closing cards: brand colour, the name or call to action large, a line under it. */
function cardLayer(plan: RenderPlan, clip: PlannedClip) {
  const background = plan.brand.primary;
  const ink = contrastText(background);
  const [main, sub] =
    clip.kind === 'title' ? [plan.brand.name, clip.headline] : [plan.closing.ctaLabel || clip.headline, plan.closing.domain];
  // A title scene whose headline is the brand's name says it once.
  const subLine = sub && sub.trim() !== main.trim() ? sub : '';
  return {
    type: 'fabric',
    func: ({ width, height, fabric }: FabricArgs) => {
      const min = Math.min(width, height);
      const title = bakedText(fabric, plan, main, {
        fill: ink,
        fontSize: Math.round(min * 0.085),
        fontWeight: 'bold',
        width: width * 0.84,
      });
      const subtitle = subLine
        ? bakedText(fabric, plan, subLine, { fill: ink, fontSize: Math.round(min * 0.045), width: width * 0.84 })
        : null;
      return {
        onRender(progress: number, canvas: FabricCanvas) {
          const rise = (1 - Math.min(1, progress * 4)) * min * 0.03;
          canvas.add(new fabric.Rect({ left: 0, top: 0, width, height, fill: background }));
          const top = height * 0.36 + rise;
          canvas.add(placed(fabric, title, { left: width / 2, top }));
          const accentTop = top + title.height + min * 0.03;
          canvas.add(
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
          if (subtitle) canvas.add(placed(fabric, subtitle, { left: width / 2, top: accentTop + min * 0.05, opacity: 0.92 }));
        },
      };
    },
  };
}

/** The scene's headline in a brand-coloured band at the top of a screen. */
function headlineLayer(plan: RenderPlan, clip: PlannedClip) {
  return {
    type: 'fabric',
    func: ({ width, height, fabric }: FabricArgs) => {
      const min = Math.min(width, height);
      const pad = min * 0.025;
      const band = clip.headline
        ? bakedText(
            fabric,
            plan,
            clip.headline,
            { fill: contrastText(plan.brand.primary), fontSize: Math.round(min * 0.042), fontWeight: 'bold', width: width * 0.86 },
            { fill: plan.brand.primary, pad, radius: pad, fullWidth: width * 0.92 },
          )
        : null;
      return {
        onRender(progress: number, canvas: FabricCanvas) {
          if (band)
            canvas.add(placed(fabric, band, { left: width / 2, top: height * 0.05 - pad, opacity: 0.9 * Math.min(1, progress * 6) }));
        },
      };
    },
  };
}

/** Burned-in captions: the cue of the moment, on a dark rounded box in the lower part of the frame. */
function captionsLayer(plan: RenderPlan, clip: PlannedClip) {
  return {
    type: 'fabric',
    func: ({ width, height, fabric }: FabricArgs) => {
      const min = Math.min(width, height);
      const pad = min * 0.02;
      const baked = new Map<string, ReturnType<typeof bakedText>>();
      const bottom = height * (height > width ? 0.78 : 0.9) + pad;
      return {
        onRender(progress: number, canvas: FabricCanvas) {
          const cue = captionAt(clip.captions, clip.start + progress * clip.duration);
          if (!cue) return;
          if (!baked.has(cue.text))
            baked.set(
              cue.text,
              bakedText(
                fabric,
                plan,
                cue.text,
                { fill: '#ffffff', fontSize: Math.round(min * 0.046), width: width * 0.86 },
                { fill: 'rgba(0,0,0,0.72)', pad, radius: pad },
                true,
              ),
            );
          canvas.add(placed(fabric, baked.get(cue.text)!, { left: width / 2, top: bottom, originY: 'bottom' }));
        },
      };
    },
  };
}

export function editlyConfig(plan: RenderPlan): Record<string, unknown> {
  const clips = plan.clips.map((clip) => {
    const layers: Array<Record<string, unknown>> =
      clip.kind === 'screen' && clip.imagePath
        ? [
            { type: 'image', path: clip.imagePath, resizeMode: 'cover', zoomDirection: clip.zoom, zoomAmount: KEN_BURNS_ZOOM },
            headlineLayer(plan, clip),
          ]
        : [cardLayer(plan, clip)];
    if (clip.captions.length) layers.push(captionsLayer(plan, clip));
    return { duration: clip.duration, layers };
  });
  const { preset, crf, fps } = plan.encoding;
  return {
    outPath: plan.videoOnlyPath,
    width: plan.width,
    height: plan.height,
    fps,
    defaults: { transition: { name: 'fade', duration: plan.transitionSeconds } },
    clips,
    keepSourceAudio: false,
    customOutputArgs: [
      '-an',
      '-vf',
      'format=yuv420p',
      '-c:v',
      'libx264',
      '-profile:v',
      'high',
      '-preset:v',
      preset,
      '-crf',
      String(crf),
      '-movflags',
      '+faststart',
    ],
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

async function main(planPath: string): Promise<void> {
  dieWithParent(path.dirname(planPath));
  const plan = JSON.parse(await fs.readFile(planPath, 'utf8')) as RenderPlan;
  // editly prints progress on stdout; the parent keeps only stderr.
  const editly = ((await import('editly')) as unknown as { default: (config: Record<string, unknown>) => Promise<void> }).default;
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
