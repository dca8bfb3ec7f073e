/**
 * What a flagged scene may be mended with (decisions §13): the sections of the page the video's screens come from, in
 * the page's order, each with its own sentences — those it shows (a repeated sentence is replaced by its section's
 * next one) and those it does not show yet (a blank screen is replaced by one of them) — from the screenshots the capture
 * stage took (their section heading and the text of their paragraph blocks), in the same viewport as the video's
 * screens. Their words may narrate a scene only where they are in the video's language: the language's own page, or
 * the page's text on a video narrated from it (script_source source_text); a translated video's candidates carry no
 * sentences, so a scene of it can be dropped but not given new words.
 */
import type { Storyboard } from '../campaign/storyboard';
import type { CapturedScreens } from '../campaign/video-document';
import { sentences, shotContent } from '../script/analyze';
import { endsWithSentenceTerminator } from '../text';
import type { RepairCandidate } from './repair';

/**
 * A short line that does not end as a sentence is a label, not prose: a section's eyebrow above its heading ("Trusted
 * Worldwide" on a real landing page was said glued to the next sentence, "Trusted Worldwide Our rigorous security…").
 */
const label = (text: string) => !endsWithSentenceTerminator(text) && text.split(/\s+/).length <= 4 && [...text].length <= 40;

export function repairCandidates(storyboard: Storyboard, captures: CapturedScreens[]): RepairCandidate[] {
  const shown = new Set(storyboard.scenes.flatMap((scene) => (scene.screenshotKey ? [scene.screenshotKey] : [])));
  const owner = captures.find((capture) => capture.screenshots.some((shot) => shown.has(shot.key)));
  if (!owner) return [];
  const viewports = new Set(owner.screenshots.filter((shot) => shown.has(shot.key)).map((shot) => shot.viewport));
  const ownLanguage = (owner.language ?? '').toLowerCase().split('-')[0] === storyboard.language;
  const speaksPage = ownLanguage || storyboard.scriptSource === 'source_text';
  return owner.screenshots
    .filter((shot) => viewports.has(shot.viewport))
    .sort((a, b) => (a.section ?? Number.MAX_SAFE_INTEGER) - (b.section ?? Number.MAX_SAFE_INTEGER) || a.index - b.index)
    .map((shot) => {
      const heading = shot.heading ?? null;
      const blocks = (shot.focus ?? [])
        .map((block) => block.text.replace(/\s+/g, ' ').trim())
        .filter((text) => text && text !== heading && !label(text));
      return {
        key: shot.key,
        heading,
        ...(shot.section !== undefined ? { section: shot.section } : {}),
        texts: speaksPage ? blocks.flatMap((block) => sentences(block)) : [],
        content: shotContent(shot),
      };
    });
}
