/**
 * Operators' read side: the figures behind GET /metrics, campaigns per state, one campaign's timeline,
 * its webhook deliveries, and the render nodes with the queue. Internal only (the REPL commands in
 * lib/ops/repl-commands.ts and the gateway's /metrics call it); reads, never writes.
 */
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import { CAMPAIGN_STATES, type CampaignState } from '../lib/campaign/states';
import { notFound, serviceUnavailable, messageOf } from '../lib/errors';
import type { OpsMetrics, RenderNodeSlots } from '../lib/ops/metrics';
import {
  campaignDeliveries,
  campaignStateCounts,
  campaignTimeline,
  recentCampaigns,
  renderQueueDepth,
  stageDurations,
  webhookOutcomes,
  type CampaignTimeline,
  type RenderNodeView,
  type RenderNodesView,
  type StateOverview,
  type WebhookDeliveryView,
} from '../lib/ops/queries';
import { call } from '../lib/net/calls';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';
import { declaredSlots } from '../lib/render/slots';
import type { RenderNodeSlotsView } from './rendering.service';

const CAMPAIGN_ID = {
  type: 'object',
  additionalProperties: false,
  required: ['campaign_id'],
  properties: { campaign_id: { type: 'string', format: 'uuid' } },
};

/** The params of ops.metrics and ops.renderNodes: none. */
export type NoParams = Record<string, never>;
export interface CampaignsByStateParams {
  state?: CampaignState;
  limit?: number;
}
/** ops.timeline's and ops.webhookDeliveries' params. */
export interface CampaignIdParams {
  campaign_id: string;
}

/** The actions others call (the gateway's /metrics, the REPL commands), for `call` (lib/net/calls.ts). */
export interface OpsActions {
  'ops.metrics': { params: NoParams | undefined; result: OpsMetrics };
  'ops.campaignsByState': { params: CampaignsByStateParams; result: StateOverview[] };
  'ops.timeline': { params: CampaignIdParams; result: CampaignTimeline };
  'ops.webhookDeliveries': { params: CampaignIdParams; result: WebhookDeliveryView[] };
  'ops.renderNodes': { params: NoParams | undefined; result: RenderNodesView };
}

type OpsMethods = DbMethods<'ops'> & {
  fromDatabase<T>(read: () => Promise<T>): Promise<T>;
  dispatcherSlots(ctx: Context<NoParams>): Promise<RenderNodeSlotsView[] | null>;
  isDraining(nodeId: string): boolean;
};

/** Nothing kept on `this`: every read goes to the database or to the render nodes. */
type OpsLocalVars = Record<never, never>;

export type OpsThis = Service<ServiceSettingSchema> & OpsMethods & OpsLocalVars;

