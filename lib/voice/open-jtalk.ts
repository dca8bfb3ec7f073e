/**
 * Japanese through Open JTalk (Debian `open-jtalk`, dictionary `open-jtalk-mecab-naist-jdic`) and an HTS
 * voice: by default "Mei" (MMDAgent, CC BY 3.0), fetched by scripts/bootstrap.sh. Open JTalk analyses
 * the text itself (MeCab with NAIST-jdic), so kanji need no kana step, and its trace (`-ot`) shows
 * the reading it chose for every word, which is what the tests check.
 */
import type { SpokenVoice } from '../campaign/storyboard';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LanguageCode } from '../../config/catalog';
import { DEFAULT_OPEN_JTALK_DICTIONARY, DEFAULT_OPEN_JTALK_VOICES } from '../../config/voices';
import { normalizeText, splitSentences } from '../text';
import { concatAudio, measureDuration } from './audio';
import { fileExists, findExecutable, run } from './exec';
import type { LanguageEngine } from './offline';
import type { SpeechRequest, SpeechResult, WordTiming } from './speech';

export interface OpenJTalkOptions {
  /** default `open_jtalk` on PATH */
  binary?: string;
  /** MeCab dictionary directory (with sys.dic); default Debian's naist-jdic */
  dictionary?: string;
  /** .htsvoice files, the first that exists is used; default Mei, then Debian's nitech m001 */
  voices?: string[];
  /** limit per synthesis; default 30000 */
  timeoutMs?: number;
}

/** One word of Open JTalk's text analysis: as written, its dictionary reading, and how it is pronounced. */
export interface JapaneseReading {
  surface: string;
  /** e.g. ホントウニ */
  reading: string;
  /** e.g. ホントーニ (long vowels as ー): what the voice says */
  pronunciation: string;
}

/** open_jtalk reads one line into a 1024-byte buffer and drops the rest: longer text is said in parts. */
const MAX_INPUT_BYTES = 900;

export class OpenJTalkProvider implements LanguageEngine {
  readonly name = 'open-jtalk';
  readonly languages: readonly LanguageCode[] = ['ja'];
  private readonly binary: string;
  private readonly dictionary: string;
  private readonly candidates: string[];
  private readonly timeoutMs: number;
  private voiceFile?: string;

  constructor(opts: OpenJTalkOptions = {}) {
    this.binary = opts.binary ?? 'open_jtalk';
    this.dictionary = opts.dictionary ?? DEFAULT_OPEN_JTALK_DICTIONARY;
    this.candidates = opts.voices?.length ? opts.voices : DEFAULT_OPEN_JTALK_VOICES;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  /** The voice in use, e.g. `mei_normal` (known once verify or a synthesis has found it). */
  get voice(): string {
    return this.voiceFile ? path.basename(this.voiceFile, '.htsvoice') : path.basename(this.candidates[0], '.htsvoice');
  }

  /** Throws naming what is missing (binary, dictionary, voice file); else says one short word to prove it works. */
  async verify(): Promise<void> {
    if (!(await findExecutable(this.binary))) throw new Error(`${this.binary} not found (Debian package open-jtalk)`);
    if (!(await fileExists(path.join(this.dictionary, 'sys.dic'))))
      throw new Error(`no Open JTalk dictionary at ${this.dictionary} (Debian package open-jtalk-mecab-naist-jdic)`);
    await this.findVoice();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'open-jtalk-'));
    try {
      await this.speak('はい', path.join(dir, 'check.wav'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  voiceOf(): SpokenVoice {
    return { engine: this.name, name: this.voice };
  }

  async synthesize(req: SpeechRequest): Promise<SpeechResult> {
    if (req.language !== 'ja') throw new Error(`open-jtalk: unsupported language "${req.language}"`);
    const parts = chunks(req.text);
    if (!parts.length) throw new Error('open-jtalk: empty text');
    // Asked for words: each part's trace (-ot) gives its words and the times of its phonemes (wordTimes).
    const traces = req.words ? parts.map((_, i) => `${req.outFile}.trace${i}.txt`) : [];
    const files = parts.length === 1 ? [req.outFile] : parts.map((_, i) => `${req.outFile}.part${i}.wav`);
    try {
      for (const [i, part] of parts.entries()) await this.speak(part, files[i], traces[i]);
      if (parts.length > 1) await concatAudio(files, req.outFile);
      if (!req.words) return {};
      const words: WordTiming[] = [];
      let offset = 0;
      for (const [i, trace] of traces.entries()) {
        const times = wordTimes(await readFile(trace, 'utf8'));
        if (!times) return {}; // a trace it cannot account for: the words are measured instead
        words.push(...times.words.map((w) => ({ ...w, start: w.start + offset, end: w.end + offset })));
        // The parts are joined as they are: the next one starts where this file ends.
        offset += await measureDuration(files[i]);
      }
      return { words };
    } finally {
      await Promise.all([...(parts.length > 1 ? files : []), ...traces].map((f) => rm(f, { force: true })));
    }
  }

  /** Open JTalk's own reading of each word of `text` (its `-ot` trace, "Text analysis result"). */
  async readings(text: string): Promise<JapaneseReading[]> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'open-jtalk-'));
    try {
      const words: JapaneseReading[] = [];
      for (const part of chunks(text)) {
        const trace = path.join(dir, 'trace.txt');
        await this.speak(part, path.join(dir, 'out.wav'), trace);
        words.push(...parseTrace(await readFile(trace, 'utf8')));
      }
      return words;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async speak(text: string, outFile: string, traceFile?: string): Promise<void> {
    const voice = await this.findVoice();
    const args = ['-x', this.dictionary, '-m', voice, '-ow', outFile, ...(traceFile ? ['-ot', traceFile] : [])];
    await run(this.binary, args, { input: `${text}\n`, timeoutMs: this.timeoutMs });
  }

  private async findVoice(): Promise<string> {
    if (this.voiceFile) return this.voiceFile;
    for (const file of this.candidates) {
      if (await fileExists(file)) return (this.voiceFile = file);
    }
    throw new Error(
      `no Open JTalk voice: none of ${this.candidates.join(', ')} exists (scripts/bootstrap.sh fetches Mei; OPEN_JTALK_VOICE names another .htsvoice)`,
    );
  }
}

/** One line each (open_jtalk says only the first line of its input), at most MAX_INPUT_BYTES, cut between sentences. */
export function chunks(text: string): string[] {
  const out: string[] = [];
  let current = '';
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  for (const sentence of splitSentences(normalizeText(text), 'ja')) {
    // A sentence longer than the limit on its own (no 。 for 300 characters) is cut at 、 or, failing that, anywhere.
    for (const piece of bytes(sentence) > MAX_INPUT_BYTES ? hardSplit(sentence) : [sentence]) {
      if (current && bytes(current + piece) > MAX_INPUT_BYTES) {
        out.push(current);
        current = '';
      }
      current += piece;
    }
  }
  if (current.trim()) out.push(current);
  return out.map((s) => s.trim()).filter(Boolean);
}

function hardSplit(sentence: string): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const ch of sentence) {
    current += ch;
    const full = Buffer.byteLength(current, 'utf8') > MAX_INPUT_BYTES - 60;
    if ((full && /[、，,\s]/.test(ch)) || Buffer.byteLength(current, 'utf8') >= MAX_INPUT_BYTES - 4) {
      pieces.push(current);
      current = '';
    }
  }
  if (current) pieces.push(current);
  return pieces;
}

