/**
 * The single place that decides whether a URL or IP address may be contacted.
 *
 * Rule: page and webhook URLs must resolve only to public unicast addresses. Loopback, private,
 * link-local (incl. cloud metadata 169.254.169.254), carrier-grade NAT, multicast, unspecified,
 * reserved and IPv4-mapped/compatible IPv6 forms of those are refused. `allowLoopback`
 * (ALLOW_PRIVATE_NETWORK, off by default) additionally allows loopback, and plain http to it.
 *
 * `assertPublicUrl` validates input when it is submitted; `guardedLookup` and
 * `assertAllowedHostLiteral` repeat the check at connection time (DNS rebinding, redirects).
 */
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import type { AppConfig } from '../../config';
import { DnsTimeoutError, formatSeconds, hostResolver, type ResolveHost } from './dns-resolver';

export interface GuardOptions {
  allowLoopback: boolean;
  /** Name resolution (lib/net/dns-resolver.ts); default: the process's resolver with default settings. */
  resolve?: ResolveHost;
}

/** The guard every customer URL goes through on this node: loopback only with ALLOW_PRIVATE_NETWORK, names resolved as configured. */
export function guardFor(config: Pick<AppConfig, 'allowPrivateNetwork' | 'dns'>): GuardOptions {
  return { allowLoopback: config.allowPrivateNetwork, resolve: hostResolver(config.dns).resolve };
}

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

export const DEFAULT_MAX_URL_LENGTH = 2048;

const RANGE_LABELS: Record<string, string> = {
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  uniqueLocal: 'unique local',
  ipv4Mapped: 'IPv4-mapped',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64',
};

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Parses an IP address and unwraps IPv4-mapped/compatible IPv6 to the IPv4 it designates. */
function parseAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const text = stripBrackets(ip);
  // Only canonical forms (what net.isIP accepts): ipaddr.js would also accept "0x7f.1" or
  // "2130706433", and anything ambiguous is safer refused than guessed.
  if (net.isIP(text) === 0) return null;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(text);
  } catch {
    return null;
  }
  if (addr.kind() === 'ipv4') return addr;
  const v6 = addr as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const p = v6.parts;
  // IPv4-compatible (::a.b.c.d, first 96 bits zero); ipaddr.js calls e.g. ::7f00:1 'unicast'.
  // :: and ::1 are left as IPv6 so that they keep their own ranges.
  const compatible = p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7] > 1);
  if (compatible) return new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
  return v6;
}

export function checkAddress(ip: string, opts: GuardOptions): AddressVerdict {
  const addr = parseAddress(ip);
  if (!addr) return { allowed: false, reason: `not an IP address: ${ip}` };
  const range = addr.range();
  if (range === 'unicast' || (range === 'loopback' && opts.allowLoopback)) return { allowed: true };
  const shown = addr.toString();
  const original = stripBrackets(ip);
  const from = shown === original ? '' : ` (from ${original})`;
  return { allowed: false, reason: `${RANGE_LABELS[range] ?? range} address ${shown}${from}` };
}

const isLoopbackAddress = (ip: string): boolean => parseAddress(ip)?.range() === 'loopback';

/** `status`: 400 for a URL that is wrong as given; 422 for one whose host did not resolve in time. */
export class UrlRejectedError extends Error {
  constructor(
    public readonly field: string,
    message: string,
    public readonly status: 400 | 422 = 400,
  ) {
    super(message);
    this.name = 'UrlRejectedError';
  }
}

