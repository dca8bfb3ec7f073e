/**
 * Self-serve redelivery (decisions §11). Each customer request to send a campaign's terminal
 * event again is a row here, owned by the webhook dispatcher: the rows of the last 24 h are the campaign's daily
 * allowance, and each one is one more attempt of its delivery: `attempt` names the attempt that served it (null
 * until then).
 */
import { DataTypes, type QueryInterface } from 'sequelize';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('webhook_redeliveries', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
    delivery_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'webhook_deliveries', key: 'id' }, onDelete: 'CASCADE' },
    campaign_id: { type: DataTypes.UUID, allowNull: false },
    requested_at: { type: DataTypes.DATE, allowNull: false },
    attempt: { type: DataTypes.INTEGER, allowNull: true },
  });
  await qi.addIndex('webhook_redeliveries', ['campaign_id', 'requested_at'], { name: 'webhook_redeliveries_campaign' });
  await qi.addIndex('webhook_redeliveries', ['delivery_id'], { name: 'webhook_redeliveries_delivery' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('webhook_redeliveries');
}
