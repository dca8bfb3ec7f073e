/**
 * DbMixin({ owner }): moleculer-db over the process's shared Sequelize instance (lib/db/database.ts).
 * The service gets `this.db` for models and transactions, holding only the models its owner entry allows
 * (lib/db/ownership.ts MODEL_ACCESS: its own tables whole, the ones it reads as read-only views).
 * moleculer-db's generated actions are all switched off: reads and writes go through the owning service's actions.
 * The database unreachable leaves every action as DatabaseUnavailableError (lib/errors.ts): a 503, never a 500.
 */
import MoleculerDb from 'moleculer-db';
import SequelizeDbAdapter from 'moleculer-db-adapter-sequelize';
import type { Context, Service, ServiceBroker, ServiceSchema } from 'moleculer';
import type { Sequelize } from 'sequelize';
import { configOf } from '../config';
import { acquireDatabase, releaseDatabase } from '../lib/db/database';
import { DatabaseUnavailableError, isDatabaseUnavailable, messageOf } from '../lib/errors';
import type { Models } from '../lib/db/models';
import { adapterModel, scopedDatabase, type DbOwner, type ScopedDatabase } from '../lib/db/ownership';

/** moleculer-db's generated CRUD actions, all switched off (test/integration/ownership.test.ts holds that). */
export const GENERATED_ACTIONS = ['find', 'list', 'count', 'get', 'create', 'insert', 'update', 'remove'] as const;

export interface DbMixinOptions<O extends DbOwner> {
  /** The service's entry in MODEL_ACCESS: which models it owns and which it only reads. */
  owner: O;
}

export interface DbMethods<O extends DbOwner> {
  db: ScopedDatabase<O>;
}

/** What the adapter sets on its service: the shared database as the service may use it (`this.db`). */
interface DbServiceFields {
  db?: ScopedDatabase<DbOwner>;
}

/**
 * moleculer-db-adapter-sequelize as this subclass uses it: its typings declare none of the fields it sets, and
 * its constructor takes Sequelize's arguments, which the shared database makes unneeded.
 */
const SequelizeAdapter = SequelizeDbAdapter as unknown as new () => SequelizeDbAdapter & {
  broker: ServiceBroker;
  service: Service & DbServiceFields;
  db: Sequelize;
  model: Models[keyof Models];
};

class SharedSequelizeAdapter extends SequelizeAdapter {
  constructor(private readonly owner: DbOwner) {
    super();
  }

  override init(broker: ServiceBroker, service: Service & DbServiceFields): void {
    this.broker = broker;
    this.service = service;
  }

  override async connect(): Promise<void> {
    const database = await acquireDatabase(configOf(this.broker));
    this.db = database.sequelize;
    // moleculer-db's own model (its generated actions, all off, are its only users); the service gets the scoped set.
    this.model = database.models[adapterModel(this.owner)];
    this.service.db = scopedDatabase(database, this.owner);
  }

  override async disconnect(): Promise<void> {
    await releaseDatabase(configOf(this.broker));
  }
}

/**
 * Whether a failed connect is worth retrying: the database not reachable yet (a node starting before PostgreSQL,
 * or during its restart). Anything else — a migration that fails on its own SQL, a bad setting — would fail the
 * same way every second for ever, and the service would never say so; it fails the service's start instead.
 * The error came from connecting, so a bare socket error counts (lib/errors.ts isDatabaseUnavailable).
 */
export function isConnectionFailure(err: unknown): boolean {
  return isDatabaseUnavailable(err, true);
}

const RECONNECT_MS = 1000;

/** moleculer-db's lifecycle, with a start that retries only what can get better (see isConnectionFailure). */
const MoleculerDbStartingOnce = {
  ...(MoleculerDb as unknown as Partial<ServiceSchema>),
  started(this: Service & { connect(): Promise<void> }) {
    return new Promise<void>((resolve, reject) => {
      const connecting = () => {
        this.connect().then(resolve, (err: Error) => {
          if (!isConnectionFailure(err)) {
            this.logger.error(`database: ${err.message}`);
            reject(err);
            return;
          }
          this.logger.warn(`database not reachable (${err.message}); retrying in ${RECONNECT_MS} ms`);
          setTimeout(connecting, RECONNECT_MS);
        });
      };
      connecting();
    });
  },
};

export function DbMixin<O extends DbOwner>(options: DbMixinOptions<O>): Partial<ServiceSchema> {
  const schema = {
    mixins: [MoleculerDbStartingOnce as Partial<ServiceSchema>],
    adapter: new SharedSequelizeAdapter(options.owner),
    // Every generated action is off: they would answer for any organization, and nothing calls them. Reads and
    // writes go through the owning service's own actions, which scope by organization where a customer asks.
    actions: Object.fromEntries(GENERATED_ACTIONS.map((name) => [name, false])),
    hooks: {
      error: {
        /**
         * The database unreachable, met in any of this service's actions, leaves it as DatabaseUnavailableError:
         * retryable, 503 with Retry-After at the gateway, a wait (not a failure) for a campaign, on any node.
         */
        '*': function (this: Service, ctx: Context, err: unknown): never {
          if (isDatabaseUnavailable(err) && (err as { type?: unknown }).type !== DatabaseUnavailableError.TYPE) {
            this.logger.warn(`${ctx.action?.name ?? 'action'}: database unreachable: ${messageOf(err)}`);
            throw new DatabaseUnavailableError(messageOf(err));
          }
          throw err;
        },
      },
    },
    /** A fresh adapter per service instance: several brokers in one process may share this schema object. */
    created(this: Service & { adapter?: SharedSequelizeAdapter }) {
      this.adapter = new SharedSequelizeAdapter(options.owner);
      this.adapter.init(this.broker, this);
    },
  };
  return schema;
}

export type DbBackedService<O extends DbOwner> = Service & DbMethods<O>;
