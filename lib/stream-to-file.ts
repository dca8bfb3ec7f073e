/** A stored file copied to a local path whole or not at all: written beside it, renamed when complete. */
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Names of files being written; never a valid storage key (keys cannot contain "~"). */
export const PARTIAL_SUFFIX = '~partial';

export async function streamToFile(source: () => Promise<Readable>, localPath: string): Promise<void> {
  const partial = `${localPath}${PARTIAL_SUFFIX}`;
  try {
    await pipeline(await source(), createWriteStream(partial));
    await fs.rename(partial, localPath);
  } catch (err) {
    await fs.rm(partial, { force: true });
    throw err;
  }
}
