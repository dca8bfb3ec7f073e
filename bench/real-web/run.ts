/**
 * bench/real-web: the product's videos on real public web sites that nobody on our team wrote, to see what a
 * customer would see. Each site of the evaluation set (built static sites kept OUTSIDE the repository, listed in
 * its sites.json) is served on loopback by a static server of its own; the product runs on embedded defaults
 * (SQLite, one process, loopback allowed: the demo's setting) and gets one campaign per site through the public
 * API. Each campaign's GET body is written as JSON, and each video's MP4, poster, captions, storyboard and
 * document are copied beside it for looking at. The closing table counts, per site, the videos and (once videos
 * carry `quality`, decisions §13) how many passed, the flags by code and the repairs by action.
 *
 *   npm run bench:real-web -- [--label baseline] [--quality draft|full] [--sites a,b] [--concurrency 1] [--variants 1|2|3]
 *                             [--set /path/to/evalset] [--timeout-minutes 30]
 * See README.md beside this file.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Product } from '../product';
import { startStaticSite } from './static-site';
import { outcomeOf, summary, type CampaignBody, type SiteEntry, type SiteOutcome } from './summary';

const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);
const POLL_MS = 2_000;
const END_STATES = ['review', 'failed', 'cancelled', 'published'];

interface Options {
  set: string;
  label: string;
  quality: 'full' | 'draft';
  sites?: string[];
  concurrency: number;
  timeoutMinutes: number;
  /** Hook variants per language × platform (1–3; the bench's organization is on the business plan). */
  variants: number;
}

