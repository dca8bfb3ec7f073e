/** lib/net/dns-resolver.ts against a real DNS server of the test's own on loopback UDP. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_DNS_SETTINGS, type DnsSettings } from '../../config';
import { DnsTimeoutError, HostResolver, parseHostsFile } from '../../lib/net/dns-resolver';
import { startDnsServer, type TestDnsServer } from '../support/dns-server';

let server: TestDnsServer;
let hostsFile: string;

beforeAll(async () => {
  server = await startDnsServer({
    'short.answer.test': { addresses: ['198.51.100.1'], ttl: 1 },
    'long.answer.test': { addresses: ['198.51.100.2', '198.51.100.3'], ttl: 300 },
    'a.answer.test': { addresses: ['198.51.100.4'], ttl: 300 },
    'b.answer.test': { addresses: ['198.51.100.5'], ttl: 300 },
    'c.answer.test': { addresses: ['198.51.100.6'], ttl: 300 },
    'pinned.answer.test': { addresses: ['198.51.100.7'], ttl: 300 },
  });
  hostsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dns-test-')), 'hosts');
  fs.writeFileSync(hostsFile, '127.0.0.1 localhost\n# a comment\n203.0.113.7 pinned.answer.test  Other.Test # trailing\n::1 localhost\n');
});
afterAll(async () => {
  await server.close();
  fs.rmSync(path.dirname(hostsFile), { recursive: true, force: true });
});

function resolver(over: Partial<DnsSettings> = {}): HostResolver {
  return new HostResolver({
    ...DEFAULT_DNS_SETTINGS,
    servers: [server.address],
    hostsFile,
    queryTimeoutMs: 300,
    tries: 1,
    lookupDeadlineMs: 800,
    ...over,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('answers come from the configured server and are cached for their TTL', async () => {
  const dns = resolver();
  expect(await dns.resolve('long.answer.test')).toEqual(['198.51.100.2', '198.51.100.3']);
  const asked = server.queries.get('long.answer.test');
  expect(asked).toBeGreaterThan(0);
  expect(await dns.resolve('LONG.answer.test.')).toEqual(['198.51.100.2', '198.51.100.3']);
  expect(server.queries.get('long.answer.test')).toBe(asked);

  expect(await dns.resolve('short.answer.test')).toEqual(['198.51.100.1']);
  const first = server.queries.get('short.answer.test')!;
  await dns.resolve('short.answer.test');
  expect(server.queries.get('short.answer.test')).toBe(first);
  await sleep(1200); // past the record's 1 s TTL
  await dns.resolve('short.answer.test');
  expect(server.queries.get('short.answer.test')).toBeGreaterThan(first);
});

test('no such name: ENOTFOUND, remembered for the negative TTL', async () => {
  const dns = resolver({ negativeTtlMs: 60_000 });
  await expect(dns.resolve('nowhere.missing.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  const asked = server.queries.get('nowhere.missing.test');
  await expect(dns.resolve('nowhere.missing.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  expect(server.queries.get('nowhere.missing.test')).toBe(asked);
});

test('a name whose server never answers fails at the deadline, and does not hold up other names', async () => {
  const dns = resolver({ queryTimeoutMs: 5000, tries: 3, lookupDeadlineMs: 700 });
  const started = Date.now();
  const order: string[] = [];
  const hanging = Array.from({ length: 20 }, (_, i) =>
    dns.resolve(`n${i}.hang.test`).then(
      () => order.push('hang answered'),
      (err: unknown) => {
        order.push('hang failed');
        return err;
      },
    ),
  );
  const answered = dns.resolve('a.answer.test').then((addresses) => {
    order.push('other answered');
    return addresses;
  });
  expect(await answered).toEqual(['198.51.100.4']);
  const failures = await Promise.all(hanging);
  expect(order[0]).toBe('other answered');
  expect(order.slice(1)).toEqual(Array(20).fill('hang failed'));
  for (const err of failures) {
    expect(err).toBeInstanceOf(DnsTimeoutError);
    expect((err as Error).message).toMatch(/did not answer within 0\.7 s/);
  }
  // The deadline holds though the resolver itself would wait 5 s × 3 tries.
  expect(Date.now() - started).toBeLessThan(5000);
  // A timeout is remembered too: asking again fails at once, without a new query.
  const asked = server.queries.get('n0.hang.test');
  await expect(dns.resolve('n0.hang.test')).rejects.toBeInstanceOf(DnsTimeoutError);
  expect(server.queries.get('n0.hang.test')).toBe(asked);
  dns.cancel();
});

test('the hosts file is read first, case-insensitively, and no query is sent for its names', async () => {
  const dns = resolver();
  const before = server.queries.get('pinned.answer.test') ?? 0;
  expect(await dns.resolve('pinned.answer.test')).toEqual(['203.0.113.7']);
  expect(await dns.resolve('other.test')).toEqual(['203.0.113.7']);
  expect(await dns.resolve('localhost')).toEqual(['127.0.0.1', '::1']);
  expect(await dns.resolve('app.localhost')).toEqual(['127.0.0.1', '::1']);
  expect(server.queries.get('app.localhost')).toBeUndefined();
  expect(server.queries.get('pinned.answer.test') ?? 0).toBe(before);
  expect(parseHostsFile('10.0.0.1 a b\nnot-an-ip c\n10.0.0.2 A\n').get('a')).toEqual(['10.0.0.1', '10.0.0.2']);
});

test("legacy numeric spellings resolve to the address they spell, as getaddrinfo's do", async () => {
  const dns = resolver();
  expect(await dns.resolve('2130706433')).toEqual(['127.0.0.1']);
  expect(await dns.resolve('0x7f.1')).toEqual(['127.0.0.1']);
  expect(await dns.resolve('[::1]')).toEqual(['::1']);
});

test('the cache is bounded: the least recently used name is asked again', async () => {
  const dns = resolver({ cacheEntries: 2 });
  await dns.resolve('a.answer.test');
  const askedA = server.queries.get('a.answer.test')!;
  await dns.resolve('b.answer.test');
  await dns.resolve('c.answer.test');
  await dns.resolve('a.answer.test');
  expect(server.queries.get('a.answer.test')).toBeGreaterThan(askedA);
});
