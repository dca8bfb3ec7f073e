/**
 * The operators' queries (lib/ops/queries.ts) on both supported databases: the stage-duration SQL uses
 * each dialect's date arithmetic and a window function, so it must give the same figures on both.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type AppConfig } from '../../config';
import { acquireDatabase, dropSchema, releaseDatabase, type Database } from '../../lib/db/database';
import { STAGE_DURATION_BUCKETS_SECONDS } from '../../lib/ops/metrics';
import { campaignStateCounts, campaignTimeline, renderQueueDepth, stageDurations, webhookOutcomes } from '../../lib/ops/queries';
import { TEST_DATABASE_URL, uniqueName } from '../support/harness';

const T0 = Date.parse('2025-03-01T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);

describe.each(['postgres', 'sqlite'] as const)("operators' queries on %s", (dialect) => {
  let config: AppConfig;
  let db: Database;
  let orgId: string;

  async function campaign(status: string): Promise<string> {
    const row = await db.models.Campaign.create({
      org_id: orgId,
      job_id: crypto.randomUUID(),
      status,
      url: 'https://shop.example/',
      title: 'Shop',
      languages: ['en'],
      platforms: ['youtube'],
      webhook_url: null,
      quota_period: '2025-03',
      status_changed_at: new Date(),
      deadline_at: new Date(Date.now() + 86_400_000),
    });
    return row.id;
  }

  beforeAll(async () => {
    const schema = uniqueName('t');
    config = loadConfig(
      {},
      {
        dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'cv-ops-')),
        databaseUrl: dialect === 'postgres' ? TEST_DATABASE_URL : undefined,
        databaseSchema: dialect === 'postgres' ? schema : undefined,
      },
    );
    db = await acquireDatabase(config);
    orgId = (await db.models.Organization.create({ name: 'Ops', plan: 'business' })).id;
  });

  afterAll(async () => {
    await releaseDatabase(config);
    if (config.databaseSchema) await dropSchema(TEST_DATABASE_URL, config.databaseSchema);
    fs.rmSync(config.dataDir, { recursive: true, force: true });
  });

  test('counts per state, stage durations, the render queue and webhook outcomes', async () => {
    const a = await campaign('scripting');
    const b = await campaign('rendering');
    await campaign('rendering');
    for (const [campaignId, from, to, seconds] of [
      [a, null, 'collecting', 0],
      [a, 'collecting', 'processing', 4.5],
      [a, 'processing', 'scripting', 64.5],
      [b, null, 'collecting', 0],
      [b, 'collecting', 'processing', 20],
      [b, 'processing', 'scripting', 21],
    ] as const) {
      await db.models.CampaignEvent.create({
        campaign_id: campaignId,
        from_status: from,
        to_status: to,
        detail: null,
        created_at: at(seconds),
      });
    }
    for (const [language, status] of [
      ['en', 'queued'],
      ['ja', 'rendering'],
      ['ko', 'ready'],
    ]) {
      await db.models.Video.create({ campaign_id: b, language, platform: 'youtube', status });
    }
    const delivery = await db.models.WebhookDelivery.create({
      id: crypto.randomUUID(),
      event_id: `evt_${crypto.randomUUID()}`,
      event_type: 'campaign.completed',
      campaign_id: b,
      org_id: orgId,
      url: 'https://hooks.example/',
      body: '{}',
      status: 'failed',
      attempts: 2,
    });
    for (const [attempt, status_code] of [
      [1, 204],
      [2, 404],
    ]) {
      await db.models.WebhookAttempt.create({
        delivery_id: delivery.id,
        attempt,
        signed_timestamp: 1,
        status_code,
        duration_ms: 10,
        error: null,
      });
    }

    expect(await campaignStateCounts(db)).toEqual({
      collecting: 0,
      processing: 0,
      scripting: 1,
      voiceover: 0,
      rendering: 2,
      review: 0,
      published: 0,
      failed: 0,
    });
    const durations = Object.fromEntries((await stageDurations(db)).map((d) => [d.stage, d]));
    expect(Object.keys(durations)).toEqual(['collecting', 'processing', 'scripting', 'voiceover', 'rendering', 'review']);
    expect(durations.collecting.count).toBe(2);
    expect(durations.collecting.sumSeconds).toBeCloseTo(24.5, 2);
    // Bounds 1, 5, 15, 30, 60, ...: 4.5 s and 20 s.
    expect(durations.collecting.buckets.slice(0, 5)).toEqual([0, 1, 1, 2, 2]);
    expect(durations.processing.sumSeconds).toBeCloseTo(61, 2);
    // 1 s and exactly 60 s: a bound is inclusive (le).
    expect(durations.processing.buckets.slice(0, 5)).toEqual([1, 1, 1, 1, 2]);
    expect(durations.scripting).toEqual({
      stage: 'scripting',
      count: 0,
      sumSeconds: 0,
      buckets: STAGE_DURATION_BUCKETS_SECONDS.map(() => 0),
    });
    expect(await renderQueueDepth(db)).toBe(2);
    expect(await webhookOutcomes(db)).toEqual({ deliveries: { pending: 0, delivered: 0, failed: 1 }, attempts: { '2xx': 1, error: 1 } });

    const timeline = await campaignTimeline(db, a);
    expect(timeline?.events.map((e) => [e.to, e.at])).toEqual([
      ['collecting', at(0).toISOString()],
      ['processing', at(4.5).toISOString()],
      ['scripting', at(64.5).toISOString()],
    ]);
    expect(await campaignTimeline(db, crypto.randomUUID())).toBeNull();
  });
});
