/**
 * Render slots across the cluster, and the one choice of the node for each `renderer.renderVideo` call.
 *
 * Each render node announces its slots (RENDER_CONCURRENCY, in its service metadata) and how many are
 * busy (the `renderer.slots` event, sent on every change). The caller's table adds the calls it has just
 * sent a node that the node has not yet reported. A render goes to the node with the most free slots,
 * skipping nodes the caller asked to avoid (where this video already failed), round-robin among equals. A node that is full anyway (a race with another caller) refuses with RENDERER_BUSY, and
 * the caller waits for a free slot.
 */
import type { ServiceBroker } from 'moleculer';

/** A reservation not confirmed by a node's report within this time is dropped. */
const RESERVATION_TTL_MS = 10_000;

export interface SlotReport {
  nodeID: string;
  slots: number;
  busy: number;
}
export interface RenderMeta {
  renderAvoidNodes?: string[];
}

export class RenderSlotTable {
  private readonly reports = new Map<string, { slots: number; busy: number; receivedAt: number }>();
  private readonly reservations = new Map<string, number[]>();
  private waiters: Array<() => void> = [];

  report({ nodeID, slots, busy }: SlotReport): void {
    const receivedAt = Date.now();
    this.reports.set(nodeID, { slots, busy, receivedAt });
    // The node's report counts every call it had received by then; ours made before it are in it.
    this.reservations.set(
      nodeID,
      (this.reservations.get(nodeID) ?? []).filter((at) => at > receivedAt),
    );
    this.notify();
  }

  forget(nodeID: string): void {
    this.reports.delete(nodeID);
    this.reservations.delete(nodeID);
    this.notify();
  }

  reserve(nodeID: string): void {
    const list = this.reservations.get(nodeID) ?? [];
    list.push(Date.now());
    this.reservations.set(nodeID, list);
  }

  /** A call to the node ended (answered or failed): its reservation, if still held, is given back. */
  settle(nodeID: string): void {
    this.reservations.get(nodeID)?.shift();
    this.notify();
  }

  free(nodeID: string, declaredSlots: number): number {
    const now = Date.now();
    const pending = (this.reservations.get(nodeID) ?? []).filter((at) => now - at < RESERVATION_TTL_MS).length;
    const reported = this.reports.get(nodeID);
    const slots = reported?.slots ?? declaredSlots;
    return slots - (reported?.busy ?? 0) - pending;
  }

  snapshot(): Array<SlotReport & { reserved: number }> {
    return [...this.reports].map(([nodeID, r]) => ({
      nodeID,
      slots: r.slots,
      busy: r.busy,
      reserved: this.reservations.get(nodeID)?.length ?? 0,
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
): E | null {
  const scored = list.map((endpoint) => ({
    endpoint,
    free: table.free(endpoint.id, declaredSlots(endpoint)),
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
 * in the same tick goes elsewhere. Null while no node has a free slot.
 */
export function takeRenderNode<E extends EndpointLike>(list: E[], table: RenderSlotTable, avoid: string[], turn: number): E | null {
  const chosen = chooseRenderNode(list, table, avoid, turn, true);
  if (chosen) table.reserve(chosen.id);
  return chosen;
}
