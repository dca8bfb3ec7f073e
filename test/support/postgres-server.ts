/**
 * A PostgreSQL server of a test's own (initdb into a temporary directory, on a free port), which the test can stop
 * and start again (a database outage) without touching the shared one. PostgreSQL refuses to run as root: as root,
 * its commands run as the `postgres` user (runuser), with the directory handed to that user.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './redis-server';

const run = promisify(execFile);

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication). */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: the server closes its connections and stops. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and deletes its directory. */
  destroy(): Promise<void>;
  /** The server's log, for a failing test's message. */
  log(): string;
}

/** The newest installed PostgreSQL's bin directory (Debian's layout), or PG_BIN. */
export function postgresBinDir(): string | undefined {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : undefined;
}

export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries (initdb, pg_ctl) found; set PG_BIN');
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-pg-'));
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    fs.chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (command: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args]) : run(path.join(bin, command), args);
  const port = await freePort();
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  // Loopback TCP only, the socket in the test's own directory, no durability (a test's data is thrown away).
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const server: PostgresServer = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await pg('pg_ctl', ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '30', 'start']);
    },
    async stop() {
      await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
    },
    async destroy() {
      if (fs.existsSync(path.join(data, 'postmaster.pid'))) await server.stop().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
    log: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-8000) : ''),
  };
  await server.start();
  return server;
}
