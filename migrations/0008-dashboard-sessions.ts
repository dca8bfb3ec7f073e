/**
 * The dashboard: users sign in with a password (argon2id, only the encoded hash stored) and get a
 * server-side session whose token is stored only as its SHA-256. Both tables are the accounts service's.
 */
import { DataTypes, type QueryInterface } from 'sequelize';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Raw SQL: queryInterface.addColumn names the table "public"."users" on PostgreSQL, whatever the search_path.
  await qi.sequelize.query('ALTER TABLE users ADD COLUMN password_hash VARCHAR(200)');
  await qi.createTable('user_sessions', {
    id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
    token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
    user_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
    org_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'organizations', key: 'id' }, onDelete: 'CASCADE' },
    last_seen_at: { type: DataTypes.DATE, allowNull: false },
    expires_at: { type: DataTypes.DATE, allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('user_sessions', ['user_id'], { name: 'user_sessions_user' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('user_sessions');
  await qi.sequelize.query('ALTER TABLE users DROP COLUMN password_hash');
}
