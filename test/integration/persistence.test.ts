/**
 * Persistence on both supported databases: migrations, the campaign-create transaction, the state
 * table, the monthly quota and its refund, idempotency records. Reads go through the Sequelize models
 * (acquireDatabase) so the same assertions hold on PostgreSQL and SQLite.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServiceBroker } from 'moleculer';
import type { AppConfig } from '../../config';
import { brokerOptions } from '../../broker-options';
import AccountsService from '../../services/accounts.service';
import CampaignsService from '../../services/campaigns.service';
import pg from 'pg';
import { loadConfig } from '../../config';
import { ANNOUNCE_SOON, LOOK_EVERY_MS, startHarness, TEST_DATABASE_URL, uniqueName, type Harness } from '../support/harness';
import { acquireDatabase, dropSchema, releaseDatabase, type Database } from '../../lib/db/database';
import { GENERATING_STATES, nextState, type CampaignState } from '../../lib/campaign/states';
import { MIGRATIONS } from '../../migrations';

jest.setTimeout(120_000);

let page: string;

/** The same database under another address, so that acquireDatabase opens a second connection. */
function otherAddressOf(config: AppConfig): AppConfig {
  if (config.databaseUrl) {
    const url = config.databaseUrl;
    return {
      ...config,
      databaseUrl: url.startsWith('postgresql:') ? url.replace(/^postgresql:/, 'postgres:') : url.replace(/^postgres:/, 'postgresql:'),
    };
  }
  const link = path.join(os.tmpdir(), `cv-link-${crypto.randomBytes(5).toString('hex')}`);
  fs.symlinkSync(config.dataDir, link, 'dir');
  links.push(link);
  return { ...config, dataDir: link };
}
const links: string[] = [];
afterAll(() => {
  for (const link of links) fs.rmSync(link, { force: true });
});

function currentPeriod(): string {
  return new Date().toISOString().slice(0, 7);
}

function nextMonthStart(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}

