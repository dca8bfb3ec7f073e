/**
 * Measured word alignment, for engines that cannot say when each word starts (espeak-ng's command line, Pico,
 * RHVoice, an HTTP voice): the utterance is matched, by dynamic time warping of MFCC frames, against a reference
 * made by the same engine and voice saying each word alone — whose boundaries are known exactly, as each word is
 * its own file. A word's start in the utterance is the first of its frames that the warping path maps onto the
 * word's first voiced frame in the reference. Checked against the engines that report their own times (festival,
 * Open JTalk) and against espeak-ng's library events by bench/voice/word-timing.ts.
 *
 * Pure arithmetic on 16-bit PCM WAVs (what every engine writes); no dependency.
 */
import { readFile } from 'node:fs/promises';
import { wavLayout } from './audio';

export interface Pcm {
  sampleRate: number;
  /** mono, -1..1 */
  samples: Float32Array;
}

/** A 16-bit PCM WAV's samples (channels averaged). Throws on anything else. */
export async function readPcmWav(file: string): Promise<Pcm> {
  const bytes = await readFile(file);
  const layout = wavLayout(bytes);
  if (!layout) throw new Error(`${file} is not a WAV file`);
  if (!layout.data) throw new Error(`${file} has no audio data`);
  const { format } = layout;
  if (!format || format.bits !== 16) throw new Error(`${file} is not 16-bit PCM`);
  const { offset } = layout.data;
  // A WAV written to a pipe carries a placeholder size: the samples run to the end of the file.
  const length = Math.min(layout.data.declaredBytes, bytes.length - offset);
  const frames = Math.floor(length / (2 * format.channels));
  const samples = new Float32Array(frames);
  for (let i = 0; i < frames; i += 1) {
    let sum = 0;
    for (let c = 0; c < format.channels; c += 1) sum += bytes.readInt16LE(offset + (i * format.channels + c) * 2);
    samples[i] = sum / format.channels / 32768;
  }
  return { sampleRate: format.sampleRate, samples };
}

/** Frames of 25 ms every 10 ms. */
export const HOP_SECONDS = 0.01;
const WINDOW_SECONDS = 0.025;
const MEL_BANDS = 26;
const CEPSTRA = 13;

/** cos and sin of -2πk/n for k < n/2, per FFT size. */
const twiddles = new Map<number, { cos: Float64Array; sin: Float64Array }>();

/** Radix-2 FFT power spectrum of `frame` (length a power of two) into `power`: |X[k]|² for k = 0..n/2. */
function powerSpectrum(frame: Float64Array, re: Float64Array, im: Float64Array, power: Float64Array): void {
  const n = frame.length;
  let table = twiddles.get(n);
  if (!table) {
    table = {
      cos: Float64Array.from({ length: n / 2 }, (_, k) => Math.cos((-2 * Math.PI * k) / n)),
      sin: Float64Array.from({ length: n / 2 }, (_, k) => Math.sin((-2 * Math.PI * k) / n)),
    };
    twiddles.set(n, table);
  }
  re.set(frame);
  im.fill(0);
  for (let i = 1, j = 0; i < n; i += 1) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const t = re[i];
      re[i] = re[j];
      re[j] = t;
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const half = size / 2;
    const stride = n / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < half; k += 1) {
        const wr = table.cos[k * stride];
        const wi = table.sin[k * stride];
        const a = start + k;
        const b = a + half;
        const tr = re[b] * wr - im[b] * wi;
        const ti = re[b] * wi + im[b] * wr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
  for (let k = 0; k <= n / 2; k += 1) power[k] = re[k] * re[k] + im[k] * im[k];
}

/** Triangular mel filters from 60 Hz to min(7600 Hz, Nyquist), for an FFT of `size` at `rate`. */
function melFilters(size: number, rate: number): Array<{ from: number; weights: Float64Array }> {
  const mel = (hz: number) => 1127 * Math.log(1 + hz / 700);
  const hz = (m: number) => 700 * (Math.exp(m / 1127) - 1);
  const low = mel(60);
  const high = mel(Math.min(7600, rate / 2 - 100));
  const edges = Array.from({ length: MEL_BANDS + 2 }, (_, i) => (hz(low + ((high - low) * i) / (MEL_BANDS + 1)) * size) / rate);
  return Array.from({ length: MEL_BANDS }, (_, b) => {
    const [l, c, r] = [edges[b], edges[b + 1], edges[b + 2]];
    const from = Math.ceil(l);
    const weights = new Float64Array(Math.max(0, Math.floor(r) - from + 1));
    for (let k = from; k <= Math.floor(r); k += 1) weights[k - from] = k <= c ? (k - l) / (c - l) : (r - k) / (r - c);
    return { from, weights };
  });
}

