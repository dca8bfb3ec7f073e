/**
 * Slow clients at the gateway, on raw sockets against the real product: a slowloris connection and
 * a trickled body are answered 408 in the documented body and closed by their timeouts, and one address holds at
 * most HTTP_MAX_CONNECTIONS_PER_IP connections (trusted proxies exempt). Short timeouts are set through config here.
 */
import net from 'node:net';
import { startHarness, type Harness } from '../support/harness';

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 4000;
const CAP = 4;
/** Loopback addresses of their own, so the harness's own fetch connections (from 127.0.0.1) never count against the cap. */
const CAPPED = '127.0.0.2';
const OTHER = '127.0.0.3';
const PROXY = '127.0.0.4';
const SLOW = '127.0.0.5';

let h: Harness;
let customer: { orgId: string; key: string; keyId: string };
let port: number;
const sockets: net.Socket[] = [];

beforeAll(async () => {
  h = await startHarness({
    config: {
      pipelinePaused: true,
      trustedProxies: [PROXY],
      rateLimits: { ipUnauthenticated: 1000, ipAuthenticated: 1000, windowMs: 60_000 },
      // Keep-alive long enough that the connections the cap test holds stay open through it.
      http: {
        headersTimeoutMs: HEADERS_TIMEOUT_MS,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: 15_000,
        maxConnectionsPerIp: CAP,
      },
    },
  });
  customer = await h.newCustomer('business');
  port = Number(new URL(h.baseUrl).port);
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await h?.stop();
});

interface Connection {
  socket: net.Socket;
  /** Everything received so far. */
  received(): string;
  /** Settles when the socket closes: when (ms since epoch), and what was received. */
  closed: Promise<{ at: number; data: string }>;
}

/** A raw connection to the gateway from `localAddress` (any of 127/8 is this machine's). */
function connect(localAddress: string): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    sockets.push(socket);
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    // A reset (the server closing while we still write) is an outcome here, not a failure.
    socket.on('error', () => undefined);
    const closed = new Promise<{ at: number; data: string }>((settle) => socket.on('close', () => settle({ at: Date.now(), data })));
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

/** An HTTP/1.1 answer as received: status, and the body parsed as JSON when it is. */
function parseAnswer(raw: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
  const text = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  try {
    return { status, body: JSON.parse(text) as unknown };
  } catch {
    return { status, body: text };
  }
}

/** Resolves with the promise's value, or fails the test if it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Writes `text` one byte every `everyMs` until the socket closes; returns a stop function. */
function trickle(socket: net.Socket, text: string, everyMs: number): () => void {
  let next = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || next >= text.length) return clearInterval(timer);
    socket.write(text[next++]);
  }, everyMs);
  return () => clearInterval(timer);
}

/** A keep-alive GET /healthz on `connection`, answered 200 (the connection then stays open). */
async function healthz(connection: Connection): Promise<void> {
  const before = connection.received().length;
  const answer = () => connection.received().slice(before);
  connection.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await within(
    new Promise<void>((resolve) => {
      const check = () => (answer().includes('"status":"ok"') || connection.socket.destroyed ? resolve() : setTimeout(check, 10));
      check();
    }),
    5000,
    'GET /healthz answered',
  );
  expect(parseAnswer(answer())).toEqual({ status: 200, body: { status: 'ok' } });
}

/** GET /healthz on a new connection from `address`: 'ok' when answered 200, 'refused' when closed without a byte. */
async function tryConnection(address: string): Promise<'ok' | 'refused'> {
  const connection = await connect(address);
  connection.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  const { data } = await within(connection.closed, 5000, `a connection from ${address} closed`);
  if (data === '') return 'refused';
  expect(parseAnswer(data)).toEqual({ status: 200, body: { status: 'ok' } });
  return 'ok';
}

const TIMEOUT_BODY = { success: false, error: { code: 'timeout', message: expect.stringContaining('not received in time') } };

