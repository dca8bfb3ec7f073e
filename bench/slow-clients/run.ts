/**
 * Slow clients against normal ones: GET /api/v1/campaigns/{id} p50/p99 of normal clients at a fixed
 * rate, alone, then while 200 slowloris connections and 50 slow-body POSTs hold the gateway, then alone again, in one
 * run, on the one-node default deployment with the product's default HTTP_* settings. Target: p99 under attack ≤ 2×
 * p99 without (the lower of the two runs without: the stricter floor).
 * Attackers run in a process of their own (attackers.ts) from other loopback addresses than the normal clients. See
 * README.md.
 *
 *   npm run bench:slow-clients        (BENCH_RATE=200 req/s over BENCH_CONNECTIONS=10, BENCH_DURATION=40 s per run)
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startHarness, type Harness } from '../../test/support/harness';
import { assertAllOk, BenchFailure, positiveInteger } from '../support';
import type { AttackPlan, AttackStats, FromAttackers, ToAttackers } from './attackers';

const UNLIMITED = 10_000_000;
const WARMUP_SECONDS = 10;
const TARGET_RATIO = 2;

const rate = positiveInteger('BENCH_RATE', 200);
const connections = positiveInteger('BENCH_CONNECTIONS', 10);
/** Longer than HTTP_REQUEST_TIMEOUT (30 s), so that the slow POSTs too are cut, and come back, within the measured run. */
const duration = positiveInteger('BENCH_DURATION', 40);
const slowloris = positiveInteger('BENCH_SLOWLORIS', 200);
const slowPosts = positiveInteger('BENCH_SLOW_POSTS', 50);
/** Slowloris places are spread over this many addresses (127.0.0.2, …), the slow POSTs come from the next one. */
const lorisAddresses = positiveInteger('BENCH_ATTACKER_ADDRESSES', 4);
const BYTE_INTERVAL_MS = 1000;
/** The attackers have this long to be all connected before the measured run. */
const ATTACK_SETTLE_MS = 20_000;

/** The whole run's bound: start-up, the warm-up, the three runs, the attack's settling and end, shutdown. */
const RUN_BOUND_MS = 180_000 + (WARMUP_SECONDS + 3 * duration) * 1000 + 2 * ATTACK_SETTLE_MS;

/** The normal clients: autocannon from 127.0.0.1 in a worker thread, at a fixed rate. */
function load(url: string, key: string, seconds: number): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration: seconds, workers: 1, overallRate: rate, headers: { authorization: `Bearer ${key}` } });
}

/** The product as bench/api boots it: one node, the limiter real but never refusing, an enterprise customer, one campaign. */
async function startProduct(): Promise<{ h: Harness; key: string; route: string; server: Server }> {
  const h = await startHarness({
    oneNode: true,
    config: { logLevel: 'error', pipelinePaused: true, rateLimits: { ipUnauthenticated: UNLIMITED, ipAuthenticated: UNLIMITED } },
  });
  const customer = await h.newCustomer('enterprise');
  await h.call('accounts.setPlan', { org_id: customer.orgId, plan: 'enterprise', rate: UNLIMITED });
  const created = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl } });
  if (created.status !== 201) throw new Error(`POST /api/v1/campaigns answered ${created.status}: ${JSON.stringify(created.body)}`);
  const route = `/api/v1/campaigns/${(created.body as { campaign_id: string }).campaign_id}`;
  const server = (h.api.getLocalService('api') as unknown as { server: Server }).server;
  return { h, key: customer.key, route, server };
}

/** The attackers' process and a way to ask it for its figures. */
function startAttackers(plan: AttackPlan): { child: ChildProcess; stats(): Promise<AttackStats>; stop(): Promise<AttackStats> } {
  const child = fork(path.join(__dirname, 'attackers.ts'), [], { execArgv: ['--import', 'tsx'], cwd: path.resolve(__dirname, '../..') });
  // One question at a time: each answer settles the question before it.
  let pending: { resolve(stats: AttackStats): void; reject(err: Error): void } | undefined;
  child.on('message', (answer: FromAttackers) => pending?.resolve(answer.stats));
  child.on('exit', (code) => pending?.reject(new Error(`the attackers' process exited (${code})`)));
  const ask = (message: ToAttackers) =>
    new Promise<AttackStats>((resolve, reject) => {
      pending = { resolve, reject };
      child.send(message);
    });
  child.send({ start: plan } satisfies ToAttackers);
  return { child, stats: () => ask({ stats: true }), stop: () => ask({ stop: true }) };
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((err, count) => (err ? reject(err) : resolve(count))));
}

