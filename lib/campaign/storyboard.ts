/**
 * The storyboard: the one document per video (language × platform) that the renderer consumes, and the
 * rules that make it from the plan and the spoken scenes (buildStoryboard). Written by the voiceover stage, stored in the database (the renderer may run on another node);
 * every file it names is a key in lib/storage/storage.ts.
 */
import { MUSIC_DEFAULT_VOLUME, type CampaignOptions } from './options';
import {
  PLATFORMS,
  type CaptionMode,
  type LanguageCode,
  type PlatformName,
  type RenderQuality,
  type VideoVariant,
} from '../../config/catalog';
import { luminance } from '../render/color';
import { typeScale, type ShotContent } from '../render/framing';
import type { CampaignPlanDocument, PlannedScene } from '../script/analyze';
import { PHRASES } from '../script/phrases';
import { storageKeys } from '../storage/keys';

export type ScriptSource = 'localized_page' | 'translated' | 'source_text';

export interface NarrationSegment {
  text: string;
  /** The voice that speaks it: the video's language, or the page's for untranslated source text. */
  language: LanguageCode;
}

export interface StoryboardScene {
  index: number;
  /**
   * Stable for the life of the video (the video document's scene id, decisions §12): `scene_<position>` when the voice
   * stage makes it (sceneIdAt); absent on storyboards stored before scenes had ids, which read the same from their position.
   */
  id?: string;
  kind: 'title' | 'screen' | 'closing';
  /** Screenshot shown in this scene (screen scenes). */
  screenshotKey: string | null;
  /** Its size and where its content is: the renderer crops around that box, never through it (lib/render/framing.ts). */
  screenshotContent?: ShotContent | null;
  /**
   * The video's own check found the page's lines cut at its crop's top or bottom edge, and the repair framed it again
   * (decisions §13): the renderer moves those edges further, to gaps between the capture's text boxes
   * (lib/render/framing.ts EDGE_REACH). Absent: the usual framing.
   */
  reframed?: boolean;
  /** Short text drawn on screen (headline of the scene). */
  onScreenText: string;
  narration: NarrationSegment[];
  audioKey: string;
  /** captions `words`: the scene's words timed in seconds of its own audio, kept so an edit can reuse the audio. */
  words?: Array<{ text: string; start: number; end: number }>;
  startSeconds: number;
  /** Measured from the scene's audio (plus its pause), not estimated. */
  durationSeconds: number;
}

export interface Storyboard {
  version: 1;
  /** The video document's revision (decisions §12): absent is 1, the first render; an accepted edit stores the next. */
  revision?: number;
  campaignId: string;
  videoId: string;
  language: LanguageCode;
  platform: PlatformName;
  /** The video's hook variant (decisions §15): its title scene is that variant's opening. Absent on storyboards stored before: "a". */
  variant?: VideoVariant;
  frame: { width: number; height: number };
  direction: 'ltr' | 'rtl';
  /** Font family for on-screen text and captions in this language (installed Noto fonts). */
  font: string;
  /** logoUrl: the page's own icon (not drawn); logoKey: the campaign's logo (create's brand.logo_url), drawn on the cards */
  brand: {
    name: string;
    domain: string;
    primary: string;
    background: string;
    text: string;
    palette: string[];
    logoUrl: string | null;
    logoKey?: string | null;
  };
  scriptSource: ScriptSource;
  scenes: StoryboardScene[];
  /** All scenes' audio joined: the video's voice track. */
  narrationKey: string;
  captionsKey: string;
  totalSeconds: number;
  closing: { ctaLabel: string; domain: string };
  /** The voice asked for (config/voices.ts id): recorded by an edit, which may change it; absent: the create's, else the default. */
  voiceId?: string;
  /** The engine and voice of the video's language (absent on storyboards written before it was recorded). */
  voice?: SpokenVoice;
  /** The campaign's choices (lib/campaign/options.ts); absent: captions burned, the render node's quality. */
  captions?: CaptionMode;
  quality?: RenderQuality;
  /** The campaign's music (create's music), as the capture stage stored it: mixed under the narration; absent: none. */
  music?: { key: string; volume: number };
}

/**
 * An accepted edit of a video (decisions §12) as the campaign actor records it and the voice stage speaks it: the video
 * document's editable part, checked and trimmed (lib/campaign/video-edit.ts readEdit). Here, beside the storyboard it
 * becomes, so that the database's models can name it without importing the document's modules.
 */
export interface VideoEditScene {
  id: string;
  kind: StoryboardScene['kind'];
  narration: string;
  headline: string;
  /** A screen scene's screenshot id (the document's assets.screens); null for the title and the closing. */
  screen: string | null;
}
export interface VideoEditDocument {
  voice_id: string;
  captions: CaptionMode;
  quality: RenderQuality;
  primary_color: string | null;
  scenes: VideoEditScene[];
}

