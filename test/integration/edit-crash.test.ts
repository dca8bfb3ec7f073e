/**
 * Crash safety of a video edit (decisions §12): an edit accepted and then interrupted by its actor's
 * SIGKILL completes after restart, once, and the customer hears of it once. Each node is a process of its own, started
 * as an operator starts one (SERVICES=… npm start): orchestrators (every service but the renderer) and two render nodes,
 * over real Redis and PostgreSQL, with the real voices and editly. The lease is short (CAMPAIGN_LEASE 4 s, a sweep every
 * second) so the take-over comes quickly.
 *
 * 1. The actor killed while voice.respeak speaks the edit (its work directory open, nothing stored): two other nodes
 *    join, one takes the edit over once its lease ran out, speaks it again and renders it once; the video is ready at
 *    revision 2 with one `video.updated` (one receipt of its event id, one outbox row, one delivery).
 * 2. The actor killed while a render node renders the edit: restarted under its own node id beside the other node, the
 *    edit is taken over, the dead node's open attempt closed as `lost`, and the video rendered once more on a render
 *    node: one ready attempt (counted after the abandoned render ended too), revision 3, one `video.updated`.
 *
 * A SIGKILLed node never reaches settleEdit, so these runs cannot tell whether its guard on the edit's state is there:
 * it, the lease (resumeEdits picks only edits no live node holds, and the take is conditional) and the event id (`evt_`
 * and the edit's id) each keep a second run by a live node from counting twice. What the kills do prove: without
 * resumeEdits in the sweep the edit stays speaking; without renderEdit closing the dead node's attempt it stays open.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { VideoDocument } from '../../clients/typescript/src';
import { startWebhookReceiver, verifyWebhook, type ReceivedWebhook, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { untilSettled } from '../support/campaign-run';
import { CHECK_NOT_THE_SUBJECT_ENV, startHarness, TEST_DATABASE_URL, type Harness } from '../support/harness';
import { offers, orchestratorEnv, startNodeProcess, stopHarnessWorker, type NodeProcess } from '../support/node-process';
import { startRenderNode, type RenderNode } from '../support/render-node';
import { waitFor } from '../support/wait';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
/** Every service of the pipeline but the renderer: the render nodes are processes of their own. */
const ORCHESTRATOR_SERVICES = ['accounts', 'campaigns', 'capture', 'script', 'voice', 'rendering', 'files', 'webhooks', 'reports'];
/** festival speaks through one process of its own, slower than the default RHVoice: the voice step lasts seconds. */
const SLOW_VOICE = 'en-festival-slt';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface EditRow {
  id: string;
  status: string;
  lease_owner: string | null;
  scenes_spoken: number | null;
  error_code: string | null;
  created_at: Date;
  finished_at: Date | null;
}
interface AttemptRow {
  id: number;
  node_id: string | null;
  outcome: string;
  error_message: string | null;
  started_at: Date;
  finished_at: Date | null;
}
interface VideoBody {
  id: string;
  status: string;
  revision: number;
  file_revision: number | null;
  file_url: string | null;
  error: unknown;
}

let h: Harness;
let db: pg.Client;
let receiver: WebhookReceiver;
let key: string;
let secret: string;
let campaignId: string;
let videoId: string;
let renderNodes: RenderNode[];
const nodes: NodeProcess[] = [];

function orchestrator(name: string): NodeProcess {
  const node = startNodeProcess(h, {
    nodeID: `${h.config.namespace}-orchestrator-${name}`,
    services: ORCHESTRATOR_SERVICES,
    dataDir: h.config.dataDir, // files land where the API's /files route serves them from
    detached: true, // its own process group: the SIGKILL takes its speech engines and ffmpeg along
    keepOutputChars: 40_000,
    env: orchestratorEnv(h, { CAMPAIGN_LEASE: '4s', CAMPAIGN_SWEEP_INTERVAL: '1s', LOG_LEVEL: 'info' }),
  });
  nodes.push(node);
  return node;
}

