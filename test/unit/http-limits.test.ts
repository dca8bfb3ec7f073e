/** The gateway's slow-client settings (config/index.ts) and how often their timeouts are checked (services/gateway/http-limits.ts). */
import { loadConfig } from '../../config';
import { timeoutCheckIntervalMs } from '../../services/gateway/http-limits';

test('defaults: headers 10 s, request 30 s, keep-alive 5 s, 64 connections per address', () => {
  expect(loadConfig({}).http).toEqual({
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 5_000,
    maxConnectionsPerIp: 64,
  });
});

test('read from the environment; 0 switches a timeout or the cap off', () => {
  const env = { HTTP_HEADERS_TIMEOUT: '5s', HTTP_REQUEST_TIMEOUT: '0', HTTP_KEEPALIVE_TIMEOUT: '65s', HTTP_MAX_CONNECTIONS_PER_IP: '0' };
  expect(loadConfig(env).http).toEqual({
    headersTimeoutMs: 5_000,
    requestTimeoutMs: 0,
    keepAliveTimeoutMs: 65_000,
    maxConnectionsPerIp: 0,
  });
});

test('a headers timeout longer than the request timeout is refused (Node would swap them)', () => {
  expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT: '40s' })).toThrow(/HTTP_HEADERS_TIMEOUT .* must not exceed HTTP_REQUEST_TIMEOUT/);
  expect(() => loadConfig({ HTTP_MAX_CONNECTIONS_PER_IP: '-1' })).toThrow(/HTTP_MAX_CONNECTIONS_PER_IP/);
});

test('the timeouts are checked a quarter of the shortest apart, at most every second', () => {
  const http = loadConfig({}).http;
  expect(timeoutCheckIntervalMs(http)).toBe(1000);
  expect(timeoutCheckIntervalMs({ ...http, headersTimeoutMs: 1000 })).toBe(250);
  expect(timeoutCheckIntervalMs({ ...http, headersTimeoutMs: 0, requestTimeoutMs: 0 })).toBe(30_000);
});
