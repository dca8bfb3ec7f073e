/**
 * Retry a failed campaign: POST /campaigns/{id}/retry makes a new campaign (its own id, `retry_of`
 * the failed one, one quota unit like any create) that starts in the state its original failed in, with what the
 * original's finished stages stored copied by their owners (capture.adopt, script.adopt, voice.adopt): a render that
 * failed is rendered again without loading the page again. Each video keeps what it had finished (its script's source,
 * its captions, its files if it was ready), so a language done before another failed is not made again. A module of the `campaigns` service (mixed into
 * services/campaigns.service.ts).
 *
 * The new campaign is written holding its lease, so the reaper leaves it alone while the owners copy; then the actor
 * advances it. Should a copy fail, the campaign's stage finds its input missing and fails it, naming what is missing.
 */
import crypto from 'node:crypto';
import type { Context } from 'moleculer';
import type { Transaction } from 'sequelize';
import { configOf } from '../../config';
import { writeVideoReadyEvent } from '../../lib/campaign/outbox';
import { periodResetsAt, quotaPeriod, reserveQuota, usedInPeriod } from '../../lib/campaign/quota';
import { GENERATING_STATES, isGenerating, PROGRESS_ON_ENTRY, type GeneratingState } from '../../lib/campaign/states';
import type { AdoptParams } from '../../lib/campaign/stages';
import type { Campaign, Video } from '../../lib/db/models';
import { conflict, quotaExceeded, unauthorized } from '../../lib/errors';
import { CampaignIdParams, RetriedCampaign } from '../../lib/http/api-schemas';
import { call } from '../../lib/net/calls';
import type { CampaignByIdParams, CampaignMeta, CampaignsActionSchemas, CampaignsThis, RetryCampaignResult, RetryMethods } from './types';

/**
 * The owner that copies each stage's outputs, and the first state after which they may exist. After processing, each
 * language runs its own lane (lib/campaign/lanes.ts): a campaign that failed in scripting may have languages spoken, or
 * their videos ready, already.
 */
const ADOPTERS: Array<{ action: 'capture.adopt' | 'script.adopt' | 'voice.adopt'; after: GeneratingState }> = [
  { action: 'capture.adopt', after: 'collecting' },
  { action: 'script.adopt', after: 'processing' },
  { action: 'voice.adopt', after: 'processing' },
];
const stepOf = (state: GeneratingState) => GENERATING_STATES.indexOf(state);

export const retryActions: CampaignsActionSchemas = {
  retry: {
    rest: 'POST /campaigns/:id/retry',
    scope: 'campaigns:create',
    rateLimit: 'plan',
    params: CampaignIdParams,
    openapi: {
      summary: 'Retry a failed campaign',
      description:
        "Makes a new campaign (201, its own id, retry_of this one) that starts where this one failed, reusing what its finished stages stored (the page's captures, the plan, the scripts, the narration, the videos already made): a failed render is rendered again without loading the page, and a language finished before another failed is not made again. One campaign of the monthly quota, like any create. Only a failed campaign that was not canceled can be retried (409 otherwise).",
      successStatus: 201,
      response: RetriedCampaign,
      responses: { 409: 'The campaign has not failed, or was canceled by its customer.' },
    },
    async handler(ctx: Context<CampaignByIdParams, CampaignMeta>): Promise<RetryCampaignResult> {
      const auth = ctx.meta.auth;
      if (!auth) throw unauthorized();
      const original = await this.findOwned(ctx, { include: [{ model: this.db.models.Video, as: 'videos' }] });
      if (original.status !== 'failed') throw conflict(`Only a failed campaign can be retried; this one is ${original.status}.`);
      if (original.error_code === 'canceled') throw conflict('A canceled campaign is not retried; create a new one instead.');
      const used = await usedInPeriod(this.db.sequelize, auth.orgId, quotaPeriod());
      if (used >= auth.limits.campaignsPerMonth) {
        throw quotaExceeded({ used, limit: auth.limits.campaignsPerMonth, resets_at: periodResetsAt(quotaPeriod()) });
      }
      const startsIn = await this.failedIn(original.id);
      const { campaignId, jobId, videos } = await this.insertRetry(original, startsIn, auth.limits.campaignsPerMonth);
      const adopt: AdoptParams = { from_campaign_id: original.id, campaign_id: campaignId, starts_in: startsIn, videos };
      for (const { action, after } of ADOPTERS) {
        if (stepOf(startsIn) > stepOf(after)) await call(ctx, action, adopt);
      }
      ctx.meta.$statusCode = 201;
      ctx.meta.$location = `/api/v1/campaigns/${campaignId}`;
      this.advance(campaignId).catch((err: Error) => this.logger.error(`campaign ${campaignId}: advance failed`, err.message));
      return { success: true, campaign_id: campaignId, job_id: jobId, status: startsIn, retry_of: original.id };
    },
  },
};

