/**
 * The operator side against real PostgreSQL: GET /metrics (Prometheus text that parses, figures that match
 * the rows, Moleculer's own metrics, 503 when the database cannot be read), the ops actions, and the REPL
 * commands run as moleculer-repl runs them. An ops node and a render node join the harness's cluster
 * over the Fake transporter; the pipeline is paused, so the rows stay as inserted.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceBroker } from 'moleculer';
import { brokerOptions } from '../../broker-options';
import type { CampaignState } from '../../lib/campaign/states';
import type { CampaignTimeline } from '../../lib/ops/queries';
import { replCommands } from '../../lib/ops/repl-commands';
import OpsService from '../../services/ops.service';
import RendererService from '../../services/renderer.service';
import { ANNOUNCE_SOON, LOOK_EVERY_MS, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

// Generous: these tests are about the pipeline, not the limiter (whose Redis deadline a loaded CI machine can miss).
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const T0 = Date.parse('2025-03-01T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

let h: Harness;
let ops: ServiceBroker;
let renderNode: ServiceBroker;
let orgId: string;

/** One exposition line: `name{label="value",...} value` (text format 0.0.4). */
const SAMPLE_LINE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (NaN|[+-]Inf|[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)$/;
const COMMENT_LINE = /^# (?:HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (?:counter|gauge|histogram|summary|untyped))$/;

/** Every line must be a sample, a HELP/TYPE comment or empty; returns the samples by `name{labels}`. */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      expect(line).toMatch(COMMENT_LINE);
      continue;
    }
    const match = SAMPLE_LINE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`);
    samples.set(`${match[1]}${match[2] ?? ''}`, Number(match[3]));
  }
  return samples;
}

async function scrape(): Promise<Map<string, number>> {
  const res = await h.request('GET', '/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(res.body);
}

async function insertCampaign(status: CampaignState): Promise<string> {
  const id = crypto.randomUUID();
  await h.sql(
    `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, progress, quota_period, status_changed_at, deadline_at, created_at, updated_at)
    VALUES ($1, $2, $1, $3, 'https://shop.example/', 'Shop', '["en"]', '["youtube"]', 10, '2025-03', now(), now() + interval '1 day', now(), now())`,
    [id, orgId, status],
  );
  return id;
}

/** [from, to, seconds after T0] per event, inserted in the order given. */
async function insertEvents(campaignId: string, events: Array<[string | null, string, number]>): Promise<void> {
  for (const [from, to, seconds] of events) {
    await h.sql('INSERT INTO campaign_events (campaign_id, from_status, to_status, detail, created_at) VALUES ($1, $2, $3, $4, $5)', [
      campaignId,
      from,
      to,
      `to ${to}`,
      at(seconds),
    ]);
  }
}

async function insertVideo(campaignId: string, status: string, language = 'en', platform = 'youtube'): Promise<string> {
  const id = crypto.randomUUID();
  await h.sql(
    'INSERT INTO videos (id, campaign_id, language, platform, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, now(), now())',
    [id, campaignId, language, platform, status],
  );
  return id;
}

/** A delivery and its attempts (status codes; null = a network error). Pending ones are due in an hour, so no dispatcher sends them. */
async function insertDelivery(
  campaignId: string,
  status: 'pending' | 'delivered' | 'failed',
  attempts: Array<number | null>,
  url = 'https://hooks.example/cv',
): Promise<string> {
  const id = crypto.randomUUID();
  await h.sql(
    `INSERT INTO webhook_deliveries (id, event_id, event_type, campaign_id, org_id, url, body, status, attempts, next_attempt_at, last_error, delivered_at, created_at, updated_at)
    VALUES ($1, $2, 'campaign.completed', $3, $4, $5, '{}', $6, $7, $8, $9, $10, now(), now())`,
    [
      id,
      `evt_${crypto.randomUUID()}`,
      campaignId,
      orgId,
      url,
      status,
      attempts.length,
      status === 'pending' ? new Date(Date.now() + 3_600_000) : null,
      status === 'delivered' ? null : 'HTTP 500',
      status === 'delivered' ? new Date() : null,
    ],
  );
  for (const [i, code] of attempts.entries()) {
    await h.sql(
      'INSERT INTO webhook_attempts (delivery_id, attempt, signed_timestamp, status_code, duration_ms, error, created_at) VALUES ($1, $2, $3, $4, 120, $5, $6)',
      [id, i + 1, Math.floor(T0 / 1000) + i, code, code === null ? 'connect ECONNREFUSED 203.0.113.9:443' : null, at(i)],
    );
  }
  return id;
}

beforeAll(async () => {
  h = await startHarness({ render: 'dispatcher', config: { pipelinePaused: true, rateLimits: limits } });
  ({ orgId } = await h.newCustomer('business'));
  const suffix = crypto.randomBytes(3).toString('hex');
  ops = new ServiceBroker({ ...brokerOptions(h.config), ...ANNOUNCE_SOON, nodeID: `ops-${suffix}`, transporter: 'Fake', logger: false });
  ops.createService(OpsService);
  renderNode = new ServiceBroker({
    ...brokerOptions({ ...h.config, renderConcurrency: 2 }),
    ...ANNOUNCE_SOON,
    nodeID: `render-${suffix}`,
    transporter: 'Fake',
    logger: false,
  });
  renderNode.createService(RendererService);
  await Promise.all([ops.start(), renderNode.start()]);
  await Promise.all([
    h.api.waitForServices(['ops'], undefined, LOOK_EVERY_MS),
    ops.waitForServices(['rendering', 'renderer', 'accounts', 'webhooks'], undefined, LOOK_EVERY_MS),
  ]);
  // The rendering stage learns of render nodes from their slot reports; ask for them, as a joining stage does.
  void h.worker.broadcast('renderer.announce', {});
  await waitFor(
    () => ops.call<Array<{ nodeID: string }>>('rendering.nodes'),
    (nodes) => nodes.some((n) => n.nodeID === renderNode.nodeID),
    10_000,
    100,
  );
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([ops?.stop(), renderNode?.stop()]);
  await h?.stop();
});

describe('GET /metrics', () => {
  let voiceover: string;

  beforeAll(async () => {
    for (let i = 0; i < 3; i += 1) await insertCampaign('collecting');
    voiceover = await insertCampaign('voiceover');
    await insertEvents(voiceover, [
      [null, 'collecting', 0],
      ['collecting', 'processing', 10],
      ['processing', 'scripting', 40],
      ['scripting', 'voiceover', 100],
    ]);
    const failed = await insertCampaign('failed');
    await insertEvents(failed, [
      [null, 'collecting', 0],
      ['collecting', 'failed', 2],
    ]);
    const rendering = await insertCampaign('rendering');
    await insertVideo(rendering, 'queued', 'en');
    await insertVideo(rendering, 'rendering', 'ja');
    await insertVideo(rendering, 'ready', 'ko');
    await insertVideo(voiceover, 'queued');
    await insertDelivery(failed, 'delivered', [200]);
    await insertDelivery(failed, 'failed', [500, null, 503]);
    await insertDelivery(voiceover, 'pending', [502]);
  });

  test('parses as Prometheus text; campaigns per state, the render queue and slots, webhooks match the rows', async () => {
    const m = await scrape();
    const byState = Object.fromEntries(
      ['collecting', 'processing', 'scripting', 'voiceover', 'rendering', 'review', 'published', 'failed'].map((state) => [
        state,
        m.get(`campaign_video_campaigns_by_state{state="${state}"}`),
      ]),
    );
    expect(byState).toEqual({ collecting: 3, processing: 0, scripting: 0, voiceover: 1, rendering: 1, review: 0, published: 0, failed: 1 });
    // Only videos of campaigns in rendering count: the voiceover campaign's queued video does not.
    expect(m.get('campaign_video_render_queue_depth')).toBe(2);
    expect(m.get(`campaign_video_render_slots{node="${renderNode.nodeID}",state="free"}`)).toBe(2);
    expect(m.get(`campaign_video_render_slots{node="${renderNode.nodeID}",state="busy"}`)).toBe(0);
    expect(m.get(`campaign_video_render_node_draining{node="${renderNode.nodeID}"}`)).toBe(0);
    expect(m.get('campaign_video_webhook_deliveries_total{outcome="delivered"}')).toBe(1);
    expect(m.get('campaign_video_webhook_deliveries_total{outcome="failed"}')).toBe(1);
    expect(m.get('campaign_video_webhook_deliveries_total{outcome="pending"}')).toBe(1);
    expect(m.get('campaign_video_webhook_attempts_total{result="2xx"}')).toBe(1);
    expect(m.get('campaign_video_webhook_attempts_total{result="error"}')).toBe(4);
  });

  test('a render node is listed from the moment it joins (its slots in all, free, not draining) until it leaves', async () => {
    const late = new ServiceBroker({
      ...brokerOptions({ ...h.config, renderConcurrency: 3 }),
      ...ANNOUNCE_SOON,
      nodeID: `render-late-${crypto.randomBytes(3).toString('hex')}`,
      transporter: 'Fake',
      logger: false,
    });
    // Its slot report is lost (as when the rendering stage's node restarts after it joined): only the registry has it.
    late.createService({ ...RendererService, methods: { ...RendererService.methods, announce: () => undefined } });
    const offered = (nodeID: string) =>
      (ops.registry.getActionEndpoints('renderer.renderVideo')?.endpoints ?? []).some((ep) => ep.id === nodeID && ep.isAvailable);
    await late.start();
    try {
      await waitFor(async () => offered(late.nodeID), Boolean, 10_000, 50);
      const m = await scrape();
      expect({
        slots: m.get(`campaign_video_render_node_slots{node="${late.nodeID}"}`),
        free: m.get(`campaign_video_render_slots{node="${late.nodeID}",state="free"}`),
        busy: m.get(`campaign_video_render_slots{node="${late.nodeID}",state="busy"}`),
        draining: m.get(`campaign_video_render_node_draining{node="${late.nodeID}"}`),
      }).toEqual({ slots: 3, free: 3, busy: 0, draining: 0 });
      expect(m.get(`campaign_video_render_node_slots{node="${renderNode.nodeID}"}`)).toBe(2);
    } finally {
      await late.stop();
    }
    const after = await waitFor(scrape, (samples) => !samples.has(`campaign_video_render_node_slots{node="${late.nodeID}"}`), 10_000, 200);
    expect(after.has(`campaign_video_render_slots{node="${late.nodeID}",state="free"}`)).toBe(false);
  });

  test("stage durations: a histogram per stage from the time between a campaign's events", async () => {
    const m = await scrape();
    const series = (stage: string, suffix: string, le?: string) =>
      m.get(`campaign_video_campaign_stage_duration_seconds${suffix}{stage="${stage}"${le ? `,le="${le}"` : ''}}`);
    // collecting: 10 s (voiceover campaign) and 2 s (failed campaign).
    expect(series('collecting', '_count')).toBe(2);
    expect(series('collecting', '_sum')).toBeCloseTo(12, 3);
    expect([
      series('collecting', '_bucket', '1'),
      series('collecting', '_bucket', '5'),
      series('collecting', '_bucket', '15'),
      series('collecting', '_bucket', '+Inf'),
    ]).toEqual([0, 1, 2, 2]);
    expect(series('processing', '_sum')).toBeCloseTo(30, 3);
    expect([series('scripting', '_count'), series('scripting', '_bucket', '30'), series('scripting', '_bucket', '60')]).toEqual([1, 0, 1]);
    // A stage not left yet (voiceover) has no completed stay; stages never entered are present with zeros.
    expect(series('voiceover', '_count')).toBe(0);
    expect(series('review', '_count')).toBe(0);
  });

  test("figures are read at scrape time; Moleculer's own metrics are included", async () => {
    const before = await scrape();
    await insertCampaign('collecting');
    const after = await scrape();
    expect(after.get('campaign_video_campaigns_by_state{state="collecting"}')).toBe(
      before.get('campaign_video_campaigns_by_state{state="collecting"}')! + 1,
    );
    const requests = [...after.keys()].filter((name) => name.startsWith('moleculer_request_total{'));
    expect(requests.some((name) => name.includes('action="api.metrics"') && name.includes(`nodeID="${h.api.nodeID}"`))).toBe(true);
  });

  test('no API key is needed; a database that cannot be read gives 503 with the error body, and the node keeps serving', async () => {
    await h.sql('ALTER TABLE campaign_events RENAME TO campaign_events_away');
    let res;
    try {
      res = await h.request('GET', '/metrics');
    } finally {
      await h.sql('ALTER TABLE campaign_events_away RENAME TO campaign_events');
    }
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ success: false, error: { code: 'internal', message: expect.any(String) } });
    expect((await h.request('GET', '/metrics')).status).toBe(200);
  });
});

describe('ops actions', () => {
  test('timeline: the campaign, its transitions in time order, videos, render attempts, deliveries with attempts', async () => {
    const id = await insertCampaign('rendering');
    // Inserted out of order: the timeline orders by time, not by insertion.
    await insertEvents(id, [
      ['voiceover', 'rendering', 90],
      [null, 'collecting', 0],
      ['scripting', 'voiceover', 60],
      ['collecting', 'processing', 20],
      ['processing', 'scripting', 30],
    ]);
    const video = await insertVideo(id, 'rendering');
    await h.sql(
      `INSERT INTO render_attempts (video_id, campaign_id, node_id, outcome, error_message, wall_ms, peak_rss_bytes, started_at, finished_at) VALUES
      ($1, $2, 'render-a', 'failed', 'ffprobe: duration off', 5000, 900000000, $3, $4), ($1, $2, 'render-b', 'rendering', NULL, NULL, NULL, $4, NULL)`,
      [video, id, at(91), at(96)],
    );
    const delivery = await insertDelivery(id, 'failed', [500, null, 503]);

    const timeline = await ops.call<CampaignTimeline, { campaign_id: string }>('ops.timeline', { campaign_id: id });
    expect(timeline.campaign).toMatchObject({ id, org_id: orgId, status: 'rendering', lease_owner: null });
    expect(timeline.events.map((e) => e.to)).toEqual(['collecting', 'processing', 'scripting', 'voiceover', 'rendering']);
    expect(timeline.events[4]).toEqual({ at: at(90), from: 'voiceover', to: 'rendering', detail: 'to rendering' });
    expect(timeline.videos).toEqual([expect.objectContaining({ id: video, status: 'rendering' })]);
    expect(timeline.render_attempts).toEqual([
      expect.objectContaining({
        node_id: 'render-a',
        outcome: 'failed',
        wall_ms: 5000,
        peak_rss_bytes: 900000000,
        error_message: 'ffprobe: duration off',
      }),
      expect.objectContaining({ node_id: 'render-b', outcome: 'rendering', finished_at: null }),
    ]);
    expect(timeline.webhook_deliveries).toEqual([expect.objectContaining({ id: delivery, status: 'failed', attempts: 3 })]);
    expect(timeline.webhook_deliveries[0].attempt_log.map((a) => a.status_code)).toEqual([500, null, 503]);
  });

  test('timeline of an unknown campaign is not_found; a malformed id is invalid_input', async () => {
    await expect(ops.call('ops.timeline', { campaign_id: crypto.randomUUID() })).rejects.toMatchObject({ code: 404, type: 'not_found' });
    await expect(ops.call('ops.timeline', { campaign_id: 'nope' })).rejects.toMatchObject({ code: 400, type: 'invalid_input' });
  });
});

describe('REPL commands', () => {
  const output: string[] = [];
  const commands = replCommands((text) => output.push(text));
  /** Runs a command the way moleculer-repl does: its action with the broker and the named arguments. */
  async function run(line: string): Promise<string> {
    const [name, ...values] = line.split(' ');
    const command = commands.find((c) => c.command.split(' ')[0] === name)!;
    const argNames = [...command.command.matchAll(/[<[](\w+)[>\]]/g)].map((m) => m[1]);
    const args = Object.fromEntries(argNames.map((arg, i) => [arg, values[i]]).filter(([, value]) => value !== undefined));
    output.length = 0;
    await command.action(ops, { options: {}, ...args } as never, {});
    return output.join('\n');
  }

  test('the broker options carry the commands for npm run repl', () => {
    expect(brokerOptions(h.config).replOptions?.customCommands?.map((c) => c.command)).toEqual([
      'campaigns [state]',
      'timeline <campaignId>',
      'render-nodes',
      'turns',
      'deliveries <campaignId>',
      'retry-delivery <deliveryId>',
    ]);
  });

  test("no command is shadowed by one of moleculer-repl's own (it skips a custom command of the same name)", () => {
    // moleculer-repl's own copies of its dependencies, loaded as it loads them (CommonJS, resolved from its folder).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fromRepl = (id: string) => require(require.resolve(id, { paths: [require.resolve('moleculer-repl')] }));
    const program = new (fromRepl('commander').Command)();
    fromRepl('moleculer-repl/src/commands')(program, ops);
    const builtIn: string[] = program.commands.flatMap((c: any) => [c.name(), ...c.aliases()]);
    expect(builtIn).toContain('nodes');
    expect(commands.map((c) => c.command.split(' ')[0]).filter((name) => builtIn.includes(name))).toEqual([]);
  });

  test('campaigns: a count per state; with a state, its latest campaigns', async () => {
    const id = await insertCampaign('review');
    const all = await run('campaigns');
    expect(all).toMatch(/^review\s+1$/m);
    expect(all).toMatch(/^published\s+0$/m);
    expect(all).toContain(id);
    const review = await run('campaigns review');
    expect(review).toMatch(/^review\s+1$/m);
    expect(review).not.toMatch(/^collecting/m);
    expect(review).toContain(`review: the latest 1 of 1`);
    expect(await run('campaigns nosuchstate')).toMatch(/^campaigns: state must be one of/);
  });

  test('timeline and deliveries print the transitions in order, the attempts, and each delivery attempt', async () => {
    const id = await insertCampaign('voiceover');
    await insertEvents(id, [
      ['scripting', 'voiceover', 50],
      [null, 'collecting', 0],
      ['collecting', 'processing', 5],
      ['processing', 'scripting', 20],
    ]);
    const delivery = await insertDelivery(id, 'failed', [500, null, 503]);
    const timeline = await run(`timeline ${id}`);
    expect(timeline).toContain(`Campaign ${id} (org ${orgId}): voiceover`);
    const rows = ['collecting', 'processing', 'scripting', 'voiceover'].map((to) =>
      timeline.search(new RegExp(`^${at(0).slice(0, 10)}\\S+\\s+\\S+\\s+${to}\\s`, 'm')),
    );
    expect(rows.every((index) => index >= 0)).toBe(true);
    expect([...rows].sort((a, b) => a - b)).toEqual(rows);
    expect(timeline).toContain(delivery);

    const deliveries = await run(`deliveries ${id}`);
    expect(deliveries).toMatch(new RegExp(`^${delivery}\\s+campaign\\.completed\\s+failed\\s+3\\s`, 'm'));
    expect(deliveries).toContain('connect ECONNREFUSED 203.0.113.9:443');
    expect(deliveries).toMatch(/\s503\s/);
    expect(await run(`timeline ${crypto.randomUUID()}`)).toBe('timeline: Campaign not found.');
  });

  test('render-nodes: each render node with its slots, and the queue', async () => {
    const nodes = await run('render-nodes');
    expect(nodes).toMatch(new RegExp(`^${renderNode.nodeID}\\s+serving\\s+2\\s+0\\s+2\\s+0\\s+-`, 'm'));
    const [{ n }] = await h.sql(`SELECT COUNT(*)::int AS n FROM videos JOIN campaigns ON campaigns.id = videos.campaign_id
      WHERE campaigns.status = 'rendering' AND videos.status IN ('queued', 'rendering')`);
    expect(nodes).toContain(`Queue: ${n} video(s) queued or rendering; 2 free slot(s) on 1 render node(s).`);
  });

  test('turns: each stage with its capacity, what it has granted, and who waits', async () => {
    const org = crypto.randomUUID();
    const id = await insertCampaign('voiceover');
    // A turn whose node is gone (its lease long over): queued, never granted (the pipeline is paused here anyway).
    await h.sql(`INSERT INTO stage_turns (campaign_id, stage, lane, org_id, weight, age_ms, queued_ms, granted_ms, holder, lease_expires_ms)
      VALUES ('${id}', 'voiceover', '', '${org}', 1, 1, 1, NULL, 'gone', 1)`);
    const turns = await run('turns');
    expect(turns).toMatch(new RegExp(`^voiceover\\s+\\d+\\s+0\\s+0\\s+1\\s+${org} 1`, 'm'));
    expect(turns).toMatch(/^rendering\s+\d+\s+0\s+0\s+0\s+-/m);
    await h.sql(`DELETE FROM stage_turns WHERE campaign_id = '${id}'`);
  });

  test('retry-delivery sends a failed delivery again; a delivered one is refused', async () => {
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const id = await insertCampaign('review');
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const failed = await insertDelivery(id, 'failed', [500, 500, 500], url);
      expect(await run(`retry-delivery ${failed}`)).toBe(`Delivery ${failed} is pending again; the dispatcher sends it now.`);
      const [row] = await waitFor(
        () => h.sql('SELECT status, attempts FROM webhook_deliveries WHERE id = $1', [failed]),
        ([r]) => r.status === 'delivered',
        15_000,
        100,
      );
      expect(row).toEqual({ status: 'delivered', attempts: 4 });

      const delivered = await insertDelivery(id, 'delivered', [200]);
      expect(await run(`retry-delivery ${delivered}`)).toMatch(/^retry-delivery: .*delivered/);
      expect(await h.sql('SELECT status, attempts FROM webhook_deliveries WHERE id = $1', [delivered])).toEqual([
        { status: 'delivered', attempts: 1 },
      ]);
    } finally {
      receiver.close();
    }
  });
});
