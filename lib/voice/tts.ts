/** One text-to-speech interface. Default (`offline`): the best offline engine per language (Open JTalk
 * for Japanese, RHVoice for English, Russian and Portuguese, SVOX Pico for Spanish, French, German and Italian:
 * config/voices.ts, lib/voice/offline.ts), espeak-ng for the rest and as the fallback.
 * `espeak`: espeak-ng for every language (one voice per supported language, checked at start-up).
 * `openai`: an OpenAI-compatible HTTP `/v1/audio/speech` endpoint. All write a WAV; normalize it with
 * audio.ts before use. */
import { writeFile } from 'node:fs/promises';
import { deadline } from '../deadline';
import OpenAI, { APIConnectionTimeoutError, APIError } from 'openai';
import { SUPPORTED_LANGUAGES, type LanguageCode } from '../../config/catalog';
import { VOICE_OPTIONS, VOICE_OPTIONS_BY_ID, type VoiceEngineName } from '../../config/voices';
import type { SpokenVoice } from '../campaign/storyboard';
import { isRiffWave } from './audio';
import { run } from './exec';
import { FestivalProvider, FliteProvider } from './festival';
import { toKana } from './japanese';
import { OfflineSpeechProvider } from './offline';
import { OpenJTalkProvider } from './open-jtalk';
import { PicoProvider } from './pico';
import { RHVoiceProvider } from './rhvoice';
import { SpeechProviderError, type SpeechProvider, type SpeechRequest } from './speech';

/** espeak-ng voice per supported language (names as listed by `espeak-ng --voices`). */
export const ESPEAK_VOICES: Record<LanguageCode, string> = {
  // zh: plain `cmn` in espeak-ng 1.51 reads its own pinyin as English ("hao three"; espeak-ng #1028, #1236).
  en: 'en-us',
  ja: 'ja',
  ko: 'ko',
  zh: 'cmn-latn-pinyin',
  es: 'es',
  fr: 'fr-fr',
  de: 'de',
  pt: 'pt-br',
  it: 'it',
  nl: 'nl',
  pl: 'pl',
  ru: 'ru',
  tr: 'tr',
  ar: 'ar',
  hi: 'hi',
  id: 'id',
  vi: 'vi',
  th: 'th',
  sv: 'sv',
  uk: 'uk',
};

export interface EspeakOptions {
  /** espeak-ng executable; default `espeak-ng` on PATH */
  binary?: string;
  /** words per minute; default 165 */
  rate?: number;
  /** per-language voice overrides */
  voices?: Partial<Record<LanguageCode, string>>;
  /** limit per synthesis; default 30000 */
  timeoutMs?: number;
}

export class EspeakProvider implements SpeechProvider {
  readonly name = 'espeak';
  private readonly binary: string;
  private readonly rate: number;
  private readonly timeoutMs: number;
  private readonly voices: Record<LanguageCode, string>;

  constructor(opts: EspeakOptions = {}) {
    this.binary = opts.binary ?? 'espeak-ng';
    this.rate = opts.rate ?? 165;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.voices = { ...ESPEAK_VOICES, ...opts.voices };
  }

  /** The espeak-ng voice (`-v`) that speaks `language`: the asked-for one when it is an espeak-ng voice of that language. */
  voiceFor(language: LanguageCode, voice?: string): string {
    const option = voice ? VOICE_OPTIONS_BY_ID.get(voice) : undefined;
    if (option?.engine !== 'espeak' || option.language !== language) return this.voices[language];
    const base = option.espeakVoice ?? this.voices[language];
    return option.espeakVariant ? `${base}+${option.espeakVariant}` : base;
  }

  voiceOf(language: LanguageCode, voice?: string): SpokenVoice {
    return { engine: 'espeak', name: this.voiceFor(language, voice) };
  }

