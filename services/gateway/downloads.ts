/**
 * The /files route: rendered videos, posters and captions to anyone holding a signed link (lib/storage/file-links.ts).
 * No API key and no per-IP limit: the signature is the credential, and players send many Range requests.
 */
import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Errors, type Logger, type ServiceBroker } from 'moleculer';
import { forbidden, invalidInput, notFound, messageOf } from '../../lib/errors';
import { call } from '../../lib/net/calls';
import { FILE_PATHS, fileKindOf, SCREEN_PATH, verifyFileLink, verifyScreenLink } from '../../lib/storage/file-links';
import { screenshotKeyOf } from '../../lib/storage/keys';
import type { ByteRange, FileStorage } from '../../lib/storage/files';
import { decodable, type Next, type Req, type Res } from './request';

/** What serving a file needs of the gateway. */
export interface FileServer {
  broker: ServiceBroker;
  logger: Logger;
  signingKey: Buffer;
  storage: FileStorage;
}

/** `<video id>.<extension>`: ids are lowercase UUIDs, exactly as they were signed. */
const DOWNLOAD_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([a-z0-9]+)$/;

/**
 * One `bytes=` range (RFC 9110 §14.1.2). undefined: answer with the whole file, which the RFC allows for
 * a missing, malformed or multi-range header; 'unsatisfiable': 416. Not range-parser (kept libraries are preferred elsewhere, not here):
 * version 1.3 answers 416 (-1) to a suffix longer than the file, where the RFC serves the whole file, and to an
 * invalid `bytes=9-3`, which the RFC lets a server ignore; downloads.test.ts pins both.
 */
function parseByteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = header ? /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffixLength = Number(match[2]);
    return suffixLength === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffixLength), end: size - 1 };
  }
  const start = Number(match[1]);
  const last = match[2] === '' ? Infinity : Number(match[2]);
  if (last < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(last, size - 1) };
}

/** A moleculer-web function alias: the file is streamed straight to the response (Range needs the raw response). */
function downloadAlias(dir: string) {
  return function (this: FileServer, req: Req, res: Res, next: Next) {
    serveDownload(this, dir, req, res).catch(next);
  };
}

/** A campaign's screenshot (the video document's assets): the same serving, another signed name. */
function screenAlias(this: FileServer, req: Req, res: Res, next: Next) {
  serveScreen(this, req, res).catch(next);
}

/**
 * GET and HEAD of `/files/<dir>/:file` for each directory of lib/storage/file-links.ts's FILE_PATHS (captions holds
 * .vtt and .srt), and of `/files/screens/:campaign/:file` for screenshots.
 */
export const downloadAliases = (): Record<string, DownloadHandler> =>
  Object.fromEntries([
    ...[...new Set(Object.values(FILE_PATHS).map((p) => p.dir))].flatMap((dir): Array<[string, DownloadHandler]> => [
      [`GET ${dir}/:file`, downloadAlias(dir)],
      [`HEAD ${dir}/:file`, downloadAlias(dir)],
    ]),
    [`GET ${SCREEN_PATH.dir}/:campaign/:file`, screenAlias],
    [`HEAD ${SCREEN_PATH.dir}/:campaign/:file`, screenAlias],
  ]);

type DownloadHandler = (this: FileServer, req: Req, res: Res, next: Next) => void;

const CAMPAIGN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SCREEN_NAME = /^(.+)\.png$/;

/**
 * A screenshot: the signature binds the campaign and the screenshot's id, and the id names its storage key
 * (lib/storage/keys.ts), so no owner needs asking: the capture stage wrote it, and only we signed the link.
 */
async function serveScreen(gateway: FileServer, req: Req, res: Res): Promise<unknown> {
  if (!(req.parsedUrl ?? '').split('/').every(decodable)) throw invalidInput('The download path is not valid percent-encoding.');
  const { campaign, file, expires, signature } = req.$params;
  const name = typeof file === 'string' ? SCREEN_NAME.exec(file) : null;
  const campaignId = typeof campaign === 'string' && CAMPAIGN_ID.test(campaign) ? campaign : undefined;
  const storageKey = name && campaignId ? screenshotKeyOf(campaignId, name[1]) : undefined;
  const check =
    campaignId && name && storageKey && typeof expires === 'string' && typeof signature === 'string'
      ? verifyScreenLink(campaignId, name[1], expires, signature, gateway.signingKey, Math.floor(Date.now() / 1000))
      : 'invalid';
  if (check === 'expired') throw forbidden('This download link has expired. Read the video document again for a fresh link.');
  if (check !== 'ok' || !storageKey || !name) throw forbidden('This download link is not valid.');
  return sendStored(gateway, req, res, storageKey, SCREEN_PATH.contentType, `${name[1]}.${SCREEN_PATH.extension}`);
}

