/**
 * bench/redis-soak: "30 Redis restarts under load, every node alive, every campaign finished."
 *
 * A private redis-server on a free loopback port (never the shared one) carries the transporter and the rate
 * limits of a cluster:
 *   - the test harness in this process: its api and worker brokers (transport 'redis', the rendering stage only);
 *   - an orchestrator node and render node(s), each a process of its own started as an operator starts one
 *     (SERVICES=… npm start, under tsx): a node that dies (an unhandled rejection ends a Node 22 process) shows
 *     up as its process exiting.
 * Under load — a campaign submitted every BENCH_SUBMIT_SECONDS (draft, VIDEO_TARGET_SECONDS 10, CAPTURE_MAX_SHOTS 2,
 * ['en'] and every third ['en', 'ja'], tiktok, a webhook each) and a steady stream of authenticated
 * GET /api/v1/campaigns/{id} (BENCH_GET_RATE a second, at most 16 in flight) — Redis is restarted BENCH_RESTARTS
 * times: stopped (SIGTERM, every third SIGKILL), started again on the same port after a random 0.2–2 s, the next
 * stop 3–8 s after it is back (and not before every node has resubscribed).
 * After each restart: every node process alive; every in-process broker's transporter reconnected
 * (`$transporter.connected` again, transit and transporter connected); every node's subscriber back in Redis's
 * CLIENT LIST with all its channels (`sub=`) and a publisher beside it. At the end: every campaign at review
 * (within BENCH_DRAIN_MINUTES of the last restart), exactly one webhook each, one subscriber and one publisher
 * per node left in Redis, no unhandled rejection in this process.
 * Run: npm run bench:redis-soak   (BENCH_RESTARTS=30, BENCH_SUBMIT_SECONDS=20, BENCH_GET_RATE=20, BENCH_RENDER_NODES=1,
 *      BENCH_DRAIN_MINUTES=15, BENCH_MAX_MINUTES=60, BENCH_SEED for the same schedule again). Exit 1 on any failed
 * check, 3 when the watchdog (BENCH_MAX_MINUTES) stopped it. Every node's log is kept in a temporary directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import type { ServiceBroker } from 'moleculer';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/fixtures/webhook-receiver';
import { startHarness, type Harness } from '../../test/support/harness';
import { orchestratorEnv, startNodeProcess, type NodeProcess } from '../../test/support/node-process';
import { freePort, startRedisServer, type RedisServer } from '../../test/support/redis-server';
import { waitFor } from '../../test/support/wait';
import { median, positiveInteger } from '../support';

const RESTARTS = positiveInteger('BENCH_RESTARTS', 30);
const SUBMIT_EVERY_MS = positiveInteger('BENCH_SUBMIT_SECONDS', 15) * 1000;
const GET_RATE = positiveInteger('BENCH_GET_RATE', 20);
const RENDER_NODES = positiveInteger('BENCH_RENDER_NODES', 1);
const DRAIN_MS = positiveInteger('BENCH_DRAIN_MINUTES', 15) * 60_000;
const MAX_MS = positiveInteger('BENCH_MAX_MINUTES', 60) * 60_000;
const SEED = positiveInteger('BENCH_SEED', 1 + Math.floor(Math.random() * 2 ** 30));

const GAP_MS: [number, number] = [3000, 8000];
const PAUSE_MS: [number, number] = [200, 2000];
const SIGKILL_EVERY = 3;
const RECONNECT_DEADLINE_MS = 60_000;
const GET_TIMEOUT_MS = 10_000;
const GET_MAX_IN_FLIGHT = 16;
const POST_TIMEOUT_MS = 60_000;
const POST_GIVE_UP_MS = 180_000;
const WEBHOOK_SETTLE_MS = 5000;
/** As docker-compose.yml's orchestrator: everything but the gateway and the renderer. */
const ORCHESTRATOR_SERVICES = ['accounts', 'campaigns', 'capture', 'script', 'voice', 'rendering', 'webhooks', 'reports', 'ops', 'files'];
const LIMITS = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000 };
const GENERATING = ['collecting', 'processing', 'scripting', 'voiceover', 'rendering'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** mulberry32: the schedule (pauses, gaps) from BENCH_SEED, so a run can be repeated. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(SEED);
const between = ([low, high]: [number, number]) => Math.round(low + random() * (high - low));

type Phase = 'down' | 'recovering' | 'up' | 'after';
interface SoakNode {
  id: string;
  kind: string;
  /** Set for the nodes that are processes of their own. */
  process?: NodeProcess;
  broker?: ServiceBroker;
  /** Channels its subscriber held before the first restart. */
  baselineSub?: number;
  exitedAt?: number;
  exitedDuring?: string;
  exit?: string;
  /** Log lines of its transporter's recoveries (its own subscribe retries and publish failures). */
  subscribeRetries: number;
  publishFailures: number;
  /** Node's "MaxListenersExceededWarning" (EventEmitter leak warnings) in its output. */
  listenerWarnings: number;
  /** Per restart: ms from Redis up to its subscriber back with every channel (and a publisher); null: not within the deadline. */
  resubscribed: Array<number | null>;
  /** In-process brokers, per restart: ms from Redis up to `$transporter.connected`. */
  transporterConnected: Array<number | null>;
}
interface Restart {
  n: number;
  signal: 'SIGTERM' | 'SIGKILL';
  stoppedInMs: number;
  pauseMs: number;
  /** Campaigns by status when Redis went down, and renders then in flight. */
  stages: string[];
  rendersInFlight: number;
  allResubscribedMs: number | null;
  aliveAfter: boolean;
}
interface Submitted {
  n: number;
  languages: string[];
  id?: string;
  createdAt?: number;
  postAnswers: Record<string, number>;
  refused?: string;
}
interface CampaignRow {
  id: string;
  status: string;
  error_code: string | null;
  error_message: string | null;
  lease_owner: string | null;
}

let phase: Phase = 'up';
const getCounts: Record<Phase, Record<string, number>> = { down: {}, recovering: {}, up: {}, after: {} };
const unhandled: string[] = [];
process.on('unhandledRejection', (reason) => {
  unhandled.push(reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason));
});
/** Node's process warnings here (still printed as usual), by name. */
const warnings: Record<string, number> = {};
process.on('warning', (warning) => count(warnings, warning.name));

