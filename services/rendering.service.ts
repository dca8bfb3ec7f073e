/**
 * The rendering stage (STAGE_ACTIONS.rendering): sends each video of a campaign to a render node with a
 * free slot (lib/render/slots.ts), records every attempt, and keeps each video's status. A render that
 * fails is retried on another node, up to RENDER_ATTEMPTS failures; a render lost with its node (killed,
 * stopped, unreachable) is redone elsewhere without counting as a failure. Any video that still fails
 * fails the stage (decisions §3). It runs beside the campaign actor; render nodes hold no database.
 *
 * An attempt names its render node as soon as the render is sent there. When the node running this stage dies
 * (its attempts can no longer hear an answer), the next run of the stage for that campaign — the actor that
 * takes the campaign over — closes them as `lost` first (closeAbandoned); for a campaign that ended meanwhile
 * (canceled, timed out), the campaign actor's sweep asks for the same.
 */
import { Errors, type Context, type Service, type ServiceSchema, type ServiceSettingSchema } from 'moleculer';
import { configOf } from '../config';
import type { RenderAttempt } from '../lib/db/models';
import {
  CampaignCanceledError,
  isTransporterDown,
  RENDER_LOST_ON,
  RendererBusyError,
  messageOf,
  RenderInterruptedError,
  stageFailure,
  StageInterruptedError,
} from '../lib/errors';
import { CPU_CLASS_META, currentCpuClass } from '../lib/campaign/cpu-class';
import { slotTableOf, takeRenderNode, type RenderMeta, type SlotReport } from '../lib/render/slots';
import {
  callVideos,
  campaignTrace,
  STAGE_CALL_SCHEMA,
  STAGE_PARAMS_SCHEMA,
  VIDEO_REPORTED,
  type RenderingResult,
  type StageCall,
  type StageInput,
  type StageParams,
  type VideoReport,
  type TurnMeta,
} from '../lib/campaign/stages';
import type { ReportInputs } from '../lib/ops/reports';
import { call } from '../lib/net/calls';
import { screenshotIdOf, screenshotKeyOf, storageKeys } from '../lib/storage/keys';
import type { Storyboard, VideoEditDocument } from '../lib/campaign/storyboard';
import { defaultVoiceId } from '../lib/campaign/video-document';
import { repairCandidates } from '../lib/quality/candidates';
import type { VideoCheck } from '../lib/quality/check';
import { planRepair, withReframed } from '../lib/quality/repair';
import { MAX_REPAIR_ROUNDS, type QualityRepair } from '../lib/quality/report';
import { CancelableMixin, type CancelableMethods } from '../mixins/cancelable.mixin';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';
import type { RenderVideoParams, RenderVideoResult } from './renderer.service';

/** rendering.attempts: one render attempt as a campaign's report shows it. */
export type RenderAttemptView = ReportInputs['attempts'][number];

const RENDER_ACTION = 'renderer.renderVideo' as const;
/** With no render node at all for this long, the stage gives up for now; the campaign waits for one to join. */
const NO_NODE_GRACE_MS = 30_000;
/** How often a render in flight is checked on its node (watchRender), and a full cluster asked for its slots again. */
const RENDER_WATCH_MS = 10_000;
const SLOT_REFRESH_MS = 10_000;
/** How long a render waits for this node's transporter to come back before the stage gives up for now (the campaign waits). */
const TRANSPORTER_WAIT_MS = 60_000;
/** What a lost attempt says when the stage that sent it died with its node, not the render node. */
const ABANDONED_MESSAGE = 'The node running the rendering stage stopped before this render answered; the video was sent again.';
/** Renders lost with their node before the video is given up (a guard against a node that always dies). */
const MAX_LOST_RENDERS = 6;

type StageVideo = StageInput['videos'][number];

/**
 * An edit's render (rendering.renderEdit): its files carry its revision, and its video's state is the campaign actor's
 * to settle from the answer (the campaign is in review: no progress to report as it goes).
 */
