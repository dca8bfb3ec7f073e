/**
 * The campaign actor's reads for the dashboard and the reports: the public list (keyset pages), the dashboard's
 * numbered pages, this month's usage against the plan, a month's usage report, and a campaign's timeline. A module
 * of the `campaigns` service (mixed into services/campaigns.service.ts); every read is scoped by the caller's
 * organization.
 */
import { Op, QueryTypes, type Attributes, type WhereOptions } from 'sequelize';
import type { Context } from 'moleculer';
import { periodResetsAt, periodsEndingAt, quotaPeriod, usedInPeriod } from '../../lib/campaign/quota';
import { CAMPAIGN_STATES } from '../../lib/campaign/states';
import { keysetPage } from '../../lib/db/keyset';
import type { Campaign, CampaignEvent, Video } from '../../lib/db/models';
import { unauthorized } from '../../lib/errors';
import { CampaignIdParams, CampaignListSchema, LIST_LIMIT_DEFAULT, ListCampaignsQuery, UsageReportQuery } from '../../lib/http/api-schemas';
import { buildUsageReport, type UsageReport } from '../../lib/ops/reports';
import type {
  CampaignByIdParams,
  CampaignList,
  CampaignListView,
  CampaignMeta,
  CampaignsActionSchemas,
  ListCampaignsParams,
  ListQueryParams,
  TimelineEvent,
  UsageHistoryParams,
  UsageMonth,
  UsageReportParams,
  UsageResult,
} from './types';

