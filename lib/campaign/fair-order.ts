/**
 * The order in which a stage's waiting turns are granted (decisions §14: round robin by organization, then by age),
 * as a pure function of the queue, so the rule is tested without a database (lib/campaign/turns.ts applies it under
 * the stage's lock). An organization's "last grant" is the stage's grant count when it was last served: the one
 * served least recently (never served first) goes next, with its oldest turn.
 */

export interface WaitingTurn {
  /** The turn's identity (campaign, stage, lane), opaque here. */
  key: string;
  orgId: string;
  /** Of the stage's capacity, how much the turn holds while granted. */
  weight: number;
  /** The campaign's creation (epoch ms): an organization's older campaigns go first. */
  ageMs: number;
  /** When the turn was queued (epoch ms): ties of age. */
  queuedMs: number;
}

export interface Grants {
  /** The turns granted, in grant order. */
  keys: string[];
  /** The organizations served, with the stage's grant count at their last grant now. */
  lastGrant: Map<string, number>;
  /** The stage's grant count after these grants. */
  grants: number;
}

const byAge = (a: WaitingTurn, b: WaitingTurn) =>
  a.ageMs - b.ageMs || a.queuedMs - b.queuedMs || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * The turns to grant now, from `waiting`, while `used` of `capacity` is held. A turn that does not fit in what is
 * left is not skipped for a smaller one behind it (that would starve large turns); a turn larger than the whole
 * capacity is granted once nothing else is held, alone.
 */
export function pickGrants(
  waiting: readonly WaitingTurn[],
  lastGrant: ReadonlyMap<string, number>,
  used: number,
  capacity: number,
  grants: number,
): Grants {
  const queues = new Map<string, WaitingTurn[]>();
  for (const turn of [...waiting].sort(byAge)) {
    const queue = queues.get(turn.orgId) ?? [];
    queue.push(turn);
    queues.set(turn.orgId, queue);
  }
  const last = new Map(lastGrant);
  const served = new Map<string, number>();
  const keys: string[] = [];
  let held = used;
  let count = grants;
  while (queues.size > 0 && held < capacity) {
    // Served least recently (never: -1), ties by the organization's oldest turn.
    let next: string | undefined;
    for (const [orgId, queue] of queues) {
      if (next === undefined) {
        next = orgId;
        continue;
      }
      const a = last.get(orgId) ?? -1;
      const b = last.get(next) ?? -1;
      if (a < b || (a === b && byAge(queue[0], queues.get(next)![0]) < 0)) next = orgId;
    }
    const queue = queues.get(next!)!;
    const turn = queue[0];
    if (held > 0 && held + turn.weight > capacity) break;
    queue.shift();
    if (queue.length === 0) queues.delete(next!);
    held += turn.weight;
    count += 1;
    last.set(turn.orgId, count);
    served.set(turn.orgId, count);
    keys.push(turn.key);
  }
  return { keys, lastGrant: served, grants: count };
}

/**
 * The express turn: one turn a stage grants past its capacity, so that a customer with one campaign never waits
 * behind another organization's batch (bench/fairness: a single campaign waited for the one render slot held by a
 * batch's render, most of its time over its time alone). At most one per stage at a time, and only while the stage is
 * full: to an organization with nothing granted at the stage and a single campaign in the whole queue (a batch never
 * qualifies: its other campaigns are queued somewhere). Among several, the one served least recently, then the
 * oldest; the turn is its organization's oldest. Undefined when none qualifies.
 */
export function pickExpress(
  waiting: readonly WaitingTurn[],
  lastGrant: ReadonlyMap<string, number>,
  qualifies: (orgId: string) => boolean,
): WaitingTurn | undefined {
  let best: WaitingTurn | undefined;
  for (const turn of [...waiting].sort(byAge)) {
    if (!qualifies(turn.orgId)) continue;
    if (!best) {
      best = turn;
      continue;
    }
    if (turn.orgId === best.orgId) continue;
    if ((lastGrant.get(turn.orgId) ?? -1) < (lastGrant.get(best.orgId) ?? -1)) best = turn;
  }
  return best;
}
