/**
 * From a storyboard to a render plan: everything the editly child process needs, as plain JSON, with
 * local file paths. Pure, so the timing rules are unit-tested without rendering.
 *
 * Timing: clips overlap by the transition, so every clip but the last is lengthened by it; clip i then
 * starts exactly at its scene's start, and the video lasts exactly the storyboard's totalSeconds, which
 * is the narration's length.
 */
import type { Cue } from '../voice/captions';
import type { Box, ShotContent } from './framing';
import { chooseFocus } from './camera';
import type { ClipScroll, RawStill } from './clip-graph';
import { wrapsAnywhere } from '../text';
import { PLATFORM_UI_INSETS, type CaptionMode, type LanguageCode, type PlatformUiInsets, type RenderQuality } from '../../config/catalog';
import type { Storyboard, StoryboardScene } from '../campaign/storyboard';

export interface RenderEncoding {
  preset: string;
  crf: number;
  fps: number;
  /**
   * A screen's still is composed at this multiple of the frame's size for its Ken Burns zoom
   * (lib/render/clip-graph.ts): 2 moves the picture in half-pixel steps, 1 in whole pixels at half the cost.
   */
  zoomSupersample: 1 | 2;
}

export const ENCODING: Record<RenderQuality, RenderEncoding> = {
  full: { preset: 'veryfast', crf: 20, fps: 30, zoomSupersample: 2 },
  draft: { preset: 'ultrafast', crf: 28, fps: 25, zoomSupersample: 1 },
};
export const TRANSITION_SECONDS = 0.4;

export interface PlannedCaption {
  start: number;
  end: number;
  text: string;
  /** captions `words`: each word's start (video seconds), from the WebVTT's cue-internal timestamps */
  words?: Array<{ text: string; start: number }>;
}

export interface PlannedClip {
  kind: StoryboardScene['kind'];
  /** Seconds, transition overlap included. */
  duration: number;
  /** A head's first screen (lib/render/splice.ts): editly shows only this much of it, its frames those of its whole `duration`. */
  shownSeconds?: number;
  /** Where the clip starts in the video (seconds). */
  start: number;
  imagePath: string | null;
  /** The image's size and content box, for a crop that never cuts the page's text; null: fitted whole. */
  imageContent: ShotContent | null;
  /** The screen composed for the frame (lib/render/render-video.ts), raw yuv420p; set before editly runs. */
  still?: RawStill;
  /** The element of the screenshot its narration speaks of (image pixels), marked on the page; absent: none found. */
  focus?: Box | null;
  /** The repair reframed it (StoryboardScene.reframed): its crop's edges may move further to leave the page's lines whole. */
  reframed?: boolean;
  /** A section taller than the page's zone, scrolled through it (lib/render/camera.ts); set with `still`. */
  scroll?: ClipScroll;
  headline: string;
  zoom: 'in' | 'out';
  /** Captions whose time overlaps this clip, in video time. */
  captions: PlannedCaption[];
}

/** Where a render's picture is cut between the variant's own head and the shared tail. */
export interface PlanSplit {
  /** The title clip's frames (N0): the head's length. */
  headFrames: number;
  /** The fade from the title into the first screen, in frames (t0): the tail starts at the first screen's frame t0. */
  transitionFrames: number;
  /** The head's file: the first headFrames frames. */
  headPath: string;
  /** The tail's file (every frame after the head), or null: the tail is not rendered (another render made it). */
  tailPath: string | null;
}