function printResults(
  before: autocannon.Result,
  under: autocannon.Result,
  after: autocannon.Result,
  attack: AttackStats,
  serverOpen: number,
): void {
  const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const rows = [
    ['without attack', before],
    [`with ${slowloris} slowloris + ${slowPosts} slow POSTs`, under],
    ['without attack, after it', after],
  ] as const;
  const header = ['', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'req/s', 'requests'];
  const body = rows.map(([label, r]) => [
    label,
    fmt(r.latency.p50),
    fmt(r.latency.p90),
    fmt(r.latency.p99),
    fmt(r.latency.max),
    fmt(r.requests.average, 1),
    fmt(r.requests.total),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('');
  console.log(
    `node ${process.version}, ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? 'unknown'}); normal clients: ${connections} connections ` +
      `at ${rate} req/s from 127.0.0.1, ${duration} s per run (after a ${WARMUP_SECONDS} s warm-up)`,
  );
  console.log(
    `GET /api/v1/campaigns/{id}, Authorization: Bearer <key>; gateway defaults: HTTP_HEADERS_TIMEOUT 10 s, HTTP_REQUEST_TIMEOUT 30 s, ` +
      'HTTP_MAX_CONNECTIONS_PER_IP 64',
  );
  console.log('');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of body) console.log(line(row));
  console.log('');
  console.log(
    `attack (one byte a second per connection; slowloris from ${lorisAddresses} addresses, POSTs from one): ` +
      `${attack.opened.slowloris} slowloris connections opened, ${attack.timedOut.slowloris} cut by the headers timeout (408); ` +
      `${attack.opened.slowPosts} slow POSTs opened, ${attack.timedOut.slowPosts} cut by the request timeout (408); ` +
      `${attack.refused} refused by the cap; ${attack.other} other endings; the gateway held ${serverOpen} connections at the end of the run`,
  );
  const floor = Math.min(before.latency.p99, after.latency.p99);
  const ratio = under.latency.p99 / floor;
  console.log(
    `p99 with / without the attack (the lower of the two runs without): ${under.latency.p99} / ${floor} ms = ${ratio.toFixed(2)}× ` +
      `(target ≤ ${TARGET_RATIO}×: ${ratio <= TARGET_RATIO ? 'met' : 'missed'})`,
  );
}

async function main(): Promise<number> {
  const bound = setTimeout(() => {
    console.error(`\nBENCH FAILED: not finished within ${RUN_BOUND_MS / 1000} s`);
    process.exit(1);
  }, RUN_BOUND_MS);
  let product: Awaited<ReturnType<typeof startProduct>> | undefined;
  let attackers: ReturnType<typeof startAttackers> | undefined;
  try {
    product = await startProduct();
    const { h, key, route, server } = product;
    const url = `${h.baseUrl}${route}`;
    const check = await h.request('GET', route, { key });
    if (check.status !== 200) throw new BenchFailure(`GET ${route} answered ${check.status}`);

    process.stdout.write(`warm-up ${WARMUP_SECONDS} s … `);
    assertAllOk('warm-up', await load(url, key, WARMUP_SECONDS));
    process.stdout.write(`without attack ${duration} s … `);
    const before = await load(url, key, duration);
    assertAllOk('without attack', before);

    process.stdout.write('attackers connecting … ');
    const addresses = Array.from({ length: lorisAddresses + 1 }, (_, i) => `127.0.0.${i + 2}`);
    attackers = startAttackers({
      port: Number(new URL(h.baseUrl).port),
      key,
      campaignPath: route,
      slowloris,
      slowPosts,
      lorisAddresses: addresses.slice(0, lorisAddresses),
      postAddress: addresses[lorisAddresses],
      byteIntervalMs: BYTE_INTERVAL_MS,
      deadlineMs: Date.now() + RUN_BOUND_MS,
    });
    const settleBy = Date.now() + ATTACK_SETTLE_MS;
    while ((await attackers.stats()).open < slowloris + slowPosts && Date.now() < settleBy) await new Promise((r) => setTimeout(r, 200));
    const settled = await attackers.stats();
    if (settled.open < slowloris + slowPosts)
      throw new BenchFailure(`only ${settled.open} of ${slowloris + slowPosts} attackers connected within ${ATTACK_SETTLE_MS / 1000} s`);

    process.stdout.write(`with attack ${duration} s … `);
    const under = await load(url, key, duration);
    const serverOpen = await openConnections(server);
    const attack = await attackers.stop();
    attackers = undefined;
    assertAllOk('with attack', under);
    // The attackers' connections gone from the server too (the normal clients' are closed between runs).
    const goneBy = Date.now() + ATTACK_SETTLE_MS;
    while ((await openConnections(server)) > 0 && Date.now() < goneBy) await new Promise((r) => setTimeout(r, 200));
    process.stdout.write(`without attack again ${duration} s … `);
    const after = await load(url, key, duration);
    assertAllOk('without attack, after it', after);
    console.log('all 200');
    printResults(before, under, after, attack, serverOpen);
    return 0;
  } catch (err) {
    console.error(err instanceof BenchFailure ? `\nBENCH FAILED: ${err.message}` : err);
    return 1;
  } finally {
    attackers?.child.kill();
    await product?.h.stop().catch((err: Error) => console.error('harness stop failed:', err.message));
    clearTimeout(bound);
  }
}

void main().then((code) => process.exit(code));
