/**
 * Scripting: one narration script per language. Text comes, in order of preference (decisions.md §5),
 * from the page's own version in that language (hreflang, or the page's own language), from the
 * configured translation provider, or from the source text with fixed phrases in the target language.
 */
import type { LanguageCode } from '../../config/catalog';
import type { NarrationSegment, ScriptSource } from '../storyboard';
import type { Translator } from '../translate';
import { fitToSeconds, phrase } from './phrases';
import { keyFacts, SECONDS_PER_SCREEN, type CampaignPlanDocument, type CapturedText, type KeyFacts } from './analyze';

export interface ScriptScene { onScreenText: string; narration: NarrationSegment[] }

export interface ScriptDocument {
  language: LanguageCode;
  source: ScriptSource;
  title: ScriptScene;
  /** One per planned screen, in plan order. */
  screens: ScriptScene[];
  closing: ScriptScene & { ctaLabel: string };
}

export interface CapturedVariant { variant: string; url: string; language: string | null; text: CapturedText }

/** A screen reads for at most this long, so the voice fits the scene. */
const SCREEN_NARRATION_SECONDS = SECONDS_PER_SCREEN - 0.8;

/** What each screen says, in the facts' own language: the hero its promise, the others one feature each. */
function screenTexts(plan: CampaignPlanDocument, facts: KeyFacts): Array<{ onScreen: string; narration: string }> {
  return plan.scenes.map((scene) => {
    const feature = scene.feature === null ? undefined : facts.features[scene.feature];
    if (!feature) return { onScreen: facts.headline, narration: `${facts.headline}. ${facts.valueProposition}` };
    return { onScreen: feature.title, narration: feature.detail ? `${feature.title}. ${feature.detail}` : feature.title };
  });
}

function tidy(text: string): string {
  return text.replace(/\.\s*\./g, '.').replace(/([。！？])\./g, '$1').replace(/\s+/g, ' ').trim();
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
  const say = (text: string, lang: LanguageCode, seconds = SCREEN_NARRATION_SECONDS): NarrationSegment => ({ text: fitToSeconds(tidy(text), lang, seconds), language: lang });

  const intro = { onScreenText: name, narration: [say(phrase(language, 'intro', { name }), language, 4)] };
  const closingNarration = [say(phrase(language, 'callToAction', { domain }), language, 5)];
  const ctaLabel = phrase(language, 'ctaLabel', {});

  if (localized) {
    const facts = keyFacts(localized.text, localized.url);
    const texts = screenTexts(plan, { ...facts, features: facts.features.length ? facts.features : plan.facts.features });
    return {
      language, source: 'localized_page', title: intro,
      screens: texts.map((t) => ({ onScreenText: t.onScreen, narration: [say(t.narration, language)] })),
      closing: { onScreenText: facts.callToAction ?? ctaLabel, ctaLabel: facts.callToAction ?? ctaLabel, narration: closingNarration },
    };
  }

  const texts = screenTexts(plan, plan.facts);
  if (translator) {
    const flat = texts.flatMap((t) => [t.onScreen, t.narration]);
    const translated = await translator.translate(flat, sourceLanguage, language);
    return {
      language, source: 'translated', title: intro,
      screens: texts.map((_, i) => ({ onScreenText: translated[i * 2], narration: [say(translated[i * 2 + 1], language)] })),
      closing: { onScreenText: ctaLabel, ctaLabel, narration: closingNarration },
    };
  }

  // No version of the page in this language and no translator: the page's own words, framed by phrases in the
  // target language, each spoken by its own language's voice. script_source says so.
  return {
    language, source: 'source_text', title: intro,
    screens: texts.map((t) => ({ onScreenText: t.onScreen, narration: [say(t.narration, sourceLanguage)] })),
    closing: { onScreenText: ctaLabel, ctaLabel, narration: closingNarration },
  };
}