/** Redis's CLIENT LIST over a connection of its own, or null while Redis does not answer. */
async function clientList(url: string): Promise<Array<Record<string, string>> | null> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const text = (await redis.call('CLIENT', 'LIST')) as string;
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) =>
        Object.fromEntries(line.split(' ').map((field) => [field.slice(0, field.indexOf('=')), field.slice(field.indexOf('=') + 1)])),
      );
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

/** A node's transporter connections in CLIENT LIST (named `<node id>:subscriber` / `:publisher` by lib/net/redis-transporter.ts). */
function connectionsOf(list: Array<Record<string, string>>, nodeID: string): { subscribers: number; publishers: number; sub: number } {
  const name = nodeID.replace(/[^\x21-\x7e]/g, '_');
  const subscribers = list.filter((c) => c.name === `${name}:subscriber`);
  return {
    subscribers: subscribers.length,
    publishers: list.filter((c) => c.name === `${name}:publisher`).length,
    sub: Math.max(0, ...subscribers.map((c) => Number(c.sub ?? 0))),
  };
}

function exited(child: RedisServer['process']): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** A redis-server on `port` again: a few tries, in case the port is not free yet. */
async function startRedisAgain(port: number): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedisServer(port);
    } catch (err) {
      if (attempt >= 5) throw err;
      await sleep(500);
    }
  }
}

function stats(values: Array<number | null>): string {
  const got = values.filter((v): v is number => v !== null);
  const missed = values.length - got.length;
  if (got.length === 0) return missed ? `never (${missed} missed)` : '—';
  return `median ${s(median(got))}, max ${s(Math.max(...got))}${missed ? `, ${missed} missed the ${s(RECONNECT_DEADLINE_MS)} deadline` : ''}`;
}

/** Polls a synchronous check until it holds or the time is up; returns its last answer. */
function until(check: () => boolean, timeoutMs: number, everyMs: number): Promise<boolean> {
  return waitFor(() => Promise.resolve(check()), Boolean, timeoutMs, everyMs);
}

function count(record: Record<string, number>, key: string): void {
  record[key] = (record[key] ?? 0) + 1;
}

