/**
 * The storyboard: the one document per video (language × platform) that the renderer consumes.
 * Written by the voiceover stage, stored in the database (the renderer may run on another node);
 * every file it names is a key in lib/storage.ts.
 */
import type { LanguageCode, PlatformName } from '../config/catalog';

export type ScriptSource = 'localized_page' | 'translated' | 'source_text';

export interface NarrationSegment {
  text: string;
  /** The voice that speaks it: the video's language, or the page's for untranslated source text. */
  language: LanguageCode;
}

export interface StoryboardScene {
  index: number;
  kind: 'title' | 'screen' | 'closing';
  /** Screenshot shown in this scene (screen scenes). */
  screenshotKey: string | null;
  /** Short text drawn on screen (headline of the scene). */
  onScreenText: string;
  narration: NarrationSegment[];
  audioKey: string;
  startSeconds: number;
  /** Measured from the scene's audio (plus its pause), not estimated. */
  durationSeconds: number;
}

export interface Storyboard {
  version: 1;
  campaignId: string;
  videoId: string;
  language: LanguageCode;
  platform: PlatformName;
  frame: { width: number; height: number };
  direction: 'ltr' | 'rtl';
  /** Font family for on-screen text and captions in this language (installed Noto fonts). */
  font: string;
  brand: { name: string; domain: string; primary: string; background: string; text: string; palette: string[]; logoUrl: string | null };
  scriptSource: ScriptSource;
  scenes: StoryboardScene[];
  /** All scenes' audio joined: the video's voice track. */
  narrationKey: string;
  captionsKey: string;
  totalSeconds: number;
  closing: { ctaLabel: string; domain: string };
}

/** Installed Noto families (fonts-noto-core, fonts-noto-cjk) with glyphs for each language. */
export function fontFor(language: LanguageCode): string {
  switch (language) {
    case 'ja': return 'Noto Sans CJK JP';
    case 'ko': return 'Noto Sans CJK KR';
    case 'zh': return 'Noto Sans CJK SC';
    case 'ar': return 'Noto Sans Arabic';
    case 'hi': return 'Noto Sans Devanagari';
    case 'th': return 'Noto Sans Thai';
    default: return 'Noto Sans';
  }
}
