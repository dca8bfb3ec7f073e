/**
 * DbMixin({ model }): moleculer-db over the process's shared Sequelize instance (lib/db/database.ts).
 * The service gets `this.adapter` (moleculer-db) for simple reads and `this.db` for models and transactions.
 * moleculer-db's write actions are switched off: writes go through the owning service's own actions.
 */
import MoleculerDb from 'moleculer-db';
import SequelizeDbAdapter from 'moleculer-db-adapter-sequelize';
import type { Service, ServiceSchema } from 'moleculer';
import { configOf } from '../config';
import { acquireDatabase, releaseDatabase, type Database } from '../lib/db/database';
import type { Models } from '../lib/db/models';

export interface DbMixinOptions {
  /** Which of our models this service's moleculer-db actions serve. */
  model: keyof Models;
}

export interface DbMethods {
  db: Database;
}

class SharedSequelizeAdapter extends (SequelizeDbAdapter as any) {
  constructor(private readonly modelName: keyof Models) {
    super();
  }

  init(broker: any, service: any): void {
    this.broker = broker;
    this.service = service;
  }

  async connect(): Promise<void> {
    const database = await acquireDatabase(configOf(this.broker));
    this.db = database.sequelize;
    this.model = database.models[this.modelName];
    this.service.model = this.model;
    this.service.db = database;
  }

  async disconnect(): Promise<void> {
    await releaseDatabase(configOf(this.broker));
  }
}

export function DbMixin(options: DbMixinOptions): Partial<ServiceSchema> {
  const schema = {
    mixins: [MoleculerDb as unknown as Partial<ServiceSchema>],
    adapter: new SharedSequelizeAdapter(options.model),
    // `get` is off too: a service's own `get` would otherwise be deep-merged with moleculer-db's parameter rules.
    actions: { create: false, insert: false, update: false, remove: false, get: false },
    /** A fresh adapter per service instance: several brokers in one process may share this schema object. */
    created(this: any) {
      this.adapter = new SharedSequelizeAdapter(options.model);
      this.adapter.init(this.broker, this);
    },
  };
  return schema as unknown as Partial<ServiceSchema>;
}

export type DbBackedService = Service & DbMethods;