async function main(): Promise<number> {
  const startedAt = Date.now();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-soak-'));
  const loads: number[] = [os.loadavg()[0]];
  const port = await freePort();
  let redis = await startRedisServer(port);
  const nodes: SoakNode[] = [];
  const processes: NodeProcess[] = [];
  const submitted: Submitted[] = [];
  const restarts: Restart[] = [];
  const nodeDisconnects: string[] = [];
  let h: Harness | undefined;
  let receiver: WebhookReceiver | undefined;
  let getTimer: NodeJS.Timeout | undefined;
  let stopping = false;
  let currentStep = 'start-up';
  const failures: string[] = [];

  const cleanup = async () => {
    stopping = true;
    clearInterval(getTimer);
    await Promise.allSettled(processes.map((node) => node.stop()));
    await receiver?.close();
    if (redis.process.exitCode !== null || redis.process.signalCode !== null) redis = await startRedisAgain(port).catch(() => redis);
    await h?.stop().catch((err: Error) => console.error(`harness stop: ${err.message}`));
    await redis.stop();
  };
  const watchdog = setTimeout(() => {
    console.error(`\nwatchdog: BENCH_MAX_MINUTES (${MAX_MS / 60_000}) passed during ${currentStep}; stopping. Logs: ${logDir}`);
    void cleanup().finally(() => process.exit(3));
  }, MAX_MS);
  watchdog.unref();

  try {
    h = await startHarness({
      transport: 'redis',
      redisUrl: redis.url,
      render: 'dispatcher',
      // A short drain: stopping the cluster at the end must not wait DRAIN_TIMEOUT (5 min) for a render stage stuck in a slot wait.
      config: { rateLimits: LIMITS, renderQuality: 'draft', videoTargetSeconds: 10, captureMaxShots: 2, drainTimeoutMs: 15_000 },
    });
    const harness = h;
    const { key } = await harness.newCustomer('business');
    receiver = await startWebhookReceiver();

    for (const [kind, broker] of [
      ['in-process api', harness.api],
      ['in-process worker', harness.worker],
    ] as const) {
      const node: SoakNode = {
        id: broker.nodeID,
        kind,
        broker,
        subscribeRetries: 0,
        publishFailures: 0,
        listenerWarnings: 0,
        resubscribed: [],
        transporterConnected: [],
      };
      // Logger is off in the harness: the transporter's own warnings are counted here instead.
      const logger = broker.transit!.tx.logger;
      const warn = logger.warn.bind(logger);
      logger.warn = (...args: unknown[]) => {
        const text = args.map(String).join(' ');
        if (text.startsWith('Redis subscribe to')) node.subscribeRetries++;
        if (text.startsWith('Redis publish to')) node.publishFailures++;
        warn(...args);
      };
      nodes.push(node);
    }
    harness.api.localBus.on('$node.disconnected', (payload: { node: { id: string }; unexpected: boolean }) => {
      nodeDisconnects.push(`${payload.node.id}${payload.unexpected ? ' (heartbeats lost)' : ''} during ${currentStep}`);
    });

    const watchOutput = (node: SoakNode, child: NodeProcess) => {
      const log = fs.createWriteStream(path.join(logDir, `${node.kind.replace(/\W+/g, '-')}.log`));
      let pending = '';
      const scan = (chunk: Buffer) => {
        log.write(chunk);
        pending += chunk.toString();
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          if (line.includes('Redis subscribe to')) node.subscribeRetries++;
          if (line.includes('Redis publish to')) node.publishFailures++;
          if (line.includes('MaxListenersExceededWarning')) node.listenerWarnings++;
        }
      };
      child.process.stdout!.on('data', scan);
      child.process.stderr!.on('data', scan);
      child.process.once('exit', (code, signal) => {
        node.exitedAt = Date.now();
        node.exitedDuring = currentStep;
        node.exit = signal ? `signal ${signal}` : `code ${code}`;
        if (!stopping) console.log(`!! ${node.kind} (${node.id}) exited (${node.exit}) during ${currentStep}`);
        log.end();
      });
    };
    const addProcess = (kind: string, child: NodeProcess) => {
      const node: SoakNode = {
        id: child.nodeID,
        kind,
        process: child,
        subscribeRetries: 0,
        publishFailures: 0,
        listenerWarnings: 0,
        resubscribed: [],
        transporterConnected: [],
      };
      processes.push(child);
      nodes.push(node);
      watchOutput(node, child);
    };
    const orchestrator = startNodeProcess(harness, {
      nodeID: `${harness.config.namespace}-orchestrator`,
      services: ORCHESTRATOR_SERVICES,
      dataDir: harness.config.dataDir, // the files the worker's `files` service and the API's /files route see
      keepOutputChars: 1000,
      env: orchestratorEnv(harness, {
        RATE_LIMIT_IP_UNAUTHENTICATED: String(LIMITS.ipUnauthenticated),
        RATE_LIMIT_IP_AUTHENTICATED: String(LIMITS.ipAuthenticated),
        DRAIN_TIMEOUT: '15s',
        LOG_LEVEL: process.env.BENCH_NODE_LOG_LEVEL ?? 'warn',
      }),
    });
    addProcess('orchestrator process', orchestrator);
    const renderProcesses: NodeProcess[] = [];
    for (let i = 1; i <= RENDER_NODES; i++) {
      // Its own DATA_DIR: inputs and videos go through the `files` service, over the transporter being restarted.
      const render = startNodeProcess(harness, {
        nodeID: `${harness.config.namespace}-render-${i}`,
        services: ['renderer'],
        keepOutputChars: 1000,
        env: {
          RENDER_QUALITY: 'draft',
          RENDER_CONCURRENCY: '1',
          DRAIN_TIMEOUT: '15s',
          LOG_LEVEL: process.env.BENCH_NODE_LOG_LEVEL ?? 'warn',
        },
      });
      addProcess(`render process ${i}`, render);
      renderProcesses.push(render);
    }

    const offers = (broker: ServiceBroker, action: string, nodeID: string) =>
      (broker.registry.getActionEndpoints(action)?.endpoints ?? []).some((endpoint) => endpoint.id === nodeID && endpoint.isAvailable);
    const joined = await until(
      () =>
        ['campaigns.create', 'accounts.authenticate', 'capture.check'].every((action) =>
          offers(harness.api, action, orchestrator.nodeID),
        ) && renderProcesses.every((render) => offers(harness.worker, 'renderer.renderVideo', render.nodeID)),
      180_000,
      250,
    );
    if (!joined || processes.some((node) => node.exited())) throw new Error('the node processes did not join within 180 s');

    // Every node's subscriber, with its channels: the baseline each restart must come back to.
    await sleep(2000);
    const before = await clientList(redis.url);
    if (!before) throw new Error('CLIENT LIST unanswered before the first restart');
    for (const node of nodes) {
      const held = connectionsOf(before, node.id);
      if (held.subscribers !== 1 || held.publishers !== 1 || held.sub === 0)
        throw new Error(
          `${node.kind} (${node.id}) holds ${held.subscribers} subscriber(s), ${held.publishers} publisher(s) before any restart`,
        );
      node.baselineSub = held.sub;
    }
    console.log(
      `redis-soak: ${RESTARTS} restarts of a private redis-server on 127.0.0.1:${port}, seed ${SEED}; nodes: ${nodes
        .map((node) => `${node.kind} (${node.baselineSub} channels)`)
        .join(', ')}; logs in ${logDir}`,
    );

    // The load: campaigns, and reads of them.
    const submitOne = async (entry: Submitted) => {
      const idempotencyKey = `soak-${SEED}-${entry.n}`;
      const body = JSON.stringify({ url: harness.pageUrl, languages: entry.languages, platforms: ['tiktok'], webhook_url: receiver!.url });
      const giveUpAt = Date.now() + POST_GIVE_UP_MS;
      while (!stopping && Date.now() < giveUpAt) {
        let status: string;
        let answer: { campaign_id?: string; error?: { code?: string } } = {};
        try {
          const res = await fetch(`${harness.baseUrl}/api/v1/campaigns`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
            body,
            signal: AbortSignal.timeout(POST_TIMEOUT_MS),
          });
          status = String(res.status);
          answer = (await res.json().catch(() => ({}))) as typeof answer;
        } catch {
          status = 'no answer';
        }
        count(entry.postAnswers, status);
        if (status === '201' || status === '200') {
          entry.id = answer.campaign_id;
          entry.createdAt = Date.now();
          return;
        }
        if (!['503', '429', '500', 'no answer'].includes(status)) {
          entry.refused = `${status} ${answer.error?.code ?? ''}`.trim();
          return;
        }
        await sleep(1000);
      }
      entry.refused ??= 'not created in time';
    };
    const submissions: Array<Promise<void>> = [];
    const submit = () => {
      const n = submitted.length + 1;
      const entry: Submitted = { n, languages: n % 3 === 0 ? ['en', 'ja'] : ['en'], postAnswers: {} };
      submitted.push(entry);
      submissions.push(submitOne(entry));
    };

    let inFlight = 0;
    let turn = 0;
    getTimer = setInterval(() => {
      const ids = submitted.map((entry) => entry.id).filter((id): id is string => !!id);
      if (ids.length === 0) return;
      if (inFlight >= GET_MAX_IN_FLIGHT) {
        count(getCounts[phase], 'skipped (16 in flight)');
        return;
      }
      const id = ids[turn++ % ids.length];
      const sentIn = phase;
      inFlight++;
      fetch(`${harness.baseUrl}/api/v1/campaigns/${id}`, {
        headers: { Authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(GET_TIMEOUT_MS),
      })
        .then(async (res) => {
          const text = await res.text();
          // A refusal is told apart by its message (the limiter's fail-closed 503, a service not reachable, …).
          let reason = '';
          if (res.status !== 200) {
            try {
              reason = ` ${((JSON.parse(text) as { error?: { message?: string } }).error?.message ?? '').slice(0, 48)}`;
            } catch {
              reason = ' (not JSON)';
            }
          }
          count(getCounts[sentIn], `${res.status}${reason}`);
        })
        .catch(() => count(getCounts[sentIn], 'no answer'))
        .finally(() => inFlight--);
    }, 1000 / GET_RATE);

    submit();
    await until(() => !!(submitted[0].id ?? submitted[0].refused), POST_GIVE_UP_MS, 200);
    if (!submitted[0].id) throw new Error(`the first campaign was not created: ${submitted[0].refused}`);
    let nextSubmitAt = Date.now() + SUBMIT_EVERY_MS;
    const submitWhenDue = () => {
      while (Date.now() >= nextSubmitAt) {
        submit();
        nextSubmitAt += SUBMIT_EVERY_MS;
      }
    };
    /** Waits `ms` while submitting campaigns on schedule. */
    const loadFor = async (ms: number) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        submitWhenDue();
        await sleep(Math.min(250, until - Date.now()));
      }
    };

    await loadFor(between(GAP_MS));
    for (let n = 1; n <= RESTARTS; n++) {
      currentStep = `restart ${n}`;
      const signal = n % SIGKILL_EVERY === 0 ? 'SIGKILL' : 'SIGTERM';
      const statuses = await harness.sql<{ status: string }>(`SELECT status FROM campaigns WHERE status = ANY($1)`, [GENERATING]);
      const [{ open }] = await harness.sql<{ open: string }>("SELECT count(*) AS open FROM render_attempts WHERE outcome = 'rendering'");
      const connectedAt = new Map<string, number>();
      const listeners = nodes
        .filter((node) => node.broker)
        .map((node) => {
          const listener = () => {
            if (!connectedAt.has(node.id)) connectedAt.set(node.id, Date.now());
          };
          node.broker!.localBus.on('$transporter.connected', listener);
          return () => node.broker!.localBus.off('$transporter.connected', listener);
        });

      phase = 'down';
      const stopAt = Date.now();
      if (signal === 'SIGKILL') {
        redis.process.kill('SIGKILL');
        await exited(redis.process);
      } else {
        await redis.stop();
      }
      const stoppedInMs = Date.now() - stopAt;
      const pauseMs = between(PAUSE_MS);
      await loadFor(pauseMs);
      redis = await startRedisAgain(port);
      const upAt = Date.now();
      phase = 'recovering';

      // Back: every in-process transporter connected again, every node's subscriber with all its channels.
      const pending = new Set(nodes.map((node) => node.id));
      const deadline = upAt + RECONNECT_DEADLINE_MS;
      while (pending.size && Date.now() < deadline) {
        submitWhenDue();
        const list = await clientList(redis.url);
        const now = Date.now();
        for (const node of nodes) {
          if (!pending.has(node.id)) continue;
          if (node.broker && (!connectedAt.has(node.id) || !node.broker.transit!.connected || !node.broker.transit!.tx.connected)) continue;
          const held = list ? connectionsOf(list, node.id) : undefined;
          if (!held || held.subscribers < 1 || held.publishers < 1 || held.sub < node.baselineSub!) continue;
          pending.delete(node.id);
          node.resubscribed[n - 1] = now - upAt;
          if (node.broker) node.transporterConnected[n - 1] = Math.max(0, connectedAt.get(node.id)! - upAt);
        }
        if (pending.size) await sleep(100);
      }
      for (const off of listeners) off();
      for (const node of nodes) {
        if (!pending.has(node.id)) continue;
        node.resubscribed[n - 1] = null;
        if (node.broker && connectedAt.has(node.id)) node.transporterConnected[n - 1] = Math.max(0, connectedAt.get(node.id)! - upAt);
      }
      phase = 'up';
      const aliveAfter = processes.every((child) => !child.exited());
      const allResubscribedMs = pending.size ? null : Math.max(...nodes.map((node) => node.resubscribed[n - 1] ?? 0));
      const restart: Restart = {
        n,
        signal,
        stoppedInMs,
        pauseMs,
        stages: statuses.map((row) => row.status),
        rendersInFlight: Number(open),
        allResubscribedMs,
        aliveAfter,
      };
      restarts.push(restart);
      loads.push(os.loadavg()[0]);
      const late = nodes.filter((node) => pending.has(node.id)).map((node) => node.kind);
      console.log(
        `restart ${String(n).padStart(2)}/${RESTARTS} ${signal.padEnd(7)} stopped in ${stoppedInMs} ms, down ${s(upAt - stopAt)};` +
          ` every node back in ${allResubscribedMs === null ? `NOT within ${s(RECONNECT_DEADLINE_MS)} (${late.join(', ')})` : s(allResubscribedMs)};` +
          ` node processes alive ${processes.filter((child) => !child.exited()).length}/${processes.length};` +
          ` campaigns in flight: ${restart.stages.length ? restart.stages.join(', ') : 'none'}${restart.rendersInFlight ? ` (${restart.rendersInFlight} render(s))` : ''}`,
      );
      if (n < RESTARTS) await loadFor(between(GAP_MS));
    }
    const lastRestartAt = Date.now();
    phase = 'after';
    currentStep = 'the drain';
    await Promise.all(submissions);

    // Every campaign to its end.
    const ids = submitted.map((entry) => entry.id).filter((id): id is string => !!id);
    let rows: CampaignRow[] = [];
    let lastReport = Date.now();
    while (Date.now() < lastRestartAt + DRAIN_MS) {
      rows = await harness.sql<CampaignRow>('SELECT id, status, error_code, error_message, lease_owner FROM campaigns WHERE id = ANY($1)', [
        ids,
      ]);
      const open = rows.filter((row) => GENERATING.includes(row.status));
      if (open.length === 0) break;
      if (Date.now() - lastReport > 30_000) {
        lastReport = Date.now();
        console.log(
          `  drain: ${open.length} campaign(s) still generating (${open.map((row) => row.status).join(', ')}), ${s(Date.now() - lastRestartAt)} after the last restart`,
        );
      }
      await sleep(2000);
    }
    const drainedInMs = Date.now() - lastRestartAt;
    const review = rows.filter((row) => row.status === 'review');
    await until(
      () =>
        review.every((row) => receiver!.received.some((hook) => (JSON.parse(hook.body) as { campaign_id: string }).campaign_id === row.id)),
      30_000,
      500,
    );
    await sleep(WEBHOOK_SETTLE_MS);
    // Reads stop. What the in-process brokers still hold in pendingRequests then is either a request never answered
    // (requestTimeout 0, broker-options.ts: a REQUEST or RESPONSE packet lost across a restart is waited for until its
    // node leaves), or the entry of a call refused while the transporter was disconnected (BrokerDisconnectedError:
    // Moleculer 0.15.2's transit rejects the call but does not remove its pendingRequests entry).
    clearInterval(getTimer);
    await until(() => inFlight === 0, GET_TIMEOUT_MS + 2000, 100);
    await sleep(2000);
    const stuck: Record<string, number> = {};
    for (const node of nodes) {
      for (const req of node.broker?.transit?.pendingRequests.values() ?? [])
        count(stuck, `${node.kind}: ${req.ctx.action?.name ?? '?'} → ${req.nodeID ?? '?'}`);
    }
    const hooksOf = (id: string) =>
      receiver!.received
        .map((hook) => JSON.parse(hook.body) as { campaign_id: string; event: string })
        .filter((hook) => hook.campaign_id === id);
    const finalList = await clientList(redis.url);
    const attempts = await harness.sql<{ outcome: string; n: string }>(
      'SELECT outcome, count(*) AS n FROM render_attempts WHERE campaign_id = ANY($1) GROUP BY outcome ORDER BY outcome',
      [ids],
    );
    const wallMs = Date.now() - startedAt;

    // The figures.
    console.log('');
    console.log(
      `node ${process.version}, ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? 'unknown'}); load average (1 min) ` +
        `at start ${loads[0].toFixed(2)}, during the restarts median ${median(loads.slice(1)).toFixed(2)} max ${Math.max(...loads).toFixed(2)}`,
    );
    const killed = restarts.filter((r) => r.signal === 'SIGKILL').length;
    console.log(
      `restarts done: ${restarts.length}/${RESTARTS} (${restarts.length - killed} SIGTERM, ${killed} SIGKILL), Redis down ${stats(restarts.map((r) => r.stoppedInMs + r.pauseMs))} each`,
    );
    const stageCounts: Record<string, number> = {};
    for (const r of restarts) for (const stage of new Set(r.stages)) count(stageCounts, stage);
    console.log(
      `restarts that landed mid-stage (a campaign in it): ${GENERATING.map((stage) => `${stage} ${stageCounts[stage] ?? 0}`).join(', ')}; ` +
        `with a render in flight ${restarts.filter((r) => r.rendersInFlight > 0).length}; with no campaign in flight ${restarts.filter((r) => r.stages.length === 0).length}`,
    );
    const created = submitted.filter((entry) => entry.id);
    const failed = rows.filter((row) => row.status === 'failed');
    const stalled = rows.filter((row) => row.status !== 'review' && row.status !== 'failed');
    console.log(
      `campaigns: ${submitted.length} submitted, ${created.length} created, ${review.length} reached review, ${failed.length} failed` +
        `${failed.length ? ` (${failed.map((row) => row.error_code).join(', ')})` : ''}, ${stalled.length} still generating` +
        `${
          submitted.length - created.length
            ? `, ${submitted.length - created.length} never created (${submitted
                .filter((e) => !e.id)
                .map((e) => e.refused)
                .join(', ')})`
            : ''
        }; ` +
        `all done ${s(drainedInMs)} after the last restart`,
    );
    const postAnswers: Record<string, number> = {};
    for (const entry of submitted)
      for (const [status, n] of Object.entries(entry.postAnswers)) postAnswers[status] = (postAnswers[status] ?? 0) + n;
    console.log(`POST answers (retried with the same Idempotency-Key until 201): ${JSON.stringify(postAnswers)}`);
    console.log(`render attempts: ${attempts.map((a) => `${a.outcome} ${a.n}`).join(', ')}`);
    const hookCounts = review.map((row) => hooksOf(row.id).length);
    console.log(
      `webhooks: ${review.filter((_, i) => hookCounts[i] === 1).length}/${review.length} campaigns at review got exactly one` +
        `${hookCounts.some((c) => c !== 1) ? ` (counts: ${hookCounts.join(', ')})` : ''}; ${receiver.received.length} received in all`,
    );
    const dead = nodes.filter((node) => node.process && node.exitedAt);
    console.log(
      `node processes: ${processes.length - dead.length} alive, ${dead.length} dead${dead.length ? ` (${dead.map((node) => `${node.kind}: ${node.exit} during ${node.exitedDuring}`).join('; ')})` : ''}; ` +
        `nodes the api saw disconnected: ${nodeDisconnects.length ? nodeDisconnects.join('; ') : 'none'}`,
    );
    console.log('reconnect after each restart, from Redis up:');
    for (const node of nodes) {
      const held = finalList ? connectionsOf(finalList, node.id) : undefined;
      console.log(
        `  ${node.kind.padEnd(20)} every channel resubscribed: ${stats(node.resubscribed)}` +
          `${node.broker ? `; $transporter.connected: ${stats(node.transporterConnected)}` : ''}` +
          `; subscribe retries logged ${node.subscribeRetries}, publish failures logged ${node.publishFailures}` +
          `; connections at the end: ${held ? `${held.subscribers} subscriber (${held.sub}/${node.baselineSub} channels) + ${held.publishers} publisher` : 'unknown'}`,
      );
    }
    console.log('GET /api/v1/campaigns/{id} answers, by when they were sent:');
    for (const [when, label] of [
      ['down', 'Redis down'],
      ['recovering', 'Redis up, nodes reconnecting'],
      ['up', 'between restarts'],
      ['after', 'after the last restart'],
    ] as const) {
      const total = Object.values(getCounts[when]).reduce((a, b) => a + b, 0);
      console.log(`  ${label.padEnd(29)} ${total} sent: ${JSON.stringify(getCounts[when])}`);
    }
    console.log(
      `entries left in the in-process brokers' pendingRequests after the drain (calls never answered, or refused while disconnected): ${
        Object.keys(stuck).length ? JSON.stringify(stuck) : 'none'
      }`,
    );
    console.log(
      `EventEmitter leak warnings (MaxListenersExceededWarning): this process ${warnings.MaxListenersExceededWarning ?? 0}; ` +
        nodes
          .filter((node) => node.process)
          .map((node) => `${node.kind} ${node.listenerWarnings}`)
          .join(', '),
    );
    console.log(
      `unhandled rejections in this process: ${unhandled.length}${unhandled.length ? ` (${[...new Set(unhandled)].join('; ')})` : ''}`,
    );
    console.log(`total wall time: ${s(wallMs)}`);

    // What failed.
    if (dead.length) failures.push(`${dead.length} node process(es) died`);
    if (restarts.length !== RESTARTS) failures.push(`only ${restarts.length} restarts done`);
    const missed = restarts.filter((r) => r.allResubscribedMs === null).length;
    if (missed) failures.push(`${missed} restart(s) after which a node did not resubscribe within ${s(RECONNECT_DEADLINE_MS)}`);
    if (review.length !== submitted.length) failures.push(`${submitted.length - review.length} campaign(s) did not reach review`);
    if (hookCounts.some((c) => c !== 1)) failures.push('a campaign at review did not get exactly one webhook');
    if (unhandled.length) failures.push(`${unhandled.length} unhandled rejection(s)`);
    const leftOver = nodes.filter((node) => {
      const held = finalList ? connectionsOf(finalList, node.id) : undefined;
      return !node.exitedAt && (!held || held.subscribers !== 1 || held.publishers !== 1);
    });
    if (leftOver.length)
      failures.push(`${leftOver.map((node) => node.kind).join(', ')}: not exactly one subscriber and one publisher at the end`);

    for (const row of rows.filter((r) => r.status !== 'review')) {
      const events = await harness.sql<{ to_status: string; created_at: Date; detail: string | null }>(
        'SELECT to_status, created_at, detail FROM campaign_events WHERE campaign_id = $1 ORDER BY id',
        [row.id],
      );
      const renders = await harness.sql<{ node_id: string | null; outcome: string; error_message: string | null }>(
        'SELECT node_id, outcome, error_message FROM render_attempts WHERE campaign_id = $1 ORDER BY id',
        [row.id],
      );
      const entry = submitted.find((e) => e.id === row.id)!;
      console.log(
        `\ncampaign ${row.id} (#${entry.n}, ${entry.languages.join('+')}): ${row.status}, lease ${row.lease_owner ?? 'none'}, ${row.error_code ?? ''} ${row.error_message ?? ''}`,
      );
      for (const e of events) console.log(`  ${new Date(e.created_at).toISOString()} → ${e.to_status}${e.detail ? ` (${e.detail})` : ''}`);
      for (const r of renders)
        console.log(`  render on ${r.node_id ?? '?'}: ${r.outcome}${r.error_message ? ` (${r.error_message})` : ''}`);
    }
    console.log('');
    console.log(
      failures.length ? `FAILED: ${failures.join('; ')}` : 'PASSED: every node alive, every campaign at review, one webhook each',
    );
    return failures.length ? 1 : 0;
  } catch (err) {
    console.error(`redis-soak stopped during ${currentStep}:`, err);
    for (const child of processes) console.error(`--- ${child.nodeID} (tail) ---\n${child.output()}`);
    return 1;
  } finally {
    clearTimeout(watchdog);
    currentStep = 'clean-up';
    await cleanup();
    console.log(`node logs kept in ${logDir}`);
  }
}

void main().then((code) => process.exit(code));