describe.each(['postgres', 'sqlite'] as const)('persistence on %s', (dialect) => {
  let h: Harness;
  let customer: { orgId: string; key: string; keyId: string };

  beforeAll(async () => {
    h = await startHarness({
      dialect,
      config: { pipelinePaused: true, rateLimits: { ipUnauthenticated: 1000, ipAuthenticated: 1000, windowMs: 60_000 } },
    });
    page = h.pageUrl;
    customer = await h.newCustomer('business');
  });
  let successor: ServiceBroker | undefined;
  afterAll(async () => {
    await successor?.stop();
    await h?.stop();
  });

  /** The process's shared database (the one the services use), acquired and released around `work`. */
  async function withDb<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const db = await acquireDatabase(h.config);
    try {
      return await work(db);
    } finally {
      await releaseDatabase(h.config);
    }
  }

  const used = (orgId: string) =>
    withDb(async (db) => {
      const row = await db.models.UsageCounter.findOne({ where: { org_id: orgId, period: currentPeriod() } });
      return row ? Number(row.used) : 0;
    });

  async function create(key: string, body: Record<string, unknown> = {}, headers?: Record<string, string>) {
    return h.request('POST', '/api/v1/campaigns', {
      key,
      body: { url: page, languages: ['en'], platforms: ['youtube'], ...body },
      headers,
    });
  }

  async function createOk(key = customer.key, body: Record<string, unknown> = {}): Promise<string> {
    const res = await create(key, body);
    expect(res.status).toBe(201);
    return res.body.campaign_id;
  }

  async function walkTo(campaignId: string, target: CampaignState): Promise<void> {
    let state: CampaignState = 'collecting';
    while (state !== target) {
      state = nextState(state)!;
      await expect(h.call('campaigns.transition', { campaign_id: campaignId, to: state })).resolves.toEqual({
        campaign_id: campaignId,
        status: state,
      });
    }
  }

  describe('migrations', () => {
    test('schema_migrations lists every migration in order; the same database acquired again in-process is the same instance', async () => {
      await withDb(async (db) => {
        expect(db.dialect).toBe(dialect);
        const rows = await db.sequelize.query('SELECT name FROM schema_migrations ORDER BY name', { type: 'SELECT' as any });
        expect(rows).toEqual(MIGRATIONS.map((m) => ({ name: m.name })));
        const again = await acquireDatabase(h.config);
        try {
          expect(again).toBe(db);
        } finally {
          await releaseDatabase(h.config);
        }
      });
    });

    test('a fresh connection (as another process would open) migrates nothing and keeps the data', async () => {
      // Another address of the same database: the process has no connection open under it, so
      // acquireDatabase connects anew and runs the migrator again.
      const other = otherAddressOf(h.config);
      const db = await acquireDatabase(other);
      try {
        expect(db).not.toBe(await withDb(async (shared) => shared));
        const rows = await db.sequelize.query('SELECT name FROM schema_migrations ORDER BY name', { type: 'SELECT' as any });
        expect(rows).toEqual(MIGRATIONS.map((m) => ({ name: m.name })));
        // Re-running 0001 would fail on its indexes; the rows written before are all still there.
        expect(await db.models.Organization.findByPk(customer.orgId)).not.toBeNull();
        expect(await db.models.ApiKey.count({ where: { id: customer.keyId } })).toBe(1);
      } finally {
        await releaseDatabase(other);
      }
    });
  });

  describe('create campaign', () => {
    test('one transaction writes the campaign, its videos, the first event and the quota counter', async () => {
      const { orgId, key } = await h.newCustomer('business');
      const res = await create(key, { languages: ['en', 'ja'], platforms: ['youtube', 'tiktok'], title: 'Persisted' });
      expect(res.status).toBe(201);
      const id = res.body.campaign_id;
      await withDb(async ({ models }) => {
        const campaign = await models.Campaign.findByPk(id);
        expect(campaign).not.toBeNull();
        expect(campaign!.toJSON()).toMatchObject({
          org_id: orgId,
          job_id: res.body.job_id,
          status: 'collecting',
          title: 'Persisted',
          url: page,
          languages: ['en', 'ja'],
          platforms: ['youtube', 'tiktok'],
          progress: 0,
          error_code: null,
          error_message: null,
          quota_period: currentPeriod(),
        });
        expect(new Date(campaign!.deadline_at).getTime()).toBeGreaterThan(Date.now());

        const videos = await models.Video.findAll({ where: { campaign_id: id } });
        expect(videos.map((v) => `${v.language}/${v.platform}/${v.status}`).sort()).toEqual([
          'en/tiktok/queued',
          'en/youtube/queued',
          'ja/tiktok/queued',
          'ja/youtube/queued',
        ]);

        const events = await models.CampaignEvent.findAll({ where: { campaign_id: id } });
        expect(events.map((e) => ({ from: e.from_status, to: e.to_status }))).toEqual([{ from: null, to: 'collecting' }]);

        const counters = await models.UsageCounter.findAll({ where: { org_id: orgId } });
        expect(counters.map((c) => ({ period: c.period, used: Number(c.used) }))).toEqual([{ period: currentPeriod(), used: 1 }]);
      });
    });

    test('a failure after the quota is reserved rolls everything back (no campaign, videos, counter or idempotency record)', async () => {
      const { orgId, key } = await h.newCustomer('business');
      await createOk(key);
      expect(await used(orgId)).toBe(1);
      const { models } = await acquireDatabase(h.config);
      // The last-but-one write of the transaction fails.
      models.Video.addHook('beforeBulkCreate', 'injectedFailure', () => {
        throw new Error('injected failure');
      });
      let res;
      try {
        res = await create(key, { title: 'Doomed' }, { 'Idempotency-Key': 'doomed-1' });
      } finally {
        models.Video.removeHook('beforeBulkCreate', 'injectedFailure');
        await releaseDatabase(h.config);
      }
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ success: false, error: { code: 'internal' } });
      await withDb(async ({ models: m }) => {
        expect(await m.Campaign.count({ where: { org_id: orgId } })).toBe(1);
        expect(await m.Campaign.count({ where: { org_id: orgId, title: 'Doomed' } })).toBe(0);
        expect(await m.IdempotencyRecord.count({ where: { org_id: orgId } })).toBe(0);
      });
      expect(await used(orgId)).toBe(1);
      // The same key works once the fault is gone: nothing of the failed attempt was kept.
      const retry = await create(key, { title: 'Doomed' }, { 'Idempotency-Key': 'doomed-1' });
      expect(retry.status).toBe(201);
      expect(await used(orgId)).toBe(2);
    });
  });

  describe('campaigns.transition follows the state table', () => {
    test('collecting → processing is allowed and recorded; processing → review is refused and changes nothing', async () => {
      const id = await createOk();
      await expect(h.call('campaigns.transition', { campaign_id: id, to: 'processing' })).resolves.toEqual({
        campaign_id: id,
        status: 'processing',
      });
      await expect(h.call('campaigns.transition', { campaign_id: id, to: 'review' })).rejects.toThrow(
        /cannot go from processing to review/,
      );
      await expect(h.call('campaigns.transition', { campaign_id: id, to: 'collecting' })).rejects.toThrow(
        /cannot go from processing to collecting/,
      );
      await withDb(async ({ models }) => {
        const campaign = await models.Campaign.findByPk(id);
        expect(campaign!.status).toBe('processing');
        expect(campaign!.progress).toBe(15);
        const events = await models.CampaignEvent.findAll({ where: { campaign_id: id }, order: [['id', 'ASC']] });
        expect(events.map((e) => [e.from_status, e.to_status])).toEqual([
          [null, 'collecting'],
          ['collecting', 'processing'],
        ]);
      });
      const res = await h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key });
      expect(res.body).toMatchObject({ status: 'processing', progress: 15 });
      expect(res.body.error).toBeUndefined();
    });

    test.each([...GENERATING_STATES])('%s → failed stores the error, shows it on GET and refunds the quota', async (state) => {
      const id = await createOk();
      await walkTo(id, state);
      const before = await used(customer.orgId);
      expect(before).toBeGreaterThan(0);
      await expect(
        h.call('campaigns.transition', { campaign_id: id, to: 'failed', error_code: 'timeout', error_message: `gave up in ${state}` }),
      ).resolves.toEqual({ campaign_id: id, status: 'failed' });
      expect(await used(customer.orgId)).toBe(before - 1);
      await withDb(async ({ models }) => {
        const campaign = await models.Campaign.findByPk(id);
        expect(campaign!.toJSON()).toMatchObject({ status: 'failed', error_code: 'timeout', error_message: `gave up in ${state}` });
        const last = await models.CampaignEvent.findOne({ where: { campaign_id: id }, order: [['id', 'DESC']] });
        expect([last!.from_status, last!.to_status]).toEqual([state, 'failed']);
      });
      const res = await h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'failed', error: { code: 'timeout', message: `gave up in ${state}` } });
      // Failed is terminal: no second failure, no second refund.
      await expect(h.call('campaigns.transition', { campaign_id: id, to: 'failed' })).rejects.toThrow(/cannot go from failed to failed/);
      expect(await used(customer.orgId)).toBe(before - 1);
    });

    test('review cannot fail (nothing generating there) and is not refunded', async () => {
      const id = await createOk();
      await walkTo(id, 'review');
      const before = await used(customer.orgId);
      await expect(h.call('campaigns.transition', { campaign_id: id, to: 'failed' })).rejects.toThrow(/cannot go from review to failed/);
      expect(await used(customer.orgId)).toBe(before);
    });
  });

  describe('monthly quota', () => {
    test('429 rate_limited with used/limit/resets_at past the limit; the refused create leaves no rows; a refund makes room', async () => {
      const { orgId, key } = await h.newCustomer('enterprise');
      await h.call('accounts.setPlan', { org_id: orgId, plan: 'enterprise', campaigns: 2 });
      const first = await createOk(key);
      await createOk(key);
      expect(await used(orgId)).toBe(2);

      const over = await create(key, { title: 'Over' }, { 'Idempotency-Key': 'over-1' });
      expect(over.status).toBe(429);
      expect(over.body).toEqual({
        success: false,
        error: { code: 'rate_limited', message: expect.any(String), details: { used: 2, limit: 2, resets_at: nextMonthStart() } },
      });
      await withDb(async ({ models }) => {
        const campaigns = await models.Campaign.findAll({ where: { org_id: orgId } });
        expect(campaigns).toHaveLength(2);
        expect(await models.Video.count({ where: { campaign_id: campaigns.map((c) => c.id) } })).toBe(2);
        expect(await models.IdempotencyRecord.count({ where: { org_id: orgId } })).toBe(0);
      });
      expect(await used(orgId)).toBe(2);

      await h.call('campaigns.transition', { campaign_id: first, to: 'failed', error_code: 'internal', error_message: 'x' });
      expect(await used(orgId)).toBe(1);
      const again = await create(key, { title: 'Over' }, { 'Idempotency-Key': 'over-1' });
      expect(again.status).toBe(201);
      expect(await used(orgId)).toBe(2);
    });
  });

  describe('idempotency', () => {
    test('the record is stored, survives a new worker on a fresh connection, and replays the first answer', async () => {
      const { orgId, key } = await h.newCustomer('business');
      const headers = { 'Idempotency-Key': 'persist-1' };
      const first = await create(key, { title: 'Once' }, headers);
      expect(first.status).toBe(201);
      await withDb(async ({ models }) => {
        const record = await models.IdempotencyRecord.findOne({ where: { org_id: orgId, key: 'persist-1' } });
        expect(record).not.toBeNull();
        expect(record!.status_code).toBe(201);
        expect(record!.request_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(record!.response_body).toEqual(first.body);
      });

      // Replace the worker: the old broker stops (its database connection closes, as no one else holds
      // it) and a new worker broker opens a fresh one. It is the last test here, so h.call is not needed after.
      const before = await withDb(async (db) => db);
      await h.worker.stop();
      successor = new ServiceBroker({
        ...brokerOptions(h.config),
        ...ANNOUNCE_SOON,
        nodeID: `worker2-${h.config.namespace}`,
        transporter: 'Fake',
        logger: false,
      });
      successor.createService(AccountsService);
      successor.createService(CampaignsService);
      await successor.start();
      await h.api.waitForServices(['accounts', 'campaigns'], 10_000, LOOK_EVERY_MS);
      expect(await withDb(async (db) => db)).not.toBe(before);

      const replay = await create(key, { title: 'Once' }, headers);
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.get('location')).toBe(`/api/v1/campaigns/${first.body.campaign_id}`);
      const different = await create(key, { title: 'Twice' }, headers);
      expect(different.status).toBe(409);
      expect(different.body).toMatchObject({ success: false, error: { code: 'conflict' } });
      await withDb(async ({ models }) => {
        expect(await models.Campaign.count({ where: { org_id: orgId } })).toBe(1);
        expect(await models.IdempotencyRecord.count({ where: { org_id: orgId } })).toBe(1);
      });
      expect(await used(orgId)).toBe(1);
    });
  });
});

