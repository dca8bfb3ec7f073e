/**
 * Where screenshots, audio, captions and videos are kept: one interface, keyed by paths like
 * `campaigns/<id>/capture/desktop-0.png`.
 *
 * - LocalFileStorage: a directory (DATA_DIR/files, or SHARED_FILES_DIR that every node mounts).
 * - BrokerFileStorage: a node that shares no disk with the file store reaches it through the `files`
 *   service (services/files.service.ts) with Moleculer streams, over whatever transporter joins the nodes.
 *
 * - S3FileStorage (lib/storage/s3.ts): an S3-compatible bucket (STORAGE_URL) that every node reaches itself.
 *
 * The interface they share is lib/storage/files.ts's. `storageFor(broker)` picks the right one for a node. Every write is all-or-nothing: a reader never
 * sees half a file, and a retried write replaces the old file whole.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import crypto from 'node:crypto';
import type { CallingOptions, ServiceBroker } from 'moleculer';
import { configOf } from '../../config';
import { isClusterUnreachable } from '../errors';
import { call, type ActionName, type ParamsOf, type ResultOf } from '../net/calls';
import type { ByteRange, FileStat, FileStorage } from './files';
import { S3FileStorage } from './s3';
import { assertStorageKey } from './keys';
import { PARTIAL_SUFFIX, streamToFile } from './stream-to-file';

export class LocalFileStorage implements FileStorage {
  constructor(readonly root: string) {}

  resolve(key: string): string {
    return path.join(this.root, assertStorageKey(key));
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.writeWhole(key, (partial) => fs.writeFile(partial, data));
  }

  /** Writes a partial file, then renames it over the key; the partial file never outlives a failure. */
  async writeWhole(key: string, write: (partialPath: string) => Promise<void>): Promise<void> {
    const target = this.resolve(key);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const partial = `${target}.${crypto.randomBytes(6).toString('hex')}${PARTIAL_SUFFIX}`;
    try {
      await write(partial);
      await fs.rename(partial, target);
    } catch (err) {
      await fs.rm(partial, { force: true });
      throw err;
    }
  }

  async writeStream(key: string, source: Readable): Promise<void> {
    await this.writeWhole(key, (partial) => pipeline(source, createWriteStream(partial)));
  }

  async get(key: string): Promise<Buffer> {
    return fs.readFile(this.resolve(key));
  }

  async exists(key: string): Promise<boolean> {
    return fs.access(this.resolve(key)).then(
      () => true,
      () => false,
    );
  }

  async stat(key: string): Promise<FileStat | null> {
    try {
      const info = await fs.stat(this.resolve(key));
      return info.isFile() ? { size: info.size, mtimeMs: info.mtimeMs } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async createReadStream(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.resolve(key);
    await fs.access(file);
    return createReadStream(file, range ? { start: range.start, end: range.end } : {});
  }

  async putFile(key: string, localPath: string): Promise<void> {
    await this.writeWhole(key, (partial) => fs.copyFile(localPath, partial));
  }

  async getFile(key: string, localPath: string): Promise<void> {
    await fs.copyFile(this.resolve(key), localPath);
  }

  async removePrefix(prefix: string): Promise<void> {
    await fs.rm(this.resolve(prefix), { recursive: true, force: true });
  }

  /** Partial files left by a process killed mid-write (older than `olderThanMs`) are removed. */
  async sweepPartials(olderThanMs: number): Promise<number> {
    let removed = 0;
    const entries = await fs.readdir(this.root, { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith(PARTIAL_SUFFIX)) continue;
      const file = path.join(entry.parentPath, entry.name);
      const info = await fs.stat(file).catch(() => null);
      if (info && Date.now() - info.mtimeMs >= olderThanMs) {
        await fs.rm(file, { force: true });
        removed += 1;
      }
    }
    return removed;
  }
}

/**
 * Retries of a call to the `files` service: with the broker's retry policy (200 ms doubling, at most 2 s apart) they
 * span about 7 s, enough for a Redis restart and the transporter's reconnect.
 */
const FILES_CALL_RETRIES = 6;
/**
 * A call to the `files` service answers within this time (a read's answer is the stream's start; a write's comes once
 * the whole file is stored, so it has longer), else it is given up as REQUEST_TIMEOUT and tried again: a request or
 * answer lost in transit (Redis pub/sub keeps nothing for a node reconnecting) would otherwise hold a render, and its
 * render node's slot, for good. The broker's own requestTimeout is 0, for renders.
 */
const FILES_CALL_TIMEOUT_MS = 30_000;
/** A read stream that gives no bytes for this long is given up and read again (stream-to-file.ts). */
const FILES_STREAM_IDLE_MS = 20_000;
const FILES_WRITE_TIMEOUT_MS = 60_000;
/** A stream cannot be replayed by the broker: the whole write (or stalled read) is made again, this many times, this far apart. */
const STREAM_ATTEMPTS = 6;
const STREAM_RETRY_MS = 1500;

/** The file service's actions (services/files.service.ts). */
type FilesAction = Extract<ActionName, `files.${string}`>;

/** The file store reached through the `files` service on another node (Moleculer streams both ways). */
export class BrokerFileStorage implements FileStorage {
  constructor(private readonly broker: ServiceBroker) {}

  private call<N extends FilesAction>(action: N, params: ParamsOf<N>, opts: CallingOptions = {}): Promise<ResultOf<N>> {
    return call(this.broker, action, params, { retries: FILES_CALL_RETRIES, timeout: FILES_CALL_TIMEOUT_MS, ...opts });
  }

  /** A write with a fresh stream on each attempt; again only when the cluster could not be reached. */
  private write(key: string, open: () => Readable): Promise<void> {
    return againWhileUnreachable(async () => {
      await this.call('files.write', { key: assertStorageKey(key) }, { stream: open(), retries: 0, timeout: FILES_WRITE_TIMEOUT_MS });
    });
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.write(key, () => Readable.from([data]));
  }

  async get(key: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    // A binary stream (no encoding set): its chunks are bytes, never strings.
    for await (const chunk of (await this.createReadStream(key)) as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks);
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async stat(key: string): Promise<FileStat | null> {
    return this.call('files.stat', { key: assertStorageKey(key) });
  }

  async createReadStream(key: string, range?: ByteRange): Promise<Readable> {
    return this.call('files.read', { key: assertStorageKey(key), ...(range ? { start: range.start, end: range.end } : {}) });
  }

  async putFile(key: string, localPath: string): Promise<void> {
    await this.write(key, () => createReadStream(localPath));
  }

  /** A read whose stream stalls (its chunks lost in a Redis restart) is made again, as a refused write is. */
  getFile(key: string, localPath: string): Promise<void> {
    return againWhileUnreachable(() => streamToFile(() => this.createReadStream(key), localPath, { idleMs: FILES_STREAM_IDLE_MS }));
  }

  async removePrefix(prefix: string): Promise<void> {
    await this.call('files.removePrefix', { key: assertStorageKey(prefix) });
  }
}

/** `work` again, STREAM_RETRY_MS apart, up to STREAM_ATTEMPTS times, while it fails because the cluster was unreachable. */
async function againWhileUnreachable(work: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= STREAM_ATTEMPTS || !isClusterUnreachable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, STREAM_RETRY_MS));
    }
  }
}