/** The "[Text analysis result]" block: one CSV line per word, 13 fields, the surface first (it may hold commas). */
export function parseTrace(trace: string): JapaneseReading[] {
  const start = trace.indexOf('[Text analysis result]');
  if (start < 0) throw new Error('open-jtalk: no text analysis in the trace');
  const block = trace.slice(start).split('\n').slice(1);
  const words: JapaneseReading[] = [];
  for (const line of block) {
    if (!line.trim()) break;
    const fields = line.split(',');
    if (fields.length < 13) continue;
    const tail = fields.slice(-12);
    words.push({ surface: fields.slice(0, -12).join(','), reading: tail[7], pronunciation: tail[8] });
  }
  return words;
}

/** A mora ends on a vowel (capital: devoiced), the moraic nasal N or the geminate closure cl. */
const MORA_END = /^(?:[aiueoAIUEO]|N|cl)$/;
const SMALL_KANA = /[ァィゥェォャュョヮ]/g;

/** Morae in a katakana pronunciation (ー, ッ and ン count; small kana join the one before); null if it is not kana. */
function morae(pronunciation: string): number | null {
  const kana = pronunciation.replace(/[’']/g, '');
  if (/^[、。？！・,.?!]*$/.test(kana)) return 0;
  if (!/^[\p{Script=Katakana}ー]+$/u.test(kana)) return null;
  return [...kana.replace(SMALL_KANA, '')].length;
}

/**
 * Each word of the trace's text analysis with its start and end (seconds in the part's file), from the phoneme
 * times of its "[Output label]" block (HTK units of 100 ns): the phonemes are grouped into morae and each word
 * takes as many as its pronunciation has. Null when the counts disagree (a reading it cannot account for).
 */
export function wordTimes(trace: string): { words: WordTiming[] } | null {
  const labelStart = trace.indexOf('[Output label]');
  if (labelStart < 0) return null;
  const phones: Array<{ phone: string; start: number; end: number }> = [];
  for (const line of trace.slice(labelStart).split('\n').slice(1)) {
    const m = /^(\d+) (\d+) [^-]*-([^+]+)\+/.exec(line);
    if (!m) break;
    phones.push({ phone: m[3], start: Number(m[1]) / 1e7, end: Number(m[2]) / 1e7 });
  }
  if (!phones.length) return null;
  const moraTimes: Array<{ start: number; end: number }> = [];
  let from: number | null = null;
  for (const p of phones) {
    if (p.phone === 'sil' || p.phone === 'pau') {
      from = null;
      continue;
    }
    from ??= p.start;
    if (MORA_END.test(p.phone)) {
      moraTimes.push({ start: from, end: p.end });
      from = null;
    }
  }
  const words: WordTiming[] = [];
  let next = 0;
  for (const word of parseTrace(trace)) {
    const count = morae(word.pronunciation);
    if (count === null) return null;
    if (count === 0) {
      if (words.length) words[words.length - 1].text += word.surface;
      continue;
    }
    const own = moraTimes.slice(next, next + count);
    if (own.length < count) return null;
    words.push({ text: word.surface, start: own[0].start, end: own.at(-1)!.end });
    next += count;
  }
  if (next !== moraTimes.length) return null;
  return { words };
}
