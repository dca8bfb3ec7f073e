/**
 * The repair's plan (decisions §13): from a video's check, the scenes it should have instead, in the edit format the
 * voice stage speaks again (VideoEditScene, lib/campaign/storyboard.ts), and which flags that mends. Pure: the
 * rules are unit-tested without rendering (test/unit/quality-repair.test.ts).
 * - A scene whose only screen fault is a line cut at its crop's top or bottom is framed again (reframed) when the
 *   framing's further reach leaves its lines whole (nothing spoken again).
 * - A scene whose screen is at fault (blank, the same as another, text cut at a side, page text in another
 *   language) is replaced by the next-best section not yet shown (the candidates' order), its heading and its
 *   first sentences; else, for a blank or a repeated screen, dropped when the video keeps at least two screen
 *   scenes; else left flagged (a scene whose text is cut still shows its section).
 * - A repeated sentence is replaced by the section's next sentence not yet said, else removed when the scene keeps
 *   some narration; a scene left with nothing new says its section's heading as a sentence, else is dropped when the
 *   video keeps at least two screen scenes. A cut narration is cut back to its last whole sentence. Furniture (boilerplate) in a narration
 *   is replaced by the section's first sentence that is not; a furniture headline by the section's heading.
 * - Narration or headline not in the video's language: the section's own sentences (in the video's language) instead.
 * Unchanged scenes keep their ids; new scenes get ids the video does not use.
 */
import { sceneIdAt, type Storyboard, type VideoEditScene } from '../campaign/storyboard';
import type { ShotContent } from '../render/framing';
import { PHRASES } from '../script/phrases';
import { endsWithSentenceTerminator, splitSentences } from '../text';
import { boilerplateKind } from './boilerplate';
import { cutLine, type VideoCheck } from './check';
import { judgeLanguage } from './language';
import { foldSentence, headingSentence } from './narration';
import { pageViews, sceneIdOf } from './page-view';
import { frameFor } from '../render/plan';
import type { QualityFlag, QualityFlagCode, QualityRepair } from './report';

export interface RepairCandidate {
  /** screenshot storage key */
  key: string;
  heading: string | null;
  section?: number;
  /** the section's sentences in the video's language, page order */
  texts: string[];
  content?: ShotContent | null;
}

export interface RepairPlan {
  scenes: VideoEditScene[];
  /**
   * Scenes to frame again (StoryboardScene.reframed), their words and screen unchanged: a line the crop's top or
   * bottom edge cut, which the repair's reach of the framing leaves whole (lib/render/framing.ts EDGE_REACH).
   */
  reframed: string[];
  /** Whether any scene's words or screen changed (the voice stage speaks those again); false: only reframed scenes. */
  speak: boolean;
  repaired: QualityRepair[];
  unrepaired: QualityFlag[];
}

/** Flags about the picture: mended only by another screen (or none). */
const SCREEN_CODES: QualityFlagCode[] = ['blank_scene', 'duplicate_screen', 'cut_text'];
/** A video keeps at least this many screen scenes (decisions §13). */
export const MIN_SCREEN_SCENES = 2;
/** The flags for which a scene with no section left to replace it is dropped rather than left flagged. */
const DROPPED_FOR: QualityFlagCode[] = ['blank_scene', 'duplicate_screen'];
/** A replacement's narration: sentences up to this multiple of the replaced narration's length (at least one). */
const NARRATION_BUDGET = 1.2;

interface Working {
  edit: VideoEditScene;
  /** The screenshot it shows (storage key), null for the cards. */
  key: string | null;
}