interface EditRender {
  revision: number;
}
/**
 * How renderOne renders: an edit's revision (`edit`), or a campaign's video that has hook variants of its language and
 * platform (`sharedTail`: the picture after its opening is rendered once for them all, on a node that has it).
 */
interface RenderHow {
  edit?: EditRender;
  sharedTail?: boolean;
  /** The stage runs in its express turn (TurnMeta): the renders go to the nodes' express slots. */
  express?: boolean;
}
/** rendering.renderEdit: one video of a campaign in review, at the revision an edit made (decisions §12). */
export interface RenderEditParams {
  campaign_id: string;
  video_id: string;
  revision: number;
}

/** One video's render attempts so far: the nodes where it failed (not sent there again), failures and losses. */
interface RenderTally {
  avoid: string[];
  failures: number;
  lost: number;
  /** Sent to the nodes' express slots. */
  express: boolean;
}

/** Ready with every file the renderer makes; a video rendered before posters and SRT existed is rendered again. */
const isRendered = (video: StageVideo): boolean =>
  video.status === 'ready' && Boolean(video.file_key && video.thumbnail_key && video.captions_srt_key);

/** A render node as this node sees it (rendering.nodes): its report, and calls sent but not yet reported. */
export type RenderNodeSlotsView = SlotReport & { reserved: number };
/** rendering.closeAbandoned's answer: how many open attempts it closed as `lost`. */
export interface CloseAbandonedResult {
  closed: number;
}
/** The actions others call (the campaign actor, reports, ops), for `call` (lib/net/calls.ts). */
export interface RenderingActions {
  'rendering.renderCampaign': { params: StageCall; result: RenderingResult };
  'rendering.attempts': { params: StageParams; result: RenderAttemptView[] };
  'rendering.closeAbandoned': { params: StageParams; result: CloseAbandonedResult };
  'rendering.renderEdit': { params: RenderEditParams; result: VideoReport };
  'rendering.nodes': { params: undefined; result: RenderNodeSlotsView[] };
}
/** Moleculer's `$node.disconnected` event (only the field read here). */
interface NodeDisconnectedPayload {
  node: { id: string };
}

type RenderingMethods = DbMethods<'rendering'> &
  CancelableMethods & {
    renderOne(
      video: StageVideo,
      storyboard: Storyboard,
      signal: AbortSignal,
      failures: VideoReport[],
      pageLanguage: string | null,
      how?: RenderHow,
    ): Promise<VideoReport>;
    renderAttempts(
      video: StageVideo,
      storyboard: Storyboard,
      signal: AbortSignal,
      failures: VideoReport[],
      files: string | number,
      quiet: boolean,
      pageLanguage: string | null,
      how?: Pick<RenderHow, 'sharedTail' | 'express'>,
    ): Promise<RenderVideoResult>;
    repairRound(
      video: StageVideo,
      storyboard: Storyboard,
      check: VideoCheck,
      round: number,
    ): Promise<{ storyboard: Storyboard; repaired: QualityRepair[] } | null>;
    settleFailedAttempt(
      video: StageVideo,
      attempt: RenderAttempt,
      err: unknown,
      tally: RenderTally,
      signal: AbortSignal,
      failed: VideoReport[],
      quiet?: boolean,
    ): Promise<void>;
    sendToFreeNode(
      params: RenderVideoParams,
      meta: RenderMeta,
      signal: AbortSignal,
      onSent: (nodeID: string) => Promise<unknown>,
    ): Promise<RenderVideoResult>;
    closeAbandonedAttempts(where: { campaign_id: string; video_id?: string | string[] }): Promise<number>;
    watchRender(render: Promise<RenderVideoResult>, nodeID: string, videoId: string): Promise<RenderVideoResult>;
    transporterBack(withinMs: number): Promise<boolean>;
    reportVideo(video: StageVideo, report: Omit<VideoReport, 'campaign_id' | 'video_id' | 'at'>): VideoReport;
  };

interface RenderingLocalVars {
  /** Round-robin turn among equally free render nodes (lib/render/slots.ts); unset until the first render. */
  turn?: number;
}

export type RenderingThis = Service<ServiceSettingSchema> & RenderingMethods & RenderingLocalVars;

