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
 * rejection, and an unhandled rejection ends a Node 22 process (a node died on a Redis restart under load).
 *
 * And nothing a node answers is dropped for being sent while the connection is down (see prepublish()): Moleculer
 * silently skips a RESPONSE then, and its caller waits for its timeout (a render's: minutes). Packets go through the
 * newest publisher, whose client queues them until it is ready, not the one being retired (see send()).
 */
import { Transporters } from 'moleculer';
import type Redis from 'ioredis';
import { messageOf } from '../errors';

const MoleculerRedis = Transporters.Redis as unknown as new (opts?: unknown) => {
  getRedisClient(opts: unknown): Redis;
  getTopicName(cmd: string, nodeID?: string): string;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(topic: string, data: Buffer): Promise<void>;
  prepublish(packet: OutgoingPacket): Promise<void>;
  onConnected(wasReconnect?: boolean): Promise<void>;
  connected: boolean;
  clientPub?: Redis;
  clientSub?: Redis;
  nodeID?: string;
  logger: { warn(...args: unknown[]): void };
};

export const TRANSPORTER_NAME = 'RedisSingleConnection';

/** The fields of Moleculer's outgoing packet read here (`RES` is a RESPONSE). */
interface OutgoingPacket {
  type: string;
  target?: string | null;
}

/** How long an answer made while the connection is down waits for it before it is given up (and logged). */
const RESPONSE_HOLD_MS = 60_000;

export class RedisSingleConnectionTransporter extends MoleculerRedis {
  private readonly held: { subscriber?: Redis; publisher?: Redis } = {};
  private readonly retiring = new Set<Redis>();
  /** ioredis's own listeners on each client, there before Moleculer adds its handlers. */
  private readonly ownListeners = new WeakMap<Redis, Set<unknown>>();
  private nextIsSubscriber = false;
  /** Answers held while disconnected: each resolves when the connection is back (or the hold runs out). */
  private waitingForConnection: Array<(connected: boolean) => void> = [];
  /** Set by disconnect(): the broker is stopping, and no answer waits for a reconnect. */
  private leaving = false;
  /** One wait per client for its next `ready`, and one for its next `close`, shared by every subscription waiting. */
  private readonly readyWaits = new WeakMap<Redis, Promise<boolean>>();
  private readonly closeWaits = new WeakMap<Redis, Promise<void>>();

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
    // Leaving on purpose: nothing more is held for a connection that is not coming back.
    this.leaving = true;
    for (const wake of this.waitingForConnection.splice(0)) wake(false);
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
    // The newest publisher, even before it is ready (ioredis queues until then): the previous one is being retired.
    const client = this.held.publisher ?? this.clientPub;
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
      if (client.status !== 'ready' && !(await this.readyOrEnded(client))) continue;
      try {
        // A connection that closes before Redis answered may leave the command unsettled: that counts as a failure.
        if (await settledBeforeClose(client.subscribe(topic), this.nextClose(client))) return;
        this.logger.warn(`Redis subscribe to ${topic} unanswered before its connection closed; subscribing again once reconnected`);
      } catch (err) {
        this.logger.warn(`Redis subscribe to ${topic} failed (${messageOf(err)}); subscribing again once reconnected`);
      }
    }
  }

  /**
   * While the connection is down Moleculer drops every packet but a request, an event or a ping (those reject, and
   * their senders decide). A dropped RESPONSE leaves its caller waiting for its timeout; here it waits for the
   * connection instead (at most RESPONSE_HOLD_MS) and is then sent. INFO, HEARTBEAT and the like are sent anew on
   * reconnect anyway, and are dropped as before.
   */
  override prepublish(packet: OutgoingPacket): Promise<void> {
    if (this.connected || this.leaving || packet.type !== 'RES') return super.prepublish(packet);
    return this.whenConnected().then((connected) => {
      if (connected) return super.prepublish(packet);
      const why = this.leaving ? 'the node is leaving' : `no transporter connection for ${RESPONSE_HOLD_MS / 1000} s`;
      this.logger.warn(`an answer to ${String(packet.target)} was dropped: ${why}`);
    });
  }

  override onConnected(wasReconnect?: boolean): Promise<void> {
    const result = super.onConnected(wasReconnect);
    const waiting = this.waitingForConnection;
    this.waitingForConnection = [];
    for (const wake of waiting) wake(true);
    return result;
  }

  private whenConnected(): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waitingForConnection = this.waitingForConnection.filter((wake) => wake !== settle);
        resolve(false);
      }, RESPONSE_HOLD_MS);
      timer.unref(); // a held answer never keeps a stopping process alive
      const settle = (connected: boolean) => {
        clearTimeout(timer);
        resolve(connected);
      };
      this.waitingForConnection.push(settle);
    });
  }

  /** The client's next `ready` (true) or its end (false), one wait shared by every caller. */
  private readyOrEnded(client: Redis): Promise<boolean> {
    let wait = this.readyWaits.get(client);
    if (!wait) {
      wait = readyOrEnded(client).finally(() => this.readyWaits.delete(client));
      this.readyWaits.set(client, wait);
    }
    return wait;
  }

  /** The client's next `close`, one wait shared by every subscription in flight on it. */
  private nextClose(client: Redis): Promise<void> {
    let wait = this.closeWaits.get(client);
    if (!wait) {
      wait = new Promise<void>((resolve) => client.once('close', () => resolve())).finally(() => this.closeWaits.delete(client));
      this.closeWaits.set(client, wait);
    }
    return wait;
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
    // QUIT once the client is connected. ioredis 5 answers a QUIT sent between connections (Redis away) with an empty
    // offline queue by disconnect(), which stops the reconnecting without ever ending the client: it would stay
    // `reconnecting` for good, and its packets queued meanwhile would be lost.
    void this.readyOrEnded(client).then((ready) => {
      if (ready) client.quit().catch(() => client.disconnect());
    });
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

/** True once `command` resolved, false if the connection closed first; rejects as the command does. */
function settledBeforeClose(command: Promise<unknown>, closed: Promise<void>): Promise<boolean> {
  return new Promise((resolve, reject) => {
    void closed.then(() => resolve(false));
    command.then(
      () => resolve(true),
      (err: unknown) => reject(err instanceof Error ? err : new Error(String(err))),
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