export function planRepair(
  storyboard: Storyboard,
  check: VideoCheck,
  candidates: RepairCandidate[],
  screenIdOf: (key: string) => string,
): RepairPlan | null {
  const language = storyboard.language;
  const names = [storyboard.brand.name, storyboard.brand.domain];
  const separator = PHRASES[language].sentenceSeparator;
  const join = (parts: string[]) => parts.join(separator);
  const working: Working[] = storyboard.scenes.map((scene, position) => ({
    key: scene.screenshotKey,
    edit: {
      id: sceneIdOf(scene, position),
      kind: scene.kind,
      narration: join(scene.narration.map((segment) => segment.text)),
      headline: scene.onScreenText,
      screen: scene.kind === 'screen' && scene.screenshotKey ? screenIdOf(scene.screenshotKey) : null,
    },
  }));
  const original = JSON.stringify(working.map((w) => w.edit));
  const usedIds = new Set(working.map((w) => w.edit.id));
  const freshId = () => {
    let n = working.length;
    while (usedIds.has(sceneIdAt(n))) n += 1;
    usedIds.add(sceneIdAt(n));
    return sceneIdAt(n);
  };
  const sentences = (text: string) => splitSentences(text, language);
  // A section once shown (flagged or not) is never shown again in another scene's place.
  const everShown = new Set(storyboard.scenes.flatMap((s) => (s.screenshotKey ? [s.screenshotKey] : [])));
  /** Every sentence the video says now (folded). */
  const said = () => new Set(working.flatMap((w) => sentences(w.edit.narration).map(foldSentence)));
  const sectionOf = (key: string | null) => (key ? (candidates.find((c) => c.key === key) ?? null) : null);
  const usable = (text: string, except = said()) => !boilerplateKind(text) && !except.has(foldSentence(text));
  const repaired: QualityRepair[] = [];
  const unrepaired: QualityFlag[] = [];
  const byScene = new Map<string, QualityFlag[]>();
  for (const flag of check.flags) byScene.set(flag.scene_id, [...(byScene.get(flag.scene_id) ?? []), flag]);

  /** The first sentences of `texts` not said yet and not furniture, about `budget` characters (at least one). */
  const narrationFrom = (texts: string[], budget: number): string | null => {
    const taken: string[] = [];
    const except = said();
    for (const text of texts) {
      if (!usable(text, except)) continue;
      if (taken.length && join(taken).length + text.length > budget) break;
      taken.push(text);
      except.add(foldSentence(text));
    }
    return taken.length ? join(taken) : null;
  };
  const isForeign = (text: string) => judgeLanguage(text, language, { names }).foreign;

  const reframed: string[] = [];
  for (const [sceneId, flags] of byScene) {
    const index = working.findIndex((w) => w.edit.id === sceneId);
    if (index < 0) {
      unrepaired.push(...flags);
      continue;
    }
    const scene = working[index];
    const own = storyboard.scenes[storyboard.scenes.findIndex((s, position) => sceneIdOf(s, position) === sceneId)];
    // Text cut at the crop's top or bottom, and nothing else wrong with the screen: the same section framed again, when
    // the framing's further reach leaves its lines whole (no new words, nothing spoken again).
    if (flags.every((f) => f.code === 'cut_text' || !SCREEN_CODES.includes(f.code)) && flags.some((f) => f.code === 'cut_text')) {
      if (reframes(storyboard, sceneId)) {
        reframed.push(sceneId);
        repaired.push({ code: 'cut_text', scene_id: sceneId, action: 'reframed' });
        const rest = flags.filter((f) => f.code !== 'cut_text');
        if (!rest.length) continue;
        byScene.set(sceneId, rest);
        flags.splice(0, flags.length, ...rest);
      }
    }
    // Page text in another language: the narration and headline judged again; if they are fine, the screen is at fault.
    const wordsForeign = storyboard.scriptSource !== 'source_text' && (isForeign(scene.edit.narration) || isForeign(scene.edit.headline));
    const screenAtFault = flags.some((f) => SCREEN_CODES.includes(f.code) || (f.code === 'wrong_language' && !wordsForeign));
    if (scene.edit.kind === 'screen' && screenAtFault) {
      const next = candidates.find(
        (c) => !everShown.has(c.key) && narrationFrom(c.texts, scene.edit.narration.length * NARRATION_BUDGET) !== null,
      );
      if (next) {
        const narration = narrationFrom(next.texts, Math.max(scene.edit.narration.length, 1) * NARRATION_BUDGET)!;
        everShown.add(next.key);
        working[index] = {
          key: next.key,
          edit: { id: freshId(), kind: 'screen', narration, headline: next.heading ?? '', screen: screenIdOf(next.key) },
        };
        repaired.push(...flags.map((f) => ({ code: f.code, scene_id: sceneId, action: 'replaced' as const })));
        continue;
      }
      // Dropped only when the scene shows nothing worth keeping (an empty screen, a screen already shown): a scene whose
      // text is cut at a side, or in another language, still shows its section, so it stays, flagged.
      const worthless = flags.some((f) => DROPPED_FOR.includes(f.code));
      if (worthless && working.filter((w) => w.edit.kind === 'screen').length > MIN_SCREEN_SCENES) {
        working.splice(index, 1);
        repaired.push(...flags.map((f) => ({ code: f.code, scene_id: sceneId, action: 'dropped' as const })));
        continue;
      }
      unrepaired.push(...flags);
      continue;
    }
    // The words alone: each flag mended in the scene's narration or headline, or left.
    const section = sectionOf(scene.key);
    const texts = section?.texts ?? [];
    for (const [at, flag] of flags.entries()) {
      const before = JSON.stringify(scene.edit);
      if (flag.code === 'wrong_language' && section) {
        const narration = narrationFrom(texts, Math.max(join(own.narration.map((s) => s.text)).length, 1) * NARRATION_BUDGET);
        if (isForeign(scene.edit.narration) && narration) scene.edit.narration = narration;
        if (isForeign(scene.edit.headline) && section.heading && !isForeign(section.heading)) scene.edit.headline = section.heading;
      } else if (flag.code === 'repeated_narration') {
        const mended = withoutRepeats(scene, working, sentences, texts, usable, join);
        if (mended !== null) scene.edit.narration = mended;
        else {
          // Nothing of the section left to say: its heading as a sentence, when the video has not said that either;
          // else the scene is dropped while the video keeps two screen scenes; else it stays, flagged.
          const heading = headingSentence(section?.heading ?? scene.edit.headline, language);
          if (scene.edit.kind === 'screen' && heading && usable(heading) && !boilerplateKind(heading)) scene.edit.narration = heading;
          else if (scene.edit.kind === 'screen' && working.filter((w) => w.edit.kind === 'screen').length > MIN_SCREEN_SCENES) {
            // A dropped scene's flags are all mended by dropping it, those left before this one too.
            working.splice(index, 1);
            const left = unrepaired.filter((f) => f.scene_id === sceneId);
            unrepaired.splice(0, unrepaired.length, ...unrepaired.filter((f) => f.scene_id !== sceneId));
            repaired.push(...[...left, ...flags.slice(at)].map((f) => ({ code: f.code, scene_id: sceneId, action: 'dropped' as const })));
            break;
          }
        }
      } else if (flag.code === 'cut_narration') {
        const kept = wholePrefix(sentences(scene.edit.narration));
        if (kept.length) scene.edit.narration = join(kept);
        else {
          const replacement = narrationFrom(texts, scene.edit.narration.length * NARRATION_BUDGET);
          if (replacement) scene.edit.narration = replacement;
        }
      } else if (flag.code === 'boilerplate') {
        const parts = sentences(scene.edit.narration);
        const clean = parts.filter((p) => !boilerplateKind(p));
        if (clean.length < parts.length || boilerplateKind(scene.edit.narration)) {
          const replacement = texts.find((t) => usable(t));
          if (replacement) scene.edit.narration = join([replacement, ...clean]);
          else if (clean.length) scene.edit.narration = join(clean);
        }
        if (boilerplateKind(scene.edit.headline) && section?.heading && !boilerplateKind(section.heading))
          scene.edit.headline = section.heading;
      }
      if (JSON.stringify(scene.edit) !== before) repaired.push({ code: flag.code, scene_id: sceneId, action: 'renarrated' });
      else unrepaired.push(flag);
    }
  }
  const scenes = working.map((w) => w.edit);
  const speak = JSON.stringify(scenes) !== original;
  if (!speak && !reframed.length) return null;
  return { scenes, reframed, speak, repaired, unrepaired };
}

