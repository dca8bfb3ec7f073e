/**
 * The campaign actor: creates campaigns (quota, idempotency, one transaction), answers reads, and owns
 * the state machine (lib/campaign/states.ts). Each generating state is one stage, performed by the
 * action in STAGE_ACTIONS; a campaign whose stage has no running service waits in that state.
 */
import { UUID_ANY_CASE } from '../lib/ids';
import crypto from 'node:crypto';
import { Op, QueryTypes, UniqueConstraintError, type Attributes, type FindOptions, type Transaction, type WhereOptions } from 'sequelize';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import { configOf } from '../config';
import { DEFAULT_LANGUAGES, DEFAULT_PLATFORMS, isSupportedLanguage } from '../config/catalog';
import {
  CampaignIdParams,
  CampaignListSchema,
  CampaignSchema,
  CreatedCampaign,
  CreateCampaignBody,
  LIST_LIMIT_DEFAULT,
  ListCampaignsQuery,
  TITLE_MAX_CHARACTERS,
  UsageReportQuery,
  WebhookRedelivery,
} from '../lib/http/api-schemas';
import type { AuthContext } from '../lib/http/auth';
import {
  CAMPAIGN_STATES,
  canTransition,
  GENERATING_STATES,
  InvalidTransitionError,
  isGenerating,
  nextState,
  PROGRESS_ON_ENTRY,
  STAGE_ACTIONS,
  VIDEO_STATES,
  type CampaignState,
  type VideoState,
} from '../lib/campaign/states';
import type { Campaign, CampaignEvent, Video } from '../lib/db/models';
import { findCampaignWithVideos } from '../lib/db/reads';
import {
  CampaignCanceledError,
  conflict,
  invalidInput,
  isDatabaseUnavailable,
  notFound,
  quotaExceeded,
  STAGE_ERROR_CODES,
  STAGE_WAITS_ON,
  unauthorized,
} from '../lib/errors';
import type { CampaignCanceledEvent } from '../mixins/cancelable.mixin';
import {
  campaignTrace,
  STAGE_PARAMS_SCHEMA,
  type RecordVideoParams,
  type ScriptingResult,
  type StageInput,
  type StageParams,
  type VoiceoverResult,
} from '../lib/campaign/stages';
import { assertPublicUrl, guardFor, UrlRejectedError } from '../lib/net/net-guard';
import { periodResetsAt, quotaPeriod, refundQuota, reserveQuota, usedInPeriod } from '../lib/campaign/quota';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';
import {
  decodeListCursor,
  defaultTitle,
  encodeListCursor,
  pageLanguageCode,
  presentCampaign,
  type CampaignRow,
  type VideoRow,
} from '../lib/campaign/view';
import { FILE_COLUMNS, fileLinks, loadSigningKey, type FileKind, type FileLinks, type LinkableVideo } from '../lib/storage/file-links';
import { writeTerminalEvent } from '../lib/campaign/outbox';
import { optionsOf, type CampaignMetadata, type CampaignOptions } from '../lib/campaign/options';
import { buildUsageReport, type UsageReport } from '../lib/ops/reports';
import type { RedeliverParams, RedeliverResult } from '../lib/net/webhooks';
import type { CheckParams, CheckResult } from './capture.service';
import type { CloseAbandonedResult } from './rendering.service';

export interface CreateCampaignParams extends CampaignOptions {
  url: string;
  languages?: string[];
  title?: string;
  webhook_url?: string;
  platforms?: string[];
  metadata?: CampaignMetadata;
}
export interface CampaignMeta {
  auth?: AuthContext;
  idempotencyKey?: string;
  $statusCode?: number;
  /** moleculer-web turns this into the Location header. */
  $location?: string;
}
export interface TransitionParams {
  campaign_id: string;
  to: CampaignState;
  error_code?: string;
  error_message?: string;
  detail?: string;
}
/** campaigns.get and campaigns.publish: the campaign's id, from the path. */
export interface CampaignByIdParams {
  id: string;
}
export interface RenderProgressParams {
  campaign_id: string;
  done: number;
  total: number;
}
export interface DownloadTargetParams {
  video_id: string;
  kind: FileKind;
}

/** campaigns.list (GET /api/v1/campaigns): the query as validated (the gateway coerced `limit` to a number). */
export interface ListQueryParams {
  limit?: number;
  cursor?: string;
  status?: string;
  created_after?: string;
  created_before?: string;
}
/** campaigns.list's answer: campaigns as GET presents them, without their own `success`. */
export interface CampaignListView {
  success: true;
  campaigns: CampaignView[];
  has_more: boolean;
  next_cursor: string | null;
}
/** campaigns.browse (the dashboard): one numbered page of the caller's campaigns, newest first. */
export interface ListCampaignsParams {
  status?: string;
  page?: number;
  per_page?: number;
}
export interface CampaignListItem {
  campaign_id: string;
  title: string;
  url: string;
  status: string;
  progress: number;
  languages: string[];
  platforms: string[];
  created_at: string;
}
export interface CampaignList {
  campaigns: CampaignListItem[];
  total: number;
  page: number;
  per_page: number;
}
/** campaigns.usage: the organization's campaigns this month against its plan's limit. */
export interface UsageResult {
  period: string;
  used: number;
  limit: number;
  resets_at: string;
}
/** campaigns.usageReport's params: a UTC month, YYYY-MM (default: the current one). */
export interface UsageReportParams {
  month?: string;
}
export interface TimelineEvent {
  from_status: string | null;
  to_status: string;
  detail: string | null;
  at: string;
}