const OpsService: ServiceSchema<ServiceSettingSchema, OpsMethods, OpsLocalVars> = {
  name: 'ops',
  mixins: [DbMixin({ owner: 'ops' })],
  // Operators' reads across every organization (named and documented as such); DbMixin turns moleculer-db's own off.
  actions: {
    metrics: {
      visibility: 'public',
      async handler(ctx: Context<NoParams>): Promise<OpsMetrics> {
        const [campaignsByState, durations, queueDepth, webhooks] = await this.fromDatabase(() =>
          Promise.all([campaignStateCounts(this.db), stageDurations(this.db), renderQueueDepth(this.db), webhookOutcomes(this.db)]),
        );
        const seen = new Map(((await this.dispatcherSlots(ctx)) ?? []).map((n) => [n.nodeID, n]));
        // A render node is listed from the moment it joins (the registry has it), not from its first render: until
        // the rendering stage has its report, it counts as it declared itself (its slots, none busy).
        for (const endpoint of this.broker.registry.getActionEndpoints('renderer.renderVideo')?.endpoints ?? []) {
          if (endpoint.isAvailable && !seen.has(endpoint.id))
            seen.set(endpoint.id, { nodeID: endpoint.id, slots: declaredSlots(endpoint), busy: 0, reserved: 0 });
        }
        const renderSlots: RenderNodeSlots[] | null = seen.size
          ? [...seen.values()]
              .sort((a, b) => a.nodeID.localeCompare(b.nodeID))
              .map((n) => {
                const draining = this.isDraining(n.nodeID);
                return { node: n.nodeID, slots: n.slots, busy: n.busy, free: draining ? 0 : Math.max(0, n.slots - n.busy), draining };
              })
          : null;
        return {
          campaignsByState,
          stageDurations: durations,
          renderQueueDepth: queueDepth,
          renderSlots,
          webhookDeliveries: webhooks.deliveries,
          webhookAttempts: webhooks.attempts,
        };
      },
    },

    campaignsByState: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        properties: { state: { type: 'string', enum: [...CAMPAIGN_STATES] }, limit: { type: 'integer', minimum: 1, maximum: 100 } },
      },
      async handler(ctx: Context<CampaignsByStateParams>): Promise<StateOverview[]> {
        const limit = ctx.params.limit ?? 5;
        const states = ctx.params.state ? [ctx.params.state] : [...CAMPAIGN_STATES];
        return this.fromDatabase(async () => {
          const counts = await campaignStateCounts(this.db);
          return Promise.all(
            states.map(async (state) => ({ state, count: counts[state], recent: await recentCampaigns(this.db, state, limit) })),
          );
        });
      },
    },

    timeline: {
      visibility: 'public',
      params: CAMPAIGN_ID,
      async handler(ctx: Context<CampaignIdParams>): Promise<CampaignTimeline> {
        const timeline = await this.fromDatabase(() => campaignTimeline(this.db, ctx.params.campaign_id));
        if (!timeline) throw notFound();
        return timeline;
      },
    },

    webhookDeliveries: {
      visibility: 'public',
      params: CAMPAIGN_ID,
      async handler(ctx: Context<CampaignIdParams>): Promise<WebhookDeliveryView[]> {
        return this.fromDatabase(() => campaignDeliveries(this.db, ctx.params.campaign_id));
      },
    },

    /** Every render node: the rendering stage's view of its slots, and the node's own answer to renderer.status. */
    renderNodes: {
      visibility: 'public',
      async handler(ctx: Context<NoParams>): Promise<RenderNodesView> {
        const dispatcherViews: RenderNodeSlotsView[] = (await this.dispatcherSlots(ctx)) ?? [];
        const seen = new Map(dispatcherViews.map((n) => [n.nodeID, n]));
        const offering: string[] = (this.broker.registry.getActionEndpoints('renderer.status')?.endpoints ?? [])
          .filter((endpoint) => endpoint.isAvailable)
          .map((endpoint) => endpoint.id);
        const nodeIds = [...new Set([...seen.keys(), ...offering])].sort();
        const nodes = await Promise.all(
          nodeIds.map(async (nodeId): Promise<RenderNodeView> => {
            const dispatcher = seen.get(nodeId);
            const view: RenderNodeView = {
              node_id: nodeId,
              slots: dispatcher?.slots ?? null,
              busy: dispatcher?.busy ?? null,
              free: null,
              reserved: dispatcher?.reserved ?? 0,
              videos: [],
              draining: this.isDraining(nodeId),
            };
            if (offering.includes(nodeId)) {
              try {
                const status = await call(ctx, 'renderer.status', {}, { nodeID: nodeId });
                Object.assign(view, { slots: status.slots, busy: status.busy, videos: status.videos });
              } catch (err) {
                view.error = messageOf(err);
              }
            } else if (!view.draining) {
              // A draining node has withdrawn its actions on purpose; its last report (slots, busy) stands.
              view.error = 'no longer offers renderer.status';
            }
            if (view.slots !== null && view.busy !== null) view.free = Math.max(0, view.slots - view.busy);
            return view;
          }),
        );
        const queue_depth = await this.fromDatabase(() => renderQueueDepth(this.db));
        return { nodes, queue_depth };
      },
    },
  },

  methods: {
    /** Connected, yet no longer offering renderer.status: a render node stopping, finishing what it runs (drain). */
    isDraining(nodeId: string): boolean {
      const offers = (this.broker.registry.getActionEndpoints('renderer.status')?.endpoints ?? []).some(
        (endpoint) => endpoint.id === nodeId && endpoint.isAvailable,
      );
      return !offers && this.broker.registry.nodes.get(nodeId)?.available === true;
    },

    /** Any database failure becomes a retryable 503: operators' reads never crash a node. */
    async fromDatabase<T>(read: () => Promise<T>): Promise<T> {
      try {
        return await read();
      } catch (err) {
        this.logger.warn(`ops: database read failed: ${messageOf(err)}`);
        throw serviceUnavailable('The database cannot be read right now.');
      }
    },

    /** null when no rendering stage runs; a failing stage is reported, not fatal to the caller. */
    async dispatcherSlots(ctx: Context<NoParams>): Promise<RenderNodeSlotsView[] | null> {
      if (!this.broker.registry.getActionEndpoints('rendering.nodes')?.hasAvailable()) return null;
      try {
        return await call(ctx, 'rendering.nodes');
      } catch (err) {
        this.logger.warn(`ops: rendering.nodes failed: ${messageOf(err)}`);
        return null;
      }
    },
  } satisfies Omit<OpsMethods, keyof DbMethods<'ops'>> & ThisType<OpsThis>,
};

export default OpsService;
