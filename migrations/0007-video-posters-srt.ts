/**
 * Each ready video's poster frame (`thumbnail_url`) and SubRip captions (`captions_srt_url`),
 * both made by the renderer beside the video and recorded by the campaign actor with it. Videos rendered
 * before this migration have neither (their links stay null) until they are rendered again.
 */
import type { QueryInterface } from 'sequelize';

// Raw SQL: queryInterface.addColumn names the table "public"."videos" on PostgreSQL, whatever the search_path.
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE videos ADD COLUMN thumbnail_key VARCHAR(500)');
  await qi.sequelize.query('ALTER TABLE videos ADD COLUMN captions_srt_key VARCHAR(500)');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE videos DROP COLUMN captions_srt_key');
  await qi.sequelize.query('ALTER TABLE videos DROP COLUMN thumbnail_key');
}
