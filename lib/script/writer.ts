/**
 * Scripting: one narration script per language. Text comes, in order of preference (decisions.md §5),
 * from the page's own version in that language (hreflang, or the page's own language), from the
 * configured translation provider, or from the source text with fixed phrases in the target language.
 */
import type { LanguageCode } from '../../config/catalog';
import type { NarrationSegment, ScriptSource } from '../storyboard';
import type { Translator } from '../translate';
import { splitSentences } from '../text';
import { phrase } from './phrases';
import { estimateSeconds, fitToSeconds, wholeSentencesWithin } from './reading-rate';
import { keyFacts, SECONDS_PER_SCREEN, type CampaignPlanDocument, type CapturedText, type KeyFacts } from './analyze';

export interface ScriptScene {
  onScreenText: string;
  narration: NarrationSegment[];
}

export interface ScriptDocument {
  language: LanguageCode;
  source: ScriptSource;
  title: ScriptScene;
  /** One per planned screen, in plan order. */
  screens: ScriptScene[];
  closing: ScriptScene & { ctaLabel: string };
}

export interface CapturedVariant {
  variant: string;
  url: string;
  language: string | null;
  text: CapturedText;
}

/** A screen's narration is written for this long (at the language's reading rate); the voice stage enforces it on the real audio. */
export const SCREEN_NARRATION_SECONDS = SECONDS_PER_SCREEN + 0.5;
/** The hero carries the page's promise, the line that matters most: it may run longer. */
export const HERO_NARRATION_SECONDS = SCREEN_NARRATION_SECONDS + 2;

/**
 * What each screen may say, best first, in the facts' own language. The screen already shows its headline
 * (on-screen text), so the voice prefers what it does not: the value proposition on the hero, a feature's
 * detail after; the headline itself is the fallback when those do not fit the scene whole.
 */
function screenTexts(
  plan: CampaignPlanDocument,
  facts: KeyFacts,
  language: LanguageCode,
): Array<{ onScreen: string; candidates: string[]; seconds: number }> {
  const firstSentence = (text: string) => splitSentences(text, language)[0] ?? text;
  return plan.scenes.map((scene) => {
    const feature = scene.feature === null ? undefined : facts.features[scene.feature];
    if (!feature) {
      return {
        onScreen: facts.headline,
        candidates: [facts.valueProposition, firstSentence(facts.valueProposition), facts.headline].filter(Boolean),
        seconds: HERO_NARRATION_SECONDS,
      };
    }
    return { onScreen: feature.title, candidates: [feature.detail, feature.title].filter(Boolean), seconds: SCREEN_NARRATION_SECONDS };
  });
}

/** The first candidate that can be said whole in `seconds`; only when none can, the last one cut to fit. */
function fitting(candidates: string[], language: LanguageCode, seconds: number): string {
  const whole = candidates.find((text) => estimateSeconds(tidy(text), language) <= seconds);
  return whole ?? candidates[candidates.length - 1];
}

/**
 * A scene's narration told to take `share` (0–1) of the time it took to say: the voice stage's re-fit when the
 * real voice runs slower than the script assumed. Whole sentences first. A single segment whose first sentence
 * alone is too long becomes the scene's on-screen text when that can be said in time, as the writer falls back
 * to the headline; only when neither fits is a sentence cut short, at its best break.
 */
export function shortenNarration(scene: ScriptScene, share: number): ScriptScene['narration'] {
  return scene.narration
    .map((segment) => {
      const seconds = estimateSeconds(segment.text, segment.language) * share;
      const whole = wholeSentencesWithin(segment.text, segment.language, seconds);
      if (whole) return { ...segment, text: whole };
      const headline = tidy(scene.onScreenText);
      if (scene.narration.length === 1 && headline && estimateSeconds(headline, segment.language) <= seconds)
        return { ...segment, text: headline };
      return { ...segment, text: fitToSeconds(segment.text, segment.language, seconds) };
    })
    .filter((segment) => segment.text.trim());
}

function tidy(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export async function writeScript(
  language: LanguageCode,
  plan: CampaignPlanDocument,
  variants: CapturedVariant[],
  translator: Translator | undefined,
): Promise<ScriptDocument> {
  const source = variants.find((v) => v.variant === 'source')!;
  const sourceLanguage = (plan.sourceLanguage || 'en') as LanguageCode;
  const localized = variants.find((v) => v.variant === language) ?? (sourceLanguage === language ? source : undefined);
  const name = plan.facts.name;
  const domain = plan.facts.domain;
  const say = (text: string, lang: LanguageCode, seconds = SCREEN_NARRATION_SECONDS): NarrationSegment => ({
    text: fitToSeconds(tidy(text), lang, seconds),
    language: lang,
  });

  const intro = { onScreenText: name, narration: [say(phrase(language, 'intro', { name }), language, 4)] };
  const closingNarration = [say(phrase(language, 'callToAction', { domain }), language, 5)];
  const ctaLabel = phrase(language, 'ctaLabel', {});

  if (localized) {
    const facts = keyFacts(localized.text, localized.url);
    const texts = screenTexts(plan, { ...facts, features: facts.features.length ? facts.features : plan.facts.features }, language);
    return {
      language,
      source: 'localized_page',
      title: intro,
      screens: texts.map((t) => ({
        onScreenText: t.onScreen,
        narration: [say(fitting(t.candidates, language, t.seconds), language, t.seconds)],
      })),
      closing: { onScreenText: facts.callToAction ?? ctaLabel, ctaLabel: facts.callToAction ?? ctaLabel, narration: closingNarration },
    };
  }

  const texts = screenTexts(plan, plan.facts, sourceLanguage);
  if (translator) {
    const flat = texts.flatMap((t) => [t.onScreen, fitting(t.candidates, sourceLanguage, t.seconds)]);
    const translated = await translator.translate(flat, sourceLanguage, language);
    return {
      language,
      source: 'translated',
      title: intro,
      screens: texts.map((t, i) => ({ onScreenText: translated[i * 2], narration: [say(translated[i * 2 + 1], language, t.seconds)] })),
      closing: { onScreenText: ctaLabel, ctaLabel, narration: closingNarration },
    };
  }

  // No version of the page in this language and no translator: the page's own words, framed by phrases in the
  // target language, each spoken by its own language's voice. script_source says so.
  return {
    language,
    source: 'source_text',
    title: intro,
    screens: texts.map((t) => ({
      onScreenText: t.onScreen,
      narration: [say(fitting(t.candidates, sourceLanguage, t.seconds), sourceLanguage, t.seconds)],
    })),
    closing: { onScreenText: ctaLabel, ctaLabel, narration: closingNarration },
  };
}
