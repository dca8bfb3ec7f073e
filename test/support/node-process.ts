/**
 * A cluster node in a process of its own, started exactly as an operator starts one:
 *   SERVICES=<names> TRANSPORTER=redis://… npm start
 * (the runner under tsx). Every process of the node's tree (Chromium, editly, ffmpeg) inherits a unique
 * marker in its environment, so a test can find what is left of a node after it was killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServiceBroker } from 'moleculer';
import type { Harness } from './harness';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './harness';
import { waitFor } from './wait';

const ROOT = path.resolve(__dirname, '..', '..');
const MARKER_VARIABLE = 'CV_TEST_NODE_MARKER';

export interface NodeProcessOptions {
  nodeID: string;
  /** Service names, as in SERVICES (e.g. ['renderer'] or ['accounts', 'campaigns', …]). */
  services: string[];
  /** The node's DATA_DIR; unset: a temporary directory of its own, removed by stop(). */
  dataDir?: string;
  /** Extra environment (wins over the defaults). */
  env?: Record<string, string>;
  /** Its own process group: kill() and stop() then reach its whole tree (Chromium included). */
  detached?: boolean;
  /** How much of its output to keep (the tail). */
  keepOutputChars?: number;
}

export interface NodeProcess {
  nodeID: string;
  process: ChildProcess;
  dataDir: string;
  /** The value of CV_TEST_NODE_MARKER in the environment of every process of this node's tree. */
  marker: string;
  output(): string;
  exited(): boolean;
  /** Resolves when the node process has exited (at once if it has). */
  exit(): Promise<void>;
  /** Sends the signal to the node (to its whole group when detached). */
  kill(signal: NodeJS.Signals): void;
  /** Processes still alive that carry this node's marker (the node itself, its browsers, render children). */
  leftovers(): number[];
  /** SIGTERM to the node, SIGKILL after 15 s (its group too when detached); marked processes still there 5 s later are killed; a temporary DATA_DIR is removed. */
  stop(): Promise<void>;
}

