/**
 * A campaign made by POST /campaigns/{id}/retry names the failed campaign it retries, whose finished
 * stages' outputs it reuses (captures, plan, scripts, storyboards). Null for every other campaign.
 */
import type { QueryInterface } from 'sequelize';

// Raw SQL: queryInterface.addColumn names the table "public"."campaigns" on PostgreSQL, whatever the search_path.
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE campaigns ADD COLUMN retry_of UUID');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE campaigns DROP COLUMN retry_of');
}
