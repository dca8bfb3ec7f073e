/**
 * The operators' tool (scripts/admin.ts) as operators run it: `npm run -s admin -- …` in a child
 * process, JSON on stdout, errors on stderr with exit 1 (refused) or 2 (bad usage), against a
 * PostgreSQL schema of this run's own. Each spawn costs about a second, so the steps share state
 * and run in order; independent refusals run side by side.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { dropSchema } from '../../lib/db/database';

jest.setTimeout(120_000);

const DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = `cli_${crypto.randomBytes(6).toString('hex')}`;
const ROOT = path.resolve(__dirname, '../..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function admin(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '-s', 'admin', '--', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL, DATABASE_SCHEMA: SCHEMA },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as any).code === 'number' ? (err as any).code : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** A success: exit 0, exactly one JSON document on stdout, nothing on stderr. */
function ok(run: Run): any {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  expect(run.stdout.endsWith('\n')).toBe(true);
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout);
}

/** A failure: the expected exit code, a message on stderr, nothing on stdout. */
function refused(run: Run, code: 1 | 2, message?: RegExp): void {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code, stdout: '' });
  expect(run.stderr.trim().length).toBeGreaterThan(0);
  if (message) expect(run.stderr).toMatch(message);
}

async function sql<T = any>(query: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${SCHEMA}` });
  await client.connect();
  try {
    return (await client.query(query, params as any[])).rows;
  } finally {
    await client.end();
  }
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
const KEY = /^sk_live_[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OWNER = 'owner@acme.example';
const MEMBER = 'member@acme.example';

let orgId: string;
const keys: Array<{ key_id: string; key: string }> = [];

afterAll(() => dropSchema(DATABASE_URL, SCHEMA));

describe('admin CLI', () => {
  test('org create prints { org_id }; user add prints { user_id } for owner and member', async () => {
    const org = ok(await admin('org', 'create', '--name', 'Acme', '--plan', 'growth'));
    expect(org).toEqual({ org_id: expect.stringMatching(UUID) });
    orgId = org.org_id;
    const [owner, member] = await Promise.all([
      admin('user', 'add', '--org', orgId, '--email', OWNER, '--role', 'owner'),
      admin('user', 'add', '--org', orgId, '--email', MEMBER, '--role', 'member'),
    ]);
    expect(ok(owner)).toEqual({ user_id: expect.stringMatching(UUID) });
    expect(ok(member)).toEqual({ user_id: expect.stringMatching(UUID) });
    const rows = await sql('SELECT email, role FROM users WHERE org_id = $1 ORDER BY email', [orgId]);
    expect(rows).toEqual([
      { email: MEMBER, role: 'member' },
      { email: OWNER, role: 'owner' },
    ]);
    const [orgRow] = await sql('SELECT name, plan FROM organizations WHERE id = $1', [orgId]);
    expect(orgRow).toEqual({ name: 'Acme', plan: 'growth' });
  });

  test('key create prints { key_id, key }, honours --scopes and --name, stores only the hash', async () => {
    const first = ok(await admin('key', 'create', '--org', orgId, '--by', OWNER, '--scopes', 'campaigns:create', '--name', 'ci'));
    expect(first).toEqual({ key_id: expect.stringMatching(UUID), key: expect.stringMatching(KEY) });
    const second = ok(await admin('key', 'create', '--org', orgId, '--by', OWNER));
    expect(second).toEqual({ key_id: expect.stringMatching(UUID), key: expect.stringMatching(KEY) });
    expect(second.key).not.toBe(first.key);
    keys.push(first, second);

    const rows = await sql('SELECT id, name, scopes, key_hash, display_prefix, revoked_at FROM api_keys WHERE org_id = $1', [orgId]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(first.key_id)).toMatchObject({ name: 'ci', scopes: 'campaigns:create', key_hash: sha256(first.key), revoked_at: null });
    expect(byId.get(second.key_id)).toMatchObject({
      name: null,
      scopes: 'campaigns:create,campaigns:read,reports:read',
      key_hash: sha256(second.key),
    });
    for (const { key_id, key } of keys) {
      const row = byId.get(key_id);
      expect(row.display_prefix).toHaveLength(12);
      expect(row.display_prefix).toBe(key.slice(0, 12));
    }
  });

  test('growth allows 2 active keys: the 3rd is refused; after a revoke, creating works again', async () => {
    refused(await admin('key', 'create', '--org', orgId, '--by', OWNER), 1, /2 API keys/);
    expect(ok(await admin('key', 'revoke', '--key-id', keys[0].key_id))).toEqual({ revoked: true });
    const [revoked] = await sql('SELECT revoked_at FROM api_keys WHERE id = $1', [keys[0].key_id]);
    expect(revoked.revoked_at).toBeInstanceOf(Date);
    const third = ok(await admin('key', 'create', '--org', orgId, '--by', OWNER));
    expect(third.key).toMatch(KEY);
    keys.push(third);
  });

  test('refusals: exit 1 for the product, exit 2 for usage; stderr only', async () => {
    const unknownOrg = crypto.randomUUID();
    const [member, stranger, noOrg, badPlan, unknownCommand, missingFlag] = await Promise.all([
      admin('key', 'create', '--org', orgId, '--by', MEMBER),
      admin('key', 'create', '--org', orgId, '--by', 'stranger@elsewhere.example'),
      admin('key', 'create', '--org', unknownOrg, '--by', OWNER),
      admin('org', 'create', '--name', 'Gold Co', '--plan', 'gold'),
      admin('org', 'delete', '--org', orgId),
      admin('user', 'add', '--org', orgId, '--email', 'x@acme.example'),
    ]);
    refused(member, 1, /owner or admin/);
    refused(stranger, 1, /not a member/);
    refused(noOrg, 1, new RegExp(`${unknownOrg}.*not found`));
    refused(badPlan, 1, /plan/);
    refused(unknownCommand, 2, /unknown command/);
    refused(missingFlag, 2, /--role/);
    // None of them wrote anything.
    const [counts] = await sql(`SELECT (SELECT count(*)::int FROM organizations) AS orgs,
      (SELECT count(*)::int FROM users) AS users, (SELECT count(*)::int FROM api_keys) AS keys`);
    expect(counts).toEqual({ orgs: 1, users: 2, keys: 3 });
  });

  test('webhook-secret: the same secret until --rotate, then a new one', async () => {
    const first = ok(await admin('webhook-secret', '--org', orgId));
    expect(first).toEqual({ secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/) });
    const again = ok(await admin('webhook-secret', '--org', orgId));
    expect(again.secret).toBe(first.secret);
    const rotated = ok(await admin('webhook-secret', '--org', orgId, '--rotate'));
    expect(rotated.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(rotated.secret).not.toBe(first.secret);
    const rows = await sql('SELECT secret FROM webhook_secrets WHERE org_id = $1', [orgId]);
    expect(rows).toEqual([{ secret: rotated.secret }]);
  });

  test('plan set stores the plan and its overrides; a free org cannot get a key', async () => {
    const set = ok(
      await admin(
        'plan',
        'set',
        '--org',
        orgId,
        '--plan',
        'enterprise',
        '--campaigns',
        '7',
        '--languages',
        '3',
        '--rate',
        '9',
        '--keys',
        '4',
      ),
    );
    expect(set).toMatchObject({
      org_id: orgId,
      plan: 'enterprise',
      limits: { campaignsPerMonth: 7, languagesPerCampaign: 3, ratePerMinute: 9, maxApiKeys: 4 },
    });
    const [enterprise] = await sql(
      'SELECT plan, campaigns_per_month, languages_per_campaign, rate_per_minute, max_api_keys FROM organizations WHERE id = $1',
      [orgId],
    );
    expect(enterprise).toEqual({
      plan: 'enterprise',
      campaigns_per_month: 7,
      languages_per_campaign: 3,
      rate_per_minute: 9,
      max_api_keys: 4,
    });

    ok(await admin('plan', 'set', '--org', orgId, '--plan', 'free'));
    const [free] = await sql('SELECT plan, campaigns_per_month, max_api_keys FROM organizations WHERE id = $1', [orgId]);
    expect(free).toEqual({ plan: 'free', campaigns_per_month: null, max_api_keys: null });
    refused(await admin('key', 'create', '--org', orgId, '--by', OWNER), 1, /free plan has no API access/);
    const [{ n }] = await sql('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1', [orgId]);
    expect(n).toBe(3);
  });

  test('no API key appears in plaintext in any column of any table', async () => {
    expect(keys).toHaveLength(3);
    const columns = await sql<{ table_name: string; column_name: string }>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = $1 AND t.table_type = 'BASE TABLE'
        ORDER BY c.table_name, c.ordinal_position`,
      [SCHEMA],
    );
    const tables = new Set(columns.map((c) => c.table_name));
    // Every table is read (later migrations add more); these must be among them.
    expect([...tables]).toEqual(
      expect.arrayContaining([
        'organizations',
        'users',
        'api_keys',
        'webhook_secrets',
        'campaigns',
        'videos',
        'campaign_events',
        'usage_counters',
        'idempotency_records',
        'schema_migrations',
      ]),
    );
    // Every column, whatever its type, read as text.
    const values: string[] = [];
    for (const { table_name, column_name } of columns) {
      const rows = await sql(`SELECT "${column_name}"::text AS v FROM "${table_name}"`);
      for (const row of rows) if (row.v !== null) values.push(row.v);
    }
    expect(values.length).toBeGreaterThan(20);
    const dump = values.join('\n').toLowerCase();
    for (const { key } of keys) {
      expect(dump).not.toContain(key);
      expect(dump).not.toContain(key.slice('sk_live_'.length));
    }
    // The hashes are what is kept (sanity check that the dump reached api_keys).
    for (const { key } of keys) expect(dump).toContain(sha256(key));
  });
});
