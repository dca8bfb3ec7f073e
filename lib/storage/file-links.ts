/**
 * Signed, expiring download links for rendered videos, their posters and their captions (decisions.md §2, §10).
 * A link is `/files/videos/<videoId>.mp4?expires=<unix s>&signature=<hex HMAC-SHA256>` (posters
 * `/files/thumbnails/<videoId>.jpg`, captions `/files/captions/<videoId>.vtt` and `.srt`; a campaign's screenshots
 * `/files/screens/<campaignId>/<screenshotId>.png`); the signature binds
 * the kind, the video id and the expiry, so none of them can be changed. The key is SIGNING_KEY, or one
 * generated into DATA_DIR/signing.key on first use; every API node must use the same key.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../../config';

export type FileKind = 'video' | 'captions' | 'captions_srt' | 'thumbnail';
/** What a signature binds: a video's file, or one of a campaign's captured screenshots (the video document's assets). */
type SignedKind = FileKind | 'screen';
export type LinkCheck = 'ok' | 'expired' | 'invalid';

const MIN_SIGNING_KEY_LENGTH = 32;
const KEY_FILE = 'signing.key';
const KEY_FILE_CONTENT = /^[0-9a-f]{64}$/;
const EXPIRES = /^\d{1,12}$/;
const SIGNATURE = /^[0-9a-f]{64}$/;

/** Where each kind is served (`/files/<dir>/<video id>.<extension>`) and with which media type. */
export const FILE_PATHS: Record<FileKind, { dir: string; extension: string; contentType: string }> = {
  video: { dir: 'videos', extension: 'mp4', contentType: 'video/mp4' },
  captions: { dir: 'captions', extension: 'vtt', contentType: 'text/vtt; charset=utf-8' },
  captions_srt: { dir: 'captions', extension: 'srt', contentType: 'application/x-subrip; charset=utf-8' },
  thumbnail: { dir: 'thumbnails', extension: 'jpg', contentType: 'image/jpeg' },
};

/** The videos column holding each kind's storage key. */
export const FILE_COLUMNS = {
  video: 'file_key',
  captions: 'captions_key',
  captions_srt: 'captions_srt_key',
  thumbnail: 'thumbnail_key',
} as const satisfies Record<FileKind, string>;

/** The kind a download path stands for, from its directory and extension; undefined for any other path. */
export function fileKindOf(dir: string, extension: string): FileKind | undefined {
  return (Object.keys(FILE_PATHS) as FileKind[]).find((kind) => FILE_PATHS[kind].dir === dir && FILE_PATHS[kind].extension === extension);
}

const keysByDataDir = new Map<string, Buffer>();

export function loadSigningKey(config: AppConfig): Buffer {
  if (config.signingKey !== undefined) {
    if (config.signingKey.length < MIN_SIGNING_KEY_LENGTH)
      throw new Error(`SIGNING_KEY must be at least ${MIN_SIGNING_KEY_LENGTH} characters`);
    return Buffer.from(config.signingKey, 'utf8');
  }
  let key = keysByDataDir.get(config.dataDir);
  if (!key) {
    key = readOrCreateKeyFile(path.join(config.dataDir, KEY_FILE));
    keysByDataDir.set(config.dataDir, key);
  }
  return key;
}

/**
 * The key file is written whole under a temporary name and then hard-linked into place: link() fails
 * with EEXIST when another process got there first, and a reader never sees a half-written file.
 */
