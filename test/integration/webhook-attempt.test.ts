/**
 * One webhook attempt (lib/net/webhooks.ts) against real sockets on this machine: a closed port, a receiver
 * that never answers (the deadline), one that answers without end (the read cap), and private addresses
 * refused before any connection is made (decisions §7).
 */
import http from 'node:http';
import net from 'node:net';
import { attemptDelivery, type AttemptOptions } from '../../lib/net/webhooks';

const loopbackAllowed: AttemptOptions = { guard: { allowLoopback: true }, timeoutMs: 10_000, maxResponseBytes: 16 * 1024 };
const production: AttemptOptions = { ...loopbackAllowed, guard: { allowLoopback: false } };
const body = JSON.stringify({ event: 'campaign.completed' });
const headers = { 'Content-Type': 'application/json' };

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}
const close = (server: net.Server) => new Promise((resolve) => server.close(resolve));

test('a closed port: not delivered, no status, the connection error recorded', async () => {
  const probe = net.createServer();
  const port = await listen(probe);
  await close(probe);
  const result = await attemptDelivery(`http://127.0.0.1:${port}/hook`, headers, body, loopbackAllowed);
  expect(result).toMatchObject({ delivered: false, statusCode: null, error: expect.stringMatching(/^ECONNREFUSED/) });
});

test('a receiver that takes the request and never answers is given up at the deadline', async () => {
  let requests = 0;
  const server = http.createServer(() => {
    requests += 1; /* never answers */
  });
  const port = await listen(server);
  try {
    const result = await attemptDelivery(`http://127.0.0.1:${port}/hook`, headers, body, { ...loopbackAllowed, timeoutMs: 700 });
    expect(result).toMatchObject({ delivered: false, statusCode: null, error: 'no answer within 700 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(690);
    expect(result.durationMs).toBeLessThan(5000);
    expect(requests).toBe(1);
  } finally {
    server.closeAllConnections();
    await close(server);
  }
});

test('an answer without end is read up to the cap, then dropped: 2xx counts, the attempt ends', async () => {
  let sent = 0;
  let connectionClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    connectionClosed = resolve;
  });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    const chunk = Buffer.alloc(4096, 'x');
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) sent += chunk.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('close', () => connectionClosed());
    pump();
  });
  const port = await listen(server);
  try {
    const result = await attemptDelivery(`http://127.0.0.1:${port}/hook`, headers, body, loopbackAllowed);
    expect(result).toMatchObject({ delivered: true, statusCode: 200, error: null });
    expect(result.durationMs).toBeLessThan(loopbackAllowed.timeoutMs);
    await closed; // we hung up: the receiver's endless answer stopped
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  } finally {
    server.closeAllConnections();
    await close(server);
  }
});

test('private addresses are refused before any connection, by name (resolved at connection time) or literal', async () => {
  let connections = 0;
  const sink = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  const port = await listen(sink);
  try {
    for (const url of [
      `https://localhost:${port}/hook`,
      `https://127.0.0.1:${port}/hook`,
      `https://[::1]:${port}/hook`,
      `https://10.0.0.1:${port}/hook`,
    ]) {
      const result = await attemptDelivery(url, headers, body, production);
      expect(result).toMatchObject({ delivered: false, statusCode: null, error: expect.stringMatching(/^address not allowed/) });
    }
    const plain = await attemptDelivery(`http://localhost:${port}/hook`, headers, body, production);
    expect(plain.error).toBe('scheme http: is not allowed');
    expect(connections).toBe(0);
  } finally {
    await close(sink);
  }
});