export const retryMethods = {
  /** The generating state a failed campaign failed in (its last transition to `failed`); collecting if none is known. */
  async failedIn(campaignId: string): Promise<GeneratingState> {
    const event = await this.db.models.CampaignEvent.findOne({
      where: { campaign_id: campaignId, to_status: 'failed' },
      order: [['id', 'DESC']],
    });
    const from = event?.from_status ?? 'collecting';
    return isGenerating(from) ? from : 'collecting';
  },

  /**
   * The retry's rows, in one transaction with its quota unit: the campaign in `startsIn` (holding its lease), its
   * videos (what the actor recorded of the stages before: script source, captions), its first event. Answers its id
   * and job id, and each failed video's counterpart.
   */
  async insertRetry(original: Campaign, startsIn: GeneratingState, campaignsPerMonth: number) {
    const { models, sequelize } = this.db;
    const config = configOf(this.broker);
    const now = new Date();
    const campaignId = crypto.randomUUID();
    const jobId = crypto.randomUUID();
    const period = quotaPeriod(now);
    const originals: Video[] = original.videos ?? [];
    const videos: Array<{ from: string; to: string }> = [];
    await sequelize.transaction(async (transaction: Transaction) => {
      let announced = false;
      await reserveQuota(sequelize, transaction, original.org_id, period, campaignsPerMonth);
      const campaign = await models.Campaign.create(
        {
          id: campaignId,
          org_id: original.org_id,
          job_id: jobId,
          status: startsIn,
          url: original.url,
          title: original.title,
          languages: original.languages,
          platforms: original.platforms,
          webhook_url: original.webhook_url,
          webhook_events: original.webhook_events,
          options: original.options,
          metadata: original.metadata,
          // Recorded by the first language scripted, which another lane's failure did not undo.
          page_language: stepOf(startsIn) > stepOf('processing') ? original.page_language : null,
          retry_of: original.id,
          progress: PROGRESS_ON_ENTRY[startsIn],
          quota_period: period,
          status_changed_at: now,
          deadline_at: new Date(now.getTime() + config.campaignMaxDurationMs),
          lease_owner: this.broker.nodeID,
          lease_expires_at: new Date(now.getTime() + config.campaignLeaseMs),
        },
        { transaction },
      );
      for (const video of originals) {
        // What each video had finished is kept, whichever state the campaign failed in: its lane goes on from there
        // (a language done before another failed is neither scripted, spoken nor rendered again).
        const after = stepOf(startsIn) > stepOf('processing');
        const ready = after && video.status === 'ready' && Boolean(video.file_key);
        const copy = await models.Video.create(
          {
            campaign_id: campaignId,
            language: video.language,
            platform: video.platform,
            variant: video.variant,
            status: ready ? 'ready' : 'queued',
            script_source: after ? (video.script_source ?? null) : null,
            captions_key: after ? (video.captions_key ?? null) : null,
            ...(ready
              ? {
                  file_key: video.file_key,
                  thumbnail_key: video.thumbnail_key,
                  captions_srt_key: video.captions_srt_key,
                  duration_seconds: video.duration_seconds,
                  quality: video.quality,
                  file_revision: 1,
                }
              : {}),
          },
          { transaction },
        );
        videos.push({ from: video.id, to: copy.id });
        // decisions §15: each video of the campaign is announced ready once; a kept one is ready from the start, so
        // its video.ready is written now, with the retry's ids (the original's event named the original's video).
        if (ready && (await writeVideoReadyEvent(models, transaction, campaign, copy.id, (v) => this.links(v), now))) announced = true;
      }
      if (announced) transaction.afterCommit(() => this.broker.emit('webhooks.enqueued', { campaign_id: campaignId }));
      await models.CampaignEvent.create(
        { campaign_id: campaignId, from_status: null, to_status: startsIn, detail: `retry of ${original.id}`, created_at: now },
        { transaction },
      );
    });
    return { campaignId, jobId, videos };
  },
} satisfies RetryMethods & ThisType<CampaignsThis>;
