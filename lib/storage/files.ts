/**
 * What every file store offers (lib/storage/storage.ts's local and broker stores, lib/storage/s3.ts's bucket), in a
 * file of its own so that the stores and the factory choosing among them import it, not each other.
 */
import type { Readable } from 'node:stream';

export interface FileStat {
  size: number;
  mtimeMs: number;
}
/** Inclusive byte range, as in HTTP Range. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface FileStorage {
  put(key: string, data: Buffer): Promise<void>;
  get(key: string): Promise<Buffer>;
  exists(key: string): Promise<boolean>;
  /** null when there is no such file. */
  stat(key: string): Promise<FileStat | null>;
  /** The file's bytes (or a range of them) as a stream. */
  createReadStream(key: string, range?: ByteRange): Promise<Readable>;
  /** Stores a local file (streamed, so videos need not fit in memory). */
  putFile(key: string, localPath: string): Promise<void>;
  /** Copies a stored file to a local path. */
  getFile(key: string, localPath: string): Promise<void>;
  /** Removes every file under a key prefix (a campaign's capture, before it is redone). */
  removePrefix(prefix: string): Promise<void>;
}