/**
 * Whether framing scene `sceneId` again (StoryboardScene.reframed) removes the line its crop's top or bottom edge
 * cuts, as the capture's text boxes tell (lib/quality/check.ts cutLine on lib/quality/page-view.ts's geometry): a
 * scene cut now and whole once reframed. A scene already reframed, or cut at a side, is not.
 */
export function reframes(storyboard: Storyboard, sceneId: string): boolean {
  const position = storyboard.scenes.findIndex((s, i) => sceneIdOf(s, i) === sceneId);
  const scene = storyboard.scenes[position];
  if (!scene || scene.kind !== 'screen' || scene.reframed || !scene.screenshotContent?.focus?.length) return false;
  const frame = frameFor(storyboard.frame, storyboard.quality ?? 'full');
  const now = pageViews(storyboard, frame)[position];
  if (!cutLine(now)) return false;
  return cutLine(pageViews(withReframed(storyboard, [sceneId]), frame)[position]) === null;
}

/** The sentences up to the last one that ends whole (a cut tail removed). */
function wholePrefix(parts: string[]): string[] {
  let end = parts.length;
  while (end > 0 && !endsWithSentenceTerminator(parts[end - 1])) end -= 1;
  return parts.slice(0, end);
}

/**
 * `scene`'s narration with each sentence said before (in an earlier scene, or earlier in itself) replaced by the
 * section's next sentence not said yet, else removed while some narration is left; null when nothing changes.
 */
function withoutRepeats(
  scene: Working,
  working: Working[],
  sentences: (text: string) => string[],
  texts: string[],
  usable: (text: string, except?: Set<string>) => boolean,
  join: (parts: string[]) => string,
): string | null {
  const position = working.indexOf(scene);
  const before = new Set(working.slice(0, position).flatMap((w) => sentences(w.edit.narration).map(foldSentence)));
  const everywhere = new Set(working.flatMap((w) => sentences(w.edit.narration).map(foldSentence)));
  const parts = sentences(scene.edit.narration);
  const out: string[] = [];
  let changed = false;
  for (const part of parts) {
    const folded = foldSentence(part);
    if (!before.has(folded)) {
      before.add(folded);
      out.push(part);
      continue;
    }
    changed = true;
    // The section's next sentence: after the last of this scene's sentences found in the section, not said anywhere.
    const at = Math.max(-1, ...out.map((o) => texts.findIndex((t) => foldSentence(t) === foldSentence(o))));
    const next = [...texts.slice(at + 1), ...texts.slice(0, at + 1)].find((t) => usable(t, everywhere));
    if (next) {
      everywhere.add(foldSentence(next));
      before.add(foldSentence(next));
      out.push(next);
    }
  }
  if (!changed) return null;
  return out.length ? join(out) : null;
}

/** `storyboard` with the scenes `sceneIds` marked reframed (StoryboardScene.reframed); the same object when none. */
export function withReframed(storyboard: Storyboard, sceneIds: string[]): Storyboard {
  if (!sceneIds.length) return storyboard;
  return {
    ...storyboard,
    scenes: storyboard.scenes.map((scene, position) =>
      sceneIds.includes(sceneIdOf(scene, position)) ? { ...scene, reframed: true } : scene,
    ),
  };
}
