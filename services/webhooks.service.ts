/**
 * The webhook dispatcher, sole writer of `webhook_deliveries` and `webhook_attempts`. It takes over each
 * terminal event the campaign actor wrote to its own outbox in the transition's transaction (intake: the
 * event becomes a delivery under its unique event id, so taking it twice makes one delivery), then sends
 * the deliveries to customers. At most WEBHOOK_MAX_ATTEMPTS attempts per
 * event, all with the same event id and each signed afresh; waits of WEBHOOK_RETRY_DELAYS between them;
 * only 2xx counts. Every attempt is recorded. A customer may ask for a campaign's terminal event again (redeliver),
 * up to WEBHOOK_REDELIVERIES_PER_DAY a campaign: each request is served by one attempt, due at once; a failed one is
 * retried only while the event has some of its WEBHOOK_MAX_ATTEMPTS left. A delivery is claimed with a short lock, so several
 * dispatchers (or a restarted one) never send the same attempt twice, and a crash loses none.
 */
import crypto from 'node:crypto';
import { Op, UniqueConstraintError, type WhereOptions } from 'sequelize';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import { configOf } from '../config';
import type { WebhookDelivery } from '../lib/db/models';
import type { Transaction } from 'sequelize';
import { allowanceExhausted, conflict, notFound } from '../lib/errors';
import { guardFor } from '../lib/net/net-guard';
import {
  attemptDelivery,
  CAMPAIGN_EVENT_TYPES,
  REDELIVERY_WINDOW_MS,
  webhookHeaders,
  WEBHOOK_REDELIVERIES_PER_DAY,
  type RedeliverEventParams,
  type RedeliverParams,
  type RedeliverResult,
  type WebhookEventType,
} from '../lib/net/webhooks';
import { call } from '../lib/net/calls';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';

export const WEBHOOK_MAX_ATTEMPTS = 3;
const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 16 * 1024;
/** A claimed delivery is someone's for this long: longer than one attempt can take. */
const CLAIM_MS = ATTEMPT_TIMEOUT_MS + 20_000;
const BATCH = 20;

/** webhooks.retry's params and answer. */
export interface RetryParams {
  delivery_id: string;
}
export interface RetryResult {
  delivery_id: string;
  status: 'pending';
}
/**
 * webhooks.deliveries (the dashboard): one campaign's deliveries. The caller names the campaign it checked is the
 * customer's (campaigns.get) and the customer's organization; only rows of both are read.
 */
export interface DeliveriesParams {
  campaign_id: string;
  org_id: string;
}
export interface DeliveryAttemptView {
  attempt: number;
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** Whether this attempt served the customer's redelivery request. */
  redelivery: boolean;
}
export interface DeliveryView {
  delivery_id: string;
  event_id: string;
  event: string;
  status: WebhookDelivery['status'];
  url: string;
  created_at: string;
  delivered_at: string | null;
  next_attempt_at: string | null;
  attempts: DeliveryAttemptView[];
}
export interface DeliveriesResult {
  deliveries: DeliveryView[];
  /** Redeliveries the campaign has left in the last 24 hours (WEBHOOK_REDELIVERIES_PER_DAY). */
  redeliveries_left: number;
  redeliveries_per_day: number;
  max_attempts: number;
}
/** The actions others call (the campaign actor, the REPL, the dashboard), for `call` (lib/net/calls.ts). */
export interface WebhooksActions {
  'webhooks.retry': { params: RetryParams; result: RetryResult };
  'webhooks.redeliver': { params: RedeliverParams; result: RedeliverResult };
  'webhooks.redeliverEvent': { params: RedeliverEventParams; result: RedeliverResult };
  'webhooks.deliveries': { params: DeliveriesParams; result: DeliveriesResult };
}

type WebhooksMethods = DbMethods<'webhooks'> & {
  takeOverEvents(): Promise<number>;
  dispatchDue(): Promise<number>;
  deliver(delivery: WebhookDelivery): Promise<void>;
  waitingRedeliveries(deliveryId: string): Promise<Array<{ id: number }>>;
  redeliverDelivery(where: WhereOptions<WebhookDelivery>, subject: 'campaign' | 'batch', missing: string): Promise<RedeliverResult>;
};

