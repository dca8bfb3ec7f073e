/**
 * FileStorage on an S3-compatible object store (STORAGE_URL): every node reads and writes the
 * bucket itself, so no byte of a video passes through another Moleculer node; the API streams downloads from it
 * (with the Range a player asks for), behind the same signed links as ever. An object appears whole when its PUT
 * ends, which gives the all-or-nothing writes the interface promises. Production points at AWS S3, MinIO, Cloudflare
 * R2 or the like; the tests use s3rver.
 */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { S3StorageSettings } from '../../config';
import type { ByteRange, FileStat, FileStorage } from './files';
import { assertStorageKey } from './keys';
import { streamToFile } from './stream-to-file';

/** What a missing file raises, as the local directory's does (callers test `code === 'ENOENT'`). */
function missing(key: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`no stored file ${key}`), { code: 'ENOENT' });
}

function isNotFound(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404;
}

export class S3FileStorage implements FileStorage {
  readonly client: S3Client;

  constructor(private readonly settings: S3StorageSettings) {
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      // Checksums only where an operation requires one: the SDK's default (a CRC32 trailer, so a streamed body is sent
      // aws-chunked) is not understood by every S3-compatible store; s3rver kept the chunk framing inside the object.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** The object key of a storage key: under STORAGE_URL's prefix, if any. */
  objectKey(key: string): string {
    assertStorageKey(key);
    return this.settings.prefix ? `${this.settings.prefix}/${key}` : key;
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), Body: data }));
  }

  async get(key: string): Promise<Buffer> {
    const stream = await this.createReadStream(key);
    const chunks: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks);
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async stat(key: string): Promise<FileStat | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
      return { size: head.ContentLength ?? 0, mtimeMs: head.LastModified?.getTime() ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async createReadStream(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.objectKey(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      // On Node the SDK's body is the HTTP response itself: a Readable.
      return answer.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) throw missing(key);
      throw err;
    }
  }

  async putFile(key: string, localPath: string): Promise<void> {
    const { size } = await fs.stat(localPath);
    // Streamed with its length (S3 needs it for a stream): a video never has to fit in memory.
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.objectKey(key),
        Body: createReadStream(localPath),
        ContentLength: size,
      }),
    );
  }

  async getFile(key: string, localPath: string): Promise<void> {
    await streamToFile(() => this.createReadStream(key), localPath);
  }

  async removePrefix(prefix: string): Promise<void> {
    // A directory's worth, as the local store removes one: `campaigns/1/capture/`, never `campaigns/1/capture-old`.
    const under = `${this.objectKey(prefix)}/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: under, ContinuationToken: token }),
      );
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
      if (keys.length) await this.client.send(new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: keys } }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}
