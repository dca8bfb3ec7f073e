/**
 * The stages' turn queue in the database (decisions §14: fair scheduling across organizations at every stage, on
 * every node). Before the campaign actor calls a stage (a campaign's, or an edit's voice or render), the call queues a
 * turn here and waits until it is granted (services/campaigns/orchestrator.ts, inTurn); grants follow lib/campaign/fair-order.ts, made under the stage's row lock
 * (`stage_queues`, FOR UPDATE on PostgreSQL; SQLite's IMMEDIATE transactions serialise writers), so two nodes never
 * grant past the stage's capacity nor the same turn twice. Every turn has a lease its node renews: a turn whose node
 * died is granted to nobody while it waits, and given back to the queue (its place kept) once its lease runs out
 * while granted; the actor that takes the campaign over adopts it. Raw SQL of the `campaigns` service's tables
 * (migrations/0021-stage-turns.ts), kept in this one module as the quota's is in quota.ts.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { GENERATING_STATES, type GeneratingState } from './states';
import { pickExpress, pickGrants, type WaitingTurn } from './fair-order';
import { VIDEO_EDIT_RUNNING } from './video-edit';

export interface TurnKey {
  campaignId: string;
  stage: GeneratingState;
  /**
   * A part of the campaign calling the stage on its own: a language's lane, or a video's id for an edit of that video
   * (the campaign is in review then); '' for the whole campaign.
   */
  lane: string;
}

export interface NewTurn extends TurnKey {
  orgId: string;
  weight: number;
  /** The campaign's creation (epoch ms). */
  ageMs: number;
}

export interface TurnsDb {
  sequelize: Sequelize;
  dialect: 'postgres' | 'sqlite';
}

interface TurnRow {
  campaign_id: string;
  lane: string;
  org_id: string;
  weight: number | string;
  age_ms: number | string;
  queued_ms: number | string;
}

const chains = new WeakMap<Sequelize, Promise<unknown>>();

/**
 * On SQLite (embedded: one process), this module's writes run one at a time. Each statement waiting for SQLite's
 * write lock holds one of libuv's four worker threads while it waits (the busy timeout); grant loops, releases and
 * renewals waiting side by side took all four, and the transaction holding the lock could not get one to commit
 * (seen in bench/fairness: every query of the product stalled). PostgreSQL waits on its server: nothing to do there.
 */
function serial<T>(db: TurnsDb, work: () => Promise<T>): Promise<T> {
  if (db.dialect !== 'sqlite') return work();
  const previous = chains.get(db.sequelize) ?? Promise.resolve();
  const next = previous.then(work, work);
  chains.set(
    db.sequelize,
    next.catch(() => undefined),
  );
  return next;
}

/** A turn's key within its stage. */
export function turnKey(campaignId: string, lane: string): string {
  return `${campaignId}|${lane}`;
}

/**
 * Queues the turn, or adopts it where it is already (an earlier actor's, whose node died or stopped): its place
 * (queued_ms) and its grant, if it has one, are kept; the holder becomes `holder`, with a fresh lease.
 */
export async function queueTurn(db: TurnsDb, turn: NewTurn, holder: string, leaseMs: number, now = Date.now()): Promise<void> {
  await serial(db, () =>
    db.sequelize.query(
      `INSERT INTO stage_turns (campaign_id, stage, lane, org_id, weight, age_ms, queued_ms, granted_ms, holder, lease_expires_ms)
     VALUES (:campaignId, :stage, :lane, :orgId, :weight, :ageMs, :now, NULL, :holder, :lease)
     ON CONFLICT (campaign_id, stage, lane) DO UPDATE SET holder = excluded.holder, lease_expires_ms = excluded.lease_expires_ms,
       weight = excluded.weight`,
      { replacements: { ...turn, now, holder, lease: now + leaseMs } },
    ),
  );
}

/**
 * Grants what the stage's capacity allows, in the fair order, and returns the keys granted. First, turns granted to
 * a node whose lease ran out (it died while running the stage) go back to waiting, their place kept.
 */
