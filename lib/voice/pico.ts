/**
 * Spanish, French, German and Italian (and two English voices) through SVOX Pico's `pico2wave` (Debian non-free
 * `libttspico-utils`, Apache-2.0): one human-sounding female voice per language, 16 kHz mono WAV (normalizeAudio
 * resamples it). The text goes through stdin, so quotes and leading dashes are never options; pico2wave refuses
 * 32,767 bytes or more in one text, so longer text is said in parts of whole sentences and joined.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LanguageCode } from '../../config/catalog';
import { PICO_LANG_DIR, PICO_VOICES, VOICE_OPTIONS, VOICE_OPTIONS_BY_ID } from '../../config/voices';
import type { SpokenVoice } from '../campaign/storyboard';
import { normalizeText, splitSentences } from '../text';
import { concatAudio } from './audio';
import { findExecutable, run } from './exec';
import type { LanguageEngine } from './offline';
import type { SpeechRequest } from './speech';

export interface PicoOptions {
  /** default `pico2wave` on PATH */
  binary?: string;
  /** where the voices' .bin files are; default PICO_LANG_DIR (Debian libttspico-data) */
  langDir?: string;
  /** limit per synthesis; default 30000 */
  timeoutMs?: number;
}

/** pico2wave fails ("Cannot put Text (-102)") on 32,767 bytes or more; parts stay well under. */
export const PICO_MAX_INPUT_BYTES = 30_000;

export class PicoProvider implements LanguageEngine {
  readonly name = 'pico';
  readonly languages = Object.keys(PICO_VOICES) as LanguageCode[];
  readonly voice = Object.values(PICO_VOICES).join(',');
  private readonly binary: string;
  private readonly langDir: string;
  private readonly timeoutMs: number;

  constructor(opts: PicoOptions = {}) {
    this.binary = opts.binary ?? 'pico2wave';
    this.langDir = opts.langDir ?? PICO_LANG_DIR;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  /** pico2wave, and both data files (`<voice>_ta.bin`, `<voice>_<speaker>_sg.bin`) of every voice it may be asked for;
   * then one short word, to prove it runs. */
  async verify(): Promise<void> {
    if (!(await findExecutable(this.binary))) throw new Error(`${this.binary} not found (Debian non-free package libttspico-utils)`);
    const files = await readdir(this.langDir).catch(() => [] as string[]);
    const voices = new Set([...Object.values(PICO_VOICES), ...VOICE_OPTIONS.filter((v) => v.engine === 'pico').map((v) => v.engineVoice)]);
    for (const voice of voices) {
      const ok = files.includes(`${voice}_ta.bin`) && files.some((f) => f.startsWith(`${voice}_`) && f.endsWith('_sg.bin'));
      if (!ok) throw new Error(`pico has no ${voice} voice in ${this.langDir} (Debian non-free package libttspico-data)`);
    }
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pico-'));
    try {
      await this.speak('ok', 'en-US', path.join(dir, 'check.wav'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The voice that says `language`: the asked-for Pico voice of that language, else the language's. */
  voiceFor(language: LanguageCode, voice?: string): string {
    const option = voice ? VOICE_OPTIONS_BY_ID.get(voice) : undefined;
    const own = PICO_VOICES[language];
    if (!own) throw new Error(`pico: unsupported language "${language}"`);
    return option?.engine === 'pico' && option.language === language && option.engineVoice ? option.engineVoice : own;
  }

  voiceOf(language: LanguageCode, voice?: string): SpokenVoice {
    return { engine: this.name, name: this.voiceFor(language, voice) };
  }

  /** Pico reads Latin letters and digits; text in another script would be silence. */
  canSpeak(text: string): boolean {
    return /[\p{Script=Latin}\p{Nd}]/u.test(text);
  }

  async synthesize(req: SpeechRequest): Promise<void> {
    const voice = this.voiceFor(req.language, req.voice);
    if (!this.canSpeak(req.text)) throw new Error('pico: nothing to say in Latin letters or digits');
    const parts = chunks(req.text, req.language, PICO_MAX_INPUT_BYTES);
    if (parts.length === 1) return this.speak(parts[0], voice, req.outFile);
    const files = parts.map((_, i) => `${req.outFile}.part${i}.wav`);
    try {
      for (const [i, part] of parts.entries()) await this.speak(part, voice, files[i]);
      await concatAudio(files, req.outFile);
    } finally {
      await Promise.all(files.map((f) => rm(f, { force: true })));
    }
  }

  private async speak(text: string, voice: string, outFile: string): Promise<void> {
    // pico2wave writes only to a file whose name ends in .wav; without words it reads them from stdin.
    if (!outFile.endsWith('.wav')) throw new Error(`pico: the output file must end in .wav (${outFile})`);
    await run(this.binary, ['-l', voice, '-w', outFile], { input: text, timeoutMs: this.timeoutMs });
  }
}

/** `text` in parts of at most `maxBytes` UTF-8 bytes, cut between sentences (a longer sentence at a space, else anywhere). */
export function chunks(text: string, language: LanguageCode, maxBytes: number): string[] {
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  const out: string[] = [];
  let current = '';
  const add = (piece: string) => {
    if (current && bytes(`${current} ${piece}`) > maxBytes) {
      out.push(current);
      current = '';
    }
    current = current ? `${current} ${piece}` : piece;
  };
  for (const sentence of splitSentences(normalizeText(text), language)) {
    if (bytes(sentence) <= maxBytes) {
      add(sentence);
      continue;
    }
    let piece = '';
    for (const ch of sentence) {
      if (bytes(piece + ch) > maxBytes || (ch === ' ' && bytes(piece) > maxBytes - 200)) {
        if (piece.trim()) add(piece.trim());
        piece = '';
      }
      piece += ch;
    }
    if (piece.trim()) add(piece.trim());
  }
  if (current) out.push(current);
  return out.filter(Boolean);
}
