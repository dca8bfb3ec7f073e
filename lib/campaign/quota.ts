/**
 * The monthly campaign quota (decisions.md §6): one counter row per organization and UTC month,
 * moved by single conditional UPDATEs, so concurrent creates can never push it past the limit.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { quotaExceeded } from '../errors';

export function quotaPeriod(at = new Date()): string {
  return at.toISOString().slice(0, 7);
}

/** The `count` months (YYYY-MM, UTC) ending with `period`, oldest first. */
export function periodsEndingAt(period: string, count: number): string[] {
  const [year, month] = period.split('-').map(Number);
  return Array.from({ length: count }, (_, i) => new Date(Date.UTC(year, month - count + i, 1)).toISOString().slice(0, 7));
}

export function periodResetsAt(period: string): string {
  const [year, month] = period.split('-').map(Number);
  return new Date(Date.UTC(year, month, 1)).toISOString();
}

/**
 * Takes `count` campaigns (one, or a batch's items: all or none) from this month's quota inside `transaction`, or
 * throws the 429 with details (a batch's also name the count it asked for).
 */
export async function reserveQuota(
  sequelize: Sequelize,
  transaction: Transaction,
  orgId: string,
  period: string,
  limit: number,
  count = 1,
): Promise<number> {
  await sequelize.query('INSERT INTO usage_counters (org_id, period, used) VALUES (:orgId, :period, 0) ON CONFLICT DO NOTHING', {
    replacements: { orgId, period },
    transaction,
  });
  const rows = await sequelize.query<{ used: number }>(
    'UPDATE usage_counters SET used = used + :count WHERE org_id = :orgId AND period = :period AND used + :count <= :limit RETURNING used',
    { replacements: { orgId, period, limit, count }, transaction, type: QueryTypes.SELECT },
  );
  if (rows.length === 1) return Number(rows[0].used);
  const used = await usedInPeriod(sequelize, orgId, period, transaction);
  throw quotaExceeded({ used, limit, resets_at: periodResetsAt(period), ...(count > 1 ? { requested: count } : {}) });
}

/** Failed campaigns are refunded (decisions.md §6). */
export async function refundQuota(sequelize: Sequelize, transaction: Transaction, orgId: string, period: string): Promise<void> {
  await sequelize.query('UPDATE usage_counters SET used = used - 1 WHERE org_id = :orgId AND period = :period AND used > 0', {
    replacements: { orgId, period },
    transaction,
  });
}

export async function usedInPeriod(sequelize: Sequelize, orgId: string, period: string, transaction?: Transaction): Promise<number> {
  const rows = await sequelize.query<{ used: number }>('SELECT used FROM usage_counters WHERE org_id = :orgId AND period = :period', {
    replacements: { orgId, period },
    transaction,
    type: QueryTypes.SELECT,
  });
  return rows.length ? Number(rows[0].used) : 0;
}