export const readActions: CampaignsActionSchemas = {
  /**
   * The public list (decisions §11): the caller's organization only, newest first, by keyset on (created_at, id) —
   * a page never repeats or skips a campaign when others are created meanwhile, as an offset would.
   */
  list: {
    rest: 'GET /campaigns',
    scope: 'campaigns:read',
    params: ListCampaignsQuery,
    openapi: {
      summary: 'List campaigns, newest first',
      description:
        "The caller's organization's campaigns, each as GET shows it, in keyset pages: pass the previous page's next_cursor (and the same filters) for the next page. Campaigns created meanwhile never shift or repeat a page.",
      successStatus: 200,
      response: CampaignListSchema,
      responses: { 404: "not_found: batch_id names an unknown batch, or another organization's." },
    },
    async handler(ctx: Context<ListQueryParams, CampaignMeta>): Promise<CampaignListView> {
      const auth = ctx.meta.auth;
      if (!auth) throw unauthorized();
      const { models } = this.db;
      const conditions: WhereOptions<Attributes<Campaign>>[] = [];
      if (ctx.params.status) conditions.push({ status: ctx.params.status });
      if (ctx.params.created_after) conditions.push({ created_at: { [Op.gt]: new Date(ctx.params.created_after) } });
      if (ctx.params.created_before) conditions.push({ created_at: { [Op.lt]: new Date(ctx.params.created_before) } });
      // decisions §14: one batch's campaigns; an unknown or another organization's batch is 404, as GET of it is.
      if (ctx.params.batch_id !== undefined) {
        const batch = await this.ownedBatch(auth, ctx.params.batch_id);
        conditions.push({ batch_id: batch.id });
      }
      const {
        rows: page,
        has_more,
        next_cursor,
      } = await keysetPage<Campaign>(models.Campaign, {
        list: 'campaigns',
        orgId: auth.orgId,
        where: conditions,
        cursor: ctx.params.cursor,
        limit: ctx.params.limit ?? LIST_LIMIT_DEFAULT,
      });
      const videos: Video[] = page.length ? await models.Video.findAll({ where: { campaign_id: page.map((c) => c.id) } }) : [];
      return {
        success: true,
        campaigns: page.map((campaign) => {
          const { success: _envelope, ...listed } = this.present(
            campaign,
            videos.filter((v) => v.campaign_id === campaign.id),
          );
          return listed;
        }),
        has_more,
        next_cursor,
      };
    },
  },

  /**
   * The dashboard's list: numbered pages with a total; the caller's organization only (meta.auth), newest first,
   * optionally one status; or one batch's campaigns (batch_id), in the order of its items.
   */
  browse: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      properties: {
        status: { type: 'string', enum: [...CAMPAIGN_STATES] },
        page: { type: 'integer', minimum: 1, maximum: 100_000 },
        per_page: { type: 'integer', minimum: 1, maximum: 100 },
        batch_id: { type: 'string', format: 'uuid' },
      },
    },
    async handler(ctx: Context<ListCampaignsParams, CampaignMeta>): Promise<CampaignList> {
      const auth = ctx.meta.auth;
      if (!auth) throw unauthorized();
      const page = ctx.params.page ?? 1;
      const perPage = ctx.params.per_page ?? 20;
      const { rows, count } = await this.db.models.Campaign.findAndCountAll({
        where: {
          org_id: auth.orgId,
          ...(ctx.params.status ? { status: ctx.params.status } : {}),
          ...(ctx.params.batch_id ? { batch_id: ctx.params.batch_id.toLowerCase() } : {}),
        },
        order: ctx.params.batch_id
          ? [['batch_index', 'ASC']]
          : [
              ['created_at', 'DESC'],
              ['id', 'DESC'],
            ],
        limit: perPage,
        offset: (page - 1) * perPage,
      });
      return {
        campaigns: rows.map((c: Campaign) => ({
          campaign_id: c.id,
          title: c.title,
          url: c.url,
          status: c.status,
          progress: c.progress,
          languages: c.languages,
          platforms: c.platforms,
          created_at: new Date(c.created_at).toISOString(),
        })),
        total: count,
        page,
        per_page: perPage,
      };
    },
  },

  /** This month's campaigns against the plan's limit (the quota campaigns.create draws on). */
  usage: {
    visibility: 'public',
    async handler(ctx: Context<unknown, CampaignMeta>): Promise<UsageResult> {
      const auth = ctx.meta.auth;
      if (!auth) throw unauthorized();
      const period = quotaPeriod();
      const used = await usedInPeriod(this.db.sequelize, auth.orgId, period);
      return { period, used, limit: auth.limits.campaignsPerMonth, resets_at: periodResetsAt(period) };
    },
  },

  /**
   * A month's usage of the caller's organization (reports.usage asks): its quota counter, its campaigns by state
   * now, and its rendered videos by language and platform. A campaign belongs to the month it was counted in.
   */
  usageReport: {
    visibility: 'public',
    params: UsageReportQuery,
    async handler(ctx: Context<UsageReportParams, CampaignMeta>): Promise<UsageReport> {
      const auth = ctx.meta.auth;
      if (!auth) throw unauthorized();
      const { sequelize } = this.db;
      const month = ctx.params.month ?? quotaPeriod();
      const replacements = { orgId: auth.orgId, month };
      const [used, campaigns, videos] = await Promise.all([
        usedInPeriod(sequelize, auth.orgId, month),
        sequelize.query<{ status: string; count: number | string }>(
          'SELECT status, count(*) AS count FROM campaigns WHERE org_id = :orgId AND quota_period = :month GROUP BY status',
          { replacements, type: QueryTypes.SELECT },
        ),
        sequelize.query<{ language: string; platform: string; count: number | string; seconds: number | string | null }>(
          `SELECT v.language, v.platform, count(*) AS count, sum(v.duration_seconds) AS seconds
           FROM videos v JOIN campaigns c ON c.id = v.campaign_id
           WHERE c.org_id = :orgId AND c.quota_period = :month AND v.status = 'ready'
           GROUP BY v.language, v.platform`,
          { replacements, type: QueryTypes.SELECT },
        ),
      ]);
      return buildUsageReport(
        { month, used, limit: auth.limits.campaignsPerMonth, resets_at: periodResetsAt(month) },
        {
          campaigns: campaigns.map((row) => ({ status: row.status, count: Number(row.count) })),
          videos: videos.map((row) => ({
            language: row.language,
            platform: row.platform,
            count: Number(row.count),
            seconds: Number(row.seconds ?? 0),
          })),
        },
        CAMPAIGN_STATES,
      );
    },
  },

  /**
   * The caller's organization's last months (the dashboard's usage chart), oldest first, every month present (0 when
   * quiet): the quota counter as usageReport reads it, the campaigns counted in the month, and their videos rendered.
   */
  usageHistory: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      properties: { months: { type: 'integer', minimum: 1, maximum: 24 } },
    },
    async handler(ctx: Context<UsageHistoryParams, CampaignMeta>): Promise<UsageMonth[]> {
      const auth = ctx.meta.auth;
      if (!auth) throw unauthorized();
      const { sequelize } = this.db;
      const periods = periodsEndingAt(quotaPeriod(), ctx.params.months ?? 12);
      const replacements = { orgId: auth.orgId, periods };
      const [counters, campaigns, videos] = await Promise.all([
        sequelize.query<{ period: string; used: number | string }>(
          'SELECT period, used FROM usage_counters WHERE org_id = :orgId AND period IN (:periods)',
          { replacements, type: QueryTypes.SELECT },
        ),
        sequelize.query<{ period: string; count: number | string }>(
          'SELECT quota_period AS period, count(*) AS count FROM campaigns WHERE org_id = :orgId AND quota_period IN (:periods) GROUP BY quota_period',
          { replacements, type: QueryTypes.SELECT },
        ),
        sequelize.query<{ period: string; count: number | string }>(
          `SELECT c.quota_period AS period, count(*) AS count FROM videos v JOIN campaigns c ON c.id = v.campaign_id
           WHERE c.org_id = :orgId AND c.quota_period IN (:periods) AND v.status = 'ready' GROUP BY c.quota_period`,
          { replacements, type: QueryTypes.SELECT },
        ),
      ]);
      const byPeriod = (rows: Array<{ period: string; count?: number | string; used?: number | string }>) =>
        new Map(rows.map((row) => [row.period, Number(row.count ?? row.used ?? 0)]));
      const [used, made, rendered] = [byPeriod(counters), byPeriod(campaigns), byPeriod(videos)];
      return periods.map((month) => ({
        month,
        used: used.get(month) ?? 0,
        campaigns: made.get(month) ?? 0,
        videos_rendered: rendered.get(month) ?? 0,
      }));
    },
  },

  /** A campaign's transitions, oldest first; the caller's organization only. */
  timeline: {
    visibility: 'public',
    params: CampaignIdParams,
    async handler(ctx: Context<CampaignByIdParams, CampaignMeta>): Promise<TimelineEvent[]> {
      const { id } = await this.findOwned(ctx, { attributes: ['id'] });
      const events = await this.db.models.CampaignEvent.findAll({
        where: { campaign_id: id },
        order: [
          ['created_at', 'ASC'],
          ['id', 'ASC'],
        ],
      });
      return events.map((e: CampaignEvent) => ({
        from_status: e.from_status,
        to_status: e.to_status,
        detail: e.detail,
        at: new Date(e.created_at).toISOString(),
      }));
    },
  },
};
