/**
 * Editing a video (decisions §12). A video keeps its document's revision (1 for the first render, +1
 * per accepted edit) and the revision its files are of (while an edit renders, the previous one keeps being served).
 * `video_edits` (the campaign actor's) holds each accepted edit: the document asked for, where it is (speaking,
 * rendering, ready, failed) and the lease of the node running it, so an edit interrupted by a node's death resumes.
 * `storyboard_revisions` (the voice stage's) holds each edit's storyboard; revision 1 stays in `storyboards`.
 */
import { DataTypes, type QueryInterface } from 'sequelize';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Raw SQL: queryInterface.addColumn names the table "public"."videos" on PostgreSQL, whatever the search_path.
  await qi.sequelize.query('ALTER TABLE videos ADD COLUMN revision INTEGER NOT NULL DEFAULT 1');
  await qi.sequelize.query('ALTER TABLE videos ADD COLUMN file_revision INTEGER');
  await qi.sequelize.query("UPDATE videos SET file_revision = 1 WHERE status = 'ready' AND file_key IS NOT NULL");
  await qi.createTable('video_edits', {
    id: { type: DataTypes.UUID, primaryKey: true },
    video_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'videos', key: 'id' }, onDelete: 'CASCADE' },
    campaign_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'campaigns', key: 'id' }, onDelete: 'CASCADE' },
    revision: { type: DataTypes.INTEGER, allowNull: false },
    base_revision: { type: DataTypes.INTEGER, allowNull: false },
    /** speaking | rendering | ready | failed */
    status: { type: DataTypes.STRING(12), allowNull: false },
    document: { type: DataTypes.JSON, allowNull: false },
    captions_key: { type: DataTypes.STRING(500), allowNull: true },
    scenes_spoken: { type: DataTypes.INTEGER, allowNull: true },
    error_code: { type: DataTypes.STRING(40), allowNull: true },
    error_message: { type: DataTypes.TEXT, allowNull: true },
    lease_owner: { type: DataTypes.STRING(200), allowNull: true },
    lease_expires_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
    finished_at: { type: DataTypes.DATE, allowNull: true },
  });
  await qi.addIndex('video_edits', ['video_id', 'created_at'], { name: 'video_edits_video' });
  await qi.addIndex('video_edits', ['status'], { name: 'video_edits_status' });
  await qi.createTable('storyboard_revisions', {
    video_id: { type: DataTypes.UUID, primaryKey: true, references: { model: 'videos', key: 'id' }, onDelete: 'CASCADE' },
    revision: { type: DataTypes.INTEGER, primaryKey: true },
    campaign_id: { type: DataTypes.UUID, allowNull: false },
    document: { type: DataTypes.JSON, allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('storyboard_revisions');
  await qi.dropTable('video_edits');
  await qi.sequelize.query('ALTER TABLE videos DROP COLUMN file_revision');
  await qi.sequelize.query('ALTER TABLE videos DROP COLUMN revision');
}
