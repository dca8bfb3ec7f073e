/**
 * A local HTTP proxy that Chromium is forced through (see chromiumProxyArgs) so that every
 * connection the browser makes — page, redirects, subresources, iframes, fetch/XHR, websockets,
 * workers — is checked by net-guard against the address actually connected to.
 *
 * The name is resolved once, every address is checked, and the proxy then connects to the exact
 * address it checked, never re-resolving (that defeats DNS rebinding). Any port is allowed: only
 * the address matters. Redirects are passed back to the browser, whose next hop comes back here.
 */
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { hostResolver, type ResolveHost } from './dns-resolver';
import { checkAddress } from './net-guard';
import { messageOf } from '../errors';

/** `address` is the one connected to (allowed) or the one refused; `at` is Date.now(). */
export interface EgressDecision {
  host: string;
  port: number;
  address?: string;
  allowed: boolean;
  reason?: string;
  at: number;
}

export interface EgressProxyOptions {
  allowLoopback: boolean;
  /** DNS for names; default: lib/net/dns-resolver.ts with default settings. Tests may inject one (a fake of third-party DNS). */
  resolve?: ResolveHost;
  connectTimeoutMs?: number; // default 10000
  /** Called for every connection attempt, allowed or not (the capture service logs refusals and counts them).
   * A name that does not resolve is reported as allowed: false, reason "DNS lookup failed (CODE)", and answered 502. */
  onDecision?: (decision: EgressDecision) => void;
}

/** Headers that describe one hop (client↔proxy or proxy↔server) and must not be forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const defaultResolve: ResolveHost = (host) => hostResolver().resolve(host);

const stripBrackets = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/** Drops hop-by-hop headers and those named in Connection; `keep` lets an upgrade keep its own. */
function forwardableHeaders(raw: string[], keep: string[] = []): string[] {
  const pairs = raw.flatMap((name, i) => (i % 2 === 0 ? [[name, raw[i + 1]]] : []));
  const named = pairs.filter(([n]) => /^connection$/i.test(n)).flatMap(([, v]) => v.split(',').map((h) => h.trim().toLowerCase()));
  const dropped = (name: string) => !keep.includes(name) && (HOP_BY_HOP.has(name) || named.includes(name));
  return pairs.filter(([name]) => !dropped(name.toLowerCase())).flat();
}

function parseAuthority(authority: string): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(authority);
  const port = Number(match?.[2]);
  return match && port >= 1 && port <= 65535 ? { host: stripBrackets(match[1]), port } : null;
}

function parseAbsoluteUrl(raw: string | undefined, schemes: string[]): URL | null {
  const url = URL.parse(raw ?? '');
  return url && schemes.includes(url.protocol) && url.hostname !== '' ? url : null;
}

/**
 * Marks answers the proxy itself gives (refusals, unreachable targets): for plain http Chromium shows
 * them as the page instead of failing the navigation, so the capture service must tell them apart.
 */
export const EGRESS_REFUSED_HEADER = 'x-egress-refused';

/** The header's value: 403 means the address is not allowed, anything else that the target could not be reached. */
export function refusalKind(status: number): 'address-not-allowed' | 'unreachable' {
  return status === 403 ? 'address-not-allowed' : 'unreachable';
}

