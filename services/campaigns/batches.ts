/**
 * Batches (decisions §14): many campaigns from one POST, followed together. A module of the campaign actor (mixed into
 * services/campaigns.service.ts), which owns the `batches` table as it owns the campaigns: one writer. A batch is
 * refused whole or made whole — every item checked as a create is (its errors name items[i].field), the quota taken
 * for all its items or none, the batch and its campaigns written in one transaction. Unlike a create, no page is
 * loaded before answering: an item whose page cannot be captured fails at collection (capture_failed, refunded), not
 * the batch. Its batch.completed is written by the transition that settles its last campaign (lib/campaign/outbox.ts).
 */
import crypto from 'node:crypto';
import { Op, UniqueConstraintError, type Transaction } from 'sequelize';
import type { Context } from 'moleculer';
import { configOf } from '../../config';
import { countByStatus } from '../../lib/campaign/states';
import { periodResetsAt, quotaPeriod, reserveQuota, usedInPeriod } from '../../lib/campaign/quota';
import { keysetPage } from '../../lib/db/keyset';
import type { Batch, Campaign } from '../../lib/db/models';
import { conflict, invalidInput, notFound, quotaExceeded, unauthorized } from '../../lib/errors';
import {
  BatchIdParams,
  BatchListSchema,
  BatchSchema,
  BatchWebhookRedelivery,
  CreateBatchBody,
  CreateCampaignBody,
  CreatedBatch,
  LIST_LIMIT_DEFAULT,
  ListBatchesQuery,
} from '../../lib/http/api-schemas';
import type { AuthContext } from '../../lib/http/auth';
import { createAjv, describeError } from '../../lib/http/validator';
import { UUID_ANY_CASE } from '../../lib/ids';
import { call } from '../../lib/net/calls';
import { assertPublicUrl, guardFor, UrlRejectedError } from '../../lib/net/net-guard';
import type {
  BatchListView,
  BatchMethods,
  BatchRedeliverResult,
  BatchUsage,
  BatchView,
  CampaignByIdParams,
  CheckBatchResult,
  CampaignMeta,
  CampaignsActionSchemas,
  CampaignsThis,
  CreateBatchParams,
  CreateBatchResult,
  CreateCampaignParams,
  ListBatchesParams,
} from './types';

/** A merged item is checked against the create's own schema: the same rules, worded by the same describeError. */
const checkCreate = createAjv().compile(CreateCampaignBody);

/** Item `index` with the batch's defaults under its own fields, checked by the create's schema; its error names items[index]. */
function mergedItem(
  params: Pick<CreateBatchParams, 'defaults'>,
  item: CreateBatchParams['items'][number],
  index: number,
): CreateCampaignParams {
  const create: CreateCampaignParams = { ...params.defaults, ...item };
  if (!checkCreate(create)) {
    const error = checkCreate.errors![0];
    throw invalidInput(describeError({ ...error, instancePath: `/items/${index}${error.instancePath}` }));
  }
  return create;
}

/** An item's refusal without its "items[2]." prefix: the dashboard names the row itself. */
function itemMessage(index: number, err: unknown): string {
  const message = (err as { message?: string }).message ?? String(err);
  return message.replace(`items[${index}].`, '').replace(`items[${index}] `, '');
}

/** An error of item `index`, its message naming the item: "items[2].languages: …". */
function itemError(index: number, err: unknown): unknown {
  const e = err as { code?: number; type?: string; message?: string };
  if (e.type !== 'invalid_input') return err;
  return invalidInput(`items[${index}].${e.message}`, e.code === 422 ? 422 : 400);
}

