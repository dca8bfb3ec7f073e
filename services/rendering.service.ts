/**
 * The rendering stage (STAGE_ACTIONS.rendering): sends each video of a campaign to a render node with a
 * free slot (lib/render/slots.ts), records every attempt, and keeps each video's status. A render that
 * fails is retried on another node, up to RENDER_ATTEMPTS failures; a render lost with its node (killed,
 * stopped, unreachable) is redone elsewhere without counting as a failure. Any video that still fails
 * fails the stage (decisions §3). It runs beside the campaign actor; render nodes hold no database.
 */
import { Errors, type Context, type ServiceSchema } from 'moleculer';
import { configOf } from '../config';
import { PROGRESS_ON_ENTRY } from '../lib/campaign-states';
import type { Video } from '../lib/db/models';
import { stageFailure } from '../lib/errors';
import { chooseRenderNode, slotTableOf, type RenderMeta, type SlotReport } from '../lib/render/slots';
import type { Storyboard } from '../lib/storyboard';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';
import type { RenderVideoParams, RenderVideoResult } from './renderer.service';

const RENDER_ACTION = 'renderer.renderVideo';
/** With no render node at all for this long, the stage gives up for now; the campaign waits for one to join. */
const NO_NODE_GRACE_MS = 30_000;
/** Renders lost with their node before the video is given up (a guard against a node that always dies). */
const MAX_LOST_RENDERS = 6;
const LOST = new Set(['REQUEST_REJECTED', 'RENDER_INTERRUPTED', 'REQUEST_TIMEOUT', 'SERVICE_NOT_AVAILABLE', 'SERVICE_NOT_FOUND', 'STAGE_INTERRUPTED']);

interface StageParams { campaign_id: string }

type Methods = DbMethods & {
  renderOne(video: Video, storyboard: Storyboard): Promise<void>;
  sendToFreeNode(params: RenderVideoParams, meta: RenderMeta): Promise<RenderVideoResult>;
  markProgress(campaignId: string, done: number, total: number): Promise<void>;
};

export function outputKeyOf(video: { campaign_id: string; id: string }): string {
  return `campaigns/${video.campaign_id}/videos/${video.id}.mp4`;
}