function readOrCreateKeyFile(file: string): Buffer {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(temporary, `${crypto.randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
    fs.linkSync(temporary, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  const hex = fs.readFileSync(file, 'utf8').trim();
  if (!KEY_FILE_CONTENT.test(hex)) throw new Error(`${file} does not hold a signing key (64 hexadecimal characters)`);
  return Buffer.from(hex, 'hex');
}

/** `subject` is a video id, or `<campaign id>/<screenshot id>` for a screen (a `/` no video id has). */
function signature(kind: SignedKind, subject: string, expires: string, key: Buffer): string {
  return crypto.createHmac('sha256', key).update(`${kind}\n${subject}\n${expires}`).digest('hex');
}

/** The path and query of a download link (prefix PUBLIC_BASE_URL for the absolute link). */
export function signFileLink(link: { kind: FileKind; videoId: string; expiresAt: number }, key: Buffer): string {
  const { dir, extension } = FILE_PATHS[link.kind];
  const expires = String(Math.floor(link.expiresAt));
  return `/files/${dir}/${encodeURIComponent(link.videoId)}.${extension}?expires=${expires}&signature=${signature(link.kind, link.videoId, expires, key)}`;
}

export function verifyFileLink(
  kind: SignedKind,
  videoId: string,
  expires: string,
  givenSignature: string,
  key: Buffer,
  nowSeconds: number,
): LinkCheck {
  if (!EXPIRES.test(expires) || !SIGNATURE.test(givenSignature)) return 'invalid';
  const expected = Buffer.from(signature(kind, videoId, expires, key), 'hex');
  const given = Buffer.from(givenSignature, 'hex');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return 'invalid';
  return Number(expires) <= nowSeconds ? 'expired' : 'ok';
}

export type LinkableVideo = { id: string; status: string; file_revision?: number | null } & {
  [column in (typeof FILE_COLUMNS)[FileKind]]?: string | null;
};

/**
 * Whether a video's stored files are served: once it is ready, and, while an edit renders it again (decisions §12),
 * still those of the revision before (file_revision), until the new one is ready.
 */
export function servesFiles(video: Pick<LinkableVideo, 'status' | 'file_revision'>): boolean {
  return video.status === 'ready' || (video.status === 'rendering' && video.file_revision != null);
}

/** A video's download links, as the API shows them. */
export interface FileLinks {
  file_url: string | null;
  captions_url: string | null;
  captions_srt_url: string | null;
  thumbnail_url: string | null;
}

/** Every link null: a video that is not ready, or a view signed without a key. */
export const NO_FILE_LINKS: FileLinks = { file_url: null, captions_url: null, captions_srt_url: null, thumbnail_url: null };

/**
 * A video's absolute download links, valid for FILE_URL_TTL from `now`; each null until the video is ready
 * with that file stored (a video rendered before posters and SRT existed has neither until it is rendered again).
 */
export function fileLinks(config: AppConfig, key: Buffer, video: LinkableVideo, now = Date.now()): FileLinks {
  const ready = servesFiles(video);
  const expiresAt = Math.floor((now + config.fileUrlTtlMs) / 1000);
  const link = (kind: FileKind) =>
    ready && video[FILE_COLUMNS[kind]] ? `${config.publicBaseUrl}${signFileLink({ kind, videoId: video.id, expiresAt }, key)}` : null;
  return {
    file_url: link('video'),
    captions_url: link('captions'),
    captions_srt_url: link('captions_srt'),
    thumbnail_url: link('thumbnail'),
  };
}

/**
 * A campaign's captured screenshots (the video document's `assets.screens`, decisions §12):
 * `/files/screens/<campaign id>/<screenshot id>.png`, signed over the kind, the campaign, the screenshot and the expiry.
 */
export const SCREEN_PATH = { dir: 'screens', extension: 'png', contentType: 'image/png' } as const;

/** The path and query of a screenshot's link (prefix PUBLIC_BASE_URL for the absolute link). */
export function signScreenLink(link: { campaignId: string; screenId: string; expiresAt: number }, key: Buffer): string {
  const expires = String(Math.floor(link.expiresAt));
  const subject = `${link.campaignId}/${link.screenId}`;
  return `/files/${SCREEN_PATH.dir}/${encodeURIComponent(link.campaignId)}/${encodeURIComponent(link.screenId)}.${SCREEN_PATH.extension}?expires=${expires}&signature=${signature('screen', subject, expires, key)}`;
}

export function verifyScreenLink(
  campaignId: string,
  screenId: string,
  expires: string,
  givenSignature: string,
  key: Buffer,
  nowSeconds: number,
): LinkCheck {
  return verifyFileLink('screen', `${campaignId}/${screenId}`, expires, givenSignature, key, nowSeconds);
}

/** A screenshot's absolute link, valid for FILE_URL_TTL from `now`. */
export function screenLink(config: AppConfig, key: Buffer, campaignId: string, screenId: string, now = Date.now()): string {
  const expiresAt = Math.floor((now + config.fileUrlTtlMs) / 1000);
  return `${config.publicBaseUrl}${signScreenLink({ campaignId, screenId, expiresAt }, key)}`;
}
