/**
 * The client address for rate limiting (decisions.md §8): the socket peer, unless that peer is a
 * configured trusted proxy, in which case X-Forwarded-For is read from the right, skipping trusted hops.
 */
import ipaddr from 'ipaddr.js';

export type TrustedProxies = Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

export function parseTrustedProxies(entries: string[]): TrustedProxies {
  return entries.map((entry) => {
    try {
      return entry.includes('/')
        ? ipaddr.parseCIDR(entry)
        : (() => {
            const ip = ipaddr.parse(entry);
            return [ip, ip.kind() === 'ipv4' ? 32 : 128] as [typeof ip, number];
          })();
    } catch {
      throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range`);
    }
  });
}

function normalize(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    return ipaddr.process(address.trim().replace(/^\[|\]$/g, ''));
  } catch {
    return undefined;
  }
}

function isTrusted(ip: ipaddr.IPv4 | ipaddr.IPv6, trusted: TrustedProxies): boolean {
  return trusted.some(([range, bits]) => ip.kind() === range.kind() && ip.match(range, bits));
}

export function clientIp(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string {
  const peer = normalize(remoteAddress ?? '');
  if (!peer) return remoteAddress ?? 'unknown';
  if (!trusted.length || !isTrusted(peer, trusted) || !forwardedFor) return peer.toString();
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = normalize(hops[i]);
    if (!hop) return peer.toString();
    if (!isTrusted(hop, trusted)) return hop.toString();
  }
  return peer.toString();
}

/** Whether the direct peer is one of the trusted proxies (whose X-Forwarded-Proto is then believed too). */
export function fromTrustedProxy(remoteAddress: string | undefined, trusted: TrustedProxies): boolean {
  const peer = normalize(remoteAddress ?? '');
  return Boolean(peer && trusted.length && isTrusted(peer, trusted));
}