/** Until the gateway sees `actions` on the node; with `notInstance`, on a new instance of it (a restart under the same id). */
async function joined(node: NodeProcess, actions: string[], notInstance?: string): Promise<void> {
  const ok = await waitFor(
    async () =>
      actions.every((action) => offers(h.api, action, node.nodeID)) &&
      (notInstance === undefined || h.api.registry.nodes.get(node.nodeID)?.instanceID !== notInstance),
    Boolean,
    90_000,
    200,
  );
  expect({ node: node.nodeID, joined: ok, exited: node.exited() }).toEqual({ node: node.nodeID, joined: true, exited: false });
}

/** SIGKILL to the node's whole group; resolves once nothing of it is left. */
async function killNode(node: NodeProcess): Promise<number> {
  node.kill('SIGKILL');
  const killedAt = Date.now();
  await node.exit();
  const left = await waitFor(
    async () => node.leftovers(),
    (pids) => pids.length === 0,
    15_000,
    200,
  );
  expect({ leftOfKilledNode: left }).toEqual({ leftOfKilledNode: [] });
  return killedAt;
}

const editAt = async (revision: number): Promise<EditRow | undefined> =>
  (
    await db.query<EditRow>(
      'SELECT id, status, lease_owner, scenes_spoken, error_code, created_at, finished_at FROM video_edits WHERE video_id = $1 AND revision = $2',
      [videoId, revision],
    )
  ).rows[0];

const attemptsSince = async (since: Date): Promise<AttemptRow[]> =>
  (
    await db.query<AttemptRow>(
      'SELECT id, node_id, outcome, error_message, started_at, finished_at FROM render_attempts WHERE video_id = $1 AND started_at >= $2 ORDER BY id',
      [videoId, since],
    )
  ).rows;

/** The work directories voice.respeak holds while it speaks this video's edit (lib/voice/respeak.ts, voice.service.ts). */
const respeakDirs = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`respeak-${videoId}-`));

async function videoOf(): Promise<VideoBody> {
  const res = await h.request('GET', `/api/v1/campaigns/${campaignId}`, { key });
  return (res.body.videos as VideoBody[]).find((video) => video.id === videoId)!;
}

async function documentOf(): Promise<VideoDocument> {
  const res = await h.request('GET', `/api/v1/campaigns/${campaignId}/videos/${videoId}/document`, { key });
  expect(res.status).toBe(200);
  return res.body.document as VideoDocument;
}

async function putDocument(document: VideoDocument): Promise<VideoBody> {
  const res = await h.request('PUT', `/api/v1/campaigns/${campaignId}/videos/${videoId}/document`, { key, body: document });
  expect({ status: res.status, body: res.status === 202 ? 'accepted' : res.body }).toEqual({ status: 202, body: 'accepted' });
  return res.body.video as VideoBody;
}

const local = (url: string) => url.replace(h.config.publicBaseUrl, h.baseUrl);
const eventOf = (hook: ReceivedWebhook) => JSON.parse(hook.body) as { event: string; revision?: number; video?: VideoBody };
const eventIdOf = (hook: ReceivedWebhook) => String(hook.headers['x-service-event-id']);

/**
 * The edit's `video.updated` reached the customer once: one receipt of its event id (waiting a few seconds more for a
 * second), signed, with the revision ready; one outbox row and one delivery of it, delivered at the first attempt.
 */
async function expectUpdatedOnce(edit: EditRow, revision: number): Promise<void> {
  const eventId = `evt_${edit.id}`;
  const arrived = await waitFor(
    async () => receiver.received.filter((hook) => eventIdOf(hook) === eventId),
    (list) => list.length > 0,
    30_000,
    200,
  );
  expect(arrived.length).toBeGreaterThan(0);
  await sleep(4000);
  const receipts = receiver.received.filter((hook) => eventIdOf(hook) === eventId);
  expect(receipts).toHaveLength(1);
  expect(verifyWebhook(receipts[0], secret)).toBe(true);
  expect(eventOf(receipts[0])).toMatchObject({
    event: 'video.updated',
    revision,
    video: { id: videoId, status: 'ready', revision, file_revision: revision, error: null },
  });
  const outbox = await h.sql('SELECT event_id FROM campaign_webhook_events WHERE campaign_id = $1 AND event_type = $2', [
    campaignId,
    'video.updated',
  ]);
  expect(outbox.filter((row) => row.event_id === eventId)).toHaveLength(1);
  const deliveries = await h.sql('SELECT event_id, status, attempts FROM webhook_deliveries WHERE event_id = $1', [eventId]);
  expect(deliveries).toEqual([{ event_id: eventId, status: 'delivered', attempts: 1 }]);
}

