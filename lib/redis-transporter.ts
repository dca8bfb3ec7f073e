/**
 * Moleculer's Redis transporter, with its connections kept to one subscriber and one publisher.
 *
 * Moleculer 0.15.2 creates a new publisher each time its subscriber becomes ready, which happens on
 * every reconnect, and it never closes the one before. After each Redis restart a node keeps one more
 * connection open, reconnecting forever. broker.stop() closes only the newest. This subclass closes
 * the connection it replaces (once what it still has queued is sent) and, on disconnect, every
 * connection it still holds. A publish its client rejects is logged, never left unhandled (see send()).
 *
 * Subscriptions wait for the subscriber to be ready (see subscribe()): Moleculer subscribes again after every
 * reconnect, and a SUBSCRIBE sent during the subscriber's handshake (ioredis lets it through while the connection
 * is still `connect`) puts the connection in subscriber mode before its own ready check (INFO) has run; the
 * check is then refused, the connection dropped, and the SUBSCRIBE rejected. Moleculer does not handle that
 * rejection, and an unhandled rejection ends a Node 22 process (issue 25: a node died on a Redis restart under load).
 */
import { Transporters } from 'moleculer';
import type Redis from 'ioredis';

const MoleculerRedis = Transporters.Redis as unknown as new (opts?: unknown) => {
  getRedisClient(opts: unknown): Redis;
  getTopicName(cmd: string, nodeID?: string): string;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(topic: string, data: Buffer): Promise<void>;
  clientPub?: Redis;
  clientSub?: Redis;
  nodeID?: string;
  logger: { warn(...args: unknown[]): void; debug(...args: unknown[]): void };
};

export const TRANSPORTER_NAME = 'RedisSingleConnection';

export class RedisSingleConnectionTransporter extends MoleculerRedis {
  private readonly held: { subscriber?: Redis; publisher?: Redis } = {};
  private readonly retiring = new Set<Redis>();
  /** ioredis's own listeners on each client, there before Moleculer adds its handlers. */
  private readonly ownListeners = new WeakMap<Redis, Set<unknown>>();
  private nextIsSubscriber = false;

  /** Moleculer's connect() asks for the subscriber first, synchronously; every later client is a publisher. */
  override connect(): Promise<void> {
    this.nextIsSubscriber = true;
    return super.connect();
  }

  override getRedisClient(opts: unknown): Redis {
    const client = super.getRedisClient(opts);
    this.ownListeners.set(client, new Set(MOLECULER_EVENTS.flatMap((event) => client.rawListeners(event))));
    const role = this.nextIsSubscriber ? 'subscriber' : 'publisher';
    this.nextIsSubscriber = false;
    // Named in Redis's CLIENT LIST (`<node id>:<role>`), so an operator sees whose each connection is. ioredis
    // sends the name once connected (after this synchronous return) and again on every reconnect.
    client.options.connectionName = `${this.nodeID ?? 'node'}:${role}`.replace(/[^\x21-\x7e]/g, '_');
    const previous = this.held[role];
    this.held[role] = client;
    if (previous && previous !== client) this.retire(previous);
    return client;
  }

  override async disconnect(): Promise<void> {
    await super.disconnect();
    for (const role of ['subscriber', 'publisher'] as const) {
      const client = this.held[role];
      delete this.held[role];
      client?.disconnect();
    }
    for (const client of this.retiring) client.disconnect();
  }

  /**
   * Moleculer's send() starts the PUBLISH and answers at once, leaving the command's promise unhandled:
   * a publish that the client rejects (its connection closed with the packet still queued, as happens
   * around a Redis restart and at disconnect) became an unhandled rejection, which ends a Node 22 process.
   * The same fire-and-forget send, with the rejection logged.
   */
  override send(topic: string, data: Buffer): Promise<void> {
    const client = this.clientPub;
    if (!client) return super.send(topic, data);
    client.publish(topic, data).catch((err: Error) => this.logger.warn(`Redis publish to ${topic} failed: ${err.message}`));
    return Promise.resolve();
  }