/** campaigns.create's answer (201, or the replayed answer of the same Idempotency-Key). */
export type CreateCampaignResult = { success: boolean; campaign_id: string; job_id: string; status: string };
/** campaigns.get's and campaigns.publish's answer: the public JSON of lib/campaign/view.ts. */
export type CampaignView = Record<string, unknown>;
export interface TransitionResult {
  campaign_id: string;
  status: string;
}
export interface RecordVideoResult {
  video_id: string;
  status: VideoState;
}
export interface RenderProgressResult {
  campaign_id: string;
  progress: number;
}
/** A campaign's terminal webhook event, as the dispatcher takes it over (lib/campaign/outbox.ts wrote it). */
export interface WebhookEvent {
  event_id: string;
  event_type: string;
  campaign_id: string;
  org_id: string;
  url: string;
  body: string;
  created_at: string;
}
export interface DownloadTargetResult {
  storage_key: string | null;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

interface NormalizedCampaign {
  url: string;
  languages: string[];
  platforms: string[];
  title: string;
  webhook_url: string | null;
  /** brand.logo_url, checked and normalized like the page's URL */
  logo_url: string | null;
  /** music.url, checked and normalized like the page's URL */
  music_url: string | null;
}

type CampaignsSettings = ServiceSettingSchema;

type CampaignsMethods = DbMethods & {
  normalize(params: CreateCampaignParams, auth: AuthContext): Promise<NormalizedCampaign>;
  replayOrConflict(orgId: string, key: string, requestHash: string, meta: CampaignMeta): Promise<CreateCampaignResult>;
  findOwned(ctx: Context<CampaignByIdParams, CampaignMeta>, options?: Omit<FindOptions<Attributes<Campaign>>, 'where'>): Promise<Campaign>;
  present(campaign: CampaignRow, videos: VideoRow[]): CampaignView;
  ownedCampaignId(ctx: Context<CampaignByIdParams, CampaignMeta>): { id: string; orgId: string };
  links(video: LinkableVideo): FileLinks;
  applyTransition(params: TransitionParams, outer?: Transaction): Promise<Campaign>;
  advance(campaignId: string): Promise<void>;
  recordStageResult(state: CampaignState, result: unknown, transaction: Transaction): Promise<void>;
  takeLease(campaignId: string): Promise<boolean>;
  sweep(): Promise<void>;
  closeAbandoned(now: Date): Promise<void>;
  resumeWaiting(): Promise<void>;
};

/** What the actor keeps on `this`: the reaper's timer, the stop flag, and the campaigns this node is advancing. */
interface CampaignsLocalVars {
  sweepTimer?: NodeJS.Timeout;
  stopping?: boolean;
  running?: Set<string>;
}

type CampaignsThis = Service<CampaignsSettings> & CampaignsMethods & CampaignsLocalVars;

const CampaignsService: ServiceSchema<CampaignsSettings, CampaignsMethods, CampaignsLocalVars> = {
  name: 'campaigns',
  mixins: [DbMixin({ model: 'Campaign' })],

  started() {
    const tick = () => {
      this.sweep()
        .catch((err: Error) => this.logger.warn(`sweep failed: ${err.message}`))
        .finally(() => {
          if (!this.stopping) this.sweepTimer = setTimeout(tick, configOf(this.broker).campaignSweepMs);
        });
    };
    this.sweepTimer = setTimeout(tick, configOf(this.broker).campaignSweepMs);
  },

  stopped() {
    this.stopping = true;
    clearTimeout(this.sweepTimer);
  },

  actions: {
    create: {
      rest: 'POST /campaigns',
      scope: 'campaigns:create',
      rateLimit: 'plan',
      params: CreateCampaignBody,
      openapi: {
        summary: 'Create a campaign',
        description:
          'Starts generating narrated videos of a public page, one per language and platform. Answers as soon as collection starts (201, status collecting); poll GET /api/v1/campaigns/{id} or give a webhook_url. One campaign of the monthly quota; the same Idempotency-Key and body within 24 h returns the first answer again.',
        successStatus: 201,
        response: CreatedCampaign,
      },
      async handler(ctx: Context<CreateCampaignParams, CampaignMeta>): Promise<CreateCampaignResult> {
        const auth = ctx.meta.auth;
        if (!auth) throw unauthorized();
        const idempotencyKey = ctx.meta.idempotencyKey;
        if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
          throw invalidInput('Idempotency-Key must be 1–255 visible ASCII characters');
        }
        const requestHash = crypto.createHash('sha256').update(canonicalJson(ctx.params)).digest('hex');
        if (idempotencyKey) {
          const previous = await this.db.models.IdempotencyRecord.findOne({ where: { org_id: auth.orgId, key: idempotencyKey } });
          if (previous && Date.now() - new Date(previous.created_at).getTime() < configOf(this.broker).idempotencyTtlMs) {
            return this.replayOrConflict(auth.orgId, idempotencyKey, requestHash, ctx.meta);
          }
        }

        const campaign = await this.normalize(ctx.params, auth);
        const { models, sequelize } = this.db;
        const config = configOf(this.broker);
        // A cheap read first, so a create the quota will refuse never loads the page; the reservation below stays the guard.
        const used = await usedInPeriod(sequelize, auth.orgId, quotaPeriod());
        if (used >= auth.limits.campaignsPerMonth) {
          throw quotaExceeded({ used, limit: auth.limits.campaignsPerMonth, resets_at: periodResetsAt(quotaPeriod()) });
        }
        // decisions §1: the call waits for the first load and check of the page; 422 creates nothing.
        try {
          await ctx.call<CheckResult, CheckParams>(
            'capture.check',
            {
              url: campaign.url,
              ...(campaign.logo_url ? { logo_url: campaign.logo_url } : {}),
              ...(campaign.music_url ? { music_url: campaign.music_url } : {}),
            },
            { timeout: config.captureCheckTimeoutMs, retries: 0 },
          );
        } catch (err) {
          if ((err as { type?: string }).type === 'REQUEST_TIMEOUT') throw invalidInput('The page did not load in time.', 422);
          throw err;
        }
        const now = new Date();
        const campaignId = crypto.randomUUID();
        const body: CreateCampaignResult = { success: true, campaign_id: campaignId, job_id: crypto.randomUUID(), status: 'collecting' };
        const period = quotaPeriod(now);
        try {
          await sequelize.transaction(async (transaction: Transaction) => {
            if (idempotencyKey) {
              // First, so that a concurrent twin waits here on the key and then replays our answer.
              // Only an expired record may be replaced; a live one (even a twin committed a moment ago) must win.
              await models.IdempotencyRecord.destroy({
                where: {
                  org_id: auth.orgId,
                  key: idempotencyKey,
                  created_at: { [Op.lt]: new Date(now.getTime() - config.idempotencyTtlMs) },
                },
                transaction,
              });
              await models.IdempotencyRecord.create(
                {
                  org_id: auth.orgId,
                  key: idempotencyKey,
                  request_hash: requestHash,
                  status_code: 201,
                  response_body: body,
                  created_at: now,
                },
                { transaction },
              );
            }
            await reserveQuota(sequelize, transaction, auth.orgId, period, auth.limits.campaignsPerMonth);
            await models.Campaign.create(
              {
                id: campaignId,
                org_id: auth.orgId,
                job_id: body.job_id,
                status: 'collecting',
                url: campaign.url,
                title: campaign.title,
                languages: campaign.languages,
                platforms: campaign.platforms,
                webhook_url: campaign.webhook_url,
                options: optionsOf({
                  ...ctx.params,
                  ...(campaign.logo_url ? { brand: { ...ctx.params.brand, logo_url: campaign.logo_url } } : {}),
                  ...(campaign.music_url ? { music: { ...ctx.params.music, url: campaign.music_url } } : {}),
                }),
                metadata: ctx.params.metadata && Object.keys(ctx.params.metadata).length ? ctx.params.metadata : null,
                progress: PROGRESS_ON_ENTRY.collecting,
                quota_period: period,
                status_changed_at: now,
                deadline_at: new Date(now.getTime() + config.campaignMaxDurationMs),
              },
              { transaction },
            );
            await models.Video.bulkCreate(
              campaign.languages.flatMap((language: string) =>
                campaign.platforms.map((platform: string) => ({
                  campaign_id: campaignId,
                  language,
                  platform,
                  status: 'queued',
                })),
              ),
              { transaction },
            );
            await models.CampaignEvent.create(
              { campaign_id: campaignId, from_status: null, to_status: 'collecting', detail: 'created', created_at: now },
              { transaction },
            );
          });
        } catch (err) {
          if (idempotencyKey && err instanceof UniqueConstraintError) {
            return this.replayOrConflict(auth.orgId, idempotencyKey, requestHash, ctx.meta);
          }
          throw err;
        }
        ctx.meta.$statusCode = 201;
        ctx.meta.$location = `/api/v1/campaigns/${campaignId}`;
        this.advance(campaignId).catch((err: Error) => this.logger.error(`campaign ${campaignId}: advance failed`, err.message));
        return body;
      },
    },

    get: {
      rest: 'GET /campaigns/:id',
      scope: 'campaigns:read',
      params: CampaignIdParams,
      openapi: {
        summary: 'Read a campaign and its videos',
        description:
          'The source of truth for a campaign: its status, progress, videos with signed download links once ready, error when failed, and report_id once it has an outcome. Polling every 10–15 s stays within the rate limits.',
        successStatus: 200,
        response: CampaignSchema,
      },
      async handler(ctx: Context<CampaignByIdParams, CampaignMeta>): Promise<CampaignView> {
        const { id, orgId } = this.ownedCampaignId(ctx);
        // The read path (issue 15 item 8): one statement, plain rows (lib/db/reads.ts).
        const found = await findCampaignWithVideos(this.db.sequelize, id, orgId);
        if (!found) throw notFound();
        return this.present(found.campaign, found.videos);
      },
    },

    /** decisions §3: review → published; every ready video gets its published_at. */
    publish: {
      rest: 'POST /campaigns/:id/publish',
      scope: 'campaigns:create',
      params: CampaignIdParams,
      openapi: {
        summary: 'Publish a campaign that is in review',
        description: 'Moves a campaign from review to published; every ready video gets its published_at. From any other state: 409.',
        successStatus: 200,
        response: CampaignSchema,
      },
      async handler(ctx: Context<CampaignByIdParams, CampaignMeta>): Promise<CampaignView> {
        const { models, sequelize } = this.db;
        const { id } = await this.findOwned(ctx, { attributes: ['id'] });
        const now = new Date();
        try {
          await sequelize.transaction(async (transaction: Transaction) => {
            await this.applyTransition({ campaign_id: id, to: 'published', detail: 'published by the customer' }, transaction);
            await models.Video.update({ published_at: now }, { where: { campaign_id: id, status: 'ready' }, transaction });
          });
        } catch (err) {
          if (err instanceof InvalidTransitionError) throw conflict(`Only a campaign in review can be published; this one is ${err.from}.`);
          throw err;
        }
        // The row was just moved under lock, so it is there.
        const campaign = (await models.Campaign.findByPk(id, { include: [{ model: models.Video, as: 'videos' }] }))!;
        return this.present(campaign, campaign.videos ?? []);
      },
    },

    /**
     * Cancel (decisions §11): a generating campaign becomes `failed` with `canceled` (quota refunded, `campaign.failed`
     * written with the transition), then every node is told to stop its work in flight (mixins/cancelable.mixin.ts).
     */
    cancel: {
      rest: 'POST /campaigns/:id/cancel',
      scope: 'campaigns:create',
      params: CampaignIdParams,
      openapi: {
        summary: 'Cancel a campaign that is still generating',
        description:
          'Stops a generating campaign: it becomes failed with error.code canceled, its quota is refunded, campaign.failed is sent, and work in flight on every node stops. From review, published or failed: 409.',
        successStatus: 200,
        response: CampaignSchema,
      },
      async handler(ctx: Context<CampaignByIdParams, CampaignMeta>): Promise<CampaignView> {
        const { models, sequelize } = this.db;
        const { id } = await this.findOwned(ctx, { attributes: ['id'] });
        const reason = { error_code: 'canceled', error_message: 'Canceled by the customer.' };
        try {
          await sequelize.transaction(async (transaction: Transaction) => {
            // The campaign row first, as every writer locks it, then its unfinished videos, then the transition
            // (whose campaign.failed body shows them failed too).
            await models.Campaign.findByPk(id, { transaction, lock: true });
            await models.Video.update(
              { status: 'failed', ...reason },
              { where: { campaign_id: id, status: ['queued', 'rendering'] }, transaction },
            );
            await this.applyTransition({ campaign_id: id, to: 'failed', ...reason, detail: 'canceled by the customer' }, transaction);
          });
        } catch (err) {
          if (err instanceof InvalidTransitionError) throw conflict(`Only a generating campaign can be canceled; this one is ${err.from}.`);
          throw err;
        }
        await this.broker.broadcast<CampaignCanceledEvent>('campaigns.canceled', { campaign_id: id });
        const campaign = (await models.Campaign.findByPk(id, { include: [{ model: models.Video, as: 'videos' }] }))!;
        return this.present(campaign, campaign.videos ?? []);
      },
    },

    /**
     * Redelivery (decisions §11): the campaign's terminal event again, same event id, signed afresh — for a customer
     * whose endpoint was down or lost it. The actor checks the campaign (the caller's, terminal, with a webhook_url);
     * the dispatcher, which owns the deliveries, counts the allowance and sends it.
     */
    redeliverWebhook: {
      rest: 'POST /campaigns/:id/webhook/redeliver',
      scope: 'campaigns:create',
      params: CampaignIdParams,
      openapi: {
        summary: "Send a campaign's terminal webhook event again",
        description:
          'For a receiver that was down or lost it: the same event id and body, a fresh timestamp and signature, sent at once (one attempt per request). 10 requests per campaign in any 24 hours.',
        tag: 'Webhooks',
        successStatus: 202,
        response: WebhookRedelivery,
        responses: {
          409: 'conflict: the campaign is still generating, or was created without a webhook_url.',
          429: 'rate_limited: a request limit (limiter body), or this campaign was redelivered 10 times in the last 24 hours (standard body, details { limit, retry_after_seconds }); both with Retry-After.',
        },
      },
      async handler(ctx: Context<CampaignByIdParams, CampaignMeta>): Promise<RedeliverResult & { success: true }> {
        const campaign = await this.findOwned(ctx, { attributes: ['id', 'status', 'webhook_url'] });
        if (isGenerating(campaign.status))
          throw conflict(`The campaign is ${campaign.status}; its webhook event is sent when it reaches review or failed.`);
        if (!campaign.webhook_url) throw conflict('The campaign was created without a webhook_url: there is no webhook event to send.');
        const result = await ctx.call<RedeliverResult, RedeliverParams>('webhooks.redeliver', { campaign_id: campaign.id });
        ctx.meta.$statusCode = 202;
        return { success: true, ...result };
      },
    },

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
      },
      async handler(ctx: Context<ListQueryParams, CampaignMeta>): Promise<CampaignListView> {
        const auth = ctx.meta.auth;
        if (!auth) throw unauthorized();
        const { models, sequelize } = this.db;
        const limit = ctx.params.limit ?? LIST_LIMIT_DEFAULT;
        const conditions: WhereOptions<Attributes<Campaign>>[] = [{ org_id: auth.orgId }];
        if (ctx.params.status) conditions.push({ status: ctx.params.status });
        if (ctx.params.created_after) conditions.push({ created_at: { [Op.gt]: new Date(ctx.params.created_after) } });
        if (ctx.params.created_before) conditions.push({ created_at: { [Op.lt]: new Date(ctx.params.created_before) } });
        if (ctx.params.cursor !== undefined) {
          const after = decodeListCursor(ctx.params.cursor);
          // The position is the cursor campaign's own row, read by the database: no timestamp precision is lost.
          if (!after || !(await models.Campaign.count({ where: { id: after, org_id: auth.orgId } })))
            throw invalidInput("cursor is not valid: pass the previous page's next_cursor as it is.");
          conditions.push(
            sequelize.literal(
              `("created_at", "id") < (SELECT c."created_at", c."id" FROM "campaigns" AS c WHERE c."id" = ${sequelize.escape(after)})`,
            ),
          );
        }
        const rows: Campaign[] = await models.Campaign.findAll({
          where: { [Op.and]: conditions },
          order: [
            ['created_at', 'DESC'],
            ['id', 'DESC'],
          ],
          limit: limit + 1,
        });
        const page = rows.slice(0, limit);
        const videos: Video[] = page.length ? await models.Video.findAll({ where: { campaign_id: page.map((c) => c.id) } }) : [];
        const hasMore = rows.length > limit;
        return {
          success: true,
          campaigns: page.map((campaign) => {
            const { success: _envelope, ...listed } = this.present(
              campaign,
              videos.filter((v) => v.campaign_id === campaign.id),
            );
            return listed;
          }),
          has_more: hasMore,
          next_cursor: hasMore ? encodeListCursor(page[page.length - 1].id) : null,
        };
      },
    },

    /** The dashboard's list: numbered pages with a total; the caller's organization only (meta.auth), newest first, optionally one status. */
    browse: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        properties: {
          status: { type: 'string', enum: [...CAMPAIGN_STATES] },
          page: { type: 'integer', minimum: 1, maximum: 100_000 },
          per_page: { type: 'integer', minimum: 1, maximum: 100 },
        },
      },
      async handler(ctx: Context<ListCampaignsParams, CampaignMeta>): Promise<CampaignList> {
        const auth = ctx.meta.auth;
        if (!auth) throw unauthorized();
        const page = ctx.params.page ?? 1;
        const perPage = ctx.params.per_page ?? 20;
        const { rows, count } = await this.db.models.Campaign.findAndCountAll({
          where: { org_id: auth.orgId, ...(ctx.params.status ? { status: ctx.params.status } : {}) },
          order: [
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

    /** Moves a campaign along the state table; stages and operators call this. */
    transition: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['campaign_id', 'to'],
        properties: {
          campaign_id: { type: 'string', pattern: UUID_ANY_CASE.source },
          to: { type: 'string' },
          error_code: { type: 'string', maxLength: 40 },
          error_message: { type: 'string', maxLength: 2000 },
          detail: { type: 'string', maxLength: 2000 },
        },
      },
      async handler(ctx: Context<TransitionParams>): Promise<TransitionResult> {
        const campaign = await this.applyTransition(ctx.params);
        return { campaign_id: campaign.id, status: campaign.status };
      },
    },

    /** What a stage needs to know of a campaign and its videos: stages ask the owner, never its tables. */
    stageInput: {
      visibility: 'public',
      params: STAGE_PARAMS_SCHEMA,
      async handler(ctx: Context<StageParams>): Promise<StageInput> {
        const { Campaign: Campaigns, Video: Videos } = this.db.models;
        const campaign: Campaign | null = await Campaigns.findByPk(ctx.params.campaign_id, { include: [{ model: Videos, as: 'videos' }] });
        if (!campaign) throw notFound();
        return {
          id: campaign.id,
          url: campaign.url,
          title: campaign.title,
          status: campaign.status,
          languages: campaign.languages,
          platforms: campaign.platforms,
          options: campaign.options ?? null,
          videos: (campaign.videos ?? []).map((video) => ({
            id: video.id,
            campaign_id: video.campaign_id,
            language: video.language,
            platform: video.platform,
            status: video.status,
            file_key: video.file_key ?? null,
            thumbnail_key: video.thumbnail_key ?? null,
            captions_srt_key: video.captions_srt_key ?? null,
            script_source: video.script_source ?? null,
          })),
        };
      },
    },

    /** The rendering stage reports each video's progress here, as it happens. */
    recordVideo: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['video_id', 'status'],
        properties: {
          video_id: { type: 'string', maxLength: 64 },
          status: { type: 'string', enum: [...VIDEO_STATES] },
          file_key: { type: 'string', maxLength: 500 },
          thumbnail_key: { type: 'string', maxLength: 500 },
          captions_srt_key: { type: 'string', maxLength: 500 },
          duration_seconds: { type: 'number', minimum: 0 },
          error_code: { type: ['string', 'null'], maxLength: 40 },
          error_message: { type: ['string', 'null'], maxLength: 2000 },
        },
      },
      async handler(ctx: Context<RecordVideoParams>): Promise<RecordVideoResult> {
        const { video_id: videoId, ...changes } = ctx.params;
        await this.db.models.Video.update(changes, { where: { id: videoId } });
        return { video_id: videoId, status: changes.status };
      },
    },

    /** Progress within the rendering band, as videos finish (never 100: that is review's). */
    recordRenderProgress: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['campaign_id', 'done', 'total'],
        properties: {
          campaign_id: { type: 'string', maxLength: 64 },
          done: { type: 'integer', minimum: 0 },
          total: { type: 'integer', minimum: 0 },
        },
      },
      async handler(ctx: Context<RenderProgressParams>): Promise<RenderProgressResult> {
        const { campaign_id: campaignId, done, total } = ctx.params;
        const band = PROGRESS_ON_ENTRY.review - PROGRESS_ON_ENTRY.rendering;
        const progress = Math.min(99, PROGRESS_ON_ENTRY.rendering + Math.floor((band * done) / Math.max(1, total)));
        await this.db.models.Campaign.update({ progress }, { where: { id: campaignId, status: 'rendering' } });
        return { campaign_id: campaignId, progress };
      },
    },

    /** The gateway's download: the stored file of a ready video, or null. The signature was checked before. */
    downloadTarget: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['video_id', 'kind'],
        properties: { video_id: { type: 'string', maxLength: 64 }, kind: { type: 'string', enum: Object.keys(FILE_COLUMNS) } },
      },
      async handler(ctx: Context<DownloadTargetParams>): Promise<DownloadTargetResult> {
        const column = FILE_COLUMNS[ctx.params.kind];
        const video: Video | null = await this.db.models.Video.findByPk(ctx.params.video_id, { attributes: ['id', 'status', column] });
        if (video?.status !== 'ready') return { storage_key: null };
        return { storage_key: video[column] ?? null };
      },
    },

    /**
     * The webhook dispatcher's intake (internal; every organization's): terminal events not yet handed over,
     * oldest first. The dispatcher makes each a delivery, then says so with webhookEventsHandedOver.
     */
    webhookEvents: {
      visibility: 'public',
      params: { type: 'object', additionalProperties: false, properties: { limit: { type: 'integer', minimum: 1, maximum: 500 } } },
      async handler(ctx: Context<{ limit?: number }>): Promise<WebhookEvent[]> {
        const events = await this.db.models.CampaignWebhookEvent.findAll({
          where: { handed_over_at: null },
          order: [['created_at', 'ASC']],
          limit: ctx.params.limit ?? 100,
        });
        return events.map(({ event_id, event_type, campaign_id, org_id, url, body, created_at }) => ({
          event_id,
          event_type,
          campaign_id,
          org_id,
          url,
          body,
          created_at: new Date(created_at).toISOString(),
        }));
      },
    },

    webhookEventsHandedOver: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['event_ids'],
        properties: { event_ids: { type: 'array', maxItems: 500, items: { type: 'string', maxLength: 40 } } },
      },
      async handler(ctx: Context<{ event_ids: string[] }>): Promise<{ handed_over: number }> {
        const [handedOver] = await this.db.models.CampaignWebhookEvent.update(
          { handed_over_at: new Date() },
          { where: { event_id: ctx.params.event_ids, handed_over_at: null } },
        );
        return { handed_over: handedOver };
      },
    },
  },

  events: {
    /** A stage service joined somewhere in the cluster: campaigns waiting for it can move on. */
    '$services.changed'() {
      this.resumeWaiting().catch((err: Error) => this.logger.warn('resume after services change failed', err.message));
    },
  },

  methods: {
    async normalize(params: CreateCampaignParams, auth: AuthContext): Promise<NormalizedCampaign> {
      const config = configOf(this.broker);
      const guard = guardFor(config);
      let url: URL;
      let webhookUrl: URL | undefined;
      let logoUrl: URL | undefined;
      let musicUrl: URL | undefined;
      try {
        url = await assertPublicUrl(params.url, { ...guard, field: 'url', httpsOnly: false });
        if (params.webhook_url !== undefined)
          webhookUrl = await assertPublicUrl(params.webhook_url, { ...guard, field: 'webhook_url', httpsOnly: true });
        if (params.brand?.logo_url !== undefined)
          logoUrl = await assertPublicUrl(params.brand.logo_url, { ...guard, field: 'brand.logo_url', httpsOnly: false });
        if (params.music?.url !== undefined)
          musicUrl = await assertPublicUrl(params.music.url, { ...guard, field: 'music.url', httpsOnly: false });
      } catch (err) {
        if (err instanceof UrlRejectedError) throw invalidInput(err.message, err.status);
        throw err;
      }
      const languages = [...new Set((params.languages ?? DEFAULT_LANGUAGES).map((code) => code.toLowerCase()))];
      const unknown = languages.find((code) => !isSupportedLanguage(code));
      if (unknown) throw invalidInput(`languages: "${unknown}" is not a supported language code`);
      if (languages.length > auth.limits.languagesPerCampaign) {
        throw invalidInput(
          `languages: the ${auth.plan} plan allows at most ${auth.limits.languagesPerCampaign} languages per campaign (got ${languages.length})`,
        );
      }
      const notAsked = Object.keys(params.voice ?? {}).find((language) => !languages.includes(language));
      if (notAsked) throw invalidInput(`voice: "${notAsked}" is not one of the campaign's languages (${languages.join(', ')})`);
      // An explicit title was trimmed and measured (in code points) by its schema; the default is cut to fit.
      const title = params.title ?? [...defaultTitle(url)].slice(0, TITLE_MAX_CHARACTERS).join('');
      return {
        url: url.href,
        languages,
        platforms: params.platforms ?? [...DEFAULT_PLATFORMS],
        title,
        webhook_url: webhookUrl?.href ?? null,
        logo_url: logoUrl?.href ?? null,
        music_url: musicUrl?.href ?? null,
      };
    },

    async replayOrConflict(orgId: string, key: string, requestHash: string, meta: CampaignMeta) {
      const record = await this.db.models.IdempotencyRecord.findOne({ where: { org_id: orgId, key } });
      if (!record) throw conflict('A request with this Idempotency-Key is being processed; re-check, then retry.');
      if (record.request_hash !== requestHash) throw conflict('This Idempotency-Key was already used with a different request body.');
      const body = record.response_body as CreateCampaignResult;
      meta.$statusCode = record.status_code;
      meta.$location = `/api/v1/campaigns/${body.campaign_id}`;
      return body;
    },

    /** The caller's campaign; malformed, unknown and foreign ids answer alike, so other organizations' ids cannot be probed. */
    /** The campaign id asked for, and the caller's organization: a malformed id answers 404 like an unknown one. */
    ownedCampaignId(ctx: Context<CampaignByIdParams, CampaignMeta>) {
      const auth = ctx.meta.auth;
      if (!auth) throw unauthorized();
      if (!UUID_ANY_CASE.test(ctx.params.id)) throw notFound();
      return { id: ctx.params.id.toLowerCase(), orgId: auth.orgId };
    },

    async findOwned(ctx: Context<CampaignByIdParams, CampaignMeta>, options: Omit<FindOptions<Attributes<Campaign>>, 'where'> = {}) {
      const { id, orgId } = this.ownedCampaignId(ctx);
      const campaign = await this.db.models.Campaign.findOne({ where: { id, org_id: orgId }, ...options });
      if (!campaign) throw notFound();
      return campaign;
    },

    present(campaign: CampaignRow, videos: VideoRow[]) {
      return presentCampaign(campaign, videos, (video) => this.links(video));
    },

    links(video: LinkableVideo) {
      const config = configOf(this.broker);
      return fileLinks(config, loadSigningKey(config), video);
    },

    async applyTransition(params: TransitionParams, outer?: Transaction) {
      const { models, sequelize } = this.db;
      const work = async (transaction: Transaction) => {
        const campaign: Campaign | null = await models.Campaign.findByPk(params.campaign_id, { transaction, lock: true });
        if (!campaign) throw notFound();
        if (!canTransition(campaign.status, params.to)) throw new InvalidTransitionError(campaign.status, params.to);
        const now = new Date();
        const from = campaign.status;
        const changes: Partial<Campaign> = { status: params.to, status_changed_at: now };
        if (params.to === 'failed') {
          changes.error_code = params.error_code ?? 'internal';
          changes.error_message = params.error_message ?? 'Generation failed.';
          await refundQuota(sequelize, transaction, campaign.org_id, campaign.quota_period);
        } else {
          changes.progress = PROGRESS_ON_ENTRY[params.to];
        }
        // Guarded by the status we read under lock: a concurrent mover makes this a no-op, not a double step.
        const [updated] = await models.Campaign.update(changes, { where: { id: campaign.id, status: from }, transaction });
        if (updated !== 1) throw new InvalidTransitionError(from, params.to);
        await models.CampaignEvent.create(
          {
            campaign_id: campaign.id,
            from_status: from,
            to_status: params.to,
            detail: params.detail ?? params.error_message ?? null,
            created_at: now,
          },
          { transaction },
        );
        Object.assign(campaign, changes);
        if (await writeTerminalEvent(models, transaction, campaign, (video) => this.links(video), now)) {
          transaction.afterCommit(() => this.broker.emit('webhooks.enqueued', { campaign_id: campaign.id }));
        }
        return campaign;
      };
      return outer ? work(outer) : sequelize.transaction(work);
    },

    /** Runs the stage of the campaign's current state if a service offers it; otherwise the campaign waits. */
    async advance(campaignId: string) {
      if (configOf(this.broker).pipelinePaused) return;
      this.running ??= new Set<string>();
      if (this.running.has(campaignId)) return;
      this.running.add(campaignId);
      let renew: NodeJS.Timeout | undefined;
      try {
        // One actor per campaign across the cluster: the lease is renewed while this one works on it.
        if (!(await this.takeLease(campaignId))) return;
        renew = setInterval(
          () => void this.takeLease(campaignId).catch(() => undefined),
          Math.max(1000, configOf(this.broker).campaignLeaseMs / 3),
        );
        for (;;) {
          const campaign: Campaign | null = await this.db.models.Campaign.findByPk(campaignId);
          if (!campaign || !isGenerating(campaign.status)) return;
          // Past its deadline, no further stage starts: the reaper fails it with timeout.
          if (new Date(campaign.deadline_at).getTime() < Date.now()) return;
          const action = STAGE_ACTIONS[campaign.status];
          if (!this.broker.registry.getActionEndpoints(action)?.hasAvailable()) {
            this.logger.debug(`campaign ${campaignId} waits in ${campaign.status}: no service offers ${action}`);
            return;
          }
          const from = campaign.status;
          const result = await this.broker.call(action, { campaign_id: campaignId }, campaignTrace(campaignId));
          // Stages compute and return; what they found about the videos is recorded here, with the step.
          await this.db.sequelize.transaction(async (transaction: Transaction) => {
            // The campaign row is locked first, as publish does, so the two never wait on each other.
            await this.applyTransition({ campaign_id: campaignId, to: nextState(from)!, detail: `${action} done` }, transaction);
            await this.recordStageResult(from, result, transaction);
          });
        }
      } catch (err) {
        const e = err as { message?: string; retryable?: boolean; type?: string; code?: number };
        // Canceled (or timed out) while its stage ran: the campaign is failed already, and its stage's end changes nothing.
        if (e.type === CampaignCanceledError.TYPE || err instanceof InvalidTransitionError) {
          this.logger.info(`campaign ${campaignId}: ended while its stage ran (${e.message})`);
          return;
        }
        if (STAGE_WAITS_ON.has(e.type ?? '') || isDatabaseUnavailable(err)) {
          // Not the campaign's fault (a node stopping, a stage gone, the database down, met here or in the stage): it
          // waits and is resumed when the stage (or the database) is back.
          this.logger.warn(`campaign ${campaignId}: stage interrupted, will resume: ${e.message}`);
          return;
        }
        this.logger.error(`campaign ${campaignId}: stage failed: ${e.message}`);
        const known = (STAGE_ERROR_CODES as readonly string[]).includes(e.type ?? '');
        await this.applyTransition({
          campaign_id: campaignId,
          to: 'failed',
          error_code: known ? e.type : 'internal',
          error_message: known ? e.message : 'A generation step failed.',
        }).catch((inner: Error) => this.logger.error(`campaign ${campaignId}: could not record failure`, inner.message));
      } finally {
        clearInterval(renew);
        this.running.delete(campaignId);
        await this.db.models.Campaign.update(
          { lease_owner: null, lease_expires_at: null },
          { where: { id: campaignId, lease_owner: this.broker.nodeID } },
        ).catch(() => undefined);
      }
    },

    /** The videos' part of a stage's result (lib/campaign/stages.ts), recorded by their owner. */
    async recordStageResult(state: CampaignState, result: unknown, transaction: Transaction) {
      const { Video: Videos } = this.db.models;
      if (state === 'scripting') {
        const { campaign_id: campaignId, script_sources: sources, page_language: pageLanguage } = result as ScriptingResult;
        for (const { language, script_source: source } of sources) {
          await Videos.update({ script_source: source }, { where: { campaign_id: campaignId, language }, transaction });
        }
        // Named by the warning of a video narrated in it (lib/campaign/view.ts); a page's declared language is its text.
        const page = pageLanguageCode(pageLanguage);
        if (page) await this.db.models.Campaign.update({ page_language: page }, { where: { id: campaignId }, transaction });
      } else if (state === 'voiceover') {
        const { campaign_id: campaignId, captions } = result as VoiceoverResult;
        for (const { video_id: videoId, captions_key: captionsKey } of captions) {
          await Videos.update({ captions_key: captionsKey }, { where: { id: videoId, campaign_id: campaignId }, transaction });
        }
      }
    },

    /** Takes (or renews) the campaign's lease for this node; false while another live actor holds it. */
    async takeLease(campaignId: string) {
      const now = new Date();
      const [taken] = await this.db.models.Campaign.update(
        { lease_owner: this.broker.nodeID, lease_expires_at: new Date(now.getTime() + configOf(this.broker).campaignLeaseMs) },
        {
          where: {
            id: campaignId,
            [Op.or]: [{ lease_owner: null }, { lease_owner: this.broker.nodeID }, { lease_expires_at: { [Op.lt]: now } }],
          },
        },
      );
      return taken === 1;
    },

    /**
     * The reaper: a campaign past its deadline fails with `timeout`; a generating campaign whose actor is
     * gone (no live lease) is taken over, and a stalled step thereby retried.
     */
    async sweep() {
      const config = configOf(this.broker);
      if (config.pipelinePaused) return;
      const { Campaign: Campaigns } = this.db.models;
      const now = new Date();
      const generating = [...GENERATING_STATES];
      const late = await Campaigns.findAll({
        where: { status: generating, deadline_at: { [Op.lt]: now } },
        attributes: ['id'],
        limit: 100,
      });
      for (const { id } of late) {
        const minutes = Math.round(config.campaignMaxDurationMs / 60_000);
        await this.applyTransition({
          campaign_id: id,
          to: 'failed',
          error_code: 'timeout',
          error_message: `The campaign did not finish within ${minutes} minutes.`,
        }).catch((err: Error) => this.logger.warn(`campaign ${id}: timeout not recorded: ${err.message}`));
      }
      const orphaned = await Campaigns.findAll({
        // Not the late ones: a campaign inserted between the two queries would otherwise run a stage instead of timing out.
        where: {
          status: generating,
          deadline_at: { [Op.gte]: now },
          [Op.or]: [{ lease_owner: null }, { lease_expires_at: { [Op.lt]: now } }],
        },
        attributes: ['id'],
        limit: 100,
      });
      for (const { id } of orphaned) this.advance(id).catch(() => undefined);
      await this.closeAbandoned(now);
    },

    /**
     * A campaign that ended (canceled, timed out) while its actor was dead still names that actor in its lease,
     * and may have render attempts the dead node had open. Their owner closes them as `lost`, then the lease is
     * let go. Generating campaigns need none of this: the actor taking one over runs its stage, which does the same.
     */
    async closeAbandoned(now: Date) {
      const { Campaign: Campaigns } = this.db.models;
      const ended = await Campaigns.findAll({
        where: { status: { [Op.notIn]: [...GENERATING_STATES] }, lease_owner: { [Op.ne]: null }, lease_expires_at: { [Op.lt]: now } },
        attributes: ['id', 'lease_owner'],
        limit: 100,
      });
      if (ended.length === 0 || !this.broker.registry.getActionEndpoints('rendering.closeAbandoned')?.hasAvailable()) return;
      for (const { id, lease_owner: owner } of ended) {
        try {
          await this.broker.call<CloseAbandonedResult, StageParams>('rendering.closeAbandoned', { campaign_id: id }, campaignTrace(id));
          await Campaigns.update({ lease_owner: null, lease_expires_at: null }, { where: { id, lease_owner: owner } });
        } catch (err) {
          this.logger.warn(`campaign ${id}: abandoned render attempts not closed yet: ${(err as Error).message}`);
        }
      }
    },

    async resumeWaiting() {
      if (configOf(this.broker).pipelinePaused) return;
      const waiting = await this.db.models.Campaign.findAll({ where: { status: [...GENERATING_STATES] }, attributes: ['id'], limit: 500 });
      for (const { id } of waiting) this.advance(id).catch(() => undefined);
    },
  } satisfies Omit<CampaignsMethods, keyof DbMethods> & ThisType<CampaignsThis>,
};

/** Key order does not change the meaning of a JSON body, so it must not change its idempotency hash. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export default CampaignsService;
