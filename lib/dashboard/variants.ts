/**
 * The campaign page's hook variants (decisions §15): a campaign with variants shows each language × platform's videos
 * side by side, a, b, c, each with the opening it starts with (its title scene's headline and narration, as the script
 * wrote it), so the customer sees at a glance what each variant tries. Pure: no I/O.
 */
import { VIDEO_VARIANTS, isOneOf, type VideoVariant } from '../../config/catalog';
import type { ScriptDocument } from '../script/writer';
import { openingScene } from '../voice/variants';

/** A variant's opening in words: its headline on screen and what is said. */
export interface OpeningView {
  headline: string;
  narration: string;
}

/** One language × platform's videos, one per variant, in order. */
export interface VariantGroup<V> {
  language: string;
  platform: string;
  videos: Array<V & { variantLabel: string; opening: OpeningView | null }>;
}

/** "Variant A". */
export function variantLabel(variant: string): string {
  return `Variant ${variant.toUpperCase()}`;
}

/**
 * The videos grouped by language × platform (in the order given: GET's), each with its variant's opening from its
 * language's script (null before the script is written), or null when the campaign has no variants (one video each).
 */
export function variantGroups<V extends { language: string; platform: string; variant: string }>(
  videos: readonly V[],
  scripts: ReadonlyArray<{ language: string; script: ScriptDocument }>,
): Array<VariantGroup<V>> | null {
  if (!videos.some((v) => v.variant !== 'a')) return null;
  const groups: Array<VariantGroup<V>> = [];
  for (const video of videos) {
    let group = groups.find((g) => g.language === video.language && g.platform === video.platform);
    if (!group) {
      group = { language: video.language, platform: video.platform, videos: [] };
      groups.push(group);
    }
    const script = scripts.find((s) => s.language === video.language)?.script;
    const variant: VideoVariant = isOneOf(VIDEO_VARIANTS, video.variant) ? video.variant : 'a';
    const scene = script ? openingScene(script, variant) : null;
    group.videos.push({
      ...video,
      variantLabel: variantLabel(variant),
      opening: scene ? { headline: scene.onScreenText, narration: scene.narration.map((n) => n.text).join(' ') } : null,
    });
  }
  return groups;
}