beforeAll(async () => {
  h = await startHarness({ transport: 'redis', config: { rateLimits: limits } });
  const customer = await h.newCustomer('business');
  key = customer.key;
  ({ secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: customer.orgId }));
  // Only the child processes run the pipeline from here on.
  await stopHarnessWorker(h);
  renderNodes = ['render-1', 'render-2'].map((name) =>
    startRenderNode(h, `${h.config.namespace}-${name}`, { ...CHECK_NOT_THE_SUBJECT_ENV }),
  );
  nodes.push(...renderNodes);
  const first = orchestrator('a');
  await Promise.all([
    joined(first, ['campaigns.editVideo', 'accounts.authenticate', 'capture.check']),
    ...renderNodes.map((node) => joined(node, ['renderer.renderVideo'])),
  ]);
  receiver = await startWebhookReceiver();
  db = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${h.config.databaseSchema}` });
  await db.connect();

  const created = await h.request('POST', '/api/v1/campaigns', {
    key,
    body: { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'], webhook_url: receiver.url },
  });
  expect(created.status).toBe(201);
  campaignId = created.body.campaign_id;
  const campaign = await untilSettled(h, campaignId, key, 240_000);
  expect(campaign.status).toBe('review');
  videoId = campaign.videos[0].id;
}, 420_000);

afterAll(async () => {
  await Promise.allSettled(nodes.map((node) => node.stop()));
  await receiver?.close();
  await db?.end();
  await h?.stop();
  // What the killed node's voice step left in the shared temporary directory.
  for (const dir of videoId ? respeakDirs() : []) fs.rmSync(path.join(os.tmpdir(), dir), { recursive: true, force: true });
}, 120_000);

/** Polls the edit until it ends; with every node seen holding its lease meanwhile. */
async function untilEditEnds(revision: number): Promise<{ edit: EditRow; owners: Set<string> }> {
  const owners = new Set<string>();
  const edit = await waitFor(
    async () => {
      const row = await editAt(revision);
      if (row?.lease_owner) owners.add(row.lease_owner);
      return row;
    },
    (row) => row?.status === 'ready' || row?.status === 'failed',
    150_000,
    100,
  );
  return { edit: edit!, owners };
}

test('the actor SIGKILLed during the voice step: one of two other nodes resumes the edit after its lease; ready at revision 2, rendered once, one video.updated', async () => {
  const first = nodes.find((node) => node.nodeID.endsWith('-orchestrator-a'))!;
  try {
    const document = await documentOf();
    expect(document.revision).toBe(1);
    const screenAt = document.scenes.findIndex((scene) => scene.kind === 'screen');
    // Another voice: every scene is spoken again, through festival's one process, which takes seconds.
    const edited: VideoDocument = {
      ...document,
      voice: { ...document.voice, id: SLOW_VOICE },
      scenes: document.scenes.map((scene, i) =>
        i === screenAt ? { ...scene, narration: 'The ledger closes itself every night.' } : scene,
      ),
    };
    const accepted = await putDocument(edited);
    const acceptedAt = Date.now();
    expect(accepted).toMatchObject({ status: 'rendering', revision: 2, file_revision: 1 });

    // voice.respeak is running on the actor's node: the edit is speaking, and the voice stage holds its work directory.
    const speaking = await waitFor(
      async () => ({ edit: await editAt(2), dirs: respeakDirs() }),
      ({ edit, dirs }) => edit?.status !== 'speaking' || dirs.length > 0,
      60_000,
      20,
    );
    expect({ status: speaking.edit?.status, owner: speaking.edit?.lease_owner, respeaking: speaking.dirs.length > 0 }).toEqual({
      status: 'speaking',
      owner: first.nodeID,
      respeaking: true,
    });
    const killedAt = await killNode(first);

    // Killed mid-step: still speaking, held by the dead node, its storyboard never written; nothing moves without an actor.
    await sleep(1000);
    const interrupted = (await editAt(2))!;
    expect({ status: interrupted.status, owner: interrupted.lease_owner }).toEqual({ status: 'speaking', owner: first.nodeID });
    expect(await h.sql('SELECT revision FROM storyboard_revisions WHERE video_id = $1', [videoId])).toEqual([]);

    // Two nodes join; both sweep, and the lease lets exactly one of them take the edit over.
    const survivors = [orchestrator('b'), orchestrator('c')];
    await Promise.all(
      survivors.map((node) => joined(node, ['campaigns.editVideo', 'voice.respeak', 'capture.screenshots', 'rendering.renderEdit'])),
    );
    const joinedAt = Date.now();
    const { edit: done, owners } = await untilEditEnds(2);
    const doneAt = Date.now();
    expect(done).toMatchObject({ status: 'ready', lease_owner: null, error_code: null, scenes_spoken: document.scenes.length });
    // Held after the kill by the new nodes only (a node may take it, find a service of its own not started yet, and let it go).
    const tookOver = [...owners].filter((owner) => owner !== first.nodeID);
    expect(tookOver.length).toBeGreaterThan(0);
    expect(tookOver.filter((owner) => !survivors.some((node) => node.nodeID === owner))).toEqual([]);

    // The voice step was done again after the kill, and the video rendered once, on a render node.
    const [storyboard] = await h.sql('SELECT revision, updated_at FROM storyboard_revisions WHERE video_id = $1', [videoId]);
    expect(storyboard.revision).toBe(2);
    expect(new Date(storyboard.updated_at).getTime()).toBeGreaterThan(killedAt);
    const attempts = (await attemptsSince(done.created_at)).filter((row) => row.outcome !== 'busy');
    expect(attempts.map((row) => row.outcome)).toEqual(['ready']);
    expect(renderNodes.map((node) => node.nodeID)).toContain(attempts[0].node_id);
    const video = await videoOf();
    expect(video).toMatchObject({ status: 'ready', revision: 2, file_revision: 2, error: null });
    expect((await fetch(local(video.file_url!))).status).toBe(200);
    expect((await documentOf()).voice.id).toBe(SLOW_VOICE);

    await expectUpdatedOnce(done, 2);
    console.log(
      `edit crash (voice step): killed ${seconds(killedAt - acceptedAt)} after the 202; two nodes joined ${seconds(joinedAt - killedAt)} ` +
        `after the kill; lease held by ${tookOver.join(', ')}; ready ${seconds(doneAt - killedAt)} after the kill.`,
    );
  } catch (err) {
    for (const node of nodes) console.log(`--- output of ${node.nodeID} (tail) ---\n${node.output().slice(-15_000)}`);
    throw err;
  }
}, 300_000);

test('the actor SIGKILLed while a render node renders the edit (two render nodes): restarted beside another, the edit is rendered once more; revision 3, one video.updated', async () => {
  const renderNodeIds = renderNodes.map((node) => node.nodeID);
  try {
    const document = await documentOf();
    expect(document.revision).toBe(2);
    const screenAt = document.scenes.findIndex((scene) => scene.kind === 'screen');
    const before = await videoOf();
    const accepted = await putDocument({
      ...document,
      scenes: document.scenes.map((scene, i) => (i === screenAt ? { ...scene, headline: 'CLOSED EVERY NIGHT' } : scene)),
    });
    const acceptedAt = Date.now();
    expect(accepted).toMatchObject({ status: 'rendering', revision: 3, file_revision: 2 });
    const edit = (await editAt(3))!;
    // Whichever of the two live nodes the gateway sent the PUT to is the edit's actor.
    const actor = nodes.find((node) => node.nodeID === edit.lease_owner && !node.exited());
    expect(actor).toBeDefined();
    const actorName = actor!.nodeID.slice(actor!.nodeID.lastIndexOf('-') + 1);

    // The edit's render is under way on one of the render nodes, sent by the actor's node.
    const sent = await waitFor(
      () => attemptsSince(edit.created_at),
      (rows) => rows.some((row) => row.outcome === 'rendering' && renderNodeIds.includes(row.node_id ?? '')),
      120_000,
      50,
    );
    const open = sent.find((row) => row.outcome === 'rendering' && renderNodeIds.includes(row.node_id ?? ''));
    expect(open).toBeDefined();
    const instance = h.api.registry.nodes.get(actor!.nodeID)?.instanceID ?? undefined;
    const killedAt = await killNode(actor!);
    // Killed mid-render: the edit still rendering, its attempt open.
    expect((await editAt(3))?.status).toBe('rendering');
    expect((await attemptsSince(edit.created_at)).find((row) => row.id === open!.id)?.outcome).toBe('rendering');

    // Restarted under its own node id, beside the other node: one of the two takes the edit over after its lease.
    const restarted = orchestrator(actorName);
    await joined(restarted, ['campaigns.editVideo', 'voice.respeak', 'capture.screenshots', 'rendering.renderEdit'], instance);
    const joinedAt = Date.now();
    const { edit: done, owners } = await untilEditEnds(3);
    const doneAt = Date.now();
    expect(done).toMatchObject({ status: 'ready', lease_owner: null, error_code: null });

    // The render the dead node left on its render node ends too (nobody hears it); then count.
    const abandonedOn = open!.node_id!;
    const idle = await waitFor(
      () => h.api.call<{ busy: number }, Record<string, never>>('renderer.status', {}, { nodeID: abandonedOn }),
      (status) => status.busy === 0,
      120_000,
      500,
    );
    expect(idle.busy).toBe(0);
    const attempts = await attemptsSince(edit.created_at);
    const lost = attempts.find((row) => row.id === open!.id)!;
    expect({ outcome: lost.outcome, node: lost.node_id }).toEqual({ outcome: 'lost', node: abandonedOn });
    expect(lost.error_message).toMatch(/rendering stage stopped/);
    expect(attempts.filter((row) => row.outcome === 'rendering' || !row.finished_at)).toEqual([]);
    const ready = attempts.filter((row) => row.outcome === 'ready');
    expect(ready).toHaveLength(1);
    expect(renderNodeIds).toContain(ready[0].node_id);
    expect(new Date(ready[0].started_at).getTime()).toBeGreaterThan(killedAt);

    const video = await videoOf();
    expect(video).toMatchObject({ status: 'ready', revision: 3, file_revision: 3, error: null });
    expect(video.file_url).not.toBe(before.file_url);
    expect((await fetch(local(video.file_url!))).status).toBe(200);

    await expectUpdatedOnce(done, 3);
    // In all: the campaign's completion and one video.updated per edit, each event id received once.
    const received = receiver.received.map((hook) => `${eventOf(hook).event} ${eventIdOf(hook)}`);
    expect(new Set(received).size).toBe(received.length);
    expect(receiver.received.map((hook) => eventOf(hook).event).sort()).toEqual(['campaign.completed', 'video.updated', 'video.updated']);
    const deliveries = await h.sql('SELECT status FROM webhook_deliveries WHERE campaign_id = $1', [campaignId]);
    expect(deliveries.map((row) => row.status)).toEqual(['delivered', 'delivered', 'delivered']);
    console.log(
      `edit crash (render): killed ${actor!.nodeID} ${seconds(killedAt - acceptedAt)} after the 202, mid-render on ${abandonedOn}; ` +
        `restarted node joined ${seconds(joinedAt - killedAt)} after the kill; lease held by ${[...owners].join(', ')}; ` +
        `rendered again on ${ready[0].node_id}; ready ${seconds(doneAt - killedAt)} after the kill.`,
    );
  } catch (err) {
    for (const node of nodes) console.log(`--- output of ${node.nodeID} (tail) ---\n${node.output().slice(-15_000)}`);
    throw err;
  }
}, 300_000);
