/** Audio post-processing with ffmpeg/ffprobe: loudness normalization, measured durations, concat. */
import fs from 'node:fs/promises';
import { run } from './exec';

const TIMEOUT_MS = 120_000;
const ffmpeg = (args: string[]) => run('ffmpeg', ['-hide_banner', '-nostdin', '-nostats', ...args], { timeoutMs: TIMEOUT_MS });
const RATE = 48_000;
/** The format every normalized file has, so that concatAudio can join them. */
const WAV_OUT = ['-ar', String(RATE), '-ac', '1', '-c:a', 'pcm_s16le'];
/** loudnorm's dynamic mode works on 3 s windows: alone, it gave 2.5 s speech clips -40..-49 LUFS.
 * A shorter clip is looped up to this many samples for the filter (silence padding would bias the
 * windows by ~3 dB), then cut back to its own length. */
const LOUDNORM_MIN_SAMPLES = 3.2 * RATE;

/** ffmpeg: loudness-normalize (EBU R128 loudnorm to about -16 LUFS, single pass), resample to 48 kHz
 * mono, 16-bit WAV; optional trailing silence pad in ms. The output keeps the input's length (+ pad).
 * Several inputs (runs of one scene in different voices) are levelled one by one, joined and levelled
 * together, in the same ffmpeg run: one process start instead of one per input, plus a join and a pass. */
export async function normalizeAudio(input: string | string[], output: string, opts: { padEndMs?: number } = {}): Promise<void> {
  const inputs = typeof input === 'string' ? [input] : input;
  if (!inputs.length) throw new Error('normalizeAudio: no inputs');
  const counts = await Promise.all(inputs.map(decodedSamples));
  const pad = Math.round(((opts.padEndMs ?? 0) * RATE) / 1000);
  const padFilter = pad > 0 ? [`apad=pad_len=${pad}`] : [];
  let graph: string;
  if (inputs.length === 1) {
    graph = `[0:a]${[...levelled(counts[0]), ...padFilter].join(',')}[out]`;
  } else {
    // The runs are brought to one level by a gain each, from their measured loudness, before the one levelling
    // pass of the whole: a loudnorm pass per run (it works at 192 kHz, a short run looped to 3.2 s) was most of
    // a multi-voice scene's time.
    const gains = await levellingGains(inputs, counts);
    const each = counts.map((_, i) => `[${i}:a]aresample=${RATE},aformat=channel_layouts=mono,volume=${gains[i].toFixed(2)}dB[l${i}]`);
    const joined = `${counts.map((_, i) => `[l${i}]`).join('')}concat=n=${counts.length}:v=0:a=1[joined]`;
    const total = counts.reduce((sum, n) => sum + n, 0);
    graph = [...each, joined, `[joined]${[...levelled(total), ...padFilter].join(',')}[out]`].join(';');
  }
  await ffmpeg(['-y', ...inputs.flatMap((f) => ['-i', f]), '-filter_complex', graph, '-map', '[out]', ...WAV_OUT, output]);
}

/** The loudness every run of a multi-voice scene is brought to before the scene is levelled as a whole. */
const RUN_LUFS = -16;
/** A run measured below this (silence: ebur128 reports its floor, -70) keeps its level. */
const SILENT_LUFS = -69;
/** Gains are bounded, so a mis-measured run can never be blown up or muted. */
const MAX_RUN_GAIN_DB = 60;

/**
 * The gain (dB) that brings each input to RUN_LUFS, from one ffmpeg run measuring them all (EBU R128 integrated
 * loudness at 48 kHz; a run shorter than the 3.2 s loudnorm needs is looped as levelled() does, as the meter's
 * 400 ms gating blocks leave a short one unmeasured).
 */
async function levellingGains(inputs: string[], counts: number[]): Promise<number[]> {
  // Every chain has the same three filters, so input i's meter is the graph's filter number 3i + 2.
  const chains = counts.map((samples, i) => {
    return `[${i}:a]aresample=${RATE},aloop=loop=${loopsToMeasure(samples)}:size=${samples},ebur128=framelog=verbose[m${i}]`;
  });
  const { stderr } = await ffmpeg([
    ...inputs.flatMap((f) => ['-i', f]),
    '-filter_complex',
    chains.join(';'),
    ...counts.flatMap((_, i) => ['-map', `[m${i}]`, '-f', 'null', '-']),
  ]);
  const measured = new Map<number, number>();
  // Each meter prints a summary when it ends (the graph's first, configuring instance prints an empty one first).
  for (const match of stderr.matchAll(/\[Parsed_ebur128_(\d+) @ [^\]]+\] Summary:\s+Integrated loudness:\s+I:\s+(-?[\d.]+|-inf) LUFS/g))
    measured.set(Number(match[1]), match[2] === '-inf' ? -Infinity : Number(match[2]));
  return counts.map((_, i) => {
    const lufs = measured.get(3 * i + 2);
    if (lufs === undefined) throw new Error(`could not measure the loudness of ${inputs[i]}`);
    if (!(lufs > SILENT_LUFS)) return 0;
    return Math.max(-MAX_RUN_GAIN_DB, Math.min(MAX_RUN_GAIN_DB, RUN_LUFS - lufs));
  });
}