  /** One `espeak-ng --voices` run; throws naming every supported language whose voice is missing. */
  async verify(): Promise<void> {
    const { stdout } = await run(this.binary, ['--voices'], { timeoutMs: 10_000 });
    // Columns: Pty Language Age/Gender VoiceName File Other-languages. `-v` accepts a language or a file.
    const known = new Set<string>();
    for (const line of stdout.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length >= 5) {
        known.add(cols[1].toLowerCase());
        known.add(cols[4].toLowerCase());
      }
    }
    const missing = SUPPORTED_LANGUAGES.filter((lang) => !known.has(this.voices[lang].toLowerCase()));
    if (missing.length) {
      const list = missing.map((lang) => `${lang} (voice "${this.voices[lang]}")`).join(', ');
      throw new Error(
        `espeak-ng has no voice for ${missing.length} supported language(s): ${list}. Install espeak-ng-data or fix the voice map.`,
      );
    }
    // The other espeak-ng voices a campaign may ask for (config/voices.ts) must be there too.
    const missingOptions = VOICE_OPTIONS.filter((v) => v.espeakVoice && !known.has(v.espeakVoice.toLowerCase()));
    if (missingOptions.length)
      throw new Error(`espeak-ng has no voice ${missingOptions.map((v) => `"${v.espeakVoice}" (${v.id})`).join(', ')}.`);
  }

  async synthesize(req: SpeechRequest): Promise<void> {
    await run(this.binary, [...this.args(req.language, req.voice), '-w', req.outFile, '--stdin'], {
      input: await this.prepare(req.text, req.language),
      timeoutMs: this.timeoutMs,
    });
  }

  /** espeak-ng's phoneme trace (`-x`) of what synthesize would say; a `(en)` switch inside a
   * non-English text means espeak fell back to reading English words (e.g. "Chinese letter"). */
  async phonemes(text: string, language: LanguageCode): Promise<string> {
    const { stdout } = await run(this.binary, [...this.args(language), '-q', '-x', '--stdin'], {
      input: await this.prepare(text, language),
      timeoutMs: this.timeoutMs,
    });
    return stdout.trim();
  }

  private args(language: LanguageCode, asked?: string): string[] {
    if (!this.voices[language]) throw new Error(`espeak: unsupported language "${language}"`);
    const voice = this.voiceFor(language, asked);
    // Text goes through stdin (-b 1: UTF-8), so quotes, newlines, leading dashes and RTL scripts are safe.
    return ['-v', voice, '-s', String(this.rate), '-b', '1'];
  }

  private async prepare(text: string, language: LanguageCode): Promise<string> {
    if (!text.trim()) throw new Error('espeak: empty text');
    // espeak-ng reads kanji as "Chinese letter": Japanese goes through a kana reading first (Open JTalk, the
    // default Japanese engine, needs none; this is for TTS_PROVIDER=espeak and Open JTalk's fallback).
    return language === 'ja' ? toKana(text) : text;
  }
}

export interface OpenAISpeechOptions {
  baseUrl: string;
  apiKey: string;
  /** e.g. tts-1 */
  model?: string;
  /** e.g. alloy */
  voice?: string;
  timeoutMs?: number;
}

/** OpenAI-compatible `POST {baseUrl}/v1/audio/speech`, asking for WAV, through the `openai` SDK (its `baseURL`; no
 * retries of its own: the pipeline's retry policy decides, from `retryable`). */
export class OpenAISpeechProvider implements SpeechProvider {
  readonly name = 'openai';
  private readonly url: string;
  private readonly apiKey: string;
  private readonly model: string;
  private readonly voice: string;
  private readonly timeoutMs: number;
  private readonly client: OpenAI;

  constructor(opts: OpenAISpeechOptions) {
    if (!opts.baseUrl) throw new Error('openai speech: baseUrl is required');
    if (!opts.apiKey) throw new Error('openai speech: apiKey is required');
    const base = `${opts.baseUrl.replace(/\/+$/, '')}/v1`;
    this.url = `${base}/audio/speech`;
    new URL(this.url); // throws on a malformed baseUrl
    this.apiKey = opts.apiKey;
    this.model = opts.model ?? 'tts-1';
    this.voice = opts.voice ?? 'alloy';
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    // Our own deadline (synthesize) ends a request; the SDK's is only a backstop behind it.
    this.client = new OpenAI({ baseURL: base, apiKey: this.apiKey, timeout: this.timeoutMs + 5_000, maxRetries: 0 });
  }

  voiceOf(): SpokenVoice {
    return { engine: 'openai', name: `${this.model}/${this.voice}` };
  }

