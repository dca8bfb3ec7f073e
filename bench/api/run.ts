/**
 * API read-path benchmark: GET /api/v1/campaigns/{id} through the whole product (moleculer-web gateway,
 * Redis rate limiting, key authentication over the broker, campaigns service, Sequelize, PostgreSQL)
 * against a bare node:http server that answers the same row from the same database with `pg` alone,
 * the practical floor. Both are driven by autocannon with identical settings. See README.md.
 *
 *   npx tsx bench/api/run.ts          (BENCH_CONNECTIONS=20, BENCH_DURATION=10 seconds by default)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import autocannon from 'autocannon';
import { presentCampaign, type CampaignRow, type VideoRow } from '../../lib/campaign/view';
import { startHarness, TEST_DATABASE_URL, type Harness } from '../../test/support/harness';
import { hashApiKey } from '../../lib/http/auth';
import { assertAllOk, BenchFailure, positiveInteger } from '../support';

const UNLIMITED = 10_000_000;
const WARMUP_SECONDS = 2;

const connections = positiveInteger('BENCH_CONNECTIONS', 20);
const duration = positiveInteger('BENCH_DURATION', 10);

/** The fixed arrival rate whose p99 the fast read path is held to, and the targets. */
const FIXED_RATE = positiveInteger('BENCH_RATE', 500);
const TARGET_P99_MS = 20;
const TARGET_SHARE_OF_FLOOR = 0.5;

/**
 * One autocannon run, at saturation or at `rate` requests per second. `workers: 1` puts autocannon's HTTP clients in a
 * worker thread of their own, so the load generator does not share an event loop with the server under test.
 */
