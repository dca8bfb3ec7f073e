/**
 * bench/fairness: does one organization's batch hold another's campaign behind it (decisions §14)? The product runs
 * embedded (SQLite, one process, as scripts/demo.ts starts it) with two organizations, on the fixture site served
 * locally (distinct URLs), draft quality, one language, one platform:
 *   1. B submits one campaign on an idle product: its time to review;
 *   2. A submits a batch (POST /api/v1/batches) alone: the batch's time until every campaign settled;
 *   3. A submits the batch again, and B one campaign right after: B's time, and A's batch time.
 * Memory: the product's whole process tree (Chromium, ffmpeg, editly children included), PSS summed from
 * /proc/<pid>/smaps_rollup every second: idle before, the peak during the batches, and SETTLE_SECONDS after the
 * queue drained. Each figure is printed beside its target.
 *
 *   npm run bench:fairness                        BATCH_SIZE=60 QUALITY=draft SETTLE_SECONDS=120 TIMEOUT_MINUTES=120
 *   BATCH_SIZE=12 npm run bench:fairness          a quick look
 * See README.md beside this file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFixtureSite, type FixtureSite } from '../../test/fixtures/site/server';
import { Product } from '../product';
import { BenchFailure, positiveInteger } from '../support';

const BATCH_SIZE = positiveInteger('BATCH_SIZE', 60);
const QUALITY = process.env.QUALITY ?? 'draft';
const SETTLE_SECONDS = positiveInteger('SETTLE_SECONDS', 120);
const TIMEOUT_MS = positiveInteger('TIMEOUT_MINUTES', 120) * 60_000;
const POLL_MS = 1000;
const CREATE = { languages: ['en'], platforms: ['tiktok'] };
const SETTLED = ['review', 'published', 'failed'];
const MiB = 2 ** 20;
const TARGETS = { ratio: 2, peakMiB: 1536, settledMiB: 800 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The PSS of a process and all its descendants, from /proc (a process that ends meanwhile counts as 0). */
export function treePssBytes(rootPid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      /* gone */
    }
  }
  let total = 0;
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop()!;
    try {
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kb = /^Pss:\s+(\d+) kB/m.exec(rollup);
      if (kb) total += Number(kb[1]) * 1024;
    } catch {
      /* gone, or a kernel thread */
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Samples, every second, the tree's PSS and the machine's load average (1 min): a busy machine's run says so. */
class MemorySampler {
  readonly samples: Array<{ at: number; bytes: number; load: number }> = [];
  private timer?: NodeJS.Timeout;

  constructor(private readonly pid: number) {}

  start(): void {
    const take = () => this.samples.push({ at: Date.now(), bytes: treePssBytes(this.pid), load: os.loadavg()[0] });
    take();
    this.timer = setInterval(take, 1000);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  peak(from: number, to: number): number {
    return Math.max(0, ...this.samples.filter((s) => s.at >= from && s.at <= to).map((s) => s.bytes));
  }

  /** The load average's mean and highest between `from` and `to`. */
  load(from: number, to: number): { mean: number; max: number } {
    const loads = this.samples.filter((s) => s.at >= from && s.at <= to).map((s) => s.load);
    return { mean: loads.reduce((sum, l) => sum + l, 0) / Math.max(1, loads.length), max: Math.max(0, ...loads) };
  }

  latest(): number {
    return this.samples.at(-1)?.bytes ?? 0;
  }
}

interface Org {
  name: string;
  key: string;
}

async function makeOrg(product: Product, name: string): Promise<Org> {
  const { org_id: orgId } = await product.admin<{ org_id: string }>('org', 'create', '--name', name, '--plan', 'business');
  const email = `bench-${name.toLowerCase().replace(/\W+/g, '-')}@fairness.example`;
  await product.admin('user', 'add', '--org', orgId, '--email', email, '--role', 'owner');
  await product.admin('plan', 'set', '--org', orgId, '--plan', 'business', '--campaigns', '100000');
  const { key } = await product.admin<{ key: string }>('key', 'create', '--org', orgId, '--by', email);
  return { name, key };
}

/** One campaign from POST to review: seconds. */
async function oneCampaign(product: Product, org: Org, url: string): Promise<number> {
  const started = Date.now();
  const created = await product.api<{ campaign_id?: string }>('POST', '/api/v1/campaigns', org.key, { url, ...CREATE });
  if (created.status !== 201 || !created.body.campaign_id)
    throw new BenchFailure(`${org.name}'s campaign not created: ${created.status} ${JSON.stringify(created.body)}`);
  for (;;) {
    const read = await product.api<{ status: string; error?: unknown }>('GET', `/api/v1/campaigns/${created.body.campaign_id}`, org.key);
    if (read.body.status === 'review' || read.body.status === 'published') return (Date.now() - started) / 1000;
    if (read.body.status === 'failed') throw new BenchFailure(`${org.name}'s campaign failed: ${JSON.stringify(read.body.error)}`);
    if (Date.now() - started > TIMEOUT_MS) throw new BenchFailure(`${org.name}'s campaign did not finish in time`);
    await sleep(POLL_MS);
  }
}

/** A batch from POST until every campaign settled: seconds, and how many failed. */
async function oneBatch(product: Product, org: Org, site: FixtureSite, tag: string): Promise<{ seconds: number; failed: number }> {
  const started = Date.now();
  const items = Array.from({ length: BATCH_SIZE }, (_, i) => ({ url: site.url(`/?fair=${tag}-${i}`) }));
  const created = await product.api<{ batch_id?: string }>('POST', '/api/v1/batches', org.key, { items, defaults: CREATE });
  if (created.status !== 201 || !created.body.batch_id)
    throw new BenchFailure(`${org.name}'s batch not created: ${created.status} ${JSON.stringify(created.body)}`);
  for (;;) {
    const read = await product.api<{ counts: Record<string, number> }>('GET', `/api/v1/batches/${created.body.batch_id}`, org.key);
    const settled = SETTLED.reduce((sum, state) => sum + (read.body.counts?.[state] ?? 0), 0);
    if (settled === BATCH_SIZE) return { seconds: (Date.now() - started) / 1000, failed: read.body.counts.failed ?? 0 };
    if (Date.now() - started > TIMEOUT_MS)
      throw new BenchFailure(`${org.name}'s batch did not finish in time: ${JSON.stringify(read.body.counts)}`);
    await sleep(POLL_MS * 2);
  }
}

const mib = (bytes: number) => `${Math.round(bytes / MiB)} MiB`;
const secs = (s: number) => `${s.toFixed(1)} s`;

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-fairness-'));
  const logFile = path.join(dataDir, 'product.log');
  const site = await startFixtureSite();
  const product = new Product(dataDir, logFile, {
    RENDER_QUALITY: QUALITY,
    // The campaign actor says, at info, how long a campaign waited for each turn: kept in the log for reading.
    LOG_LEVEL: process.env.PRODUCT_LOG_LEVEL ?? 'info',
    // The bench polls; the per-address API limit is not what it measures.
    RATE_LIMIT_IP_AUTHENTICATED: '1000000',
  });
  let sampler: MemorySampler | undefined;
  try {
    console.log(`fairness: batch of ${BATCH_SIZE}, ${QUALITY} quality, product log ${logFile}`);
    await product.start();
    const [a, b] = [await makeOrg(product, 'Org A'), await makeOrg(product, 'Org B')];
    sampler = new MemorySampler(product.pid!);
    sampler.start();
    await sleep(10_000);
    const idle = sampler.latest();

    console.log('phase 1: B alone');
    const bAlone = await oneCampaign(product, b, site.url('/?fair=b-alone'));
    console.log(`  B alone: ${secs(bAlone)}`);

    console.log(`phase 2: A's batch of ${BATCH_SIZE} alone`);
    const batch2Start = Date.now();
    const aAlone = await oneBatch(product, a, site, 'a-alone');
    const batch2End = Date.now();
    console.log(`  A alone: ${secs(aAlone.seconds)} (${aAlone.failed} failed)`);

    console.log(`phase 3: A's batch of ${BATCH_SIZE}, then B's one campaign right after`);
    const batch3Start = Date.now();
    const aRun = oneBatch(product, a, site, 'a-with-b');
    await sleep(1000);
    const bRun = oneCampaign(product, b, site.url('/?fair=b-under-a'));
    const [aWithB, bUnderA] = await Promise.all([aRun, bRun]);
    const drained = Date.now();
    console.log(`  B under A: ${secs(bUnderA)}; A with B: ${secs(aWithB.seconds)} (${aWithB.failed} failed)`);
    const peak = Math.max(sampler.peak(batch2Start, batch2End), sampler.peak(batch3Start, drained));
    const loads = [sampler.load(batch2Start, batch2End), sampler.load(batch3Start, drained)];

    console.log(`waiting ${SETTLE_SECONDS} s after the queue drained`);
    await sleep(SETTLE_SECONDS * 1000);
    const settled = sampler.latest();

    const ratio = bUnderA / bAlone;
    const change = (aWithB.seconds - aAlone.seconds) / aAlone.seconds;
    console.log('');
    console.log(`| figure (batch of ${BATCH_SIZE}, ${QUALITY}) | measured | target |`);
    console.log('|---|---|---|');
    console.log(`| B alone, to review | ${secs(bAlone)} | |`);
    console.log(`| B under A's batch, to review | ${secs(bUnderA)} | |`);
    console.log(`| ratio B under A / B alone | ${ratio.toFixed(2)}× | ≤ ${TARGETS.ratio}× ${ratio <= TARGETS.ratio ? 'met' : 'MISSED'} |`);
    console.log(`| A's batch alone | ${secs(aAlone.seconds)} | |`);
    console.log(
      `| A's batch with B's campaign | ${secs(aWithB.seconds)} (${change >= 0 ? '+' : ''}${(change * 100).toFixed(0)} %) | no longer, ± noise |`,
    );
    const load = ({ mean, max }: { mean: number; max: number }) => `mean ${mean.toFixed(1)}, max ${max.toFixed(1)}`;
    console.log(`| load average (1 min), A alone / A with B | ${load(loads[0])} / ${load(loads[1])} | |`);
    console.log(`| PSS idle, before | ${mib(idle)} | |`);
    console.log(
      `| PSS peak during the batches | ${mib(peak)} | ≤ ${TARGETS.peakMiB} MiB ${peak <= TARGETS.peakMiB * MiB ? 'met' : 'MISSED'} |`,
    );
    console.log(
      `| PSS ${SETTLE_SECONDS} s after the queue drained | ${mib(settled)} | ≤ ${TARGETS.settledMiB} MiB ${settled <= TARGETS.settledMiB * MiB ? 'met' : 'MISSED'} |`,
    );
  } finally {
    sampler?.stop();
    await product.stop();
    await site.close();
  }
}

main().catch((err: Error) => {
  console.error(err instanceof BenchFailure ? `BENCH FAILED: ${err.message}` : err);
  process.exit(1);
});