/** How many more times `samples` of audio are looped to be LOUDNORM_MIN_SAMPLES long (0: long enough already). */
function loopsToMeasure(samples: number): number {
  return Math.max(0, Math.ceil(LOUDNORM_MIN_SAMPLES / samples) - 1);
}

/** The filters that level `samples` (counted at 48 kHz) of audio to the loudness target and keep its length. */
function levelled(samples: number): string[] {
  const loops = loopsToMeasure(samples);
  const filters = [`aresample=${RATE}`, 'aformat=channel_layouts=mono'];
  if (loops > 0) filters.push(`aloop=loop=${loops}:size=${samples}`);
  filters.push('loudnorm=I=-16:TP=-1.5:LRA=11', `aresample=${RATE}`, `atrim=end_sample=${samples}`);
  return filters;
}

/** The 44-byte header of a 48 kHz mono 16-bit PCM WAV holding `dataBytes` of samples (what ffmpeg writes with WAV_OUT). */
function pcmWavHeader(dataBytes: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 2, 28); // bytes a second
  header.writeUInt16LE(2, 32); // bytes a frame
  header.writeUInt16LE(16, 34); // bits a sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** Whether `bytes` start as a RIFF WAVE file. */
export function isRiffWave(bytes: Buffer): boolean {
  return bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WAVE';
}

/** A WAV's `fmt ` chunk: `code` 1 is integer PCM. */
export interface WavFormat {
  code: number;
  channels: number;
  sampleRate: number;
  bits: number;
}

/**
 * A WAV's chunks walked in `bytes` (the whole file or its head): its format (null when no whole `fmt ` chunk came
 * before the data) and its `data` chunk's offset and declared size (null when `bytes` hold none); null if `bytes`
 * are not a WAV. The declared size may be a placeholder (a WAV written to a pipe): each caller decides what to trust.
 */
export function wavLayout(bytes: Buffer): { format: WavFormat | null; data: { offset: number; declaredBytes: number } | null } | null {
  if (!isRiffWave(bytes)) return null;
  let format: WavFormat | null = null;
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const id = bytes.toString('latin1', offset, offset + 4);
    const length = bytes.readUInt32LE(offset + 4);
    if (id === 'fmt ' && offset + 24 <= bytes.length)
      format = {
        code: bytes.readUInt16LE(offset + 8),
        channels: bytes.readUInt16LE(offset + 10),
        sampleRate: bytes.readUInt32LE(offset + 12),
        bits: bytes.readUInt16LE(offset + 22),
      };
    if (id === 'data') return { format, data: { offset: offset + 8, declaredBytes: length } };
    offset += 8 + length + (length % 2);
  }
  return { format, data: null };
}

/** A PCM WAV's format and where its samples are, from its chunks; null if it is not one. */
async function pcmWav(
  file: string,
): Promise<{ sampleRate: number; channels: number; bits: number; dataBytes: number; dataOffset: number } | null> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(size, 4096));
    await handle.read(head, 0, head.length, 0);
    const layout = wavLayout(head);
    if (!layout?.format || layout.format.code !== 1 || !layout.data) return null;
    const { offset, declaredBytes } = layout.data;
    // A size the file really has: a WAV written to a pipe carries a placeholder here instead.
    const exact = offset + declaredBytes === size || offset + declaredBytes + 1 === size;
    const { sampleRate, channels, bits } = layout.format;
    return exact ? { sampleRate, channels, bits, dataBytes: declaredBytes, dataOffset: offset } : null;
  } finally {
    await handle.close();
  }
}

/**
 * Samples in the audio at 48 kHz mono: from the header of a PCM WAV whose data size is the file's own (what the
 * engines write to a file, and normalizeAudio and concatAudio write — half the voiceover's ffmpeg runs were
 * these counts); resampled from another rate, the count is the frames scaled, rounded down (ffmpeg's resampler
 * keeps the length within a sample, and a sample short only trims one). Otherwise counted by decoding (a WAV
 * written to a pipe has no true size in its header).
 */
