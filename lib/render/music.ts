/**
 * Music under the voice (create's `music`): the customer's track looped or cut to the video's length, faded in and
 * out, levelled against the narration, ducked under it by a compressor keyed by the voice (ffmpeg's
 * sidechaincompress), mixed, and the mix mastered to MIX_LOUDNESS_LUFS with its true peak at most MIX_TRUE_PEAK_DBTP
 * (a measured gain, then a limiter run at 4× the rate so that it holds the true peak, not only the samples), as AAC.
 * Runs while editly renders the picture, in place of the narration's plain encode (lib/render/render-video.ts).
 *
 * The stems (the narration alone, the ducked music alone) come out of the same graph, so a measurement of the
 * narration against the music is one of the mix as rendered (test/unit/music-mix.test.ts).
 */
import { run } from '../voice/exec';

/** The mix's integrated loudness (EBU R128), what the platforms play at. */
export const MIX_LOUDNESS_LUFS = -14;
/** The mix's highest true peak allowed, measured on the encoded file. */
export const MIX_TRUE_PEAK_DBTP = -1;
/** The limiter's ceiling before the AAC encode, below MIX_TRUE_PEAK_DBTP: the encoder overshoots by up to ~0.5 dB. */
const LIMIT_DBTP = -2;
const RATE = 48_000;
const FADE_IN_SECONDS = 1;
const FADE_OUT_SECONDS = 2;
/**
 * The ducking: the compressor starts this far below the narration's loudness and reduces the music by 2/3 dB per dB
 * of voice above it (ratio 3): about 15 dB while a sentence is spoken (measured), none in the pauses. Attack 15 ms (the music
 * is down by the first syllable's end); release 350 ms (held across the gaps between words, back up between scenes).
 */
const DUCK = { belowVoiceDb: 20, ratio: 3, attackMs: 15, releaseMs: 350 };
/** Gains are bounded, so a mis-measured (near-silent) track is never blown up or muted. */
const MAX_GAIN_DB = 30;
const SILENT_LUFS = -69;
const TIMEOUT_MS = 120_000;
const ffmpeg = (args: string[]) => run('ffmpeg', ['-hide_banner', '-nostdin', '-nostats', ...args], { timeoutMs: TIMEOUT_MS });

export interface MusicMixInput {
  narration: string;
  music: string;
  /** (0, 1]: the music between sentences as a fraction of the narration's amplitude (0.4: 8 dB below it). */
  volume: number;
  /** The video's length: the music is looped or cut to it, and faded out at its end. */
  durationSeconds: number;
}

export interface Loudness {
  integratedLufs: number;
  truePeakDbtp: number;
}

/** What the mix measured, and the gains it applied. */
export interface MixReport {
  /** The narration's loudness as a stereo track, and the music's over the part the video uses, before any gain. */
  voiceLufs: number;
  musicLufs: number;
  /** The gain brought to the music so that its level is `volume` of the narration's. */
  musicGainDb: number;
  /** The mix before mastering, and the gain that brought it to MIX_LOUDNESS_LUFS. */
  premix: Loudness;
  masterGainDb: number;
}

const db = (linear: number) => 20 * Math.log10(linear);
const linear = (decibels: number) => 10 ** (decibels / 20);
const fixed = (n: number) => n.toFixed(4);
const clampGain = (gain: number) => Math.max(-MAX_GAIN_DB, Math.min(MAX_GAIN_DB, gain));

/** The narration as stereo at 48 kHz, padded or cut to the video's length. */
function voiceChain(durationSeconds: number): string {
  return `aresample=${RATE},aformat=sample_fmts=fltp:channel_layouts=mono,pan=stereo|c0=c0|c1=c0,apad,atrim=duration=${fixed(durationSeconds)}`;
}

/** The track (its input looped without end) as stereo at 48 kHz, cut to the video's length. */
function musicChain(durationSeconds: number): string {
  return `aresample=${RATE},aformat=sample_fmts=fltp:channel_layouts=stereo,atrim=duration=${fixed(durationSeconds)},asetpts=N/SR/TB`;
}

const inputs = (mix: MusicMixInput) => ['-i', mix.narration, '-stream_loop', '-1', '-i', mix.music];

/**
 * The graph of the premix: `mix` is the narration and the ducked music summed; `voice` and `music` are each stem
 * alone, through the very same filters (the music still ducked by the voice).
 */
export function premixGraph(
  mix: MusicMixInput,
  report: Pick<MixReport, 'voiceLufs' | 'musicGainDb'>,
  stem: 'mix' | 'voice' | 'music',
): string {
  const t = mix.durationSeconds;
  const fadeOutStart = Math.max(0, t - FADE_OUT_SECONDS);
  const threshold = Math.min(1, Math.max(0.000977, linear(report.voiceLufs - DUCK.belowVoiceDb)));
  const last = {
    mix: '[voice][ducked]amix=inputs=2:normalize=0:duration=first[out]',
    voice: '[ducked]anullsink;[voice]anull[out]',
    music: '[voice]anullsink;[ducked]anull[out]',
  };
  return [
    `[0:a]${voiceChain(t)},asplit=2[voice][key]`,
    `[1:a]${musicChain(t)},volume=${report.musicGainDb.toFixed(2)}dB,afade=t=in:d=${FADE_IN_SECONDS},afade=t=out:st=${fixed(fadeOutStart)}:d=${FADE_OUT_SECONDS}[bed]`,
    `[bed][key]sidechaincompress=threshold=${fixed(threshold)}:ratio=${DUCK.ratio}:attack=${DUCK.attackMs}:release=${DUCK.releaseMs}[ducked]`,
    last[stem],
  ].join(';');
}

