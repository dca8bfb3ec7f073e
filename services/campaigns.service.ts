/**
 * The campaign actor. Its public API is here: create (quota, idempotency, the page checked, one transaction), get,
 * publish, cancel, webhook redelivery, and the gateway's download lookup. Modules beside it complete the actor,
 * mixed in so that the campaign tables keep one writer: services/campaigns/orchestrator.ts owns the state machine
 * (lib/campaign/states.ts: the lease, each state's stage, the reaper, transitions and the outbox) and
 * services/campaigns/reads.ts the reads for the dashboard and the reports, and services/campaigns/batches.ts the
 * batches (decisions §14). services/campaigns/types.ts names what its actions take and answer.
 */
import crypto from 'node:crypto';
import { Op, UniqueConstraintError, type Attributes, type FindOptions, type Transaction } from 'sequelize';
import type { Context, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import { configOf } from '../config';
import { DEFAULT_LANGUAGES, DEFAULT_PLATFORMS, isSupportedLanguage, variantsOf } from '../config/catalog';
import {
  CampaignIdParams,
  CampaignSchema,
  CreatedCampaign,
  CreateCampaignBody,
  TITLE_MAX_CHARACTERS,
  VideoDocumentParams,
  VideoDocumentResponse,
  WebhookRedelivery,
} from '../lib/http/api-schemas';
import type { AuthContext } from '../lib/http/auth';
import { InvalidTransitionError, isGenerating, PROGRESS_ON_ENTRY } from '../lib/campaign/states';
import type { Campaign, Video } from '../lib/db/models';
import { findCampaignWithVideos } from '../lib/db/reads';
import { conflict, invalidInput, notFound, quotaExceeded, unauthorized } from '../lib/errors';
import { UUID_ANY_CASE } from '../lib/ids';
import { assertPublicUrl, guardFor, UrlRejectedError } from '../lib/net/net-guard';
import { periodResetsAt, quotaPeriod, reserveQuota, usedInPeriod } from '../lib/campaign/quota';
import { DbMixin } from '../mixins/db.mixin';
import { defaultTitle, presentCampaign, type CampaignRow, type VideoRow } from '../lib/campaign/view';
import { FILE_COLUMNS, servesFiles } from '../lib/storage/file-links';
import { optionsOf } from '../lib/campaign/options';
import { CAMPAIGN_EVENT_TYPES, DEFAULT_WEBHOOK_EVENTS, wantsEvent, type RedeliverResult } from '../lib/net/webhooks';
import { call } from '../lib/net/calls';
import { orchestratorActions, orchestratorEvents, orchestratorMethods, startSweeping, stopSweeping } from './campaigns/orchestrator';
import { readActions } from './campaigns/reads';
import { retryActions, retryMethods } from './campaigns/retry';
import { editActions, editMethods } from './campaigns/edits';
import { batchActions, batchMethods } from './campaigns/batches';
import type {
  CampaignApiMethods,
  CampaignByIdParams,
  CampaignMeta,
  CampaignRows,
  CampaignsLocalVars,
  CampaignsMethods,
  CampaignsThis,
  CampaignView,
  CreateCampaignParams,
  CreateBatchResult,
  CreateCampaignResult,
  DownloadTargetParams,
  DownloadTargetResult,
  IdempotencyOf,
  NewCampaign,
  NormalizedCampaign,
  VideoDocumentByIdParams,
  VideoDocumentResult,
} from './campaigns/types';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const CampaignsService: ServiceSchema<ServiceSettingSchema, CampaignsMethods, CampaignsLocalVars> = {
  name: 'campaigns',
  mixins: [DbMixin({ owner: 'campaigns' })],

  started() {
    startSweeping.call(this);
  },

  async stopped() {
    stopSweeping.call(this);
    // Its waiting calls are told (their campaigns wait, resumed elsewhere), its turns given back to the queue at once.
    await this.turns?.stop();
  },

  actions: {
    ...orchestratorActions,
    ...readActions,
    ...retryActions,
    ...editActions,
    ...batchActions,

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
        const idempotency = this.idempotencyOf(ctx.meta, ctx.params);
        if (idempotency && (await this.answeredBefore(auth.orgId, idempotency.key))) {
          return this.replayOrConflict(auth.orgId, idempotency.key, idempotency.requestHash, ctx.meta);
        }

        const campaign = await this.normalize(ctx.params, auth);
        // A cheap read first, so a create the quota will refuse never loads the page; the reservation below stays the guard.
        const used = await usedInPeriod(this.db.sequelize, auth.orgId, quotaPeriod());
        if (used >= auth.limits.campaignsPerMonth) {
          throw quotaExceeded({ used, limit: auth.limits.campaignsPerMonth, resets_at: periodResetsAt(quotaPeriod()) });
        }
        // decisions §1: the call waits for the first load and check of the page; 422 creates nothing.
        await this.checkPage(ctx, campaign);
        const now = new Date();
        const campaignId = crypto.randomUUID();
        const body: CreateCampaignResult = { success: true, campaign_id: campaignId, job_id: crypto.randomUUID(), status: 'collecting' };
        try {
          await this.insertCampaign({
            auth,
            params: ctx.params,
            campaign,
            body,
            now,
            idempotency,
          });
        } catch (err) {
          if (idempotency && err instanceof UniqueConstraintError) {
            return this.replayOrConflict(auth.orgId, idempotency.key, idempotency.requestHash, ctx.meta);
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
        // The read path: one statement, plain rows (lib/db/reads.ts).
        const found = await findCampaignWithVideos(this.db.sequelize, id, orgId);
        if (!found) throw notFound();
        return this.present(found.campaign, found.videos);
      },
    },

    /**
     * decisions §12: one video as our Universal Video JSON draft. The campaign and the video are the actor's (scoped by
     * the caller's organization, 404 alike for unknown and foreign ids); the scenes are the voice stage's storyboard and
     * the screenshots the capture stage's, asked of them; lib/campaign/video-document.ts assembles. A video has a
     * document once its narration is recorded (the storyboard, voiceover): before that, 409.
     */
    videoDocument: {
      rest: 'GET /campaigns/:id/videos/:video_id/document',
      scope: 'campaigns:read',
      params: VideoDocumentParams,
      openapi: {
        summary: 'Read a video as a Universal Video JSON document',
        description:
          "The video's settings (voice, captions, quality, brand), its scenes in order (narration, headline, the screenshot shown, measured start and duration) and every screenshot the campaign captured, with signed links. Its schema: GET /api/v1/schemas/universal-video-json.json. Exists once the video's narration is recorded (from the rendering state on).",
        successStatus: 200,
        response: VideoDocumentResponse,
        responses: {
          409: 'conflict: the video has no document yet (its narration is not recorded: the campaign is still collecting, processing, scripting or in voiceover, or failed before it).',
        },
      },
      async handler(ctx: Context<VideoDocumentByIdParams, CampaignMeta>): Promise<VideoDocumentResult> {
        const { campaign, video } = await this.ownedVideo(ctx);
        // The revision being served: while an edit renders, the one before it (decisions §12).
        const document = await this.documentOf(campaign, video);
        if (!document)
          throw conflict(
            `This video has no document yet: it is made when the video's narration is recorded, and this campaign is ${campaign.status}.`,
          );
        return { success: true, document };
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
            // Every video with a file served: a video an edit is rendering again is published with its previous revision.
            await models.Video.update(
              { published_at: now },
              { where: { campaign_id: id, [Op.or]: [{ status: 'ready' }, { file_revision: { [Op.ne]: null } }] }, transaction },
            );
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
          409: 'conflict: the campaign is still generating, or was created without a webhook_url (or with webhook_events that leave its outcome out). video.ready and video.updated are not redelivered.',
          429: 'rate_limited: a request limit (limiter body), or this campaign was redelivered 10 times in the last 24 hours (standard body, details { limit, retry_after_seconds }); both with Retry-After.',
        },
      },
      async handler(ctx: Context<CampaignByIdParams, CampaignMeta>): Promise<RedeliverResult & { success: true }> {
        const campaign = await this.findOwned(ctx, { attributes: ['id', 'status', 'webhook_url', 'webhook_events'] });
        if (isGenerating(campaign.status))
          throw conflict(`The campaign is ${campaign.status}; its webhook event is sent when it reaches review or failed.`);
        if (!campaign.webhook_url) throw conflict('The campaign was created without a webhook_url: there is no webhook event to send.');
        // decisions §15: video.ready and video.updated are a video's, not the outcome redelivery sends.
        if (!CAMPAIGN_EVENT_TYPES.some((event) => wantsEvent(campaign, event)))
          throw conflict(
            "The campaign's webhook_events list neither campaign.completed nor campaign.failed: there is no outcome event to send.",
          );
        const result = await call(ctx, 'webhooks.redeliver', { campaign_id: campaign.id });
        ctx.meta.$statusCode = 202;
        return { success: true, ...result };
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
        const video: Video | null = await this.db.models.Video.findByPk(ctx.params.video_id, {
          attributes: ['id', 'status', 'file_revision', column],
        });
        if (!video || !servesFiles(video)) return { storage_key: null };
        return { storage_key: video[column] ?? null };
      },
    },
  },

  events: orchestratorEvents,

  methods: {
    ...orchestratorMethods,
    ...retryMethods,
    ...editMethods,
    ...batchMethods,

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
      // decisions §15: hook variants, capped by plan like languages (400 naming the field); the quota counts the campaign once.
      if (params.variants !== undefined && params.variants > auth.limits.variantsPerCampaign) {
        throw invalidInput(
          `variants: the ${auth.plan} plan allows at most ${auth.limits.variantsPerCampaign} variants per campaign (got ${params.variants})`,
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
        webhook_events: params.webhook_events ?? [...DEFAULT_WEBHOOK_EVENTS],
        logo_url: logoUrl?.href ?? null,
        music_url: musicUrl?.href ?? null,
      };
    },

    /**
     * decisions §1: the page loaded and checked (with the logo and the music) before anything is created; 422 when it
     * cannot be. It takes no turn of the collecting stage (decisions §14): the customer's request stays open for its
     * answer (at most CAPTURE_CHECK_TIMEOUT), and a turn could wait behind other organizations' collections for longer
     * than that. It runs in the capture service's own pool, apart from the collections, so it takes none of the stage's
     * capacity either; each organization's share of the checks is bounded by its plan's request rate (rateLimit: plan).
     */
    async checkPage(ctx: Context<CreateCampaignParams, CampaignMeta>, campaign: NormalizedCampaign) {
      const config = configOf(this.broker);
      try {
        await call(
          ctx,
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
    },

    /** The campaign, its videos, its first event, its quota unit and its idempotency record, in one transaction. */
    async insertCampaign({ auth, params, campaign, body, now, idempotency }: NewCampaign) {
      const { sequelize } = this.db;
      await sequelize.transaction(async (transaction: Transaction) => {
        if (idempotency) await this.recordIdempotency(transaction, auth.orgId, idempotency, body, now);
        await reserveQuota(sequelize, transaction, auth.orgId, quotaPeriod(now), auth.limits.campaignsPerMonth);
        await this.writeCampaign(transaction, {
          orgId: auth.orgId,
          params,
          campaign,
          campaignId: body.campaign_id,
          jobId: body.job_id,
          now,
        });
      });
    },

    /**
     * The request's answer under its Idempotency-Key (a create's or a batch's), first in its transaction, so that a
     * concurrent twin waits here on the key and then replays our answer. Only an expired record may be replaced; a
     * live one (even a twin committed a moment ago) must win.
     */
    async recordIdempotency(transaction: Transaction, orgId: string, idempotency: IdempotencyOf, body: object, now: Date) {
      const { models } = this.db;
      await models.IdempotencyRecord.destroy({
        where: {
          org_id: orgId,
          key: idempotency.key,
          created_at: { [Op.lt]: new Date(now.getTime() - configOf(this.broker).idempotencyTtlMs) },
        },
        transaction,
      });
      await models.IdempotencyRecord.create(
        {
          org_id: orgId,
          key: idempotency.key,
          request_hash: idempotency.requestHash,
          status_code: 201,
          response_body: body as Record<string, unknown>,
          created_at: now,
        },
        { transaction },
      );
    },

    /** A new campaign's rows (the campaign, its videos, its first event) in the caller's transaction: a create's, or a batch's. */
    async writeCampaign(transaction: Transaction, { orgId, params, campaign, campaignId, jobId, now, batch }: CampaignRows) {
      const { models } = this.db;
      const config = configOf(this.broker);
      await models.Campaign.create(
        {
          id: campaignId,
          org_id: orgId,
          job_id: jobId,
          status: 'collecting',
          url: campaign.url,
          title: campaign.title,
          languages: campaign.languages,
          platforms: campaign.platforms,
          webhook_url: campaign.webhook_url,
          webhook_events: campaign.webhook_events,
          options: optionsOf({
            ...params,
            ...(campaign.logo_url ? { brand: { ...params.brand, logo_url: campaign.logo_url } } : {}),
            ...(campaign.music_url ? { music: { ...params.music, url: campaign.music_url } } : {}),
          }),
          metadata: params.metadata && Object.keys(params.metadata).length ? params.metadata : null,
          progress: PROGRESS_ON_ENTRY.collecting,
          quota_period: quotaPeriod(now),
          status_changed_at: now,
          deadline_at: new Date(now.getTime() + config.campaignMaxDurationMs),
          ...(batch ? { batch_id: batch.id, batch_index: batch.index } : {}),
        },
        { transaction },
      );
      // One video per language × platform × hook variant (decisions §15).
      await models.Video.bulkCreate(
        campaign.languages.flatMap((language: string) =>
          campaign.platforms.flatMap((platform: string) =>
            variantsOf(params.variants).map((variant) => ({ campaign_id: campaignId, language, platform, variant, status: 'queued' })),
          ),
        ),
        { transaction },
      );
      await models.CampaignEvent.create(
        {
          campaign_id: campaignId,
          from_status: null,
          to_status: 'collecting',
          detail: batch ? 'created in a batch' : 'created',
          created_at: now,
        },
        { transaction },
      );
    },

    /**
     * The request's Idempotency-Key (checked: 400 when malformed) with its body's hash, or null without one. A batch's
     * body is hashed under its own name, so a key first used for a create never replays as a batch, nor the reverse.
     */
    idempotencyOf(meta: CampaignMeta, params: object, request: 'create' | 'batch' = 'create'): IdempotencyOf | null {
      const key = meta.idempotencyKey;
      if (key === undefined) return null;
      if (!IDEMPOTENCY_KEY.test(key)) throw invalidInput('Idempotency-Key must be 1–255 visible ASCII characters');
      const hashed = request === 'create' ? params : { batch: params };
      return { key, requestHash: crypto.createHash('sha256').update(canonicalJson(hashed)).digest('hex') };
    },

    /** Whether the organization's key has a live answer (younger than the idempotency TTL) to replay or refuse. */
    async answeredBefore(orgId: string, key: string) {
      const previous = await this.db.models.IdempotencyRecord.findOne({ where: { org_id: orgId, key } });
      return !!previous && Date.now() - new Date(previous.created_at).getTime() < configOf(this.broker).idempotencyTtlMs;
    },

    async replayOrConflict<T extends CreateCampaignResult | CreateBatchResult>(
      orgId: string,
      key: string,
      requestHash: string,
      meta: CampaignMeta,
    ): Promise<T> {
      const record = await this.db.models.IdempotencyRecord.findOne({ where: { org_id: orgId, key } });
      if (!record) throw conflict('A request with this Idempotency-Key is being processed; re-check, then retry.');
      if (record.request_hash !== requestHash) throw conflict('This Idempotency-Key was already used with a different request body.');
      const body = record.response_body as T;
      meta.$statusCode = record.status_code;
      // The key's first answer, a create's or a batch's (a key and its body name one request, whichever it was).
      meta.$location = 'batch_id' in body ? `/api/v1/batches/${body.batch_id}` : `/api/v1/campaigns/${body.campaign_id}`;
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
  } satisfies CampaignApiMethods & ThisType<CampaignsThis>,
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
