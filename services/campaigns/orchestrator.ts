/**
 * The campaign actor's orchestrator: the lease that makes one node the campaign's actor, the stage of each generating
 * state called in turn (STAGE_ACTIONS) and its result recorded with the step, the reaper (deadlines, orphans,
 * abandoned renders), the transitions with their events and the terminal webhook event written in the same
 * transaction (lib/campaign/outbox.ts), and the pipeline's own endpoints (a stage's input, the rendering stage's
 * progress, the dispatcher's intake). A module of the `campaigns` service (mixed into services/campaigns.service.ts),
 * so the campaign tables keep one writer.
 */
import { Op, type Transaction } from 'sequelize';
import type { Context } from 'moleculer';
import { configOf } from '../../config';
import { writeBatchCompletedEvent, writeTerminalEvent, writeVideoReadyEvent } from '../../lib/campaign/outbox';
import {
  canTransition,
  GENERATING_STATES,
  type GeneratingState,
  InvalidTransitionError,
  isGenerating,
  nextState,
  PROGRESS_ON_ENTRY,
  STAGE_ACTIONS,
  type CampaignState,
  type StageAction,
} from '../../lib/campaign/states';
import {
  callLanguages,
  callVideos,
  campaignTrace,
  STAGE_PARAMS_SCHEMA,
  turnCallOptions,
  VIDEO_REPORT_SCHEMA,
  VIDEO_REPORTED,
  type RenderingResult,
  type ScriptingResult,
  type StageCall,
  type StageInput,
  type StageParams,
  type VideoReport,
  type VoiceoverResult,
} from '../../lib/campaign/stages';
import { refundQuota } from '../../lib/campaign/quota';
import { campaignStateOfLanes, isLaneStage, lanesOf, progressWithReady, type LaneStage, type LaneState } from '../../lib/campaign/lanes';
import { pageLanguageCode } from '../../lib/campaign/view';
import type { Campaign } from '../../lib/db/models';
import { CampaignCanceledError, isDatabaseUnavailable, notFound, STAGE_ERROR_CODES, STAGE_WAITS_ON, messageOf } from '../../lib/errors';
import { UUID_ANY_CASE } from '../../lib/ids';
import { call } from '../../lib/net/calls';
import { fileLinks, loadSigningKey, type LinkableVideo } from '../../lib/storage/file-links';
import type {
  CampaignsActionSchemas,
  CampaignsEvents,
  CampaignsThis,
  OrchestratorMethods,
  TransitionParams,
  TransitionResult,
  WebhookEvent,
  WebhookEventsHandedOverParams,
  WebhookEventsParams,
} from './types';
import { isOneOf, VIDEO_VARIANTS } from '../../config/catalog';
import { TurnGate } from '../../lib/campaign/turn-gate';
import { CPU_CLASS_META } from '../../lib/campaign/cpu-class';
import {
  campaignSlotsOf,
  organizationBacklog,
  queueView,
  removeCampaignTurns,
  removeSettledTurns,
  type NewTurn,
  type StageTurnsView,
  type TurnKey,
} from '../../lib/campaign/turns';
import { declaredSlots } from '../../lib/render/slots';
import { CAMPAIGN_WORK_STOPS, type CampaignCanceledEvent } from '../../mixins/cancelable.mixin';

/** How often a node's waiting turns are looked at when no node said anything (one that died says nothing). */
const TURN_POLL_MS = 2000;
/** Said to every campaign actor when a stage's turns change (one released, granted, or withdrawn). */
export const TURNS_CHANGED = 'campaigns.turnsChanged';
export interface TurnsChanged {
  stage: GeneratingState;
}

/** The reaper's rounds (sweep), from the service's start until it stops. */
export function startSweeping(this: CampaignsThis): void {
  const tick = () => {
    this.sweep()
      .catch((err: Error) => this.logger.warn(`sweep failed: ${err.message}`))
      .finally(() => {
        if (!this.stopping) this.sweepTimer = setTimeout(tick, configOf(this.broker).campaignSweepMs);
      });
  };
  this.sweepTimer = setTimeout(tick, configOf(this.broker).campaignSweepMs);
}

