/**
 * The language the page's own text is in, recorded by the campaign actor after scripting when a
 * language had neither its own page nor a translation (script_source source_text), so that video's warning can name
 * the language its scenes are narrated in. Null otherwise, and for campaigns made before this migration (their
 * warning then says "the page's own language").
 */
import type { QueryInterface } from 'sequelize';

// Raw SQL: queryInterface.addColumn names the table "public"."campaigns" on PostgreSQL, whatever the search_path.
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE campaigns ADD COLUMN page_language VARCHAR(16)');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE campaigns DROP COLUMN page_language');
}