  /**
   * Moleculer's subscribe() sends SUBSCRIBE at once and drops its promise. Here it is sent only once the
   * subscriber is ready, and a rejected one (the connection dropped meanwhile) is sent again on the next ready,
   * so a reconnect never loses a subscription nor leaves a rejection unhandled. It resolves once Redis confirmed
   * the subscription, or when the subscriber is closed for good (the broker stopping, or the client replaced).
   */
  subscribe(cmd: string, nodeID?: string): Promise<void> {
    return this.subscribeWhenReady(this.getTopicName(cmd, nodeID));
  }

  private async subscribeWhenReady(topic: string): Promise<void> {
    for (;;) {
      const client = this.held.subscriber ?? this.clientSub;
      if (!client || client.status === 'end' || this.retiring.has(client)) return;
      if (client.status !== 'ready' && !(await readyOrEnded(client))) continue;
      try {
        // A connection that closes before Redis answered may leave the command unsettled: that counts as a failure.
        if (await settledBeforeClose(client, client.subscribe(topic))) return;
        this.logger.warn(`Redis subscribe to ${topic} unanswered before its connection closed; subscribing again once reconnected`);
      } catch (err) {
        this.logger.warn(`Redis subscribe to ${topic} failed (${(err as Error).message}); subscribing again once reconnected`);
      }
    }
  }

  /** For tests: the connections this transporter holds that are not closed. */
  openConnections(): Redis[] {
    return Object.values(this.held).filter((client): client is Redis => !!client && client.status !== 'end');
  }

  /**
   * Moleculer's handlers come off first: they belong to the transporter's current state, and a retired
   * client must not mark it disconnected or connected. Then QUIT, queued behind what the client still
   * holds (packets sent while Redis was away), so nothing already handed to it is rejected.
   */
  private retire(client: Redis): void {
    const own = this.ownListeners.get(client);
    for (const event of MOLECULER_EVENTS) {
      for (const listener of client.rawListeners(event)) {
        if (!own?.has(listener)) client.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
    client.on('error', () => undefined);
    this.retiring.add(client);
    client.once('end', () => this.retiring.delete(client));
    client.quit().catch(() => client.disconnect());
  }
}

/**
 * Resolves true once the client is ready, false once it has ended (closed for good, no reconnect). A connection
 * that drops in between keeps waiting: ioredis reconnects it and fires `ready` again.
 */
function readyOrEnded(client: Redis): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  if (client.status === 'end') return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (ready: boolean) => {
      client.off('ready', onReady);
      client.off('end', onEnd);
      resolve(ready);
    };
    const onReady = () => settle(true);
    const onEnd = () => settle(false);
    client.once('ready', onReady);
    client.once('end', onEnd);
  });
}

/** True once `command` resolved, false if the client's connection closed first; rejects as the command does. */
function settledBeforeClose(client: Redis, command: Promise<unknown>): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onClose = () => resolve(false);
    client.once('close', onClose);
    command.then(
      () => {
        client.off('close', onClose);
        resolve(true);
      },
      (err: unknown) => {
        client.off('close', onClose);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** The events Moleculer's Redis transporter listens to on its clients. */
const MOLECULER_EVENTS = ['ready', 'error', 'close', 'messageBuffer'] as const;

// Moleculer's typings ask for an instance; register() keeps the class it is given and constructs it.
Transporters.register(TRANSPORTER_NAME, RedisSingleConnectionTransporter as unknown as Transporters.Base);

/** The broker's transporter option: redis:// URLs go through the transporter above; anything else as given. */
export function transporterOption(transporter: string | undefined): string | { type: string; options: string } | undefined {
  if (transporter && /^rediss?:\/\//.test(transporter)) return { type: TRANSPORTER_NAME, options: transporter };
  return transporter;
}