describe('the migration lock (PostgreSQL)', () => {
  const schemas: string[] = [];
  const configFor = (schema: string): AppConfig => {
    schemas.push(schema);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-mig-'));
    return loadConfig({}, { databaseUrl: TEST_DATABASE_URL, databaseSchema: schema, dataDir, logLevel: 'warn' });
  };
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(TEST_DATABASE_URL, schema);
  });

  test('nodes starting together on one schema migrate it once; a schema being migrated never holds up another', async () => {
    const busy = configFor(uniqueName('mig_busy'));
    const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
    // Another deployment's migration in progress: its lock stays held for the whole test.
    await holder.query('SELECT pg_advisory_lock(72450001, hashtext($1))', [busy.databaseSchema]);
    try {
      const fresh = configFor(uniqueName('mig_fresh'));
      const [first, second] = await Promise.all([acquireDatabase(fresh), acquireDatabase(otherAddressOf(fresh))]);
      try {
        expect(first).not.toBe(second);
        const rows = await first.sequelize.query('SELECT name FROM schema_migrations ORDER BY name', { type: 'SELECT' as any });
        expect(rows).toEqual(MIGRATIONS.map((m) => ({ name: m.name })));
      } finally {
        await releaseDatabase(fresh);
        await releaseDatabase(otherAddressOf(fresh));
      }

      // A node of the busy schema waits for the lock, then migrates.
      let migrated = false;
      const waiting = acquireDatabase(busy).then((db) => {
        migrated = true;
        return db;
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(migrated).toBe(false);
      await holder.query('SELECT pg_advisory_unlock(72450001, hashtext($1))', [busy.databaseSchema]);
      const db = await waiting;
      try {
        expect(await db.sequelize.query('SELECT count(*)::int AS n FROM schema_migrations', { type: 'SELECT' as any })).toEqual([
          { n: MIGRATIONS.length },
        ]);
      } finally {
        await releaseDatabase(busy);
      }
    } finally {
      await holder.end();
    }
  });
});