export async function grantTurns(
  db: TurnsDb,
  stage: GeneratingState,
  capacity: number,
  { at, express = true }: { at?: number; express?: boolean } = {},
): Promise<string[]> {
  return serial(db, () =>
    db.sequelize.transaction(async (transaction: Transaction) => {
      const now = at ?? Date.now();
      const q = <T extends object>(sql: string, replacements: Record<string, unknown>) =>
        db.sequelize.query<T>(sql, { replacements, transaction, type: QueryTypes.SELECT });
      const lock = db.dialect === 'postgres' ? ' FOR UPDATE' : '';
      const [queue] = await q<{ grants: number | string }>(`SELECT grants FROM stage_queues WHERE stage = :stage${lock}`, { stage });
      if (!queue) throw new Error(`stage_queues has no row for ${stage}`);
      await db.sequelize.query(
        'UPDATE stage_turns SET granted_ms = NULL, express = :no WHERE stage = :stage AND granted_ms IS NOT NULL AND lease_expires_ms < :now',
        { replacements: { stage, now, no: false }, transaction },
      );
      // What the granted turns hold of the capacity, and whether the express turn (past the capacity, not counted) is held.
      const [{ used, express_held: expressHeld }] = await q<{ used: number | string | null; express_held: number | string | null }>(
        `SELECT COALESCE(SUM(CASE WHEN express THEN 0 ELSE weight END), 0) AS used,
           COALESCE(SUM(CASE WHEN express THEN 1 ELSE 0 END), 0) AS express_held
         FROM stage_turns WHERE stage = :stage AND granted_ms IS NOT NULL`,
        { stage },
      );
      const expressFree = express && Number(expressHeld) === 0;
      if (Number(used) >= capacity && !expressFree) return [];
      const rows = await q<TurnRow>(
        `SELECT campaign_id, lane, org_id, weight, age_ms, queued_ms FROM stage_turns
       WHERE stage = :stage AND granted_ms IS NULL AND lease_expires_ms >= :now ORDER BY age_ms, queued_ms LIMIT 5000`,
        { stage, now },
      );
      if (rows.length === 0) return [];
      const orgs = [...new Set(rows.map((row) => row.org_id))];
      const last = await q<{ org_id: string; last_grant: number | string }>(
        'SELECT org_id, last_grant FROM stage_org_turns WHERE stage = :stage AND org_id IN (:orgs)',
        { stage, orgs },
      );
      const waiting: WaitingTurn[] = rows.map((row) => ({
        key: turnKey(row.campaign_id, row.lane),
        orgId: row.org_id,
        weight: Number(row.weight),
        ageMs: Number(row.age_ms),
        queuedMs: Number(row.queued_ms),
      }));
      /** Marks the turn granted, within the capacity or as the express turn. */
      const grant = (key: string, asExpress: boolean) => {
        const [campaignId, lane] = key.split('|');
        return db.sequelize.query(
          `UPDATE stage_turns SET granted_ms = :now, express = :asExpress
           WHERE campaign_id = :campaignId AND stage = :stage AND lane = :lane AND granted_ms IS NULL`,
          { replacements: { now, asExpress, campaignId, stage, lane }, transaction },
        );
      };
      /** The organization was served at the stage's grant count `lastGrant`. */
      const served = (orgId: string, lastGrant: number) =>
        db.sequelize.query(
          `INSERT INTO stage_org_turns (stage, org_id, last_grant) VALUES (:stage, :orgId, :lastGrant)
         ON CONFLICT (stage, org_id) DO UPDATE SET last_grant = excluded.last_grant`,
          { replacements: { stage, orgId, lastGrant }, transaction },
        );
      const lastGrants = new Map(last.map((row) => [row.org_id, Number(row.last_grant)]));
      const picked = pickGrants(waiting, lastGrants, Number(used), capacity, Number(queue.grants));
      for (const key of picked.keys) await grant(key, false);
      for (const [orgId, lastGrant] of picked.lastGrant) await served(orgId, lastGrant);
      let grants = picked.grants;
      const pickedKeys = new Set(picked.keys);
      const left = waiting.filter((turn) => !pickedKeys.has(turn.key));
      const expressKey =
        expressFree && left.length ? await grantExpress(left, new Map([...lastGrants, ...picked.lastGrant]), grants + 1) : undefined;
      if (expressKey) grants += 1;
      if (grants !== Number(queue.grants)) {
        await db.sequelize.query('UPDATE stage_queues SET grants = :grants WHERE stage = :stage', {
          replacements: { grants, stage },
          transaction,
        });
      }
      return expressKey ? [...picked.keys, expressKey] : picked.keys;

      /** The stage is full and turns still wait: the express turn, to an organization that qualifies (pickExpress). */
      async function grantExpress(left: WaitingTurn[], last: Map<string, number>, count: number): Promise<string | undefined> {
        // Read after this grant's updates: an organization just granted a turn here holds one.
        const orgs = await q<{ org_id: string; campaigns: number | string; granted_here: number | string }>(
          `SELECT org_id, COUNT(DISTINCT campaign_id) AS campaigns,
             SUM(CASE WHEN stage = :stage AND granted_ms IS NOT NULL THEN 1 ELSE 0 END) AS granted_here
           FROM stage_turns WHERE org_id IN (:orgs) GROUP BY org_id`,
          { stage, orgs: [...new Set(left.map((turn) => turn.orgId))] },
        );
        const single = new Set(
          orgs.filter((org) => Number(org.campaigns) === 1 && Number(org.granted_here) === 0).map((org) => org.org_id),
        );
        const chosen = pickExpress(left, last, (orgId) => single.has(orgId));
        if (!chosen) return undefined;
        await grant(chosen.key, true);
        await served(chosen.orgId, count);
        return chosen.key;
      }
    }),
  );
}

