/**
 * The client address behind trusted proxies (lib/http/client-ip.ts, proxy-addr): the peer unless it is trusted, then the
 * nearest untrusted X-Forwarded-For hop; one address per client (IPv4-mapped peers as IPv4); bad settings refused.
 */
import type { IncomingMessage } from 'node:http';
import { clientIp, fromTrustedProxy, parseTrustedProxies } from '../../lib/http/client-ip';

function request(peer: string, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  } as unknown as IncomingMessage;
}

test('an untrusted peer is the client, whatever X-Forwarded-For says; a trusted one hands over to the header', () => {
  const trusted = parseTrustedProxies(['10.0.0.0/8', 'loopback']);
  expect(clientIp(request('203.0.113.9', '198.51.100.1'), trusted)).toBe('203.0.113.9');
  expect(clientIp(request('10.1.2.3', '198.51.100.1'), trusted)).toBe('198.51.100.1');
  // Read from the right: trusted hops are skipped, the first untrusted one is the client (a spoofed left part is not).
  expect(clientIp(request('10.1.2.3', '6.6.6.6, 198.51.100.1, 10.9.9.9'), trusted)).toBe('198.51.100.1');
  expect(clientIp(request('::ffff:127.0.0.1', '198.51.100.2'), trusted)).toBe('198.51.100.2');
  expect(clientIp(request('::ffff:203.0.113.9'), trusted)).toBe('203.0.113.9');
  expect(fromTrustedProxy(request('10.1.2.3'), trusted)).toBe(true);
  expect(fromTrustedProxy(request('203.0.113.9'), trusted)).toBe(false);
});

test('no trusted proxy: always the peer; a bad entry stops the start naming it', () => {
  const none = parseTrustedProxies([]);
  expect(clientIp(request('10.1.2.3', '198.51.100.1'), none)).toBe('10.1.2.3');
  expect(() => parseTrustedProxies(['10.0.0.0/8', 'proxy.internal'])).toThrow(/TRUSTED_PROXIES: "proxy.internal"/);
});
