/** Supported languages and platforms (decisions.md §4, §5). */

/** Whether `value` is one of a vocabulary's words (a const tuple's own `includes` takes only its members). */
export function isOneOf<T extends string>(vocabulary: readonly T[], value: string): value is T {
  return vocabulary.some((word) => word === value);
}

export const SUPPORTED_LANGUAGES = [
  'en',
  'ja',
  'ko',
  'zh',
  'es',
  'fr',
  'de',
  'pt',
  'it',
  'nl',
  'pl',
  'ru',
  'tr',
  'ar',
  'hi',
  'id',
  'vi',
  'th',
  'sv',
  'uk',
] as const;
export type LanguageCode = (typeof SUPPORTED_LANGUAGES)[number];
export const DEFAULT_LANGUAGES: LanguageCode[] = ['en', 'ja', 'ko'];

export interface PlatformFrame {
  width: number;
  height: number;
}
export const PLATFORMS = {
  tiktok: { width: 1080, height: 1920 },
  instagram_reels: { width: 1080, height: 1920 },
  youtube_shorts: { width: 1080, height: 1920 },
  youtube: { width: 1920, height: 1080 },
  linkedin: { width: 1080, height: 1080 },
} as const satisfies Record<string, PlatformFrame>;
export type PlatformName = keyof typeof PLATFORMS;

/** The edges of a frame that the app playing it covers with its own buttons and text, as shares of the frame's sides. */
export interface PlatformUiInsets {
  top: number;
  bottom: number;
  left: number;
  right: number;
}
/**
 * Where each app draws over the video; the renderer keeps its headline band and captions out of these edges
 * (lib/render/overlay-layout.ts). TikTok, Instagram Reels and YouTube Shorts play 9:16 full screen under the same
 * furniture, placed alike (their creator guides' safe-zone templates, measured on 1080×1920):
 * - top 8 % (154 px): the status bar and the feed's tabs or search and camera icons ("Following | For you");
 * - bottom 20 % (384 px): the account name, the description, the sound line and the navigation bar; a long
 *   description or an ad's button reaches higher, but 20 % holds for an ordinary post;
 * - right 12 % (130 px): the column of buttons (profile, like, comment, share, sound), whose lowest part sits
 *   over the bottom fifth, its upper part beside the lower middle of the picture;
 * - left 4 % (43 px): the margin of the description's text, kept for symmetry of our band.
 * YouTube (16:9) and LinkedIn (1:1) show their controls over the picture only on a tap or a hover: nothing reserved.
 */
export const PLATFORM_UI_INSETS: Record<PlatformName, PlatformUiInsets> = {
  tiktok: { top: 0.08, bottom: 0.2, left: 0.04, right: 0.12 },
  instagram_reels: { top: 0.08, bottom: 0.2, left: 0.04, right: 0.12 },
  youtube_shorts: { top: 0.08, bottom: 0.2, left: 0.04, right: 0.12 },
  youtube: { top: 0, bottom: 0, left: 0, right: 0 },
  linkedin: { top: 0, bottom: 0, left: 0, right: 0 },
};
export const PLATFORM_NAMES = Object.keys(PLATFORMS) as PlatformName[];

/**
 * The longest video each platform takes as a post (their help pages, 2026: TikTok uploads 10 min, Instagram Reels and
 * YouTube Shorts 3 min, LinkedIn 10 min; YouTube 15 min for an unverified channel). A campaign's videos are far shorter
 * (VIDEO_TARGET_SECONDS); an edit's narration is the customer's and spoken as written, so it is checked against this.
 */
export const PLATFORM_MAX_SECONDS: Record<PlatformName, number> = {
  tiktok: 600,
  instagram_reels: 180,
  youtube_shorts: 180,
  youtube: 900,
  linkedin: 600,
};
export const DEFAULT_PLATFORMS: PlatformName[] = ['tiktok'];

/**
 * How a video is rendered (a campaign's `quality`, the node's RENDER_QUALITY): at the platform's frame, or a draft at
 * half its size and a cheaper encoding (lib/render/plan.ts ENCODING).
 */
export const RENDER_QUALITIES = ['full', 'draft'] as const;
export type RenderQuality = (typeof RENDER_QUALITIES)[number];
/** How a video carries its captions: burned in as lines, only as WebVTT/SRT files, or burned in word by word. */
export const CAPTION_MODES = ['burned', 'file_only', 'words'] as const;
export type CaptionMode = (typeof CAPTION_MODES)[number];

export function isSupportedLanguage(code: string): code is LanguageCode {
  return isOneOf(SUPPORTED_LANGUAGES, code);
}

/**
 * A video's hook variant (decisions §15): a campaign asks for 1–3 per language × platform, named in this order; each
 * opens differently (its title scene). A campaign without variants has one video per language × platform, variant `a`.
 */
export const VIDEO_VARIANTS = ['a', 'b', 'c'] as const;
export type VideoVariant = (typeof VIDEO_VARIANTS)[number];

/** The variants a campaign asking for `count` gets: `a`, then `b`, then `c`. */
export function variantsOf(count: number | null | undefined): VideoVariant[] {
  return VIDEO_VARIANTS.slice(0, Math.min(VIDEO_VARIANTS.length, Math.max(1, Math.floor(count ?? 1))));
}
