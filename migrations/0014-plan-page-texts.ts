/**
 * The scripting stage reads the page's text from its own table instead of asking the capture
 * stage again (capture.pages was read twice per campaign, by processing and by scripting). Processing keeps the
 * text of each captured version of the page beside the plan it made from them. Null for plans made before this
 * migration: their scripting asks the capture stage, as it did.
 */
import type { QueryInterface } from 'sequelize';

// Raw SQL: queryInterface.addColumn names the table "public"."campaign_plans" on PostgreSQL, whatever the search_path.
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE campaign_plans ADD COLUMN page_texts JSON');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE campaign_plans DROP COLUMN page_texts');
}
