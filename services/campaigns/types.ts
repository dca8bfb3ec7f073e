/**
 * The campaign actor's vocabulary (services/campaigns.service.ts and its two modules beside it): what its actions take
 * and answer, for the services that call them, and the methods and state the three parts share on `this`.
 */
import type { LaneStage } from '../../lib/campaign/lanes';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import type { Attributes, FindOptions, Transaction } from 'sequelize';
import type { CampaignMetadata, CampaignOptions } from '../../lib/campaign/options';
import type { StageCall, StageParams, StageInput, VideoReport, turnCallOptions } from '../../lib/campaign/stages';
import type { CampaignState, GeneratingState, StageAction } from '../../lib/campaign/states';
import type { CampaignListView, CampaignRow, CampaignView, VideoRow, VideoView } from '../../lib/campaign/view';
import type { VideoEditInput } from '../../lib/campaign/video-edit';
import type { TurnGate } from '../../lib/campaign/turn-gate';
import type { NewTurn, StageTurnsView } from '../../lib/campaign/turns';
import type { Batch, Campaign, Video } from '../../lib/db/models';
import type { operations } from '../../clients/typescript/src/schema';
import type { AuthContext } from '../../lib/http/auth';
import type { FileKind, FileLinks, LinkableVideo } from '../../lib/storage/file-links';
import type { UsageReport } from '../../lib/ops/reports';
import type { VideoDocument } from '../../lib/campaign/video-document';
import type { CampaignWebhookEventType, RedeliverResult } from '../../lib/net/webhooks';
import type { DbMethods } from '../../mixins/db.mixin';

export interface CreateCampaignParams extends CampaignOptions {
  url: string;
  languages?: string[];
  title?: string;
  webhook_url?: string;
  /** decisions §15: the events wanted at webhook_url (the schema allows only lib/net/webhooks.ts's names). */
  webhook_events?: CampaignWebhookEventType[];
  platforms?: string[];
  metadata?: CampaignMetadata;
}
export interface CampaignMeta {
  auth?: AuthContext;
  idempotencyKey?: string;
  $statusCode?: number;
  /** moleculer-web turns this into the Location header. */
  $location?: string;
}
export interface TransitionParams {
  campaign_id: string;
  to: CampaignState;
  error_code?: string;
  error_message?: string;
  detail?: string;
}
/** campaigns.get and campaigns.publish: the campaign's id, from the path. */
export interface CampaignByIdParams {
  id: string;
}
/** campaigns.videoDocument: the campaign's id and one of its videos', from the path. */
export interface VideoDocumentByIdParams extends CampaignByIdParams {
  video_id: string;
}
/** campaigns.editVideo (PUT …/document, decisions §12): the edited document (read-only members optional) and the path's ids. */
export type EditVideoParams = VideoEditInput & { id: string; video_id: string };
/** campaigns.editVideo's answer (202): the video rendering at its new revision. */
export interface EditVideoResult {
  success: true;
  video: VideoView;
}
/** The edits' parts (services/campaigns/edits.ts). */
export interface EditMethods {
  ownedVideo(ctx: Context<VideoDocumentByIdParams, CampaignMeta>): Promise<{ campaign: Campaign; video: Video }>;
  documentOf(campaign: Campaign, video: Video): Promise<VideoDocument | null>;
  takeEditLease(editId: string): Promise<boolean>;
  runEdit(editId: string): Promise<void>;
  settleEdit(editId: string, outcome: { report: VideoReport } | { error: { code: string; message: string } }): Promise<void>;
  resumeEdits(): Promise<void>;
}
/** campaigns.videoDocument's answer (decisions §12). */
export interface VideoDocumentResult {
  success: true;
  document: VideoDocument;
}
export interface DownloadTargetParams {
  video_id: string;
  kind: FileKind;
}

