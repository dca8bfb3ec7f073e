/**
 * The campaign actor's own outbox (decisions §9, one writer per table): a campaign's terminal webhook event
 * is written here in the same transaction as the transition that causes it. The webhook dispatcher takes
 * each event over into its `webhook_deliveries` (unique event id, so twice is once) and the actor marks it
 * handed over. Events written before this migration are already deliveries, so none is moved.
 */
import { DataTypes, type QueryInterface } from 'sequelize';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('campaign_webhook_events', {
    /** evt_ + UUID: the X-Service-Event-Id of every attempt. */
    event_id: { type: DataTypes.STRING(40), primaryKey: true, allowNull: false },
    event_type: { type: DataTypes.STRING(40), allowNull: false },
    campaign_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'campaigns', key: 'id' }, onDelete: 'CASCADE' },
    org_id: { type: DataTypes.UUID, allowNull: false },
    url: { type: DataTypes.STRING(2048), allowNull: false },
    /** The exact body every attempt sends, frozen when the event happened. */
    body: { type: DataTypes.TEXT, allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
    /** Set once the dispatcher holds the event as a delivery; null: still to take over. */
    handed_over_at: { type: DataTypes.DATE, allowNull: true },
  });
  await qi.addIndex('campaign_webhook_events', ['handed_over_at', 'created_at'], { name: 'campaign_webhook_events_pending' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('campaign_webhook_events');
}
