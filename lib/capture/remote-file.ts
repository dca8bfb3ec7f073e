/**
 * A customer's file fetched by URL (create's `brand.logo_url`, `music.url`): through the address guard at connection
 * time, like every URL we load (each redirect's host is checked again), with a size cap read from the header and
 * counted on the wire, and a deadline. One download for every such file, so that they cannot differ in what they let in.
 */
import http from 'node:http';
import https from 'node:https';
import { assertAllowedHostLiteral, AddressBlockedError, guardedLookup, type GuardOptions } from '../net/net-guard';

const MAX_REDIRECTS = 3;

/** The file could not be fetched; `retryable` when it may work on another try (network, the server's trouble). */
export class RemoteFileError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'RemoteFileError';
  }
}

export interface RemoteFileOptions {
  guard: GuardOptions;
  timeoutMs: number;
  maxBytes: number;
  /** The Accept header sent, e.g. `image/*`. */
  accept: string;
}

/** The file's bytes, or a RemoteFileError whose message completes a sentence starting with the field's name. */
export function fetchRemoteFile(url: string, options: RemoteFileOptions, redirectsLeft = MAX_REDIRECTS): Promise<Buffer> {
  const { maxBytes } = options;
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
      const plainHttp = target.protocol === 'http:';
      if (target.protocol !== 'https:' && !plainHttp) throw new RemoteFileError(`uses ${target.protocol}, not http or https`, false);
      assertAllowedHostLiteral(target.hostname.replace(/^\[|\]$/g, ''), options.guard);
    } catch (err) {
      return reject(asRemoteFileError(err));
    }
    const client = target.protocol === 'https:' ? https : http;
    const request = client.get(
      target,
      { lookup: guardedLookup(options.guard), agent: false, headers: { accept: options.accept } },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          clearTimeout(deadline);
          if (redirectsLeft === 0) return reject(new RemoteFileError(`redirects more than ${MAX_REDIRECTS} times`, false));
          const next = new URL(response.headers.location, target).href;
          fetchRemoteFile(next, options, redirectsLeft - 1).then(resolve, reject);
          return;
        }
        if (status !== 200) {
          response.resume();
          clearTimeout(deadline);
          return reject(new RemoteFileError(`answered ${status}`, status >= 500 || status === 429));
        }
        const declared = Number(response.headers['content-length'] ?? 0);
        if (declared > maxBytes) {
          request.destroy();
          clearTimeout(deadline);
          return reject(new RemoteFileError(`is larger than ${maxBytes} bytes`, false));
        }
        const chunks: Buffer[] = [];
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > maxBytes) {
            request.destroy();
            clearTimeout(deadline);
            reject(new RemoteFileError(`is larger than ${maxBytes} bytes`, false));
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
          reject(asRemoteFileError(err));
        });
      },
    );
    const deadline = setTimeout(() => {
      request.destroy();
      reject(new RemoteFileError(`did not answer within ${options.timeoutMs} ms`, true));
    }, options.timeoutMs);
    request.on('error', (err) => {
      clearTimeout(deadline);
      reject(asRemoteFileError(err));
    });
  });
}

function asRemoteFileError(err: unknown): RemoteFileError {
  if (err instanceof RemoteFileError) return err;
  if (err instanceof AddressBlockedError) return new RemoteFileError(`must point to a public address (${err.message})`, false);
  const e = err as NodeJS.ErrnoException;
  return new RemoteFileError(`could not be fetched (${e.code ?? e.message})`, true);
}
