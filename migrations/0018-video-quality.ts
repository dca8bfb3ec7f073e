/**
 * The video's own check (decisions §13): each video keeps its `quality` report (lib/quality/report.ts), written by
 * the campaign actor from the rendering stage's report when the video is ready, and again when an edit's revision
 * is ready. Null: not checked (rendered before the check existed, or not ready yet).
 */
import type { QueryInterface } from 'sequelize';

// Raw SQL: queryInterface.addColumn names the table "public"."videos" on PostgreSQL, whatever the search_path.
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE videos ADD COLUMN quality JSON');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE videos DROP COLUMN quality');
}
