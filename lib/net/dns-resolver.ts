/**
 * Name resolution for every connection we make to a customer's host (the URL check at create, the
 * browser's egress proxy, webhook delivery).
 *
 * Why not `dns.lookup`: it runs getaddrinfo on libuv's thread pool (4 threads, shared with file I/O and
 * zlib) with no timeout and no cache, so a tenant naming hosts whose lookups hang could stall every other
 * tenant's requests. Here names are asked of DNS servers asynchronously (c-ares, through
 * `dns.promises.Resolver` with per-query timeouts and tries) via cacheable-lookup, which caches answers
 * for their TTL (capped) and empty answers briefly, and shares one query among concurrent askers. The
 * cache is an LRU of bounded size. A lookup that has not answered within its deadline fails with
 * DnsTimeoutError (and that failure is remembered for the negative TTL too).
 *
 * The hosts file is still honoured, and first, as glibc does with `hosts: files dns`; localhost names not
 * in it are loopback (RFC 6761). Legacy numeric
 * spellings that getaddrinfo accepts ("2130706433", "0x7f.1", "127.1") resolve to the address they spell,
 * so that the net guard judges them like any other address.
 */
import { promises as dnsPromises } from 'node:dns';
import fs from 'node:fs';
import net from 'node:net';
import CacheableLookup, { type CacheInstance, type EntryObject } from 'cacheable-lookup';
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import { DEFAULT_DNS_SETTINGS, type DnsSettings } from '../../config';

export type ResolveHost = (host: string) => Promise<string[]>;

/** A lookup that did not answer within its deadline. `code` is like a Node DNS error's. */
export class DnsTimeoutError extends Error {
  readonly code = 'ETIMEOUT';
  constructor(
    public readonly host: string,
    public readonly deadlineMs: number,
  ) {
    super(`DNS lookup of ${host} did not answer within ${formatSeconds(deadlineMs)}`);
    this.name = 'DnsTimeoutError';
  }
}

export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

function notFound(host: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`DNS lookup of ${host}: no such host`), { code: 'ENOTFOUND', hostname: host });
}

/** name (lowercase) → addresses, in file order. */
export function parseHostsFile(text: string): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address || net.isIP(address) === 0) continue;
    for (const alias of aliases) {
      const name = alias.toLowerCase();
      const known = names.get(name) ?? [];
      if (!known.includes(address)) known.push(address);
      names.set(name, known);
    }
  }
  return names;
}

/** The hosts file, re-read when it changes (its mtime is looked at no more than once a second). */
class HostsFile {
  private names = new Map<string, string[]>();
  private mtimeMs = -1;
  private checkedAt = 0;
  private pending: Promise<void> | undefined;

  constructor(private readonly file: string) {}

  async lookup(name: string): Promise<string[] | undefined> {
    if (Date.now() - this.checkedAt > 1000) {
      this.pending ??= this.refresh().finally(() => {
        this.pending = undefined;
      });
      await this.pending;
    }
    return this.names.get(name);
  }

  private async refresh(): Promise<void> {
    this.checkedAt = Date.now();
    try {
      const stat = await fs.promises.stat(this.file);
      if (stat.mtimeMs === this.mtimeMs) return;
      this.names = parseHostsFile(await fs.promises.readFile(this.file, 'utf8'));
      this.mtimeMs = stat.mtimeMs;
    } catch {
      this.names = new Map();
      this.mtimeMs = -1;
    }
  }
}

export class HostResolver {
  private readonly lookups: CacheableLookup;
  private readonly resolver: InstanceType<typeof dnsPromises.Resolver>;
  private readonly hosts: HostsFile;
  /** Timeouts, remembered for the negative TTL (cacheable-lookup remembers only empty answers). */
  private readonly timeouts: LRUCache<string, DnsTimeoutError>;

