/**
 * mixins/db.mixin.ts: a service's start waits for a database that is not reachable yet, and fails at once on
 * anything else (a migration's own SQL error), instead of retrying it every second for ever. Real errors: a
 * refused connection, PostgreSQL's answer to bad SQL, and umzug's wrapping of it.
 */
import pg from 'pg';
import { Sequelize } from 'sequelize';
import { Umzug } from 'umzug';
import { isConnectionFailure } from '../../mixins/db.mixin';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

test('a refused connection is worth waiting for', async () => {
  const nobody = new Sequelize('postgres://postgres@127.0.0.1:1/test', { dialect: 'postgres', dialectModule: pg, logging: false });
  const err = await nobody.authenticate().then(
    () => undefined,
    (e: unknown) => e,
  );
  await nobody.close();
  expect((err as Error).name).toBe('SequelizeConnectionRefusedError');
  expect(isConnectionFailure(err)).toBe(true);
  const plain = await new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/test' }).connect().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isConnectionFailure(plain)).toBe(true);
});

test('a migration failing on its own SQL is not: the start fails with it', async () => {
  const sequelize = new Sequelize(DATABASE_URL, { dialect: 'postgres', dialectModule: pg, logging: false });
  try {
    const umzug = new Umzug({
      migrations: [{ name: '0001-broken', up: async () => void (await sequelize.query('ALTER TABLE no_such_table ADD COLUMN x int')) }],
      context: sequelize.getQueryInterface(),
      logger: undefined,
    });
    const err = await umzug.up().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).name).toBe('MigrationError');
    expect(String((err as Error).message)).toMatch(/no_such_table/);
    expect(isConnectionFailure(err)).toBe(false);
  } finally {
    await sequelize.close();
  }
});
