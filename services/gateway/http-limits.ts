/**
 * Slow clients, bounded at the gateway's HTTP server. The timeouts are Node's own
 * (`headersTimeout` against slowloris, `requestTimeout` against a trickled body, `keepAliveTimeout` for idle
 * connections), checked often enough to fire near their setting, and their 408 is written in the documented error
 * body. The per-address cap is ours: Node's `maxConnections` counts the whole server, and a count on the
 * 'connection' event is a few lines. Over the cap the socket is destroyed at once, before a byte is read or
 * written: an answer would spend on the attacker what the cap keeps for everyone, and may never be read.
 */
import http from 'node:http';
import type { Server, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { Errors } from 'moleculer';
import type { HttpServerSettings } from '../../config';
import { peerAddress, type TrustedProxies } from '../../lib/http/client-ip';
import { invalidInput, requestTimedOut, toErrorResponse } from '../../lib/errors';

/** Refusals are logged at most this often (one line per flood, not one per connection). */
const REFUSAL_LOG_INTERVAL_MS = 60_000;

/**
 * How often Node looks for connections past their headers or request timeout, so that one is cut at most this long
 * after its timeout: a quarter of the shortest, at most 1 s. Node's default, 30 s, would let a 10 s slowloris stay 40 s.
 */
export function timeoutCheckIntervalMs(settings: HttpServerSettings): number {
  const timeouts = [settings.headersTimeoutMs, settings.requestTimeoutMs].filter((ms) => ms > 0);
  return timeouts.length === 0 ? 30_000 : Math.max(50, Math.min(1000, Math.floor(Math.min(...timeouts) / 4)));
}

/** A raw HTTP/1.1 answer in the documented error body, for a socket that has no ServerResponse to write through. */
function rawErrorAnswer(err: Error): string {
  const { status, body, headers } = toErrorResponse(err);
  const text = JSON.stringify(body);
  const head = [
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${head.join('\r\n')}\r\n\r\n${text}`;
}

/** The documented error for what Node's parser or its timeouts reported on a connection. */
function clientErrorOf(err: NodeJS.ErrnoException, settings: HttpServerSettings): Error {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT': {
      // Node does not say which of the two fired; name the ones that are on.
      const limits = [
        settings.headersTimeoutMs > 0 ? `its headers within ${settings.headersTimeoutMs / 1000} s` : '',
        settings.requestTimeoutMs > 0 ? `all of it within ${settings.requestTimeoutMs / 1000} s` : '',
      ].filter(Boolean);
      return requestTimedOut(`The request was not received in time: send ${limits.join(', and ')}.`);
    }
    case 'HPE_HEADER_OVERFLOW':
      return new Errors.MoleculerClientError('The request headers are too large.', 431, 'invalid_input');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return invalidInput('The chunk extensions of the request body are too large.', 413);
    default:
      return invalidInput('The request is not valid HTTP/1.1.');
  }
}

/**
 * Applies the settings to moleculer-web's server; call it before the server listens (Node reads the checking
 * interval then). Trusted proxies (TRUSTED_PROXIES) are exempt from the cap: every client behind one shares its
 * address, so the proxy caps them (nginx `limit_conn`, HAProxy `src_conn_cur`).
 */
export function boundSlowClients(
  server: Server | undefined,
  settings: HttpServerSettings,
  trusted: TrustedProxies,
  logger: { warn(...args: unknown[]): void },
): void {
  // None in moleculer-web's middleware mode (`server: false`); this gateway serves plain HTTP/1.1 itself.
  if (!(server instanceof http.Server)) return;
  server.headersTimeout = settings.headersTimeoutMs;
  server.requestTimeout = settings.requestTimeoutMs;
  server.keepAliveTimeout = settings.keepAliveTimeoutMs;
  // A public property Node reads when the server starts listening (createServer's `connectionsCheckingInterval`).
  (server as http.Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = timeoutCheckIntervalMs(settings);

  // With a listener, Node leaves the answer to us: it would write a bare 408 (or 400, 431) without a body.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Answered only if nothing of a response has been written on this connection yet (Node's own rule).
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (socket.writable && !inFlight?.headersSent && err.code !== 'ECONNRESET') socket.write(rawErrorAnswer(clientErrorOf(err, settings)));
    socket.destroy();
  });

  const cap = settings.maxConnectionsPerIp;
  if (cap === 0) return;
  const open = new Map<string, number>();
  let lastRefusalLog = 0;
  server.on('connection', (socket: Socket) => {
    const peer = peerAddress(socket);
    if (!peer || !socket.remoteAddress || trusted(socket.remoteAddress, 0)) return;
    const count = open.get(peer) ?? 0;
    if (count >= cap) {
      socket.destroy();
      const now = Date.now();
      if (now - lastRefusalLog >= REFUSAL_LOG_INTERVAL_MS) {
        lastRefusalLog = now;
        logger.warn(
          `refused a connection from ${peer}: ${cap} already open (HTTP_MAX_CONNECTIONS_PER_IP); further refusals are logged once a minute`,
        );
      }
      return;
    }
    open.set(peer, count + 1);
    socket.once('close', () => {
      const left = (open.get(peer) ?? 1) - 1;
      if (left > 0) open.set(peer, left);
      else open.delete(peer);
    });
  });
}
