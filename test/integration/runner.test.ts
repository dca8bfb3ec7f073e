/**
 * A node started as operators start one (`TRANSPORTER=redis://… SERVICES=renderer npm start`,
 * i.e. scripts/runner.ts under moleculer-runner, in its own process) uses the project's transporter, whatever the
 * environment variable is named. Counted with Redis's CLIENT LIST on a private redis-server restarted twice: every
 * node holds exactly its subscriber and its publisher afterwards, and no connection is left over anywhere.
 */
import Redis from 'ioredis';
import { startHarness, type Harness } from '../support/harness';
import { startNodeProcess, type NodeProcess } from '../support/node-process';
import { freePort, startRedisServer, type RedisServer } from '../support/redis-server';
import { waitFor } from '../support/wait';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let port: number;
let redis: RedisServer | undefined;
let h: Harness;
let node: NodeProcess | undefined;

beforeAll(async () => {
  port = await freePort();
  redis = await startRedisServer(port);
  h = await startHarness({ transport: 'redis', redisUrl: redis.url, config: { rateLimits: limits } });
}, 120_000);
afterAll(async () => {
  await node?.stop();
  await h?.stop();
  await redis?.stop();
}, 120_000);

/** The connections Redis has now, by name (`<node id>:<role>` for a transporter's; '' for one without a name). */
async function clientNames(): Promise<string[]> {
  const admin = new Redis(redis!.url, { lazyConnect: true, maxRetriesPerRequest: 1, connectionName: 'test-admin' });
  try {
    await admin.connect();
    const list = (await admin.call('CLIENT', 'LIST')) as string;
    return list
      .trim()
      .split('\n')
      .map((line) => /(?:^| )name=(\S*)/.exec(line)?.[1] ?? '')
      .filter((name) => name !== 'test-admin')
      .sort();
  } finally {
    admin.disconnect();
  }
}

const own = (names: string[], nodeID: string) => names.filter((name) => name.startsWith(`${nodeID}:`));

test('a node started by the runner with TRANSPORTER=redis://… keeps exactly its two connections across two Redis restarts', async () => {
  node = startNodeProcess(h, { nodeID: `runner-render-${process.pid}`, services: ['renderer'] });
  await waitFor(
    async () => h.api.registry.nodes.get(node!.nodeID)?.available ?? false,
    (up) => up,
    90_000,
    200,
  );
  const nodes = [h.api.nodeID, h.worker.nodeID, node.nodeID];
  const before = await clientNames();
  for (const id of nodes) expect({ id, names: own(before, id) }).toEqual({ id, names: [`${id}:publisher`, `${id}:subscriber`] });
  const othersBefore = before.filter((name) => !nodes.some((id) => name.startsWith(`${id}:`))).length;

  for (let restart = 1; restart <= 2; restart += 1) {
    await redis!.stop();
    await sleep(1500);
    redis = await startRedisServer(port);
    // Everyone is back: the node answers the API's broker again over the new Redis.
    await waitFor(
      async () => (await clientNames()).filter((name) => name.endsWith(':subscriber')).length,
      (subscribers) => subscribers >= nodes.length,
      60_000,
      250,
    );
  }
  // Retired connections close once what they had queued is sent: give them a moment, then count.
  const after = await waitFor(
    () => clientNames(),
    (names) => nodes.every((id) => own(names, id).length === 2),
    20_000,
    250,
  );
  for (const id of nodes) expect({ id, names: own(after, id) }).toEqual({ id, names: [`${id}:publisher`, `${id}:subscriber`] });
  // The unnamed connections (the rate limiter's, which reconnect when next used) are no more than before: no leak.
  expect(after.filter((name) => !nodes.some((id) => name.startsWith(`${id}:`))).length).toBeLessThanOrEqual(othersBefore);
  // And the cluster still sees the node: its heartbeats arrive over the restarted Redis.
  const seen = await waitFor(
    async () => h.api.registry.nodes.get(node!.nodeID)?.available ?? false,
    (up) => up,
    30_000,
    200,
  );
  expect(seen).toBe(true);
  expect(node.exited()).toBe(false);
}, 240_000);