export const batchActions: CampaignsActionSchemas = {
  createBatch: {
    rest: 'POST /batches',
    scope: 'campaigns:create',
    // Counted once, as one request, whatever its items (decisions §14).
    rateLimit: 'plan',
    params: CreateBatchBody,
    openapi: {
      summary: 'Create a batch of campaigns',
      description:
        "One campaign per item, each with the batch's defaults under its own fields, checked as a create is: any invalid item refuses the whole batch (400 naming items[i].field) and nothing is created. One campaign of the monthly quota per item, all or none (429 with details.requested). Pages are not loaded before the answer: an item whose page cannot be captured becomes a failed campaign (capture_failed, refunded). The batch's webhook_url receives batch.completed once every campaign is in review, published or failed. Idempotency-Key as for a create; the plan's rate counts the batch as one request.",
      tag: 'Batches',
      successStatus: 201,
      response: CreatedBatch,
      responses: {
        422: "invalid_input: an item's host name did not resolve in time (the message names items[i].url). A page that cannot be captured does not refuse the batch: its campaign fails with capture_failed.",
      },
    },
    async handler(ctx: Context<CreateBatchParams, CampaignMeta>): Promise<CreateBatchResult> {
      const auth = ctx.meta.auth;
      if (!auth) throw unauthorized();
      const idempotency = this.idempotencyOf(ctx.meta, ctx.params, 'batch');
      if (idempotency && (await this.answeredBefore(auth.orgId, idempotency.key))) {
        return this.replayOrConflict(auth.orgId, idempotency.key, idempotency.requestHash, ctx.meta);
      }
      const items = await this.batchItemsOf(ctx.params, auth);
      let webhookUrl: string | null = null;
      if (ctx.params.webhook_url !== undefined) {
        try {
          const guard = guardFor(configOf(this.broker));
          webhookUrl = (await assertPublicUrl(ctx.params.webhook_url, { ...guard, field: 'webhook_url', httpsOnly: true })).href;
        } catch (err) {
          if (err instanceof UrlRejectedError) throw invalidInput(err.message, err.status);
          throw err;
        }
      }
      const limit = auth.limits.campaignsPerMonth;
      const requested = items.length;
      // A cheap read first; the reservation in the transaction stays the guard against concurrent creates.
      const used = await usedInPeriod(this.db.sequelize, auth.orgId, quotaPeriod());
      if (used + requested > limit) throw quotaExceeded({ used, limit, resets_at: periodResetsAt(quotaPeriod()), requested });

      const now = new Date();
      const batchId = crypto.randomUUID();
      const created = items.map((item, index) => ({ ...item, index, campaignId: crypto.randomUUID() }));
      const body: CreateBatchResult = {
        success: true,
        batch_id: batchId,
        campaigns: created.map(({ index, campaignId, campaign }) => ({ index, campaign_id: campaignId, url: campaign.url })),
      };
      const { models, sequelize } = this.db;
      try {
        await sequelize.transaction(async (transaction: Transaction) => {
          if (idempotency) await this.recordIdempotency(transaction, auth.orgId, idempotency, body, now);
          await reserveQuota(sequelize, transaction, auth.orgId, quotaPeriod(now), limit, requested);
          await models.Batch.create(
            { id: batchId, org_id: auth.orgId, webhook_url: webhookUrl, item_count: requested, created_at: now, updated_at: now },
            { transaction },
          );
          for (const { params, campaign, index, campaignId } of created) {
            await this.writeCampaign(transaction, {
              orgId: auth.orgId,
              params,
              campaign,
              campaignId,
              jobId: crypto.randomUUID(),
              now,
              batch: { id: batchId, index },
            });
          }
        });
      } catch (err) {
        if (idempotency && err instanceof UniqueConstraintError) {
          return this.replayOrConflict(auth.orgId, idempotency.key, idempotency.requestHash, ctx.meta);
        }
        throw err;
      }
      ctx.meta.$statusCode = 201;
      ctx.meta.$location = `/api/v1/batches/${batchId}`;
      for (const { campaignId } of created) {
        this.advance(campaignId).catch((err: Error) => this.logger.error(`campaign ${campaignId}: advance failed`, err.message));
      }
      return body;
    },
  },

  /**
   * The dashboard's preview of a batch (no REST route): each item's refusal in words as createBatch would give it,
   * or null, and nothing written. The params are loose on purpose: an item of the wrong shape is that item's refusal.
   */
  checkBatch: {
    visibility: 'public',
    scope: 'campaigns:create',
    params: {
      type: 'object',
      required: ['items'],
      properties: {
        items: { type: 'array', maxItems: 1000, items: { type: 'object' } },
        defaults: { type: 'object' },
      },
    },
    async handler(ctx: Context<CreateBatchParams, CampaignMeta>): Promise<CheckBatchResult> {
      const auth = ctx.meta.auth;
      if (!auth) throw unauthorized();
      return { errors: await this.batchItemErrors(ctx.params, auth) };
    },
  },

  /** The usage page's batches (no REST route): how many batches this UTC month (default: the current one) and their campaigns. */
  batchUsage: {
    visibility: 'public',
    scope: 'campaigns:read',
    params: { type: 'object', properties: { month: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$' } } },
    async handler(ctx: Context<{ month?: string }, CampaignMeta>): Promise<BatchUsage> {
      const auth = ctx.meta.auth;
      if (!auth) throw unauthorized();
      const month = ctx.params.month ?? new Date().toISOString().slice(0, 7);
      const from = new Date(`${month}-01T00:00:00Z`);
      const to = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
      const where = { org_id: auth.orgId, created_at: { [Op.gte]: from, [Op.lt]: to } };
      const [batches, campaigns] = await Promise.all([
        this.db.models.Batch.count({ where }),
        this.db.models.Batch.sum('item_count', { where }),
      ]);
      return { month, batches, campaigns: campaigns ?? 0 };
    },
  },

  getBatch: {
    rest: 'GET /batches/:id',
    scope: 'campaigns:read',
    params: BatchIdParams,
    openapi: {
      summary: 'Read a batch: its campaigns and their counts by status',
      description:
        "The batch's campaigns in the order of its items, each with its status, and the counts by status. completed_at is set once every campaign is in review, published or failed.",
      tag: 'Batches',
      successStatus: 200,
      response: BatchSchema,
    },
    async handler(ctx: Context<CampaignByIdParams, CampaignMeta>): Promise<BatchView> {
      const batch = await this.ownedBatch(ctx.meta.auth, ctx.params.id);
      const [view] = await this.presentBatches([batch]);
      return { success: true, ...view };
    },
  },

  listBatches: {
    rest: 'GET /batches',
    scope: 'campaigns:read',
    params: ListBatchesQuery,
    openapi: {
      summary: 'List batches, newest first',
      description:
        "The caller's organization's batches, each as GET shows it, in keyset pages like the campaign list: pass the previous page's next_cursor for the next page.",
      tag: 'Batches',
      successStatus: 200,
      response: BatchListSchema,
    },
    async handler(ctx: Context<ListBatchesParams, CampaignMeta>): Promise<BatchListView> {
      const auth = ctx.meta.auth;
      if (!auth) throw unauthorized();
      const { rows, has_more, next_cursor } = await keysetPage<Batch>(this.db.models.Batch, {
        list: 'batches',
        orgId: auth.orgId,
        cursor: ctx.params.cursor,
        limit: ctx.params.limit ?? LIST_LIMIT_DEFAULT,
      });
      return {
        success: true,
        batches: await this.presentBatches(rows),
        has_more,
        next_cursor,
      };
    },
  },

  /**
   * Redelivery of the batch's batch.completed (decisions §14: signed and retried like the campaign events, so sent again
   * like them, decisions §11): the same event id and body, signed afresh, one attempt per request, 10 a batch in any 24
   * hours. The actor checks the batch (the caller's, complete, with a webhook_url) and names its event from its outbox;
   * the dispatcher, which owns the deliveries, counts the allowance and sends it.
   */
  redeliverBatchWebhook: {
    rest: 'POST /batches/:id/webhook/redeliver',
    scope: 'campaigns:create',
    params: BatchIdParams,
    openapi: {
      summary: "Send a batch's batch.completed webhook again",
      description:
        'For a receiver that was down or lost it: the same event id and body, a fresh timestamp and signature, sent at once (one attempt per request). 10 requests per batch in any 24 hours.',
      tag: 'Webhooks',
      successStatus: 202,
      response: BatchWebhookRedelivery,
      responses: {
        409: 'conflict: a campaign of the batch is still generating (batch.completed is sent once every one is settled), or the batch was created without a webhook_url.',
        429: 'rate_limited: a request limit (limiter body), or this batch was redelivered 10 times in the last 24 hours (standard body, details { limit, retry_after_seconds }); both with Retry-After.',
      },
    },
    async handler(ctx: Context<CampaignByIdParams, CampaignMeta>): Promise<BatchRedeliverResult> {
      const batch = await this.ownedBatch(ctx.meta.auth, ctx.params.id);
      if (!batch.completed_at)
        throw conflict('The batch is not complete yet; its batch.completed is sent once every campaign is in review, published or failed.');
      if (!batch.webhook_url) throw conflict('The batch was created without a webhook_url: there is no batch.completed to send.');
      // Its one batch.completed, filed under the campaign that completed it (lib/campaign/outbox.ts).
      const { models } = this.db;
      const campaigns: Campaign[] = await models.Campaign.findAll({ attributes: ['id'], where: { batch_id: batch.id } });
      const event = await models.CampaignWebhookEvent.findOne({
        attributes: ['event_id'],
        where: { event_type: 'batch.completed', campaign_id: campaigns.map((c) => c.id) },
      });
      if (!event) throw conflict('The batch has no batch.completed event to send.');
      const result = await call(ctx, 'webhooks.redeliverEvent', { event_id: event.event_id });
      ctx.meta.$statusCode = 202;
      return {
        success: true,
        batch_id: batch.id,
        event_id: result.event_id,
        event: 'batch.completed',
        status: result.status,
        redeliveries_left: result.redeliveries_left,
      };
    },
  },
};

export const batchMethods = {
  /**
   * The batch's items as creates: the plan's item count, then each item with the defaults under it, checked by the
   * create's schema and normalized as a create is (URLs proved public, languages folded, the plan's language cap).
   * The first invalid item, in order, refuses the batch with its index in the message.
   */
  async batchItemsOf(params: CreateBatchParams, auth: AuthContext) {
    this.batchCap(params, auth);
    const merged = params.items.map((item, index) => mergedItem(params, item, index));
    const checked = await Promise.allSettled(merged.map((create) => this.normalize(create, auth)));
    return checked.map((result, index) => {
      if (result.status === 'rejected') throw itemError(index, result.reason);
      return { params: merged[index], campaign: result.value };
    });
  },

  /** The plan's items per batch: more refuse the batch whole. */
  batchCap(params: Pick<CreateBatchParams, 'items'>, auth: AuthContext) {
    const cap = auth.limits.batchItems;
    if (params.items.length > cap)
      throw invalidInput(`items: the ${auth.plan} plan allows at most ${cap} items per batch (got ${params.items.length})`);
  },

  /**
   * Every item's refusal, as batchItemsOf would give it were it the first (the same schema, the same normalize: no
   * page loaded), without its "items[i]." prefix; null for an item a batch would take. The dashboard's preview.
   */
  async batchItemErrors(params: CreateBatchParams, auth: AuthContext) {
    this.batchCap(params, auth);
    return Promise.all(
      params.items.map(async (item, index) => {
        let create: CreateCampaignParams;
        try {
          create = mergedItem(params, item, index);
        } catch (err) {
          return itemMessage(index, err);
        }
        try {
          await this.normalize(create, auth);
          return null;
        } catch (err) {
          const refusal = itemError(index, err);
          if (refusal === err) throw err;
          return itemMessage(index, refusal);
        }
      }),
    );
  },

  /** The caller's batch; malformed, unknown and foreign ids answer alike (404), as for campaigns. */
  async ownedBatch(auth: AuthContext | undefined, id: string) {
    if (!auth) throw unauthorized();
    if (!UUID_ANY_CASE.test(id)) throw notFound('Batch not found.');
    const batch = await this.db.models.Batch.findOne({ where: { id: id.toLowerCase(), org_id: auth.orgId } });
    if (!batch) throw notFound('Batch not found.');
    return batch;
  },

  /** Batches as GET shows them (without the envelope's success): their campaigns read in one query. */
  async presentBatches(batches: Batch[]) {
    const campaigns: Campaign[] = batches.length
      ? await this.db.models.Campaign.findAll({
          where: { batch_id: batches.map((b) => b.id) },
          attributes: ['id', 'url', 'status', 'batch_id', 'batch_index'],
          order: [
            ['batch_id', 'ASC'],
            ['batch_index', 'ASC'],
          ],
        })
      : [];
    return batches.map((batch) => {
      const own = campaigns.filter((c) => c.batch_id === batch.id);
      return {
        batch_id: batch.id,
        created_at: new Date(batch.created_at).toISOString(),
        completed_at: batch.completed_at ? new Date(batch.completed_at).toISOString() : null,
        counts: countByStatus(own.map((c) => c.status)),
        campaigns: own.map((c) => ({ campaign_id: c.id, url: c.url, status: c.status as BatchView['campaigns'][number]['status'] })),
      };
    });
  },
} satisfies BatchMethods & ThisType<CampaignsThis>;
