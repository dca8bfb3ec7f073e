/**
 * The rendering stage reports each video's state as an event (lib/campaign/stages.ts VIDEO_REPORTED),
 * not a call, and events may arrive out of order (a 'rendering' after the 'ready' that followed it, each taken by a
 * different instance of the campaign actor). Each report carries when it was made; the actor applies a report only
 * if it is newer than the last one applied (this column, epoch milliseconds). Null: no report applied yet.
 */
import type { QueryInterface } from 'sequelize';

// Raw SQL: queryInterface.addColumn names the table "public"."videos" on PostgreSQL, whatever the search_path.
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE videos ADD COLUMN reported_at BIGINT');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE videos DROP COLUMN reported_at');
}
