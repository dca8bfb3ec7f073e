/**
 * The file store: the node that keeps DATA_DIR/files (or SHARED_FILES_DIR) serves it to nodes that share
 * no disk with it (render nodes, capture nodes) through Moleculer streams. Run it on one node, or on
 * several that mount the same directory. lib/storage/storage.ts is its only client.
 */
import { Readable } from 'node:stream';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import { LocalFileStorage, localFilesRoot } from '../lib/storage/storage';
import type { FileStat } from '../lib/storage/files';
import { notFound } from '../lib/errors';

export interface KeyParams {
  key: string;
  start?: number;
  end?: number;
}
/** files.write's answer. */
export interface WriteResult {
  key: string;
}
/** files.removePrefix's answer. */
export interface RemovePrefixResult {
  removed: string;
}
/** The actions lib/storage/storage.ts calls (BrokerFileStorage), for `call` (lib/net/calls.ts). */
export interface FilesActions {
  'files.stat': { params: KeyParams; result: FileStat | null };
  'files.read': { params: KeyParams; result: Readable };
  'files.write': { params: KeyParams; result: WriteResult };
  'files.removePrefix': { params: KeyParams; result: RemovePrefixResult };
}

const KEY_PARAMS = {
  type: 'object',
  additionalProperties: false,
  required: ['key'],
  properties: {
    key: { type: 'string', minLength: 1, maxLength: 500 },
    start: { type: 'integer', minimum: 0 },
    end: { type: 'integer', minimum: 0 },
  },
};
/** Partial files older than this, left by a writer that died, are swept at start. */
const PARTIAL_MAX_AGE_MS = 60 * 60_000;

/** No methods of its own. */
type FilesMethods = Record<never, never>;

interface FilesLocalVars {
  /** The directory this node serves (set at start). */
  local: LocalFileStorage;
}

export type FilesThis = Service<ServiceSettingSchema> & FilesMethods & FilesLocalVars;

const FilesService: ServiceSchema<ServiceSettingSchema, FilesMethods, FilesLocalVars> = {
  name: 'files',

  async started() {
    this.local = new LocalFileStorage(localFilesRoot(this.broker));
    const removed = await this.local.sweepPartials(PARTIAL_MAX_AGE_MS);
    if (removed) this.logger.info(`removed ${removed} partial file(s) left by interrupted writes`);
  },

  actions: {
    stat: {
      visibility: 'public',
      params: KEY_PARAMS,
      async handler(ctx: Context<KeyParams>): Promise<FileStat | null> {
        return this.local.stat(ctx.params.key);
      },
    },

    read: {
      visibility: 'public',
      params: KEY_PARAMS,
      async handler(ctx: Context<KeyParams>): Promise<Readable> {
        const { key, start, end } = ctx.params;
        if (!(await this.local.exists(key))) throw notFound(`No stored file ${key}.`);
        return this.local.createReadStream(key, start !== undefined && end !== undefined ? { start, end } : undefined);
      },
    },

    /** The caller sends the bytes as the call's stream; the file appears whole when the stream ends, or not at all. */
    write: {
      visibility: 'public',
      params: KEY_PARAMS,
      async handler(ctx: Context<KeyParams>): Promise<WriteResult> {
        const source = ctx.stream;
        // Moleculer hands the call's stream over as a Readable (the caller's own, or the transit's Transform).
        if (!(source instanceof Readable)) throw new Error('files.write needs a stream');
        await this.local.writeStream(ctx.params.key, source);
        return { key: ctx.params.key };
      },
    },

    removePrefix: {
      visibility: 'public',
      params: KEY_PARAMS,
      async handler(ctx: Context<KeyParams>): Promise<RemovePrefixResult> {
        await this.local.removePrefix(ctx.params.key);
        return { removed: ctx.params.key };
      },
    },
  },
};

export default FilesService;