/** Writes a minimal HTTP response on a raw socket (CONNECT and upgrade have no ServerResponse). */
function refuseSocket(socket: Duplex, status: number, text: string): void {
  const body = `${text}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain\r\n${EGRESS_REFUSED_HEADER}: ${refusalKind(status)}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Pipes both ways; either side closing or failing destroys both. */
function splice(a: Duplex, b: Duplex): void {
  const closeBoth = () => {
    a.destroy();
    b.destroy();
  };
  if (a.destroyed || b.destroyed) return closeBoth();
  for (const side of [a, b]) side.on('error', closeBoth).on('close', closeBoth);
  a.pipe(b).pipe(a);
}

type Verdict = { allowed: true; address: string } | { allowed: false; status: 403 | 502; reason: string };

export class EgressProxy {
  private server?: http.Server;
  private readonly sockets = new Set<Duplex>(); // client connections and upstream sockets, for stop()

  constructor(private readonly opts: EgressProxyOptions) {}

  async start(): Promise<void> {
    const server = http.createServer((req, res) => void this.forwardRequest(req, res));
    server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(req, socket, head));
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.forwardUpgrade(req, socket, head));
    server.on('connection', (socket: net.Socket) => this.track(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  get port(): number {
    const address = this.server?.address();
    if (!address || typeof address === 'string') throw new Error('EgressProxy is not started');
    return address.port;
  }

  /** e.g. "http://127.0.0.1:41234", for Chromium's --proxy-server */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private track<T extends Duplex>(socket: T): T {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    return socket;
  }

  /** Resolves once, checks every address; the caller must connect to `address` and nothing else. */
  private async decide(host: string, port: number): Promise<Verdict> {
    const report = (d: Omit<EgressDecision, 'host' | 'port' | 'at'>) => this.opts.onDecision?.({ host, port, ...d, at: Date.now() });
    let addresses: string[];
    try {
      addresses = net.isIP(host) !== 0 ? [host] : await (this.opts.resolve ?? defaultResolve)(host);
      if (addresses.length === 0) throw Object.assign(new Error('no address'), { code: 'ENODATA' });
    } catch (err) {
      report({ allowed: false, reason: `DNS lookup failed (${(err as NodeJS.ErrnoException).code ?? messageOf(err)})` });
      return { allowed: false, status: 502, reason: 'host could not be resolved' };
    }
    for (const address of addresses) {
      const verdict = checkAddress(address, this.opts);
      if (!verdict.allowed) {
        report({ address, allowed: false, reason: verdict.reason });
        return { allowed: false, status: 403, reason: `refused: ${verdict.reason}` };
      }
    }
    report({ address: addresses[0], allowed: true });
    return { allowed: true, address: addresses[0] };
  }

  /** Checks the target, then connects to the checked address; otherwise answers via `refuse`. */
  private async open(host: string, port: number, refuse: (status: number, text: string) => void): Promise<net.Socket | undefined> {
    const verdict = await this.decide(host, port);
    if (!verdict.allowed) return void refuse(verdict.status, verdict.reason);
    return new Promise((resolve) => {
      const socket = this.track(net.connect({ host: verdict.address, port }));
      const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), this.opts.connectTimeoutMs ?? 10_000);
      const failed = () => {
        clearTimeout(timer);
        refuse(502, 'could not connect');
        resolve(undefined);
      };
      socket.once('error', failed).once('connect', () => {
        clearTimeout(timer);
        socket.off('error', failed);
        resolve(socket);
      });
    });
  }

  /** CONNECT host:port — HTTPS and wss (Chromium tunnels ws:// through CONNECT too). */
  private async tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const target = parseAuthority(req.url ?? '');
    if (!target) return refuseSocket(client, 400, 'CONNECT needs host:port');
    const upstream = await this.open(target.host, target.port, (status, text) => refuseSocket(client, status, text));
    if (!upstream) return;
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    splice(client, upstream);
  }

  /** Absolute-form `GET http://host/path`: forwarded as is; redirects are not followed. */
  private async forwardRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const fail = (status: number, text: string) => {
      if (res.headersSent || req.socket.destroyed) return void res.destroy();
      res
        .writeHead(status, { 'content-type': 'text/plain', connection: 'close', [EGRESS_REFUSED_HEADER]: refusalKind(status) })
        .end(`${text}\n`);
    };
    const url = parseAbsoluteUrl(req.url, ['http:']);
    if (!url) return fail(400, 'only absolute http:// URLs are proxied');
    const socket = await this.open(stripBrackets(url.hostname), Number(url.port || 80), fail);
    if (!socket) return;
    if (req.socket.destroyed) return void socket.destroy();
    const headers = forwardableHeaders(req.rawHeaders);
    if (!headers.some((h, i) => i % 2 === 0 && h.toLowerCase() === 'host')) headers.push('Host', url.host);
    const upstream = http.request({
      method: req.method,
      path: url.pathname + url.search,
      headers,
      setHost: false,
      createConnection: () => socket,
    });
    upstream.on('response', (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, forwardableHeaders(upstreamRes.rawHeaders));
      upstreamRes.on('error', () => res.destroy()).pipe(res);
    });
    upstream.on('error', () => fail(502, 'upstream error'));
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  /** Upgrade through the plain proxy (ws:// sent as absolute-form GET with Upgrade: websocket). */
  private async forwardUpgrade(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const url = parseAbsoluteUrl(req.url, ['http:', 'ws:']);
    if (!url) return refuseSocket(client, 400, 'only absolute http:// or ws:// URLs are proxied');
    const refuse = (status: number, text: string) => refuseSocket(client, status, text);
    const upstream = await this.open(stripBrackets(url.hostname), Number(url.port || 80), refuse);
    if (!upstream) return;
    const headers = forwardableHeaders(req.rawHeaders, ['connection', 'upgrade']);
    let text = `${req.method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
    for (let i = 0; i < headers.length; i += 2) text += `${headers[i]}: ${headers[i + 1]}\r\n`;
    upstream.write(`${text}\r\n`);
    if (head.length > 0) upstream.write(head);
    splice(client, upstream);
  }
}

/** The Chromium arguments that force every connection through the proxy (and nothing around it). */
export function chromiumProxyArgs(proxyUrl: string): string[] {
  return [
    `--proxy-server=${proxyUrl}`,
    // Without this Chromium connects to localhost, 127/8, [::1] (and 169.254/16) directly.
    '--proxy-bypass-list=<-loopback>',
    // WebRTC may otherwise send UDP (STUN/TURN/host candidates) straight from the browser.
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
    '--no-pings',
    '--dns-prefetch-disable',
    '--disable-background-networking',
  ];
}
