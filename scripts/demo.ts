/**
 * The demo: starts the product on embedded defaults (SQLite in ./data, in-process rate limiter, one
 * process), serves a page locally, creates an organization, key and webhook secret with the admin tool,
 * creates a campaign for the page through the public API, follows it to `review`, checks the signed
 * webhook the way a customer would, downloads a video through its signed link, and prints what happened.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { contactSheet } from '../lib/render/contact-sheet';
import type { Storyboard } from '../lib/campaign/storyboard';
import { startFixtureSite } from '../test/fixtures/site/server';
import { startWebhookReceiver, verifyWebhook } from '../test/fixtures/webhook-receiver';

/** The fields of the public campaign body (GET /api/v1/campaigns/{id}) the demo reads. */
interface CampaignBody {
  campaign_id: string;
  status: string;
  progress: number;
  title: string;
  languages: string[];
  error?: unknown;
  /** captions_url, captions_srt_url and thumbnail_url are set whenever file_url is. */
  videos: Array<{
    id: string;
    language: string;
    platform: string;
    status: string;
    duration_seconds: number | null;
    script_source: string;
    file_url: string | null;
    captions_url: string;
    captions_srt_url: string;
    thumbnail_url: string;
  }>;
}

const root = path.resolve(__dirname, '..');
const run = promisify(execFile);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** The admin tool's JSON answer; `T` names the fields the caller reads. */
async function admin<T>(env: NodeJS.ProcessEnv, ...args: string[]): Promise<T> {
  const { stdout } = await run('npm', ['run', '-s', 'admin', '--', ...args], { cwd: root, env });
  return JSON.parse(stdout) as T;
}

/** The admin tool with `input` on its standard input (a password never goes on the command line). */
function adminWithInput(env: NodeJS.ProcessEnv, input: string, ...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', 'admin', '--', ...args], { cwd: root, env, stdio: ['pipe', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`admin ${args.join(' ')} exited with ${code}`))));
    child.stdin.end(`${input}\n`);
  });
}

/** One API call; `T` names the fields of the answer's body the caller reads. */
async function api<T = unknown>(base: string, method: string, route: string, key?: string, body?: unknown) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

