/**
 * The offline speech provider (TTS_PROVIDER=offline, the default): the best engine installed for each
 * language (config/voices.ts), espeak-ng for the rest. espeak-ng must have a voice for every supported
 * language (as before); an engine chosen for a language but not installed (binary or voice file missing)
 * hands that language to espeak-ng with a warning, so a node without the extra packages still speaks.
 */
import { SUPPORTED_LANGUAGES, type LanguageCode } from '../../config/catalog';
import { VOICE_OPTIONS_BY_ID, type VoiceEngineName } from '../../config/voices';
import type { SpokenVoice } from '../campaign/storyboard';
import type { SpeechProvider, SpeechRequest, SpeechResult } from './speech';
import { messageOf } from '../errors';

/** An engine for some languages only, with a voice name to report. */
export interface LanguageEngine extends SpeechProvider {
  readonly languages: readonly LanguageCode[];
  readonly voice: string;
  /** false when the engine would have nothing to say in `language` (e.g. no ASCII word for festival): the fallback says it */
  canSpeak?(text: string, language: LanguageCode): boolean;
}

/** espeak-ng, for every language: the fallback. */
export interface FallbackEngine extends SpeechProvider {
  voiceFor(language: LanguageCode, voice?: string): string;
}

export interface OfflineSpeechOptions {
  /** the engine wanted per language; languages not listed (and those set to 'espeak') use the fallback */
  engines: Partial<Record<LanguageCode, VoiceEngineName>>;
  /** builds an engine by name (lib/voice/tts.ts passes the real ones) */
  build: (name: Exclude<VoiceEngineName, 'espeak'>) => LanguageEngine;
  fallback: FallbackEngine;
  /** told when an engine is not installed and its languages go to the fallback; default console.warn */
  warn?: (message: string) => void;
}

/** What speaks one language, as verify() settled it. */
export interface VoiceChoice {
  language: LanguageCode;
  engine: VoiceEngineName;
  voice: string;
}

export class OfflineSpeechProvider implements SpeechProvider {
  readonly name = 'offline';
  readonly fallback: FallbackEngine;
  private readonly wanted = new Map<LanguageEngine, LanguageCode[]>();
  private readonly route = new Map<LanguageCode, LanguageEngine>();
  private readonly warn: (message: string) => void;
  private readonly build: OfflineSpeechOptions['build'];
  /** Every engine built, the node's defaults and those campaigns asked for. */
  private readonly built = new Map<Exclude<VoiceEngineName, 'espeak'>, LanguageEngine>();
  /** An engine a campaign asked for, once checked: itself, or null when not installed (its text goes to espeak-ng). */
  private readonly asked = new Map<Exclude<VoiceEngineName, 'espeak'>, Promise<LanguageEngine | null>>();
  /** Engines checked and usable, for voiceOf (which cannot wait). */
  private readonly usable = new Set<LanguageEngine>();

  constructor(opts: OfflineSpeechOptions) {
    this.fallback = opts.fallback;
    this.build = opts.build;
    this.warn = opts.warn ?? ((message) => console.warn(message));
    for (const [language, name] of Object.entries(opts.engines) as Array<[LanguageCode, VoiceEngineName]>) {
      if (name === 'espeak') continue;
      const engine = this.built.get(name) ?? opts.build(name);
      this.built.set(name, engine);
      if (!engine.languages.includes(language))
        throw new Error(`speech: ${name} does not speak "${language}" (it speaks ${engine.languages.join(', ')})`);
      this.wanted.set(engine, [...(this.wanted.get(engine) ?? []), language]);
      this.route.set(language, engine);
    }
  }

  /** The fallback must have every language's voice (throws otherwise); each other engine is checked, and one
   * that fails hands its languages to the fallback with a warning naming what is missing. */
  async verify(): Promise<void> {
    await this.fallback.verify();
    for (const [engine, languages] of this.wanted) {
      try {
        await engine.verify();
        for (const language of languages) this.route.set(language, engine);
        this.usable.add(engine);
      } catch (err) {
        for (const language of languages) this.route.delete(language);
        this.warn(`speech: ${engine.name} is not usable (${messageOf(err)}); ${languages.join(', ')} will be spoken by espeak-ng instead`);
      }
    }
  }

  async synthesize(req: SpeechRequest): Promise<SpeechResult | void> {
    const option = req.voice ? VOICE_OPTIONS_BY_ID.get(req.voice) : undefined;
    if (option && option.language === req.language) {
      if (option.engine === 'espeak') return this.fallback.synthesize(req);
      const engine = await this.engineAskedFor(option.engine);
      if (engine && (!engine.canSpeak || engine.canSpeak(req.text, req.language))) return engine.synthesize(req);
      return this.fallback.synthesize({ ...req, voice: undefined });
    }
    const engine = this.route.get(req.language);
    if (!engine || (engine.canSpeak && !engine.canSpeak(req.text, req.language)))
      return this.fallback.synthesize({ ...req, voice: undefined });
    return engine.synthesize(req);
  }

  voiceOf(language: LanguageCode, voice?: string): SpokenVoice {
    const option = voice ? VOICE_OPTIONS_BY_ID.get(voice) : undefined;
    if (option && option.language === language) {
      if (option.engine === 'espeak') return this.fallback.voiceOf(language, voice);
      const engine = this.built.get(option.engine);
      return engine && this.usable.has(engine) ? engine.voiceOf(language, voice) : this.fallback.voiceOf(language);
    }
    const engine = this.route.get(language);
    return (engine ?? this.fallback).voiceOf(language);
  }

  /** Ends every engine that keeps something running. */
  async close(): Promise<void> {
    for (const engine of this.built.values()) await engine.close?.();
  }

  /** The engine a campaign's voice needs: built and checked once per node, the first time a campaign asks for it. */
  private engineAskedFor(name: Exclude<VoiceEngineName, 'espeak'>): Promise<LanguageEngine | null> {
    let found = this.asked.get(name);
    if (!found) {
      const engine = this.built.get(name) ?? this.build(name);
      this.built.set(name, engine);
      found = engine.verify().then(
        () => {
          this.usable.add(engine);
          return engine;
        },
        (err: Error) => {
          this.warn(`speech: ${engine.name} is not usable (${err.message}); voices asked of it are spoken by espeak-ng instead`);
          return null;
        },
      );
      this.asked.set(name, found);
    }
    return found;
  }

  /** Engine and voice per supported language. */
  voices(): VoiceChoice[] {
    return SUPPORTED_LANGUAGES.map((language) => {
      const engine = this.route.get(language);
      return engine
        ? { language, engine: engine.name as VoiceEngineName, voice: engine.voiceOf(language).name }
        : { language, engine: 'espeak', voice: this.fallback.voiceFor(language) };
    });
  }
}
