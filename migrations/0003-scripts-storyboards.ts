/** What the processing, scripting and voiceover stages produce. */
import { DataTypes, type QueryInterface } from 'sequelize';

const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};
const campaignRef = { type: DataTypes.UUID, allowNull: false, references: { model: 'campaigns', key: 'id' }, onDelete: 'CASCADE' };

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  /** processing: the scenes chosen and the key facts of the page, one per campaign. */
  await qi.createTable('campaign_plans', {
    campaign_id: { ...campaignRef, primaryKey: true },
    plan: { type: DataTypes.JSON, allowNull: false },
    ...timestamps,
  });
  /** scripting: the narration per language, with where its text came from. */
  await qi.createTable('campaign_scripts', {
    id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
    campaign_id: campaignRef,
    language: { type: DataTypes.STRING(5), allowNull: false },
    script_source: { type: DataTypes.STRING(20), allowNull: false },
    script: { type: DataTypes.JSON, allowNull: false },
    ...timestamps,
  });
  await qi.addIndex('campaign_scripts', ['campaign_id', 'language'], { unique: true, name: 'campaign_scripts_language' });
  /** voiceover: the document the renderer consumes, one per video (language × platform). */
  await qi.createTable('storyboards', {
    video_id: { type: DataTypes.UUID, primaryKey: true, allowNull: false, references: { model: 'videos', key: 'id' }, onDelete: 'CASCADE' },
    campaign_id: campaignRef,
    document: { type: DataTypes.JSON, allowNull: false },
    ...timestamps,
  });
  await qi.addIndex('storyboards', ['campaign_id'], { name: 'storyboards_campaign' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('storyboards');
  await qi.dropTable('campaign_scripts');
  await qi.dropTable('campaign_plans');
}