/** PIDs of live processes whose environment holds MARKER_VARIABLE=marker (zombies have none and are skipped). */
export function processesWithMarker(marker: string): number[] {
  const needle = Buffer.from(`${MARKER_VARIABLE}=${marker}\0`);
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`).includes(needle)) found.push(Number(entry));
    } catch {
      /* gone, or not ours */
    }
  }
  return found;
}

/**
 * The environment of a node that runs the pipeline's stages beside the harness (an orchestrator): the harness's
 * database schema, Redis and public address, pages on loopback allowed, and a short draft campaign. `extra` wins.
 */
export function orchestratorEnv(h: Harness, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: h.config.databaseSchema!,
    REDIS_URL: h.config.redisUrl!,
    REDIS_PREFIX: h.config.redisPrefix,
    PUBLIC_BASE_URL: h.config.publicBaseUrl,
    ALLOW_PRIVATE_NETWORK: 'true',
    RENDER_QUALITY: 'draft',
    VIDEO_TARGET_SECONDS: '10',
    CAPTURE_MAX_SHOTS: '2',
    ...extra,
  };
}

export function startNodeProcess(h: Harness, options: NodeProcessOptions): NodeProcess {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cv-node-'));
  const marker = `${options.nodeID}-${crypto.randomBytes(6).toString('hex')}`;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/runner.ts', '--config', 'moleculer.config.ts', '--mask', '**/*.service.ts', 'services'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        SERVICES: options.services.join(','),
        TRANSPORTER: h.config.redisUrl ?? TEST_REDIS_URL,
        NAMESPACE: h.config.namespace,
        NODE_ID: options.nodeID,
        DATA_DIR: dataDir,
        RENDER_QUALITY: 'draft',
        RENDER_CONCURRENCY: '1',
        LOG_LEVEL: 'warn',
        ...options.env,
        [MARKER_VARIABLE]: marker,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.detached ?? false,
    },
  );
  const keepChars = options.keepOutputChars ?? 8000;
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-keepChars);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exitedNow = () => child.exitCode !== null || child.signalCode !== null;
  const exit = new Promise<void>((resolve) => {
    if (exitedNow()) resolve();
    else child.once('exit', () => resolve());
  });
  const kill = (signal: NodeJS.Signals) => {
    try {
      if (options.detached) process.kill(-child.pid!, signal);
      else child.kill(signal);
    } catch {
      /* already gone */
    }
  };
  return {
    nodeID: options.nodeID,
    process: child,
    dataDir,
    marker,
    output: () => output,
    exited: exitedNow,
    exit: () => exit,
    kill,
    leftovers: () => processesWithMarker(marker),
    async stop() {
      if (!exitedNow()) {
        child.kill('SIGTERM'); // the node alone: it closes its browsers and renders itself
        let grace: NodeJS.Timeout | undefined;
        await Promise.race([exit, new Promise((resolve) => (grace = setTimeout(resolve, 15_000)))]);
        clearTimeout(grace);
        if (!exitedNow()) kill('SIGKILL');
      }
      if (options.detached) kill('SIGKILL'); // whatever is left of its group
      // Render children notice their parent is gone and clean up; give them a moment, then kill what remains.
      const deadline = Date.now() + 5000;
      while (processesWithMarker(marker).length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      for (const pid of processesWithMarker(marker)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      if (ownDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether `broker` sees `action` offered, and available, on node `nodeID` (a node process has joined, or is back). */
export function offers(broker: ServiceBroker, action: string, nodeID: string): boolean {
  return (broker.registry.getActionEndpoints(action)?.endpoints ?? []).some((endpoint) => endpoint.id === nodeID && endpoint.isAvailable);
}

/**
 * Orchestrator nodes of a cluster test (batch-cluster, resilience): each started in its own process group, so that a
 * SIGKILL to the group takes its espeak-ng/ffmpeg children along, with the harness's database, Redis and files.
 * `harness` is read when a node starts (the harness is made in the test's beforeAll).
 */
export function orchestratorNodes(
  harness: () => Harness,
  options: { services: string[]; env: Record<string, string>; keepOutputChars?: number },
) {
  const nodes: NodeProcess[] = [];
  return {
    nodes,
    /** Starts node `name` as an operator would (SERVICES=…, npm start). */
    start(name: string): NodeProcess {
      const h = harness();
      const node = startNodeProcess(h, {
        nodeID: `${h.config.namespace}-orchestrator-${name}`,
        services: options.services,
        dataDir: h.config.dataDir, // files land where the test (and the API's /files route) can see them
        detached: true,
        keepOutputChars: options.keepOutputChars,
        env: orchestratorEnv(h, options.env),
      });
      nodes.push(node);
      return node;
    },
    /** Until the API sees each of `actions` on the node (the boot takes a few seconds); its output if it never does. */
    async joined(node: NodeProcess, actions: string[]): Promise<void> {
      const h = harness();
      const ok = await waitFor(
        async () => actions.every((action) => offers(h.api, action, node.nodeID)),
        (all) => all,
        90_000,
        200,
      );
      expect({ node: node.nodeID, joined: ok, exited: node.exited(), output: ok ? '' : node.output() }).toEqual({
        node: node.nodeID,
        joined: true,
        exited: false,
        output: '',
      });
    },
    /** Stops the harness's own worker node, until the API no longer sees it: only the test's nodes orchestrate. */
    stopHarnessWorker: () => stopHarnessWorker(harness()),
    async stopAll(): Promise<void> {
      await Promise.allSettled(nodes.map((node) => node.stop()));
    },
  };
}

/** Stops the harness's own worker node, until the API no longer sees it: only the test's own nodes run the pipeline. */
export async function stopHarnessWorker(h: Harness): Promise<void> {
  const workerID = h.worker.nodeID;
  await h.worker.stop();
  await waitFor(
    async () => h.api.registry.nodes.get(workerID)?.available ?? false,
    (available) => !available,
    20_000,
    100,
  );
}
