/**
 * Editing a video (decisions §12): PUT /campaigns/{id}/videos/{video_id}/document. The actor checks
 * the edit against the document as it is (lib/campaign/video-edit.ts), records it with the video now `rendering` at the
 * new revision, and runs it: the voice stage speaks only the scenes that changed (voice.respeak), the rendering stage
 * renders that one video (rendering.renderEdit, with a campaign render's balancing, retries and cancel), each in a
 * turn of its stage like a campaign's calls (decisions §14: fair across organizations), and the actor
 * settles it — the new revision's files served, or the previous ones kept with the reason — writing `video.updated` to
 * the outbox in the same transaction. A module of the `campaigns` service (mixed into services/campaigns.service.ts).
 *
 * An edit holds a lease while a node runs it (as a campaign does); the reaper resumes one whose node died at the step
 * it had reached, and settling is guarded by the edit's state under its row's lock, so it completes once, with one
 * event. No quota is drawn; EDITS_PER_VIDEO_PER_DAY accepted edits per video, then 429.
 */
import crypto from 'node:crypto';
import type { Context } from 'moleculer';
import { Op, type Transaction } from 'sequelize';
import { configOf } from '../../config';
import { writeVideoUpdatedEvent } from '../../lib/campaign/outbox';
import { campaignTrace, type VideoReport } from '../../lib/campaign/stages';
import type { NewTurn } from '../../lib/campaign/turns';
import { buildVideoDocument, type VideoDocument } from '../../lib/campaign/video-document';
import { EDIT_WINDOW_MS, EDITS_PER_VIDEO_PER_DAY, readEdit, VIDEO_EDIT_RUNNING } from '../../lib/campaign/video-edit';
import type { Campaign, Video, VideoEdit } from '../../lib/db/models';
import {
  allowanceExhausted,
  CampaignCanceledError,
  conflict,
  isDatabaseUnavailable,
  messageOf,
  notFound,
  STAGE_ERROR_CODES,
  STAGE_WAITS_ON,
} from '../../lib/errors';
import { EditedVideo, EditVideoDocumentParams } from '../../lib/http/api-schemas';
import { UUID_ANY_CASE } from '../../lib/ids';
import { call } from '../../lib/net/calls';
import { loadSigningKey, screenLink } from '../../lib/storage/file-links';
import { screenshotKeyOf } from '../../lib/storage/keys';
import { isOneOf } from '../../config/catalog';
import type {
  CampaignMeta,
  CampaignsActionSchemas,
  CampaignsThis,
  EditMethods,
  EditVideoParams,
  EditVideoResult,
  VideoDocumentByIdParams,
} from './types';

/** How an edit's run ended: its render's report, or why it failed for good. */
type EditOutcome = { report: VideoReport } | { error: { code: string; message: string } };

/**
 * An edit's turn of the voice or rendering stage (decisions §14: fair at every stage, an edit's work as a campaign's):
 * its organization's, as old as the edit, in its video's lane (one edit of a video runs at a time); a render holds
 * one render slot.
 */
function editTurn(edit: VideoEdit, orgId: string, stage: 'voiceover' | 'rendering'): NewTurn {
  return { campaignId: edit.campaign_id, stage, lane: edit.video_id, orgId, weight: 1, ageMs: new Date(edit.created_at).getTime() };
}