/** Where a turn stands: waiting, granted within the stage's capacity, or granted as the stage's express turn. */
export type TurnState = 'waiting' | 'granted' | 'express';

/** The turns of `stage` that `holder` holds, with where each stands (keys as turnKey makes them). */
export async function heldTurns(db: TurnsDb, stage: GeneratingState, holder: string): Promise<Map<string, TurnState>> {
  const rows = await db.sequelize.query<{
    campaign_id: string;
    lane: string;
    granted_ms: number | string | null;
    express: boolean | number;
  }>('SELECT campaign_id, lane, granted_ms, express FROM stage_turns WHERE stage = :stage AND holder = :holder', {
    replacements: { stage, holder },
    type: QueryTypes.SELECT,
  });
  return new Map(
    rows.map((row) => [turnKey(row.campaign_id, row.lane), row.granted_ms === null ? 'waiting' : row.express ? 'express' : 'granted']),
  );
}

/** The stage returned or threw: the turn is given up (only by its holder: a node that lost it to another does nothing). */
export async function releaseTurn(db: TurnsDb, key: TurnKey, holder: string): Promise<void> {
  await db.sequelize.query(
    'DELETE FROM stage_turns WHERE campaign_id = :campaignId AND stage = :stage AND lane = :lane AND holder = :holder',
    {
      replacements: { ...key, holder },
    },
  );
}

/** Every turn `holder` holds lives on for `leaseMs` more. */
export async function renewTurns(db: TurnsDb, holder: string, leaseMs: number): Promise<void> {
  await serial(db, () =>
    db.sequelize.query('UPDATE stage_turns SET lease_expires_ms = :lease WHERE holder = :holder', {
      replacements: { holder, lease: Date.now() + leaseMs },
    }),
  );
}

/** A node stopping: its turns' leases end now, so they are granted again at once (their places kept). */
export async function abandonTurns(db: TurnsDb, holder: string): Promise<void> {
  await serial(db, () =>
    db.sequelize.query('UPDATE stage_turns SET lease_expires_ms = 0 WHERE holder = :holder', { replacements: { holder } }),
  );
}