function load(url: string, key: string, seconds: number, rate?: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    duration: seconds,
    workers: 1,
    headers: { authorization: `Bearer ${key}` },
    ...(rate ? { overallRate: rate } : {}),
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The floor: node:http + pg, no framework. Looks up the key hash in api_keys, then the campaign (of the
 * key's organization) and its videos, and answers the body campaigns.get answers, in the same key order.
 */
async function startBareServer(schema: string): Promise<{ url: string; pool: pg.Pool; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 10, options: `-c search_path=${schema}` });
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const match = /^\/api\/v1\/campaigns\/([^/?]+)$/.exec(req.url ?? '');
    if (req.method !== 'GET' || !match) return send(res, 404, { success: false, error: { code: 'not_found', message: 'Not found.' } });
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!bearer) return send(res, 401, { success: false, error: { code: 'unauthorized', message: 'Missing API key.' } });
    const keys = await pool.query<{ org_id: string; scopes: string }>(
      'SELECT org_id, scopes FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      [hashApiKey(bearer[1])],
    );
    const key = keys.rows[0];
    if (!key) return send(res, 401, { success: false, error: { code: 'unauthorized', message: 'Invalid or revoked API key.' } });
    if (!key.scopes.split(',').includes('campaigns:read'))
      return send(res, 403, { success: false, error: { code: 'forbidden', message: 'Scope.' } });
    const id = match[1];
    if (!UUID.test(id)) return send(res, 404, { success: false, error: { code: 'not_found', message: 'Not found.' } });
    const campaigns = await pool.query<CampaignRow>(
      'SELECT id, status, url, title, languages, platforms, progress, created_at, error_code, error_message FROM campaigns WHERE id = $1 AND org_id = $2',
      [id.toLowerCase(), key.org_id],
    );
    const campaign = campaigns.rows[0];
    if (!campaign) return send(res, 404, { success: false, error: { code: 'not_found', message: 'Not found.' } });
    const videos = await pool.query<VideoRow>(
      'SELECT id, platform, language, status, duration_seconds, published_at, script_source FROM videos WHERE campaign_id = $1',
      [campaign.id],
    );
    const body = presentCampaign(campaign, videos.rows);
    send(res, 200, body);
  };
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (res.headersSent) return res.end();
      send(res, 500, { success: false, error: { code: 'internal', message: err.message } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pool,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

interface Row {
  label: string;
  saturated: autocannon.Result;
  fixed: autocannon.Result;
}

async function measure(label: string, url: string, key: string): Promise<Row> {
  process.stdout.write(`${label}: warm-up ${WARMUP_SECONDS} s … `);
  assertAllOk(`${label} (warm-up)`, await load(url, key, WARMUP_SECONDS));
  process.stdout.write(`saturation ${duration} s … `);
  const saturated = await load(url, key, duration);
  assertAllOk(label, saturated);
  process.stdout.write(`${FIXED_RATE} req/s ${duration} s … `);
  const fixed = await load(url, key, duration, FIXED_RATE);
  assertAllOk(`${label} at ${FIXED_RATE} req/s`, fixed);
  console.log(`${saturated.requests.total + fixed.requests.total} requests, all 200`);
  return { label, saturated, fixed };
}

function printTable(rows: Row[], bare: Row, target: Row): void {
  const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const header = ['', 'req/s (saturated)', 'p50 ms', 'p99 ms', `p99 ms at ${FIXED_RATE} req/s`, `req/s achieved`];
  const body = rows.map(({ label, saturated, fixed }) => [
    label,
    fmt(saturated.requests.average, 1),
    fmt(saturated.latency.p50),
    fmt(saturated.latency.p99),
    fmt(fixed.latency.p99),
    fmt(fixed.requests.average, 1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('');
  console.log(
    `node ${process.version}, ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${connections} connections, ${duration} s per run (after a ${WARMUP_SECONDS} s warm-up)`,
  );
  console.log('GET /api/v1/campaigns/{id}, Authorization: Bearer <key>, PostgreSQL; autocannon clients in a worker thread');
  console.log('');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of body) console.log(line(row));
  console.log('');
  const share = target.saturated.requests.average / bare.saturated.requests.average;
  const p99 = target.fixed.latency.p99;
  console.log(
    `${target.label} / bare, req/s at saturation: ${share.toFixed(2)}× (target ≥ ${TARGET_SHARE_OF_FLOOR}×: ${share >= TARGET_SHARE_OF_FLOOR ? 'met' : 'missed'})`,
  );
  console.log(
    `${target.label}, p99 at ${FIXED_RATE} req/s: ${p99} ms (target ≤ ${TARGET_P99_MS} ms: ${p99 <= TARGET_P99_MS ? 'met' : 'missed'})`,
  );
}

/** The product's broker(s) with the limiter real but never refusing, an enterprise customer and one campaign. */
async function startProduct(oneNode: boolean): Promise<{ h: Harness; key: string; route: string }> {
  const h = await startHarness({
    oneNode,
    config: {
      logLevel: 'error',
      pipelinePaused: true,
      rateLimits: { ipUnauthenticated: UNLIMITED, ipAuthenticated: UNLIMITED, windowMs: 60_000 },
    },
  });
  if (!h.config.redisUrl) throw new Error('the harness did not configure Redis: the rate limiter would not be the real one');
  const customer = await h.newCustomer('enterprise');
  await h.call('accounts.setPlan', { org_id: customer.orgId, plan: 'enterprise', rate: UNLIMITED });
  const created = await h.request('POST', '/api/v1/campaigns', { key: customer.key, body: { url: h.pageUrl } });
  if (created.status !== 201) throw new Error(`POST /api/v1/campaigns answered ${created.status}: ${JSON.stringify(created.body)}`);
  return { h, key: customer.key, route: `/api/v1/campaigns/${(created.body as { campaign_id: string }).campaign_id}` };
}

async function main(): Promise<number> {
  let product: Awaited<ReturnType<typeof startProduct>> | undefined;
  let bare: Awaited<ReturnType<typeof startBareServer>> | undefined;
  try {
    // The default deployment: every service in one node (`npm start`), the gateway's calls local.
    product = await startProduct(true);
    const { h, key, route } = product;
    bare = await startBareServer(h.config.databaseSchema!);

    // Both must answer the same body, or the comparison is meaningless.
    const fromProduct = await h.request('GET', route, { key });
    const fromBare = await fetch(`${bare.url}${route}`, { headers: { authorization: `Bearer ${key}` } });
    const bareBody: unknown = await fromBare.json();
    if (fromProduct.status !== 200 || fromBare.status !== 200 || !isDeepStrictEqual(fromProduct.body, bareBody)) {
      console.error(
        'product and bare server disagree:\n',
        fromProduct.status,
        JSON.stringify(fromProduct.body),
        '\n',
        fromBare.status,
        JSON.stringify(bareBody),
      );
      return 1;
    }

    const oneNode = await measure('product, one node', `${h.baseUrl}${route}`, key);
    const floor = await measure('bare node:http + pg', `${bare.url}${route}`, key);
    await bare.close();
    bare = undefined;
    await h.stop();
    product = undefined;
    // For comparison: the gateway on a node of its own, its calls crossing a transporter (Fake: in-process, serialized).
    product = await startProduct(false);
    const split = await measure('product, api + worker nodes', `${product.h.baseUrl}${product.route}`, product.key);
    printTable([oneNode, split, floor], floor, oneNode);
    return 0;
  } catch (err) {
    console.error(err instanceof BenchFailure ? `\nBENCH FAILED: ${err.message}` : err);
    return 1;
  } finally {
    await bare?.close().catch((err: Error) => console.error('closing the bare server failed:', err.message));
    await product?.h.stop().catch((err: Error) => console.error('harness stop failed:', err.message));
  }
}

void main().then((code) => process.exit(code));
