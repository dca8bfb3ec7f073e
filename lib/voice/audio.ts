/** Audio post-processing with ffmpeg/ffprobe: loudness normalization, measured durations, concat. */
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
 * mono, 16-bit WAV; optional trailing silence pad in ms. The output keeps the input's length (+ pad). */
export async function normalizeAudio(input: string, output: string, opts: { padEndMs?: number } = {}): Promise<void> {
  const samples = await decodedSamples(input);
  const loops = Math.ceil(LOUDNORM_MIN_SAMPLES / samples) - 1;
  const filters = [`aresample=${RATE}`, 'aformat=channel_layouts=mono'];
  if (loops > 0) filters.push(`aloop=loop=${loops}:size=${samples}`);
  filters.push('loudnorm=I=-16:TP=-1.5:LRA=11', `aresample=${RATE}`, `atrim=end_sample=${samples}`);
  const pad = Math.round(((opts.padEndMs ?? 0) * RATE) / 1000);
  if (pad > 0) filters.push(`apad=pad_len=${pad}`);
  await ffmpeg(['-y', '-i', input, '-vn', '-af', filters.join(','), ...WAV_OUT, output]);
}

/** Samples in the decoded audio at 48 kHz mono (counted by decoding, not read from a header). */
async function decodedSamples(file: string): Promise<number> {
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

/** Duration in seconds measured by ffprobe (from the stream, not guessed). */
export async function measureDuration(file: string): Promise<number> {
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
