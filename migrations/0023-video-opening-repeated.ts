/**
 * Hook variants (decisions §15): a variant video whose page gave too few words for an opening of its own opens as
 * variant a does. It is still made (the campaign asked for it, and its row exists from create), but never silently:
 * the column records it, and the video's `warnings` say so (lib/campaign/view.ts opening_not_distinct).
 */
import type { QueryInterface } from 'sequelize';

// Raw SQL: queryInterface.addColumn names the table "public"."videos" on PostgreSQL, whatever the search_path.
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE videos ADD COLUMN opening_repeated BOOLEAN NOT NULL DEFAULT false');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE videos DROP COLUMN opening_repeated');
}
