/**
 * The webhook outbox (decisions §9): a delivery row is written in the same transaction as the terminal
 * transition that causes it, and sent from there; every attempt is recorded for operators.
 */
import { DataTypes, type QueryInterface } from 'sequelize';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('webhook_deliveries', {
    id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
    /** evt_ + UUID: the X-Service-Event-Id of every attempt. */
    event_id: { type: DataTypes.STRING(40), allowNull: false, unique: true },
    event_type: { type: DataTypes.STRING(40), allowNull: false },
    campaign_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'campaigns', key: 'id' }, onDelete: 'CASCADE' },
    org_id: { type: DataTypes.UUID, allowNull: false },
    url: { type: DataTypes.STRING(2048), allowNull: false },
    /** The exact body sent on every attempt. */
    body: { type: DataTypes.TEXT, allowNull: false },
    /** pending | delivered | failed */
    status: { type: DataTypes.STRING(12), allowNull: false },
    attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    next_attempt_at: { type: DataTypes.DATE, allowNull: true },
    /** A dispatcher holds the delivery until then (so two dispatchers never send the same attempt). */
    locked_until: { type: DataTypes.DATE, allowNull: true },
    last_error: { type: DataTypes.TEXT, allowNull: true },
    delivered_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('webhook_deliveries', ['status', 'next_attempt_at'], { name: 'webhook_deliveries_due' });
  await qi.addIndex('webhook_deliveries', ['campaign_id'], { name: 'webhook_deliveries_campaign' });
  await qi.createTable('webhook_attempts', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
    delivery_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'webhook_deliveries', key: 'id' }, onDelete: 'CASCADE' },
    attempt: { type: DataTypes.INTEGER, allowNull: false },
    /** The X-Service-Timestamp this attempt was signed with. */
    signed_timestamp: { type: DataTypes.BIGINT, allowNull: false },
    status_code: { type: DataTypes.INTEGER, allowNull: true },
    duration_ms: { type: DataTypes.INTEGER, allowNull: false },
    error: { type: DataTypes.TEXT, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('webhook_attempts', ['delivery_id'], { name: 'webhook_attempts_delivery' });
  // Raw SQL: queryInterface.addColumn names the table "public"."campaigns" on PostgreSQL, whatever the search_path.
  const timestamp = qi.sequelize.getDialect() === 'postgres' ? 'TIMESTAMP WITH TIME ZONE' : 'DATETIME';
  await qi.sequelize.query('ALTER TABLE campaigns ADD COLUMN lease_owner VARCHAR(200)');
  await qi.sequelize.query(`ALTER TABLE campaigns ADD COLUMN lease_expires_at ${timestamp}`);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE campaigns DROP COLUMN lease_expires_at');
  await qi.sequelize.query('ALTER TABLE campaigns DROP COLUMN lease_owner');
  await qi.dropTable('webhook_attempts');
  await qi.dropTable('webhook_deliveries');
}