export interface UrlCheckOptions extends GuardOptions {
  field: string;
  httpsOnly: boolean;
  maxLength?: number;
}

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
// "localhost:3000/x" or "example.com:8080" is host:port, not a scheme.
const HOST_PORT = /^[a-z][a-z0-9+.-]*:\d+(?:[/?#]|$)/i;
// eslint-disable-next-line no-control-regex -- matching control characters is what this pattern is for
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;

/** Turns customer input into an http(s) URL without credentials, or throws UrlRejectedError. */
export function normalizeUrlInput(raw: string, field: string, maxLength = DEFAULT_MAX_URL_LENGTH): URL {
  const reject = (why: string): never => {
    throw new UrlRejectedError(field, `${field} ${why}`);
  };
  if (typeof raw !== 'string') reject('must be a string');
  if (raw.length === 0) reject('must not be empty');
  if (raw.length > maxLength) reject(`must be at most ${maxLength} characters`);
  if (WHITESPACE_OR_CONTROL.test(raw)) reject('must not contain whitespace');

  const scheme = HOST_PORT.test(raw) ? undefined : SCHEME.exec(raw)?.[1].toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') reject('must use http or https');
  let url: URL;
  try {
    url = new URL(scheme === undefined ? `https://${raw}` : raw);
  } catch {
    return reject('must be a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') reject('must use http or https');
  if (url.username !== '' || url.password !== '') reject('must not contain a user name or password');
  if (url.hostname === '') reject('must have a host name');
  return url;
}

const defaultResolve: ResolveHost = (host) => hostResolver().resolve(host);

/**
 * Validates a customer-supplied URL at submission time. This alone does not stop DNS rebinding:
 * connections must also go through guardedLookup / assertAllowedHostLiteral.
 */
export async function assertPublicUrl(raw: string, opts: UrlCheckOptions): Promise<URL> {
  const { field } = opts;
  const reject = (why: string): never => {
    throw new UrlRejectedError(field, `${field} ${why}`);
  };
  const url = normalizeUrlInput(raw, field, opts.maxLength ?? DEFAULT_MAX_URL_LENGTH);
  const plainHttpRefused = opts.httpsOnly && url.protocol === 'http:';
  if (plainHttpRefused && !opts.allowLoopback) reject('must use https');

  const host = stripBrackets(url.hostname);
  let addresses: string[];
  if (net.isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = await (opts.resolve ?? defaultResolve)(host);
    } catch (err) {
      if (err instanceof DnsTimeoutError) {
        throw new UrlRejectedError(
          field,
          `${field} host name ${host} did not resolve within ${formatSeconds(err.deadlineMs)}; check the name, or retry later`,
          422,
        );
      }
      return reject('host could not be resolved');
    }
    if (addresses.length === 0) reject('host could not be resolved');
  }
  for (const address of addresses) {
    const verdict = checkAddress(address, opts);
    if (!verdict.allowed) reject(`must point to a public address (${verdict.reason})`);
  }
  if (plainHttpRefused && !addresses.every(isLoopbackAddress)) reject('must use https');
  return url;
}

/** Raised at connection time; `code` is 'EADDRBLOCKED' like a Node system error. */
export class AddressBlockedError extends Error {
  readonly code = 'EADDRBLOCKED';
  constructor(
    public readonly host: string,
    public readonly address: string,
    reason: string,
  ) {
    super(`connection to ${host} refused: ${reason}`);
    this.name = 'AddressBlockedError';
  }
}

/**
 * Node skips `lookup` when the host is already an IP literal, so callers that pass
 * guardedLookup must also run this on the host before connecting. Names are left to the lookup.
 */
export function assertAllowedHostLiteral(host: string, opts: GuardOptions): void {
  const literal = stripBrackets(host);
  if (net.isIP(literal) === 0) return;
  const verdict = checkAddress(literal, opts);
  if (!verdict.allowed) throw new AddressBlockedError(host, literal, verdict.reason);
}

/**
 * A `lookup` for http.Agent / net.connect / tls.connect that refuses the connection when any
 * address the name resolves to is not allowed (whatever family was asked for), then answers in the
 * form the caller asked for. Names go through lib/net/dns-resolver.ts, never the thread pool's getaddrinfo.
 */
export function guardedLookup(opts: GuardOptions): net.LookupFunction {
  const resolve = opts.resolve ?? defaultResolve;
  return (hostname, options, callback) => {
    const fail = (err: NodeJS.ErrnoException) => callback(err, options.all ? [] : '');
    resolve(hostname).then((found) => {
      for (const address of found) {
        const verdict = checkAddress(address, opts);
        if (!verdict.allowed) return fail(new AddressBlockedError(hostname, address, verdict.reason));
      }
      const addresses = found
        .map((address) => ({ address, family: net.isIP(address) }))
        .filter(({ family }) => !options.family || family === options.family);
      if (addresses.length === 0) return fail(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    }, fail);
  };
}