/** campaigns.list (GET /api/v1/campaigns): the query as validated (the gateway coerced `limit` to a number). */
export interface ListQueryParams {
  limit?: number;
  cursor?: string;
  status?: string;
  created_after?: string;
  created_before?: string;
  batch_id?: string;
}
/** campaigns.browse (the dashboard): one numbered page of the caller's campaigns, newest first. */
export interface ListCampaignsParams {
  status?: string;
  page?: number;
  per_page?: number;
  /** One batch's campaigns, in the order of its items. */
  batch_id?: string;
}
export interface CampaignListItem {
  campaign_id: string;
  title: string;
  url: string;
  status: string;
  progress: number;
  languages: string[];
  platforms: string[];
  created_at: string;
}
export interface CampaignList {
  campaigns: CampaignListItem[];
  total: number;
  page: number;
  per_page: number;
}
/** campaigns.usage: the organization's campaigns this month against its plan's limit. */
export interface UsageResult {
  period: string;
  used: number;
  limit: number;
  resets_at: string;
}
/** campaigns.usageReport's params: a UTC month, YYYY-MM (default: the current one). */
export interface UsageReportParams {
  month?: string;
}
/** campaigns.usageHistory's params: how many months, ending with the current one (default 12). */
export interface UsageHistoryParams {
  months?: number;
}
/** One month of the caller's organization: campaigns counted against the quota (failed ones refunded), made, and videos rendered. */
export interface UsageMonth {
  month: string;
  used: number;
  campaigns: number;
  videos_rendered: number;
}
export interface TimelineEvent {
  from_status: string | null;
  to_status: string;
  detail: string | null;
  at: string;
}

/** campaigns.create's answer (201, or the replayed answer of the same Idempotency-Key). */
export type CreateCampaignResult = { success: boolean; campaign_id: string; job_id: string; status: string };
/** campaigns.retry's answer (201): the new campaign, in the state it starts in. */
export type RetryCampaignResult = { success: true; campaign_id: string; job_id: string; status: GeneratingState; retry_of: string };
/** The retry's parts (services/campaigns/retry.ts). */
export interface RetryMethods {
  failedIn(campaignId: string): Promise<GeneratingState>;
  insertRetry(
    original: Campaign,
    startsIn: GeneratingState,
    campaignsPerMonth: number,
  ): Promise<{ campaignId: string; jobId: string; videos: Array<{ from: string; to: string }> }>;
}
/** campaigns.get's and campaigns.publish's answer (lib/campaign/view.ts), and campaigns.list's. */
export type { CampaignListView, CampaignView };
export interface TransitionResult {
  campaign_id: string;
  status: string;
}
/** A campaign's terminal webhook event, as the dispatcher takes it over (lib/campaign/outbox.ts wrote it). */
export interface WebhookEvent {
  event_id: string;
  event_type: string;
  campaign_id: string;
  org_id: string;
  url: string;
  body: string;
  created_at: string;
}
export interface DownloadTargetResult {
  storage_key: string | null;
}

/**
 * The actor's actions that others call (the dashboard, reports, the stages, the dispatcher, the gateway), for `call`
 * (lib/net/calls.ts). The gateway's public routes reach the same actions through moleculer-web.
 */
export interface CampaignsActions {
  'campaigns.retry': { params: CampaignByIdParams; result: RetryCampaignResult };
  'campaigns.create': { params: CreateCampaignParams; result: CreateCampaignResult };
  'campaigns.get': { params: CampaignByIdParams; result: CampaignView };
  'campaigns.videoDocument': { params: VideoDocumentByIdParams; result: VideoDocumentResult };
  'campaigns.editVideo': { params: EditVideoParams; result: EditVideoResult };
  'campaigns.publish': { params: CampaignByIdParams; result: CampaignView };
  'campaigns.cancel': { params: CampaignByIdParams; result: CampaignView };
  'campaigns.redeliverWebhook': { params: CampaignByIdParams; result: RedeliverResult & { success: true } };
  'campaigns.browse': { params: ListCampaignsParams; result: CampaignList };
  'campaigns.timeline': { params: CampaignByIdParams; result: TimelineEvent[] };
  /** The caller's organization comes from the call's meta (auth). */
  'campaigns.usage': { params: undefined; result: UsageResult };
  'campaigns.usageReport': { params: UsageReportParams; result: UsageReport };
  'campaigns.usageHistory': { params: UsageHistoryParams; result: UsageMonth[] };
  'campaigns.stageInput': { params: StageParams; result: StageInput };
  'campaigns.stageTurns': { params: undefined; result: StageTurnsView[] };
  'campaigns.webhookEvents': { params: WebhookEventsParams; result: WebhookEvent[] };
  'campaigns.webhookEventsHandedOver': { params: WebhookEventsHandedOverParams; result: { handed_over: number } };
  'campaigns.downloadTarget': { params: DownloadTargetParams; result: DownloadTargetResult };
  'campaigns.createBatch': { params: CreateBatchParams; result: CreateBatchResult };
  'campaigns.checkBatch': { params: CreateBatchParams; result: CheckBatchResult };
  'campaigns.getBatch': { params: CampaignByIdParams; result: BatchView };
  'campaigns.listBatches': { params: ListBatchesParams; result: BatchListView };
  'campaigns.redeliverBatchWebhook': { params: CampaignByIdParams; result: BatchRedeliverResult };
  'campaigns.batchUsage': { params: { month?: string }; result: BatchUsage };
}
/** campaigns.webhookEvents: at most this many events, oldest first. */
export interface WebhookEventsParams {
  limit?: number;
}
export interface WebhookEventsHandedOverParams {
  event_ids: string[];
}