class UsageError extends Error {}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    set: process.env.REAL_WEB_SET ?? path.resolve(ROOT, '..', 'evalset'),
    label: `run-${new Date().toISOString().replace(/[:.]/g, '-')}`,
    quality: 'full',
    concurrency: 1,
    timeoutMinutes: 30,
    variants: 1,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    i += 1;
    switch (flag) {
      case '--set':
        options.set = path.resolve(value);
        break;
      case '--label':
        if (!/^[\w.-]+$/.test(value)) throw new UsageError('--label: letters, digits, ".", "_" and "-" only');
        options.label = value;
        break;
      case '--quality':
        if (value !== 'full' && value !== 'draft') throw new UsageError('--quality is full or draft');
        options.quality = value;
        break;
      case '--sites':
        options.sites = value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      case '--variants':
        if (!['1', '2', '3'].includes(value)) throw new UsageError('--variants is 1, 2 or 3');
        options.variants = Number(value);
        break;
      case '--concurrency':
      case '--timeout-minutes': {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer`);
        if (flag === '--concurrency') options.concurrency = n;
        else options.timeoutMinutes = n;
        break;
      }
      default:
        throw new UsageError(`unknown option ${flag}`);
    }
  }
  return options;
}

function readSet(options: Options): SiteEntry[] {
  const file = path.join(options.set, 'sites.json');
  const all = JSON.parse(fs.readFileSync(file, 'utf8')) as SiteEntry[];
  if (!options.sites) return all;
  const unknown = options.sites.filter((name) => !all.some((s) => s.name === name));
  if (unknown.length) throw new UsageError(`not in ${file}: ${unknown.join(', ')}`);
  return all.filter((s) => options.sites?.includes(s.name));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each video's storyboard (captions, narration, scenes) as the voice stage stored it, by video id. */
async function storyboards(dataDir: string, campaignId: string): Promise<Map<string, unknown>> {
  const boards = new Map<string, unknown>();
  if (!/^[\w-]+$/.test(campaignId)) return boards;
  const db = path.join(dataDir, 'campaigns.sqlite');
  const { stdout } = await run('sqlite3', ['-json', db, `SELECT document FROM storyboards WHERE campaign_id = '${campaignId}'`]).catch(
    () => ({ stdout: '[]' }),
  );
  for (const { document } of JSON.parse(stdout || '[]') as Array<{ document: string }>) {
    const board = JSON.parse(document) as { videoId: string };
    boards.set(board.videoId, board);
  }
  return boards;
}

/** Copies what a person needs to judge each video: the MP4, its poster, the captions, the storyboard and the document. */
async function keepVideos(product: Product, key: string, body: CampaignBody, folder: string): Promise<void> {
  fs.mkdirSync(folder, { recursive: true });
  const boards = await storyboards(product.dataDir, body.campaign_id);
  for (const video of body.videos) {
    // A hook variant other than a carries its letter (en-tiktok-b), so that variants do not overwrite each other.
    const variant = video.variant && video.variant !== 'a' ? `-${video.variant}` : '';
    const stem = path.join(folder, `${video.language}-${video.platform}${variant}`);
    const board = boards.get(video.id);
    if (board) fs.writeFileSync(`${stem}.storyboard.json`, `${JSON.stringify(board, null, 2)}\n`);
    const document = await product.api<unknown>('GET', `/api/v1/campaigns/${body.campaign_id}/videos/${video.id}/document`, key);
    if (document.status === 200) fs.writeFileSync(`${stem}.document.json`, `${JSON.stringify(document.body, null, 2)}\n`);
    const links: Array<[string | null | undefined, string]> = [
      [video.file_url, '.mp4'],
      [video.thumbnail_url, '.jpg'],
      [video.captions_url, '.vtt'],
      [video.captions_srt_url, '.srt'],
    ];
    for (const [link, ext] of links) if (link) await product.download(link, `${stem}${ext}`).catch(() => false);
  }
}

async function runSite(entry: SiteEntry, options: Options, product: Product, key: string, out: string): Promise<SiteOutcome> {
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const record = (outcome: SiteOutcome, extra: Record<string, unknown>) => {
    fs.writeFileSync(path.join(out, `${entry.name}.json`), `${JSON.stringify({ site: entry, outcome, ...extra }, null, 2)}\n`);
    return outcome;
  };
  const folder = path.join(options.set, 'sites', entry.name);
  let site: Awaited<ReturnType<typeof startStaticSite>> | undefined;
  try {
    if (!product.alive) await product.start();
    site = await startStaticSite(folder);
    const url = site.url(entry.path);
    const request = {
      url,
      languages: entry.languages,
      platforms: entry.platforms,
      quality: options.quality,
      title: entry.name,
      ...(options.variants > 1 ? { variants: options.variants } : {}),
    };
    const created = await product.api<{ campaign_id?: string; error?: unknown }>('POST', '/api/v1/campaigns', key, request);
    if (created.status !== 201 || !created.body.campaign_id) {
      const error = `create answered ${created.status}: ${JSON.stringify(created.body)}`;
      return record(outcomeOf(entry, 'refused', seconds(), undefined, error), { request, create: created });
    }
    const route = `/api/v1/campaigns/${created.body.campaign_id}`;
    const deadline = started + options.timeoutMinutes * 60_000;
    let read = await product.api<CampaignBody>('GET', route, key);
    let last = '';
    while (!END_STATES.includes(read.body.status) && Date.now() < deadline) {
      if (read.body.status !== last) {
        last = read.body.status;
        console.log(`  ${entry.name}: ${last} (${read.body.progress ?? '-'}%) at ${seconds()} s`);
      }
      await sleep(POLL_MS);
      if (!product.alive) throw new Error('the product exited while the campaign ran');
      read = await product.api<CampaignBody>('GET', route, key);
    }
    const body = read.body;
    const status = END_STATES.includes(body.status) ? body.status : `timeout in ${body.status}`;
    const error = body.error ? `${body.error.code}: ${body.error.message}` : undefined;
    await keepVideos(product, key, body, path.join(out, entry.name)).catch((err: Error) =>
      console.log(`  ${entry.name}: could not copy every video file (${err.message})`),
    );
    return record(outcomeOf(entry, status, seconds(), body, error), { request, campaign: body });
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return record(outcomeOf(entry, 'error', seconds(), undefined, error), {});
  } finally {
    await site?.close();
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const entries = readSet(options);
  const out = path.join(options.set, 'results', options.label);
  fs.mkdirSync(out, { recursive: true });
  // A fresh product database per run, outside the repository, kept afterwards for looking into.
  const dataDir = path.join(options.set, 'data', options.label);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  const product = new Product(dataDir, path.join(out, 'product.log'));
  const stop = () => product.stop();
  process.once('SIGINT', () => void stop().finally(() => process.exit(130)));

  const started = Date.now();
  console.log(`▶ ${entries.length} sites, quality ${options.quality}, concurrency ${options.concurrency}; results in ${out}`);
  try {
    await product.start();
    console.log(`✔ product ready at ${product.base} (data in ${dataDir})`);
    const { org_id: orgId } = await product.admin<{ org_id: string }>('org', 'create', '--name', 'Real web bench', '--plan', 'business');
    await product.admin('user', 'add', '--org', orgId, '--email', 'bench@real-web.example', '--role', 'owner');
    // The business plan's monthly campaigns, raised so that any number of runs fits.
    await product.admin('plan', 'set', '--org', orgId, '--plan', 'business', '--campaigns', '10000');
    const { key } = await product.admin<{ key: string }>('key', 'create', '--org', orgId, '--by', 'bench@real-web.example');

    const outcomes: SiteOutcome[] = new Array<SiteOutcome>(entries.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < entries.length; i = next++) {
        const entry = entries[i];
        console.log(`▶ ${entry.name} (${entry.kind}) ${entry.path} ${entry.languages.join(',')} × ${entry.platforms.join(',')}`);
        outcomes[i] = await runSite(entry, options, product, key, out);
        const o = outcomes[i];
        console.log(`✔ ${entry.name}: ${o.status} in ${o.seconds} s, ${o.ready}/${o.videos} videos ready${o.error ? ` — ${o.error}` : ''}`);
        writeSummary(); // after every site, so that a run stopped half-way still has its table
      }
    };
    const writeSummary = () => {
      const done = outcomes.filter(Boolean);
      fs.writeFileSync(path.join(out, 'summary.json'), `${JSON.stringify({ options, outcomes: done }, null, 2)}\n`);
      fs.writeFileSync(path.join(out, 'summary.txt'), `${summary(done)}\n`);
      return summary(done);
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, entries.length) }, worker));
    const text = writeSummary();
    console.log(`\n${text}\n\n${entries.length} sites in ${((Date.now() - started) / 60_000).toFixed(1)} min`);
  } finally {
    await stop();
  }
}

main().catch((err) => {
  console.error(`✖ real-web bench: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