  /** The API's voices are multilingual: checks the configuration only (no network call at start-up). */
  verify(): Promise<void> {
    if (!this.model || !this.voice) return Promise.reject(new Error('openai speech: model and voice must be set'));
    return Promise.resolve();
  }

  async synthesize(req: SpeechRequest): Promise<void> {
    if (!req.text.trim()) throw new Error('openai speech: empty text');
    const limit = deadline(this.timeoutMs);
    let body: Buffer;
    let type: string;
    try {
      const response = await this.client.audio.speech.create(
        { model: this.model, input: req.text, voice: this.voice, response_format: 'wav' },
        { signal: limit.signal },
      );
      type = response.headers.get('content-type') ?? 'no content-type';
      body = Buffer.from(await response.arrayBuffer());
    } catch (err) {
      if (limit.passed || err instanceof APIConnectionTimeoutError) {
        throw new SpeechProviderError(`openai speech: ${this.url} did not answer within ${this.timeoutMs} ms`, true);
      }
      if (err instanceof APIError && typeof err.status === 'number') {
        const retryable = err.status === 429 || err.status >= 500;
        const inner = err.error as { message?: unknown } | undefined;
        const detail = typeof inner?.message === 'string' ? inner.message : err.message.replace(/^\d{3}\s*/, '');
        throw new SpeechProviderError(`openai speech: ${this.url} answered ${err.status}: ${this.excerpt(detail)}`, retryable);
      }
      throw new SpeechProviderError(`openai speech: network error calling ${this.url}: ${this.redact(networkCause(err))}`, true);
    } finally {
      limit.clear();
    }
    const isWav = body.length > 44 && isRiffWave(body);
    if (!isWav) {
      throw new SpeechProviderError(
        `openai speech: ${this.url} answered 200 with ${type}, not WAV audio: ${this.excerpt(body.toString('utf8', 0, 300))}`,
        false,
      );
    }
    await writeFile(req.outFile, body);
  }

  private excerpt(text: string): string {
    return this.redact(text.slice(0, 300).replace(/\s+/g, ' ').trim()) || '(empty body)';
  }

  private redact(text: string): string {
    return text.split(this.apiKey).join('[redacted]');
  }
}

/** The system error code somewhere along an error's causes (the SDK wraps fetch's error, which wraps the socket's). */
function networkCause(err: unknown): string {
  let at = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; at && depth < 5; depth += 1, at = at.cause as typeof at) {
    if (typeof at.code === 'string' && /^E[A-Z]+$/.test(at.code)) return at.code;
  }
  return String((err as Error)?.message ?? err);
}

export interface SpeechSettings {
  provider: 'offline' | 'espeak' | 'openai';
  /** offline: the engine per language (config/voices.ts); languages not listed use espeak-ng */
  voices?: Partial<Record<LanguageCode, VoiceEngineName>>;
  /** offline: Open JTalk's .htsvoice candidates (the first that exists) and dictionary directory */
  openJTalkVoices?: string[];
  openJTalkDictionary?: string;
  /** openai */
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  voice?: string;
}

export interface SpeechProviderHooks {
  /** told when an offline engine is not installed and its languages fall back to espeak-ng */
  warn?: (message: string) => void;
}

export function createSpeechProvider(settings: SpeechSettings, hooks: SpeechProviderHooks = {}): SpeechProvider {
  switch (settings.provider) {
    case 'offline':
      return new OfflineSpeechProvider({
        engines: settings.voices ?? {},
        fallback: new EspeakProvider(),
        warn: hooks.warn,
        build: (name) => {
          switch (name) {
            case 'open-jtalk':
              return new OpenJTalkProvider({ voices: settings.openJTalkVoices, dictionary: settings.openJTalkDictionary });
            case 'festival':
              return new FestivalProvider();
            case 'flite':
              return new FliteProvider();
            case 'pico':
              return new PicoProvider();
            case 'rhvoice':
              return new RHVoiceProvider();
          }
        },
      });
    case 'espeak':
      return new EspeakProvider();
    case 'openai':
      return new OpenAISpeechProvider({
        baseUrl: settings.baseUrl ?? '',
        apiKey: settings.apiKey ?? '',
        model: settings.model,
        voice: settings.voice,
      });
    default:
      throw new Error(`unknown speech provider "${(settings as { provider: string }).provider}"`);
  }
}