/** A create's fields as checked: URLs normalized and proved public, languages folded, defaults filled in. */
export interface NormalizedCampaign {
  url: string;
  languages: string[];
  platforms: string[];
  title: string;
  webhook_url: string | null;
  /** The events wanted at webhook_url: as given, or the default list. */
  webhook_events: CampaignWebhookEventType[];
  /** brand.logo_url, checked and normalized like the page's URL */
  logo_url: string | null;
  /** music.url, checked and normalized like the page's URL */
  music_url: string | null;
}

/** What campaigns.create writes in its transaction: the request, its fields as checked, and the answer it will give. */
export interface NewCampaign {
  auth: AuthContext;
  params: CreateCampaignParams;
  campaign: NormalizedCampaign;
  body: CreateCampaignResult;
  now: Date;
  /** The Idempotency-Key and the request's hash, recorded with the answer; null without a key. */
  idempotency: IdempotencyOf | null;
}

/** A request's Idempotency-Key and the hash of its body. */
export interface IdempotencyOf {
  key: string;
  requestHash: string;
}

/** What writeCampaign writes: one new campaign of a create or of a batch (then its batch and item index). */
export interface CampaignRows {
  orgId: string;
  params: CreateCampaignParams;
  campaign: NormalizedCampaign;
  campaignId: string;
  jobId: string;
  now: Date;
  batch?: { id: string; index: number };
}

/** campaigns.createBatch (POST /api/v1/batches, decisions §14): the body as validated. */
export interface CreateBatchParams {
  items: Array<Pick<CreateCampaignParams, 'url' | 'title' | 'languages' | 'platforms' | 'metadata' | 'webhook_url' | 'webhook_events'>>;
  defaults?: Omit<CreateCampaignParams, 'url'>;
  webhook_url?: string;
}
export type CreateBatchResult = operations['campaigns_createBatch']['responses'][201]['content']['application/json'];
export type BatchView = operations['campaigns_getBatch']['responses'][200]['content']['application/json'];
export type BatchListView = operations['campaigns_listBatches']['responses'][200]['content']['application/json'];
export type BatchRedeliverResult = operations['campaigns_redeliverBatchWebhook']['responses'][202]['content']['application/json'];
/** campaigns.checkBatch: each item's refusal in words (without its "items[i]." prefix), or null. */
export interface CheckBatchResult {
  errors: Array<string | null>;
}
/** campaigns.batchUsage: a UTC month's batches and the campaigns they asked for. */
export interface BatchUsage {
  month: string;
  batches: number;
  campaigns: number;
}
export interface ListBatchesParams {
  limit?: number;
  cursor?: string;
}

/** The batch module's methods (services/campaigns/batches.ts). */
export interface BatchMethods {
  batchItemsOf(
    params: CreateBatchParams,
    auth: AuthContext,
  ): Promise<Array<{ params: CreateCampaignParams; campaign: NormalizedCampaign }>>;
  batchCap(params: Pick<CreateBatchParams, 'items'>, auth: AuthContext): void;
  batchItemErrors(params: CreateBatchParams, auth: AuthContext): Promise<Array<string | null>>;
  ownedBatch(auth: AuthContext | undefined, id: string): Promise<Batch>;
  presentBatches(batches: Batch[]): Promise<Array<Omit<BatchView, 'success'>>>;
}