const RenderingService: ServiceSchema<{}, Methods> = {
  name: 'rendering',
  mixins: [DbMixin({ model: 'Video' })],

  started(this: any) {
    // Render nodes already running tell us their slots.
    this.broker.broadcast('renderer.announce', {});
  },

  actions: {
    renderCampaign: {
      visibility: 'public',
      params: { type: 'object', additionalProperties: false, required: ['campaign_id'], properties: { campaign_id: { type: 'string', maxLength: 64 } } },
      async handler(this: any, ctx: Context<StageParams>) {
        const { models } = this.db;
        const campaignId = ctx.params.campaign_id;
        const videos: Video[] = await models.Video.findAll({ where: { campaign_id: campaignId } });
        const rows = await models.Storyboard.findAll({ where: { campaign_id: campaignId } });
        const storyboards = new Map<string, Storyboard>(rows.map((row: any) => [row.video_id, row.document as Storyboard]));
        if (videos.some((video) => !storyboards.has(video.id))) throw stageFailure('render_failed', 'Storyboards are missing; the voiceover must run again.', false);
        let done = videos.filter((video) => video.status === 'ready' && video.file_key).length;
        const pending = videos.filter((video) => !(video.status === 'ready' && video.file_key));
        const outcomes = await Promise.allSettled(pending.map(async (video) => {
          await this.renderOne(video, storyboards.get(video.id)!);
          done += 1;
          await this.markProgress(campaignId, done, videos.length);
        }));
        const lostNodes = outcomes.find((o) => o.status === 'rejected' && LOST.has((o.reason as { type?: string }).type ?? ''));
        const failed = outcomes.filter((o) => o.status === 'rejected' && !LOST.has((o.reason as { type?: string }).type ?? ''));
        if (failed.length) {
          throw stageFailure('render_failed', `${failed.length} of ${videos.length} videos could not be rendered: ${((failed[0] as PromiseRejectedResult).reason as Error).message}`, false);
        }
        // No render node left to finish the rest: the campaign waits in rendering until one joins.
        if (lostNodes) throw (lostNodes as PromiseRejectedResult).reason;
        return { campaign_id: campaignId, videos: videos.length };
      },
    },

    /** The render nodes as this node sees them: slots, busy, and calls sent but not yet reported. */
    nodes: {
      visibility: 'public',
      handler(this: any) {
        return slotTableOf(this.broker).snapshot();
      },
    },
  },

  events: {
    'renderer.slots'(this: any, ctx: Context<SlotReport>) {
      slotTableOf(this.broker).report(ctx.params);
    },
    '$node.disconnected'(this: any, ctx: Context<{ node: { id: string } }>) {
      slotTableOf(this.broker).forget(ctx.params.node.id);
    },
  },

  methods: {
    async renderOne(this: any, video: Video, storyboard: Storyboard) {
      const { models } = this.db;
      const config = configOf(this.broker);
      const avoid: string[] = [];
      let failures = 0;
      let lost = 0;
      for (;;) {
        const startedAt = new Date();
        const attempt = await models.RenderAttempt.create({ video_id: video.id, campaign_id: video.campaign_id, node_id: null, outcome: 'rendering', started_at: startedAt });
        await models.Video.update({ status: 'rendering', error_code: null, error_message: null }, { where: { id: video.id } });
        try {
          const result = await this.sendToFreeNode({ video_id: video.id, output_key: outputKeyOf(video), storyboard }, { renderAvoidNodes: avoid });
          await attempt.update({ node_id: result.node_id, outcome: 'ready', wall_ms: result.wall_ms, peak_rss_bytes: result.peak_rss_bytes, finished_at: new Date() });
          await models.Video.update({ status: 'ready', file_key: result.file_key, duration_seconds: result.duration_seconds }, { where: { id: video.id } });
          return;
        } catch (err) {
          const e = err as Error & { type?: string; nodeID?: string; data?: { nodeID?: string } };
          const nodeID = e.data?.nodeID ?? e.nodeID ?? null;
          if (nodeID) slotTableOf(this.broker).settle(nodeID);
          const finish = (outcome: string) => attempt.update({ node_id: nodeID, outcome, error_message: e.message, finished_at: new Date() });
          if (e.type === 'RENDERER_BUSY') {
            await finish('busy');
            await slotTableOf(this.broker).changed(1000);
            continue;
          }
          if (LOST.has(e.type ?? '')) {
            await finish('lost');
            lost += 1;
            this.logger.warn(`video ${video.id}: render lost (${e.message}); sending it to another node`);
            if (lost < MAX_LOST_RENDERS && e.type !== 'SERVICE_NOT_AVAILABLE') continue;
            await models.Video.update({ status: 'queued' }, { where: { id: video.id } });
            throw err;
          }
          await finish('failed');
          failures += 1;
          if (nodeID && !avoid.includes(nodeID)) avoid.push(nodeID);
          this.logger.warn(`video ${video.id}: render failed on ${nodeID ?? 'a node'} (${failures}/${config.renderAttempts}): ${e.message}`);
          if (failures < config.renderAttempts) continue;
          await models.Video.update({ status: 'failed', error_code: 'render_failed', error_message: e.message }, { where: { id: video.id } });
          throw err;
        }
      }
    },

    /**
     * Waits until some render node has a free slot, then calls that node (the freest, avoiding nodes where
     * this video failed). Choice and call happen in one tick, so concurrent renders never take the same slot;
     * the node is named in the call because Moleculer's preferLocal would otherwise bypass the balancing.
     */
    async sendToFreeNode(this: any, params: RenderVideoParams, meta: RenderMeta) {
      const table = slotTableOf(this.broker);
      const config = configOf(this.broker);
      let noNodeSince: number | null = null;
      for (;;) {
        const endpoints = (this.broker.registry.getActionEndpoints(RENDER_ACTION)?.endpoints ?? []).filter((ep: any) => ep.isAvailable);
        const chosen = chooseRenderNode(endpoints, table, meta.renderAvoidNodes ?? [], this.turn = (this.turn ?? 0) + 1, true);
        if (chosen) {
          table.reserve(chosen.id);
          return this.broker.call(RENDER_ACTION, params, { nodeID: chosen.id, meta, retries: 0, timeout: config.renderTimeoutMs + 60_000 });
        }
        if (endpoints.length === 0) {
          noNodeSince ??= Date.now();
          if (Date.now() - noNodeSince > NO_NODE_GRACE_MS) throw new Errors.ServiceNotAvailableError({ action: RENDER_ACTION });
        } else {
          noNodeSince = null;
        }
        await table.changed(1000);
      }
    },

    async markProgress(this: any, campaignId: string, done: number, total: number) {
      const band = PROGRESS_ON_ENTRY.review - PROGRESS_ON_ENTRY.rendering;
      const progress = PROGRESS_ON_ENTRY.rendering + Math.floor((band * done) / Math.max(1, total));
      await this.db.models.Campaign.update({ progress: Math.min(99, progress) }, { where: { id: campaignId, status: 'rendering' } });
    },
  } as any,
};

export default RenderingService;
