/**
 * A campaign's creative options (captions, quality, brand colour) and its integrator's metadata
 * (decisions §11), as given at create; null when none were.
 */
import type { QueryInterface } from 'sequelize';

// Raw SQL: queryInterface.addColumn names the table "public"."campaigns" on PostgreSQL, whatever the search_path.
// JSON on PostgreSQL; SQLite keeps the declared type name and stores the text.
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE campaigns ADD COLUMN options JSON');
  await qi.sequelize.query('ALTER TABLE campaigns ADD COLUMN metadata JSON');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE campaigns DROP COLUMN metadata');
  await qi.sequelize.query('ALTER TABLE campaigns DROP COLUMN options');
}