async function decodedSamples(file: string): Promise<number> {
  const wav = await pcmWav(file).catch(() => null);
  if (wav && wav.dataBytes > 0 && wav.bits % 8 === 0) {
    const frames = wav.dataBytes / ((wav.bits / 8) * wav.channels);
    const samples = wav.sampleRate === RATE ? frames : Math.floor((frames * RATE) / wav.sampleRate);
    if (samples > 0) return samples;
  }
  return countDecodedSamples(file);
}

async function countDecodedSamples(file: string): Promise<number> {
  const { stderr } = await ffmpeg([
    '-i',
    file,
    '-vn',
    '-af',
    `aresample=${RATE},aformat=channel_layouts=mono,volumedetect`,
    '-f',
    'null',
    '-',
  ]);
  const samples = Number(/n_samples: (\d+)/.exec(stderr)?.[1] ?? 0);
  if (!samples) throw new Error(`no audio samples in ${file}`);
  return samples;
}

/**
 * Duration in seconds: exact from the header of a PCM WAV whose data size is the file's own (samples ÷ rate),
 * otherwise measured by ffprobe (from the stream, not guessed).
 */
export async function measureDuration(file: string): Promise<number> {
  const wav = await pcmWav(file).catch(() => null);
  if (wav && wav.dataBytes > 0 && wav.bits % 8 === 0) return wav.dataBytes / ((wav.bits / 8) * wav.channels) / wav.sampleRate;
  return probeDuration(file);
}

async function probeDuration(file: string): Promise<number> {
  const { stdout } = await run(
    'ffprobe',
    ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=duration:format=duration', '-of', 'json', file],
    { timeoutMs: 30_000 },
  );
  const info = JSON.parse(stdout) as { streams?: { duration?: string }[]; format?: { duration?: string } };
  const seconds = Number(info.streams?.[0]?.duration ?? info.format?.duration);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`ffprobe found no audio duration in ${file}`);
  return seconds;
}

/** Concatenate WAVs (same format) into one, for a whole video's narration track. */
export async function concatAudio(inputs: string[], output: string): Promise<void> {
  if (!inputs.length) throw new Error('concatAudio: no inputs');
  // The scenes normalizeAudio wrote are all 48 kHz mono 16-bit PCM: their samples are joined as they are, with
  // no ffmpeg run (one a language, at the end of the voiceover stage). Anything else goes to ffmpeg.
  const formats = await Promise.all(inputs.map((file) => pcmWav(file).catch(() => null)));
  if (formats.every((f) => f && f.sampleRate === RATE && f.channels === 1 && f.bits === 16)) {
    const parts = await Promise.all(
      inputs.map(async (file, i) => {
        const bytes = await fs.readFile(file);
        return bytes.subarray(formats[i]!.dataOffset, formats[i]!.dataOffset + formats[i]!.dataBytes);
      }),
    );
    const dataBytes = parts.reduce((sum, part) => sum + part.length, 0);
    await fs.writeFile(output, Buffer.concat([pcmWavHeader(dataBytes), ...parts]));
    return;
  }
  const labels = inputs.map((_, i) => `[${i}:a]`).join('');
  await ffmpeg([
    '-y',
    ...inputs.flatMap((f) => ['-i', f]),
    '-filter_complex',
    `${labels}concat=n=${inputs.length}:v=0:a=1[out]`,
    '-map',
    '[out]',
    ...WAV_OUT,
    output,
  ]);
}

/** Integrated loudness (LUFS, EBU R128) and mean volume (dB) via ffmpeg's ebur128 and volumedetect. */
export async function loudness(file: string): Promise<{ integratedLufs: number; meanVolumeDb: number }> {
  // framelog=verbose keeps the per-frame lines below the default log level; the summary still prints.
  const { stderr } = await ffmpeg(['-i', file, '-af', 'ebur128=framelog=verbose,volumedetect', '-f', 'null', '-']);
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  const lufs = /\bI:\s*(-?[\d.]+|-inf) LUFS/.exec(summary)?.[1];
  const mean = /mean_volume:\s*(-?[\d.]+|-inf) dB/.exec(stderr)?.[1];
  if (lufs === undefined || mean === undefined) throw new Error(`could not read loudness of ${file}`);
  const num = (s: string) => (s === '-inf' ? -Infinity : Number(s));
  return { integratedLufs: num(lufs), meanVolumeDb: num(mean) };
}