/** What a lane's state is read from (lib/campaign/lanes.ts), of each video. */
const LANE_VIDEO_ATTRIBUTES = ['language', 'status', 'script_source', 'captions_key'] as const;

/** A promise settled once, from outside: a lane's turn passed on to the next lane. */
function settled(): { done: Promise<void>; settle: () => void } {
  let settle: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (settle = resolve));
  return { done, settle };
}

export function stopSweeping(this: CampaignsThis): void {
  this.stopping = true;
  clearTimeout(this.sweepTimer);
}

/** The pipeline's endpoints: moving a campaign, a stage's input, the rendering stage's reports, the dispatcher's intake. */
export const orchestratorActions: CampaignsActionSchemas = {
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

  /** What a stage is handed with its call (stageInputOf), for a caller outside the pipeline: operators, tests. */
  stageInput: {
    visibility: 'public',
    params: STAGE_PARAMS_SCHEMA,
    handler(ctx: Context<StageParams>): Promise<StageInput> {
      return this.stageInputOf(ctx.params.campaign_id);
    },
  },

  /**
   * The webhook dispatcher's intake (internal; every organization's): terminal events not yet handed over,
   * oldest first. The dispatcher makes each a delivery, then says so with webhookEventsHandedOver.
   */
  webhookEvents: {
    visibility: 'public',
    params: { type: 'object', additionalProperties: false, properties: { limit: { type: 'integer', minimum: 1, maximum: 500 } } },
    async handler(ctx: Context<WebhookEventsParams>): Promise<WebhookEvent[]> {
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

  /** Operators (the REPL's `turns`): each stage's turn queue now, with the capacity this node sees for it. */
  stageTurns: {
    visibility: 'public',
    async handler(): Promise<StageTurnsView[]> {
      const queues = await queueView(this.db);
      return queues.map((queue) => ({ ...queue, capacity: this.stageCapacity(queue.stage) }));
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
    async handler(ctx: Context<WebhookEventsHandedOverParams>): Promise<{ handed_over: number }> {
      const [handedOver] = await this.db.models.CampaignWebhookEvent.update(
        { handed_over_at: new Date() },
        { where: { event_id: ctx.params.event_ids, handed_over_at: null } },
      );
      return { handed_over: handedOver };
    },
  },
};

export const orchestratorEvents: CampaignsEvents = {
  /** A stage service joined somewhere in the cluster: campaigns waiting for it can move on. */
  '$services.changed'() {
    this.resumeWaiting().catch((err: Error) => this.logger.warn('resume after services change failed', err.message));
    // A stage's capacity is its nodes': one joined or left.
    for (const stage of GENERATING_STATES) this.turns?.wake(stage);
  },
  [TURNS_CHANGED]: {
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['stage'],
      properties: { stage: { type: 'string', enum: [...GENERATING_STATES] } },
    },
    handler(ctx: Context<TurnsChanged>) {
      this.turns?.wake(ctx.params.stage);
    },
  },
  /** The rendering stage's report on one video, as it happens: a video ready moves the campaign's progress. */
  [VIDEO_REPORTED]: {
    params: VIDEO_REPORT_SCHEMA,
    async handler(ctx: Context<VideoReport>) {
      await this.recordVideo(ctx.params);
    },
  },
};

export const orchestratorMethods = {
  /** What a stage needs to know of a campaign and its videos: read with each step, handed to the stage in its call. */
  async stageInputOf(campaignId: string): Promise<StageInput> {
    const { Campaign: Campaigns, Video: Videos } = this.db.models;
    const campaign: Campaign | null = await Campaigns.findByPk(campaignId, { include: [{ model: Videos, as: 'videos' }] });
    if (!campaign) throw notFound();
    return {
      id: campaign.id,
      url: campaign.url,
      title: campaign.title,
      status: campaign.status,
      languages: campaign.languages,
      platforms: campaign.platforms,
      options: campaign.options ?? null,
      page_language: campaign.page_language ?? null,
      videos: (campaign.videos ?? []).map((video) => ({
        id: video.id,
        campaign_id: video.campaign_id,
        language: video.language,
        platform: video.platform,
        variant: video.variant ?? 'a',
        status: video.status,
        file_key: video.file_key ?? null,
        thumbnail_key: video.thumbnail_key ?? null,
        captions_srt_key: video.captions_srt_key ?? null,
        script_source: video.script_source ?? null,
      })),
    };
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
        // It waits for no stage any more: its turns go, and a waiting call of it learns so at once.
        await removeCampaignTurns(this.db, campaign.id, transaction);
        const stage = campaign.status;
        // Its work in flight on any node is for nothing now (canceled, timed out, or one of its lanes failed while
        // the others ran): stopped as a cancel stops it.
        if (isGenerating(stage))
          transaction.afterCommit(() => {
            this.announceTurns(stage);
            this.stopCampaignWork(campaign.id);
          });
      } else {
        // Never back: a lane's videos ready moved it within the rendering band before the campaign got there.
        changes.progress = Math.max(PROGRESS_ON_ENTRY[params.to], campaign.progress ?? 0);
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
      const written = [
        await writeTerminalEvent(models, transaction, campaign, (video) => this.links(video), now),
        await writeBatchCompletedEvent(models, transaction, campaign, now),
      ];
      if (written.some(Boolean)) transaction.afterCommit(() => this.broker.emit('webhooks.enqueued', { campaign_id: campaign.id }));
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
    let from: CampaignState | undefined;
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
        from = campaign.status;
        // After processing, each language runs its own lane (lib/campaign/lanes.ts) until every one is done.
        if (isLaneStage(campaign.status)) {
          await this.runLanes(campaign);
          return;
        }
        const input = await this.stageInputOf(campaignId);
        const result = await this.callStage(campaign, action, { campaign_id: campaignId, input });
        // Stages compute and return; what they found about the videos is recorded here, with the step, before the
        // transition, whose terminal event (review's webhook) shows the videos as recorded.
        const step = from;
        await this.db.sequelize.transaction(async (transaction: Transaction) => {
          // The campaign row is locked first, as publish does, so the two never wait on each other.
          await this.db.models.Campaign.findByPk(campaignId, { transaction, lock: true });
          await this.recordStageResult(step, result, transaction);
          await this.applyTransition({ campaign_id: campaignId, to: nextState(step)!, detail: `${action} done` }, transaction);
        });
      }
    } catch (err) {
      await this.settleStageError(campaignId, from, err);
    } finally {
      clearInterval(renew);
      this.running.delete(campaignId);
      await this.db.models.Campaign.update(
        { lease_owner: null, lease_expires_at: null },
        { where: { id: campaignId, lease_owner: this.broker.nodeID } },
      ).catch(() => undefined);
    }
  },

  /**
   * What a stage's error means for its campaign, recorded: `ended` (canceled, timed out or settled while the stage
   * ran: its end changes nothing), `waits` (not the campaign's fault: it is resumed when the stage or the database is
   * back), or `failed` (the campaign fails, with the stage's code if it is one of ours).
   */
  async settleStageError(campaignId: string, state: CampaignState | undefined, err: unknown): Promise<'ended' | 'waits' | 'failed'> {
    const e = err as { message?: string; retryable?: boolean; type?: string; code?: number; data?: { videos?: VideoReport[] } };
    // Canceled (or timed out) while its stage ran: the campaign is failed already, and its stage's end changes nothing.
    if (e.type === CampaignCanceledError.TYPE || err instanceof InvalidTransitionError) {
      this.logger.info(`campaign ${campaignId}: ended while its stage ran (${e.message})`);
      return 'ended';
    }
    if (STAGE_WAITS_ON.has(e.type ?? '') || isDatabaseUnavailable(err)) {
      // Not the campaign's fault (a node stopping, a stage gone, the database down, met here or in the stage): it
      // waits and is resumed when the stage (or the database) is back.
      this.logger.warn(`campaign ${campaignId}: stage interrupted, will resume: ${e.message}`);
      return 'waits';
    }
    this.logger.error(`campaign ${campaignId}: stage failed: ${e.message}`);
    const known = isOneOf(STAGE_ERROR_CODES, e.type ?? '');
    // A failed render names its videos' final reports: recorded with the failure, as its webhook shows them.
    const reports = state === 'rendering' && Array.isArray(e.data?.videos) ? e.data.videos : [];
    await this.db.sequelize
      .transaction(async (transaction: Transaction) => {
        await this.db.models.Campaign.findByPk(campaignId, { transaction, lock: true });
        for (const report of reports) await this.recordVideo(report, transaction);
        await this.applyTransition(
          {
            campaign_id: campaignId,
            to: 'failed',
            error_code: known ? e.type : 'internal',
            error_message: known ? e.message : 'A generation step failed.',
          },
          transaction,
        );
      })
      .catch((inner: Error) => {
        // Another lane's failure (or a cancel) settled it first.
        if (inner instanceof InvalidTransitionError) this.logger.info(`campaign ${campaignId}: already ended (${inner.message})`);
        else this.logger.error(`campaign ${campaignId}: could not record failure`, inner.message);
      });
    return 'failed';
  },

  /**
   * A campaign's lanes (lib/campaign/lanes.ts), each language's script → voice → render, from where each one is
   * (what is recorded is not done again: a node that died mid-lane leaves the rest to the actor that takes over).
   * Scheduled in the campaign's language order, one lane at a time in scripting and in voiceover (the voice is
   * CPU-bound), so lane i+1 is scripted while lane i is spoken, and spoken while lane i renders: the first video is
   * ready long before the last. A lane that must wait stops (the campaign is resumed later); one that fails fails
   * the campaign (decisions §3), the other lanes start no further step, and their calls in flight are stopped (the
   * failure's stop broadcast, applyTransition). Returns once every lane has stopped.
   */
  async runLanes(campaign: Campaign) {
    const { Campaign: Campaigns, Video: Videos } = this.db.models;
    // Lanes already past the campaign's status (an actor that died after the ready reports, before the stage's end
    // was recorded) move it on first: a campaign whose every lane is done has no step left to do it.
    await this.db.sequelize.transaction(async (transaction: Transaction) => {
      const locked: Campaign | null = await Campaigns.findByPk(campaign.id, { transaction, lock: true });
      if (locked && isLaneStage(locked.status)) await this.followLanes(locked, transaction);
    });
    const videos = await Videos.findAll({ where: { campaign_id: campaign.id }, attributes: [...LANE_VIDEO_ATTRIBUTES] });
    const lanes = lanesOf(campaign.status as LaneStage, campaign.languages, videos);
    let ended = false;
    // turns[stage][i] settles once lane i is past that stage (done, waiting or ended): lane i + 1's turn.
    const turns = { scripting: lanes.map(() => settled()), voiceover: lanes.map(() => settled()) };
    await Promise.all(
      lanes.map(async (lane, i) => {
        let state: LaneState = lane.state;
        try {
          while (isLaneStage(state) && !ended) {
            const turn = state === 'rendering' ? undefined : turns[state];
            if (turn && i > 0) await turn[i - 1].done;
            if (ended) return;
            const stepped = await this.runLaneStep(campaign, lane.language, state);
            turn?.[i].settle();
            if (!stepped) return;
            state = nextState(state) as LaneState;
          }
        } catch (err) {
          if ((await this.settleStageError(campaign.id, state, err)) !== 'waits') ended = true;
        } finally {
          turns.scripting[i].settle();
          turns.voiceover[i].settle();
        }
      }),
    );
  },

  /**
   * One lane's step: the stage of `state` called for `language` only, its result recorded with the lanes' state in one
   * transaction under the campaign row's lock, and the campaign moved on when its least advanced lane did. False when
   * the step cannot start (paused, past the deadline, the campaign settled, no service offers the stage): the lane
   * stops there.
   */
  async runLaneStep(campaign: Campaign, language: string, state: LaneStage) {
    const { Campaign: Campaigns } = this.db.models;
    const campaignId = campaign.id;
    if (configOf(this.broker).pipelinePaused) return false;
    const now: Campaign | null = await Campaigns.findByPk(campaignId, { attributes: ['status', 'deadline_at'] });
    // Past its deadline, no further stage starts: the reaper fails it with timeout.
    if (!now || !isLaneStage(now.status) || new Date(now.deadline_at).getTime() < Date.now()) return false;
    const action = STAGE_ACTIONS[state];
    if (!this.broker.registry.getActionEndpoints(action)?.hasAvailable()) {
      this.logger.debug(`campaign ${campaignId}: ${language} waits in ${state}: no service offers ${action}`);
      return false;
    }
    const input = await this.stageInputOf(campaignId);
    const result = await this.callStage(campaign, action, { campaign_id: campaignId, input, languages: [language] });
    await this.db.sequelize.transaction(async (transaction: Transaction) => {
      // The campaign row is locked first, as publish does, so the two never wait on each other.
      const locked: Campaign | null = await Campaigns.findByPk(campaignId, { transaction, lock: true });
      if (!locked || !isLaneStage(locked.status)) throw new InvalidTransitionError(locked?.status ?? 'gone', nextState(state)!);
      await this.recordStageResult(state, result, transaction);
      await this.followLanes(locked, transaction);
    });
    return true;
  },

  /**
   * The campaign's status follows its least advanced lane, one documented step at a time (each with its event;
   * review's with its terminal webhook event, after every video's video.ready). In the caller's transaction, the
   * campaign row locked.
   */
  async followLanes(campaign: Campaign, transaction: Transaction) {
    const videos = await this.db.models.Video.findAll({
      where: { campaign_id: campaign.id },
      attributes: [...LANE_VIDEO_ATTRIBUTES],
      transaction,
    });
    const target = campaignStateOfLanes(lanesOf(campaign.status as LaneStage, campaign.languages, videos));
    let status = campaign.status as LaneState;
    while (isLaneStage(status) && status !== target) {
      const to = nextState(status) as LaneState;
      // The detail the timeline's words know (lib/dashboard/words.ts): the stage is done, for every language now.
      await this.applyTransition({ campaign_id: campaign.id, to, detail: `${STAGE_ACTIONS[status]} done` }, transaction);
      status = to;
    }
  },

  /**
   * The one place a campaign's stage is called: every stage call of the pipeline goes through here, so what governs
   * a call (its trace, the turn it waits for) is decided once. The call first waits for a turn of its stage
   * (decisions §14: round robin by organization, then by age, across the cluster: lib/campaign/turns.ts), holds it
   * while the stage runs, and gives it back when the stage returns or throws. A rendering turn holds as many of the
   * cluster's render slots as the campaign has videos to render, so the renders of the campaigns granted never
   * outnumber the slots: no video waits inside the stage behind another organization's.
   */
  async callStage(campaign: Campaign, action: StageAction, params: StageCall): Promise<unknown> {
    const stage = (Object.keys(STAGE_ACTIONS) as GeneratingState[]).find((state) => STAGE_ACTIONS[state] === action)!;
    const turn: NewTurn = {
      campaignId: campaign.id,
      stage,
      // A language's lane (runLanes) holds its own turn: the campaign's lanes queue, and are granted, each on its own.
      lane: params.languages ? callLanguages(params).join(' ') : '',
      orgId: campaign.org_id,
      weight: stage === 'rendering' ? Math.max(1, callVideos(params).filter((video) => video.status !== 'ready').length) : 1,
      ageMs: new Date(campaign.created_at).getTime(),
    };
    return this.inTurn(turn, (options) => call(this.broker, action, params, options));
  },

  /**
   * Runs `work` holding `turn`: waits until it is granted, and gives it back when the work returns or throws. A
   * campaign's stage calls (callStage) and an edit's voice and render (runEdit) all go through here. `work` makes its
   * call with the options given: the campaign's trace, and what the grant tells the stage (lib/campaign/stages.ts
   * TurnMeta): an express turn, and whether the organization has a backlog (its other campaigns' turns waiting).
   */
  async inTurn<T>(turn: NewTurn, work: (options: ReturnType<typeof turnCallOptions>) => Promise<T>): Promise<T> {
    const { campaignId, stage, lane, orgId } = turn;
    const key: TurnKey = { campaignId, stage, lane };
    const gate = this.turnGate();
    const queuedAt = Date.now();
    try {
      const { express } = await gate.take(turn);
      const waited = Date.now() - queuedAt;
      const backlog = await organizationBacklog(this.db, orgId, campaignId);
      if (waited >= 1000 || express)
        this.logger.info(
          `campaign ${campaignId}${lane ? ` (${lane})` : ''} (org ${orgId}): ${express ? 'express ' : ''}turn of ${stage} after ${(waited / 1000).toFixed(1)} s`,
        );
      return await work(
        turnCallOptions(campaignId, { ...(express ? { express } : {}), [CPU_CLASS_META]: backlog ? 'bulk' : 'interactive' }),
      );
    } finally {
      await gate
        .release(key)
        .catch((err: Error) => this.logger.warn(`campaign ${campaignId}: turn of ${stage} not released: ${err.message}`));
    }
  },

  /** This node's side of the turn queue, made on first use (the database is the service's once it started). */
  turnGate(): TurnGate {
    this.turns ??= new TurnGate({
      db: this.db,
      nodeID: this.broker.nodeID,
      leaseMs: configOf(this.broker).campaignLeaseMs,
      pollMs: TURN_POLL_MS,
      capacityOf: (stage) => this.stageCapacity(stage),
      announce: (stage) => this.announceTurns(stage),
      warn: (message) => this.logger.warn(message),
    });
    return this.turns;
  },

  /** Tells every campaign actor (this one too) that the stage's turns changed; never throws (its caller has moved on). */
  announceTurns(stage: GeneratingState) {
    const warn = (err: Error) => this.logger.warn(`turns of ${stage} not announced: ${err.message}`);
    try {
      this.broker.broadcast<TurnsChanged>(TURNS_CHANGED, { stage }).catch(warn);
    } catch (err) {
      warn(err as Error);
    }
  },

  /** Tells every node to stop the campaign's work in flight (mixins/cancelable.mixin.ts); never throws. */
  stopCampaignWork(campaignId: string) {
    const warn = (err: Error) => this.logger.warn(`campaign ${campaignId}: stop of its work not broadcast: ${err.message}`);
    try {
      this.broker.broadcast<CampaignCanceledEvent>(CAMPAIGN_WORK_STOPS, { campaign_id: campaignId }).catch(warn);
    } catch (err) {
      warn(err as Error);
    }
  },

  /**
   * How many campaigns a stage serves at once across the cluster: what its live nodes declare (CAPTURE_CAMPAIGNS,
   * SCRIPT_CAMPAIGNS, VOICE_CAMPAIGNS in their metadata) added up; for rendering, the render slots of every render
   * node (RENDER_CONCURRENCY), which rendering turns hold one per video. At least 1, so a campaign is never held by
   * a count of 0 (the stage itself waits for its nodes as before).
   */
  stageCapacity(stage: GeneratingState): number {
    const live = (action: string) => (this.broker.registry.getActionEndpoints(action)?.endpoints ?? []).filter((ep) => ep.isAvailable);
    const total =
      stage === 'rendering'
        ? live('renderer.renderVideo').reduce((sum, ep) => sum + declaredSlots(ep), 0)
        : live(STAGE_ACTIONS[stage]).reduce((sum, ep) => sum + campaignSlotsOf(ep), 0);
    return Math.max(1, total);
  },

  /**
   * One video's report from the rendering stage (an event as it happens, or the stage's result at its end), applied
   * only if newer than the last one applied: events can cross. A video ready moves its campaign's progress in the
   * rendering band (50 → 99 with the videos ready; 100 is review's) whichever lane state the campaign shows, and writes its video.ready webhook event if the campaign wants it
   * (decisions §15), once per video, in this transaction: every caller holds the campaign row's lock while it renders.
   */
  async recordVideo(report: VideoReport, outer?: Transaction) {
    if (!outer) {
      // An event: applied only while the campaign renders, under its row's lock (the order every writer takes), so a
      // report that arrives after a cancel or the stage's end never changes a video the transition settled.
      await this.db.sequelize.transaction(async (transaction: Transaction) => {
        const campaign = await this.db.models.Campaign.findByPk(report.campaign_id, { transaction, lock: true, attributes: ['status'] });
        // Its lane renders while another may still be scripted or spoken (lib/campaign/lanes.ts).
        if (campaign && isLaneStage(campaign.status)) await this.recordVideo(report, transaction);
      });
      return;
    }
    const transaction = outer;
    const { campaign_id: campaignId, video_id: videoId, at, ...changes } = report;
    const { Campaign: Campaigns, Video: Videos } = this.db.models;
    const [applied] = await Videos.update(
      // A campaign's render is the video's first revision: once ready, its files are revision 1's.
      { ...changes, ...(changes.status === 'ready' ? { file_revision: 1 } : {}), reported_at: at },
      { where: { id: videoId, campaign_id: campaignId, [Op.or]: [{ reported_at: null }, { reported_at: { [Op.lt]: at } }] }, transaction },
    );
    if (applied === 0 || changes.status !== 'ready') return;
    const videos = await Videos.findAll({ where: { campaign_id: campaignId }, attributes: ['status'], transaction });
    const ready = videos.filter((v) => v.status === 'ready').length;
    const campaign: Campaign | null = await Campaigns.findByPk(campaignId, { transaction });
    if (!campaign) return;
    if (isLaneStage(campaign.status)) {
      const progress = progressWithReady(campaign.status, ready, videos.length, campaign.progress);
      await Campaigns.update({ progress }, { where: { id: campaignId, status: campaign.status }, transaction });
      campaign.progress = progress;
    }
    const written = await writeVideoReadyEvent(this.db.models, transaction, campaign, videoId, (video) => this.links(video), new Date());
    if (written) transaction.afterCommit(() => this.broker.emit('webhooks.enqueued', { campaign_id: campaignId }));
  },

  /** The videos' part of a stage's result (lib/campaign/stages.ts), recorded by their owner. */
  async recordStageResult(state: CampaignState, result: unknown, transaction: Transaction) {
    const { Video: Videos } = this.db.models;
    if (state === 'scripting') {
      const { campaign_id: campaignId, script_sources: sources, page_language: pageLanguage } = result as ScriptingResult;
      for (const { language, script_source: source, openings } of sources) {
        await Videos.update({ script_source: source }, { where: { campaign_id: campaignId, language }, transaction });
        // A variant beyond the script's openings opens as a does (decisions §15): made as asked, never silently.
        if (typeof openings === 'number') {
          const repeated = VIDEO_VARIANTS.slice(Math.max(1, openings));
          await Videos.update({ opening_repeated: false }, { where: { campaign_id: campaignId, language }, transaction });
          if (repeated.length) {
            await Videos.update(
              { opening_repeated: true },
              { where: { campaign_id: campaignId, language, variant: repeated }, transaction },
            );
          }
        }
      }
      // Named by the warning of a video narrated in it (lib/campaign/view.ts); a page's declared language is its text.
      const page = pageLanguageCode(pageLanguage);
      if (page) await this.db.models.Campaign.update({ page_language: page }, { where: { id: campaignId }, transaction });
    } else if (state === 'voiceover') {
      const { campaign_id: campaignId, captions } = result as VoiceoverResult;
      for (const { video_id: videoId, captions_key: captionsKey } of captions) {
        await Videos.update({ captions_key: captionsKey }, { where: { id: videoId, campaign_id: campaignId }, transaction });
      }
    } else if (state === 'rendering') {
      // What the reports said as they happened, again: one lost with a node (events are not kept) is recorded here.
      for (const report of (result as RenderingResult).rendered ?? []) await this.recordVideo(report, transaction);
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
    await removeSettledTurns(this.db);
    await this.resumeEdits();
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
        await call(this.broker, 'rendering.closeAbandoned', { campaign_id: id }, campaignTrace(id));
        await Campaigns.update({ lease_owner: null, lease_expires_at: null }, { where: { id, lease_owner: owner } });
      } catch (err) {
        this.logger.warn(`campaign ${id}: abandoned render attempts not closed yet: ${messageOf(err)}`);
      }
    }
  },

  async resumeWaiting() {
    if (configOf(this.broker).pipelinePaused) return;
    const waiting = await this.db.models.Campaign.findAll({ where: { status: [...GENERATING_STATES] }, attributes: ['id'], limit: 500 });
    for (const { id } of waiting) this.advance(id).catch(() => undefined);
    await this.resumeEdits();
  },
} satisfies OrchestratorMethods & ThisType<CampaignsThis>;
