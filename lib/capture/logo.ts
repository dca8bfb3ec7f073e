/**
 * A campaign's logo (create's `brand.logo_url`): fetched through the address guard at connection time, like every
 * URL we load (each redirect's host is checked again), read as an image by node-canvas (PNG, JPEG, GIF, SVG), and
 * kept as a PNG no larger than LOGO_MAX_PIXELS on its longer side, which is all a card ever draws.
 */
import http from 'node:http';
import https from 'node:https';
import { assertAllowedHostLiteral, AddressBlockedError, guardedLookup, type GuardOptions } from '../net-guard';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createCanvas, loadImage } = require('canvas') as typeof import('canvas');

/** Longest side of the stored logo: a card draws it at most ~270 px high (1080×1920, lib/render/editly-child.ts). */
export const LOGO_MAX_PIXELS = 512;
export const LOGO_MAX_BYTES = 5 * 1024 * 1024;
const MAX_REDIRECTS = 3;

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
  const body = await download(url, options, MAX_REDIRECTS);
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

function download(url: string, options: LogoFetchOptions, redirectsLeft: number): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? LOGO_MAX_BYTES;
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
      const plainHttp = target.protocol === 'http:';
      if (target.protocol !== 'https:' && !plainHttp) throw new LogoError(`uses ${target.protocol}, not http or https`, false);
      assertAllowedHostLiteral(target.hostname.replace(/^\[|\]$/g, ''), options.guard);
    } catch (err) {
      return reject(asLogoError(err));
    }
    const client = target.protocol === 'https:' ? https : http;
    const request = client.get(
      target,
      { lookup: guardedLookup(options.guard), agent: false, headers: { accept: 'image/*' } },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          clearTimeout(deadline);
          if (redirectsLeft === 0) return reject(new LogoError(`redirects more than ${MAX_REDIRECTS} times`, false));
          const next = new URL(response.headers.location, target).href;
          download(next, options, redirectsLeft - 1).then(resolve, reject);
          return;
        }
        if (status !== 200) {
          response.resume();
          clearTimeout(deadline);
          return reject(new LogoError(`answered ${status}`, status >= 500 || status === 429));
        }
        const declared = Number(response.headers['content-length'] ?? 0);
        if (declared > maxBytes) {
          request.destroy();
          clearTimeout(deadline);
          return reject(new LogoError(`is larger than ${maxBytes} bytes`, false));
        }
        const chunks: Buffer[] = [];
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > maxBytes) {
            request.destroy();
            clearTimeout(deadline);
            reject(new LogoError(`is larger than ${maxBytes} bytes`, false));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(deadline);
          resolve(Buffer.concat(chunks));
        });
        response.on('error', (err) => {
          clearTimeout(deadline);
          reject(asLogoError(err));
        });
      },
    );
    const deadline = setTimeout(() => {
      request.destroy();
      reject(new LogoError(`did not answer within ${options.timeoutMs} ms`, true));
    }, options.timeoutMs);
    request.on('error', (err) => {
      clearTimeout(deadline);
      reject(asLogoError(err));
    });
  });
}

function asLogoError(err: unknown): LogoError {
  if (err instanceof LogoError) return err;
  if (err instanceof AddressBlockedError) return new LogoError(`must point to a public address (${err.message})`, false);
  const e = err as NodeJS.ErrnoException;
  return new LogoError(`could not be fetched (${e.code ?? e.message})`, true);
}