const RenderingService: ServiceSchema<ServiceSettingSchema, RenderingMethods, RenderingLocalVars> = {
  name: 'rendering',
  mixins: [DbMixin({ owner: 'rendering' }), CancelableMixin],

  started() {
    // Render nodes already running tell us their slots.
    void this.broker.broadcast('renderer.announce', {});
  },

  actions: {
    renderCampaign: {
      visibility: 'public',
      params: STAGE_CALL_SCHEMA,
      async handler(ctx: Context<StageCall, TurnMeta>): Promise<RenderingResult> {
        const campaignId = ctx.params.campaign_id;
        // Read afresh, not taken from the call's `input`: the videos' state changes while this stage runs, and the
        // broker's retry of a retryable failure sends the same params again, which would render the ready ones anew.
        const input = await call(ctx, 'campaigns.stageInput', { campaign_id: campaignId });
        const { page_language: pageLanguage = null } = input;
        // Only the call's languages (a lane's): the other lanes' videos are theirs to render.
        const videos = callVideos({ ...ctx.params, input });
        // This run holds the campaign's lease: an attempt of its videos still open is an earlier run's, whose node died.
        // Not another lane's, rendering beside this one: scoped to this call's videos.
        await this.closeAbandonedAttempts(
          ctx.params.languages ? { campaign_id: campaignId, video_id: videos.map((v) => v.id) } : { campaign_id: campaignId },
        );
        // The storyboards are the voiceover stage's: it is asked for them.
        const rows = await call(ctx, 'voice.storyboards', { campaign_id: campaignId });
        const storyboards = new Map<string, Storyboard>(rows.map((row) => [row.video_id, row.document]));
        if (videos.some((video) => !storyboards.has(video.id)))
          throw stageFailure('render_failed', 'Storyboards are missing; the voiceover must run again.', false);
        const pending = videos.filter((video) => !isRendered(video));
        // Canceled: no video is sent any more, and the render nodes stop those they are rendering (they hear it too).
        const cancel = this.watchCancel(campaignId);
        const failedReports: VideoReport[] = [];
        // Hook variants (decisions §15): a language × platform's videos differ only in their openings.
        const hasVariants = (video: StageVideo) =>
          videos.some((other) => other.language === video.language && other.platform === video.platform && other.variant !== video.variant);
        const outcomes = await Promise.allSettled(
          pending.map((video) =>
            this.renderOne(video, storyboards.get(video.id)!, cancel.signal, failedReports, pageLanguage, {
              sharedTail: hasVariants(video),
              express: ctx.meta.express === true,
            }),
          ),
        ).finally(() => cancel.done());
        if (cancel.signal.aborted) throw cancel.signal.reason;
        const lostNodes = outcomes.find((o) => o.status === 'rejected' && RENDER_LOST_ON.has((o.reason as { type?: string }).type ?? ''));
        const failed = outcomes.filter((o) => o.status === 'rejected' && !RENDER_LOST_ON.has((o.reason as { type?: string }).type ?? ''));
        if (failed.length) {
          throw stageFailure(
            'render_failed',
            `${failed.length} of ${videos.length} videos could not be rendered: ${((failed[0] as PromiseRejectedResult).reason as Error).message}`,
            false,
            { videos: failedReports },
          );
        }
        // No render node left to finish the rest: the campaign waits in rendering until one joins.
        if (lostNodes) throw (lostNodes as PromiseRejectedResult).reason;
        const rendered = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
        return { campaign_id: campaignId, videos: videos.length, rendered };
      },
    },

    /**
     * An edit's render (decisions §12): one video at the edit's revision, sent to a render node like a campaign's
     * videos (the same balancing, retries on other nodes, cancel); files under the revision's own keys, so the previous
     * revision keeps being served until the campaign actor records this one. Held by the actor's lease on the edit, so
     * an attempt of this video still open is an earlier run's, whose node died.
     */
    renderEdit: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['campaign_id', 'video_id', 'revision'],
        properties: {
          campaign_id: { type: 'string', maxLength: 64 },
          video_id: { type: 'string', maxLength: 64 },
          revision: { type: 'integer', minimum: 2 },
        },
      },
      async handler(ctx: Context<RenderEditParams, TurnMeta>): Promise<VideoReport> {
        const { campaign_id: campaignId, video_id: videoId, revision } = ctx.params;
        await this.closeAbandonedAttempts({ campaign_id: campaignId, video_id: videoId });
        const storyboard = await call(ctx, 'voice.storyboard', { video_id: videoId, revision });
        if (!storyboard)
          throw stageFailure(
            'render_failed',
            `The video's revision ${revision} has no storyboard; its narration must be made again.`,
            false,
          );
        const video: StageVideo = {
          id: videoId,
          campaign_id: campaignId,
          language: storyboard.language,
          platform: storyboard.platform,
          variant: storyboard.variant ?? 'a',
          status: 'rendering',
          file_key: null,
          thumbnail_key: null,
          captions_srt_key: null,
          script_source: null,
        };
        const { page_language: pageLanguage = null } = await call(ctx, 'campaigns.stageInput', { campaign_id: campaignId });
        const cancel = this.watchCancel(campaignId);
        const failed: VideoReport[] = [];
        try {
          return await this.renderOne(video, storyboard, cancel.signal, failed, pageLanguage, {
            edit: { revision },
            express: ctx.meta.express === true,
          });
        } catch (err) {
          if (cancel.signal.aborted) throw cancel.signal.reason;
          if (failed.length) throw stageFailure('render_failed', `The video could not be rendered: ${messageOf(err)}`, false);
          throw err;
        } finally {
          cancel.done();
        }
      },
    },

    /** A campaign's render attempts, oldest first (its report shows them): where each ran, how long, how it ended. */
    attempts: {
      visibility: 'public',
      params: STAGE_PARAMS_SCHEMA,
      async handler(ctx: Context<StageParams>): Promise<RenderAttemptView[]> {
        const rows: RenderAttempt[] = await this.db.models.RenderAttempt.findAll({
          where: { campaign_id: ctx.params.campaign_id },
          order: [['started_at', 'ASC']],
        });
        return rows.map((row) => ({
          video_id: row.video_id,
          node_id: row.node_id,
          outcome: row.outcome,
          started_at: new Date(row.started_at).toISOString(),
          finished_at: row.finished_at ? new Date(row.finished_at).toISOString() : null,
          wall_ms: row.wall_ms ?? null,
          error_message: row.error_message ?? null,
        }));
      },
    },

    /**
     * For the campaign actor's sweep, about a campaign whose actor died and that is no longer rendering (canceled
     * or timed out meanwhile): its attempts still open are closed as `lost`. Only ever asked about a campaign no
     * live stage works on (its lease ran out), so nothing running is touched.
     */
    closeAbandoned: {
      visibility: 'public',
      params: STAGE_PARAMS_SCHEMA,
      async handler(ctx: Context<StageParams>): Promise<CloseAbandonedResult> {
        return { closed: await this.closeAbandonedAttempts({ campaign_id: ctx.params.campaign_id }) };
      },
    },

    /** The render nodes as this node sees them: slots, busy, and calls sent but not yet reported. */
    nodes: {
      visibility: 'public',
      handler(): RenderNodeSlotsView[] {
        return slotTableOf(this.broker).snapshot();
      },
    },
  },

  events: {
    'renderer.slots'(ctx: Context<SlotReport>) {
      slotTableOf(this.broker).report(ctx.params);
    },
    /** Back after a transporter outage (reports sent meanwhile were refused): every render node reports again. */
    '$transporter.connected'() {
      void this.broker.broadcast('renderer.announce', {});
    },
    /** A node joined (maybe a render node that announced itself before this node knew it): every render node reports again. */
    '$node.connected'() {
      void this.broker.broadcast('renderer.announce', {});
    },
    '$node.disconnected'(ctx: Context<NodeDisconnectedPayload>) {
      slotTableOf(this.broker).forget(ctx.params.node.id);
    },
  },

  methods: {
    /**
     * Renders one video (renderAttempts), then has it checked as a customer would look at it (decisions §13: the render
     * node checks the file it made) and, for a campaign's render, mends what the check flagged — only the changed scenes
     * spoken again (voice.repairNarration), the video rendered again — at most MAX_REPAIR_ROUNDS times, before it is
     * reported ready with its `quality`. An edit's revision is checked, not repaired (the customer chose it). A repair
     * that cannot be made leaves the video as rendered, with its flags: a flag never fails a video.
     */
    async renderOne(
      video: StageVideo,
      storyboard: Storyboard,
      signal: AbortSignal,
      failed: VideoReport[],
      pageLanguage: string | null,
      { edit, sharedTail = false, express = false }: RenderHow = {},
    ) {
      // An edit's video is the actor's to settle from the answer; a campaign's is reported as it goes.
      const report = (made: Omit<VideoReport, 'campaign_id' | 'video_id' | 'at'>) =>
        edit ? { campaign_id: video.campaign_id, video_id: video.id, at: Date.now(), ...made } : this.reportVideo(video, made);
      let board = storyboard;
      let result = await this.renderAttempts(video, board, signal, failed, edit?.revision ?? 1, edit !== undefined, pageLanguage, {
        sharedTail,
        express,
      });
      const repaired: QualityRepair[] = [];
      let repairedBoard: Storyboard | null = null;
      for (let round = 1; !edit && round <= MAX_REPAIR_ROUNDS && result.quality_flags.length; round += 1) {
        const check: VideoCheck = { flags: result.quality_flags, scenes: result.quality_scenes };
        const repair = await this.repairRound(video, board, check, round).catch((err: unknown) => {
          if (signal.aborted) throw signal.reason;
          this.logger.warn(`video ${video.id}: repair round ${round} not made: ${messageOf(err)}`);
          return null;
        });
        if (!repair) break;
        const mended = await this.renderAttempts(video, repair.storyboard, signal, [], `1-repair${round}`, true, pageLanguage, {
          express,
        }).catch((err: unknown) => {
          if (signal.aborted) throw signal.reason;
          this.logger.warn(`video ${video.id}: repaired render ${round} failed, the video stays as rendered: ${messageOf(err)}`);
          return null;
        });
        if (!mended) break;
        board = repair.storyboard;
        repairedBoard = board;
        result = mended;
        repaired.push(...repair.repaired);
      }
      // The mended storyboard is the video's first revision from now on (its document, an edit's base).
      if (repairedBoard) await call(this.broker, 'voice.keepRepair', { video_id: video.id, storyboard: repairedBoard });
      // Not looked at (QUALITY_CHECK off on the node, or the check itself failed): no report, rather than a false pass.
      const flags = result.quality_note ? undefined : result.quality_flags;
      return report({
        status: 'ready',
        file_key: result.file_key,
        thumbnail_key: result.thumbnail_key,
        captions_srt_key: result.captions_srt_key,
        duration_seconds: result.duration_seconds,
        ...(repairedBoard ? { captions_key: repairedBoard.captionsKey } : {}),
        // No check made (QUALITY_CHECK off on the render node): no report.
        ...(flags ? { quality: { checked_at: new Date().toISOString(), passed: flags.length === 0, flags, repaired } } : {}),
      });
    },

    /**
     * One render of a storyboard, retrying on other nodes, its files under `files` (the revision, or a repair round's
     * tag); its final report if it fails for good goes into `failed`. `quiet`: an edit's, whose video is not reported.
     */
    async renderAttempts(video, storyboard, signal, failed, files, quiet, pageLanguage, { sharedTail = false, express = false } = {}) {
      const report = (made: Omit<VideoReport, 'campaign_id' | 'video_id' | 'at'>) => (quiet ? undefined : this.reportVideo(video, made));
      const { models } = this.db;
      const tally: RenderTally = { avoid: [], failures: 0, lost: 0, express };
      for (;;) {
        signal.throwIfAborted();
        const startedAt = new Date();
        const attempt = await models.RenderAttempt.create({
          video_id: video.id,
          campaign_id: video.campaign_id,
          node_id: null,
          outcome: 'rendering',
          started_at: startedAt,
        });
        report({ status: 'rendering', error_code: null, error_message: null });
        try {
          const result = await this.sendToFreeNode(
            {
              video_id: video.id,
              output_key: storageKeys.video(video.campaign_id, video.id, files),
              thumbnail_key: storageKeys.thumbnail(video.campaign_id, video.id, files),
              captions_srt_key: storageKeys.captionsSrt(video.campaign_id, video.id, files),
              storyboard,
              page_language: pageLanguage,
              ...(sharedTail ? { shared_tail: true } : {}),
            },
            { renderAvoidNodes: tally.avoid, ...(express ? { express } : {}) },
            signal,
            (nodeID) => attempt.update({ node_id: nodeID }),
          );
          await attempt.update({
            node_id: result.node_id,
            outcome: 'ready',
            wall_ms: result.wall_ms,
            peak_rss_bytes: result.peak_rss_bytes,
            finished_at: new Date(),
          });
          return result;
        } catch (err) {
          await this.settleFailedAttempt(video, attempt, err, tally, signal, failed, quiet);
        }
      }
    },

    /**
     * One round of repair (decisions §13): the plan (lib/quality/repair.ts) from the check and the sections of the page
     * not shown yet (lib/quality/candidates.ts), spoken by the voice stage. Null: nothing the product can mend.
     */
    async repairRound(video, storyboard, check, round) {
      const trace = campaignTrace(video.campaign_id);
      const captures = await call(this.broker, 'capture.screenshots', { campaign_id: video.campaign_id }, trace);
      const candidates = repairCandidates(storyboard, captures);
      const plan = planRepair(storyboard, check, candidates, (key) => screenshotIdOf(video.campaign_id, key) ?? key);
      if (!plan || plan.repaired.length === 0) return null;
      // Reframed scenes keep their words and audio: marked on the storyboard the voice stage starts from (or, when
      // nothing else changed, rendered again as they are, nothing spoken).
      const base = withReframed(storyboard, plan.reframed);
      const summary = plan.repaired.map((r) => `${r.code} ${r.scene_id} ${r.action}`).join(', ');
      if (!plan.speak) {
        this.logger.info(`video ${video.id}: repair round ${round}: ${summary}`);
        return { storyboard: base, repaired: plan.repaired };
      }
      const { options } = await call(this.broker, 'campaigns.stageInput', { campaign_id: video.campaign_id }, trace);
      const shown = new Set(plan.scenes.flatMap((scene) => (scene.screen ? [screenshotKeyOf(video.campaign_id, scene.screen)] : [])));
      const screens = captures.flatMap((capture) => capture.screenshots).filter((ref) => shown.has(ref.key));
      const language = storyboard.language;
      const edit: VideoEditDocument = {
        voice_id: storyboard.voiceId ?? options?.voice?.[language] ?? defaultVoiceId(language),
        captions: storyboard.captions ?? options?.captions ?? 'burned',
        quality: storyboard.quality ?? configOf(this.broker).renderQuality,
        primary_color: null,
        scenes: plan.scenes,
      };
      const mended = await call(
        this.broker,
        'voice.repairNarration',
        { campaign_id: video.campaign_id, video_id: video.id, round, base, edit, screens, options },
        { ...trace, meta: { [CPU_CLASS_META]: currentCpuClass() } },
      );
      this.logger.info(`video ${video.id}: repair round ${round}: ${summary}`);
      return { storyboard: mended, repaired: plan.repaired };
    },

    /**
     * A render attempt that did not answer with a video: its row closed with the outcome, then either a return (send
     * the video again: the node was busy or gone, or it failed fewer than RENDER_ATTEMPTS times) or a throw (canceled,
     * the transporter gone too long, too many lost, or failed for good, with the video's final report in `failed`).
     */
    async settleFailedAttempt(video, attempt, err, tally, signal, failed, quiet) {
      const config = configOf(this.broker);
      // An edit's video stays as the actor keeps it (its previous revision served): nothing is reported of it here.
      const report = (made: Omit<VideoReport, 'campaign_id' | 'video_id' | 'at'>) =>
        quiet ? { campaign_id: video.campaign_id, video_id: video.id, at: Date.now(), ...made } : this.reportVideo(video, made);
      const e = err as Error & { type?: string; nodeID?: string; data?: { nodeID?: string } };
      const nodeID = e.data?.nodeID ?? e.nodeID ?? attempt.node_id ?? null;
      if (nodeID) slotTableOf(this.broker).settle(nodeID, tally.express);
      const finish = (outcome: RenderAttempt['outcome']) =>
        attempt.update({ node_id: nodeID, outcome, error_message: e.message, finished_at: new Date() });
      if (signal.aborted || e.type === CampaignCanceledError.TYPE) {
        await finish('canceled');
        throw signal.aborted ? signal.reason : err;
      }
      if (e.type === RendererBusyError.TYPE) {
        await finish('busy');
        await slotTableOf(this.broker).changed(1000);
        return;
      }
      if (isTransporterDown(err)) {
        // This node's own transporter is down (Redis restarting): the render never left. Sent again once it is back.
        await finish('lost');
        this.logger.warn(`video ${video.id}: render not sent (${e.message}); sending it again once the transporter is back`);
        if (await this.transporterBack(TRANSPORTER_WAIT_MS)) return;
        report({ status: 'queued' });
        throw new StageInterruptedError(`The cluster's transporter has been down for ${TRANSPORTER_WAIT_MS / 1000} s.`);
      }
      if (RENDER_LOST_ON.has(e.type ?? '')) {
        await finish('lost');
        tally.lost += 1;
        this.logger.warn(`video ${video.id}: render lost (${e.message}); sending it to another node`);
        if (tally.lost < MAX_LOST_RENDERS && e.type !== 'SERVICE_NOT_AVAILABLE') return;
        report({ status: 'queued' });
        throw err;
      }
      await finish('failed');
      tally.failures += 1;
      if (nodeID && !tally.avoid.includes(nodeID)) tally.avoid.push(nodeID);
      this.logger.warn(
        `video ${video.id}: render failed on ${nodeID ?? 'a node'} (${tally.failures}/${config.renderAttempts}): ${e.message}`,
      );
      if (tally.failures < config.renderAttempts) return;
      failed.push(report({ status: 'failed', error_code: 'render_failed', error_message: e.message.slice(0, 2000) }));
      throw err;
    },

    /**
     * Waits until some render node has a free slot, then calls that node (the freest, avoiding nodes where
     * this video failed). Choice and call happen in one tick, so concurrent renders never take the same slot;
     * the node is named in the call because Moleculer's preferLocal would otherwise bypass the balancing.
     */
    async sendToFreeNode(
      params: RenderVideoParams,
      meta: RenderMeta,
      signal: AbortSignal,
      onSent: (nodeID: string) => Promise<unknown>,
    ): Promise<RenderVideoResult> {
      const table = slotTableOf(this.broker);
      const config = configOf(this.broker);
      let noNodeSince: number | null = null;
      let lastAsked = Date.now();
      for (;;) {
        signal.throwIfAborted();
        const endpoints = (this.broker.registry.getActionEndpoints(RENDER_ACTION)?.endpoints ?? []).filter((ep) => ep.isAvailable);
        const chosen = takeRenderNode(endpoints, table, meta.renderAvoidNodes ?? [], (this.turn = (this.turn ?? 0) + 1), meta.express);
        if (chosen) {
          const render = call(this.broker, RENDER_ACTION, params, {
            ...campaignTrace(params.storyboard.campaignId),
            nodeID: chosen.id,
            // The stage's CPU class (its call's, lib/campaign/cpu-class.ts) goes with the render to its node.
            meta: { ...meta, [CPU_CLASS_META]: currentCpuClass() },
            retries: 0,
            timeout: config.renderTimeoutMs + 60_000,
          });
          // Recorded while the render runs (a report shows where); its failure must not hide the render's answer.
          // The call is marked handled first: its rejection may come while the record is written, and is returned below.
          render.catch(() => undefined);
          await onSent(chosen.id).catch((err: Error) => this.logger.warn(`render attempt's node not recorded: ${err.message}`));
          return this.watchRender(render, chosen.id, params.video_id);
        }
        if (endpoints.length === 0) {
          noNodeSince ??= Date.now();
          if (Date.now() - noNodeSince > NO_NODE_GRACE_MS) throw new Errors.ServiceNotAvailableError({ action: RENDER_ACTION });
        } else {
          noNodeSince = null;
        }
        // Every node full for a while: a report may have been lost (sent while Redis was away); ask them again.
        if (Date.now() - lastAsked >= SLOT_REFRESH_MS) {
          lastAsked = Date.now();
          void this.broker.broadcast('renderer.announce', {});
        }
        await table.changed(1000);
      }
    },

    /** Closes the campaign's attempts still `rendering` as `lost`; only called where no live stage can own them. */
    async closeAbandonedAttempts(where: { campaign_id: string; video_id?: string | string[] }) {
      const [closed] = await this.db.models.RenderAttempt.update(
        { outcome: 'lost', error_message: ABANDONED_MESSAGE, finished_at: new Date() },
        { where: { ...where, outcome: 'rendering' } },
      );
      if (closed) this.logger.warn(`campaign ${where.campaign_id}: ${closed} render attempt(s) of a stage that died closed as lost`);
      return closed;
    },

    /**
     * The render's answer, or RENDER_INTERRUPTED once its node no longer renders it and no answer came: an answer
     * lost in transit (Redis pub/sub keeps nothing for a subscriber that is reconnecting) would otherwise hold the
     * video until the call's timeout, minutes later. The node is asked every RENDER_WATCH_MS; two answers in a row
     * without the video (or a node restarted under the same name) mean lost. A node that does not answer is left to
     * Moleculer's heartbeat, which rejects the call when the node is gone.
     */
    async watchRender(render: Promise<RenderVideoResult>, nodeID: string, videoId: string): Promise<RenderVideoResult> {
      let settled = false;
      const done = render.then(
        () => (settled = true),
        () => (settled = true),
      );
      let misses = 0;
      for (;;) {
        await Promise.race([done, new Promise((resolve) => setTimeout(resolve, RENDER_WATCH_MS).unref())]);
        if (settled) return render;
        const status = await call(this.broker, 'renderer.status', {}, { nodeID, retries: 0, timeout: 5000 }).catch(() => null);
        if (settled) return render;
        misses = status && !status.videos.includes(videoId) ? misses + 1 : 0;
        if (misses >= 2)
          throw new RenderInterruptedError(nodeID, `Render node ${nodeID} no longer renders the video and its answer never came.`);
      }
    },

    /**
     * True once this node's transporter is connected again, false after `withinMs`. The transporter's own flag: the
     * transit's stays set through a reconnect. Never at once: the call that failed had just seen it down.
     */
    async transporterBack(withinMs: number) {
      const deadline = Date.now() + withinMs;
      do {
        await new Promise((resolve) => setTimeout(resolve, 250));
        if ((this.broker.transit?.tx as { connected?: boolean } | undefined)?.connected) return true;
      } while (Date.now() < deadline);
      return false;
    },

    /**
     * Videos and campaigns are the campaign actor's: it records what this stage reports, as an event it consumes
     * (a video ready moves the campaign's progress), not a call the render waits on. Returns the report made.
     */
    reportVideo(video: StageVideo, report: Omit<VideoReport, 'campaign_id' | 'video_id' | 'at'>) {
      const made: VideoReport = { campaign_id: video.campaign_id, video_id: video.id, at: Date.now(), ...report };
      this.broker.emit(VIDEO_REPORTED, made, campaignTrace(video.campaign_id)).catch((err: Error) => {
        this.logger.warn(`video ${video.id}: report '${report.status}' not sent (${err.message}); the stage's result carries it`);
      });
      return made;
    },
  } satisfies Omit<RenderingMethods, keyof DbMethods<'rendering'> | keyof CancelableMethods> & ThisType<RenderingThis>,
};

export default RenderingService;
