/** rendering: every attempt to render a video, on which node, and how it ended (operators read these). */
import { DataTypes, type QueryInterface } from 'sequelize';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('render_attempts', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
    video_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'videos', key: 'id' }, onDelete: 'CASCADE' },
    campaign_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'campaigns', key: 'id' }, onDelete: 'CASCADE' },
    node_id: { type: DataTypes.STRING(200), allowNull: true },
    /** rendering | ready | failed | lost (the node went away) | busy (refused: no free slot) */
    outcome: { type: DataTypes.STRING(12), allowNull: false },
    error_message: { type: DataTypes.TEXT, allowNull: true },
    wall_ms: { type: DataTypes.INTEGER, allowNull: true },
    peak_rss_bytes: { type: DataTypes.BIGINT, allowNull: true },
    started_at: { type: DataTypes.DATE, allowNull: false },
    finished_at: { type: DataTypes.DATE, allowNull: true },
  });
  await qi.addIndex('render_attempts', ['video_id'], { name: 'render_attempts_video' });
  await qi.addIndex('render_attempts', ['campaign_id'], { name: 'render_attempts_campaign' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('render_attempts');
}