export interface Features {
  /** CEPSTRA values per frame, frame after frame */
  mfcc: Float64Array;
  /** log energy per frame (for finding speech) */
  energy: Float64Array;
  frames: number;
}

/** MFCCs (c0..c12, c0 the log mel energy) of 25 ms Hamming frames every 10 ms. */
export function mfcc(pcm: Pcm): Features {
  const hop = Math.round(pcm.sampleRate * HOP_SECONDS);
  const win = Math.round(pcm.sampleRate * WINDOW_SECONDS);
  let size = 1;
  while (size < win) size <<= 1;
  const filters = melFilters(size, pcm.sampleRate);
  const frames = Math.max(1, Math.ceil(pcm.samples.length / hop));
  const out = new Float64Array(frames * CEPSTRA);
  const energy = new Float64Array(frames);
  const hamming = Float64Array.from({ length: win }, (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (win - 1)));
  const dct = Float64Array.from({ length: CEPSTRA * MEL_BANDS }, (_, k) => {
    const [c, b] = [Math.floor(k / MEL_BANDS), k % MEL_BANDS];
    return Math.cos((Math.PI * c * (b + 0.5)) / MEL_BANDS);
  });
  const frame = new Float64Array(size);
  const [re, im, power] = [new Float64Array(size), new Float64Array(size), new Float64Array(size / 2 + 1)];
  const logMel = new Float64Array(MEL_BANDS);
  for (let f = 0; f < frames; f += 1) {
    frame.fill(0);
    const start = f * hop - Math.floor((win - hop) / 2);
    let e = 0;
    for (let i = 0; i < win; i += 1) {
      const s = pcm.samples[start + i] ?? 0;
      frame[i] = s * hamming[i];
      e += s * s;
    }
    energy[f] = 10 * Math.log10(e / win + 1e-10);
    powerSpectrum(frame, re, im, power);
    for (let b = 0; b < MEL_BANDS; b += 1) {
      const { from, weights } = filters[b];
      let sum = 0;
      for (let k = 0; k < weights.length; k += 1) sum += weights[k] * (power[from + k] ?? 0);
      // The floor makes digital silence one point instead of noise: every pause looks like every other.
      logMel[b] = Math.log(sum + 1e-8);
    }
    for (let c = 0; c < CEPSTRA; c += 1) {
      let sum = 0;
      for (let b = 0; b < MEL_BANDS; b += 1) sum += dct[c * MEL_BANDS + b] * logMel[b];
      out[f * CEPSTRA + c] = sum;
    }
  }
  return { mfcc: out, energy, frames };
}

/** Frames of speech: within 35 dB of the loudest frame. */
export function voiced(features: Features): boolean[] {
  const peak = Math.max(...features.energy);
  return Array.from(features.energy, (e) => e > peak - 35);
}

/**
 * The warping path between two MFCC sequences (steps right, down, diagonal; Euclidean frame distance), as, for
 * each frame of `b`, the first frame of `a` mapped to it.
 */
export function dtwFirstMatch(a: Features, b: Features): Int32Array {
  const n = a.frames;
  const m = b.frames;
  const cost = new Float64Array(n * m);
  // 0: diagonal, 1: from the frame of `a` before, 2: from the frame of `b` before
  const step = new Uint8Array(n * m);
  for (let i = 0; i < n; i += 1) {
    for (let j = 0; j < m; j += 1) {
      let sum = 0;
      for (let c = 0; c < CEPSTRA; c += 1) {
        const x = a.mfcc[i * CEPSTRA + c] - b.mfcc[j * CEPSTRA + c];
        sum += x * x;
      }
      const d = Math.sqrt(sum);
      if (i === 0 && j === 0) {
        cost[0] = d;
        continue;
      }
      let best = Infinity;
      let from = 0;
      if (i > 0 && j > 0) best = cost[(i - 1) * m + j - 1];
      if (i > 0 && cost[(i - 1) * m + j] < best) {
        best = cost[(i - 1) * m + j];
        from = 1;
      }
      if (j > 0 && cost[i * m + j - 1] < best) {
        best = cost[i * m + j - 1];
        from = 2;
      }
      // A diagonal step counts its distance twice (the usual symmetric weighting): no shortcut through diagonals.
      cost[i * m + j] = best + (from === 0 ? 2 * d : d);
      step[i * m + j] = from;
    }
  }
  const first = new Int32Array(m).fill(-1);
  for (let i = n - 1, j = m - 1; ;) {
    first[j] = i;
    if (i === 0 && j === 0) break;
    const from = step[i * m + j];
    if (from === 0) [i, j] = [i - 1, j - 1];
    else if (from === 1) i -= 1;
    else j -= 1;
    if (i < 0 || j < 0) break;
  }
  return first;
}

