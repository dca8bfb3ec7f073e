/** A stored file copied to a local path whole or not at all: written beside it, renamed when complete. */
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Errors } from 'moleculer';

/** Names of files being written; never a valid storage key (keys cannot contain "~"). */
export const PARTIAL_SUFFIX = '~partial';

/**
 * `idleMs`: a source that gives no bytes for this long is given up with REQUEST_TIMEOUT (retryable, the cluster
 * unreachable: lib/errors.ts isClusterUnreachable). A stream from another node stops for good when its chunks are lost
 * in a Redis restart, and nothing else would end it.
 */
export async function streamToFile(source: () => Promise<Readable>, localPath: string, options: { idleMs?: number } = {}): Promise<void> {
  const partial = `${localPath}${PARTIAL_SUFFIX}`;
  let idle: NodeJS.Timeout | undefined;
  try {
    const stream = await source();
    if (options.idleMs) {
      const stalled = () =>
        stream.destroy(new Errors.RequestTimeoutError({ action: `a file stream (no bytes for ${options.idleMs} ms)`, nodeID: '' }));
      idle = setTimeout(stalled, options.idleMs);
      stream.on('data', () => idle?.refresh());
    }
    await pipeline(stream, createWriteStream(partial));
    await fs.rename(partial, localPath);
  } catch (err) {
    await fs.rm(partial, { force: true });
    throw err;
  } finally {
    clearTimeout(idle);
  }
}
