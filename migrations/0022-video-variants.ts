/**
 * Hook variants (decisions §15): a campaign may ask for up to three videos per language × platform, each opening
 * differently. Each video names its variant ("a", "b", "c"); every video made before is "a". The videos' unique key
 * becomes campaign × language × platform × variant.
 */
import type { QueryInterface } from 'sequelize';

// Raw SQL: queryInterface.addColumn names the table "public"."videos" on PostgreSQL, whatever the search_path.
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query("ALTER TABLE videos ADD COLUMN variant VARCHAR(1) NOT NULL DEFAULT 'a'");
  await qi.removeIndex('videos', 'videos_campaign_output');
  await qi.addIndex('videos', ['campaign_id', 'language', 'platform', 'variant'], { unique: true, name: 'videos_campaign_output' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query("DELETE FROM videos WHERE variant <> 'a'");
  await qi.removeIndex('videos', 'videos_campaign_output');
  await qi.addIndex('videos', ['campaign_id', 'language', 'platform'], { unique: true, name: 'videos_campaign_output' });
  await qi.sequelize.query('ALTER TABLE videos DROP COLUMN variant');
}
