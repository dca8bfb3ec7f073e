/**
 * lib/errors.ts: the one definition of "the database is unreachable" (isDatabaseUnavailable), on the driver's real
 * errors and on their plain copies after the transporter, and its answer: 503 `internal` with Retry-After, as every
 * 503 has. A socket error that did not come through the database (another client's) is not the database's.
 */
import { Errors, type ServiceBroker } from 'moleculer';
import pg from 'pg';
import { DatabaseError, Sequelize, UniqueConstraintError, AccessDeniedError } from 'sequelize';
import {
  DatabaseUnavailableError,
  isDatabaseUnavailable,
  RETRY_AFTER_SECONDS,
  serviceUnavailable,
  STAGE_WAITS_ON,
  toErrorResponse,
} from '../../lib/errors';

/** What a node on the other side of the transporter gets: the plain error, JSON, regenerated (no classes, no causes). */
function acrossTransporter(err: unknown): Error {
  const regenerator = new Errors.Regenerator();
  regenerator.init({ nodeID: 'worker' } as ServiceBroker);
  const plain = JSON.parse(JSON.stringify(regenerator.extractPlainError(err as Errors.MoleculerError, {}))) as Errors.PlainMoleculerError;
  return regenerator.restore(plain, { sender: 'worker' });
}

const rejection = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );

/** PostgreSQL's FATAL to its clients on `pg_ctl stop -m fast`, as pg hands it over. */
function adminShutdown(): Error {
  return Object.assign(new Error('terminating connection due to administrator command'), {
    name: 'error',
    code: '57P01',
    severity: 'FATAL',
  });
}

test('a refused connection, through Sequelize or pg, is the database unavailable, before and after the transporter', async () => {
  const nobody = new Sequelize('postgres://postgres@127.0.0.1:1/test', { dialect: 'postgres', dialectModule: pg, logging: false });
  const refused = await rejection(nobody.query('SELECT 1'));
  await nobody.close();
  expect((refused as Error).name).toBe('SequelizeConnectionRefusedError');
  expect(isDatabaseUnavailable(refused)).toBe(true);
  expect(isDatabaseUnavailable(acrossTransporter(refused))).toBe(true);

  // pg on its own: a bare socket error, the database's only when it came from a database call.
  const bare = await rejection(new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/test' }).connect());
  expect((bare as { code?: string }).code).toBe('ECONNREFUSED');
  expect(isDatabaseUnavailable(bare, true)).toBe(true);
  expect(isDatabaseUnavailable(bare)).toBe(false);
});

test("PostgreSQL's shutdown and pg's lost connection, bare or wrapped by Sequelize", () => {
  expect(isDatabaseUnavailable(adminShutdown())).toBe(true);
  expect(isDatabaseUnavailable(acrossTransporter(adminShutdown()))).toBe(true);
  expect(isDatabaseUnavailable(new DatabaseError(adminShutdown() as never))).toBe(true);
  for (const code of ['57P03', '08006', '08001', '53300'])
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code }))).toBe(true);
  expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
  // A reset under Sequelize's wrapper came through the driver.
  const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  expect(isDatabaseUnavailable(new DatabaseError(reset as never))).toBe(true);
  expect(isDatabaseUnavailable(reset)).toBe(false);
});

test('anything else is not: bad SQL, a constraint, a wrong password, an ordinary error', () => {
  const syntax = Object.assign(new Error('syntax error at or near "SELEC"'), { code: '42601' });
  expect(isDatabaseUnavailable(new DatabaseError(syntax as never))).toBe(false);
  expect(isDatabaseUnavailable(new UniqueConstraintError({}))).toBe(false);
  expect(isDatabaseUnavailable(new AccessDeniedError(new Error('password authentication failed')))).toBe(false);
  expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
  expect(isDatabaseUnavailable(serviceUnavailable('Rate limiting is unavailable.'))).toBe(false);
  expect(isDatabaseUnavailable(undefined)).toBe(false);
  expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
});

test('DatabaseUnavailableError is retryable, survives the transporter, and the campaign actor waits on it', () => {
  const err = new DatabaseUnavailableError('connect ECONNREFUSED 127.0.0.1:5432');
  expect(err.retryable).toBe(true);
  const copy = acrossTransporter(err) as Error & { retryable?: boolean; type?: string };
  expect(copy).not.toBeInstanceOf(DatabaseUnavailableError);
  expect(copy.retryable).toBe(true);
  expect(isDatabaseUnavailable(copy)).toBe(true);
  expect(STAGE_WAITS_ON.has(copy.type ?? '')).toBe(true);
});

test('the answer: 503 internal with Retry-After, for the database down and for every other 503', () => {
  const retryAfter = { 'Retry-After': String(RETRY_AFTER_SECONDS) };
  for (const err of [
    new DatabaseUnavailableError('x'),
    acrossTransporter(new DatabaseUnavailableError('x')),
    new DatabaseError(adminShutdown() as never),
  ]) {
    expect(toErrorResponse(err)).toEqual({
      status: 503,
      headers: retryAfter,
      body: { success: false, error: { code: 'internal', message: DatabaseUnavailableError.MESSAGE } },
    });
  }
  const limiter = toErrorResponse(serviceUnavailable('Rate limiting is unavailable.'));
  expect(limiter).toMatchObject({ status: 503, headers: retryAfter, body: { error: { code: 'internal' } } });
  const noService = toErrorResponse(new Errors.ServiceNotAvailableError({ action: 'campaigns.get', nodeID: 'worker' }));
  expect(noService).toMatchObject({ status: 503, headers: retryAfter, body: { error: { code: 'internal' } } });
  // This node's transporter down (a Redis restart: the redis-soak bench saw a 500 for it), or no answer in time.
  // (Moleculer's typings give BrokerDisconnectedError its parent's constructor; the class itself takes nothing.)
  for (const err of [
    new (Errors.BrokerDisconnectedError as unknown as new () => Error)(),
    new Errors.RequestTimeoutError({ action: 'campaigns.get', nodeID: 'worker' }),
  ])
    expect(toErrorResponse(err)).toMatchObject({ status: 503, headers: retryAfter, body: { error: { code: 'internal' } } });
  expect(toErrorResponse(new Error('boom')).status).toBe(500);
});
