/**
 * The Redis transporter (lib/net/redis-transporter.ts) around a Redis restart, on the real Redis: a PUBLISH its client
 * rejects is logged, never left as an unhandled rejection (which ends a Node 22 process); a subscription made during
 * the subscriber's handshake waits for it; an answer made while the connection is down is held, not dropped.
 */
import Redis from 'ioredis';
import { ServiceBroker } from 'moleculer';
import { transporterOption, type RedisSingleConnectionTransporter } from '../../lib/net/redis-transporter';
import { TEST_REDIS_URL, uniqueName } from '../support/harness';

/** The transporter's parts these tests reach into. */
type TestTransporter = RedisSingleConnectionTransporter & {
  clientPub: Redis;
  clientSub: Redis;
  getTopicName(cmd: string, nodeID?: string): string;
  onConnected(wasReconnect?: boolean): Promise<void>;
  connected: boolean;
  logger: { warn: (...args: unknown[]) => void };
};

/** A broker on the real Redis through our transporter, in a namespace of its own unless one is given. */
function redisBroker(name: string, namespace = uniqueName('tx')): ServiceBroker {
  return new ServiceBroker({ namespace, nodeID: uniqueName(name), logger: false, transporter: transporterOption(TEST_REDIS_URL) as any });
}
const transporterOf = (broker: ServiceBroker) => broker.transit!.tx as unknown as TestTransporter;

test('a publish the Redis client rejects is logged, not left unhandled', async () => {
  const broker = redisBroker('tx-node');
  await broker.start();
  const tx = transporterOf(broker);
  const warnings: string[] = [];
  tx.logger.warn = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    tx.clientPub.disconnect();
    await tx.send('MOL-test.PROBE', Buffer.from('probe'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(unhandled).toEqual([]);
    expect(warnings).toContainEqual(expect.stringMatching(/^Redis publish to MOL-test\.PROBE failed: Connection is closed/));
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await broker.stop().catch(() => undefined);
  }
});

/**
 * After a reconnect, Moleculer subscribes again; a SUBSCRIBE that reaches the subscriber during its
 * handshake (before its ready check, INFO, has run) puts it in subscriber mode, the INFO is refused, the
 * connection is dropped, and the SUBSCRIBE rejected, which Moleculer left unhandled (a Node 22 process ends
 * on it). The subscriber's ready check is held here so that the SUBSCRIBE comes first, as under load.
 */
test('a subscribe made during the subscriber handshake waits for it to be ready, and nothing is left unhandled', async () => {
  const broker = redisBroker('tx-node');
  await broker.start();
  const tx = transporterOf(broker);
  tx.logger.warn = () => undefined;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const sub = tx.clientSub;
  // ioredis's private ready check (INFO), run once a connection's handshake is done.
  type ReadyCallback = (err: Error | null, info?: unknown) => void;
  const internals = sub as unknown as { _readyCheck(callback: ReadyCallback): void; stream: { destroy(): void } };
  const originalReadyCheck = internals._readyCheck.bind(sub);
  const held: Array<() => void> = [];
  let holding = true;
  internals._readyCheck = (callback: ReadyCallback) => {
    if (holding) held.push(() => originalReadyCheck(callback));
    else originalReadyCheck(callback);
  };
  try {
    // The subscriber's connection drops (as on a Redis restart) and reconnects; its ready check is held.
    internals.stream.destroy();
    const deadline = Date.now() + 10_000;
    while (held.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(held).toHaveLength(1);
    expect(sub.status).toBe('connect');

    // Moleculer's re-subscription arrives now, during the handshake.
    const subscribed = tx.subscribe('PROBE', 'subscriber-race');
    await new Promise((resolve) => setTimeout(resolve, 100));
    holding = false;
    for (const release of held.splice(0)) release();
    await subscribed;

    // The subscription holds: a message published on its topic reaches the transporter.
    const topic = tx.getTopicName('PROBE', 'subscriber-race');
    const received = new Promise<string>((resolve) =>
      sub.on('messageBuffer', (channel: Buffer, message: Buffer) => {
        if (channel.toString() === topic) resolve(message.toString());
      }),
    );
    const publisher = new Redis(TEST_REDIS_URL);
    let message: string;
    try {
      await publisher.publish(topic, 'hello');
      message = await Promise.race([received, new Promise<string>((resolve) => setTimeout(() => resolve('nothing'), 5_000))]);
    } finally {
      publisher.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect({ message, unhandled: unhandled.map(String) }).toEqual({ message: 'hello', unhandled: [] });
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await broker.stop().catch(() => undefined);
  }
});

/**
 * Found by bench/redis-soak: Moleculer silently drops a RESPONSE sent while its node's transporter is
 * down, and the caller waits for its timeout (a render's: minutes). Ours holds the answer until the connection is
 * back. The outage is the transporter's own flag here (what its connection's close sets), so the order is certain.
 */
test('an answer made while the transporter is down is sent once it is back, not dropped', async () => {
  const namespace = uniqueName('tx');
  const caller = redisBroker('caller', namespace);
  const answering = redisBroker('answering', namespace);
  let release: () => void = () => undefined;
  const handled = new Promise<void>((resolve) => (release = resolve));
  answering.createService({
    name: 'slow',
    actions: {
      async answer() {
        // The node loses its connection while it works, and answers during the outage.
        transporterOf(answering).connected = false;
        release();
        return 'the answer';
      },
    },
  });
  await Promise.all([caller.start(), answering.start()]);
  try {
    await caller.waitForServices(['slow'], 10_000, 50);
    const call = caller.call<string, Record<string, never>>('slow.answer', {}, { timeout: 15_000, retries: 0 });
    await handled;
    const early = await Promise.race([call.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('held'), 1000))]);
    // The connection is back (as the transporter's onConnected says after a reconnect): the held answer goes out.
    await transporterOf(answering).onConnected(true);
    expect({ early, answer: await call }).toEqual({ early: 'held', answer: 'the answer' });
  } finally {
    await Promise.allSettled([caller.stop(), answering.stop()]);
  }
});
