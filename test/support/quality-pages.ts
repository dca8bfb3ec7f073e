/**
 * Pages and frames drawn on purpose for the video's own check (lib/quality/check.ts): a phone capture of a section
 * (pixel ratio 2) with its text boxes recorded as the capture records them, and a video frame composed as the
 * renderer composes one — the page's picture where lib/quality/page-view.ts says the renderer draws it, a dark
 * backdrop, the headline band above and a caption box below — so each rule can be shown one defect at a time.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Storyboard, StoryboardScene } from '../../lib/campaign/storyboard';
import type { ShotContent } from '../../lib/render/framing';
import { pageViews } from '../../lib/quality/page-view';
import { writeSilence } from './silence';
import { toWebVtt } from '../../lib/voice/captions';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createCanvas, loadImage } = require('canvas') as typeof import('canvas');

export interface PageSpec {
  /** The section's heading, drawn larger. */
  heading?: string;
  /** Its paragraphs, one line each (long lines run off the page's right side: not wrapped). */
  lines: string[];
  font?: string;
  background?: string;
  ink?: string;
  direction?: 'ltr' | 'rtl';
  /** Record the text boxes (the capture's focus); false: a capture without them. */
  focus?: boolean;
  /** A dark page with only a thin strip of picture (an image that did not load), no text. */
  emptyStrip?: boolean;
  /** A different accent block drawn at the top (tells two otherwise alike pages apart by pixels). */
  accent?: string;
  /** A wall of coloured logo shapes over the whole page, drawn before the text (a partners' or clients' hero). */
  logoWall?: boolean;
  /** A menu of pale rows, each with a small outlined icon at its right and no words (a component library's index). */
  listRows?: boolean;
  /** Record the lines as one text box, as the capture records a paragraph (a <p>), rather than one box a line. */
  paragraph?: boolean;
  /** The content box's height (image pixels from its top), as the capture records it: a section shot down to there. */
  contentHeight?: number;
}

const [WIDTH, HEIGHT, RATIO] = [780, 900, 2];

/** A phone capture of one section (780×900 image pixels, pixel ratio 2): its file and what the capture records of it. */
export function drawPage(file: string, spec: PageSpec): ShotContent {
  const canvas = createCanvas(WIDTH, HEIGHT);
  const ctx = canvas.getContext('2d');
  const font = spec.font ?? 'Noto Sans';
  const rtl = spec.direction === 'rtl';
  ctx.fillStyle = spec.emptyStrip ? '#101114' : (spec.background ?? '#ffffff');
  ctx.fillRect(0, 0, WIDTH, HEIGHT);
  const content = { x: 24, y: 24, width: WIDTH - 48, height: spec.contentHeight ?? HEIGHT - 48 };
  const focus: NonNullable<ShotContent['focus']> = [];
  if (spec.emptyStrip) {
    const strip = ctx.createLinearGradient(0, 0, WIDTH, 0);
    strip.addColorStop(0, '#3b82f6');
    strip.addColorStop(1, '#f97316');
    ctx.fillStyle = strip;
    ctx.fillRect(content.x, 420, content.width, 16);
  } else {
    if (spec.logoWall) drawLogoWall(ctx, content);
    if (spec.listRows) drawListRows(ctx, content);
    if (spec.accent) {
      ctx.fillStyle = spec.accent;
      ctx.fillRect(content.x, content.y, content.width, 60);
    }
    ctx.fillStyle = spec.ink ?? '#111827';
    ctx.textAlign = rtl ? 'right' : 'left';
    const x = rtl ? content.x + content.width - 16 : content.x + 16;
    let y = content.y + (spec.accent ? 90 : 20);
    const write = (text: string, size: number, bold: boolean) => {
      ctx.font = `${bold ? 'bold ' : ''}${size}px "${font}"`;
      const width = ctx.measureText(text).width;
      ctx.fillText(text, x, y + size);
      focus.push({ box: { x: rtl ? x - width : x, y, width, height: size * 1.3 }, text });
      y += size * 1.6;
    };
    if (spec.heading) write(spec.heading, 24 * RATIO, true);
    const first = focus.length;
    for (const line of spec.lines) write(line, 16 * RATIO, false);
    if (spec.paragraph && focus.length > first + 1) {
      const lines = focus.splice(first);
      const [top, last] = [lines[0].box, lines[lines.length - 1].box];
      const left = Math.min(...lines.map((l) => l.box.x));
      const right = Math.max(...lines.map((l) => l.box.x + l.box.width));
      const text = lines.map((l) => l.text).join(spec.font?.includes('CJK') ? '' : ' ');
      focus.push({ box: { x: left, y: top.y, width: right - left, height: last.y + last.height - top.y }, text });
    }
  }
  fs.writeFileSync(file, canvas.toBuffer('image/png'));
  return { width: WIDTH, height: HEIGHT, pixelRatio: RATIO, textPx: 16, content, ...(spec.focus === false ? {} : { focus }) };
}