export interface RenderPlan {
  width: number;
  height: number;
  encoding: RenderEncoding;
  transitionSeconds: number;
  font: string;
  direction: 'ltr' | 'rtl';
  language: LanguageCode;
  /** Scripts without spaces between words: their titles are broken into lines by breakForBox, not by the text box. */
  wrapAnywhere: boolean;
  /** The edges the platform's app covers with its own UI: the headline band and captions keep out of them (lib/render/overlay-layout.ts). */
  uiInsets: PlatformUiInsets;
  /** burned: cues drawn on a box at the bottom (its room reserved below every page); words: the same row, a short
   * group at a time, the word being said highlighted; file_only: nothing drawn. */
  captions: CaptionMode;
  brand: Storyboard['brand'];
  /** The campaign's logo fetched to a local file, drawn on the title and closing cards; null without one. */
  logoPath: string | null;
  closing: Storyboard['closing'];
  clips: PlannedClip[];
  totalSeconds: number;
  /** Video-only output of editly; the narration is muxed afterwards without re-encoding the picture. */
  videoOnlyPath: string;
  /** A hook variant's render in two parts (lib/render/splice.ts): editly writes the head and the tail, joined after. */
  split?: PlanSplit;
}

/** decisions §4: draft renders a quarter of the frame area (half each side), even dimensions for x264. */
export function frameFor(frame: { width: number; height: number }, quality: RenderQuality): { width: number; height: number } {
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  return quality === 'draft'
    ? { width: even(frame.width / 2), height: even(frame.height / 2) }
    : { width: even(frame.width), height: even(frame.height) };
}

export function buildRenderPlan(
  storyboard: Storyboard,
  cues: Cue[],
  localPath: (key: string) => string,
  opts: { quality: RenderQuality; videoOnlyPath: string; transitionSeconds?: number; encoding?: Partial<RenderEncoding> },
): RenderPlan {
  const transition = opts.transitionSeconds ?? TRANSITION_SECONDS;
  const scenes = storyboard.scenes;
  if (scenes.length === 0) throw new Error('storyboard has no scenes');
  const clips: PlannedClip[] = scenes.map((scene, index) => {
    const last = index === scenes.length - 1;
    // A transition may take at most half of either neighbour (editly clamps the same way).
    const overlap = last ? 0 : Math.min(transition, scene.durationSeconds / 2, scenes[index + 1].durationSeconds / 2);
    const duration = scene.durationSeconds + overlap;
    const start = scene.startSeconds;
    return {
      kind: scene.kind,
      duration,
      start,
      imagePath: scene.screenshotKey ? localPath(scene.screenshotKey) : null,
      imageContent: scene.screenshotKey ? (scene.screenshotContent ?? null) : null,
      focus: scene.screenshotKey
        ? (chooseFocus(scene.screenshotContent?.focus, scene.narration.map((part) => part.text).join(' '), storyboard.language)?.box ??
          null)
        : null,
      ...(scene.reframed ? { reframed: true } : {}),
      headline: scene.onScreenText,
      zoom: index % 2 === 0 ? 'in' : 'out',
      // file_only: the captions are the WebVTT and SubRip files alone, nothing is drawn.
      captions:
        storyboard.captions === 'file_only'
          ? []
          : cues.filter((cue) => cue.end > start && cue.start < start + duration).map((cue) => ({ ...cue })),
    };
  });
  return {
    ...frameFor(storyboard.frame, opts.quality),
    encoding: { ...ENCODING[opts.quality], ...opts.encoding },
    transitionSeconds: transition,
    font: storyboard.font,
    direction: storyboard.direction,
    language: storyboard.language,
    wrapAnywhere: wrapsAnywhere(storyboard.language),
    uiInsets: {
      ...(PLATFORM_UI_INSETS[storyboard.platform] ??
        PLATFORM_UI_INSETS[storyboard.frame.height > storyboard.frame.width ? 'tiktok' : 'youtube']),
    },
    captions: storyboard.captions ?? 'burned',
    brand: storyboard.brand,
    logoPath: storyboard.brand.logoKey ? localPath(storyboard.brand.logoKey) : null,
    closing: storyboard.closing,
    clips,
    totalSeconds: storyboard.totalSeconds,
    videoOnlyPath: opts.videoOnlyPath,
  };
}
