/**
 * A campaign's music (create's `music.url`): fetched through the address guard (lib/capture/remote-file.ts) like the
 * logo, then proved to be audio by ffprobe and a decode of its start: an MP3, AAC (ADTS or M4A), WAV or OGG (Vorbis,
 * Opus) track of at least MUSIC_MIN_SECONDS, not a video. Kept as fetched; the renderer loops or cuts it to each video
 * (lib/render/music.ts), so it is decoded only as far as a video needs.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { GuardOptions } from '../net/net-guard';
import { run } from '../voice/exec';
import { fetchRemoteFile, RemoteFileError } from './remote-file';

export const MUSIC_MAX_BYTES = 20 * 1024 * 1024;
/** Shorter than this is a blip, not a track to loop under a video. */
export const MUSIC_MIN_SECONDS = 1;
/** The codecs of MP3, AAC, WAV (PCM) and OGG (Vorbis, Opus) files. */
const AUDIO_CODECS = /^(mp3|aac|vorbis|opus|pcm_[a-z0-9]+)$/;
/** How much of the track is decoded to prove it decodes: a broken file fails here, not in every render. */
const DECODE_CHECK_SECONDS = 10;

/** The track could not be used; `retryable` when it may work on another try (network), not when it is not audio. */
export class MusicError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'MusicError';
  }
}

export interface MusicFetchOptions {
  guard: GuardOptions;
  timeoutMs: number;
  maxBytes?: number;
}

/** The track's bytes once they proved to be audio, or a MusicError whose message follows "music.url". */
export async function fetchMusic(url: string, options: MusicFetchOptions): Promise<Buffer> {
  const body = await fetchRemoteFile(url, {
    guard: options.guard,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes ?? MUSIC_MAX_BYTES,
    accept: 'audio/*',
  }).catch((err: unknown) => {
    throw err instanceof RemoteFileError ? new MusicError(err.message, err.retryable) : err;
  });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'music-'));
  try {
    const file = path.join(dir, 'track');
    await fs.writeFile(file, body);
    const problem = await audioTrackProblem(file);
    if (problem) throw new MusicError(problem, false);
    return body;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

interface ProbedStream {
  codec_type?: string;
  codec_name?: string;
  disposition?: { attached_pic?: number };
}

/** Why a file is not a usable music track (completing "music.url …"), or null when it is one. */
export async function audioTrackProblem(file: string): Promise<string | null> {
  const notAudio = 'is not an audio file (MP3, AAC, WAV or OGG)';
  let info: { streams?: ProbedStream[]; format?: { duration?: string } };
  try {
    const { stdout } = await run(
      'ffprobe',
      ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name:stream_disposition=attached_pic:format=duration', '-of', 'json', file],
      { timeoutMs: 30_000 },
    );
    info = JSON.parse(stdout) as typeof info;
  } catch {
    return notAudio;
  }
  const streams = info.streams ?? [];
  const audio = streams.find((s) => s.codec_type === 'audio');
  if (!audio) return notAudio;
  // An MP3's or M4A's cover art is a picture stream; any other picture makes it a video.
  if (streams.some((s) => s.codec_type === 'video' && !s.disposition?.attached_pic))
    return 'is a video, not an audio file (MP3, AAC, WAV or OGG)';
  if (!AUDIO_CODECS.test(audio.codec_name ?? '')) return `is ${audio.codec_name ?? 'unknown'} audio, not MP3, AAC, WAV or OGG`;
  const seconds = Number(info.format?.duration);
  if (!(seconds >= MUSIC_MIN_SECONDS)) return `is shorter than ${MUSIC_MIN_SECONDS} s`;
  try {
    // Lenient on a damaged frame (real MP3s have them; the decoder skips it), not on a file it cannot decode.
    await run('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a:0', '-t', String(DECODE_CHECK_SECONDS), '-f', 'null', '-'], {
      timeoutMs: 30_000,
    });
  } catch {
    return `${notAudio}: it does not decode`;
  }
  return null;
}