/** The levels the premix needs: the narration's and the music's loudness, measured side by side. */
async function levels(mix: MusicMixInput): Promise<Pick<MixReport, 'voiceLufs' | 'musicLufs' | 'musicGainDb'>> {
  const [voice, music] = await Promise.all([
    measureLoudness(mix.narration, voiceChain(mix.durationSeconds)),
    measureLoudness(mix.music, musicChain(mix.durationSeconds), ['-stream_loop', '-1']),
  ]);
  if (!(voice.integratedLufs > SILENT_LUFS)) throw new Error('the narration is silent');
  const target = voice.integratedLufs + db(mix.volume);
  const gain = music.integratedLufs > SILENT_LUFS ? target - music.integratedLufs : 0;
  return {
    voiceLufs: voice.integratedLufs,
    musicLufs: music.integratedLufs,
    musicGainDb: clampGain(gain),
  };
}

/** One stem of the premix (or the whole) as 32-bit float WAV, before mastering: for measurements. */
export async function renderPremix(mix: MusicMixInput, stem: 'mix' | 'voice' | 'music', output: string): Promise<MixReport> {
  const measured = await levels(mix);
  // Measured as it is written (the meter passes the audio through): no second read of it.
  const graph = `${premixGraph(mix, measured, stem)};[out]${METER}[metered]`;
  const { stderr } = await ffmpeg(['-y', ...inputs(mix), '-filter_complex', graph, '-map', '[metered]', '-c:a', 'pcm_f32le', output]);
  return { ...measured, premix: readLoudness(stderr, output), masterGainDb: 0 };
}

/**
 * The narration and the music mixed and mastered as AAC (stereo, 48 kHz) at `output` (an .m4a), with `premixPath`
 * as its working file: the premix measured once, then brought to MIX_LOUDNESS_LUFS by one gain and held under
 * LIMIT_DBTP by a limiter at 192 kHz (true peaks are inter-sample peaks: 4× oversampling is how they are measured).
 */
export async function mixNarrationWithMusic(mix: MusicMixInput, premixPath: string, output: string): Promise<MixReport> {
  const report = await renderPremix(mix, 'mix', premixPath);
  let masterGainDb = clampGain(MIX_LOUDNESS_LUFS - report.premix.integratedLufs);
  if (report.premix.truePeakDbtp + masterGainDb > LIMIT_DBTP) {
    // The limiter takes the peaks down, and a little loudness with them (0.5 LU on a synthetic voice): measured
    // through it, and made up once (the second pass limits a little more, well within the ±1 LU asked).
    const limited = await measureLoudness(premixPath, masterChain(masterGainDb));
    masterGainDb = clampGain(masterGainDb + MIX_LOUDNESS_LUFS - limited.integratedLufs);
  }
  await ffmpeg(['-y', '-i', premixPath, '-af', masterChain(masterGainDb), '-c:a', 'aac', '-b:a', '160k', '-ar', String(RATE), output]);
  return { ...report, masterGainDb };
}

/** The master: one gain, then a limiter at 4× the rate holding LIMIT_DBTP, back to 48 kHz. */
function masterChain(gainDb: number): string {
  return [
    `volume=${gainDb.toFixed(2)}dB`,
    `aresample=${RATE * 4}`,
    `alimiter=limit=${fixed(linear(LIMIT_DBTP))}:attack=5:release=50:level=false:latency=true`,
    `aresample=${RATE}`,
  ].join(',');
}

/** Integrated loudness and true peak (ffmpeg's ebur128=peak=true) of a file, optionally through a filter chain first. */
export async function measureLoudness(file: string, chain?: string, inputOptions: string[] = []): Promise<Loudness> {
  const filter = [chain, METER].filter(Boolean).join(',');
  const { stderr } = await ffmpeg([...inputOptions, '-i', file, '-af', filter, '-f', 'null', '-']);
  return readLoudness(stderr, file);
}

/** The EBU R128 meter with true peaks; framelog=verbose keeps its per-frame lines below the log level, the summary prints. */
const METER = 'ebur128=peak=true:framelog=verbose';

/** The meter's summary, the last in ffmpeg's stderr. */
function readLoudness(stderr: string, file: string): Loudness {
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  const lufs = /\bI:\s*(-?[\d.]+|-inf) LUFS/.exec(summary)?.[1];
  const peak = /\bPeak:\s*(-?[\d.]+|-inf) dBFS/.exec(summary)?.[1];
  if (lufs === undefined || peak === undefined) throw new Error(`could not measure the loudness of ${file}`);
  const num = (s: string) => (s === '-inf' ? -Infinity : Number(s));
  return { integratedLufs: num(lufs), truePeakDbtp: num(peak) };
}