/** A campaign that failed (canceled, timed out, its stage failed) waits for no turn any more. */
export async function removeCampaignTurns(db: TurnsDb, campaignId: string, transaction?: Transaction): Promise<void> {
  await db.sequelize.query('DELETE FROM stage_turns WHERE campaign_id = :campaignId', { replacements: { campaignId }, transaction });
}

/**
 * Turns left behind by campaigns no longer generating (their actor died before it released them); an edit's, by
 * its lane, only once the edit of that video is no longer running.
 */
export async function removeSettledTurns(db: TurnsDb): Promise<void> {
  await db.sequelize.query(
    `DELETE FROM stage_turns WHERE campaign_id NOT IN (SELECT id FROM campaigns WHERE status IN (:generating))
       AND lane NOT IN (SELECT CAST(video_id AS VARCHAR(40)) FROM video_edits WHERE status IN (:editing))`,
    { replacements: { generating: [...GENERATING_STATES], editing: [...VIDEO_EDIT_RUNNING] } },
  );
}

export interface StageQueueView {
  stage: GeneratingState;
  /** Turns granted, and the capacity they hold (a render's pending videos). */
  granted: number;
  held: number;
  waiting: number;
  /** Waiting turns by organization, most first. */
  waiting_by_org: Array<{ org_id: string; waiting: number }>;
}

/** campaigns.stageTurns: a stage's queue, and its capacity across the cluster as the answering node sees it. */
export type StageTurnsView = StageQueueView & { capacity: number };

/** What the queue holds now, per stage (operators: the REPL's `turns`). */
export async function queueView(db: TurnsDb): Promise<StageQueueView[]> {
  const rows = await db.sequelize.query<{
    stage: GeneratingState;
    org_id: string;
    granted: number | string;
    held: number | string;
    waiting: number | string;
  }>(
    `SELECT stage, org_id,
       SUM(CASE WHEN granted_ms IS NULL THEN 0 ELSE 1 END) AS granted,
       SUM(CASE WHEN granted_ms IS NULL THEN 0 ELSE weight END) AS held,
       SUM(CASE WHEN granted_ms IS NULL THEN 1 ELSE 0 END) AS waiting
     FROM stage_turns GROUP BY stage, org_id`,
    { type: QueryTypes.SELECT },
  );
  return GENERATING_STATES.map((stage) => {
    const mine = rows.filter((row) => row.stage === stage);
    return {
      stage,
      granted: mine.reduce((sum, row) => sum + Number(row.granted), 0),
      held: mine.reduce((sum, row) => sum + Number(row.held), 0),
      waiting: mine.reduce((sum, row) => sum + Number(row.waiting), 0),
      waiting_by_org: mine
        .filter((row) => Number(row.waiting) > 0)
        .map((row) => ({ org_id: row.org_id, waiting: Number(row.waiting) }))
        .sort((a, b) => b.waiting - a.waiting),
    };
  });
}

/** A stage service's metadata key: how many campaigns the node takes at once (the stage's capacity adds them up). */
export const CAMPAIGN_SLOTS = 'campaignSlots';

/** The campaigns a stage node says it takes at once; 1 for a node that says nothing. */
export function campaignSlotsOf(endpoint: { service?: { metadata?: Record<string, unknown> } }): number {
  const slots = Number(endpoint.service?.metadata?.[CAMPAIGN_SLOTS]);
  return Number.isInteger(slots) && slots > 0 ? slots : 1;
}

/**
 * Whether the organization has a backlog: turns of its other campaigns waiting at any stage, on any node. A batch's
 * campaigns have one while the batch is queued; a customer's single campaign never does (its own lanes are not a
 * backlog). Read when a turn is granted: the stage runs that job's programs at a lower CPU priority then.
 */
export async function organizationBacklog(db: TurnsDb, orgId: string, campaignId: string): Promise<boolean> {
  const rows = await db.sequelize.query(
    'SELECT 1 AS waiting FROM stage_turns WHERE org_id = :orgId AND campaign_id <> :campaignId AND granted_ms IS NULL LIMIT 1',
    { replacements: { orgId, campaignId }, type: QueryTypes.SELECT },
  );
  return rows.length > 0;
}
