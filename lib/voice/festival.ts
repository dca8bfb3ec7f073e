/**
 * English through CMU's US "slt" voice, two ways: festival with the HTS voice of Debian's festvox-us-slt-hts,
 * kept loaded in a festival process (lib/voice/festival-process.ts; the default: the lowest word error rate
 * measured, bench/voice), or flite's built-in
 * slt (about 7 times faster and 15 times lighter, a little less intelligible). Both read ASCII text: other
 * characters are folded (é → e, curly quotes → straight) or dropped.
 */
import type { SpokenVoice } from '../campaign/storyboard';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { LanguageCode } from '../../config/catalog';
import { DEFAULT_FESTIVAL_VOICE, DEFAULT_FLITE_VOICE, FESTIVAL_IDLE_SECONDS, FESTIVAL_PROCESSES } from '../../config/voices';
import { findExecutable, run } from './exec';
import { FestivalPool } from './festival-process';
import type { LanguageEngine } from './offline';
import type { SpeechRequest, SpeechResult } from './speech';

export interface FestivalOptions {
  /** default `festival` on PATH */
  binary?: string;
  /** a festival voice name (`voice_<name>` must exist); default cmu_us_slt_arctic_hts */
  voice?: string;
  /** where festival's voices are installed; default /usr/share/festival/voices */
  voicesDir?: string;
  /** limit per synthesis (and for loading the voice); default 60000 */
  timeoutMs?: number;
  /** festival processes kept with the voice loaded; default FESTIVAL_PROCESSES */
  processes?: number;
  /** a process unused this long ends; default FESTIVAL_IDLE_SECONDS */
  idleMs?: number;
}

export class FestivalProvider implements LanguageEngine {
  readonly name = 'festival';
  readonly languages: readonly LanguageCode[] = ['en'];
  readonly voice: string;
  private readonly binary: string;
  private readonly voicesDir: string;
  /** the festival processes that keep the voice loaded */
  readonly pool: FestivalPool;

  constructor(opts: FestivalOptions = {}) {
    this.binary = opts.binary ?? 'festival';
    this.voice = opts.voice ?? DEFAULT_FESTIVAL_VOICE;
    // The name goes into a Scheme expression: letters, digits and underscores only.
    if (!/^[a-z0-9_]+$/i.test(this.voice)) throw new Error(`festival: bad voice name "${this.voice}"`);
    this.voicesDir = opts.voicesDir ?? '/usr/share/festival/voices';
    this.pool = new FestivalPool({
      binary: this.binary,
      voice: this.voice,
      timeoutMs: opts.timeoutMs ?? 60_000,
      max: opts.processes ?? FESTIVAL_PROCESSES,
      idleMs: opts.idleMs ?? FESTIVAL_IDLE_SECONDS * 1000,
    });
  }

  /** File checks only (festival takes about a second to load a voice): festival, and the voice in voicesDir/<lang>/<voice>. */
  async verify(): Promise<void> {
    if (!(await findExecutable(this.binary))) throw new Error(`${this.binary} not found (Debian package festival)`);
    const families = await readdir(this.voicesDir).catch(() => [] as string[]);
    for (const family of families) {
      const voices = await readdir(path.join(this.voicesDir, family)).catch(() => [] as string[]);
      if (voices.includes(this.voice)) return;
    }
    throw new Error(`festival has no voice ${this.voice} in ${this.voicesDir} (Debian package festvox-us-slt-hts)`);
  }

  voiceOf(): SpokenVoice {
    return { engine: this.name, name: this.voice };
  }

  canSpeak(text: string): boolean {
    return speakable(text);
  }

  async synthesize(req: SpeechRequest): Promise<SpeechResult> {
    // Text from a file in festival's text mode (no Scheme is evaluated from it); RIFF WAV at the voice's rate.
    // Asked for words: each token's first word's start and last word's end (festival's Token and Word relations).
    const words = await this.pool.synthesize(englishText(req, this.name), req.outFile, req.words);
    return req.words ? { words } : {};
  }

  /** Ends the festival processes. */
  close(): Promise<void> {
    return this.pool.close();
  }
}

export interface FliteOptions {
  /** default `flite` on PATH */
  binary?: string;
  /** a voice compiled into flite (`flite -lv`); default slt */
  voice?: string;
  /** limit per synthesis; default 30000 */
  timeoutMs?: number;
}

export class FliteProvider implements LanguageEngine {
  readonly name = 'flite';
  readonly languages: readonly LanguageCode[] = ['en'];
  readonly voice: string;
  private readonly binary: string;
  private readonly timeoutMs: number;

  constructor(opts: FliteOptions = {}) {
    this.binary = opts.binary ?? 'flite';
    this.voice = opts.voice ?? DEFAULT_FLITE_VOICE;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  async verify(): Promise<void> {
    if (!(await findExecutable(this.binary))) throw new Error(`${this.binary} not found (Debian package flite)`);
    const { stdout } = await run(this.binary, ['-lv'], { timeoutMs: 10_000 });
    const voices = stdout.replace(/^.*:/, '').trim().split(/\s+/);
    if (!voices.includes(this.voice)) throw new Error(`flite has no voice ${this.voice} (it has: ${voices.join(', ')})`);
  }

  voiceOf(): SpokenVoice {
    return { engine: this.name, name: this.voice };
  }

  canSpeak(text: string): boolean {
    return speakable(text);
  }

  async synthesize(req: SpeechRequest): Promise<void> {
    const text = englishText(req, this.name);
    // Without -t or -f, flite reads the text from stdin.
    await run(this.binary, ['-voice', this.voice, '-o', req.outFile], { input: `${text}\n`, timeoutMs: this.timeoutMs });
  }
}

/** Whether the ASCII these engines read keeps a letter or digit of `text` (text in another script would be silence). */
function speakable(text: string): boolean {
  return /[a-z0-9]/i.test(toAscii(text));
}

/** The request's text as the ASCII these engines read; throws on another language or nothing to say. */
function englishText(req: SpeechRequest, engine: string): string {
  if (req.language !== 'en') throw new Error(`${engine}: unsupported language "${req.language}"`);
  if (!speakable(req.text)) throw new Error(`${engine}: nothing to say in ASCII`);
  return toAscii(req.text);
}

/** é → e, ’ → ', “ ” → ", dashes → commas, ellipsis → "..."; anything else outside ASCII is dropped. */
export function toAscii(text: string): string {
  return text
    .replace(/[‘’ʼ′]/g, "'")
    .replace(/[“”„″«»]/g, '"')
    .replace(/\s*[–—―]\s*/g, ', ')
    .replace(/…/g, '...')
    .replace(/[\u00a0\u2000-\u200b\u202f]/g, ' ')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e\n]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
