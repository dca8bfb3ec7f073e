/**
 * One writer per table, held by code: DbMixin hands each service only the models of its MODEL_ACCESS entry
 * (lib/db/ownership.ts), read-only where it only reads, and docs/architecture.md's owners table says the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Sequelize } from 'sequelize';
import { defineModels, type Models } from '../../lib/db/models';
import { MODEL_ACCESS, READ_METHODS, scopedDatabase, type DbOwner } from '../../lib/db/ownership';
import type { Database } from '../../lib/db/database';

const sequelize = new Sequelize('sqlite::memory:', { logging: false });
const models = defineModels(sequelize);
const database: Database = { sequelize, models, dialect: 'sqlite' };
const owners = Object.keys(MODEL_ACCESS) as DbOwner[];
const tableOf = (name: keyof Models) => models[name].getTableName() as string;

afterAll(() => sequelize.close());

test('every model has exactly one owner', () => {
  const owned = owners.flatMap((owner) => MODEL_ACCESS[owner].owns as readonly (keyof Models)[]);
  expect([...owned].sort()).toEqual(Object.keys(models).sort());
});

test.each(owners)('%s gets its own models whole, the ones it reads as finders only, and no other', (owner) => {
  const { owns, reads } = MODEL_ACCESS[owner] as { owns: readonly (keyof Models)[]; reads: readonly (keyof Models)[] };
  const scoped = scopedDatabase(database, owner).models as unknown as Record<string, Record<string, unknown>>;
  expect(Object.keys(scoped).sort()).toEqual([...owns, ...reads].sort());
  for (const name of owns) expect(scoped[name]).toBe(models[name]);
  for (const name of reads) {
    expect(Object.keys(scoped[name]).sort()).toEqual([...READ_METHODS].sort());
    for (const write of ['create', 'bulkCreate', 'update', 'upsert', 'destroy', 'increment', 'truncate'])
      expect(scoped[name][write]).toBeUndefined();
  }
  expect(Object.isFrozen(scoped)).toBe(true);
});

test("a read-only view finds through its model: the operators' campaign reads work", async () => {
  await models.Campaign.sync();
  const ops = scopedDatabase(database, 'ops');
  await expect(ops.models.Campaign.count()).resolves.toBe(0);
  await expect(ops.models.Campaign.findAll({ where: { status: 'review' } })).resolves.toEqual([]);
});

test("docs/architecture.md's owners table names the same writer, and the same reader, for every table", () => {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('| table | its one writer |'));
  const lines = section.split('\n').slice(2);
  const rows = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith('|')),
  );
  const documented: Record<string, { owns: string[]; reads: string[] }> = {};
  for (const row of rows) {
    const [tables, writer] = row.split('|').slice(1, 3);
    const owner = /`(\w+)`/.exec(writer)![1];
    const readsOnly = tables.trim().startsWith('—');
    // A writer's row may say more of a table in parentheses ("with `password_hash`"); a reader's row lists them there.
    const names = [...(readsOnly ? tables : tables.replace(/\([^)]*\)/g, '')).matchAll(/`(\w+)`/g)].map((m) => m[1]);
    documented[owner] = readsOnly ? { owns: [], reads: names } : { owns: names, reads: [] };
  }
  const declared = Object.fromEntries(
    owners.map((owner) => {
      const access = MODEL_ACCESS[owner] as { owns: readonly (keyof Models)[]; reads: readonly (keyof Models)[] };
      return [owner, { owns: access.owns.map(tableOf), reads: access.reads.map(tableOf) }];
    }),
  );
  const sorted = (map: Record<string, { owns: string[]; reads: string[] }>) =>
    Object.fromEntries(Object.entries(map).map(([k, v]) => [k, { owns: [...v.owns].sort(), reads: [...v.reads].sort() }]));
  expect(sorted(documented)).toEqual(sorted(declared));
});
