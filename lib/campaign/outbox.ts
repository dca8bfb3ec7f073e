/**
 * The terminal event of a campaign, written to the campaign actor's own outbox (`campaign_webhook_events`)
 * inside the transaction that makes the campaign terminal for the customer (review or failed): committed
 * together or not at all, so a restart can neither lose the event nor make a second one. The webhook
 * dispatcher takes each event over into its deliveries (services/webhooks.service.ts). So are a video's events
 * (video.ready, video.updated) and a batch's. A campaign's event not in its `webhook_events` (decisions §15) is
 * neither written nor sent.
 */
import type { Transaction } from 'sequelize';
import type { Campaign } from '../db/models';
import { countByStatus, isSettled } from './states';
import type { ModelsOf } from '../db/ownership';
import { presentCampaign, type VideoLinks } from './view';
import { newEventId, videoReadyEventId, wantsEvent, type CampaignWebhookEventType } from '../net/webhooks';

export const EVENT_OF_STATE: Partial<Record<string, CampaignWebhookEventType>> = {
  review: 'campaign.completed',
  failed: 'campaign.failed',
};

export async function writeTerminalEvent(
  models: Pick<ModelsOf<'campaigns'>, 'Video' | 'CampaignWebhookEvent'>,
  transaction: Transaction,
  campaign: Campaign,
  links: VideoLinks,
  at: Date,
): Promise<string | null> {
  const event = EVENT_OF_STATE[campaign.status];
  if (!event || !campaign.webhook_url || !wantsEvent(campaign, event)) return null;
  const videos = await models.Video.findAll({ where: { campaign_id: campaign.id }, transaction });
  const view = presentCampaign(campaign, videos, links);
  const body = JSON.stringify({
    event,
    campaign_id: campaign.id,
    status: campaign.status,
    videos: view.videos,
    // campaign.failed says why, as GET does (decisions §11).
    ...(view.error ? { error: view.error } : {}),
    ...(view.metadata ? { metadata: view.metadata } : {}),
    timestamp: at.toISOString(),
  });
  const eventId = newEventId();
  await models.CampaignWebhookEvent.create(
    {
      event_id: eventId,
      event_type: event,
      campaign_id: campaign.id,
      org_id: campaign.org_id,
      url: campaign.webhook_url,
      body,
      created_at: at,
    },
    { transaction },
  );
  return eventId;
}

/**
 * decisions §12: an edit's re-render ended (its video ready at the new revision, or the previous one kept with the
 * reason), written in the transaction that records it, like the campaign's terminal event: once, and never lost. Its
 * event id is the edit's own (`evt_` and the edit's id), so the same edit can never make two events. Null without a
 * webhook_url.
 */
export async function writeVideoUpdatedEvent(
  models: Pick<ModelsOf<'campaigns'>, 'Video' | 'CampaignWebhookEvent'>,
  transaction: Transaction,
  campaign: Campaign,
  edit: { id: string; video_id: string; revision: number },
  links: VideoLinks,
  at: Date,
): Promise<string | null> {
  if (!campaign.webhook_url || !wantsEvent(campaign, 'video.updated')) return null;
  const videos = await models.Video.findAll({ where: { campaign_id: campaign.id }, transaction });
  const view = presentCampaign(campaign, videos, links);
  const video = view.videos.find((v) => v.id === edit.video_id);
  const body = JSON.stringify({
    event: 'video.updated',
    campaign_id: campaign.id,
    video,
    revision: edit.revision,
    ...(view.metadata ? { metadata: view.metadata } : {}),
    timestamp: at.toISOString(),
  });
  const eventId = `evt_${edit.id}`;
  await models.CampaignWebhookEvent.create(
    {
      event_id: eventId,
      event_type: 'video.updated',
      campaign_id: campaign.id,
      org_id: campaign.org_id,
      url: campaign.webhook_url,
      body,
      created_at: at,
    },
    { transaction },
  );
  return eventId;
}

/**
 * decisions §15: one video of the campaign's render became ready, written in the transaction that records it (under the
 * campaign row's lock), when the campaign's `webhook_events` lists video.ready. Its event id is derived from the video's
 * id and revision 1 (videoReadyEventId): an event already written under it means this video was announced, so a report
 * that arrives twice, late or again with the stage's result makes no second one. Null when not written.
 */
export async function writeVideoReadyEvent(
  models: Pick<ModelsOf<'campaigns'>, 'Video' | 'CampaignWebhookEvent'>,
  transaction: Transaction,
  campaign: Campaign,
  videoId: string,
  links: VideoLinks,
  at: Date,
): Promise<string | null> {
  if (!campaign.webhook_url || !wantsEvent(campaign, 'video.ready')) return null;
  const eventId = videoReadyEventId(videoId);
  if (await models.CampaignWebhookEvent.findByPk(eventId, { attributes: ['event_id'], transaction })) return null;
  const videos = await models.Video.findAll({ where: { campaign_id: campaign.id }, transaction });
  const view = presentCampaign(campaign, videos, links);
  const video = view.videos.find((v) => v.id === videoId);
  if (video?.status !== 'ready') return null;
  const body = JSON.stringify({
    event: 'video.ready',
    campaign_id: campaign.id,
    video,
    ...(view.metadata ? { metadata: view.metadata } : {}),
    timestamp: at.toISOString(),
  });
  await models.CampaignWebhookEvent.create(
    {
      event_id: eventId,
      event_type: 'video.ready',
      campaign_id: campaign.id,
      org_id: campaign.org_id,
      url: campaign.webhook_url,
      body,
      created_at: at,
    },
    { transaction },
  );
  return eventId;
}

/**
 * decisions §14: the batch's `batch.completed`, once each of its campaigns is settled (review, published or failed),
 * written in the transaction that settles the last one, like a campaign's terminal event. The batch row is locked
 * first: two of its campaigns settling at once take turns here, so the later sees the earlier's outcome and exactly
 * one of them finds the batch complete; `completed_at` makes it once. The event is recorded under the campaign that
 * completed the batch (the outbox's rows each name a campaign). Null when the batch is not complete yet, was already,
 * or has no webhook_url.
 */
export async function writeBatchCompletedEvent(
  models: Pick<ModelsOf<'campaigns'>, 'Batch' | 'Campaign' | 'CampaignWebhookEvent'>,
  transaction: Transaction,
  campaign: Campaign,
  at: Date,
): Promise<string | null> {
  if (!campaign.batch_id || !isSettled(campaign.status)) return null;
  const batch = await models.Batch.findByPk(campaign.batch_id, { transaction, lock: true });
  if (!batch || batch.completed_at) return null;
  const campaigns = await models.Campaign.findAll({
    where: { batch_id: batch.id },
    attributes: ['id', 'status'],
    order: [['batch_index', 'ASC']],
    transaction,
  });
  if (!campaigns.every((c) => isSettled(c.status))) return null;
  await models.Batch.update({ completed_at: at }, { where: { id: batch.id }, transaction });
  if (!batch.webhook_url) return null;
  const body = JSON.stringify({
    event: 'batch.completed',
    batch_id: batch.id,
    counts: countByStatus(campaigns.map((c) => c.status)),
    campaigns: campaigns.map((c) => ({ campaign_id: c.id, status: c.status })),
    timestamp: at.toISOString(),
  });
  const eventId = newEventId();
  await models.CampaignWebhookEvent.create(
    {
      event_id: eventId,
      event_type: 'batch.completed',
      campaign_id: campaign.id,
      org_id: batch.org_id,
      url: batch.webhook_url,
      body,
      created_at: at,
    },
    { transaction },
  );
  return eventId;
}
