/**
 * Operators' read side: the figures behind GET /metrics, campaigns per state, one campaign's timeline,
 * its webhook deliveries, and the render nodes with the queue. Internal only (the REPL commands in
 * lib/repl-commands.ts and the gateway's /metrics call it); reads, never writes.
 */
import type { Context, ServiceSchema } from 'moleculer';
import { CAMPAIGN_STATES, type CampaignState } from '../lib/campaign-states';
import { notFound, serviceUnavailable } from '../lib/errors';
import type { OpsMetrics, RenderNodeSlots } from '../lib/metrics';
import {
  campaignDeliveries, campaignStateCounts, campaignTimeline, recentCampaigns, renderQueueDepth, stageDurations, webhookOutcomes,
  type RenderNodeView, type RenderNodesView, type StateOverview,
} from '../lib/ops-queries';
import type { SlotReport } from '../lib/render/slots';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';

const CAMPAIGN_ID = { type: 'object', additionalProperties: false, required: ['campaign_id'], properties: { campaign_id: { type: 'string', format: 'uuid' } } };

export interface CampaignsByStateParams { state?: CampaignState; limit?: number }
interface RendererStatus { node_id: string; slots: number; busy: number; videos: string[] }
/** A render node as the rendering stage sees it (rendering.nodes). */
type DispatcherView = SlotReport & { reserved: number };

type Methods = DbMethods & {
  fromDatabase<T>(read: () => Promise<T>): Promise<T>;
  dispatcherSlots(ctx: Context): Promise<DispatcherView[] | null>;
};

const OpsService: ServiceSchema<{}, Methods> = {
  name: 'ops',
  mixins: [DbMixin({ model: 'Campaign' })],
  // moleculer-db's reads would list every organization's campaigns: operators use the actions below.
  actions: {
    find: false, list: false, count: false,

    metrics: {
      visibility: 'public',
      async handler(this: any, ctx: Context): Promise<OpsMetrics> {
        const [campaignsByState, durations, queueDepth, webhooks] = await this.fromDatabase(() => Promise.all([
          campaignStateCounts(this.db), stageDurations(this.db), renderQueueDepth(this.db), webhookOutcomes(this.db),
        ]));
        const slots = await this.dispatcherSlots(ctx);
        const renderSlots: RenderNodeSlots[] | null = slots && slots.map((n: DispatcherView) => ({ node: n.nodeID, busy: n.busy, free: Math.max(0, n.slots - n.busy) }));
        return {
          campaignsByState, stageDurations: durations, renderQueueDepth: queueDepth, renderSlots,
          webhookDeliveries: webhooks.deliveries, webhookAttempts: webhooks.attempts,
        };
      },
    },

    campaignsByState: {
      visibility: 'public',
      params: {
        type: 'object', additionalProperties: false,
        properties: { state: { type: 'string', enum: [...CAMPAIGN_STATES] }, limit: { type: 'integer', minimum: 1, maximum: 100 } },
      },
      async handler(this: any, ctx: Context<CampaignsByStateParams>): Promise<StateOverview[]> {
        const limit = ctx.params.limit ?? 5;
        const states = ctx.params.state ? [ctx.params.state] : [...CAMPAIGN_STATES];
        return this.fromDatabase(async () => {
          const counts = await campaignStateCounts(this.db);
          return Promise.all(states.map(async (state) => ({ state, count: counts[state], recent: await recentCampaigns(this.db, state, limit) })));
        });
      },
    },

    timeline: {
      visibility: 'public',
      params: CAMPAIGN_ID,
      async handler(this: any, ctx: Context<{ campaign_id: string }>) {
        const timeline = await this.fromDatabase(() => campaignTimeline(this.db, ctx.params.campaign_id));
        if (!timeline) throw notFound();
        return timeline;
      },
    },

    webhookDeliveries: {
      visibility: 'public',
      params: CAMPAIGN_ID,
      async handler(this: any, ctx: Context<{ campaign_id: string }>) {
        return this.fromDatabase(() => campaignDeliveries(this.db, ctx.params.campaign_id));
      },
    },

    /** Every render node: the rendering stage's view of its slots, and the node's own answer to renderer.status. */
    renderNodes: {
      visibility: 'public',
      async handler(this: any, ctx: Context): Promise<RenderNodesView> {
        const dispatcherViews: DispatcherView[] = (await this.dispatcherSlots(ctx)) ?? [];
        const seen = new Map(dispatcherViews.map((n) => [n.nodeID, n]));
        const offering: string[] = (this.broker.registry.getActionEndpoints('renderer.status')?.endpoints ?? [])
          .filter((endpoint: any) => endpoint.isAvailable).map((endpoint: any) => endpoint.id);
        const nodeIds = [...new Set([...seen.keys(), ...offering])].sort();
        const nodes = await Promise.all(nodeIds.map(async (nodeId): Promise<RenderNodeView> => {
          const dispatcher = seen.get(nodeId);
          const view: RenderNodeView = {
            node_id: nodeId, slots: dispatcher?.slots ?? null, busy: dispatcher?.busy ?? null, free: null, reserved: dispatcher?.reserved ?? 0, videos: [],
          };
          if (offering.includes(nodeId)) {
            try {
              const status = await ctx.call<RendererStatus, {}>('renderer.status', {}, { nodeID: nodeId });
              Object.assign(view, { slots: status.slots, busy: status.busy, videos: status.videos });
            } catch (err) {
              view.error = (err as Error).message;
            }
          } else {
            view.error = 'no longer offers renderer.status';
          }
          if (view.slots !== null && view.busy !== null) view.free = Math.max(0, view.slots - view.busy);
          return view;
        }));
        const queue_depth = await this.fromDatabase(() => renderQueueDepth(this.db));
        return { nodes, queue_depth };
      },
    },
  },

  methods: {
    /** Any database failure becomes a retryable 503: operators' reads never crash a node. */
    async fromDatabase<T>(this: any, read: () => Promise<T>): Promise<T> {
      try {
        return await read();
      } catch (err) {
        this.logger.warn(`ops: database read failed: ${(err as Error).message}`);
        throw serviceUnavailable('The database cannot be read right now.');
      }
    },

    /** null when no rendering stage runs; a failing stage is reported, not fatal to the caller. */
    async dispatcherSlots(this: any, ctx: Context) {
      if (!this.broker.registry.getActionEndpoints('rendering.nodes')?.hasAvailable()) return null;
      try {
        return await ctx.call('rendering.nodes');
      } catch (err) {
        this.logger.warn(`ops: rendering.nodes failed: ${(err as Error).message}`);
        return null;
      }
    },
  } as any,
};

export default OpsService;
