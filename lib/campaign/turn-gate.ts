/**
 * One node's side of the stages' turn queue (lib/campaign/turns.ts): the campaign actor's stage calls wait here for
 * their turn. A loop per stage, running only while this node has turns waiting in it, grants what the stage's capacity
 * allows (any node may grant: the queue and its lock are in the database) and wakes the waiters whose turns were
 * granted. It runs when a turn is queued, when any node says a stage's turns changed (a turn released or granted:
 * `announce`, a broadcast), and every `pollMs` otherwise (a node that died says nothing). The node renews the leases
 * of the turns it holds while it lives; stopping, it gives them back at once.
 */
import { StageInterruptedError } from '../errors';
import type { GeneratingState } from './states';
import {
  abandonTurns,
  grantTurns,
  heldTurns,
  queueTurn,
  releaseTurn,
  renewTurns,
  turnKey,
  type NewTurn,
  type TurnKey,
  type TurnsDb,
} from './turns';

export interface TurnGateOptions {
  db: TurnsDb;
  nodeID: string;
  /** A turn's lease (the campaign lease's length): how long a dead node's turns stay its own. */
  leaseMs: number;
  /** How often waiting turns are looked at without being woken. */
  pollMs: number;
  /** The stage's capacity across the cluster now. */
  capacityOf(stage: GeneratingState): number;
  /** Whether a full stage grants its express turn (grantTurns); true unless said otherwise. */
  express?: boolean;
  /** Tells every node (this one included) that the stage's turns changed: a broadcast that ends in wake(). */
  announce(stage: GeneratingState): void;
  warn(message: string): void;
}

/** How a turn was granted: within the stage's capacity, or as its express turn (lib/campaign/fair-order.ts pickExpress). */
export interface Grant {
  express: boolean;
}

interface Waiter {
  resolve(grant: Grant): void;
  reject(err: Error): void;
}

export class TurnGate {
  private readonly waiters = new Map<GeneratingState, Map<string, Waiter>>();
  private readonly loops = new Set<GeneratingState>();
  private readonly wakers = new Map<GeneratingState, () => void>();
  private readonly woken = new Set<GeneratingState>();
  /** Turns this node holds (waiting or granted): the leases are renewed while there are any. */
  private held = 0;
  private renewTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly options: TurnGateOptions) {}

  /** Resolves once the turn is granted; StageInterruptedError when it was withdrawn (the campaign ended, or another actor took it) or the node stops. */
  async take(turn: NewTurn): Promise<Grant> {
    // Counted before anything can fail: the caller's release (always made) uncounts it.
    this.hold(1);
    if (this.stopped) throw new StageInterruptedError('campaign actor stopping');
    await queueTurn(this.options.db, turn, this.options.nodeID, this.options.leaseMs);
    // Stopped meanwhile: no loop will look at this turn again (stop gave it back).
    if (this.stopped) throw new StageInterruptedError('campaign actor stopping');
    const stage = turn.stage;
    const waiting = this.waiters.get(stage) ?? new Map<string, Waiter>();
    this.waiters.set(stage, waiting);
    const key = turnKey(turn.campaignId, turn.lane);
    return new Promise<Grant>((resolve, reject) => {
      waiting.set(key, { resolve, reject });
      this.run(stage);
    }).finally(() => waiting.delete(key));
  }

  /** The stage returned or threw: the turn goes, and every node grants what it freed. */
  async release(key: TurnKey): Promise<void> {
    this.hold(-1);
    // Stopping: the turns were given back with their places (stop), for the actor that takes the campaign over.
    if (this.stopped) return;
    await releaseTurn(this.options.db, key, this.options.nodeID);
    this.options.announce(key.stage);
  }

  /** Some node changed the stage's turns. */
  wake(stage: GeneratingState): void {
    if (!this.loops.has(stage)) return;
    this.woken.add(stage);
    this.wakers.get(stage)?.();
  }

  /** The node stops: its waiters are told (the campaigns wait, to be resumed elsewhere), and its turns' leases end now. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.renewTimer);
    for (const waiting of this.waiters.values()) {
      for (const waiter of waiting.values()) waiter.reject(new StageInterruptedError('campaign actor stopping'));
      waiting.clear();
    }
    for (const wake of this.wakers.values()) wake();
    await abandonTurns(this.options.db, this.options.nodeID).catch((err: Error) =>
      this.options.warn(`turns not given back: ${err.message}`),
    );
  }

  private hold(change: number) {
    this.held = Math.max(0, this.held + change);
    if (this.held > 0 && !this.renewTimer && !this.stopped) {
      this.renewTimer = setInterval(
        () => {
          renewTurns(this.options.db, this.options.nodeID, this.options.leaseMs).catch((err: Error) =>
            this.options.warn(`turn leases not renewed: ${err.message}`),
          );
        },
        Math.max(500, Math.floor(this.options.leaseMs / 3)),
      );
      this.renewTimer.unref();
    } else if (this.held === 0 && this.renewTimer) {
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
    }
  }

  /** Starts the stage's loop, or wakes it. */
  private run(stage: GeneratingState) {
    if (this.loops.has(stage)) {
      this.wake(stage);
      return;
    }
    this.loops.add(stage);
    void this.loop(stage);
  }

  private async loop(stage: GeneratingState) {
    const waiting = this.waiters.get(stage)!;
    while (!this.stopped && waiting.size > 0) {
      this.woken.delete(stage);
      try {
        const { db, nodeID } = this.options;
        const granted = await grantTurns(db, stage, this.options.capacityOf(stage), { express: this.options.express ?? true });
        // Granted to other nodes' waiters too: they are told.
        if (granted.some((key) => !waiting.has(key))) this.options.announce(stage);
        const held = await heldTurns(db, stage, nodeID);
        for (const [key, waiter] of waiting) {
          const state = held.get(key);
          if (state === undefined) {
            waiting.delete(key);
            waiter.reject(new StageInterruptedError('its turn was withdrawn: the campaign ended, or another actor took it'));
          } else if (state !== 'waiting') {
            waiting.delete(key);
            waiter.resolve({ express: state === 'express' });
          }
        }
      } catch (err) {
        this.options.warn(`turns of ${stage} not granted now: ${(err as Error).message}`);
      }
      if (waiting.size === 0 || this.stopped || this.woken.has(stage)) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.options.pollMs);
        const wakers = this.wakers;
        function done() {
          clearTimeout(timer);
          wakers.delete(stage);
          resolve();
        }
        this.wakers.set(stage, done);
      });
    }
    // In the same tick as the last look at the waiters: a turn queued from now on starts a loop of its own.
    this.loops.delete(stage);
  }
}
