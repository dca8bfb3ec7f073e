/**
 * Boots the product for a test: an API broker and a worker broker (accounts, campaigns) joined by
 * Moleculer's Fake transporter (or real Redis transport), on a PostgreSQL schema and a Redis key
 * prefix of their own, listening on port 0. stop() drops the schema and deletes the keys.
 */
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { ServiceBroker, type Middleware, type BrokerOptions, type ServiceSchema } from 'moleculer';
import Redis from 'ioredis';
import pg from 'pg';
import { dropSchema } from '../../lib/db/database';
import { loadConfig, type AppConfig, type ConfigOverrides } from '../../config';
import { brokerOptions } from '../../broker-options';
import { transporterOption } from '../../lib/net/redis-transporter';
import AccountsService from '../../services/accounts.service';
import ApiService from '../../services/api.service';
import DashboardService from '../../services/dashboard.service';
import CampaignsService from '../../services/campaigns.service';
import CaptureService from '../../services/capture.service';
import ScriptService from '../../services/script.service';
import VoiceService from '../../services/voice.service';
import FilesService from '../../services/files.service';
import RendererService from '../../services/renderer.service';
import RenderingService from '../../services/rendering.service';
import ReportsService from '../../services/reports.service';
import WebhooksService from '../../services/webhooks.service';
import { startFixtureSite, type FixtureSite } from '../fixtures/site/server';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/**
 * Config for a test whose subject is not the video's own check (decisions §13): the render node does not look at the
 * videos (QUALITY_CHECK=off), so a render is not followed by frame reading and OCR the test never asks about, and no
 * repair round can render a video again. The check stays on, through the real pipeline, in the quality suites, the
 * visual suites, the renderer's end-to-end test and the dashboard's tests (their pages and pictures show it).
 */
export const CHECK_NOT_THE_SUBJECT = { qualityCheck: false } as const;
/** The same for a node in a process of its own (test/support/node-process.ts): its environment. */
export const CHECK_NOT_THE_SUBJECT_ENV = { QUALITY_CHECK: 'off' } as const;

export interface HarnessOptions {
  dialect?: 'postgres' | 'sqlite';
  /** 'fake' (default): Moleculer's in-process Fake transporter; 'redis': the real Redis transporter. */
  transport?: 'fake' | 'redis';
  config?: ConfigOverrides;
  /** Extra services for the worker broker (e.g. a stage under test). */
  workerServices?: Array<ServiceSchema<any, any>>;
  /** Middlewares added to the worker broker's own (e.g. one that holds a stage's call until the test lets it go). */
  workerMiddlewares?: Middleware[];
  /** Where the capture pool runs: on the worker (default) or on a node of its own. */
  capture?: 'worker' | 'own-node';
  /**
   * 'worker': the rendering stage and a renderer on the worker; 'dispatcher': the stage only (render nodes
   * are started by the test). Unset: neither, and campaigns wait in rendering.
   */
  render?: 'worker' | 'dispatcher';
  /** Redis for the transporter and rate limits (and the keys stop() deletes); default TEST_REDIS_URL. */
  redisUrl?: string;
  /** true: the gateway on the worker broker, one node as `npm start` runs by default; `api` and `worker` are then the same broker. */
  oneNode?: boolean;
}