/** A scene's id from its position, for scenes made by the voice stage and for storyboards stored before ids existed. */
export function sceneIdAt(position: number): string {
  return `scene_${position}`;
}

export interface SpokenVoice {
  engine: string;
  name: string;
}

/** Installed Noto families (fonts-noto-core, fonts-noto-cjk) with glyphs for each language. */
export function fontFor(language: LanguageCode): string {
  switch (language) {
    case 'ja':
      return 'Noto Sans CJK JP';
    case 'ko':
      return 'Noto Sans CJK KR';
    case 'zh':
      return 'Noto Sans CJK SC';
    case 'ar':
      return 'Noto Sans Arabic';
    case 'hi':
      return 'Noto Sans Devanagari';
    case 'th':
      return 'Noto Sans Thai';
    default:
      return 'Noto Sans';
  }
}

export interface StoryboardInput {
  campaignId: string;
  videoId: string;
  language: LanguageCode;
  platform: PlatformName;
  variant?: VideoVariant;
  plan: CampaignPlanDocument;
  scriptSource: ScriptSource;
  /** The language's spoken scenes, timed; screen scenes show the desktop screenshot. */
  scenes: StoryboardScene[];
  narrationKey: string;
  captionsKey: string;
  totalSeconds: number;
  ctaLabel: string;
  voice?: SpokenVoice;
  /** The campaign's creative options: captions, quality and brand colour carry into the storyboard. */
  options?: CampaignOptions | null;
}

/**
 * The screenshot a screen scene shows: the language's own version of the page where it has one (else the
 * source page); on a vertical frame its phone capture where there is one, on a landscape frame the desktop
 * capture, and on a square frame whichever shows the page's type larger once framed (lib/render/framing.ts).
 */
function screenFor(
  scene: PlannedScene,
  language: LanguageCode,
  frame: { width: number; height: number },
): Pick<StoryboardScene, 'screenshotKey' | 'screenshotContent'> {
  const screens = scene.localized?.[language] ?? scene;
  const desktop = { screenshotKey: screens.screenshotKey, screenshotContent: screens.screenshotContent ?? null };
  const phone = screens.mobileScreenshotKey
    ? { screenshotKey: screens.mobileScreenshotKey, screenshotContent: screens.mobileScreenshotContent ?? null }
    : null;
  if (!phone || frame.width > frame.height) return desktop;
  if (frame.height > frame.width || !desktop.screenshotContent || !phone.screenshotContent) return phone;
  return typeScale(phone.screenshotContent, frame) >= typeScale(desktop.screenshotContent, frame) ? phone : desktop;
}

/**
 * One video's storyboard: the frame of its platform, the brand from the plan (primary colour, a light
 * background, the logo), each language's own page where it has one, and, on vertical frames, the mobile
 * screenshots where the page had them.
 */
export function buildStoryboard(input: StoryboardInput): Storyboard {
  const { plan, platform, language } = input;
  const frame = PLATFORMS[platform];
  const palette = plan.brand.palette;
  return {
    version: 1,
    campaignId: input.campaignId,
    videoId: input.videoId,
    language,
    platform,
    ...(input.variant ? { variant: input.variant } : {}),
    frame: { ...frame },
    direction: PHRASES[language].direction,
    font: fontFor(language),
    brand: {
      name: plan.facts.name,
      domain: plan.facts.domain,
      primary: input.options?.brand?.primary_color ?? plan.brand.themeColor ?? palette[0] ?? '#1f2937',
      background: palette.find((c) => luminance(c) > 200) ?? '#ffffff',
      text: '#111827',
      palette,
      logoUrl: plan.brand.iconUrls[0] ?? null,
      logoKey: plan.brand.logoKey ?? null,
    },
    scriptSource: input.scriptSource,
    scenes: input.scenes.map((s) => (s.kind === 'screen' ? { ...s, ...screenFor(plan.scenes[s.index - 1], language, frame) } : s)),
    narrationKey: input.narrationKey,
    captionsKey: input.captionsKey,
    totalSeconds: input.totalSeconds,
    closing: { ctaLabel: input.ctaLabel, domain: plan.facts.domain },
    ...(input.voice ? { voice: input.voice } : {}),
    ...(input.options?.captions ? { captions: input.options.captions } : {}),
    ...(input.options?.quality ? { quality: input.options.quality } : {}),
    ...(input.options?.music
      ? { music: { key: storageKeys.music(input.campaignId), volume: input.options.music.volume ?? MUSIC_DEFAULT_VOLUME } }
      : {}),
  };
}