export const editActions: CampaignsActionSchemas = {
  editVideo: {
    rest: 'PUT /campaigns/:id/videos/:video_id/document',
    scope: 'campaigns:create',
    rateLimit: 'plan',
    params: EditVideoDocumentParams,
    openapi: {
      summary: 'Edit a video: PUT its changed document, re-rendered from what changed',
      description:
        "Change narration and headlines, reorder, remove or add screen scenes (1–12 scenes: at most one title, first, and one closing, last), show another of the campaign's screenshots, change the voice, captions, quality (draft for a cheap preview) or brand colour. Send the document as read, with the revision read (read-only members may be left out). Scenes whose words and voice are unchanged keep their audio; only this video is rendered again. Answers 202 with the video rendering at the new revision; the previous files keep being served until it is ready, and a failed re-render leaves them with the reason in the video's error. video.updated is sent when it ends. Only while the campaign is in review; no quota is drawn; 30 accepted edits per video per 24 hours.",
      successStatus: 202,
      response: EditedVideo,
      requestBody: { $ref: '#/components/schemas/UniversalVideoJson' },
      responses: {
        400: 'invalid_input: the document is not valid (the message names the field): an unknown member, a read-only one changed, a screen id not of this campaign, text over its limit, an empty narration on a screen scene, a title not first or a closing not last.',
        409: "conflict: the campaign is not in review; the revision is not the video's current one (read the document again); or an edit of this video is still being rendered.",
        429: 'rate_limited: a request limit (limiter body), or this video had 30 accepted edits in the last 24 hours (standard body, details { limit, retry_after_seconds }); both with Retry-After.',
      },
    },
    async handler(ctx: Context<EditVideoParams, CampaignMeta>): Promise<EditVideoResult> {
      const { campaign, video } = await this.ownedVideo(ctx);
      const { id: campaignId } = campaign;
      const { id: videoId } = video;
      const { models, sequelize } = this.db;
      // Asked before the document is read, then again under the rows' locks (in the transaction: SQLite has one writer).
      const refuseState = async (found: Campaign, at: Video, transaction?: Transaction) => {
        if (found.status !== 'review')
          throw conflict(`Only a video of a campaign in review can be edited; this campaign is ${found.status}.`);
        const running = await models.VideoEdit.findOne({ where: { video_id: videoId, status: [...VIDEO_EDIT_RUNNING] }, transaction });
        if (running)
          throw conflict(
            `Revision ${running.revision} of this video is still being made (${running.status}); edit it again once it is ready.`,
          );
        if (ctx.params.revision !== at.revision)
          throw conflict(
            `revision: this video is at revision ${at.revision}, and the document sent was read at revision ${ctx.params.revision}; read the document again and redo the edit on it.`,
          );
      };
      await refuseState(campaign, video);
      const { id: _campaignId, video_id: _videoId, ...input } = ctx.params;
      const current = await this.documentOf(campaign, video);
      // In review, every video has its storyboard; a missing one is the voice stage's to make again, not an edit's.
      if (!current) throw conflict("This video's document cannot be read right now; try again in a moment.");
      const edit = readEdit(current, input);

      const editId = crypto.randomUUID();
      const now = new Date();
      const accepted = await sequelize.transaction(async (transaction: Transaction) => {
        // The campaign row first, as every writer locks it; then the video: the checks above again, under lock.
        const locked = (await models.Campaign.findByPk(campaignId, { transaction, lock: true }))!;
        const at = (await models.Video.findByPk(videoId, { transaction, lock: true }))!;
        await refuseState(locked, at, transaction);
        const recent = await models.VideoEdit.findAll({
          where: { video_id: videoId, created_at: { [Op.gt]: new Date(now.getTime() - EDIT_WINDOW_MS) } },
          attributes: ['created_at'],
          order: [['created_at', 'ASC']],
          transaction,
        });
        if (recent.length >= EDITS_PER_VIDEO_PER_DAY) {
          // The oldest edit in the window frees a place when it leaves the window.
          const freedAt = new Date(recent[recent.length - EDITS_PER_VIDEO_PER_DAY].created_at).getTime() + EDIT_WINDOW_MS;
          const retryAfter = Math.max(1, Math.ceil((freedAt - now.getTime()) / 1000));
          throw allowanceExhausted(
            `This video was edited ${EDITS_PER_VIDEO_PER_DAY} times in the last 24 hours, the most allowed; retry in ${retryAfter} s.`,
            { limit: EDITS_PER_VIDEO_PER_DAY, retry_after_seconds: retryAfter },
          );
        }
        const config = configOf(this.broker);
        await models.VideoEdit.create(
          {
            id: editId,
            video_id: videoId,
            campaign_id: campaignId,
            revision: at.revision + 1,
            base_revision: at.file_revision ?? at.revision,
            status: 'speaking',
            document: edit,
            // Held by this node from the start, so the reaper leaves it alone until it runs.
            lease_owner: this.broker.nodeID,
            lease_expires_at: new Date(now.getTime() + config.campaignLeaseMs),
            created_at: now,
          },
          { transaction },
        );
        await models.Video.update(
          { status: 'rendering', revision: at.revision + 1, error_code: null, error_message: null },
          { where: { id: videoId }, transaction },
        );
        return (await models.Video.findByPk(videoId, { transaction }))!;
      });
      this.runEdit(editId).catch((err: Error) => this.logger.error(`edit ${editId}: run failed`, err.message));
      ctx.meta.$statusCode = 202;
      const view = this.present(campaign, [accepted]);
      return { success: true, video: view.videos[0] };
    },
  },
};