/**
 * Silence kept around each word of the reference, so the utterance's pauses have frames of silence to map to. Few:
 * where the utterance runs words together, every one of them is paid for on some frame of speech, and 6 pulled
 * onsets onto stop closures (espeak-ng, bench/voice/word-timing.ts: p95 260 ms at 6 frames, 65 ms at 2; at 1, an
 * Open JTalk pause found no silence and p95 went to 530 ms).
 */
const REFERENCE_GAP_FRAMES = 2;

/**
 * Each word's start (seconds) in `utterance`, from `references` (the same voice saying each word alone, in order).
 * Each reference is trimmed to its speech with REFERENCE_GAP_FRAMES of silence either side, the trimmed ones joined
 * into one sequence, and the utterance warped onto it.
 */
export function alignToReferences(utterance: Pcm, references: Pcm[]): number[] {
  const target = mfcc(utterance);
  const parts: Features[] = [];
  const onsets: number[] = [];
  let total = 0;
  for (const reference of references) {
    const features = mfcc(reference);
    const speech = voiced(features);
    let first = speech.indexOf(true);
    let last = speech.lastIndexOf(true);
    if (first < 0) [first, last] = [0, features.frames - 1];
    const from = Math.max(0, first - REFERENCE_GAP_FRAMES);
    const to = Math.min(features.frames - 1, last + REFERENCE_GAP_FRAMES);
    onsets.push(total + first - from);
    const frames = to - from + 1;
    parts.push({
      mfcc: features.mfcc.subarray(from * CEPSTRA, (to + 1) * CEPSTRA),
      energy: features.energy.subarray(from, to + 1),
      frames,
    });
    total += frames;
  }
  const joined: Features = { mfcc: new Float64Array(total * CEPSTRA), energy: new Float64Array(total), frames: total };
  let at = 0;
  for (const part of parts) {
    joined.mfcc.set(part.mfcc, at * CEPSTRA);
    joined.energy.set(part.energy, at);
    at += part.frames;
  }
  // Cepstral mean normalisation per side: the lone words are said a little louder or softer than in the sentence.
  normalizeMeans(target);
  normalizeMeans(joined);
  const first = dtwFirstMatch(target, joined);
  return onsets.map((onset) => first[onset] * HOP_SECONDS);
}

function normalizeMeans(features: Features): void {
  const speech = voiced(features);
  for (let c = 1; c < CEPSTRA; c += 1) {
    let sum = 0;
    let count = 0;
    for (let f = 0; f < features.frames; f += 1)
      if (speech[f]) {
        sum += features.mfcc[f * CEPSTRA + c];
        count += 1;
      }
    const mean = count ? sum / count : 0;
    for (let f = 0; f < features.frames; f += 1) features.mfcc[f * CEPSTRA + c] -= mean;
  }
}

/**
 * `pcm` (words said one after another, each as its own sentence) cut into `count` words at its `count - 1` longest
 * pauses — only when those stand out: each at least 120 ms and 1.5 times any pause inside a word (a stop's closure).
 * Null otherwise (the caller says the words one by one instead).
 */
export function splitAtPauses(pcm: Pcm, count: number): Pcm[] | null {
  if (count === 1) return [pcm];
  const features = mfcc(pcm);
  const speech = voiced(features);
  const gaps: Array<{ from: number; to: number }> = [];
  const first = speech.indexOf(true);
  for (let f = first, gapStart = -1; f >= 0 && f < features.frames; f += 1) {
    if (!speech[f] && gapStart < 0) gapStart = f;
    if (speech[f] && gapStart >= 0) {
      gaps.push({ from: gapStart, to: f });
      gapStart = -1;
    }
  }
  if (gaps.length < count - 1) return null;
  const longest = [...gaps].sort((a, b) => b.to - b.from - (a.to - a.from));
  const chosen = longest.slice(0, count - 1);
  const shortestChosen = chosen.at(-1)!.to - chosen.at(-1)!.from;
  const longestOther = longest[count - 1] ? longest[count - 1].to - longest[count - 1].from : 0;
  if (shortestChosen < 12 || shortestChosen < 1.5 * longestOther) return null;
  const hop = Math.round(pcm.sampleRate * HOP_SECONDS);
  const cuts = chosen.map((g) => Math.round((g.from + g.to) / 2) * hop).sort((a, b) => a - b);
  return [0, ...cuts].map((from, i) => ({
    sampleRate: pcm.sampleRate,
    samples: pcm.samples.subarray(from, cuts[i] ?? pcm.samples.length),
  }));
}
