/**
 * The client address for rate limiting (decisions.md §8): the socket peer, unless that peer is a configured trusted
 * proxy (TRUSTED_PROXIES: addresses, CIDR ranges, or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`), in
 * which case X-Forwarded-For is read from the right, skipping trusted hops. proxy-addr (Express's) does the walk;
 * the answer is normalized (an IPv4-mapped IPv6 peer is its IPv4 address) so that one client has one limiter key.
 */
import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';

export type TrustedProxies = (address: string, hop: number) => boolean;

export function parseTrustedProxies(entries: string[]): TrustedProxies {
  for (const entry of entries) {
    try {
      proxyaddr.compile(entry);
    } catch {
      throw new Error(
        `TRUSTED_PROXIES: "${entry}" is not an IP address, a CIDR range or a proxy-addr name (loopback, linklocal, uniquelocal)`,
      );
    }
  }
  return proxyaddr.compile(entries);
}

function normalized(address: string): string {
  try {
    return ipaddr.process(address.trim().replace(/^\[|\]$/g, '')).toString();
  } catch {
    return address;
  }
}

/** The request's client: the peer, or the nearest untrusted X-Forwarded-For hop when the peer is a trusted proxy. */
export function clientIp(req: IncomingMessage, trusted: TrustedProxies): string {
  if (!req.socket.remoteAddress) return 'unknown';
  return normalized(proxyaddr(req, trusted));
}

/** A socket's peer, normalized as clientIp's answer is (an IPv4-mapped IPv6 peer is its IPv4 address); undefined once it is gone. */
export function peerAddress(socket: { remoteAddress?: string }): string | undefined {
  return socket.remoteAddress ? normalized(socket.remoteAddress) : undefined;
}

/** Whether the direct peer is one of the trusted proxies (whose X-Forwarded-Proto is then believed too). */
export function fromTrustedProxy(req: IncomingMessage, trusted: TrustedProxies): boolean {
  const peer = req.socket.remoteAddress;
  return Boolean(peer && trusted(peer, 0));
}