test('a slowloris connection (headers one byte at a time, never finished) is answered 408 and closed after the headers timeout', async () => {
  const connection = await connect(SLOW);
  const opened = Date.now();
  const stop = trickle(connection.socket, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(500)}`, 100);
  // Node's default would be 60 s; moleculer-web's request timeout, 300 s.
  const { at, data } = await within(connection.closed, 10_000, 'the slowloris connection closed');
  stop();
  expect(parseAnswer(data)).toEqual({ status: 408, body: TIMEOUT_BODY });
  // The bytes it kept sending did not extend it, and it was the headers timeout, not the later request timeout.
  expect(at - opened).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
  expect(at - opened).toBeLessThan(REQUEST_TIMEOUT_MS);
});

test('a POST whose body trickles is answered 408 and closed after the request timeout', async () => {
  const connection = await connect(SLOW);
  const opened = Date.now();
  const body = JSON.stringify({ url: h.pageUrl, title: 'x'.repeat(100) });
  connection.socket.write(
    'POST /api/v1/campaigns HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      `Authorization: Bearer ${customer.key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
  );
  const stop = trickle(connection.socket, body, 100);
  const { at, data } = await within(connection.closed, 15_000, 'the slow POST closed');
  stop();
  expect(parseAnswer(data)).toEqual({ status: 408, body: TIMEOUT_BODY });
  // Complete headers stopped the headers timeout; the whole request's ran on.
  expect(at - opened).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
});

test('malformed HTTP and oversized headers are answered in the documented error body too, then closed', async () => {
  const malformed = await connect(SLOW);
  malformed.socket.write('NOT HTTP AT ALL\r\n\r\n');
  expect(parseAnswer((await within(malformed.closed, 5000, 'the malformed request closed')).data)).toEqual({
    status: 400,
    body: { success: false, error: { code: 'invalid_input', message: 'The request is not valid HTTP/1.1.' } },
  });
  const oversized = await connect(SLOW);
  oversized.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
  expect(parseAnswer((await within(oversized.closed, 5000, 'the oversized request closed')).data)).toEqual({
    status: 431,
    body: { success: false, error: { code: 'invalid_input', message: 'The request headers are too large.' } },
  });
});

test(`the ${CAP + 1}th connection from one address is refused while ${CAP} are open, and accepted again once one closes`, async () => {
  const held = await Promise.all(Array.from({ length: CAP }, () => connect(CAPPED)));
  await Promise.all(held.map(healthz));

  expect(await tryConnection(CAPPED)).toBe('refused');
  // The cap is per address: another client is served meanwhile, and the held connections still are.
  expect(await tryConnection(OTHER)).toBe('ok');
  await healthz(held[1]);

  held[0].socket.destroy();
  await held[0].closed;
  // The server counts the close when it sees it; a few tries at most.
  let outcome: 'ok' | 'refused' = 'refused';
  for (let attempt = 0; attempt < 20 && outcome === 'refused'; attempt += 1) {
    outcome = await tryConnection(CAPPED);
    if (outcome === 'refused') await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(outcome).toBe('ok');
  for (const connection of held) connection.socket.destroy();
});

test('a trusted proxy is not capped: every client behind it shares its address', async () => {
  const held = await Promise.all(Array.from({ length: CAP + 2 }, () => connect(PROXY)));
  await Promise.all(held.map(healthz));
  expect(await tryConnection(PROXY)).toBe('ok');
  for (const connection of held) connection.socket.destroy();
});

test('normal requests still work: reads, and a create whose body arrives in parts within the timeout', async () => {
  expect((await h.request('GET', '/healthz')).status).toBe(200);
  const created = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl } });
  expect(created.status).toBe(201);
  const read = await h.request('GET', `/api/v1/campaigns/${created.body.campaign_id}`, { key: customer.key });
  expect(read.status).toBe(200);

  const connection = await connect(SLOW);
  const body = JSON.stringify({ url: h.pageUrl });
  connection.socket.write(
    'POST /api/v1/campaigns HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n' +
      `Authorization: Bearer ${customer.key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
  );
  const third = Math.ceil(body.length / 3);
  for (const part of [body.slice(0, third), body.slice(third, 2 * third), body.slice(2 * third)]) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    connection.socket.write(part);
  }
  const { data } = await within(connection.closed, 10_000, 'the POST in parts answered');
  expect(parseAnswer(data)).toMatchObject({ status: 201, body: { success: true, status: 'collecting' } });
});