async function main(): Promise<void> {
  const started = Date.now();
  const site = await startFixtureSite();
  // DEMO_PATH=/ledger/ makes the demo's campaign of another fixture page (test/fixtures/real-web: /ledger/, /quarry/, /md/, /tiny/, /dark/).
  const pageUrl = site.url(process.env.DEMO_PATH ?? '/');
  console.log(`▶ serving the fixture site (a product page with en/ja/ko versions) at ${site.origin}`);

  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };
  const base = `http://127.0.0.1:${port}`;
  console.log(`▶ starting the product on embedded defaults (data in ${path.resolve(root, env.DATA_DIR ?? 'data')}), port ${port}`);
  const server = spawn(
    process.execPath,
    [
      path.join(root, 'node_modules/tsx/dist/cli.mjs'),
      'scripts/runner.ts',
      '--config',
      'moleculer.config.ts',
      '--mask',
      '**/*.service.ts',
      'services',
    ],
    { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const stop = () => {
    server.kill('SIGTERM');
    void site.close();
  };
  process.on('SIGINT', () => {
    stop();
    process.exit(130);
  });

  try {
    for (let i = 0; ; i += 1) {
      try {
        if ((await fetch(`${base}/readyz`)).ok) break;
      } catch {
        /* not listening yet */
      }
      if (i > 300 || server.exitCode !== null) throw new Error('the product did not start; see its log above');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    console.log(`✔ product ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const { org_id: orgId } = await admin<{ org_id: string }>(env, 'org', 'create', '--name', 'Demo Co', '--plan', 'business');
    const owner = (await admin<{ user_id: string }>(env, 'user', 'add', '--org', orgId, '--email', 'owner@demo.example', '--role', 'owner'))
      .user_id;
    const password = randomBytes(12).toString('base64url');
    await adminWithInput(env, password, 'user', 'password', '--email', 'owner@demo.example', '--org', orgId, '--password-stdin');
    const { key, key_id: keyId } = await admin<{ key: string; key_id: string }>(
      env,
      'key',
      'create',
      '--org',
      orgId,
      '--by',
      'owner@demo.example',
      '--name',
      'demo',
    );
    const { secret } = await admin<{ secret: string }>(env, 'webhook-secret', '--org', orgId);
    console.log(
      `✔ admin tool: organization ${orgId} (business), owner ${owner}, key ${keyId} (${key.slice(0, 12)}…), webhook secret ${secret.slice(0, 10)}…`,
    );
    const receiver = await startWebhookReceiver();
    console.log(`▶ a webhook receiver (the customer's server) at ${receiver.url}`);

    const refused = await api(base, 'POST', '/api/v1/campaigns', undefined, { url: pageUrl });
    console.log(`✔ without a key: ${refused.status} ${JSON.stringify(refused.body)}`);

    const submittedAt = Date.now();
    const created = await api<CampaignBody>(base, 'POST', '/api/v1/campaigns', key, {
      url: pageUrl,
      // es: SVOX Pico says its phrases (the fixture page has no Spanish: its narration is the English page's, said by
      // RHVoice's clb, with a warning); en RHVoice, ja Open JTalk, ko espeak-ng. es adds ~10 s to the demo.
      languages: (process.env.DEMO_LANGUAGES ?? 'en,ja,ko,es').split(','),
      // DEMO_PLATFORMS=tiktok,youtube,linkedin shows every frame shape (each platform adds a render per language).
      platforms: (process.env.DEMO_PLATFORMS ?? 'tiktok').split(','),
      webhook_url: receiver.url,
      // DEMO_CAPTIONS=words burns the word being said; DEMO_MUSIC=1 lays the fixture site's track under the voice.
      ...(process.env.DEMO_CAPTIONS ? { captions: process.env.DEMO_CAPTIONS } : {}),
      ...(process.env.DEMO_MUSIC === '1' ? { music: { url: site.url('/music.mp3') } } : {}),
    });
    console.log(`✔ POST /api/v1/campaigns → ${created.status}, Location ${created.headers.get('location')}`);
    console.log(`  ${JSON.stringify(created.body)}`);
    if (created.status !== 201) throw new Error('campaign creation failed');

    const refusedPage = await api(base, 'POST', '/api/v1/campaigns', key, { url: site.url('/login-wall') });
    console.log(`✔ a sign-in wall: ${refusedPage.status} ${JSON.stringify(refusedPage.body)}`);

    const url = `/api/v1/campaigns/${created.body.campaign_id}`;
    let read = await api<CampaignBody>(base, 'GET', url, key);
    // Capture, processing, scripting, voiceover and rendering run in the background.
    let lastStatus = '';
    for (let i = 0; i < 1800 && !['review', 'failed'].includes(read.body.status); i += 1) {
      if (read.body.status !== lastStatus) {
        lastStatus = read.body.status;
        console.log(`  … ${lastStatus} (${read.body.progress}%) at ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      read = await api<CampaignBody>(base, 'GET', url, key);
    }
    const reviewAt = Date.now();
    console.log(`✔ GET ${url} → ${read.status}`);
    console.log(
      `  status ${read.body.status}, progress ${read.body.progress}%, title "${read.body.title}", languages ${read.body.languages.join(',')}`,
    );
    if (read.body.error) console.log(`  error ${JSON.stringify(read.body.error)}`);
    for (const video of read.body.videos) {
      console.log(
        `  video ${video.id}: ${video.language}/${video.platform} ${video.status}, ${video.duration_seconds ?? '-'} s, ${video.script_source}`,
      );
      if (!video.file_url) continue;
      // resolve, not join: DATA_DIR may be absolute.
      const file = path.resolve(
        root,
        process.env.DATA_DIR ?? 'data',
        'files',
        'campaigns',
        created.body.campaign_id,
        'videos',
        `${video.id}.mp4`,
      );
      const download = await fetch(video.file_url.replace(/^https?:\/\/[^/]+/, base), { headers: { Range: 'bytes=0-1023' } });
      console.log(`    file ${file}`);
      console.log(`    file_url → ${download.status} ${download.headers.get('content-type')} ${download.headers.get('content-range')}`);
      console.log(`    captions_url ${video.captions_url.slice(0, 80)}…`);
      for (const [name, link] of [
        ['captions_srt_url', video.captions_srt_url],
        ['thumbnail_url', video.thumbnail_url],
      ]) {
        const answer = await fetch(link.replace(/^https?:\/\/[^/]+/, base), { method: 'HEAD' });
        console.log(`    ${name} → ${answer.status} ${answer.headers.get('content-type')} ${answer.headers.get('content-length')} bytes`);
      }
      console.log(`    poster ${file.replace(/\.mp4$/, '.jpg')}`);
    }
    const captureDir = path.resolve(root, process.env.DATA_DIR ?? 'data', 'files', 'campaigns', created.body.campaign_id, 'capture');
    if (fs.existsSync(captureDir)) {
      const shots = fs.readdirSync(captureDir).sort();
      console.log(`  ${shots.length} screenshots in ${captureDir}:`);
      console.log(`    ${shots.join(' ')}`);
    }
    const db = path.resolve(root, process.env.DATA_DIR ?? 'data', 'campaigns.sqlite');
    const videoDir = path.resolve(root, process.env.DATA_DIR ?? 'data', 'files', 'campaigns', created.body.campaign_id, 'videos');
    const sheetDir = path.resolve(root, process.env.DATA_DIR ?? 'data', 'contact-sheets', created.body.campaign_id);
    const { stdout: boards } = await run('sqlite3', [
      '-json',
      db,
      `SELECT document FROM storyboards WHERE campaign_id = '${created.body.campaign_id}'`,
    ]).catch(() => ({ stdout: '[]' }));
    for (const { document } of JSON.parse(boards || '[]') as Array<{ document: string }>) {
      const board = JSON.parse(document) as Storyboard;
      console.log(
        `  storyboard ${board.language}/${board.platform} (${board.scriptSource}), ${board.totalSeconds.toFixed(1)} s, font ${board.font}:`,
      );
      for (const scene of board.scenes) {
        const said = scene.narration
          .map((n: { text: string; language: string }) => `${n.text}${n.language !== board.language ? ` [${n.language}]` : ''}`)
          .join(' ');
        console.log(`    ${scene.startSeconds.toFixed(1).padStart(5)} s  ${scene.kind.padEnd(7)} ${said}`);
      }
      // A contact sheet per video: one frame per scene, to see the campaign at a glance.
      const video = path.join(videoDir, `${board.videoId}.mp4`);
      if (fs.existsSync(video)) {
        const { sheet } = await contactSheet(video, board, path.join(sheetDir, `${board.language}-${board.platform}.jpg`), 480);
        console.log(`    contact sheet ${sheet}`);
      }
    }
    if (read.body.status !== 'review') throw new Error(`the campaign ended in ${read.body.status}`);
    for (let i = 0; i < 100 && receiver.received.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    const [webhook] = receiver.received;
    if (!webhook) throw new Error('no webhook arrived');
    const event = JSON.parse(webhook.body) as { event: string; status: string; videos: unknown[] };
    const verified = verifyWebhook(webhook, secret);
    console.log(
      `✔ webhook ${event.event} (${String(webhook.headers['x-service-event-id'])}), status ${event.status}, ${event.videos.length} videos: signature ${verified ? 'verified' : 'WRONG'}`,
    );
    if (!verified) throw new Error('the webhook signature did not verify');
    await demoEdit({ base, url, key, receiver, secret, db, sheetDir });
    const published = await api<{ status: string }>(base, 'POST', `${url}/publish`, key);
    console.log(`✔ POST ${url}/publish → ${published.status}, status ${published.body.status}`);
    await receiver.close();
    console.log(`✔ dashboard: ${base}/dashboard — sign in as owner@demo.example with password ${password}`);
    console.log(
      `✔ demo finished in ${((Date.now() - started) / 1000).toFixed(1)} s (campaign submit → review: ${((reviewAt - submittedAt) / 1000).toFixed(1)} s)`,
    );
    // A person at a terminal gets the dashboard to open; a script (or DEMO_KEEP_RUNNING=0) gets the demo's end.
    const keep = process.env.DEMO_KEEP_RUNNING ? process.env.DEMO_KEEP_RUNNING === '1' : !!(process.stdin.isTTY && process.stdout.isTTY);
    if (keep) {
      console.log('  the product keeps running: open the dashboard above and sign in with the credentials printed; Ctrl-C stops it');
      await new Promise((resolve) => process.once('SIGINT', resolve));
    } else {
      console.log('  (DEMO_KEEP_RUNNING=1 keeps the product and its dashboard running afterwards; at a terminal it is the default)');
    }
  } finally {
    stop();
  }
}

main().catch((err) => {
  console.error(`✖ demo failed: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});

interface DocumentScene {
  id: string;
  kind: string;
  narration: string;
  headline: string;
  start_seconds: number;
}

/**
 * An edit, as a customer makes one (decisions §12): the first video's document read, its first screen scene's
 * narration and headline changed, PUT; the re-render followed to `video.updated`, and the revision's contact sheet.
 */
async function demoEdit(demo: {
  base: string;
  url: string;
  key: string;
  receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  secret: string;
  db: string;
  sheetDir: string;
}): Promise<void> {
  const { base, url, key, receiver, secret } = demo;
  const campaign = await api<{ videos: Array<{ id: string }> }>(base, 'GET', url, key);
  const videoId = campaign.body.videos[0].id;
  const path_ = `${url}/videos/${videoId}/document`;
  const read = await api<{ document: { revision: number; scenes: DocumentScene[] } }>(base, 'GET', path_, key);
  const document = read.body.document;
  const scene = document.scenes.find((s) => s.kind === 'screen');
  if (!scene) return;
  scene.narration = `${scene.narration.split(/(?<=[.!?。])\s*/)[0]} This line was changed by an edit.`;
  scene.headline = 'Edited headline';
  const events = receiver.received.length;
  const editedAt = Date.now();
  const edited = await api<{ video: { status: string; revision: number; file_revision: number } }>(base, 'PUT', path_, key, document);
  console.log(
    `✔ PUT ${path_} → ${edited.status}, video ${edited.body.video.status} at revision ${edited.body.video.revision} (revision ${edited.body.video.file_revision} served meanwhile)`,
  );
  for (let i = 0; i < 1200 && receiver.received.length === events; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  const delivery = receiver.received[events];
  if (!delivery) throw new Error('no video.updated webhook arrived');
  if (!verifyWebhook(delivery, secret)) throw new Error('the video.updated signature did not verify');
  const updated = JSON.parse(delivery.body) as { event: string; revision: number; video: { status: string; error: unknown } };
  console.log(
    `✔ webhook ${updated.event} ${((delivery.receivedAt - editedAt) / 1000).toFixed(1)} s after the PUT: revision ${updated.revision}, video ${updated.video.status}${updated.video.error ? ` ${JSON.stringify(updated.video.error)}` : ''}, signature verified`,
  );
  const { stdout } = await run('sqlite3', [
    '-json',
    demo.db,
    `SELECT document FROM storyboard_revisions WHERE video_id = '${videoId}' AND revision = ${updated.revision}`,
  ]).catch(() => ({ stdout: '[]' }));
  const [row] = JSON.parse(stdout || '[]') as Array<{ document: string }>;
  if (!row) return;
  const board = JSON.parse(row.document) as Storyboard;
  const file = path.resolve(path.dirname(demo.db), 'files', 'campaigns', board.campaignId, 'videos', `${videoId}-r${updated.revision}.mp4`);
  for (const s of board.scenes)
    console.log(
      `    ${s.startSeconds.toFixed(1).padStart(5)} s  ${s.kind.padEnd(7)} ${s.onScreenText} — ${s.narration.map((n) => n.text).join(' ')}`,
    );
  if (fs.existsSync(file)) {
    const { sheet } = await contactSheet(
      file,
      board,
      path.join(demo.sheetDir, `${board.language}-${board.platform}-r${updated.revision}.jpg`),
      480,
    );
    console.log(`    contact sheet ${sheet}`);
  }
}
