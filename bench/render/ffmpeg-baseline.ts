/**
 * The floor for the renderer benchmark: the same slideshow as our editly renderer, from the same storyboard,
 * as ONE hand-written ffmpeg command (one process, one filter graph, no canvas, no GL).
 *
 * Per scene a clip of exactly its duration (plus the transition into the next, so that clip i still starts at
 * its scene's startSeconds and the video lasts storyboard.totalSeconds):
 *   title / closing  solid brand colour, name (or call to action) and a second line drawn centered, an accent bar
 *   screen           the screenshot contained over a blurred cover-scaled copy of itself ("contain-blur"),
 *                    composed once and looped, then a Ken Burns zoom 1.0 → 1.1 and the headline in a brand band
 * joined with xfade crossfades; captions (WebVTT → ASS, libass) burned in over the whole video; narration as audio.
 * Layout follows lib/render/editly-child.ts (sizes as fractions of the frame's shorter side); its small
 * entrance animations (title rise, headline fade-in) and rounded corners are left out.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseWebVtt, type Cue } from '../../lib/voice/captions';
import {
  boxInFrame,
  boxWithin,
  cutsContent,
  frameShot,
  KEN_BURNS_ZOOM,
  safeZoneFor,
  uncutFraming,
  type Box,
} from '../../lib/render/framing';
import { chooseFocus, planScroll, scrollExpression } from '../../lib/render/camera';
import { highlightFilters } from '../../lib/render/clip-graph';
import type { Storyboard, StoryboardScene } from '../../lib/campaign/storyboard';
import { runMeasured, type ProcessStats } from './process-stats';

export interface FfmpegBaselineOptions {
  fps: number;
  preset: string;
  crf: number;
  width: number;
  height: number;
  /** Crossfade between scenes, seconds (default DEFAULT_TRANSITION_SECONDS). */
  transitionSeconds?: number;
}

export interface StoryboardFiles {
  resolve: (key: string) => string;
}

export const DEFAULT_TRANSITION_SECONDS = 0.5;
const ZOOM_END = 1.1;
/** gblur sigma for the blurred background, relative to the frame's shorter side. */
const BACKGROUND_BLUR = 0.02;
const CAPTION_BOX_OPACITY = 0.72;

/**
 * Renders the storyboard to outPath (H.264 + AAC MP4) with a single ffmpeg process.
 * Resolves with that process's wall time and peak RSS (callers that only need the file can ignore it).
 */