/** The directory this node stores files in when it is the file store (or when every node shares one). */
export function localFilesRoot(broker: ServiceBroker): string {
  const config = configOf(broker);
  return config.sharedFilesDir ?? path.join(config.dataDir, 'files');
}

/**
 * The storage a service on this node uses: the bucket when STORAGE_URL is set; the directory itself when every node mounts it
 * (SHARED_FILES_DIR) or when this node runs the `files` service; otherwise the `files` service.
 * Decided on first use, after the node's own services are started.
 */
export function storageFor(broker: ServiceBroker): FileStorage {
  const config = configOf(broker);
  if (config.storage) return new S3FileStorage(config.storage);
  const local = new LocalFileStorage(localFilesRoot(broker));
  if (config.sharedFilesDir) return local;
  const remote = new BrokerFileStorage(broker);
  const pick = (): FileStorage => (broker.getLocalService('files') ? local : remote);
  return {
    put: (key, data) => pick().put(key, data),
    get: (key) => pick().get(key),
    exists: (key) => pick().exists(key),
    stat: (key) => pick().stat(key),
    createReadStream: (key, range) => pick().createReadStream(key, range),
    putFile: (key, localPath) => pick().putFile(key, localPath),
    getFile: (key, localPath) => pick().getFile(key, localPath),
    removePrefix: (prefix) => pick().removePrefix(prefix),
  };
}