  constructor(readonly settings: DnsSettings) {
    const resolver = new dnsPromises.Resolver({ timeout: settings.queryTimeoutMs, tries: settings.tries });
    if (settings.servers?.length) resolver.setServers(settings.servers);
    this.resolver = resolver;
    const answers = new LRUCache<string, EntryObject[]>({ max: settings.cacheEntries });
    // cacheable-lookup's cache interface (set takes the TTL in ms); not iterable, so the LRU expires entries itself.
    const cache: CacheInstance = {
      get: (name) => answers.get(name),
      set: (name, entries, ttlMs) => void answers.set(name, entries, { ttl: Math.max(1, Math.round(ttlMs)) }),
      delete: (name) => answers.delete(name),
      clear: () => answers.clear(),
    };
    this.lookups = new CacheableLookup({
      cache,
      resolver: this.resolver,
      maxTtl: settings.maxTtlMs / 1000,
      errorTtl: settings.negativeTtlMs / 1000,
      // Never fall back to dns.lookup: that is the thread pool this module exists to keep out of.
      lookup: false,
    });
    this.hosts = new HostsFile(settings.hostsFile);
    this.timeouts = new LRUCache({ max: Math.max(16, Math.ceil(settings.cacheEntries / 4)), ttl: Math.max(1, settings.negativeTtlMs) });
  }

  /** Ends the queries still under way (theirs fail); for a resolver that is no longer used. */
  cancel(): void {
    this.resolver.cancel();
  }

  /** Every address of `host` (an IP literal answers itself); rejects with code ENOTFOUND or ETIMEOUT. */
  resolve: ResolveHost = async (rawHost: string) => {
    const host = rawHost.replace(/^\[|\]$/g, '');
    if (net.isIP(host) !== 0) return [host];
    const name = host.toLowerCase().replace(/\.$/, '');
    if (name === '' || name.length > 253) throw notFound(rawHost);
    if (ipaddr.IPv4.isValid(name)) return [ipaddr.IPv4.parse(name).toString()];
    const fromHosts = await this.hosts.lookup(name);
    if (fromHosts) return [...fromHosts];
    // RFC 6761 §6.3: localhost names are loopback, whatever a DNS server would say (and never sent to one).
    if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1', '::1'];
    const timedOut = this.timeouts.get(name);
    if (timedOut) throw timedOut;

    let timer: NodeJS.Timeout | undefined;
    let expired = false;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(new DnsTimeoutError(name, this.settings.lookupDeadlineMs));
      }, this.settings.lookupDeadlineMs);
    });
    // c-ares may give up before the deadline (its timeouts adapt to how fast the server answered before):
    // the name is asked again until it answers or the deadline passes, so a lookup fails at one known time.
    const askUntilDeadline = async (): Promise<readonly EntryObject[]> => {
      for (;;) {
        try {
          return await this.lookups.lookupAsync(name, { all: true });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ETIMEOUT' || expired) throw err;
        }
        await new Promise((resolve) => setTimeout(resolve, 100)); // never a busy loop, whatever c-ares does
        if (expired) throw new DnsTimeoutError(name, this.settings.lookupDeadlineMs);
      }
    };
    try {
      const entries = await Promise.race([askUntilDeadline(), deadline]);
      return entries.map((entry) => entry.address);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (err instanceof DnsTimeoutError) {
        this.timeouts.set(name, err);
        throw err;
      }
      if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'ENOTIMP' || code === 'EREFUSED' || code === 'ESERVFAIL')
        throw notFound(rawHost);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  };
}

const shared = new Map<string, HostResolver>();

/** One resolver (and cache) per distinct settings in this process. */
export function hostResolver(settings: DnsSettings = DEFAULT_DNS_SETTINGS): HostResolver {
  const key = JSON.stringify(settings);
  let resolver = shared.get(key);
  if (!resolver) {
    resolver = new HostResolver(settings);
    shared.set(key, resolver);
  }
  return resolver;
}
