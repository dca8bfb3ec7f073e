/**
 * Render slots across the cluster, and the one choice of the node for each `renderer.renderVideo` call.
 *
 * Each render node announces its slots (RENDER_CONCURRENCY, in its service metadata) and how many are
 * busy (the `renderer.slots` event, sent on every change). The caller's table adds the calls it has just
 * sent a node that the node has not yet reported. A render goes to the node with the most free slots,
 * skipping nodes the caller asked to avoid (where this video already failed), round-robin among equals. A node that is full anyway (a race with another caller) refuses with RENDERER_BUSY, and
 * the caller waits for a free slot.
 *
 * Besides its slots, each node has EXPRESS_RENDER_SLOTS for the renders of a stage's express turn (lib/campaign/
 * fair-order.ts pickExpress: one campaign of an organization with no backlog, while every slot is held), counted
 * apart: an express render never takes a slot the stage's turns granted to others, nor waits for one.
 */
import type { ServiceBroker } from 'moleculer';

/** Renders a node runs past its slots, for express turns only. One: the memory of one more render fits (bench/fairness). */
export const EXPRESS_RENDER_SLOTS = 1;

/** A reservation not confirmed by a node's report within this time is dropped. */
const RESERVATION_TTL_MS = 10_000;

export interface SlotReport {
  nodeID: string;
  slots: number;
  /** Renders in the node's slots. */
  busy: number;
  /** Renders in its express slot (absent: none, or a node from before it). */
  expressBusy?: number;
}
export interface RenderMeta {
  renderAvoidNodes?: string[];
  /** The render is an express turn's: the node runs it in its express slot. */
  express?: boolean;
}

export class RenderSlotTable {
  private readonly reports = new Map<string, { slots: number; busy: number; expressBusy: number; receivedAt: number }>();
  /** Calls sent and not yet counted in a report, by node; an express call's under the node's id + EXPRESS. */
  private readonly reservations = new Map<string, number[]>();
  private waiters: Array<() => void> = [];

  report({ nodeID, slots, busy, expressBusy = 0 }: SlotReport): void {
    const receivedAt = Date.now();
    this.reports.set(nodeID, { slots, busy, expressBusy, receivedAt });
    // The node's report counts every call it had received by then; ours made before it are in it.
    for (const key of [nodeID, expressKey(nodeID)])
      this.reservations.set(
        key,
        (this.reservations.get(key) ?? []).filter((at) => at > receivedAt),
      );
    this.notify();
  }

  forget(nodeID: string): void {
    this.reports.delete(nodeID);
    this.reservations.delete(nodeID);
    this.reservations.delete(expressKey(nodeID));
    this.notify();
  }

  reserve(nodeID: string, express = false): void {
    const key = express ? expressKey(nodeID) : nodeID;
    const list = this.reservations.get(key) ?? [];
    list.push(Date.now());
    this.reservations.set(key, list);
  }

  /** A call to the node ended (answered or failed): its reservation, if still held, is given back. */
  settle(nodeID: string, express = false): void {
    this.reservations.get(express ? expressKey(nodeID) : nodeID)?.shift();
    this.notify();
  }

  /** The node's free slots (its express slot's, for an express render). */
  free(nodeID: string, declaredSlots: number, express = false): number {
    const now = Date.now();
    const pending = (this.reservations.get(express ? expressKey(nodeID) : nodeID) ?? []).filter(
      (at) => now - at < RESERVATION_TTL_MS,
    ).length;
    const reported = this.reports.get(nodeID);
    if (express) return EXPRESS_RENDER_SLOTS - (reported?.expressBusy ?? 0) - pending;
    const slots = reported?.slots ?? declaredSlots;
    return slots - (reported?.busy ?? 0) - pending;
  }

  snapshot(): Array<SlotReport & { reserved: number }> {
    return [...this.reports].map(([nodeID, r]) => ({
      nodeID,
      slots: r.slots,
      busy: r.busy,
      expressBusy: r.expressBusy,
      reserved: (this.reservations.get(nodeID)?.length ?? 0) + (this.reservations.get(expressKey(nodeID))?.length ?? 0),
    }));
  }

  /** Resolves on the next change of any node's slots, or after `ms`. */
  changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(done);
    });
  }

  private notify(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const wake of waiting) wake();
  }
}

function expressKey(nodeID: string): string {
  return `${nodeID}\u0000express`;
}

const tables = new WeakMap<ServiceBroker, RenderSlotTable>();

export function slotTableOf(broker: ServiceBroker): RenderSlotTable {
  let table = tables.get(broker);
  if (!table) {
    table = new RenderSlotTable();
    tables.set(broker, table);
  }
  return table;
}

interface EndpointLike {
  id: string;
  service?: { metadata?: Record<string, unknown> };
}

export function declaredSlots(endpoint: EndpointLike): number {
  const slots = Number(endpoint.service?.metadata?.renderSlots);
  return Number.isInteger(slots) && slots > 0 ? slots : 1;
}

/**
 * The node for the next render: the most free slots among nodes not to avoid, round-robin among equals;
 * nodes to avoid only when no other has a free slot. With `requireFree`, null when no node has one.
 */
export function chooseRenderNode<E extends EndpointLike>(
  list: E[],
  table: RenderSlotTable,
  avoid: string[],
  turn: number,
  requireFree: boolean,
  express = false,
): E | null {
  const scored = list.map((endpoint) => ({
    endpoint,
    free: table.free(endpoint.id, declaredSlots(endpoint), express),
    avoided: avoid.includes(endpoint.id),
  }));
  const rank = (s: { free: number; avoided: boolean }) => (s.free > 0 ? (s.avoided ? 1 : 2) : 0);
  const bestRank = Math.max(...scored.map(rank));
  if (requireFree && bestRank === 0) return null;
  const tier = scored.filter((s) => rank(s) === bestRank);
  const most = Math.max(...tier.map((s) => s.free));
  const equals = tier.filter((s) => s.free === most);
  return equals.length ? equals[turn % equals.length].endpoint : null;
}

/**
 * The one way a render node is chosen (the rendering stage calls it, then names the node in its call):
 * the freest node with a free slot, as chooseRenderNode decides, reserved at once so that the next choice
 * in the same tick goes elsewhere. Null while no node has a free slot. An express render looks at the express slots.
 */
export function takeRenderNode<E extends EndpointLike>(
  list: E[],
  table: RenderSlotTable,
  avoid: string[],
  turn: number,
  express = false,
): E | null {
  const chosen = chooseRenderNode(list, table, avoid, turn, true, express);
  if (chosen) table.reserve(chosen.id, express);
  return chosen;
}
