/**
 * Serves one folder of a built web site on loopback, as a static host (GitHub Pages, a CDN bucket) would: the
 * file's own content type, `index.html` for a folder, a redirect from a folder without its slash, 404 otherwise.
 * The real-web bench starts one per site so that each site has an origin of its own, as on the web.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.bmp': 'image/bmp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.eot': 'application/vnd.ms-fontobject',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mp3': 'audio/mpeg',
  '.pdf': 'application/pdf',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
};

export interface StaticSite {
  origin: string;
  url(pagePath: string): string;
  close(): Promise<void>;
}

/** The file a request path names inside `root`, or undefined when it would leave the folder. */
function resolveInside(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  const file = path.resolve(root, `.${path.posix.normalize(decoded)}`);
  return file === root || file.startsWith(`${root}${path.sep}`) ? file : undefined;
}

export async function startStaticSite(folder: string): Promise<StaticSite> {
  const root = path.resolve(folder);
  if (!fs.statSync(root).isDirectory()) throw new Error(`${root} is not a folder`);

  const server = http.createServer((req, res) => {
    const send = (status: number, type: string, body: Buffer | string, headers: http.OutgoingHttpHeaders = {}) => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, TYPES['.txt'], 'method not allowed\n', { Allow: 'GET, HEAD' });
    const url = new URL(req.url ?? '/', 'http://site.invalid');
    let file = resolveInside(root, url.pathname);
    if (!file) return send(404, TYPES['.txt'], 'not found\n');
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) {
      if (!url.pathname.endsWith('/')) return send(301, TYPES['.txt'], 'moved\n', { Location: `${url.pathname}/${url.search}` });
      file = path.join(file, 'index.html');
    } else if (!fs.existsSync(file) && !path.extname(file) && fs.existsSync(`${file}.html`)) {
      file = `${file}.html`; // pretty URLs, as GitHub Pages serves them
    }
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
      const notFound = path.join(root, '404.html');
      return fs.existsSync(notFound) ? send(404, TYPES['.html'], fs.readFileSync(notFound)) : send(404, TYPES['.txt'], 'not found\n');
    }
    send(200, TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream', fs.readFileSync(file));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (pagePath: string) => new URL(pagePath, origin).toString(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
