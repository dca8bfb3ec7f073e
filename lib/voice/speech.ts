/**
 * What a speech engine is asked and answers, shared by every engine (lib/voice/offline.ts's, festival, Open JTalk,
 * Pico, RHVoice, espeak-ng, the OpenAI-compatible one) and by the factory choosing among them (lib/voice/tts.ts), in a
 * file of its own so that the engines and the factory import it, not each other.
 */
import type { LanguageCode } from '../../config/catalog';
import type { SpokenVoice } from '../campaign/storyboard';
import { stageFailure } from '../errors';

/** A word (or, in ja/zh/th, a short word group) and when it is said, in seconds from the start of its audio. */
export interface WordTiming {
  text: string;
  start: number;
  end: number;
}

export interface SpeechRequest {
  text: string;
  language: LanguageCode;
  /** absolute path of the WAV to write */ outFile: string;
  /** a voice of config/voices.ts VOICE_OPTIONS the campaign asked for; a provider that cannot give it uses its own */
  voice?: string;
  /** captions `words`: an engine that knows when each word is said returns it (lib/voice/word-timing.ts) */
  words?: boolean;
}

/** What a synthesis may tell besides its file: the engine's own word times (seconds in the file), when asked and known. */
export interface SpeechResult {
  words?: WordTiming[];
}

export interface SpeechProvider {
  readonly name: string;
  /** throws when a supported language has no voice */
  verify(): Promise<void>;
  /** Engines without word times of their own resolve to nothing: lib/voice/word-timing.ts measures theirs. */
  synthesize(req: SpeechRequest): Promise<SpeechResult | void>;
  /** The engine and voice that speak `language`, or the asked-for `voice` where the provider gives it (text another
   * engine cannot read falls back to espeak-ng). */
  voiceOf(language: LanguageCode, voice?: string): SpokenVoice;
  /** ends what the provider keeps running (festival's loaded voice); absent when it keeps nothing */
  close?(): Promise<void>;
}

export class SpeechProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'SpeechProviderError';
  }
}

/**
 * A speech engine's failure as the voice stage answers it: `speech_failed`, retryable when the engine said so; any
 * other error as it is. `what` names the work that failed, for the message.
 */
export function asSpeechFailure(err: unknown, what = 'Speech synthesis failed', retryable?: boolean): unknown {
  return err instanceof SpeechProviderError ? stageFailure('speech_failed', `${what}: ${err.message}`, retryable ?? err.retryable) : err;
}
