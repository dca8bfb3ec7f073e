/** Sequelize models over the tables created by migrations/ (the migrations own the schema; nothing here syncs). */
import type { CampaignMetadata, CampaignOptions } from '../campaign/options';
import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type CreationOptional, type Sequelize } from 'sequelize';
import type { CampaignPlanDocument, CapturedBrand, CapturedText } from '../script/analyze';
import type { CapturedVariant, ScriptDocument } from '../script/writer';
import type { Storyboard, VideoEditDocument } from '../campaign/storyboard';
import type { Box, TextBox } from '../render/framing';
import type { QualityReport } from '../quality/report';

const common = { underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' } as const;
const uuidPk = { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 };

export class Organization extends Model<InferAttributes<Organization>, InferCreationAttributes<Organization>> {
  declare id: CreationOptional<string>;
  declare name: string;
  declare plan: string;
  declare campaigns_per_month: CreationOptional<number | null>;
  declare languages_per_campaign: CreationOptional<number | null>;
  declare rate_per_minute: CreationOptional<number | null>;
  declare max_api_keys: CreationOptional<number | null>;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: CreationOptional<string>;
  declare org_id: string;
  declare email: string;
  declare role: string;
  /** argon2id, PHC-encoded; null until an operator sets a password (scripts/admin.ts). */
  declare password_hash: CreationOptional<string | null>;
  declare organization?: Organization;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

/** A dashboard session: only the SHA-256 of its cookie token is stored. */
export class UserSession extends Model<InferAttributes<UserSession>, InferCreationAttributes<UserSession>> {
  declare id: CreationOptional<string>;
  declare token_hash: string;
  declare user_id: string;
  declare org_id: string;
  declare last_seen_at: Date;
  declare expires_at: Date;
  declare user?: User;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

/** An invitation to join an organization: only the SHA-256 of its one-time link's token is stored. */
export class UserInvite extends Model<InferAttributes<UserInvite>, InferCreationAttributes<UserInvite>> {
  declare id: CreationOptional<string>;
  declare org_id: string;
  declare email: string;
  declare role: string;
  declare token_hash: string;
  declare invited_by: string | null;
  declare expires_at: Date;
  declare used_at: CreationOptional<Date | null>;
  declare revoked_at: CreationOptional<Date | null>;
  declare organization?: Organization;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

export class ApiKey extends Model<InferAttributes<ApiKey>, InferCreationAttributes<ApiKey>> {
  declare id: CreationOptional<string>;
  declare org_id: string;
  declare created_by: string;
  declare name: string | null;
  declare key_hash: string;
  declare display_prefix: string;
  declare scopes: string;
  declare revoked_at: CreationOptional<Date | null>;
  declare last_used_at: CreationOptional<Date | null>;
  declare organization?: Organization;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

export class WebhookSecret extends Model<InferAttributes<WebhookSecret>, InferCreationAttributes<WebhookSecret>> {
  declare org_id: string;
  declare secret: string;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

export class Campaign extends Model<InferAttributes<Campaign>, InferCreationAttributes<Campaign>> {
  declare id: CreationOptional<string>;
  declare org_id: string;
  declare job_id: string;
  declare status: string;
  declare url: string;
  declare title: string;
  declare languages: string[];
  declare platforms: string[];
  declare webhook_url: string | null;
  /** The events wanted at webhook_url (decisions §15); null: the default list (lib/net/webhooks.ts). */
  declare webhook_events: CreationOptional<string[] | null>;
  declare options: CreationOptional<CampaignOptions | null>;
  declare metadata: CreationOptional<CampaignMetadata | null>;
  /** The page's own language, recorded when a video is narrated in it (script_source source_text); else null. */
  declare page_language: CreationOptional<string | null>;
  /** The failed campaign this one retries (POST /campaigns/{id}/retry); null otherwise. */
  declare retry_of: CreationOptional<string | null>;
  /** The batch that made it (POST /batches, decisions §14) and its item's index there; null otherwise. */
  declare batch_id: CreationOptional<string | null>;
  declare batch_index: CreationOptional<number | null>;
  declare progress: CreationOptional<number>;
  declare error_code: CreationOptional<string | null>;
  declare error_message: CreationOptional<string | null>;
  declare quota_period: string;
  declare status_changed_at: Date;
  declare deadline_at: Date;
  declare lease_owner: CreationOptional<string | null>;
  declare lease_expires_at: CreationOptional<Date | null>;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
  declare videos?: Video[];
}

/** A batch of campaigns made by one POST /api/v1/batches (decisions §14). */
export class Batch extends Model<InferAttributes<Batch>, InferCreationAttributes<Batch>> {
  declare id: string;
  declare org_id: string;
  declare webhook_url: string | null;
  declare item_count: number;
  /** Set when every campaign was settled (review, published or failed) and batch.completed written. */
  declare completed_at: CreationOptional<Date | null>;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

export class Video extends Model<InferAttributes<Video>, InferCreationAttributes<Video>> {
  declare id: CreationOptional<string>;
  declare campaign_id: string;
  declare language: string;
  declare platform: string;
  /** The hook variant (decisions §15): "a", "b" or "c"; "a" for a campaign without variants (the column's default). */
  declare variant: CreationOptional<string>;
  /** This variant opens as variant a does: its page gave too few words for an opening of its own (its warning says so). */
  declare opening_repeated: CreationOptional<boolean>;
  declare status: string;
  declare file_key: CreationOptional<string | null>;
  declare captions_key: CreationOptional<string | null>;
  declare captions_srt_key: CreationOptional<string | null>;
  declare thumbnail_key: CreationOptional<string | null>;
  declare duration_seconds: CreationOptional<number | null>;
  declare script_source: CreationOptional<string | null>;
  declare published_at: CreationOptional<Date | null>;
  declare error_code: CreationOptional<string | null>;
  declare error_message: CreationOptional<string | null>;
  /** When the rendering stage made the last report applied (epoch ms; PostgreSQL's BIGINT reads back as a string). */
  declare reported_at: CreationOptional<number | string | null>;
  /** The video document's revision (decisions §12): 1 for the first render, +1 per accepted edit (the one rendering). */
  declare revision: CreationOptional<number>;
  /** The revision its files are of: the previous one while an edit renders; null before the first render. */
  declare file_revision: CreationOptional<number | null>;
  /** The video's own check (decisions §13) of the revision its files are of; null until checked. */
  declare quality: CreationOptional<QualityReport | null>;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

export class CampaignEvent extends Model<InferAttributes<CampaignEvent>, InferCreationAttributes<CampaignEvent>> {
  declare id: CreationOptional<number>;
  declare campaign_id: string;
  declare from_status: string | null;
  declare to_status: string;
  declare detail: string | null;
  declare created_at: CreationOptional<Date>;
}

export class UsageCounter extends Model<InferAttributes<UsageCounter>, InferCreationAttributes<UsageCounter>> {
  declare org_id: string;
  declare period: string;
  declare used: number;
}

export class IdempotencyRecord extends Model<InferAttributes<IdempotencyRecord>, InferCreationAttributes<IdempotencyRecord>> {
  declare org_id: string;
  declare key: string;
  declare request_hash: string;
  declare status_code: number;
  declare response_body: Record<string, unknown>;
  declare created_at: CreationOptional<Date>;
}

export interface ScreenshotRef {
  key: string;
  viewport: 'desktop' | 'mobile';
  index: number;
  /** Image pixels. */
  width: number;
  height: number;
  /** Image pixels per CSS pixel. Absent on captures older than section shots. */
  pixelRatio?: number;
  /** The section shot (lib/capture/page-reader.ts shootSections): its heading, null for the page's top; absent for a fixed-offset screen. */
  heading?: string | null;
  /** The section's position among the page's sections (lib/script/sections.ts), absent for the page's top and older captures. */
  section?: number;
  /** The median CSS font size of the text the shot shows. */
  textPx?: number;
  /** Where the shot's content is, in image pixels (absent on older captures: the whole image). */
  content?: Box;
  /** The section's heading and paragraph-level blocks with their text, in image pixels (absent on older captures). */
  focus?: TextBox[];
}

export class PageCapture extends Model<InferAttributes<PageCapture>, InferCreationAttributes<PageCapture>> {
  declare id: CreationOptional<string>;
  declare campaign_id: string;
  declare variant: string;
  declare url: string;
  declare final_url: string;
  declare language: string | null;
  declare text: CapturedText;
  declare brand: CapturedBrand;
  declare screenshots: ScreenshotRef[];
  declare presentation: Record<string, unknown>;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

export class CampaignPlan extends Model<InferAttributes<CampaignPlan>, InferCreationAttributes<CampaignPlan>> {
  declare campaign_id: string;
  declare plan: CampaignPlanDocument;
  /** Each captured version's text, kept by processing for scripting (null for plans made before migration 0014). */
  declare page_texts: CreationOptional<CapturedVariant[] | null>;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

export class CampaignScript extends Model<InferAttributes<CampaignScript>, InferCreationAttributes<CampaignScript>> {
  declare id: CreationOptional<string>;
  declare campaign_id: string;
  declare language: string;
  declare script_source: string;
  declare script: ScriptDocument;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

export class StoryboardRow extends Model<InferAttributes<StoryboardRow>, InferCreationAttributes<StoryboardRow>> {
  declare video_id: string;
  declare campaign_id: string;
  declare document: Storyboard;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

/** One revision of a video's storyboard made by an edit (revision ≥ 2; revision 1 is the Storyboard row). */
export class StoryboardRevisionRow extends Model<InferAttributes<StoryboardRevisionRow>, InferCreationAttributes<StoryboardRevisionRow>> {
  declare video_id: string;
  declare revision: number;
  declare campaign_id: string;
  declare document: Storyboard;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

/** An accepted edit of a video (decisions §12), run by the campaign actor: speaking, then rendering, then ready or failed. */
export class VideoEdit extends Model<InferAttributes<VideoEdit>, InferCreationAttributes<VideoEdit>> {
  declare id: string;
  declare video_id: string;
  declare campaign_id: string;
  declare revision: number;
  declare base_revision: number;
  declare status: 'speaking' | 'rendering' | 'ready' | 'failed';
  declare document: VideoEditDocument;
  declare captions_key: CreationOptional<string | null>;
  declare scenes_spoken: CreationOptional<number | null>;
  declare error_code: CreationOptional<string | null>;
  declare error_message: CreationOptional<string | null>;
  declare lease_owner: CreationOptional<string | null>;
  declare lease_expires_at: CreationOptional<Date | null>;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
  declare finished_at: CreationOptional<Date | null>;
}

export class RenderAttempt extends Model<InferAttributes<RenderAttempt>, InferCreationAttributes<RenderAttempt>> {
  declare id: CreationOptional<number>;
  declare video_id: string;
  declare campaign_id: string;
  declare node_id: string | null;
  declare outcome: 'rendering' | 'ready' | 'failed' | 'lost' | 'busy' | 'canceled';
  declare error_message: CreationOptional<string | null>;
  declare wall_ms: CreationOptional<number | null>;
  declare peak_rss_bytes: CreationOptional<number | null>;
  declare started_at: Date;
  declare finished_at: CreationOptional<Date | null>;
}

export class WebhookDelivery extends Model<InferAttributes<WebhookDelivery>, InferCreationAttributes<WebhookDelivery>> {
  declare id: string;
  declare event_id: string;
  declare event_type: string;
  declare campaign_id: string;
  declare org_id: string;
  declare url: string;
  declare body: string;
  declare status: 'pending' | 'delivered' | 'failed';
  declare attempts: CreationOptional<number>;
  declare next_attempt_at: CreationOptional<Date | null>;
  declare locked_until: CreationOptional<Date | null>;
  declare last_error: CreationOptional<string | null>;
  declare delivered_at: CreationOptional<Date | null>;
  declare created_at: CreationOptional<Date>;
  declare updated_at: CreationOptional<Date>;
}

export class CampaignWebhookEvent extends Model<InferAttributes<CampaignWebhookEvent>, InferCreationAttributes<CampaignWebhookEvent>> {
  declare event_id: string;
  declare event_type: string;
  declare campaign_id: string;
  declare org_id: string;
  declare url: string;
  declare body: string;
  declare created_at: Date;
  declare handed_over_at: CreationOptional<Date | null>;
}

export class WebhookRedelivery extends Model<InferAttributes<WebhookRedelivery>, InferCreationAttributes<WebhookRedelivery>> {
  declare id: CreationOptional<number>;
  declare delivery_id: string;
  declare campaign_id: string;
  declare requested_at: Date;
  /** The attempt that served this request; null while it waits. */
  declare attempt: CreationOptional<number | null>;
}

export class WebhookAttempt extends Model<InferAttributes<WebhookAttempt>, InferCreationAttributes<WebhookAttempt>> {
  declare id: CreationOptional<number>;
  declare delivery_id: string;
  declare attempt: number;
  declare signed_timestamp: number;
  declare status_code: number | null;
  declare duration_ms: number;
  declare error: string | null;
  declare created_at: CreationOptional<Date>;
}

export interface Models {
  Organization: typeof Organization;
  User: typeof User;
  UserSession: typeof UserSession;
  UserInvite: typeof UserInvite;
  ApiKey: typeof ApiKey;
  WebhookSecret: typeof WebhookSecret;
  Campaign: typeof Campaign;
  Batch: typeof Batch;
  Video: typeof Video;
  CampaignEvent: typeof CampaignEvent;
  UsageCounter: typeof UsageCounter;
  IdempotencyRecord: typeof IdempotencyRecord;
  PageCapture: typeof PageCapture;
  CampaignPlan: typeof CampaignPlan;
  CampaignScript: typeof CampaignScript;
  Storyboard: typeof StoryboardRow;
  StoryboardRevision: typeof StoryboardRevisionRow;
  VideoEdit: typeof VideoEdit;
  RenderAttempt: typeof RenderAttempt;
  WebhookDelivery: typeof WebhookDelivery;
  WebhookAttempt: typeof WebhookAttempt;
  WebhookRedelivery: typeof WebhookRedelivery;
  CampaignWebhookEvent: typeof CampaignWebhookEvent;
}

/**
 * Model classes are bound to one Sequelize instance; several brokers in one process (tests) each
 * get their own subclasses so that their databases never mix.
 */
export function defineModels(sequelize: Sequelize): Models {
  const fresh = <T>(base: T): T => class extends (base as typeof Model) {} as unknown as T;
  const models = {
    Organization: fresh(Organization),
    User: fresh(User),
    UserSession: fresh(UserSession),
    UserInvite: fresh(UserInvite),
    ApiKey: fresh(ApiKey),
    WebhookSecret: fresh(WebhookSecret),
    Campaign: fresh(Campaign),
    Batch: fresh(Batch),
    Video: fresh(Video),
    CampaignEvent: fresh(CampaignEvent),
    UsageCounter: fresh(UsageCounter),
    IdempotencyRecord: fresh(IdempotencyRecord),
    PageCapture: fresh(PageCapture),
    CampaignPlan: fresh(CampaignPlan),
    CampaignScript: fresh(CampaignScript),
    Storyboard: fresh(StoryboardRow),
    StoryboardRevision: fresh(StoryboardRevisionRow),
    VideoEdit: fresh(VideoEdit),
    RenderAttempt: fresh(RenderAttempt),
    WebhookDelivery: fresh(WebhookDelivery),
    WebhookAttempt: fresh(WebhookAttempt),
    WebhookRedelivery: fresh(WebhookRedelivery),
    CampaignWebhookEvent: fresh(CampaignWebhookEvent),
  };
  models.Organization.init(
    {
      id: uuidPk,
      name: DataTypes.STRING(200),
      plan: DataTypes.STRING(20),
      campaigns_per_month: DataTypes.INTEGER,
      languages_per_campaign: DataTypes.INTEGER,
      rate_per_minute: DataTypes.INTEGER,
      max_api_keys: DataTypes.INTEGER,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'organizations', modelName: 'Organization', ...common },
  );
  models.User.init(
    {
      id: uuidPk,
      org_id: DataTypes.UUID,
      email: DataTypes.STRING(320),
      role: DataTypes.STRING(10),
      password_hash: DataTypes.STRING(200),
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'users', modelName: 'User', ...common },
  );
  models.UserSession.init(
    {
      id: uuidPk,
      token_hash: DataTypes.STRING(64),
      user_id: DataTypes.UUID,
      org_id: DataTypes.UUID,
      last_seen_at: DataTypes.DATE,
      expires_at: DataTypes.DATE,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'user_sessions', modelName: 'UserSession', ...common },
  );
  models.UserInvite.init(
    {
      id: uuidPk,
      org_id: DataTypes.UUID,
      email: DataTypes.STRING(320),
      role: DataTypes.STRING(20),
      token_hash: DataTypes.STRING(64),
      invited_by: DataTypes.UUID,
      expires_at: DataTypes.DATE,
      used_at: DataTypes.DATE,
      revoked_at: DataTypes.DATE,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'user_invites', modelName: 'UserInvite', ...common },
  );
  models.ApiKey.init(
    {
      id: uuidPk,
      org_id: DataTypes.UUID,
      created_by: DataTypes.UUID,
      name: DataTypes.STRING(100),
      key_hash: DataTypes.STRING(64),
      display_prefix: DataTypes.STRING(16),
      scopes: DataTypes.STRING(200),
      revoked_at: DataTypes.DATE,
      last_used_at: DataTypes.DATE,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'api_keys', modelName: 'ApiKey', ...common },
  );
  models.WebhookSecret.init(
    {
      org_id: { type: DataTypes.UUID, primaryKey: true },
      secret: DataTypes.STRING(80),
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'webhook_secrets', modelName: 'WebhookSecret', ...common },
  );
  models.Campaign.init(
    {
      id: uuidPk,
      org_id: DataTypes.UUID,
      job_id: DataTypes.UUID,
      status: DataTypes.STRING(20),
      url: DataTypes.STRING(2048),
      title: DataTypes.STRING(200),
      languages: DataTypes.JSON,
      platforms: DataTypes.JSON,
      webhook_url: DataTypes.STRING(2048),
      webhook_events: DataTypes.JSON,
      options: DataTypes.JSON,
      metadata: DataTypes.JSON,
      page_language: DataTypes.STRING(16),
      retry_of: DataTypes.UUID,
      batch_id: DataTypes.UUID,
      batch_index: DataTypes.INTEGER,
      progress: DataTypes.INTEGER,
      error_code: DataTypes.STRING(40),
      error_message: DataTypes.TEXT,
      quota_period: DataTypes.STRING(7),
      status_changed_at: DataTypes.DATE,
      deadline_at: DataTypes.DATE,
      lease_owner: DataTypes.STRING(200),
      lease_expires_at: DataTypes.DATE,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'campaigns', modelName: 'Campaign', ...common },
  );
  models.Batch.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      org_id: DataTypes.UUID,
      webhook_url: DataTypes.STRING(2048),
      item_count: DataTypes.INTEGER,
      completed_at: DataTypes.DATE,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'batches', modelName: 'Batch', ...common },
  );
  models.Video.init(
    {
      id: uuidPk,
      campaign_id: DataTypes.UUID,
      language: DataTypes.STRING(5),
      platform: DataTypes.STRING(30),
      variant: { type: DataTypes.STRING(1), defaultValue: 'a' },
      opening_repeated: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      status: DataTypes.STRING(12),
      file_key: DataTypes.STRING(500),
      captions_key: DataTypes.STRING(500),
      captions_srt_key: DataTypes.STRING(500),
      thumbnail_key: DataTypes.STRING(500),
      duration_seconds: DataTypes.FLOAT,
      script_source: DataTypes.STRING(20),
      published_at: DataTypes.DATE,
      error_code: DataTypes.STRING(40),
      error_message: DataTypes.TEXT,
      reported_at: DataTypes.BIGINT,
      revision: { type: DataTypes.INTEGER, defaultValue: 1 },
      file_revision: DataTypes.INTEGER,
      quality: DataTypes.JSON,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'videos', modelName: 'Video', ...common },
  );
  models.CampaignEvent.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      campaign_id: DataTypes.UUID,
      from_status: DataTypes.STRING(20),
      to_status: DataTypes.STRING(20),
      detail: DataTypes.TEXT,
      created_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'campaign_events', modelName: 'CampaignEvent', ...common, updatedAt: false },
  );
  models.UsageCounter.init(
    {
      org_id: { type: DataTypes.UUID, primaryKey: true },
      period: { type: DataTypes.STRING(7), primaryKey: true },
      used: DataTypes.INTEGER,
    },
    { sequelize, tableName: 'usage_counters', modelName: 'UsageCounter', underscored: true, timestamps: false },
  );
  models.IdempotencyRecord.init(
    {
      org_id: { type: DataTypes.UUID, primaryKey: true },
      key: { type: DataTypes.STRING(255), primaryKey: true },
      request_hash: DataTypes.STRING(64),
      status_code: DataTypes.INTEGER,
      response_body: DataTypes.JSON,
      created_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'idempotency_records', modelName: 'IdempotencyRecord', ...common, updatedAt: false },
  );
  models.PageCapture.init(
    {
      id: uuidPk,
      campaign_id: DataTypes.UUID,
      variant: DataTypes.STRING(10),
      url: DataTypes.STRING(2048),
      final_url: DataTypes.STRING(2048),
      language: DataTypes.STRING(35),
      text: DataTypes.JSON,
      brand: DataTypes.JSON,
      screenshots: DataTypes.JSON,
      presentation: DataTypes.JSON,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'page_captures', modelName: 'PageCapture', ...common },
  );
  models.CampaignPlan.init(
    {
      campaign_id: { type: DataTypes.UUID, primaryKey: true },
      plan: DataTypes.JSON,
      page_texts: DataTypes.JSON,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'campaign_plans', modelName: 'CampaignPlan', ...common },
  );
  models.CampaignScript.init(
    {
      id: uuidPk,
      campaign_id: DataTypes.UUID,
      language: DataTypes.STRING(5),
      script_source: DataTypes.STRING(20),
      script: DataTypes.JSON,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'campaign_scripts', modelName: 'CampaignScript', ...common },
  );
  models.Storyboard.init(
    {
      video_id: { type: DataTypes.UUID, primaryKey: true },
      campaign_id: DataTypes.UUID,
      document: DataTypes.JSON,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'storyboards', modelName: 'Storyboard', ...common },
  );
  models.StoryboardRevision.init(
    {
      video_id: { type: DataTypes.UUID, primaryKey: true },
      revision: { type: DataTypes.INTEGER, primaryKey: true },
      campaign_id: DataTypes.UUID,
      document: DataTypes.JSON,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'storyboard_revisions', modelName: 'StoryboardRevision', ...common },
  );
  models.VideoEdit.init(
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      video_id: DataTypes.UUID,
      campaign_id: DataTypes.UUID,
      revision: DataTypes.INTEGER,
      base_revision: DataTypes.INTEGER,
      status: DataTypes.STRING(12),
      document: DataTypes.JSON,
      captions_key: DataTypes.STRING(500),
      scenes_spoken: DataTypes.INTEGER,
      error_code: DataTypes.STRING(40),
      error_message: DataTypes.TEXT,
      lease_owner: DataTypes.STRING(200),
      lease_expires_at: DataTypes.DATE,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
      finished_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'video_edits', modelName: 'VideoEdit', ...common },
  );
  models.RenderAttempt.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      video_id: DataTypes.UUID,
      campaign_id: DataTypes.UUID,
      node_id: DataTypes.STRING(200),
      outcome: DataTypes.STRING(12),
      error_message: DataTypes.TEXT,
      wall_ms: DataTypes.INTEGER,
      peak_rss_bytes: DataTypes.BIGINT,
      started_at: DataTypes.DATE,
      finished_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'render_attempts', modelName: 'RenderAttempt', ...common, createdAt: false, updatedAt: false },
  );
  models.WebhookDelivery.init(
    {
      id: uuidPk,
      event_id: DataTypes.STRING(40),
      event_type: DataTypes.STRING(40),
      campaign_id: DataTypes.UUID,
      org_id: DataTypes.UUID,
      url: DataTypes.STRING(2048),
      body: DataTypes.TEXT,
      status: DataTypes.STRING(12),
      attempts: DataTypes.INTEGER,
      next_attempt_at: DataTypes.DATE,
      locked_until: DataTypes.DATE,
      last_error: DataTypes.TEXT,
      delivered_at: DataTypes.DATE,
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'webhook_deliveries', modelName: 'WebhookDelivery', ...common },
  );
  models.WebhookAttempt.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      delivery_id: DataTypes.UUID,
      attempt: DataTypes.INTEGER,
      signed_timestamp: DataTypes.BIGINT,
      status_code: DataTypes.INTEGER,
      duration_ms: DataTypes.INTEGER,
      error: DataTypes.TEXT,
      created_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'webhook_attempts', modelName: 'WebhookAttempt', ...common, updatedAt: false },
  );
  models.WebhookRedelivery.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      delivery_id: DataTypes.UUID,
      campaign_id: DataTypes.UUID,
      requested_at: DataTypes.DATE,
      attempt: DataTypes.INTEGER,
    },
    { sequelize, tableName: 'webhook_redeliveries', modelName: 'WebhookRedelivery', ...common, createdAt: false, updatedAt: false },
  );
  models.CampaignWebhookEvent.init(
    {
      event_id: { type: DataTypes.STRING(40), primaryKey: true },
      event_type: DataTypes.STRING(40),
      campaign_id: DataTypes.UUID,
      org_id: DataTypes.UUID,
      url: DataTypes.STRING(2048),
      body: DataTypes.TEXT,
      created_at: DataTypes.DATE,
      handed_over_at: DataTypes.DATE,
    },
    { sequelize, tableName: 'campaign_webhook_events', modelName: 'CampaignWebhookEvent', ...common, updatedAt: false },
  );
  // Associations let the hot paths read a key with its organization, and a campaign with its videos, in one query each.
  models.ApiKey.belongsTo(models.Organization, { foreignKey: 'org_id', as: 'organization' });
  models.User.belongsTo(models.Organization, { foreignKey: 'org_id', as: 'organization' });
  models.UserSession.belongsTo(models.User, { foreignKey: 'user_id', as: 'user' });
  models.UserInvite.belongsTo(models.Organization, { foreignKey: 'org_id', as: 'organization' });
  models.Campaign.hasMany(models.Video, { foreignKey: 'campaign_id', as: 'videos' });
  return models;
}