/** The public API's methods (services/campaigns.service.ts). */
export interface CampaignApiMethods {
  normalize(params: CreateCampaignParams, auth: AuthContext): Promise<NormalizedCampaign>;
  checkPage(ctx: Context<CreateCampaignParams, CampaignMeta>, campaign: NormalizedCampaign): Promise<void>;
  insertCampaign(campaign: NewCampaign): Promise<void>;
  writeCampaign(transaction: Transaction, rows: CampaignRows): Promise<void>;
  recordIdempotency(transaction: Transaction, orgId: string, idempotency: IdempotencyOf, body: object, now: Date): Promise<void>;
  idempotencyOf(meta: CampaignMeta, params: object, request?: 'create' | 'batch'): IdempotencyOf | null;
  answeredBefore(orgId: string, key: string): Promise<boolean>;
  replayOrConflict<T extends CreateCampaignResult | CreateBatchResult>(
    orgId: string,
    key: string,
    requestHash: string,
    meta: CampaignMeta,
  ): Promise<T>;
  findOwned(ctx: Context<CampaignByIdParams, CampaignMeta>, options?: Omit<FindOptions<Attributes<Campaign>>, 'where'>): Promise<Campaign>;
  present(campaign: CampaignRow, videos: VideoRow[]): CampaignView;
  ownedCampaignId(ctx: Context<CampaignByIdParams, CampaignMeta>): { id: string; orgId: string };
}

/** The orchestrator's methods (services/campaigns/orchestrator.ts). */
export interface OrchestratorMethods {
  stageInputOf(campaignId: string): Promise<StageInput>;
  links(video: LinkableVideo): FileLinks;
  applyTransition(params: TransitionParams, outer?: Transaction): Promise<Campaign>;
  advance(campaignId: string): Promise<void>;
  callStage(campaign: Campaign, action: StageAction, params: StageCall): Promise<unknown>;
  inTurn<T>(turn: NewTurn, work: (options: ReturnType<typeof turnCallOptions>) => Promise<T>): Promise<T>;
  turnGate(): TurnGate;
  announceTurns(stage: GeneratingState): void;
  stopCampaignWork(campaignId: string): void;
  stageCapacity(stage: GeneratingState): number;
  recordVideo(report: VideoReport, transaction?: Transaction): Promise<void>;
  recordStageResult(state: CampaignState, result: unknown, transaction: Transaction): Promise<void>;
  settleStageError(campaignId: string, state: CampaignState | undefined, err: unknown): Promise<'ended' | 'waits' | 'failed'>;
  runLanes(campaign: Campaign): Promise<void>;
  runLaneStep(campaign: Campaign, language: string, state: LaneStage): Promise<boolean>;
  followLanes(campaign: Campaign, transaction: Transaction): Promise<void>;
  takeLease(campaignId: string): Promise<boolean>;
  sweep(): Promise<void>;
  closeAbandoned(now: Date): Promise<void>;
  resumeWaiting(): Promise<void>;
}

export type CampaignsMethods = DbMethods<'campaigns'> &
  CampaignApiMethods &
  OrchestratorMethods &
  RetryMethods &
  EditMethods &
  BatchMethods;

/** What the actor keeps on `this`: the reaper's timer, the stop flag, and the campaigns this node is advancing. */
export interface CampaignsLocalVars {
  sweepTimer?: NodeJS.Timeout;
  stopping?: boolean;
  running?: Set<string>;
  /** The video edits this node is running (services/campaigns/edits.ts). */
  editing?: Set<string>;
  /** This node's side of the stages' turn queue (lib/campaign/turn-gate.ts), made on first use. */
  turns?: TurnGate;
}

export type CampaignsThis = Service<ServiceSettingSchema> & CampaignsMethods & CampaignsLocalVars;

type CampaignsSchema = ServiceSchema<ServiceSettingSchema, CampaignsMethods, CampaignsLocalVars>;
/** A part of the actor's actions (its modules export theirs; the service spreads them into its schema). */
export type CampaignsActionSchemas = NonNullable<CampaignsSchema['actions']>;
export type CampaignsEvents = NonNullable<CampaignsSchema['events']>;
