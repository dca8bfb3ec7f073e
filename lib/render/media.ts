/** ffmpeg and ffprobe around the render: the narration muxed in, and the check a video passes before it counts as ready. */
import fs from 'node:fs/promises';
import { run } from '../voice/exec';

export interface ProbedVideo {
  videoCodec: string;
  pixelFormat: string;
  width: number;
  height: number;
  audioCodec: string | null;
  durationSeconds: number;
  /** The moov atom precedes mdat, so playback starts before the download ends. */
  faststart: boolean;
}

/** The narration as AAC, encoded while editly renders the picture (lib/render/render-video.ts). */
export async function encodeNarration(narration: string, output: string): Promise<void> {
  await run('ffmpeg', ['-v', 'error', '-y', '-i', narration, '-vn', '-c:a', 'aac', '-b:a', '128k', '-ar', '48000', output], {
    timeoutMs: 120_000,
  });
}

/** The picture as editly encoded it and the narration as encodeNarration made it, both copied, not re-encoded. */
export async function muxNarration(videoOnly: string, narrationAac: string, output: string): Promise<void> {
  await run(
    'ffmpeg',
    [
      '-v',
      'error',
      '-y',
      '-i',
      videoOnly,
      '-i',
      narrationAac,
      '-map',
      '0:v:0',
      '-map',
      '1:a:0',
      '-c',
      'copy',
      '-movflags',
      '+faststart',
      output,
    ],
    { timeoutMs: 120_000 },
  );
}

/** Top-level MP4 boxes in order, read from the file's head (moov first means faststart). */
async function moovBeforeMdat(file: string): Promise<boolean> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const header = Buffer.alloc(16);
    let offset = 0;
    while (offset + 8 <= size) {
      await handle.read(header, 0, 16, offset);
      let boxSize = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      if (type === 'moov') return true;
      if (type === 'mdat') return false;
      if (boxSize === 1) boxSize = Number(header.readBigUInt64BE(8));
      if (boxSize < 8) return false;
      offset += boxSize;
    }
    return false;
  } finally {
    await handle.close();
  }
}

/** The fields of `ffprobe -of json` read here (ffprobe omits a field it cannot tell). */
interface FfprobeStream {
  codec_type?: string;
  codec_name: string;
  pix_fmt: string;
  width: number;
  height: number;
  duration?: string;
}

export async function probeVideo(file: string): Promise<ProbedVideo> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file], { timeoutMs: 30_000 });
  const info = JSON.parse(stdout) as { streams?: FfprobeStream[]; format?: { duration?: string } };
  const video = info.streams?.find((s) => s.codec_type === 'video');
  const audio = info.streams?.find((s) => s.codec_type === 'audio');
  if (!video) throw new Error('no video stream');
  return {
    videoCodec: video.codec_name,
    pixelFormat: video.pix_fmt,
    width: video.width,
    height: video.height,
    audioCodec: audio?.codec_name ?? null,
    durationSeconds: Number(info.format?.duration ?? video.duration),
    faststart: await moovBeforeMdat(file),
  };
}

/** decisions §4: H.264 yuv420p, AAC, +faststart, the planned frame, and the narration's length (±0.2 s). */
export function deliverableProblems(probe: ProbedVideo, expected: { width: number; height: number; durationSeconds: number }): string[] {
  const problems: string[] = [];
  if (probe.videoCodec !== 'h264') problems.push(`video codec ${probe.videoCodec}, not h264`);
  if (probe.pixelFormat !== 'yuv420p') problems.push(`pixel format ${probe.pixelFormat}, not yuv420p`);
  if (probe.width !== expected.width || probe.height !== expected.height)
    problems.push(`frame ${probe.width}×${probe.height}, not ${expected.width}×${expected.height}`);
  if (probe.audioCodec !== 'aac') problems.push(`audio ${probe.audioCodec ?? 'missing'}, not aac`);
  if (!(Math.abs(probe.durationSeconds - expected.durationSeconds) <= 0.2))
    problems.push(`duration ${probe.durationSeconds.toFixed(2)} s, not ${expected.durationSeconds.toFixed(2)} s`);
  if (!probe.faststart) problems.push('moov atom after mdat (no faststart)');
  return problems;
}

/** An image's size in pixels; null when ffprobe cannot read one. */
export async function imageSize(file: string): Promise<{ width: number; height: number } | null> {
  try {
    const { stdout } = await run(
      'ffprobe',
      ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file],
      { timeoutMs: 30_000 },
    );
    const [width, height] = stdout.trim().split(',').map(Number);
    return width > 0 && height > 0 ? { width, height } : null;
  } catch {
    return null;
  }
}

/** A screenshot the renderer can draw: it has a size and ffmpeg decodes it without error. */
export async function isReadableImage(file: string): Promise<boolean> {
  try {
    const { stdout } = await run(
      'ffprobe',
      ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file],
      { timeoutMs: 30_000 },
    );
    const [width, height] = stdout.trim().split(',').map(Number);
    if (!(width > 0 && height > 0)) return false;
    const decoded = await run('ffmpeg', ['-v', 'error', '-xerror', '-i', file, '-frames:v', '1', '-f', 'null', '-'], { timeoutMs: 30_000 });
    return decoded.stderr.trim() === '';
  } catch {
    return false;
  }
}
