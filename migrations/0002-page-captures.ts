/** What the capture pool collected per campaign: the source page and each localized page found by hreflang. */
import { DataTypes, type QueryInterface } from 'sequelize';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('page_captures', {
    id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
    campaign_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'campaigns', key: 'id' }, onDelete: 'CASCADE' },
    /** 'source' for the submitted page; a language code for a localized version found by hreflang. */
    variant: { type: DataTypes.STRING(10), allowNull: false },
    url: { type: DataTypes.STRING(2048), allowNull: false },
    final_url: { type: DataTypes.STRING(2048), allowNull: false },
    language: { type: DataTypes.STRING(35), allowNull: true },
    text: { type: DataTypes.JSON, allowNull: false },
    brand: { type: DataTypes.JSON, allowNull: false },
    screenshots: { type: DataTypes.JSON, allowNull: false },
    /** What was done to the page before shooting it: consent dismissed, overlays hidden, lazy images loaded. */
    presentation: { type: DataTypes.JSON, allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('page_captures', ['campaign_id', 'variant'], { unique: true, name: 'page_captures_campaign_variant' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('page_captures');
}
