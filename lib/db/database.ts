/**
 * One Sequelize instance per database per process, shared by every service of a broker (so one
 * transaction can span campaigns, videos and quota), migrated once before first use.
 * PostgreSQL when DATABASE_URL is set; an SQLite file in DATA_DIR otherwise.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Sequelize, Transaction, type Options } from 'sequelize';
import { Umzug, SequelizeStorage } from 'umzug';
import pg from 'pg';
import type { AppConfig } from '../../config';
import { MIGRATIONS } from '../../migrations';
import { defineModels, type Models } from './models';

export interface Database {
  sequelize: Sequelize;
  models: Models;
  dialect: 'postgres' | 'sqlite';
}

interface Entry {
  db: Promise<Database>;
  users: number;
}
const open = new Map<string, Entry>();

/** Arbitrary constant (the lock's first key): serialises migrations when several nodes start at once. */
const MIGRATION_LOCK_ID = 72_450_001;
/**
 * A lock (its keys) that migrations of any schema hold shared and dropSchema() holds exclusive. A migration reads
 * the catalog across schemas (umzug's table sync asks Sequelize for the indexes of every `schema_migrations`, whose
 * pg_get_indexdef fails on an index dropped meanwhile): dropping another schema at that moment failed its start.
 * Seen with test files on schemas of their own, run side by side.
 */
const CATALOG_LOCK: [number, number] = [72_450_002, 0];

function identity(config: AppConfig): string {
  return config.databaseUrl ? `${config.databaseUrl}#${config.databaseSchema ?? ''}` : `sqlite:${sqlitePath(config)}`;
}

export function sqlitePath(config: AppConfig): string {
  return path.join(config.dataDir, 'campaigns.sqlite');
}

export function acquireDatabase(config: AppConfig): Promise<Database> {
  const key = identity(config);
  let entry = open.get(key);
  if (!entry) {
    entry = { db: connect(config), users: 0 };
    open.set(key, entry);
    entry.db.catch(() => open.delete(key));
  }
  entry.users += 1;
  return entry.db;
}

export async function releaseDatabase(config: AppConfig): Promise<void> {
  const key = identity(config);
  const entry = open.get(key);
  if (!entry) return;
  entry.users -= 1;
  if (entry.users > 0) return;
  open.delete(key);
  const db = await entry.db.catch(() => undefined);
  await db?.sequelize.close();
}

async function connect(config: AppConfig): Promise<Database> {
  const common: Options = { logging: false, define: { underscored: true } };
  let sequelize: Sequelize;
  if (config.databaseUrl) {
    const schema = config.databaseSchema;
    if (schema && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`DATABASE_SCHEMA "${schema}" is not a plain identifier`);
    sequelize = new Sequelize(config.databaseUrl, {
      ...common,
      dialect: 'postgres',
      dialectModule: pg,
      pool: { max: 10, min: 0, idle: 10_000, acquire: 10_000 },
      dialectOptions: schema ? { options: `-c search_path=${schema}` } : {},
    });
  } else {
    fs.mkdirSync(config.dataDir, { recursive: true });
    sequelize = new Sequelize({
      ...common,
      dialect: 'sqlite',
      dialectModule: sqliteWaitingOnLocks() as object,
      storage: sqlitePath(config),
      // IMMEDIATE takes the write lock at BEGIN: two writers wait for each other instead of deadlocking.
      transactionType: Transaction.TYPES.IMMEDIATE,
    });
    // WAL lets the admin tool write while the server reads (the mode is stored in the file).
    await sequelize.query('PRAGMA journal_mode = WAL');
  }
  await migrate(sequelize, config);
  return { sequelize, models: defineModels(sequelize), dialect: config.databaseUrl ? 'postgres' : 'sqlite' };
}

async function migrate(sequelize: Sequelize, config: AppConfig): Promise<void> {
  const umzug = new Umzug({
    migrations: MIGRATIONS.map((m) => ({ name: m.name, up: m.up, down: m.down })),
    context: sequelize.getQueryInterface(),
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
  if (!config.databaseUrl) {
    await umzug.up();
    return;
  }
  // Other nodes on the same schema wait, then find nothing to do. The schema is created under the lock too:
  // two nodes creating it at once would otherwise race (IF NOT EXISTS is not atomic in PostgreSQL: one of
  // them fails on pg_namespace's unique index). Sequelize connects lazily, so nothing has used it before.
  const schema = config.databaseSchema;
  await withMigrationLock(config.databaseUrl, schema ?? 'public', async (client) => {
    if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await umzug.up();
  });
}

/**
 * A session-level advisory lock on a dedicated connection, keyed by schema too: deployments (or test runs)
 * on other schemas of the database never wait for each other.
 */
async function withMigrationLock<T>(url: string, schema: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  return withClient(url, async (client) => {
    await client.query('SELECT pg_advisory_lock_shared($1, $2)', CATALOG_LOCK);
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK_ID, schema]);
    try {
      return await work(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_ID, schema]);
      await client.query('SELECT pg_advisory_unlock_shared($1, $2)', CATALOG_LOCK);
    }
  });
}

/** Drops a schema and everything in it, never while a migration reads the catalog (CATALOG_LOCK). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  await withClient(url, async (client) => {
    await client.query('SELECT pg_advisory_lock($1, $2)', CATALOG_LOCK);
    try {
      // Unquoted, as the schema is named everywhere else (CREATE SCHEMA, search_path): checked to be a plain name.
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new Error(`not a plain schema name: ${JSON.stringify(schema)}`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, $2)', CATALOG_LOCK);
    }
  });
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Sequelize opens one SQLite connection per transaction; each must wait on a lock held by another
 * (the admin tool, a concurrent request) rather than fail at once with SQLITE_BUSY.
 */
function sqliteWaitingOnLocks(): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sqlite3 = require('sqlite3') as typeof import('sqlite3');
  class Database extends sqlite3.Database {
    constructor(file: string, mode: number, callback?: (err: Error | null) => void) {
      super(file, mode, (err: Error | null) => {
        if (!err) this.configure('busyTimeout', 10_000);
        callback?.(err);
      });
    }
  }
  return { ...sqlite3, Database };
}
