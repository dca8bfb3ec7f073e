/** Initial schema. Migrations are frozen once released: change the schema with a new file. */
import { DataTypes, type QueryInterface } from 'sequelize';

const id = { type: DataTypes.UUID, primaryKey: true, allowNull: false };
const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};
const orgRef = { type: DataTypes.UUID, allowNull: false, references: { model: 'organizations', key: 'id' }, onDelete: 'CASCADE' };

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('organizations', {
    id,
    name: { type: DataTypes.STRING(200), allowNull: false },
    plan: { type: DataTypes.STRING(20), allowNull: false },
    campaigns_per_month: { type: DataTypes.INTEGER, allowNull: true },
    languages_per_campaign: { type: DataTypes.INTEGER, allowNull: true },
    rate_per_minute: { type: DataTypes.INTEGER, allowNull: true },
    max_api_keys: { type: DataTypes.INTEGER, allowNull: true },
    ...timestamps,
  });
  await qi.createTable('users', {
    id,
    org_id: orgRef,
    email: { type: DataTypes.STRING(320), allowNull: false },
    role: { type: DataTypes.STRING(10), allowNull: false },
    ...timestamps,
  });
  await qi.addIndex('users', ['org_id', 'email'], { unique: true, name: 'users_org_email' });
  await qi.createTable('api_keys', {
    id,
    org_id: orgRef,
    created_by: { type: DataTypes.UUID, allowNull: false, references: { model: 'users', key: 'id' } },
    name: { type: DataTypes.STRING(100), allowNull: true },
    key_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
    display_prefix: { type: DataTypes.STRING(16), allowNull: false },
    scopes: { type: DataTypes.STRING(200), allowNull: false },
    revoked_at: { type: DataTypes.DATE, allowNull: true },
    last_used_at: { type: DataTypes.DATE, allowNull: true },
    ...timestamps,
  });
  await qi.addIndex('api_keys', ['org_id'], { name: 'api_keys_org' });
  await qi.createTable('webhook_secrets', {
    org_id: { ...orgRef, primaryKey: true },
    secret: { type: DataTypes.STRING(80), allowNull: false },
    ...timestamps,
  });
  await qi.createTable('campaigns', {
    id,
    org_id: orgRef,
    job_id: { type: DataTypes.UUID, allowNull: false },
    status: { type: DataTypes.STRING(20), allowNull: false },
    url: { type: DataTypes.STRING(2048), allowNull: false },
    title: { type: DataTypes.STRING(200), allowNull: false },
    languages: { type: DataTypes.JSON, allowNull: false },
    platforms: { type: DataTypes.JSON, allowNull: false },
    webhook_url: { type: DataTypes.STRING(2048), allowNull: true },
    progress: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    error_code: { type: DataTypes.STRING(40), allowNull: true },
    error_message: { type: DataTypes.TEXT, allowNull: true },
    quota_period: { type: DataTypes.STRING(7), allowNull: false },
    status_changed_at: { type: DataTypes.DATE, allowNull: false },
    deadline_at: { type: DataTypes.DATE, allowNull: false },
    ...timestamps,
  });
  await qi.addIndex('campaigns', ['org_id', 'created_at'], { name: 'campaigns_org_created' });
  await qi.addIndex('campaigns', ['status'], { name: 'campaigns_status' });
  await qi.createTable('videos', {
    id,
    campaign_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'campaigns', key: 'id' }, onDelete: 'CASCADE' },
    language: { type: DataTypes.STRING(5), allowNull: false },
    platform: { type: DataTypes.STRING(30), allowNull: false },
    status: { type: DataTypes.STRING(12), allowNull: false },
    file_key: { type: DataTypes.STRING(500), allowNull: true },
    captions_key: { type: DataTypes.STRING(500), allowNull: true },
    duration_seconds: { type: DataTypes.FLOAT, allowNull: true },
    script_source: { type: DataTypes.STRING(20), allowNull: true },
    published_at: { type: DataTypes.DATE, allowNull: true },
    error_code: { type: DataTypes.STRING(40), allowNull: true },
    error_message: { type: DataTypes.TEXT, allowNull: true },
    ...timestamps,
  });
  await qi.addIndex('videos', ['campaign_id', 'language', 'platform'], { unique: true, name: 'videos_campaign_output' });
  await qi.createTable('campaign_events', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
    campaign_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'campaigns', key: 'id' }, onDelete: 'CASCADE' },
    from_status: { type: DataTypes.STRING(20), allowNull: true },
    to_status: { type: DataTypes.STRING(20), allowNull: false },
    detail: { type: DataTypes.TEXT, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('campaign_events', ['campaign_id'], { name: 'campaign_events_campaign' });
  await qi.createTable('usage_counters', {
    org_id: { ...orgRef, primaryKey: true },
    period: { type: DataTypes.STRING(7), primaryKey: true, allowNull: false },
    used: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
  });
  await qi.createTable('idempotency_records', {
    org_id: { ...orgRef, primaryKey: true },
    key: { type: DataTypes.STRING(255), primaryKey: true, allowNull: false },
    request_hash: { type: DataTypes.STRING(64), allowNull: false },
    status_code: { type: DataTypes.INTEGER, allowNull: false },
    response_body: { type: DataTypes.JSON, allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const table of [
    'idempotency_records',
    'usage_counters',
    'campaign_events',
    'videos',
    'campaigns',
    'webhook_secrets',
    'api_keys',
    'users',
    'organizations',
  ]) {
    await qi.dropTable(table);
  }
}
