/**
 * Hook variants in the voice stage (decisions §15): a language's videos of variant a, b and c differ only in their
 * title scene (the variant's opening: its narration and headline), so the voice stage speaks the shared scenes (the
 * screens and the closing) once per language and each variant's opening once, then puts each variant's voice track
 * together from its own opening and the shared audio. What is spoken and what each variant is made of is decided
 * here, without I/O, so that the reuse is a unit test's to hold.
 */
import { VIDEO_VARIANTS, type VideoVariant } from '../../config/catalog';
import type { StoryboardScene } from '../campaign/storyboard';
import { openingSegments } from '../script/hooks';
import type { ScriptDocument, ScriptScene } from '../script/writer';

/** One scene to speak: its place in the video (0 the title, then the screens, then the closing) and, for a title, its variant. */
export interface SceneJob {
  kind: StoryboardScene['kind'];
  scene: ScriptScene;
  /** Its index in every variant's storyboard. */
  index: number;
  /** The variant whose opening it is (its audio is named after it); null for a scene every variant shares. */
  variant: VideoVariant | null;
  /** A title's variants: `variant` and every later one whose opening is the same (spoken once, for them all). */
  opens?: VideoVariant[];
}

/** The variants among a campaign's videos of one language, in order (a, b, c); `a` when none is named. */
export function languageVariants(videos: ReadonlyArray<{ language: string; variant?: string | null }>, language: string): VideoVariant[] {
  const named = new Set(videos.filter((v) => v.language === language).map((v) => v.variant ?? 'a'));
  const variants = VIDEO_VARIANTS.filter((variant) => named.has(variant));
  return variants.length ? variants : ['a'];
}

/**
 * The title scene a variant opens with: its opening's headline on screen and its narration said in the video's
 * language. Variant a's is the script's own title scene (the writer makes it a's opening, segments and all); a script
 * without openings (written before they existed) or without this variant's opens every variant with its title.
 */
export function openingScene(script: ScriptDocument, variant: VideoVariant): ScriptScene {
  // A script stored before openings existed has none (its JSON lacks the member the type now requires).
  const openings: ScriptDocument['openings'] | undefined = script.openings;
  const opening = openings?.find((o) => o.variant === variant);
  if (variant === 'a' || !opening) return script.title;
  // The page's words in it are said by their own language's voice, as the writer says variant a's: a source_text
  // script's are the page's own (its screens' language), any other script's are the video's language.
  const wordsLanguage = script.source === 'source_text' ? (script.screens[0]?.narration[0]?.language ?? script.language) : script.language;
  return { onScreenText: opening.headline, narration: openingSegments(opening, script.language, wordsLanguage) };
}

/**
 * Every scene a language speaks: each variant's opening, then the shared scenes once (not once per variant). An opening
 * the same as an earlier variant's (its headline and narration: a variant without an opening of its own opens with the
 * title) is that variant's, not spoken again.
 */
export function sceneJobs(script: ScriptDocument, variants: readonly VideoVariant[]): SceneJob[] {
  const titles: SceneJob[] = [];
  for (const variant of variants) {
    const scene = openingScene(script, variant);
    const same = titles.find((job) => JSON.stringify(job.scene) === JSON.stringify(scene));
    if (same) same.opens!.push(variant);
    else titles.push({ kind: 'title', scene, index: 0, variant, opens: [variant] });
  }
  return [
    ...titles,
    ...script.screens.map((scene, n): SceneJob => ({ kind: 'screen', scene, index: n + 1, variant: null })),
    { kind: 'closing', scene: script.closing, index: script.screens.length + 1, variant: null },
  ];
}

/** A variant's scenes in the video's order: its own opening, then the shared scenes (the same spoken audio for every variant). */
export function variantScenes<T>(jobs: readonly SceneJob[], spoken: readonly T[], variant: VideoVariant): T[] {
  return jobs.flatMap((job, n) => (job.variant === null || job.opens?.includes(variant) ? [spoken[n]] : []));
}
