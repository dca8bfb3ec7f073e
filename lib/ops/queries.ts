/**
 * What operators read from the database (services/ops.service.ts): counts per state, stage durations,
 * the render queue, webhook outcomes, and one campaign's whole history; and the shapes of the ops actions'
 * answers. Works on PostgreSQL and SQLite. Dates come back as ISO strings, so an answer looks the same
 * in-process and across the transporter.
 */
import { Op, QueryTypes } from 'sequelize';
import { CAMPAIGN_STATES, type CampaignState } from '../campaign/states';
import type { ScopedDatabase } from '../db/ownership';

/** The operators' view of the database: raw reads across tables, and the campaigns read-only. */
type Database = ScopedDatabase<'ops'>;
import type { Campaign } from '../db/models';
import { MEASURED_STAGES, STAGE_DURATION_BUCKETS_SECONDS, type AttemptResult, type DeliveryOutcome, type StageDurations } from './metrics';

export interface CampaignSummary {
  id: string;
  org_id: string;
  status: string;
  progress: number;
  created_at: string;
  status_changed_at: string;
}

export interface RenderNodeView {
  node_id: string;
  slots: number | null;
  busy: number | null;
  free: number | null;
  /** Renders the rendering stage has sent the node that the node has not yet reported. */
  reserved: number;
  /** Videos rendering there now, from the node itself. */
  videos: string[];
  /** Stopping (SIGTERM): takes no new render, finishes those in flight, then leaves. */
  draining: boolean;
  /** Why the node could not be asked, when it could not. */
  error?: string;
}

export interface RenderNodesView {
  nodes: RenderNodeView[];
  queue_depth: number;
}

export interface StateOverview {
  state: CampaignState;
  count: number;
  recent: CampaignSummary[];
}

export interface WebhookAttemptView {
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  at: string;
}
export interface WebhookDeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  url: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  attempt_log: WebhookAttemptView[];
}

export interface CampaignTimeline {
  campaign: CampaignSummary & {
    title: string;
    url: string;
    error_code: string | null;
    error_message: string | null;
    deadline_at: string;
    lease_owner: string | null;
    lease_expires_at: string | null;
  };
  events: Array<{ at: string; from: string | null; to: string; detail: string | null }>;
  videos: Array<{
    id: string;
    language: string;
    platform: string;
    status: string;
    error_code: string | null;
    error_message: string | null;
  }>;
  render_attempts: Array<{
    video_id: string;
    node_id: string | null;
    outcome: string;
    wall_ms: number | null;
    peak_rss_bytes: number | null;
    error_message: string | null;
    started_at: string;
    finished_at: string | null;
  }>;
  webhook_deliveries: WebhookDeliveryView[];
}

function iso(value: Date | string): string;
function iso(value: Date | string | null): string | null;
function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

async function select<T extends object>(db: Database, sql: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
  return db.sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });
}

export async function campaignStateCounts(db: Database): Promise<Record<CampaignState, number>> {
  const rows = await select<{ status: string; n: string | number }>(db, 'SELECT status, COUNT(*) AS n FROM campaigns GROUP BY status');
  const counts = Object.fromEntries(CAMPAIGN_STATES.map((state) => [state, 0])) as Record<CampaignState, number>;
  for (const row of rows) if (row.status in counts) counts[row.status as CampaignState] = Number(row.n);
  return counts;
}

/** Seconds from `from` to `to`, in each dialect's date arithmetic (julianday's float rounded back to milliseconds). */
function secondsBetween(db: Database, from: string, to: string): string {
  return db.dialect === 'postgres'
    ? `EXTRACT(EPOCH FROM (${to} - ${from}))`
    : `ROUND((julianday(${to}) - julianday(${from})) * 86400.0, 3)`;
}

/**
 * A stay in a state lasts from the event entering it to the campaign's next event. Aggregated in SQL,
 * so a scrape reads one row per stage whatever the number of events.
 */
export async function stageDurations(db: Database): Promise<StageDurations[]> {
  const bucketColumns = STAGE_DURATION_BUCKETS_SECONDS.map((bound, i) => `SUM(CASE WHEN seconds <= ${bound} THEN 1 ELSE 0 END) AS le_${i}`);
  const rows = await select<Record<string, string | number | null>>(
    db,
    `
    SELECT stage, COUNT(*) AS n, SUM(seconds) AS sum_seconds, ${bucketColumns.join(', ')}
    FROM (
      SELECT to_status AS stage, ${secondsBetween(db, 'created_at', 'left_at')} AS seconds
      FROM (
        SELECT to_status, created_at, LEAD(created_at) OVER (PARTITION BY campaign_id ORDER BY created_at, id) AS left_at
        FROM campaign_events
      ) AS stays
      WHERE left_at IS NOT NULL
    ) AS durations
    GROUP BY stage`,
  );
  const byStage = new Map(rows.map((row) => [String(row.stage), row]));
  return MEASURED_STAGES.map((stage) => {
    const row = byStage.get(stage);
    return {
      stage,
      count: Number(row?.n ?? 0),
      sumSeconds: Number(row?.sum_seconds ?? 0),
      buckets: STAGE_DURATION_BUCKETS_SECONDS.map((_, i) => Number(row?.[`le_${i}`] ?? 0)),
    };
  });
}

