/**
 * The product on embedded defaults in a process of its own, for the benchmarks that drive it through its public API
 * (bench/real-web, bench/fairness): started as scripts/demo.ts starts it, its operators' tool and API at hand.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../test/support/redis-server';

const ROOT = path.resolve(__dirname, '..');
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The product on embedded defaults in a process of its own (as scripts/demo.ts starts it); `extraEnv` adds settings. */
export class Product {
  private child?: ChildProcess;
  base = '';
  readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly dataDir: string,
    private readonly logFile: string,
    extraEnv: NodeJS.ProcessEnv = {},
  ) {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ALLOW_PRIVATE_NETWORK: 'true', LOG_LEVEL: 'warn', ...extraEnv };
    // Embedded defaults: SQLite in DATA_DIR and the in-process rate limiter, whatever the calling shell has set.
    for (const name of ['DATABASE_URL', 'DATABASE_SCHEMA', 'REDIS_URL', 'TRANSPORTER', 'SERVICES', 'PUBLIC_URL']) delete env[name];
    this.env = env;
  }

  /** The product's process id (its tree: Chromium, ffmpeg, editly children, hangs below it). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    const port = await freePort();
    this.base = `http://127.0.0.1:${port}`;
    const log = fs.openSync(this.logFile, 'a');
    this.child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
        'scripts/runner.ts',
        '--config',
        'moleculer.config.ts',
        '--mask',
        '**/*.service.ts',
        'services',
      ],
      { cwd: ROOT, env: { ...this.env, PORT: String(port) }, stdio: ['ignore', log, log] },
    );
    fs.closeSync(log);
    for (let i = 0; ; i += 1) {
      try {
        if ((await fetch(`${this.base}/readyz`)).ok) return;
      } catch {
        /* not listening yet */
      }
      if (i > 600 || !this.alive) throw new Error(`the product did not start; see ${this.logFile}`);
      await sleep(200);
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000)]);
    if (this.alive) child.kill('SIGKILL');
  }

  /** The operators' tool (decisions §6) on the product's database; `T` names the fields of its JSON answer. */
  async admin<T>(...args: string[]): Promise<T> {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/admin.ts', ...args], {
      cwd: ROOT,
      env: this.env,
    });
    return JSON.parse(stdout) as T;
  }

  async api<T>(method: string, route: string, key: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(`${this.base}${route}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed as T };
  }

  /** A link the product signed for its own public origin, fetched from where it listens here. */
  async download(link: string, file: string): Promise<boolean> {
    const res = await fetch(link.replace(/^https?:\/\/[^/]+/, this.base));
    if (!res.ok) return false;
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    return true;
  }
}