const LOGO_COLOURS = ['#ef4444', '#0ea5e9', '#22c55e', '#a855f7', '#f59e0b', '#111827'];

/** Rows of logo-like shapes (discs, bars, rings) across `area`, kept clear of its sides. */
function drawLogoWall(
  ctx: ReturnType<ReturnType<typeof createCanvas>['getContext']>,
  area: { x: number; y: number; width: number; height: number },
): void {
  const [columns, rows] = [4, 6];
  const [cellWidth, cellHeight] = [area.width / columns, area.height / rows];
  for (let row = 0; row < rows; row += 1) {
    for (let column = 0; column < columns; column += 1) {
      const [cx, cy] = [area.x + (column + 0.5) * cellWidth, area.y + (row + 0.5) * cellHeight];
      ctx.fillStyle = LOGO_COLOURS[(row * columns + column) % LOGO_COLOURS.length];
      ctx.strokeStyle = ctx.fillStyle;
      ctx.lineWidth = 10;
      switch ((row + column) % 3) {
        case 0:
          ctx.beginPath();
          ctx.arc(cx, cy, cellHeight * 0.3, 0, Math.PI * 2);
          ctx.fill();
          break;
        case 1:
          ctx.fillRect(cx - cellWidth * 0.3, cy - cellHeight * 0.12, cellWidth * 0.6, cellHeight * 0.24);
          break;
        default:
          ctx.beginPath();
          ctx.arc(cx, cy, cellHeight * 0.25, 0, Math.PI * 2);
          ctx.stroke();
      }
    }
  }
}

/** Pale rows down `area`, each outlined, with a small outlined square at its right. */
function drawListRows(
  ctx: ReturnType<ReturnType<typeof createCanvas>['getContext']>,
  area: { x: number; y: number; width: number; height: number },
): void {
  const rowHeight = 90;
  ctx.lineWidth = 3;
  for (let y = area.y + 20; y + rowHeight <= area.y + area.height - 20; y += rowHeight + 20) {
    ctx.fillStyle = '#f7f7f7';
    ctx.fillRect(area.x + 20, y, area.width - 40, rowHeight);
    ctx.strokeStyle = '#9ca3af';
    ctx.strokeRect(area.x + 20, y, area.width - 40, rowHeight);
    ctx.strokeStyle = '#111827';
    ctx.strokeRect(area.x + area.width - 90, y + 25, 40, 40);
  }
}

/** A scene of a test storyboard: screen scenes show `page`, every scene lasts `seconds`. */
export function sceneOf(
  position: number,
  kind: StoryboardScene['kind'],
  narration: string,
  headline: string,
  page: { key: string; content: ShotContent | null } | null = null,
  seconds = 3,
  language: StoryboardScene['narration'][number]['language'] = 'en',
): StoryboardScene {
  return {
    index: position,
    id: `scene_${position}`,
    kind,
    screenshotKey: page?.key ?? null,
    screenshotContent: page?.content ?? null,
    onScreenText: headline,
    narration: [{ text: narration, language }],
    audioKey: `scene-${position}.wav`,
    startSeconds: position * seconds,
    durationSeconds: seconds,
  };
}

/**
 * The frames of `storyboard`'s scenes at their midpoints as the renderer would draw them (frame size: the
 * storyboard's, or half of it for `draft`), in `dir`; `pages` maps a screenshot key to its file.
 */
