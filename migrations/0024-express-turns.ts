/**
 * The express turn (lib/campaign/fair-order.ts pickExpress): a turn a full stage grants past its capacity to an
 * organization with a single campaign queued, at most one per stage at a time. The column marks it: it is not counted
 * in what the stage's capacity holds, and the stage's call carries it, so a render node runs it in its express slot.
 */
import type { QueryInterface } from 'sequelize';

// Raw SQL: queryInterface.addColumn names the table "public"."stage_turns" on PostgreSQL, whatever the search_path.
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE stage_turns ADD COLUMN express BOOLEAN NOT NULL DEFAULT false');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE stage_turns DROP COLUMN express');
}
