/**
 * Batches (decisions §14): one POST makes many campaigns at once. The campaign actor owns `batches` as it owns the
 * campaigns (one writer): a batch row names its organization and its own webhook_url, and is marked completed, in
 * the transaction that settles its last campaign, when batch.completed is written to the actor's outbox. Each
 * campaign of a batch names it (`batch_id`) and its place in the request's items (`batch_index`); null otherwise.
 */
import { DataTypes, type QueryInterface } from 'sequelize';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('batches', {
    id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
    org_id: { type: DataTypes.UUID, allowNull: false },
    webhook_url: { type: DataTypes.STRING(2048), allowNull: true },
    item_count: { type: DataTypes.INTEGER, allowNull: false },
    /** When every campaign reached review, published or failed (batch.completed written then); null before. */
    completed_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  // The list's keyset (newest first, per organization).
  await qi.addIndex('batches', ['org_id', 'created_at', 'id'], { name: 'batches_org_created' });
  // Raw SQL: queryInterface.addColumn names the table "public"."campaigns" on PostgreSQL, whatever the search_path.
  await qi.sequelize.query('ALTER TABLE campaigns ADD COLUMN batch_id UUID');
  await qi.sequelize.query('ALTER TABLE campaigns ADD COLUMN batch_index INTEGER');
  await qi.addIndex('campaigns', ['batch_id', 'batch_index'], { name: 'campaigns_batch' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('campaigns', 'campaigns_batch');
  await qi.sequelize.query('ALTER TABLE campaigns DROP COLUMN batch_index');
  await qi.sequelize.query('ALTER TABLE campaigns DROP COLUMN batch_id');
  await qi.dropTable('batches');
}