export async function renderWithFfmpeg(
  storyboard: Storyboard,
  files: StoryboardFiles,
  outPath: string,
  opts: FfmpegBaselineOptions,
): Promise<ProcessStats> {
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ffmpeg-baseline-'));
  try {
    const args = await buildFfmpegArgs(storyboard, files, outPath, opts, workDir);
    return await runMeasured('ffmpeg', args);
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

/**
 * The ffmpeg arguments (no shell quoting needed: pass them as an array). Writes the captions as ASS into
 * workDir, which must outlive the ffmpeg run.
 */
export async function buildFfmpegArgs(
  storyboard: Storyboard,
  files: StoryboardFiles,
  outPath: string,
  opts: FfmpegBaselineOptions,
  workDir: string,
): Promise<string[]> {
  const { width, height, fps } = opts;
  if (width % 2 || height % 2) throw new Error(`yuv420p needs even dimensions, got ${width}x${height}`);
  if (storyboard.scenes.length === 0) throw new Error('storyboard has no scenes');

  const cues = parseWebVtt(await fs.readFile(files.resolve(storyboard.captionsKey), 'utf8'));
  const assPath = path.join(workDir, 'captions.ass');
  await fs.writeFile(assPath, captionsAss(cues, storyboard.font, width, height));

  const fonts = await sceneFonts(storyboard.font);
  const timings = clipTimings(storyboard.scenes, fps, opts.transitionSeconds ?? DEFAULT_TRANSITION_SECONDS);
  const inputs: string[] = [];
  const graph: string[] = [];
  storyboard.scenes.forEach((scene, i) => {
    const label = `scene${i}`;
    if (scene.kind === 'screen' && scene.screenshotKey) {
      const input = inputs.push(files.resolve(scene.screenshotKey)) - 1;
      graph.push(...screenClip(`${input}:v`, label, scene, timings[i].frames, storyboard, fonts, opts));
    } else {
      graph.push(cardClip(label, scene, timings[i].frames, storyboard, fonts, opts));
    }
  });
  const joined = crossfades(timings, fps);
  graph.push(...joined.filters, `[${joined.label}]ass=filename=${filterValue(assPath)},format=yuv420p[video]`);
  const narrationInput = inputs.length;

  return [
    '-hide_banner',
    '-nostdin',
    '-nostats',
    '-loglevel',
    'error',
    '-y',
    ...inputs.flatMap((file) => ['-i', file]),
    '-i',
    files.resolve(storyboard.narrationKey),
    '-filter_complex',
    graph.join(';\n'),
    '-map',
    '[video]',
    '-map',
    `${narrationInput}:a`,
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-preset',
    opts.preset,
    '-crf',
    String(opts.crf),
    '-c:a',
    'aac',
    '-b:a',
    '128k',
    '-r',
    String(fps),
    '-t',
    storyboard.totalSeconds.toFixed(3),
    '-movflags',
    '+faststart',
    outPath,
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Timing

export interface ClipTiming {
  /** Frames in the clip, the transition into the next scene included. */
  frames: number;
  /** Frames shared with the next clip (0 for the last). */
  transitionFrames: number;
}

/**
 * Whole frames, counted from the scenes' start and end times (not from each duration alone), so rounding does
 * not accumulate: the joined video has round(totalSeconds × fps) frames. A transition takes at most half of
 * either neighbour, as in lib/render/plan.ts.
 */
export function clipTimings(scenes: StoryboardScene[], fps: number, transitionSeconds: number): ClipTiming[] {
  return scenes.map((scene, i) => {
    const next = scenes[i + 1];
    const overlap = next ? Math.min(transitionSeconds, scene.durationSeconds / 2, next.durationSeconds / 2) : 0;
    const startFrame = Math.round(scene.startSeconds * fps);
    const endFrame = Math.round((scene.startSeconds + scene.durationSeconds) * fps);
    // Down, so a transition never exceeds half a scene; the epsilon keeps 0.29 × 100 (28.999…) at 29.
    const transitionFrames = Math.floor(overlap * fps + 1e-9);
    return { frames: endFrame - startFrame + transitionFrames, transitionFrames };
  });
}

/** Chains [scene0]..[sceneN] with xfade, each starting where the video joined so far ends minus the overlap. */
function crossfades(timings: ClipTiming[], fps: number): { filters: string[]; label: string } {
  const filters: string[] = [];
  let label = 'scene0';
  let joinedFrames = timings[0].frames;
  for (let i = 1; i < timings.length; i++) {
    const overlapFrames = timings[i - 1].transitionFrames;
    const offsetFrames = joinedFrames - overlapFrames;
    const next = `joined${i}`;
    filters.push(
      overlapFrames > 0
        ? `[${label}][scene${i}]xfade=transition=fade:duration=${seconds(overlapFrames, fps)}:offset=${seconds(offsetFrames, fps)}[${next}]`
        : `[${label}][scene${i}]concat=n=2:v=1:a=0[${next}]`,
    );
    label = next;
    joinedFrames = offsetFrames + timings[i].frames;
  }
  return { filters, label };
}

const seconds = (frames: number, fps: number): string => (frames / fps).toFixed(6);

// ---------------------------------------------------------------------------------------------------------
// Clips

interface SceneFonts {
  regular: FontRef;
  bold: FontRef;
}

/** Sizes from lib/render/editly-child.ts, as fractions of the frame's shorter side. */
function layout(width: number, height: number) {
  const min = Math.min(width, height);
  return {
    min,
    titleSize: Math.round(min * 0.085),
    subtitleSize: Math.round(min * 0.045),
    headlineSize: Math.round(min * 0.042),
    captionSize: Math.round(min * 0.05),
  };
}

/** Title (brand name + headline) or closing (call to action + domain): brand colour, two centered lines, an accent bar between. */
function cardClip(
  label: string,
  scene: StoryboardScene,
  frames: number,
  storyboard: Storyboard,
  fonts: SceneFonts,
  opts: FfmpegBaselineOptions,
): string {
  const { width, height, fps } = opts;
  const { min, titleSize, subtitleSize } = layout(width, height);
  const ink = contrastInk(storyboard.brand.primary);
  const [main, sub] =
    scene.kind === 'title'
      ? [storyboard.brand.name, scene.onScreenText]
      : [storyboard.closing.ctaLabel || scene.onScreenText, storyboard.closing.domain];
  const mainTop = Math.round(height * 0.36);
  const accentTop = Math.round(mainTop + titleSize * 1.16 + min * 0.03);
  const accent = { w: Math.round(min * 0.16), h: Math.max(2, Math.round(min * 0.008)) };
  const filters = [
    `color=c=${ffmpegColor(storyboard.brand.primary)}:s=${width}x${height}:r=${fps}`,
    `trim=end_frame=${frames}`,
    drawCentered(main, fonts.bold, titleSize, ffmpegColor(ink), mainTop),
    `drawbox=x=${Math.round((width - accent.w) / 2)}:y=${accentTop}:w=${accent.w}:h=${accent.h}:color=${ffmpegColor(ink, 0.7)}:t=fill`,
  ];
  if (sub) filters.push(drawCentered(sub, fonts.regular, subtitleSize, ffmpegColor(ink, 0.92), Math.round(accentTop + min * 0.05)));
  filters.push('setsar=1', 'format=yuv420p');
  return `${filters.join(',')}[${label}]`;
}

/**
 * Screenshot scene: the contain-blur composition is made once from the single PNG frame and looped (a still
 * needs no per-frame blur), then zoompan zooms 1.0 → ZOOM_END about the centre; the headline band is drawn
 * after the zoom so it stays still. A screenshot with a content box is framed as ours frames it (lib/render/framing.ts,
 * the same geometry), the narrated element marked with the same drawbox; a section taller than its zone scrolls
 * as ours does (lib/render/camera.ts's plan and expression): its whole picture, looped, cropped by the time
 * expression and overlaid on the looped backdrop, before the zoom.
 */
function screenClip(
  input: string,
  label: string,
  scene: StoryboardScene,
  frames: number,
  storyboard: Storyboard,
  fonts: SceneFonts,
  opts: FfmpegBaselineOptions,
): string[] {
  const { width, height, fps } = opts;
  const { min, headlineSize } = layout(width, height);
  const size = `${width}x${height}`;
  const zoomStep = (ZOOM_END - 1) / Math.max(1, frames - 1);
  const shot = scene.screenshotContent;
  const camera = shot ? screenCamera(scene, storyboard, frames / fps, opts) : null;
  const still = [
    `[${input}]split=2[${label}cover][${label}contain]`,
    `[${label}cover]scale=${width}:${height}:force_original_aspect_ratio=increase,crop=${width}:${height},gblur=sigma=${Math.round(min * BACKGROUND_BLUR)}[${label}bg]`,
    camera
      ? `[${label}contain]crop=${camera.crop},scale=${camera.size}${camera.mark.map((f) => `,${f}`).join('')}[${label}fg]`
      : `[${label}contain]scale=${width}:${height}:force_original_aspect_ratio=decrease[${label}fg]`,
  ];
  const hold = [`loop=loop=${frames - 1}:size=1:start=0`, `setpts=N/(${fps}*TB)`];
  // Scrolled: one frame more (the fps filter that sets the stream's rate, as zoompan does otherwise, holds back
  // the last), cut back to `frames` after it.
  const scrollHold = [`loop=loop=${frames}:size=1:start=0`, `setpts=N/(${fps}*TB)`];
  if (camera?.scroll) {
    still.push(
      `[${label}bg]format=yuv420p,${scrollHold.join(',')}[${label}bgl]`,
      `[${label}fg]format=yuv420p,${scrollHold.join(',')},crop=${camera.scroll.crop}:'${camera.scroll.y}':exact=1[${label}win]`,
    );
  }
  const moving = [
    camera?.scroll
      ? `[${label}bgl][${label}win]overlay=x=${camera.x}:y=${camera.y}`
      : `[${label}bg][${label}fg]overlay=x=${camera ? camera.x : '(W-w)/2'}:y=${camera ? camera.y : '(H-h)/2'}`,
    'format=yuv420p',
    ...(camera?.scroll ? [`fps=${fps}`, `trim=end_frame=${frames}`] : hold),
    // A scrolled page does not also zoom (as ours: lib/render/clip-graph.ts scrollGraph).
    ...(camera?.scroll ? [] : [`zoompan=z='1+${zoomStep.toFixed(8)}*on':x='iw/2-iw/zoom/2':y='ih/2-ih/zoom/2':d=1:s=${size}:fps=${fps}`]),
  ];
  if (scene.onScreenText) {
    const pad = Math.round(min * 0.025);
    const textTop = Math.round(height * 0.05);
    const bandHeight = Math.round(headlineSize * 1.16 + pad * 2);
    moving.push(
      `drawbox=x=${Math.round(width * 0.04)}:y=${textTop - pad}:w=${Math.round(width * 0.92)}:h=${bandHeight}:color=${ffmpegColor(storyboard.brand.primary, 0.9)}:t=fill`,
      drawCentered(scene.onScreenText, fonts.bold, headlineSize, ffmpegColor(contrastInk(storyboard.brand.primary)), textTop),
    );
  }
  moving.push('setsar=1', 'format=yuv420p');
  return [...still, `${moving.join(',')}[${label}]`];
}

interface ScreenCamera {
  crop: string;
  size: string;
  mark: string[];
  x: number;
  y: number;
  scroll: { crop: string; y: string } | null;
}

/**
 * A screen framed as ours frames it: the region to crop and its size in the frame, where it goes, the drawbox
 * marking the narrated element, and for a section taller than its zone the window and scroll expression.
 */
function screenCamera(
  scene: StoryboardScene,
  storyboard: Storyboard,
  seconds: number,
  opts: FfmpegBaselineOptions,
  tryScroll = true,
): ScreenCamera {
  const shot = scene.screenshotContent!;
  const frame = { width: opts.width, height: opts.height };
  const safe = safeZoneFor(frame, {
    platform: storyboard.platform,
    captions: storyboard.captions,
    headline: scene.onScreenText,
    language: storyboard.language,
  });
  const cut = frameShot(shot, frame, KEN_BURNS_ZOOM, safe);
  const scrolls = tryScroll && cutsContent(shot, cut);
  const framing = scrolls ? uncutFraming(shot, cut) : cut;
  const focus = chooseFocus(shot.focus, scene.narration.map((n) => n.text).join(' '), storyboard.language)?.box ?? null;
  const e = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  const [w, h] = [e(framing.region.width * framing.scale), e(framing.region.height * framing.scale)];
  const onPicture = (box: Box): Box => {
    const inFrame = boxInFrame(box, framing);
    return { ...inFrame, x: inFrame.x - framing.at.x, y: inFrame.y - framing.at.y };
  };
  const marked = focus ? onPicture(focus) : null;
  const window = cut.region.height * cut.scale;
  const move = scrolls
    ? planScroll({
        pictureHeight: h,
        windowHeight: window,
        frameHeight: opts.height,
        duration: seconds,
        focus: marked ? { top: marked.y, bottom: marked.y + marked.height } : null,
      })
    : null;
  // Too short to scroll readably: cut, as ours does (ours cuts between two lines; the floor where the zone ends).
  if (scrolls && !move) return screenCamera(scene, storyboard, seconds, opts, false);
  const r = framing.region;
  return {
    crop: `${Math.round(r.width)}:${Math.round(r.height)}:${Math.round(r.x)}:${Math.round(r.y)}`,
    size: `${w}:${h}`,
    mark: marked && (move || boxWithin(focus!, r)) ? highlightFilters(marked, Math.min(opts.width, opts.height)) : [],
    x: Math.round(framing.at.x),
    y: Math.round(framing.at.y),
    scroll: move ? { crop: `${w}:${e(window)}:0`, y: scrollExpression(move) } : null,
  };
}

/** One line (drawtext does not wrap) centered horizontally, its top at `top`. */
function drawCentered(text: string, font: FontRef, fontSize: number, color: string, top: number): string {
  return [
    `drawtext=${fontOption(font)}`,
    `text=${filterValue(text)}`,
    'expansion=none',
    `fontsize=${fontSize}`,
    `fontcolor=${color}`,
    'x=(w-text_w)/2',
    `y=${top}`,
  ].join(':');
}

// ---------------------------------------------------------------------------------------------------------
// Captions

/**
 * WebVTT cues as an ASS script at the frame's own resolution: white text on a translucent dark box,
 * bottom-centered with its lower edge where the editly captions sit (78 % of the height for vertical frames,
 * 90 % otherwise). BorderStyle 4 (a libass extension) draws one box around all lines of a cue in BackColour,
 * padded by Shadow; standard BorderStyle 3 boxes each line, and translucent boxes overlap darker.
 */
export function captionsAss(cues: Cue[], fontFamily: string, width: number, height: number): string {
  const { min, captionSize } = layout(width, height);
  const bottom = height * (height > width ? 0.78 : 0.9);
  const marginV = Math.round(height - bottom);
  const marginH = Math.round(width * 0.08);
  const pad = Math.round(min * 0.02);
  const box = assColor('#000000', CAPTION_BOX_OPACITY);
  return [
    '[Script Info]',
    'ScriptType: v4.00+',
    `PlayResX: ${width}`,
    `PlayResY: ${height}`,
    'WrapStyle: 0',
    'ScaledBorderAndShadow: yes',
    'YCbCr Matrix: None',
    '',
    '[V4+ Styles]',
    'Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding',
    `Style: Caption,${fontFamily},${captionSize},${assColor('#ffffff')},${assColor('#ffffff')},${box},${box},0,0,0,0,100,100,0,0,4,0,${pad},2,${marginH},${marginH},${marginV},1`,
    '',
    '[Events]',
    'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text',
    ...cues.map((cue) => `Dialogue: 0,${assTime(cue.start)},${assTime(cue.end)},Caption,,0,0,0,,${assText(cue.text)}`),
    '',
  ].join('\n');
}

/** h:mm:ss.cc (ASS has centiseconds). */
function assTime(secondsValue: number): string {
  const cs = Math.round(secondsValue * 100);
  const h = Math.floor(cs / 360_000);
  const m = Math.floor((cs % 360_000) / 6000);
  const s = Math.floor((cs % 6000) / 100);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${h}:${pad(m)}:${pad(s)}.${pad(cs % 100)}`;
}

/** Line breaks become \N; braces (override blocks) and backslashes (\N, \h) are made literal. */
function assText(text: string): string {
  return text
    .replace(/\\/g, '\\\u2060') // a word joiner after "\" keeps "\N" in the text from being read as a break
    .replace(/[{}]/g, (brace) => `\\${brace}`)
    .split(/\r\n|\r|\n/)
    .join('\\N');
}

/** &HAABBGGRR, alpha 00 = opaque. */
function assColor(hex: string, opacity = 1): string {
  const [r, g, b] = rgb(hex).map((v) => v.toString(16).padStart(2, '0').toUpperCase());
  const alpha = Math.round((1 - opacity) * 255)
    .toString(16)
    .padStart(2, '0')
    .toUpperCase();
  return `&H${alpha}${b}${g}${r}`;
}

// ---------------------------------------------------------------------------------------------------------
// Colours, fonts, escaping

function rgb(hex: string): [number, number, number] {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) throw new Error(`not a hex colour: "${hex}"`);
  const digits = m[1].length === 3 ? [...m[1]].map((d) => d + d).join('') : m[1];
  return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16)) as [number, number, number];
}

function ffmpegColor(hex: string, opacity?: number): string {
  const value = `0x${rgb(hex)
    .map((v) => v.toString(16).padStart(2, '0'))
    .join('')}`;
  return opacity === undefined ? value : `${value}@${opacity}`;
}

/** Dark or white text for a background, with the same threshold as lib/render/editly-child.ts. */
function contrastInk(backgroundHex: string): string {
  const [r, g, b] = rgb(backgroundHex);
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#111827' : '#ffffff';
}

/** A font as fontconfig resolves it; `index` is the face inside a collection (.ttc). */
export interface FontRef {
  family: string;
  file: string;
  index: number;
}

const execFileAsync = promisify(execFile);

/** fc-match's file for a family and weight; throws when the family is not installed (fc-match would silently substitute another). */
export async function resolveFont(family: string, bold: boolean): Promise<FontRef> {
  const pattern = bold ? `${family}:bold` : family;
  const { stdout } = await execFileAsync('fc-match', ['-f', '%{family}\t%{file}\t%{index}', pattern]);
  const [families = '', file = '', index = '0'] = stdout.split('\t');
  if (!families.split(',').includes(family)) throw new Error(`font family "${family}" is not installed (fc-match gave "${families}")`);
  return { family, file, index: Number(index) };
}

async function sceneFonts(family: string): Promise<SceneFonts> {
  const [regular, bold] = await Promise.all([resolveFont(family, false), resolveFont(family, true)]);
  return { regular, bold };
}

/**
 * drawtext's fontfile always opens face 0 of a collection; Noto Sans CJK KR/SC are later faces of the same
 * .ttc, so those go through drawtext's fontconfig lookup by family instead (which honours the face index,
 * but takes no weight: regular).
 */
function fontOption(font: FontRef): string {
  return font.index === 0 ? `fontfile=${filterValue(font.file)}` : `font=${filterValue(font.family)}`;
}

/**
 * A value for a filter option inside -filter_complex, escaped twice: for the option parser (\ ' :) and then
 * for the graph parser (\ ' [ ] , ;). drawtext text also needs expansion=none so "%" stays literal.
 */
export function filterValue(value: string): string {
  const forOptionParser = value.replace(/[\\':]/g, '\\$&');
  return forOptionParser.replace(/[\\'[\],;]/g, '\\$&');
}