export async function renderQueueDepth(db: Database): Promise<number> {
  const [row] = await select<{ n: string | number }>(
    db,
    `
    SELECT COUNT(*) AS n FROM videos JOIN campaigns ON campaigns.id = videos.campaign_id
    WHERE campaigns.status = 'rendering' AND videos.status IN ('queued', 'rendering')`,
  );
  return Number(row?.n ?? 0);
}

export async function webhookOutcomes(
  db: Database,
): Promise<{ deliveries: Record<DeliveryOutcome, number>; attempts: Record<AttemptResult, number> }> {
  const [deliveryRows, attemptRows] = await Promise.all([
    select<{ status: string; n: string | number }>(db, 'SELECT status, COUNT(*) AS n FROM webhook_deliveries GROUP BY status'),
    select<{ result: string; n: string | number }>(
      db,
      `
      SELECT CASE WHEN status_code BETWEEN 200 AND 299 THEN '2xx' ELSE 'error' END AS result, COUNT(*) AS n
      FROM webhook_attempts GROUP BY 1`,
    ),
  ]);
  const deliveries: Record<DeliveryOutcome, number> = { pending: 0, delivered: 0, failed: 0 };
  for (const row of deliveryRows) if (row.status in deliveries) deliveries[row.status as DeliveryOutcome] = Number(row.n);
  const attempts: Record<AttemptResult, number> = { '2xx': 0, error: 0 };
  for (const row of attemptRows) attempts[row.result as AttemptResult] = Number(row.n);
  return { deliveries, attempts };
}

function summary(campaign: Campaign): CampaignSummary {
  return {
    id: campaign.id,
    org_id: campaign.org_id,
    status: campaign.status,
    progress: campaign.progress,
    created_at: iso(campaign.created_at),
    status_changed_at: iso(campaign.status_changed_at),
  };
}

/** The campaigns that most recently entered `state`. */
export async function recentCampaigns(db: Database, state: CampaignState, limit: number): Promise<CampaignSummary[]> {
  const rows = await db.models.Campaign.findAll({ where: { status: state }, order: [['status_changed_at', 'DESC']], limit });
  return rows.map(summary);
}

export async function campaignDeliveries(db: Database, campaignId: string): Promise<WebhookDeliveryView[]> {
  const { WebhookDelivery, WebhookAttempt } = db.models;
  const deliveries = await WebhookDelivery.findAll({ where: { campaign_id: campaignId }, order: [['created_at', 'ASC']] });
  const attempts = deliveries.length
    ? await WebhookAttempt.findAll({
        where: { delivery_id: { [Op.in]: deliveries.map((d) => d.id) } },
        order: [
          ['delivery_id', 'ASC'],
          ['attempt', 'ASC'],
        ],
      })
    : [];
  return deliveries.map((d) => ({
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: iso(d.next_attempt_at),
    last_error: d.last_error,
    delivered_at: iso(d.delivered_at),
    created_at: iso(d.created_at),
    attempt_log: attempts
      .filter((a) => a.delivery_id === d.id)
      .map((a) => ({
        attempt: a.attempt,
        status_code: a.status_code,
        duration_ms: a.duration_ms,
        error: a.error,
        at: iso(a.created_at),
      })),
  }));
}

export async function campaignTimeline(db: Database, campaignId: string): Promise<CampaignTimeline | null> {
  const { Campaign, CampaignEvent, Video, RenderAttempt } = db.models;
  const campaign = await Campaign.findByPk(campaignId);
  if (!campaign) return null;
  const [events, videos, attempts, deliveries] = await Promise.all([
    CampaignEvent.findAll({
      where: { campaign_id: campaignId },
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
    }),
    Video.findAll({
      where: { campaign_id: campaignId },
      order: [
        ['language', 'ASC'],
        ['platform', 'ASC'],
      ],
    }),
    RenderAttempt.findAll({
      where: { campaign_id: campaignId },
      order: [
        ['started_at', 'ASC'],
        ['id', 'ASC'],
      ],
    }),
    campaignDeliveries(db, campaignId),
  ]);
  return {
    campaign: {
      ...summary(campaign),
      title: campaign.title,
      url: campaign.url,
      error_code: campaign.error_code,
      error_message: campaign.error_message,
      deadline_at: iso(campaign.deadline_at),
      lease_owner: campaign.lease_owner,
      lease_expires_at: iso(campaign.lease_expires_at),
    },
    events: events.map((e) => ({ at: iso(e.created_at), from: e.from_status, to: e.to_status, detail: e.detail })),
    videos: videos.map((v) => ({
      id: v.id,
      language: v.language,
      platform: v.platform,
      status: v.status,
      error_code: v.error_code,
      error_message: v.error_message,
    })),
    render_attempts: attempts.map((a) => ({
      video_id: a.video_id,
      node_id: a.node_id,
      outcome: a.outcome,
      wall_ms: a.wall_ms,
      peak_rss_bytes: a.peak_rss_bytes === null ? null : Number(a.peak_rss_bytes),
      error_message: a.error_message,
      started_at: iso(a.started_at),
      finished_at: iso(a.finished_at),
    })),
    webhook_deliveries: deliveries,
  };
}
