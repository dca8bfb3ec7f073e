/**
 * Russian, Brazilian Portuguese and English through RHVoice (`RHVoice-test`, Debian non-free `rhvoice` with
 * `rhvoice-russian`, `rhvoice-brazilian-portuguese`, `rhvoice-english`): HTS voices trained on one speaker each,
 * 24 kHz mono WAV. Only voices whose licence allows a sold product are offered (config/voices.ts). RHVoice-test
 * silently speaks with another voice when the asked one is not installed, and writes no file when it has nothing
 * to say: verify() checks the voices' directories, synthesize() that a file came out.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LanguageCode } from '../../config/catalog';
import { RHVOICE_VOICES, RHVOICE_VOICES_DIR, VOICE_OPTIONS, VOICE_OPTIONS_BY_ID } from '../../config/voices';
import type { SpokenVoice } from '../campaign/storyboard';
import { fileExists, findExecutable, run } from './exec';
import type { LanguageEngine } from './offline';
import type { SpeechRequest } from './speech';

export interface RHVoiceOptions {
  /** default `RHVoice-test` on PATH */
  binary?: string;
  /** where the voices are (one directory each, with voice.info); default RHVOICE_VOICES_DIR */
  voicesDir?: string;
  /** limit per synthesis; default 30000 */
  timeoutMs?: number;
}

/** The Debian package of each language's voices, for the message of a missing one. */
const PACKAGES: Partial<Record<LanguageCode, string>> = {
  en: 'rhvoice-english',
  ru: 'rhvoice-russian',
  pt: 'rhvoice-brazilian-portuguese',
};

export class RHVoiceProvider implements LanguageEngine {
  readonly name = 'rhvoice';
  readonly languages = Object.keys(RHVOICE_VOICES) as LanguageCode[];
  readonly voice = Object.values(RHVOICE_VOICES).join(',');
  private readonly binary: string;
  private readonly voicesDir: string;
  private readonly timeoutMs: number;

  constructor(opts: RHVoiceOptions = {}) {
    this.binary = opts.binary ?? 'RHVoice-test';
    this.voicesDir = opts.voicesDir ?? RHVOICE_VOICES_DIR;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  /** RHVoice-test, and every voice it may be asked for (the languages' defaults and the options); then one short word. */
  async verify(): Promise<void> {
    if (!(await findExecutable(this.binary))) throw new Error(`${this.binary} not found (Debian non-free package rhvoice)`);
    const wanted = [
      ...Object.entries(RHVOICE_VOICES).map(([language, voice]) => ({ language: language as LanguageCode, voice })),
      ...VOICE_OPTIONS.filter((v) => v.engine === 'rhvoice').map((v) => ({ language: v.language, voice: v.engineVoice ?? '' })),
    ];
    for (const { language, voice } of wanted) {
      if (!(await fileExists(path.join(this.voicesDir, voice, 'voice.info'))))
        throw new Error(`RHVoice has no voice ${voice} in ${this.voicesDir} (Debian non-free package ${PACKAGES[language] ?? 'rhvoice'})`);
    }
    const dir = await mkdtemp(path.join(os.tmpdir(), 'rhvoice-'));
    try {
      await this.speak('ok', wanted[0].voice, path.join(dir, 'check.wav'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The voice that says `language`: the asked-for RHVoice voice of that language, else the language's. */
  voiceFor(language: LanguageCode, voice?: string): string {
    const own = RHVOICE_VOICES[language];
    if (!own) throw new Error(`rhvoice: unsupported language "${language}"`);
    const option = voice ? VOICE_OPTIONS_BY_ID.get(voice) : undefined;
    return option?.engine === 'rhvoice' && option.language === language && option.engineVoice ? option.engineVoice : own;
  }

  voiceOf(language: LanguageCode, voice?: string): SpokenVoice {
    return { engine: this.name, name: this.voiceFor(language, voice) };
  }

  /** The Russian voices read Cyrillic and Latin (English words by their own phones), the others Latin; all read digits.
   * Text with none of these would be silence (RHVoice-test writes no file). */
  canSpeak(text: string, language?: LanguageCode): boolean {
    return language === 'ru' ? /[\p{Script=Cyrillic}\p{Script=Latin}\p{Nd}]/u.test(text) : /[\p{Script=Latin}\p{Nd}]/u.test(text);
  }

  async synthesize(req: SpeechRequest): Promise<void> {
    const voice = this.voiceFor(req.language, req.voice);
    if (!this.canSpeak(req.text, req.language)) throw new Error(`rhvoice: nothing ${voice} can say in "${req.text.slice(0, 40)}"`);
    await this.speak(req.text, voice, req.outFile);
  }

  private async speak(text: string, voice: string, outFile: string): Promise<void> {
    await rm(outFile, { force: true });
    // Plain text through stdin (SSML only with -s): markup, quotes and leading dashes are read as text.
    await run(this.binary, ['-p', voice, '-o', outFile], { input: `${text}\n`, timeoutMs: this.timeoutMs });
    const size = await stat(outFile).then(
      (s) => s.size,
      () => 0,
    );
    if (size <= 44) throw new Error(`rhvoice: ${voice} said nothing for "${text.slice(0, 40)}"`);
  }
}
