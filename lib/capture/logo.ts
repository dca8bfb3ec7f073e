/**
 * A campaign's logo (create's `brand.logo_url`): fetched through the address guard (lib/capture/remote-file.ts), read as an image by node-canvas (PNG, JPEG, GIF, SVG), and
 * kept as a PNG no larger than LOGO_MAX_PIXELS on its longer side, which is all a card ever draws.
 */
import type { GuardOptions } from '../net/net-guard';
import { fetchRemoteFile, RemoteFileError } from './remote-file';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createCanvas, loadImage } = require('canvas') as typeof import('canvas');

/** Longest side of the stored logo: a card draws it at most ~270 px high (1080×1920, lib/render/editly-child.ts). */
export const LOGO_MAX_PIXELS = 512;
export const LOGO_MAX_BYTES = 5 * 1024 * 1024;

/** The logo could not be used; `retryable` when it may work on another try (network), not when it is not an image. */
export class LogoError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'LogoError';
  }
}

export interface LogoFetchOptions {
  guard: GuardOptions;
  timeoutMs: number;
  maxBytes?: number;
}

/** The logo as a PNG of at most LOGO_MAX_PIXELS a side, or a LogoError saying why not. */
export async function fetchLogo(url: string, options: LogoFetchOptions): Promise<Buffer> {
  const body = await fetchRemoteFile(url, {
    guard: options.guard,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes ?? LOGO_MAX_BYTES,
    accept: 'image/*',
  }).catch((err: unknown) => {
    throw err instanceof RemoteFileError ? new LogoError(err.message, err.retryable) : err;
  });
  let image: Awaited<ReturnType<typeof loadImage>>;
  try {
    image = await loadImage(body);
  } catch {
    throw new LogoError('is not an image that can be read (PNG, JPEG, GIF or SVG)', false);
  }
  if (!image.width || !image.height) throw new LogoError('is an image without a size', false);
  // A bitmap is never enlarged (it would only blur); an SVG is drawn at the full size, sharp.
  const isSvg = /<svg[\s>]/i.test(body.subarray(0, 4096).toString('utf8'));
  const scale = Math.min(isSvg ? Infinity : 1, LOGO_MAX_PIXELS / Math.max(image.width, image.height));
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  const canvas = createCanvas(width, height);
  canvas.getContext('2d').drawImage(image, 0, 0, width, height);
  return canvas.toBuffer('image/png');
}
