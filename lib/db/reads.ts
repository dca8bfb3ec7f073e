/**
 * The read path's queries: every API request authenticates its key, and GET of a campaign is what
 * integrators poll. Each is one SQL statement answered as plain rows; building Sequelize models and grouping an
 * include's join cost more CPU than the database (bench/api/README.md has the profile). Each stays with the owner of
 * its tables: the key query is the accounts service's, the campaign query the campaign actor's. The SQL is plain
 * enough for both dialects; what SQLite answers as text (JSON columns) is parsed here, and dates stay as the driver
 * gives them (Date from pg, text from SQLite), which is what lib/campaign/view.ts accepts. On PostgreSQL each is a
 * named prepared statement on a connection of Sequelize's pool: parsed and planned once per connection, not per request.
 */
import type { QueryResultRow } from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { CampaignRow, VideoRow } from '../campaign/view';
import { DatabaseUnavailableError, isDatabaseUnavailable, messageOf } from '../errors';

/** An active key with its organization's plan columns. */
export interface ActiveKeyRow {
  key_id: string;
  scopes: string;
  last_used_at: Date | string | null;
  org_id: string;
  plan: string;
  campaigns_per_month: number | null;
  languages_per_campaign: number | null;
  rate_per_minute: number | null;
  max_api_keys: number | null;
}

const SELECT_ACTIVE_KEY = `SELECT k.id AS key_id, k.scopes, k.last_used_at, o.id AS org_id, o.plan, o.campaigns_per_month,
       o.languages_per_campaign, o.rate_per_minute, o.max_api_keys
  FROM api_keys k JOIN organizations o ON o.id = k.org_id
 WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;

export async function findActiveKey(sequelize: Sequelize, keyHash: string): Promise<ActiveKeyRow | null> {
  const rows = await select<ActiveKeyRow>(sequelize, 'read_active_key', SELECT_ACTIVE_KEY, [keyHash]);
  return rows[0] ?? null;
}

const CAMPAIGN_COLUMNS = [
  'id',
  'status',
  'url',
  'title',
  'languages',
  'platforms',
  'progress',
  'created_at',
  'error_code',
  'error_message',
  'options',
  'metadata',
  'page_language',
  'retry_of',
  'batch_id',
  'webhook_url',
  'webhook_events',
] as const;
const VIDEO_COLUMNS = [
  'id',
  'platform',
  'language',
  'variant',
  'opening_repeated',
  'status',
  'duration_seconds',
  'published_at',
  'script_source',
  'file_key',
  'captions_key',
  'captions_srt_key',
  'thumbnail_key',
  'revision',
  'file_revision',
  'error_code',
  'error_message',
  'quality',
] as const;
const JSON_COLUMNS = new Set<string>(['languages', 'platforms', 'options', 'metadata', 'quality', 'webhook_events']);

const SELECT_CAMPAIGN_WITH_VIDEOS = `SELECT ${CAMPAIGN_COLUMNS.map((c) => `c.${c} AS c_${c}`).join(', ')}, ${VIDEO_COLUMNS.map(
  (c) => `v.${c} AS v_${c}`,
).join(', ')}
  FROM campaigns c LEFT JOIN videos v ON v.campaign_id = c.id
 WHERE c.id = $1 AND c.org_id = $2`;

/** The organization's campaign and its videos in one statement; null when it is not theirs or does not exist. */
export async function findCampaignWithVideos(
  sequelize: Sequelize,
  campaignId: string,
  orgId: string,
): Promise<{ campaign: CampaignRow; videos: VideoRow[] } | null> {
  const rows = await select<Record<string, unknown>>(sequelize, 'read_campaign_with_videos', SELECT_CAMPAIGN_WITH_VIDEOS, [
    campaignId,
    orgId,
  ]);
  if (rows.length === 0) return null;
  const campaign = Object.fromEntries(CAMPAIGN_COLUMNS.map((c) => [c, column(c, rows[0][`c_${c}`])])) as unknown as CampaignRow;
  const videos = rows
    .filter((row) => row.v_id !== null && row.v_id !== undefined)
    .map((row) => Object.fromEntries(VIDEO_COLUMNS.map((c) => [c, column(c, row[`v_${c}`])])) as unknown as VideoRow);
  return { campaign, videos };
}

function column(name: string, value: unknown): unknown {
  return JSON_COLUMNS.has(name) && typeof value === 'string' ? JSON.parse(value) : value;
}

/** The part of Sequelize's PostgreSQL connection manager used here: its pool hands out pg clients. */
interface PgConnectionManager {
  getConnection(options: { type: 'SELECT' }): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<void>;
}
interface PgClient {
  query<T extends QueryResultRow>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: T[] }>;
}

/** One SELECT: a named prepared statement on PostgreSQL; on SQLite, through Sequelize as it is. */
async function select<T extends object>(sequelize: Sequelize, name: string, text: string, values: unknown[]): Promise<T[]> {
  if (sequelize.getDialect() !== 'postgres') return sequelize.query<T>(text, { type: QueryTypes.SELECT, bind: values });
  const manager = sequelize.connectionManager as unknown as PgConnectionManager;
  try {
    const client = await manager.getConnection({ type: 'SELECT' });
    try {
      return (await client.query<T & QueryResultRow>({ name, text, values })).rows;
    } finally {
      await manager.releaseConnection(client);
    }
  } catch (err) {
    // pg's errors reach here unwrapped by Sequelize: a dropped connection's bare socket error is the database's too.
    if (isDatabaseUnavailable(err, true)) throw new DatabaseUnavailableError(messageOf(err));
    throw err;
  }
}