export const editMethods = {
  /**
   * The caller's campaign and one of its videos, named in the path (GET and PUT of the document): malformed, unknown and
   * foreign ids, and a video of another campaign, all answer 404 alike.
   */
  async ownedVideo(ctx: Context<VideoDocumentByIdParams, CampaignMeta>) {
    const { id, orgId } = this.ownedCampaignId(ctx);
    if (!UUID_ANY_CASE.test(ctx.params.video_id)) throw notFound();
    const campaign = await this.db.models.Campaign.findOne({ where: { id, org_id: orgId } });
    if (!campaign) throw notFound();
    const video = await this.db.models.Video.findOne({ where: { id: ctx.params.video_id.toLowerCase(), campaign_id: id } });
    if (!video) throw notFound();
    return { campaign, video };
  },

  /** A video's document at the revision its files are of (decisions §12): the storyboard and the captures, assembled. */
  async documentOf(campaign: Campaign, video: Video): Promise<VideoDocument | null> {
    const [storyboard, captures] = await Promise.all([
      call(this.broker, 'voice.storyboard', { video_id: video.id, revision: video.file_revision ?? 1 }),
      call(this.broker, 'capture.screenshots', { campaign_id: campaign.id }),
    ]);
    if (!storyboard) return null;
    const config = configOf(this.broker);
    const key = loadSigningKey(config);
    const now = Date.now();
    return buildVideoDocument({
      storyboard,
      captures,
      options: campaign.options ?? null,
      defaultQuality: config.renderQuality,
      screenUrl: (screenId) => screenLink(config, key, campaign.id, screenId, now),
      qualityReport: video.quality ?? null,
    });
  },

  /** Takes (or renews) an edit's lease for this node; false while another live node runs it. */
  async takeEditLease(editId: string) {
    const now = new Date();
    const [taken] = await this.db.models.VideoEdit.update(
      { lease_owner: this.broker.nodeID, lease_expires_at: new Date(now.getTime() + configOf(this.broker).campaignLeaseMs) },
      {
        where: {
          id: editId,
          status: [...VIDEO_EDIT_RUNNING],
          [Op.or]: [{ lease_owner: null }, { lease_owner: this.broker.nodeID }, { lease_expires_at: { [Op.lt]: now } }],
        },
      },
    );
    return taken === 1;
  },

  /**
   * Runs an edit from the step it is at: its narration (only the changed scenes spoken), then its render. A step
   * interrupted through no fault of the edit (a node stopping, a stage gone, the database down) leaves it where it
   * is, for the reaper to resume; a step that fails for good settles it as failed.
   */
  async runEdit(editId: string) {
    this.editing ??= new Set<string>();
    if (this.editing.has(editId) || configOf(this.broker).pipelinePaused) return;
    this.editing.add(editId);
    let renew: NodeJS.Timeout | undefined;
    try {
      if (!(await this.takeEditLease(editId))) return;
      renew = setInterval(
        () => void this.takeEditLease(editId).catch(() => undefined),
        Math.max(1000, configOf(this.broker).campaignLeaseMs / 3),
      );
      for (;;) {
        const edit: VideoEdit | null = await this.db.models.VideoEdit.findByPk(editId);
        if (!edit || !isOneOf(VIDEO_EDIT_RUNNING, edit.status)) return;
        const trace = campaignTrace(edit.campaign_id);
        const campaign = (await this.db.models.Campaign.findByPk(edit.campaign_id, { attributes: ['id', 'org_id', 'options'] }))!;
        if (edit.status === 'speaking') {
          const shown = new Set(edit.document.scenes.flatMap((s) => (s.screen ? [screenshotKeyOf(edit.campaign_id, s.screen)] : [])));
          const captures = await call(this.broker, 'capture.screenshots', { campaign_id: edit.campaign_id }, trace);
          const screens = captures.flatMap((c) => c.screenshots).filter((ref) => shown.has(ref.key));
          const spoken = await this.inTurn(editTurn(edit, campaign.org_id, 'voiceover'), (options) =>
            call(
              this.broker,
              'voice.respeak',
              {
                campaign_id: edit.campaign_id,
                video_id: edit.video_id,
                revision: edit.revision,
                base_revision: edit.base_revision,
                edit: edit.document,
                screens,
                options: campaign.options ?? null,
              },
              options,
            ),
          );
          await this.db.models.VideoEdit.update(
            { status: 'rendering', captions_key: spoken.captions_key, scenes_spoken: spoken.scenes_spoken },
            { where: { id: editId, status: 'speaking' } },
          );
          continue;
        }
        const report = await this.inTurn(editTurn(edit, campaign.org_id, 'rendering'), (options) =>
          call(
            this.broker,
            'rendering.renderEdit',
            { campaign_id: edit.campaign_id, video_id: edit.video_id, revision: edit.revision },
            options,
          ),
        );
        await this.settleEdit(editId, { report });
        return;
      }
    } catch (err) {
      const e = err as { message?: string; type?: string };
      if (STAGE_WAITS_ON.has(e.type ?? '') || isDatabaseUnavailable(err)) {
        this.logger.warn(`edit ${editId}: interrupted, will resume: ${e.message}`);
        return;
      }
      this.logger.error(`edit ${editId}: failed: ${e.message}`);
      const code = e.type === CampaignCanceledError.TYPE ? 'canceled' : isOneOf(STAGE_ERROR_CODES, e.type ?? '') ? e.type! : 'internal';
      const message = code === 'internal' ? 'The edit could not be made.' : messageOf(err);
      await this.settleEdit(editId, { error: { code, message } }).catch((inner: Error) =>
        this.logger.error(`edit ${editId}: could not record its failure`, inner.message),
      );
    } finally {
      clearInterval(renew);
      this.editing.delete(editId);
      await this.db.models.VideoEdit.update(
        { lease_owner: null, lease_expires_at: null },
        { where: { id: editId, lease_owner: this.broker.nodeID } },
      ).catch(() => undefined);
    }
  },

  /**
   * An edit's end, recorded once: under the campaign's and the edit's locks, only if the edit is still running. Ready:
   * the video's files become the new revision's. Failed: the previous revision stays, with the reason on the video.
   * Either way `video.updated` goes to the outbox in the same transaction.
   */
  async settleEdit(editId: string, outcome: EditOutcome) {
    const { models, sequelize } = this.db;
    await sequelize.transaction(async (transaction: Transaction) => {
      const peek = await models.VideoEdit.findByPk(editId, { attributes: ['campaign_id'], transaction });
      if (!peek) return;
      const campaign = (await models.Campaign.findByPk(peek.campaign_id, { transaction, lock: true }))!;
      const edit = (await models.VideoEdit.findByPk(editId, { transaction, lock: true }))!;
      if (!isOneOf(VIDEO_EDIT_RUNNING, edit.status)) return;
      const now = new Date();
      if ('report' in outcome) {
        const { report } = outcome;
        await models.Video.update(
          {
            status: 'ready',
            revision: edit.revision,
            file_revision: edit.revision,
            file_key: report.file_key,
            thumbnail_key: report.thumbnail_key,
            captions_srt_key: report.captions_srt_key,
            captions_key: edit.captions_key,
            duration_seconds: report.duration_seconds,
            error_code: null,
            error_message: null,
            // The edited revision's own check: its flags reported, not repaired (decisions §13).
            quality: report.quality ?? null,
          },
          { where: { id: edit.video_id }, transaction },
        );
        await edit.update({ status: 'ready', finished_at: now, lease_owner: null, lease_expires_at: null }, { transaction });
      } else {
        await models.Video.update(
          {
            status: 'ready',
            revision: edit.base_revision,
            error_code: outcome.error.code,
            error_message: outcome.error.message.slice(0, 2000),
          },
          { where: { id: edit.video_id }, transaction },
        );
        await edit.update(
          { status: 'failed', error_code: outcome.error.code, error_message: outcome.error.message.slice(0, 2000), finished_at: now },
          { transaction },
        );
      }
      if (await writeVideoUpdatedEvent(models, transaction, campaign, edit, (video) => this.links(video), now)) {
        transaction.afterCommit(() => this.broker.emit('webhooks.enqueued', { campaign_id: campaign.id }));
      }
    });
  },

  /** The reaper's part for edits: each running edit no live node holds is run again from its step. */
  async resumeEdits() {
    const now = new Date();
    const orphaned = await this.db.models.VideoEdit.findAll({
      where: {
        status: [...VIDEO_EDIT_RUNNING],
        [Op.or]: [{ lease_owner: null }, { lease_expires_at: { [Op.lt]: now } }],
      },
      attributes: ['id'],
      limit: 100,
    });
    for (const { id } of orphaned) this.runEdit(id).catch(() => undefined);
  },
} satisfies EditMethods & ThisType<CampaignsThis>;
