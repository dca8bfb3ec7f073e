/**
 * The webhook dispatcher, sole writer of `webhook_deliveries` and `webhook_attempts`. It takes over each
 * terminal event the campaign actor wrote to its own outbox in the transition's transaction (intake: the
 * event becomes a delivery under its unique event id, so taking it twice makes one delivery), then sends
 * the deliveries to customers. At most WEBHOOK_MAX_ATTEMPTS attempts per
 * event, all with the same event id and each signed afresh; waits of WEBHOOK_RETRY_DELAYS between them;
 * only 2xx counts. Every attempt is recorded. A delivery is claimed with a short lock, so several
 * dispatchers (or a restarted one) never send the same attempt twice, and a crash loses none.
 */
import crypto from 'node:crypto';
import { Op, UniqueConstraintError } from 'sequelize';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import { configOf } from '../config';
import type { WebhookDelivery } from '../lib/db/models';
import { conflict, notFound } from '../lib/errors';
import { hostResolver } from '../lib/dns-resolver';
import { attemptDelivery, webhookHeaders } from '../lib/webhooks';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';
import type { WebhookSecretParams } from './accounts.service';
import type { WebhookEvent } from './campaigns.service';

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
/** accounts.webhookSecret's answer. */
interface WebhookSecretResult {
  secret: string;
}

type WebhooksMethods = DbMethods & {
  takeOverEvents(): Promise<number>;
  dispatchDue(): Promise<number>;
  deliver(delivery: WebhookDelivery): Promise<void>;
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
  mixins: [DbMixin({ model: 'WebhookDelivery' })],

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
  },

  events: {
    /** The campaign actor wrote an outbox row: send it now rather than at the next poll. */
    'webhooks.enqueued'() {
      this.dispatchDue().catch(() => undefined);
    },
  },

  methods: {
    /** New terminal events from the campaign actor's outbox become deliveries, due at once. */
    async takeOverEvents() {
      if (!this.broker.registry.getActionEndpoints('campaigns.webhookEvents')?.hasAvailable()) return 0;
      const events = await this.broker.call<WebhookEvent[], { limit: number }>('campaigns.webhookEvents', { limit: 100 });
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
      await this.broker.call('campaigns.webhookEventsHandedOver', { event_ids: events.map((event) => event.event_id) });
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
        order: [['next_attempt_at', 'ASC']],
        limit: BATCH,
      });
      let sent = 0;
      await Promise.all(
        due.map(async (delivery) => {
          if (this.inFlight.has(delivery.id)) return;
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
          if (claimed !== 1) return;
          this.inFlight.add(delivery.id);
          try {
            await this.deliver(delivery);
            sent += 1;
          } finally {
            this.inFlight.delete(delivery.id);
          }
        }),
      );
      return sent;
    },

    async deliver(delivery: WebhookDelivery) {
      const config = configOf(this.broker);
      const { models } = this.db;
      const { secret } = await this.broker.call<WebhookSecretResult, WebhookSecretParams>('accounts.webhookSecret', {
        org_id: delivery.org_id,
      });
      const attempt = delivery.attempts + 1;
      const timestamp = Math.floor(Date.now() / 1000);
      const result = await attemptDelivery(
        delivery.url,
        webhookHeaders(secret, delivery.event_id, delivery.body, timestamp),
        delivery.body,
        {
          guard: { allowLoopback: config.allowPrivateNetwork, resolve: hostResolver(config.dns).resolve },
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
      const last = attempt >= WEBHOOK_MAX_ATTEMPTS;
      const delay = config.webhookRetryDelaysMs[Math.min(attempt - 1, config.webhookRetryDelaysMs.length - 1)] ?? 0;
      // A class-level update: the instance was read before the claim, so it would skip `locked_until: null` as unchanged.
      await models.WebhookDelivery.update(
        {
          attempts: attempt,
          status: result.delivered ? 'delivered' : last ? 'failed' : 'pending',
          delivered_at: result.delivered ? new Date() : null,
          next_attempt_at: result.delivered || last ? null : new Date(Date.now() + delay),
          locked_until: null,
          last_error: result.error,
        },
        { where: { id: delivery.id } },
      );
      const outcome = result.delivered ? 'delivered' : last ? 'failed for good' : `failed, next attempt in ${Math.round(delay / 1000)} s`;
      this.logger.info(
        `webhook ${delivery.event_type} ${delivery.event_id} attempt ${attempt}: ${result.statusCode ?? result.error} — ${outcome}`,
      );
    },
  },
};

export default WebhooksService;