export async function composeFrames(storyboard: Storyboard, pages: Record<string, string>, dir: string, draft = false): Promise<string[]> {
  const size = draft
    ? { width: storyboard.frame.width / 2, height: storyboard.frame.height / 2 }
    : { width: storyboard.frame.width, height: storyboard.frame.height };
  const views = pageViews(storyboard, size);
  const frames: string[] = [];
  for (const [position, scene] of storyboard.scenes.entries()) {
    const canvas = createCanvas(size.width, size.height);
    const ctx = canvas.getContext('2d');
    const view = views[position];
    ctx.fillStyle = scene.kind === 'screen' ? '#2b2f36' : storyboard.brand.primary;
    ctx.fillRect(0, 0, size.width, size.height);
    const min = Math.min(size.width, size.height);
    if (scene.kind === 'screen' && view.area && scene.screenshotKey) {
      const image = await loadImage(pages[scene.screenshotKey]);
      const shown = view.shown ?? { x: 0, y: 0, width: image.width, height: image.height };
      ctx.drawImage(image, shown.x, shown.y, shown.width, shown.height, view.area.x, view.area.y, view.area.width, view.area.height);
      // The band above the page and the caption box below it, as the renderer draws them around its zone.
      ctx.fillStyle = '#111827';
      ctx.fillRect(min * 0.04, min * 0.03, size.width - min * 0.08, Math.max(4, view.area.y - min * 0.05));
      ctx.fillStyle = '#ffffff';
      ctx.font = `bold ${Math.round(min * 0.042)}px "Noto Sans"`;
      ctx.fillText(scene.onScreenText.slice(0, 24), min * 0.08, min * 0.1);
      ctx.fillStyle = 'rgba(0,0,0,0.72)';
      const captionTop = view.area.y + view.area.height + min * 0.03;
      ctx.fillRect(size.width * 0.1, captionTop, size.width * 0.8, min * 0.12);
      ctx.fillStyle = '#ffffff';
      ctx.font = `${Math.round(min * 0.046)}px "Noto Sans"`;
      ctx.fillText(scene.narration[0].text.slice(0, 28), size.width * 0.12, captionTop + min * 0.08);
    } else {
      ctx.fillStyle = '#ffffff';
      ctx.font = `bold ${Math.round(min * 0.07)}px "Noto Sans"`;
      ctx.fillText(scene.onScreenText.slice(0, 20), min * 0.1, size.height / 2);
    }
    const file = path.join(dir, `frame-${position}.png`);
    fs.writeFileSync(file, canvas.toBuffer('image/png'));
    frames.push(file);
  }
  return frames;
}

/** A video of `frames`, each held for its scene's length (H.264, a few frames a second): what checkVideo reads. */
export function videoOfFrames(storyboard: Storyboard, frames: string[], output: string): string {
  const list = path.join(path.dirname(output), `${path.basename(output)}.txt`);
  const entries = storyboard.scenes.flatMap((scene, i) => [`file '${frames[i]}'`, `duration ${scene.durationSeconds}`]);
  fs.writeFileSync(list, [...entries, `file '${frames.at(-1)}'`].join('\n'));
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'concat',
    '-safe',
    '0',
    '-i',
    list,
    '-vf',
    'fps=4,format=yuv420p',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-crf',
    '18',
    output,
  ]);
  return output;
}

/** The storyboard's narration and captions files, silent, for a real render (lib/render/render-video.ts). */
export function writeSilentAudio(storyboard: Storyboard, dir: string): void {
  for (const scene of storyboard.scenes) writeSilence(path.join(dir, scene.audioKey), scene.durationSeconds);
  writeSilence(path.join(dir, storyboard.narrationKey), storyboard.totalSeconds);
  const cues = storyboard.scenes.map((scene) => ({
    start: scene.startSeconds,
    end: scene.startSeconds + scene.durationSeconds,
    text: scene.narration
      .map((n) => n.text)
      .join(' ')
      .slice(0, 40),
  }));
  fs.writeFileSync(path.join(dir, storyboard.captionsKey), toWebVtt(cues));
}
