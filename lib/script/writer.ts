/**
 * Scripting: one narration script per language. Text comes, in order of preference (decisions.md §5),
 * from the page's own version in that language (hreflang, or the page's own language), from the
 * configured translation provider, or from the source text with fixed phrases in the target language.
 */
import type { LanguageCode } from '../../config/catalog';
import type { NarrationSegment, ScriptSource } from '../campaign/storyboard';
import type { Translator } from './translate';
import type { ScriptModel } from './model-writer';
import { endsWithSentenceTerminator, splitSentences } from '../text';
import { endWhole, headingSentence, saysAgain } from '../quality/narration';
import { MIN_SCREEN_SCENES } from '../quality/repair';
import { phrase, phraseSet } from './phrases';
import { estimateSeconds, wholeSentencesWithin } from './reading-rate';
import {
  inPageScript,
  keyFacts,
  SECONDS_PER_SCREEN,
  supportedPageLanguage,
  type CampaignPlanDocument,
  type CapturedText,
  type KeyFacts,
  type PlannedScene,
} from './analyze';
import { proseSentences } from './sections';
import {
  chooseOpenings,
  hookPhrase,
  hookWords,
  NO_HOOK_WORDS,
  openingSegments,
  type HookPage,
  type HookWords,
  type ScriptOpening,
} from './hooks';

export type { ScriptOpening } from './hooks';

export interface ScriptScene {
  onScreenText: string;
  narration: NarrationSegment[];
  /**
   * A screen scene's place in the plan (plan.scenes), when the script left a scene out (it had nothing to say that
   * the video had not said); absent: the n-th screen is the plan's n-th scene.
   */
  planScene?: number;
}

export interface ScriptDocument {
  language: LanguageCode;
  source: ScriptSource;
  title: ScriptScene;
  /** One per planned screen, in plan order. */
  screens: ScriptScene[];
  closing: ScriptScene & { ctaLabel: string };
  /**
   * The video's openings, one per variant (decisions §15): `a` is the title scene above; with one variant it is the
   * meet line ("Meet <Product>."), with more each is a question, a benefit or a number from the page (lib/script/hooks.ts).
   */
  openings: ScriptOpening[];
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
/** The key points a hero without a sentence about the product says at most. */
const HERO_POINTS = 3;

/** How much longer than its budget a scene may run rather than say less than one whole sentence. */
export const WHOLE_SENTENCE_STRETCH = 1.6;

/**
 * What a video has said so far, sentence by sentence (title, screens, closing), in each sentence's language: a
 * candidate that says again what it said (lib/quality/narration.ts saysAgain: the check's folding, or a
 * near-duplicate) is not said again (decisions §13 repeated_narration, prevented where the words are written).
 */
export class VideoWords {
  private readonly said: Array<{ text: string; language: LanguageCode }> = [];

  /** Whether `sentence` says something the video has not said yet. */
  fresh(sentence: string, language: LanguageCode): boolean {
    return !this.said.some((before) => saysAgain(sentence, before.text, language) || saysAgain(sentence, before.text, before.language));
  }

  /** Whether every sentence of `text` is fresh, and none says again what an earlier one of it said. */
  freshText(text: string, language: LanguageCode): boolean {
    const parts = splitSentences(text, language);
    return parts.every((part, n) => this.fresh(part, language) && !parts.slice(0, n).some((before) => saysAgain(part, before, language)));
  }

