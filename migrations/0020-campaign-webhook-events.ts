/**
 * decisions §15: the events a campaign wants at its webhook_url (`webhook_events`, a JSON list of event names), as given
 * at create or the default list; null on campaigns made before, which are sent the default list.
 */
import type { QueryInterface } from 'sequelize';

// Raw SQL: queryInterface.addColumn names the table "public"."campaigns" on PostgreSQL, whatever the search_path.
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE campaigns ADD COLUMN webhook_events JSON');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE campaigns DROP COLUMN webhook_events');
}