/** The signature is checked before anything else is touched; the bytes come from the file store. */
async function serveDownload(gateway: FileServer, dir: string, req: Req, res: Res): Promise<unknown> {
  if (!(req.parsedUrl ?? '').split('/').every(decodable)) throw invalidInput('The download path is not valid percent-encoding.');
  const { file, expires, signature } = req.$params;
  const name = typeof file === 'string' ? DOWNLOAD_NAME.exec(file) : null;
  // The directory and the extension name the kind; the signature binds it, so one kind's link opens no other.
  const kind = name ? fileKindOf(dir, name[2]) : undefined;
  const videoId = name && kind ? name[1] : undefined;
  const check =
    kind && videoId && typeof expires === 'string' && typeof signature === 'string'
      ? verifyFileLink(kind, videoId, expires, signature, gateway.signingKey, Math.floor(Date.now() / 1000))
      : 'invalid';
  if (check === 'expired') throw forbidden('This download link has expired. Read the campaign again for a fresh link.');
  if (check !== 'ok' || !kind || !videoId) throw forbidden('This download link is not valid.');

  // Videos are the campaign actor's: it says which stored file a ready video's link stands for.
  const { storage_key: storageKey } = await call(
    gateway.broker,
    'campaigns.downloadTarget',
    { video_id: videoId, kind },
    { parentCtx: req.$ctx },
  );
  if (!storageKey) throw notFound('No such file.');
  return sendStored(gateway, req, res, storageKey, FILE_PATHS[kind].contentType, `${videoId}.${FILE_PATHS[kind].extension}`);
}

/** A stored file's bytes, whole or one range, once its link was checked. */
async function sendStored(
  gateway: FileServer,
  req: Req,
  res: Res,
  storageKey: string,
  contentType: string,
  fileName: string,
): Promise<unknown> {
  const stat = await gateway.storage.stat(storageKey);
  if (!stat) throw notFound('No such file.');

  // A video's link serves its newest revision (an edit replaces the file under the same link): the ETag names the
  // stored file, so a player resuming with If-Range gets the whole new file, never the old one's bytes spliced in.
  const etag = `"${crypto.createHash('sha256').update(`${storageKey}:${stat.size}:${stat.mtimeMs}`).digest('base64url').slice(0, 27)}"`;
  const lastModified = new Date(stat.mtimeMs).toUTCString();
  const ifRange = req.headers['if-range'];
  const rangeStillValid = ifRange === undefined || ifRange === etag || ifRange === lastModified;
  const range = rangeStillValid ? parseByteRange(req.headers.range, stat.size) : undefined;
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('ETag', etag);
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${stat.size}`);
    throw new Errors.MoleculerClientError(`The requested range is outside the file (${stat.size} bytes).`, 416, 'invalid_input');
  }
  // Opened before the file's headers are set, so a failure here still gets a clean error answer.
  const body = req.method === 'HEAD' ? null : await gateway.storage.createReadStream(storageKey, range);
  res.statusCode = range ? 206 : 200;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : stat.size));
  if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${stat.size}`);
  res.setHeader('Cache-Control', 'private, max-age=3600');
  res.setHeader('Content-Disposition', `inline; filename="${fileName}"`);
  res.setHeader('Last-Modified', lastModified);
  if (!body) return res.end();
  try {
    await pipeline(body, res);
  } catch (err) {
    // The status is already sent: pipeline has destroyed both ends, so the client sees a cut-off response.
    // A client going away (premature close) is routine; a file store failing mid-file is worth a warning.
    if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
      gateway.logger.warn(`download of ${storageKey} failed mid-file: ${messageOf(err)}`);
  }
}