  add(text: string, language: LanguageCode): void {
    for (const sentence of splitSentences(text, language)) this.said.push({ text: sentence, language });
  }
}

/**
 * What a scene says: whole sentences of the page only, never a sentence cut short, and none the video said
 * already (`words`). The first fresh sentences of the section's prose that fit the time; when the first alone does
 * not, the first later sentence that does; when none does, the shortest that fits the stretched time (the scene
 * runs longer); else the heading said as a sentence, which is at least the section's own words; null when even the
 * heading says again what the video said (the scene has nothing new to say).
 */
export function narrationFrom(
  said: string[],
  heading: string,
  language: LanguageCode,
  seconds: number,
  words: VideoWords = new VideoWords(),
): string | null {
  const fullStop = phraseSet(language).fullStop;
  const all = said.flatMap((text) => splitSentences(text, language)).filter((s) => tidy(s) && tidy(s) !== tidy(heading));
  // Sentences that end as sentences do before list items and captions ("Five-minute sync, no pipelines to maintain").
  const complete = all.filter((s) => endsWithSentenceTerminator(s) && !/(…|\.\.\.)$/u.test(s));
  // A list item or a text cut short is said only when the section has no whole sentence, ended at a boundary.
  const candidates = complete.length ? complete : all.map((s) => endWhole(s, language, fullStop)).filter(Boolean);
  const sentences = candidates.filter((s, n) => words.fresh(s, language) && !candidates.slice(0, n).some((b) => saysAgain(s, b, language)));
  let text = '';
  for (const sentence of sentences) {
    const next = text ? `${text}${phraseSet(language).sentenceSeparator}${sentence}` : sentence;
    if (estimateSeconds(next, language) > seconds) break;
    text = next;
  }
  if (text) return text;
  const fitting = sentences.find((sentence) => estimateSeconds(sentence, language) <= seconds);
  if (fitting) return fitting;
  const shortest = [...sentences].sort((a, b) => estimateSeconds(a, language) - estimateSeconds(b, language))[0];
  if (shortest && estimateSeconds(shortest, language) <= seconds * WHOLE_SENTENCE_STRETCH) return shortest;
  const fromHeading = headingSentence(heading, language);
  return fromHeading && words.freshText(fromHeading, language) ? fromHeading : null;
}

/** What a screen scene may say, before the video's other scenes are known: its section's sentences and heading. */
interface ScreenText {
  onScreen: string;
  /** The texts its narration is chosen from (the hero: the page's promise; else the section's sentences). */
  said: string[];
  /** The heading said as a sentence when no sentence is left (the hero: its headline). */
  heading: string;
  seconds: number;
  hero: boolean;
  section: { heading: string; sentences: string[] } | null;
}

/**
 * What each screen shows and may say, in the facts' own language: the hero its headline and the page's promise
 * (its hero prose), each further screen its section's heading and the section's best sentences.
 */
function screenTexts(
  plan: CampaignPlanDocument,
  facts: KeyFacts,
  featureOf: (scene: PlannedScene) => SceneFeature | undefined = (scene) => sceneFeature(plan, facts, scene.feature),
): ScreenText[] {
  return plan.scenes.map((scene, n) => {
    const feature = featureOf(scene);
    if (!feature) {
      // A later screen with no section (a page read screen by screen, past its sections) says the promise too: it
      // may have nothing new to say, and is then left out like any other; the first screen, the hero, never is.
      // A page with no sentence about its product (a docs home: its name, a note, its topics) says its first key
      // points over its hero, topics its screen shows: a real one said its name again ("Meet vue-router." then
      // "vue-router"). Three at most: the hook openings (lib/script/hooks.ts) draw on the points it leaves.
      const heroPoints = n === 0 && !facts.valueProposition ? (facts.points ?? []).slice(0, HERO_POINTS) : [];
      return {
        onScreen: facts.headline,
        said: heroPoints.length ? heroPoints : [facts.valueProposition],
        heading: facts.headline,
        seconds: HERO_NARRATION_SECONDS,
        hero: n === 0,
        section: null,
      };
    }
    const said = feature.sentences?.length ? feature.sentences : [feature.detail];
    return {
      onScreen: feature.title,
      said,
      heading: feature.title,
      seconds: SCREEN_NARRATION_SECONDS,
      hero: false,
      section: { heading: feature.title, sentences: said.filter(Boolean) },
    };
  });
}

/**
 * Each screen's narration in play order, none saying again what the video said before it (`words`, which the title
 * and closing lines are in): `preferred[n]` (a model's or a translator's words) when it says nothing said before;
 * else, when `extractive` (the sections' sentences are in `language`), the section's next unused sentences or its
 * heading (narrationFrom); else the heading as a sentence (`headings[n]`: a translated heading); else null: the
 * scene is left out (leaveOut), as it is when `preferred[n]` is null. The hero, the page's promise, is never left out.
 */
function sayOnce(
  texts: ScreenText[],
  language: LanguageCode,
  words: VideoWords,
  { preferred, extractive = true, headings }: { preferred?: Array<string | null>; extractive?: boolean; headings?: string[] } = {},
): Array<string | null> {
  return texts.map((t, n) => {
    const own = preferred?.[n];
    let text: string | null = null;
    if (own && words.freshText(own, language)) text = own;
    else if (own === null && !t.hero) text = null;
    else if (extractive) text = narrationFrom(t.said, t.heading, language, t.seconds, words);
    else {
      const fromHeading = headings?.[n] ? headingSentence(headings[n], language) : null;
      text = fromHeading && words.freshText(fromHeading, language) ? fromHeading : null;
    }
    if (text === null && t.hero) text = own || (narrationFrom(t.said, t.heading, language, t.seconds) ?? tidy(t.heading));
    if (text !== null) words.add(text, language);
    return text;
  });
}

/**
 * The screens a script keeps: those with something new to say (`said[n]` not null), while the video keeps at least
 * MIN_SCREEN_SCENES screens; a scene that must stay to keep them says what it has (`fallback`), and the video's
 * check then flags it. Each kept scene records its place in the plan.
 */
function leaveOut(
  said: Array<string | null>,
  fallback: (n: number) => string,
  scene: (n: number, text: string) => ScriptScene,
): ScriptScene[] {
  let droppable = Math.max(0, said.length - MIN_SCREEN_SCENES);
  const dropped = said.map((text) => text === null && droppable-- > 0);
  return said.flatMap((text, n) => {
    if (dropped[n]) return [];
    const out = scene(n, text ?? fallback(n));
    return [dropped.some(Boolean) ? { ...out, planScene: n } : out];
  });
}

/** The plan as a script's screens show it: the plan's scenes the script kept, in its order (ScriptScene.planScene). */
export function plannedFor(plan: CampaignPlanDocument, script: Pick<ScriptDocument, 'screens'>): CampaignPlanDocument {
  if (!script.screens.some((s) => typeof s.planScene === 'number')) return plan;
  return { ...plan, scenes: script.screens.map((s, n) => plan.scenes[s.planScene ?? n]) };
}

/**
 * A scene's narration told to take `share` (0–1) of the time it took to say: the voice stage's re-fit when the
 * real voice runs slower than the script assumed. Whole sentences from the start while they fit; else the first
 * single sentence that fits; else its first sentence whole, and the scene runs longer. Never a sentence cut
 * short, and never the heading instead of what the section says.
 */
export function shortenNarration(scene: ScriptScene, share: number): ScriptScene['narration'] {
  return scene.narration
    .map((segment) => {
      const seconds = estimateSeconds(segment.text, segment.language) * share;
      const whole = wholeSentencesWithin(segment.text, segment.language, seconds);
      if (whole) return { ...segment, text: whole };
      const sentences = splitSentences(segment.text, segment.language);
      const fitting = sentences.find((sentence) => estimateSeconds(sentence, segment.language) <= seconds);
      return { ...segment, text: fitting ?? sentences[0] ?? segment.text };
    })
    .filter((segment) => segment.text.trim());
}

function tidy(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** What writeScript may use besides the page: a translator, a model that writes the narration, and where a refused model answer is told. */
export interface ScriptHelpers {
  translator?: Translator;
  model?: ScriptModel;
  /** Told why the model's script was not used (the extractive script is used instead). */
  onModelRefused?: (language: LanguageCode, reason: string) => void;
  /** How many openings the script carries (the campaign's `variants`, 1–3; default 1: the meet line). */
  variants?: number;
}

/** The page's words an opening may carry, and the language they are in. */
interface PageWords {
  words: HookWords;
  language: LanguageCode;
}

/** The most phrases of each kind translated for the openings (the best first; the rest are rarely reached). */
const HOOK_PHRASES_TRANSLATED = 4;

/**
 * The hook words of the source page in `language` by the translator: each kind's best phrases translated in one
 * call, those that come back outside the language's script left out.
 */
async function translatedHookWords(
  words: HookWords,
  from: LanguageCode,
  language: LanguageCode,
  translator: Translator,
): Promise<HookWords> {
  const kinds = ['questions', 'benefits', 'figures'] as const;
  // A question is sent as one (its mark back on), so that it comes back asked.
  const picked = kinds.map((k) => words[k].slice(0, HOOK_PHRASES_TRANSLATED).map((t) => (k === 'questions' ? `${t}?` : t)));
  const flat = picked.flat();
  if (!flat.length) return NO_HOOK_WORDS;
  const translated = await translator.translate(flat, from, language);
  let at = 0;
  const out = { ...NO_HOOK_WORDS };
  kinds.forEach((k, n) => {
    out[k] = translated.slice(at, at + picked[n].length).flatMap((t) => {
      // Said as the page's phrase is (no full stop a translator added, a question still asked), in the language's script.
      const phrase = hookPhrase(k, t ?? '', language);
      return phrase && inPageScript(phrase, language) ? [phrase] : [];
    });
    at += picked[n].length;
  });
  return out;
}

/**
 * The model's narration for each screen scene, written in `language` from `facts` and the scenes' sections
 * (`texts`, as the extractive script chose them, in `pageLanguage`), or null when no model is configured or its
 * answer was refused (the reason is told).
 */
async function modelNarration(
  helpers: ScriptHelpers,
  language: LanguageCode,
  facts: KeyFacts,
  texts: ReturnType<typeof screenTexts>,
  page: CapturedVariant,
  pageLanguage: string,
): Promise<string[] | null> {
  if (!helpers.model) return null;
  const sections = texts.flatMap((t) => (t.section ? [t.section] : []));
  const result = await helpers.model.write({
    language,
    pageLanguage,
    facts: {
      name: facts.name,
      headline: facts.headline,
      valueProposition: facts.valueProposition,
      callToAction: facts.callToAction,
      sections,
      pageText: page.text.main_text,
      domain: facts.domain,
    },
    scenes: texts.map((t) => ({ section: t.section ? sections.indexOf(t.section) : null, seconds: t.seconds })),
  });
  if (result.ok) return result.narration;
  helpers.onModelRefused?.(language, result.reason);
  return null;
}

/**
 * The source page's product name, when this version of the page carries it in its title or headline: a product
 * keeps its name across its page's languages, and a vendor's name in this version's header or footer (where no
 * "by" credit tells it apart in that language) is no more the product's here than on the source page.
 */
function sameProduct(name: string, text: CapturedText): string | undefined {
  const plain = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  const h1 = text.headings.find((h) => h.level === 1)?.text ?? '';
  return plain(name) && [text.title, h1].some((t) => plain(t).includes(plain(name))) ? name : undefined;
}

type SceneFeature = KeyFacts['features'][number];

/** A screen scene's section on this page: the one at the source's position (same layout), else by rank. */
function sceneFeature(plan: CampaignPlanDocument, facts: KeyFacts, feature: number | null): SceneFeature | undefined {
  if (feature === null) return undefined;
  const source = plan.facts.features[feature];
  return (
    (typeof source?.section === 'number' ? facts.features.find((f) => f.section === source.section) : undefined) ?? facts.features[feature]
  );
}

/**
 * What a scene says on a language's own page: the section its screens show there (the plan's `localized`, matched
 * to the source's section by its position among the page's sections), in that page's words. A scene the page's
 * own screens do not show is said from the source page's section, as its screen is the source page's. Undefined
 * for the hero and for plans made before sections were recorded (matched by rank, as then).
 */
export function shownSection(
  plan: CampaignPlanDocument,
  scene: PlannedScene,
  language: string,
  text: CapturedText,
): SceneFeature | undefined {
  if (scene.feature === null || typeof scene.section !== 'number') return undefined;
  const shown = scene.localized?.[language];
  if (!shown) return plan.facts.features[scene.feature];
  const index = typeof shown.section === 'number' ? shown.section : scene.section;
  const section = text.sections?.find((s) => s.index === index);
  if (!section) return plan.facts.features[scene.feature];
  const said = proseSentences(section);
  return { title: section.heading, detail: said[0] ?? '', sentences: said.slice(0, 6), section: section.index };
}

export async function writeScript(
  language: LanguageCode,
  plan: CampaignPlanDocument,
  variants: CapturedVariant[],
  helpers: ScriptHelpers = {},
): Promise<ScriptDocument> {
  const { translator } = helpers;
  const source = variants.find((v) => v.variant === 'source')!;
  const sourceLanguage = supportedPageLanguage(plan.sourceLanguage) ?? 'en';
  const localized = variants.find((v) => v.variant === language) ?? (sourceLanguage === language ? source : undefined);
  const domain = plan.facts.domain;
  const say = (text: string, lang: LanguageCode): NarrationSegment => ({ text: tidy(text), language: lang });
  // The opening and closing lines are never cut: a long name makes them longer, not broken ("…を。").
  const intro = (name: string) => ({ onScreenText: name, narration: [say(phrase(language, 'intro', { name }), language)] });
  const closingNarration = [say(phrase(language, 'callToAction', { domain }), language)];
  const ctaLabel = phrase(language, 'ctaLabel', {});
  const count = helpers.variants ?? 1;
  /**
   * The script with its openings: the meet line alone for one variant (the title scene as it is); else the
   * openings drawn from the page's words in this language (`words`), none saying what the screens and the closing
   * say, the title scene variant a's.
   */
  const opened = async (
    doc: Omit<ScriptDocument, 'openings'>,
    name: string,
    words: () => PageWords | Promise<PageWords>,
  ): Promise<ScriptDocument> => {
    const said = doc.title.narration.map((n) => n.text).join(' ');
    if (count <= 1) return { ...doc, openings: [{ variant: 'a', kind: 'meet', narration: said, headline: doc.title.onScreenText }] };
    const later = [...doc.screens, doc.closing].flatMap((scene) => scene.narration);
    const page = await words();
    const openings = chooseOpenings({
      language,
      name,
      count,
      words: page.words,
      wordsLanguage: page.language,
      later,
      seconds: SCREEN_NARRATION_SECONDS,
    });
    const [first] = openings;
    return { ...doc, title: { onScreenText: first.headline, narration: openingSegments(first, language, page.language, name) }, openings };
  };
  const pageOf = (facts: KeyFacts, text: CapturedText): HookPage => ({
    name: facts.name,
    headline: facts.headline,
    features: facts.features,
    points: facts.points,
    text,
  });
  /** The source page's words: in this language by the translator, else as the page says them (source_text). */
  const sourceWords = async (): Promise<PageWords> => {
    const words = hookWords(pageOf(plan.facts, source.text), sourceLanguage);
    if (!translator || sourceLanguage === language) return { words, language: sourceLanguage };
    return { words: await translatedHookWords(words, sourceLanguage, language, translator), language };
  };

  // Everything the video says is compared with everything it said before: the opening and closing lines too.
  const wordsOf = (name: string) => {
    const words = new VideoWords();
    words.add(phrase(language, 'intro', { name }), language);
    words.add(phrase(language, 'callToAction', { domain }), language);
    return words;
  };
  // A scene left in with nothing new to say (the video keeps two screens) says its section's first words.
  const anyway = (t: ScreenText, lang: LanguageCode) =>
    narrationFrom(t.said, t.heading, lang, t.seconds) ?? (endWhole(t.said[0] ?? '', lang, phraseSet(lang).fullStop) || tidy(t.heading));

  if (localized) {
    // The page's own version in this language: its own name, headline, sections and call to action.
    const facts = keyFacts(localized.text, localized.url, localized.language ?? language);
    const own = {
      ...facts,
      name: sameProduct(plan.facts.name, localized.text) ?? facts.name,
      features: facts.features.length ? facts.features : plan.facts.features,
    };
    const texts = screenTexts(
      plan,
      own,
      localized === source
        ? undefined
        : (scene) => shownSection(plan, scene, language, localized.text) ?? sceneFeature(plan, own, scene.feature),
    );
    const written = await modelNarration(helpers, language, own, texts, localized, language);
    // A model's scene that says again what was said says its section's own next sentences instead (same language).
    const said = sayOnce(texts, language, wordsOf(own.name), { preferred: written ?? undefined });
    // This page's own words: its headline and its own sections (never the source's, which are in another language).
    const ownWords = (): PageWords => {
      // (The source page itself, in its own language: its sections as the plan read them.)
      const words = hookWords({ ...pageOf(own, localized.text), features: localized === source ? own.features : facts.features }, language);
      const inLanguage = (list: string[]) => list.filter((t) => inPageScript(t, language));
      return {
        words: { questions: inLanguage(words.questions), benefits: inLanguage(words.benefits), figures: inLanguage(words.figures) },
        language,
      };
    };
    return opened(
      {
        language,
        source: 'localized_page',
        title: intro(own.name),
        // A page translated in part: a section left in the source's language is said by that language's voice.
        screens: leaveOut(
          said,
          (n) => written?.[n] ?? anyway(texts[n], language),
          (n, text) => ({
            onScreenText: texts[n].onScreen,
            narration: [say(text, inPageScript(text, language) ? language : sourceLanguage)],
          }),
        ),
        closing: { onScreenText: facts.callToAction ?? ctaLabel, ctaLabel: facts.callToAction ?? ctaLabel, narration: closingNarration },
      },
      own.name,
      ownWords,
    );
  }

  const texts = screenTexts(plan, plan.facts);
  // A model writes this language's narration from the source page's facts (checked: only the page's facts, in
  // this language); the on-screen headings are translated when a translator is configured.
  const written = await modelNarration(helpers, language, plan.facts, texts, source, sourceLanguage);
  if (written) {
    const headings = translator
      ? await translator.translate(
          texts.map((t) => t.onScreen),
          sourceLanguage,
          language,
        )
      : texts.map((t) => t.onScreen);
    // A scene whose words were said before says its heading, when the heading is in this language.
    const said = sayOnce(texts, language, wordsOf(plan.facts.name), {
      preferred: written,
      extractive: false,
      headings: translator || sourceLanguage === language ? headings : [],
    });
    return opened(
      {
        language,
        source: 'translated',
        title: intro(plan.facts.name),
        screens: leaveOut(
          said,
          (n) => written[n],
          (n, text) => ({ onScreenText: headings[n], narration: [say(text, language)] }),
        ),
        closing: { onScreenText: ctaLabel, ctaLabel, narration: closingNarration },
      },
      plan.facts.name,
      sourceWords,
    );
  }
  // The page's own sentences, none said twice in the page's language, before any translation.
  const chosen = sayOnce(texts, sourceLanguage, wordsOf(plan.facts.name));
  const sourceText = chosen.map((text, n) => text ?? anyway(texts[n], sourceLanguage));
  if (translator) {
    const flat = texts.flatMap((t, n) => [t.onScreen, sourceText[n]]);
    const translated = await translator.translate(flat, sourceLanguage, language);
    // Two sentences may come back as one: said once, the other scene its translated heading (or left out).
    const said = sayOnce(texts, language, wordsOf(plan.facts.name), {
      preferred: texts.map((_, i) => (chosen[i] === null ? null : translated[i * 2 + 1])),
      extractive: false,
      headings: texts.map((_, i) => translated[i * 2]),
    });
    return opened(
      {
        language,
        source: 'translated',
        title: intro(plan.facts.name),
        screens: leaveOut(
          said,
          (n) => translated[n * 2 + 1],
          (n, text) => ({ onScreenText: translated[n * 2], narration: [say(text, language)] }),
        ),
        closing: { onScreenText: ctaLabel, ctaLabel, narration: closingNarration },
      },
      plan.facts.name,
      sourceWords,
    );
  }

  // No version of the page in this language, no translator and no model: the page's own words, framed by phrases
  // in the target language, each spoken by its own language's voice. script_source says so, and the video carries
  // a warning (see docs/video.md, "Languages without their own page").
  return opened(
    {
      language,
      source: 'source_text',
      title: intro(plan.facts.name),
      screens: leaveOut(
        chosen,
        (n) => sourceText[n],
        (n, text) => ({ onScreenText: texts[n].onScreen, narration: [say(text, sourceLanguage)] }),
      ),
      closing: { onScreenText: ctaLabel, ctaLabel, narration: closingNarration },
    },
    plan.facts.name,
    sourceWords,
  );
}
