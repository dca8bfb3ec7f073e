/** Supported languages and platforms (decisions.md §4, §5). */
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
export const PLATFORM_NAMES = Object.keys(PLATFORMS) as PlatformName[];
export const DEFAULT_PLATFORMS: PlatformName[] = ['tiktok'];

export function isSupportedLanguage(code: string): code is LanguageCode {
  return (SUPPORTED_LANGUAGES as readonly string[]).includes(code);
}