interface WebhooksLocalVars {
  /** Deliveries this dispatcher is sending now: a poll that finds one again skips it. */
  inFlight: Set<string>;
  /** The next poll. */
  timer: NodeJS.Timeout;
  /** Set once the service stops: no further poll is scheduled. */
  stopping?: boolean;
}

export type WebhooksThis = Service<ServiceSettingSchema> & WebhooksMethods & WebhooksLocalVars;

const WebhooksService: ServiceSchema<ServiceSettingSchema, WebhooksMethods, WebhooksLocalVars> = {
  name: 'webhooks',
  mixins: [DbMixin({ owner: 'webhooks' })],

  started() {
    const poll = configOf(this.broker).webhookPollMs;
    this.inFlight = new Set<string>();
    const tick = () => {
      this.dispatchDue()
        .catch((err: Error) => this.logger.warn(`webhook dispatch failed: ${err.message}`))
        .finally(() => {
          if (!this.stopping) this.timer = setTimeout(tick, poll);
        });
    };
    this.timer = setTimeout(tick, 0);
  },

  stopped() {
    this.stopping = true;
    clearTimeout(this.timer);
  },

  actions: {
    /** Operators: send a failed delivery again (one more attempt, same event id). */
    retry: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['delivery_id'],
        properties: { delivery_id: { type: 'string', maxLength: 64 } },
      },
      async handler(ctx: Context<RetryParams>): Promise<RetryResult> {
        const delivery: WebhookDelivery | null = await this.db.models.WebhookDelivery.findByPk(ctx.params.delivery_id);
        if (!delivery) throw notFound('No such webhook delivery.');
        if (delivery.status !== 'failed') throw conflict(`The delivery is ${delivery.status}; only a failed delivery can be retried.`);
        await delivery.update({ status: 'pending', next_attempt_at: new Date(), locked_until: null });
        this.dispatchDue().catch(() => undefined);
        return { delivery_id: delivery.id, status: 'pending' };
      },
    },

    /**
     * The customer's redelivery (decisions §11), asked through the campaign actor once it has checked the campaign is
     * the caller's, terminal and has a webhook_url: its latest terminal event is sent again, same event id, signed
     * afresh. The allowance is counted and taken under the delivery's row lock, so concurrent requests cannot
     * overdraw it.
     */
    redeliver: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['campaign_id'],
        properties: { campaign_id: { type: 'string', format: 'uuid' } },
      },
      async handler(ctx: Context<RedeliverParams>): Promise<RedeliverResult> {
        const campaignId = ctx.params.campaign_id;
        return this.redeliverDelivery(
          // The campaign's terminal event: an edited video's (video.updated) and its batch's are not what it sends.
          { campaign_id: campaignId, event_type: [...CAMPAIGN_EVENT_TYPES] },
          'campaign',
          'The campaign has no webhook event yet; it is sent when the campaign reaches review or failed.',
        );
      },
    },

    /**
     * A batch's batch.completed again (decisions §14: "signed and retried like the campaign events"), asked through the
     * campaign actor once it has checked the batch is the caller's and complete, and named the event. The same rules
     * as a campaign's redelivery: same event id, signed afresh, one attempt per request, 10 a day for the event.
     */
    redeliverEvent: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['event_id'],
        properties: { event_id: { type: 'string', pattern: '^evt_', maxLength: 64 } },
      },
      async handler(ctx: Context<RedeliverEventParams>): Promise<RedeliverResult> {
        return this.redeliverDelivery(
          { event_id: ctx.params.event_id, event_type: 'batch.completed' },
          'batch',
          'The batch has no webhook event yet; it is sent when every campaign of the batch is settled.',
        );
      },
    },

    /** A campaign's deliveries, newest event first, each with its attempts in order (the dashboard's deliveries page). */
    deliveries: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['campaign_id', 'org_id'],
        properties: { campaign_id: { type: 'string', format: 'uuid' }, org_id: { type: 'string', maxLength: 64 } },
      },
      async handler(ctx: Context<DeliveriesParams>): Promise<DeliveriesResult> {
        const { models } = this.db;
        const { campaign_id: campaignId, org_id: orgId } = ctx.params;
        // An event written a moment ago and not yet taken over is shown as soon as it is.
        await this.takeOverEvents().catch(() => 0);
        const rows: WebhookDelivery[] = await models.WebhookDelivery.findAll({
          // A batch's batch.completed is filed under the campaign that completed the batch, but is the batch's, not this campaign's.
          where: { campaign_id: campaignId, org_id: orgId, event_type: { [Op.ne]: 'batch.completed' } },
          order: [['created_at', 'DESC']],
        });
        const ids = rows.map((row) => row.id);
        const [attempts, redeliveries] = ids.length
          ? await Promise.all([
              models.WebhookAttempt.findAll({ where: { delivery_id: ids }, order: [['attempt', 'ASC']] }),
              models.WebhookRedelivery.findAll({ where: { campaign_id: campaignId, delivery_id: ids } }),
            ])
          : [[], []];
        const recent = redeliveries.filter((r) => r.requested_at.getTime() > Date.now() - REDELIVERY_WINDOW_MS).length;
        const iso = (at: Date | null) => (at ? new Date(at).toISOString() : null);
        return {
          deliveries: rows.map((row) => ({
            delivery_id: row.id,
            event_id: row.event_id,
            event: row.event_type,
            status: row.status,
            url: row.url,
            created_at: new Date(row.created_at).toISOString(),
            delivered_at: iso(row.delivered_at),
            next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
            attempts: attempts
              .filter((a) => a.delivery_id === row.id)
              .map((a) => ({
                attempt: a.attempt,
                at: new Date(a.created_at).toISOString(),
                status_code: a.status_code,
                error: a.error,
                duration_ms: a.duration_ms,
                redelivery: redeliveries.some((r) => r.delivery_id === row.id && r.attempt === a.attempt),
              })),
          })),
          redeliveries_left: Math.max(0, WEBHOOK_REDELIVERIES_PER_DAY - recent),
          redeliveries_per_day: WEBHOOK_REDELIVERIES_PER_DAY,
          max_attempts: WEBHOOK_MAX_ATTEMPTS,
        };
      },
    },
  },

  events: {
    /** The campaign actor wrote an outbox row: send it now rather than at the next poll. */
    'webhooks.enqueued'() {
      this.dispatchDue().catch(() => undefined);
    },
  },

  methods: {
    /**
     * One redelivery request of the delivery `where` finds (the newest): the allowance (WEBHOOK_REDELIVERIES_PER_DAY in
     * any 24 hours, counted on the requests of this delivery) checked and taken under the delivery's row lock, so
     * concurrent requests cannot overdraw it; the delivery due at once.
     */
    async redeliverDelivery(where: WhereOptions<WebhookDelivery>, subject: 'campaign' | 'batch', missing: string) {
      const { models, sequelize } = this.db;
      // The event may have been written a moment ago and not taken over yet.
      await this.takeOverEvents();
      const result = await sequelize.transaction(async (transaction: Transaction) => {
        const delivery: WebhookDelivery | null = await models.WebhookDelivery.findOne({
          where,
          order: [['created_at', 'DESC']],
          transaction,
          lock: true,
        });
        if (!delivery) throw conflict(missing);
        const now = Date.now();
        const recent = await models.WebhookRedelivery.findAll({
          attributes: ['requested_at'],
          where: { delivery_id: delivery.id, requested_at: { [Op.gt]: new Date(now - REDELIVERY_WINDOW_MS) } },
          order: [['requested_at', 'ASC']],
          transaction,
        });
        if (recent.length >= WEBHOOK_REDELIVERIES_PER_DAY) {
          // The oldest request in the window frees a place when it leaves the window.
          const freedAt = recent[recent.length - WEBHOOK_REDELIVERIES_PER_DAY].requested_at.getTime() + REDELIVERY_WINDOW_MS;
          const retryAfter = Math.max(1, Math.ceil((freedAt - now) / 1000));
          throw allowanceExhausted(
            `This ${subject}'s webhook was redelivered ${WEBHOOK_REDELIVERIES_PER_DAY} times in the last 24 hours, the most allowed; retry in ${retryAfter} s.`,
            { limit: WEBHOOK_REDELIVERIES_PER_DAY, retry_after_seconds: retryAfter },
          );
        }
        await models.WebhookRedelivery.create(
          { delivery_id: delivery.id, campaign_id: delivery.campaign_id, requested_at: new Date(now) },
          { transaction },
        );
        // Due at once; an attempt on the wire (claimed) finishes first, finds this request waiting and leaves it due.
        await models.WebhookDelivery.update(
          { status: 'pending', next_attempt_at: new Date(now) },
          { where: { id: delivery.id }, transaction },
        );
        return {
          campaign_id: delivery.campaign_id,
          event_id: delivery.event_id,
          event: delivery.event_type as WebhookEventType,
          status: 'pending' as const,
          redeliveries_left: WEBHOOK_REDELIVERIES_PER_DAY - recent.length - 1,
        };
      });
      this.logger.info(`webhook ${result.event} ${result.event_id}: redelivery asked (${result.redeliveries_left} left today)`);
      this.dispatchDue().catch(() => undefined);
      return result;
    },

    /** The customer's redelivery requests of a delivery that no attempt has served yet. */
    async waitingRedeliveries(deliveryId: string) {
      return this.db.models.WebhookRedelivery.findAll({ attributes: ['id'], where: { delivery_id: deliveryId, attempt: null } });
    },

    /** New terminal events from the campaign actor's outbox become deliveries, due at once. */
    async takeOverEvents() {
      if (!this.broker.registry.getActionEndpoints('campaigns.webhookEvents')?.hasAvailable()) return 0;
      const events = await call(this.broker, 'campaigns.webhookEvents', { limit: 100 });
      if (events.length === 0) return 0;
      const { WebhookDelivery: Deliveries } = this.db.models;
      for (const event of events) {
        const at = new Date(event.created_at);
        try {
          await Deliveries.create({
            id: crypto.randomUUID(),
            event_id: event.event_id,
            event_type: event.event_type,
            campaign_id: event.campaign_id,
            org_id: event.org_id,
            url: event.url,
            body: event.body,
            status: 'pending',
            attempts: 0,
            next_attempt_at: at,
            created_at: at,
            updated_at: at,
          });
        } catch (err) {
          // Taken over already (another dispatcher, or this one before a crash): one event, one delivery.
          if (!(err instanceof UniqueConstraintError)) throw err;
        }
      }
      await call(this.broker, 'campaigns.webhookEventsHandedOver', { event_ids: events.map((event) => event.event_id) });
      return events.length;
    },

    async dispatchDue() {
      await this.takeOverEvents();
      const { WebhookDelivery: Deliveries } = this.db.models;
      const now = new Date();
      const due: WebhookDelivery[] = await Deliveries.findAll({
        where: {
          status: 'pending',
          next_attempt_at: { [Op.lte]: now },
          [Op.or]: [{ locked_until: null }, { locked_until: { [Op.lt]: now } }],
        },
        order: [
          ['next_attempt_at', 'ASC'],
          ['created_at', 'ASC'],
        ],
        limit: BATCH,
      });
      // One campaign's events go out one after another, in the order they happened: its videos' video.ready before
      // its campaign.completed (decisions §15), which in parallel could overtake them on the wire. Campaigns (and
      // batches) go side by side.
      const inOrder = new Map<string, WebhookDelivery[]>();
      for (const delivery of due) {
        const key = delivery.campaign_id ?? delivery.id;
        inOrder.set(key, [...(inOrder.get(key) ?? []), delivery]);
      }
      // The last video's ready and the campaign's outcome can be written in one transaction, at one time: the video's first.
      const outcomeLast = (d: WebhookDelivery) => (d.event_type.startsWith('video.') ? 0 : 1);
      for (const deliveries of inOrder.values()) {
        deliveries.sort(
          (x, y) => (x.next_attempt_at?.getTime() ?? 0) - (y.next_attempt_at?.getTime() ?? 0) || outcomeLast(x) - outcomeLast(y),
        );
      }
      // A campaign with an event on the wire now (claimed by this or another dispatcher) sends nothing else until it
      // is answered: the next poll takes the rest, in order.
      const campaignIds = [...new Set(due.map((d) => d.campaign_id).filter((id): id is string => Boolean(id)))];
      const onTheWire =
        campaignIds.length === 0
          ? []
          : await Deliveries.findAll({
              attributes: ['campaign_id'],
              where: { campaign_id: campaignIds, status: 'pending', locked_until: { [Op.gte]: now } },
            });
      for (const { campaign_id: busy } of onTheWire) if (busy) inOrder.delete(busy);
      let sent = 0;
      /** Sends one; false when another dispatch has it on the wire (its campaign's later events wait for the next poll). */
      const sendOne = async (delivery: WebhookDelivery): Promise<boolean> => {
        if (this.inFlight.has(delivery.id)) return false;
        // Claim: only the dispatcher whose conditional update matched sends this attempt.
        const [claimed] = await Deliveries.update(
          { locked_until: new Date(Date.now() + CLAIM_MS) },
          {
            where: {
              id: delivery.id,
              status: 'pending',
              attempts: delivery.attempts,
              [Op.or]: [{ locked_until: null }, { locked_until: { [Op.lt]: new Date() } }],
            },
          },
        );
        if (claimed !== 1) return false;
        this.inFlight.add(delivery.id);
        try {
          await this.deliver(delivery);
          sent += 1;
        } finally {
          this.inFlight.delete(delivery.id);
        }
        return true;
      };
      await Promise.all(
        [...inOrder.values()].map(async (deliveries) => {
          for (const delivery of deliveries) if (!(await sendOne(delivery))) break;
        }),
      );
      return sent;
    },

    async deliver(delivery: WebhookDelivery) {
      const config = configOf(this.broker);
      const { models } = this.db;
      const { secret } = await call(this.broker, 'accounts.webhookSecret', { org_id: delivery.org_id });
      const attempt = delivery.attempts + 1;
      // The redelivery requests this attempt serves: those made before it; one made while it is on the wire waits for the next.
      const serving = (await this.waitingRedeliveries(delivery.id)).map((row) => row.id);
      const timestamp = Math.floor(Date.now() / 1000);
      const result = await attemptDelivery(
        delivery.url,
        webhookHeaders(secret, delivery.event_id, delivery.body, timestamp),
        delivery.body,
        {
          guard: guardFor(config),
          timeoutMs: ATTEMPT_TIMEOUT_MS,
          maxResponseBytes: MAX_RESPONSE_BYTES,
        },
      );
      await models.WebhookAttempt.create({
        delivery_id: delivery.id,
        attempt,
        signed_timestamp: timestamp,
        status_code: result.statusCode,
        duration_ms: result.durationMs,
        error: result.error,
        created_at: new Date(),
      });
      if (serving.length) await models.WebhookRedelivery.update({ attempt }, { where: { id: serving } });
      // Asked while this attempt was on the wire: the next attempt is due at once, whatever this one's outcome.
      const asked = (await this.waitingRedeliveries(delivery.id)).length > 0;
      const last = attempt >= WEBHOOK_MAX_ATTEMPTS;
      const delay = config.webhookRetryDelaysMs[Math.min(attempt - 1, config.webhookRetryDelaysMs.length - 1)] ?? 0;
      const status = asked ? 'pending' : result.delivered ? 'delivered' : last ? 'failed' : 'pending';
      // A class-level update: the instance was read before the claim, so it would skip `locked_until: null` as unchanged.
      await models.WebhookDelivery.update(
        {
          attempts: attempt,
          status,
          delivered_at: result.delivered ? new Date() : delivery.delivered_at,
          next_attempt_at: asked ? new Date() : status === 'pending' ? new Date(Date.now() + delay) : null,
          locked_until: null,
          last_error: result.error,
        },
        { where: { id: delivery.id } },
      );
      const outcome = asked
        ? 'a redelivery was asked meanwhile: next attempt now'
        : result.delivered
          ? 'delivered'
          : last
            ? 'failed for good'
            : `failed, next attempt in ${Math.round(delay / 1000)} s`;
      this.logger.info(
        `webhook ${delivery.event_type} ${delivery.event_id} attempt ${attempt}: ${result.statusCode ?? result.error} — ${outcome}`,
      );
    },
  } satisfies Omit<WebhooksMethods, keyof DbMethods<'webhooks'>> & ThisType<WebhooksThis>,
};

export default WebhooksService;
