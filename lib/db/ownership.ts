/**
 * Which service writes which table, once (docs/architecture.md's owners table is checked against it:
 * test/unit/model-ownership.test.ts). DbMixin hands a service only these models (mixins/db.mixin.ts): the models it
 * owns whole, and read-only views of those it is allowed to read, so "one writer per table" is held by code, not
 * by convention. Raw SQL through `sequelize` is outside this (the quota's counter, the operators' report queries):
 * each such statement sits in its owner's lib module (lib/campaign/quota.ts, lib/ops/queries.ts).
 */
import type { Attributes, CountOptions, FindAndCountOptions, FindOptions, Model } from 'sequelize';
import type { Database } from './database';
import type { Models } from './models';

type ModelName = keyof Models;

export const MODEL_ACCESS = {
  accounts: { owns: ['Organization', 'User', 'UserSession', 'UserInvite', 'ApiKey', 'WebhookSecret'], reads: [] },
  campaigns: {
    owns: ['Campaign', 'Batch', 'Video', 'VideoEdit', 'CampaignEvent', 'CampaignWebhookEvent', 'UsageCounter', 'IdempotencyRecord'],
    reads: [],
  },
  capture: { owns: ['PageCapture'], reads: [] },
  script: { owns: ['CampaignPlan', 'CampaignScript'], reads: [] },
  voice: { owns: ['Storyboard', 'StoryboardRevision'], reads: [] },
  rendering: { owns: ['RenderAttempt'], reads: [] },
  webhooks: { owns: ['WebhookDelivery', 'WebhookAttempt', 'WebhookRedelivery'], reads: [] },
  // The operators' reads across organizations (/metrics, the REPL): never a write.
  ops: { owns: [], reads: ['Campaign', 'Video', 'CampaignEvent', 'RenderAttempt', 'WebhookDelivery', 'WebhookAttempt'] },
} as const satisfies Record<string, { owns: readonly ModelName[]; reads: readonly ModelName[] }>;

export type DbOwner = keyof typeof MODEL_ACCESS;
type Owned<O extends DbOwner> = (typeof MODEL_ACCESS)[O]['owns'][number];
type Read<O extends DbOwner> = (typeof MODEL_ACCESS)[O]['reads'][number];

/** The statics a read-only model keeps: finding and counting. */
export const READ_METHODS = ['findAll', 'findOne', 'findByPk', 'findAndCountAll', 'count'] as const;
/** A model's finders and counters, typed for its rows; no static that writes. */
export interface ReadOnlyModel<Row extends Model> {
  findAll(options?: FindOptions<Attributes<Row>>): Promise<Row[]>;
  findOne(options?: FindOptions<Attributes<Row>>): Promise<Row | null>;
  findByPk(key: string | number, options?: Omit<FindOptions<Attributes<Row>>, 'where'>): Promise<Row | null>;
  findAndCountAll(options?: Omit<FindAndCountOptions<Attributes<Row>>, 'group'>): Promise<{ rows: Row[]; count: number }>;
  count(options?: Omit<CountOptions<Attributes<Row>>, 'group'>): Promise<number>;
}

/** The models a service may use: its own whole, the ones it reads as read-only views. */
export type ModelsOf<O extends DbOwner> = Pick<Models, Owned<O>> & {
  readonly [K in Read<O>]: ReadOnlyModel<InstanceType<Models[K]>>;
};

/** The shared database as one service sees it. */
export type ScopedDatabase<O extends DbOwner> = Omit<Database, 'models'> & { models: ModelsOf<O> };

function readOnly(model: Models[ModelName]): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const name of READ_METHODS) view[name] = (model[name] as (...args: unknown[]) => unknown).bind(model);
  return Object.freeze(view);
}

/** `database` with only the models `owner` may use; any other is absent, so a use of it fails where it is written. */
export function scopedDatabase<O extends DbOwner>(database: Database, owner: O): ScopedDatabase<O> {
  const access: { owns: readonly ModelName[]; reads: readonly ModelName[] } = MODEL_ACCESS[owner];
  const models: Record<string, unknown> = {};
  for (const name of access.owns) models[name] = database.models[name];
  for (const name of access.reads) models[name] = readOnly(database.models[name]);
  return { sequelize: database.sequelize, dialect: database.dialect, models: Object.freeze(models) as ModelsOf<O> };
}

/** The model moleculer-db's adapter is bound to: the first the service owns (or reads, for a reader). */
export function adapterModel(owner: DbOwner): ModelName {
  const access: { owns: readonly ModelName[]; reads: readonly ModelName[] } = MODEL_ACCESS[owner];
  const first = access.owns[0] ?? access.reads[0];
  if (!first) throw new Error(`${owner} neither owns nor reads a model`);
  return first;
}