export interface Harness {
  baseUrl: string;
  /** The fixture site (test/fixtures/site) on loopback; `pageUrl` is its product page. */
  site: FixtureSite;
  pageUrl: string;
  /** Set when capture runs on a node of its own. */
  captureNode?: ServiceBroker;
  config: AppConfig;
  api: ServiceBroker;
  worker: ServiceBroker;
  call<T = any>(action: string, params?: Record<string, unknown>): Promise<T>;
  /** An organization with an owner and one key. */
  newCustomer(plan?: string, scopes?: string[]): Promise<{ orgId: string; key: string; keyId: string }>;
  request(
    method: string,
    route: string,
    init?: { key?: string; header?: 'bearer' | 'x-api-key'; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any }>;
  sql<T = any>(query: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(5).toString('hex')}`;
}

/** The broker's services whose `started` has not finished (a service registers itself once it has). */
function notStarted(broker: ServiceBroker): string[] {
  const registered = new Set(broker.registry.getServiceList({ onlyLocal: true }).map((service) => service.fullName));
  return broker.services.map((service) => service.fullName).filter((name) => !registered.has(name));
}

/**
 * For every broker a test starts in its process: two of Moleculer's defaults each cost up to a second whenever a node
 * joins. A node announces its services only once none has registered for serviceChangedDebounceTime (1 s; the option
 * is missing from its typings), and waitForServices looks again only every dependencyInterval (1 s): a test's brokers
 * announce after 20 ms, and a test waiting for services looks every LOOK_EVERY_MS. The product's broker options are
 * unchanged.
 */
export const ANNOUNCE_SOON = { transit: { serviceChangedDebounceTime: 20 } as BrokerOptions['transit'] };
export const LOOK_EVERY_MS = 20;

/** A startup phase that overruns fails the hook with its own name, not Jest's anonymous hook timeout. */
const PHASE_DEADLINE_MS = 45_000;

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const startupTimes: Array<[string, number]> = [];
  const phase = async <T>(name: string, work: Promise<T>, pending?: () => string[]): Promise<T> => {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `harness startup: ${name} did not finish within ${PHASE_DEADLINE_MS / 1000} s ` +
                `(finished: ${startupTimes.map(([n, ms]) => `${n} ${ms} ms`).join(', ') || 'nothing'}` +
                `${pending ? `; still starting: ${pending().join(', ') || 'none'}` : ''})`,
            ),
          ),
        PHASE_DEADLINE_MS,
      );
    });
    try {
      return await Promise.race([work, overrun]);
    } finally {
      clearTimeout(timer);
      startupTimes.push([name, Date.now() - started]);
    }
  };
  const dialect = options.dialect ?? 'postgres';
  const redisUrl = options.redisUrl ?? TEST_REDIS_URL;
  const schema = uniqueName('t');
  // Stored files (screenshots) and, for SQLite, the database itself.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-test-'));
  const config = loadConfig(
    {},
    {
      port: 0,
      dataDir,
      databaseUrl: dialect === 'postgres' ? TEST_DATABASE_URL : undefined,
      databaseSchema: dialect === 'postgres' ? schema : undefined,
      redisUrl,
      redisPrefix: `${schema}:`,
      allowPrivateNetwork: true,
      renderQuality: 'draft',
      logLevel: 'warn',
      namespace: schema,
      // Brokers joined by the Fake transporter share one process and cannot die apart; a loaded CI machine can
      // starve their heartbeats for seconds, which must not read as a lost node (503). Redis clusters keep 6 s.
      ...(options.transport === 'redis' ? {} : { heartbeatTimeoutSeconds: 30 }),
      // stop() ends the test's brokers with whatever work the test no longer looks at still in flight (a campaign
      // mid-capture, a render): it is given a second, not DRAIN_TIMEOUT's 5 minutes (cancel.test.ts waited 13 s for a
      // capture of a campaign it had finished with). The drain itself is proved on nodes of their own (drain.test.ts).
      drainTimeoutMs: 1000,
      ...options.config,
    },
  );
  const transporter = options.transport === 'redis' ? transporterOption(redisUrl) : 'Fake';
  const make = (nodeID: string, middlewares: Middleware[] = []) =>
    new ServiceBroker({
      ...brokerOptions(config),
      middlewares: [...(brokerOptions(config).middlewares ?? []), ...middlewares],
      nodeID: `${nodeID}-${schema}`,
      transporter: transporter as any,
      ...ANNOUNCE_SOON,
      logger: process.env.HARNESS_LOG ? { type: 'Console', options: { level: 'info' } } : false,
    });
  const site = await phase('fixture site', startFixtureSite());
  const worker = make('worker', options.workerMiddlewares);
  const api = options.oneNode ? worker : make('api');
  const captureNode = options.capture === 'own-node' ? make('capture') : undefined;
  api.createService(ApiService);
  api.createService(DashboardService);
  worker.createService(AccountsService);
  worker.createService(CampaignsService);
  worker.createService(ScriptService);
  worker.createService(VoiceService);
  worker.createService(FilesService);
  worker.createService(WebhooksService);
  worker.createService(ReportsService);
  if (options.render) worker.createService(RenderingService);
  if (options.render === 'worker') worker.createService(RendererService);
  (captureNode ?? worker).createService(CaptureService);
  for (const service of options.workerServices ?? []) worker.createService(service);
  await Promise.all([
    phase('worker start', worker.start(), () => notStarted(worker)),
    api !== worker && phase('api start', api.start(), () => notStarted(api)),
    captureNode && phase('capture node start', captureNode.start(), () => notStarted(captureNode)),
  ]);
  await phase('api sees the worker', api.waitForServices(['accounts', 'campaigns', 'capture'], PHASE_DEADLINE_MS, LOOK_EVERY_MS));
  if (process.env.HARNESS_TIMING) console.log(`harness ${schema}: ${startupTimes.map(([name, ms]) => `${name} ${ms} ms`).join(', ')}`);
  const port = ((api.getLocalService('api') as any).server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;

  const call = <T>(action: string, params: Record<string, unknown> = {}) => worker.call<T, Record<string, unknown>>(action, params);

  const harness: Harness = {
    baseUrl,
    config,
    api,
    worker,
    call,
    site,
    pageUrl: site.url('/'),
    captureNode,
    async newCustomer(plan = 'business', scopes) {
      const { org_id: orgId } = await call<{ org_id: string }>('accounts.createOrganization', { name: 'Test Co', plan });
      await call('accounts.addUser', { org_id: orgId, email: 'owner@test.example', role: 'owner' });
      // Plans without API access cannot be given keys; make the key on a paid plan, then move the organization.
      const keyPlan = plan === 'free' || plan === 'starter' ? 'growth' : plan;
      if (keyPlan !== plan) await call('accounts.setPlan', { org_id: orgId, plan: keyPlan });
      const { key, key_id: keyId } = await call<{ key: string; key_id: string }>('accounts.createKey', {
        org_id: orgId,
        by: 'owner@test.example',
        ...(scopes ? { scopes } : {}),
      });
      if (keyPlan !== plan) await call('accounts.setPlan', { org_id: orgId, plan });
      return { orgId, key, keyId };
    },
    async request(method, route, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.key !== undefined) {
        if (init.header === 'x-api-key') headers['X-API-Key'] = init.key;
        else headers.Authorization = `Bearer ${init.key}`;
      }
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const res = await fetch(`${baseUrl}${route}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
    async sql(query, params = []) {
      if (dialect !== 'postgres') throw new Error('sql() is for PostgreSQL harnesses');
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
      await client.connect();
      try {
        return (await client.query(query, params as any[])).rows;
      } finally {
        await client.end();
      }
    },
    async stop() {
      await Promise.allSettled([api !== worker && api.stop(), worker.stop(), captureNode?.stop()]);
      await site.close();
      if (dialect === 'postgres') await dropSchema(TEST_DATABASE_URL, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
      await deleteRedisKeys(`${schema}:`, redisUrl);
    },
  };
  return harness;
}

export async function deleteRedisKeys(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
