/**
 * Each video as soon as it is ready (decisions §15): after processing, each language of a campaign runs its own lane
 * (script → voice → render, lib/campaign/lanes.ts). Through the whole pipeline (Chromium, the voices, editly at draft
 * quality), with the second language's voice stage held by the test (a middleware on the worker broker, no timing):
 * the first language's video is ready, shown by GET and announced by its signed video.ready, while the second is not
 * and the campaign shows its least advanced lane (voiceover). Then the held call ends as a node stopping would end it:
 * the lane waits, the actor lets the campaign go, and the actor that takes it over goes on from what is recorded —
 * the first language is neither scripted nor spoken again — to review with every video and one campaign.completed
 * after both video.ready. A cancel while the second language is held stops both lanes: nothing more is called for
 * the campaign and its lease is let go. A lane whose stage fails fails the campaign (decisions §3), and the other
 * lane's voice call in flight stops as a cancel stops it. With the pipeline paused, the stages called for one lane:
 * called again after a node died, the script and voice stages answer what they stored for it; a canceled campaign's
 * waiting turns are removed and their calls told; a lane's render closes the open attempts of its own videos only,
 * not those of another lane rendering beside it.
 */
import crypto from 'node:crypto';
import { Errors, type Context, type Middleware } from 'moleculer';
import { createCampaignClient, verifyWebhook, type WebhookEvent } from '../../clients/typescript/src';
import type { TurnGate } from '../../lib/campaign/turn-gate';
import { CampaignCanceledError, StageInterruptedError, stageFailure } from '../../lib/errors';
import { CAMPAIGN_WORK_STOPS } from '../../mixins/cancelable.mixin';
import { webhookReceivers } from '../fixtures/webhook-receiver';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const HELD_LANGUAGE = 'ja';
/** A campaign so titled has its held language's script fail once the first language's voice call is made. */
const FAILING_LANE_TITLE = 'The second language fails';

/** A hold on one campaign's first voice call for the held language: reached when it is made, released by the test. */
interface Hold {
  reached: Promise<void>;
  reach(): void;
  released: Promise<'interrupt' | 'go'>;
  letGo(how: 'interrupt' | 'go'): void;
  held: boolean;
}
function newHold(): Hold {
  const hold = { held: false } as Hold;
  hold.reached = new Promise<void>((resolve) => (hold.reach = resolve));
  hold.released = new Promise<'interrupt' | 'go'>((resolve) => (hold.letGo = resolve));
  return hold;
}

/**
 * The stage calls the actor made per campaign, as "action languages", and a hold per campaign on the held language's
 * voice. In a campaign titled FAILING_LANE_TITLE, the first language's voice call is held instead (its hold, and how
 * the call ended once let go: `spoken`, or its error's type) while the held language's script fails.
 */
function laneWatch() {
  const calls = new Map<string, string[]>();
  const holds = new Map<string, Hold>();
  const ended = new Map<string, Promise<string>>();
  const hold = (campaignId: string): Hold => {
    if (!holds.has(campaignId)) holds.set(campaignId, newHold());
    return holds.get(campaignId)!;
  };
  const callsOf = (campaignId: string): string[] => {
    if (!calls.has(campaignId)) calls.set(campaignId, []);
    return calls.get(campaignId)!;
  };
  const middleware: Middleware = {
    name: 'HoldSecondLane',
    localAction(next: (ctx: Context) => Promise<unknown>, action: { name?: string }) {
      if (!['script.write', 'voice.speak', 'rendering.renderCampaign'].includes(action.name ?? '')) return next;
      return async (ctx: Context<{ campaign_id: string; languages?: string[]; input?: { title?: string } }>) => {
        const languages = ctx.params.languages?.join(',') ?? 'all';
        callsOf(ctx.params.campaign_id).push(`${action.name} ${languages}`);
        const held = hold(ctx.params.campaign_id);
        if (ctx.params.input?.title === FAILING_LANE_TITLE) {
          if (action.name === 'script.write' && languages === HELD_LANGUAGE) {
            await held.reached;
            throw stageFailure('translation_failed', 'The script failed (by the test).', false);
          }
          if (action.name === 'voice.speak' && languages === 'en') {
            held.reach();
            await held.released;
            const outcome = next(ctx);
            ended.set(
              ctx.params.campaign_id,
              outcome.then(
                () => 'spoken',
                (err: { type?: string }) => err.type ?? 'error',
              ),
            );
            return outcome;
          }
        }
        if (action.name === 'voice.speak' && languages === HELD_LANGUAGE && !held.held) {
          held.held = true;
          held.reach();
          // Ended as a stopping voice node ends it (STAGE_INTERRUPTED: the campaign waits), not retried by the broker.
          if ((await held.released) === 'interrupt')
            throw new Errors.MoleculerError('The voice node stopped (held by the test).', 503, StageInterruptedError.TYPE);
        }
        return next(ctx);
      };
    },
  };
  const endOf = (campaignId: string) =>
    waitFor(
      async () => ended.get(campaignId),
      (outcome) => outcome !== undefined,
      30_000,
      50,
    ).then((outcome) => outcome!);
  return { middleware, callsOf, hold, endOf, releaseAll: () => holds.forEach((held) => held.letGo('go')) };
}

describe('a campaign’s languages in lanes', () => {
  let h: Harness;
  let customer: { orgId: string; key: string };
  let secret: string;
  const receivers = webhookReceivers();
  const watch = laneWatch();
  let hook: Awaited<ReturnType<typeof receivers.start>>;
  let id: string;

  beforeAll(async () => {
    h = await startHarness({
      render: 'worker',
      workerMiddlewares: [watch.middleware],
      config: {
        ...CHECK_NOT_THE_SUBJECT,
        rateLimits: limits,
        videoTargetSeconds: 10,
        captureMaxShots: 2,
        campaignSweepMs: 500,
        webhookRetryDelaysMs: [1100, 1100],
      },
    });
    customer = await h.newCustomer('business');
    ({ secret } = await h.call<{ secret: string }>('accounts.webhookSecret', { org_id: customer.orgId }));
    hook = await receivers.start();
  }, 120_000);
  afterAll(async () => {
    watch.releaseAll();
    await receivers.closeAll();
    await h?.stop();
  });

  const client = () => createCampaignClient({ baseUrl: h.baseUrl, apiKey: customer.key });
  const read = async () => (await client().GET('/api/v1/campaigns/{id}', { params: { path: { id } } })).data!;
  const events = () =>
    hook.received
      .map((r) => verifyWebhook({ headers: r.headers, rawBody: r.body }, secret))
      .filter((e): e is WebhookEvent => e !== null)
      .map((e) => (e.event === 'video.ready' ? `video.ready ${e.video.language}` : e.event));

  test('the first language’s video is ready and announced while the second language is still being spoken', async () => {
    const created = await client().POST('/api/v1/campaigns', {
      body: {
        url: h.pageUrl,
        languages: ['en', HELD_LANGUAGE],
        platforms: ['tiktok'],
        quality: 'draft',
        webhook_url: hook.url,
        webhook_events: ['campaign.completed', 'campaign.failed', 'video.ready'],
      },
    });
    expect(created.response.status).toBe(201);
    id = created.data!.campaign_id;

    await watch.hold(id).reached;
    const firstReady = await waitFor(
      read,
      (c) => c.status === 'failed' || c.videos.some((v) => v.language === 'en' && v.status === 'ready'),
      600_000,
      500,
    );
    expect(firstReady.error ?? null).toBeNull();
    // GET shows the ready video with its files; the held language's is not made yet; the campaign shows its least
    // advanced lane, and its progress the video ready.
    const en = firstReady.videos.find((v) => v.language === 'en')!;
    expect(en).toMatchObject({ status: 'ready', file_revision: 1 });
    expect(en.file_url).toMatch(/\/files\/videos\/.+\.mp4\?expires=\d+&signature=[0-9a-f]+$/);
    // Its file is served already (the link names the public base URL; the harness's gateway is on loopback).
    const download = await fetch(`${h.baseUrl}${en.file_url!.slice(h.config.publicBaseUrl.length)}`, { headers: { Range: 'bytes=0-11' } });
    expect(download.status).toBe(206);
    expect(
      Buffer.from(await download.arrayBuffer())
        .subarray(4, 8)
        .toString('latin1'),
    ).toBe('ftyp');
    expect(firstReady.videos.find((v) => v.language === HELD_LANGUAGE)).toMatchObject({ status: 'queued', file_url: null });
    expect(firstReady.status).toBe('voiceover');
    expect(firstReady.progress).toBeGreaterThanOrEqual(50);
    // Its video.ready is delivered, signed; nothing says the campaign is complete.
    const delivered = await waitFor(
      async () => events(),
      (list) => list.includes('video.ready en'),
      30_000,
      100,
    );
    expect(delivered).toEqual(['video.ready en']);
    expect(watch.callsOf(id).filter((c) => c.endsWith(` ${HELD_LANGUAGE}`))).toEqual([
      `script.write ${HELD_LANGUAGE}`,
      `voice.speak ${HELD_LANGUAGE}`,
    ]);
  }, 900_000);

  test('the held lane, interrupted, is resumed by the next actor from what is recorded; the campaign reaches review', async () => {
    // The first lane ends (its render recorded), then the interrupted one waits: the actor lets the campaign go.
    watch.hold(id).letGo('interrupt');
    const done = await waitFor(read, (c) => ['review', 'failed'].includes(c.status), 600_000, 1000);
    expect(done.error ?? null).toBeNull();
    expect(done.status).toBe('review');
    expect(done.progress).toBe(100);
    expect(done.videos.map((v) => [v.language, v.status])).toEqual([
      ['en', 'ready'],
      [HELD_LANGUAGE, 'ready'],
    ]);
    // The first language was scripted, spoken and rendered once; only the held lane's voice was called again.
    expect(watch.callsOf(id).filter((c) => c.endsWith(' en'))).toEqual([
      'script.write en',
      'voice.speak en',
      'rendering.renderCampaign en',
    ]);
    expect(watch.callsOf(id).filter((c) => c.endsWith(` ${HELD_LANGUAGE}`))).toEqual([
      `script.write ${HELD_LANGUAGE}`,
      `voice.speak ${HELD_LANGUAGE}`,
      `voice.speak ${HELD_LANGUAGE}`,
      `rendering.renderCampaign ${HELD_LANGUAGE}`,
    ]);
    // Each documented step once, in order.
    const timeline = await h.sql<{ to_status: string }>('SELECT to_status FROM campaign_events WHERE campaign_id = $1 ORDER BY id', [id]);
    expect(timeline.map((e) => e.to_status)).toEqual(['collecting', 'processing', 'scripting', 'voiceover', 'rendering', 'review']);
    // Both video.ready, each delivered once, and one campaign.completed, written after them: the last video's ready
    // may be written in the transaction that settles the campaign (its report crossing the stage's end), and events
    // written together are delivered side by side, so the outbox says the order, not the arrivals.
    const received = await waitFor(
      async () => events(),
      (list) => list.length >= 3,
      30_000,
      100,
    );
    expect([...received].sort()).toEqual(['campaign.completed', 'video.ready en', `video.ready ${HELD_LANGUAGE}`]);
    const outbox = await h.sql<{ event_type: string; created_at: Date }>(
      'SELECT event_type, created_at FROM campaign_webhook_events WHERE campaign_id = $1',
      [id],
    );
    const completed = outbox.find((row) => row.event_type === 'campaign.completed')!;
    for (const row of outbox.filter((r) => r.event_type === 'video.ready'))
      expect(new Date(row.created_at).getTime()).toBeLessThanOrEqual(new Date(completed.created_at).getTime());
  }, 900_000);

  test('a cancel while one lane is spoken and another rendered or done stops every lane', async () => {
    const created = await client().POST('/api/v1/campaigns', {
      body: { url: h.pageUrl, languages: ['en', HELD_LANGUAGE], platforms: ['tiktok'], quality: 'draft' },
    });
    expect(created.response.status).toBe(201);
    const canceledId = created.data!.campaign_id;
    await watch.hold(canceledId).reached;
    const canceled = await client().POST('/api/v1/campaigns/{id}/cancel', { params: { path: { id: canceledId } } });
    expect(canceled.response.status).toBe(200);
    // The held voice call goes on after the cancel: the stage stops at once (the cancel is remembered), and the lane
    // with it; the actor lets the campaign go, nothing more is called for it.
    watch.hold(canceledId).letGo('go');
    const row = async () =>
      (await h.sql<{ lease_owner: string | null }>('SELECT lease_owner FROM campaigns WHERE id = $1', [canceledId]))[0];
    expect((await waitFor(row, (r) => r.lease_owner === null, 120_000, 250)).lease_owner).toBeNull();
    const after = (await client().GET('/api/v1/campaigns/{id}', { params: { path: { id: canceledId } } })).data!;
    expect(after).toMatchObject({ status: 'failed', error: { code: 'canceled' } });
    expect(after.videos.find((v) => v.language === HELD_LANGUAGE)).toMatchObject({ status: 'failed' });
    expect(watch.callsOf(canceledId).filter((c) => c.endsWith(` ${HELD_LANGUAGE}`))).toEqual([
      `script.write ${HELD_LANGUAGE}`,
      `voice.speak ${HELD_LANGUAGE}`,
    ]);
    const [{ count }] = await h.sql<{ count: string }>(
      'SELECT count(*) AS count FROM storyboards s JOIN videos v ON v.id = s.video_id WHERE v.campaign_id = $1 AND v.language = $2',
      [canceledId, HELD_LANGUAGE],
    );
    expect(Number(count)).toBe(0);
  }, 900_000);

  test('a lane that fails fails the campaign, and the other lane’s call in flight stops instead of running to its end', async () => {
    const created = await client().POST('/api/v1/campaigns', {
      body: { url: h.pageUrl, title: FAILING_LANE_TITLE, languages: ['en', HELD_LANGUAGE], platforms: ['tiktok'], quality: 'draft' },
    });
    expect(created.response.status).toBe(201);
    const failingId = created.data!.campaign_id;
    const readFailing = async () => (await client().GET('/api/v1/campaigns/{id}', { params: { path: { id: failingId } } })).data!;
    // The first language is being spoken when the second's script fails.
    await watch.hold(failingId).reached;
    const failed = await waitFor(readFailing, (c) => c.status === 'failed', 120_000, 250);
    expect(failed.error).toMatchObject({ code: 'translation_failed' });
    // The voice call goes on after the failure: the stage stops at once, as for a cancel; nothing of it is spoken or stored.
    watch.hold(failingId).letGo('go');
    expect(await watch.endOf(failingId)).toBe(CampaignCanceledError.TYPE);
    const [{ count }] = await h.sql<{ count: string }>('SELECT count(*) AS count FROM storyboards WHERE campaign_id = $1', [failingId]);
    expect(Number(count)).toBe(0);
    const row = async () =>
      (await h.sql<{ lease_owner: string | null }>('SELECT lease_owner FROM campaigns WHERE id = $1', [failingId]))[0];
    expect((await waitFor(row, (r) => r.lease_owner === null, 60_000, 250)).lease_owner).toBeNull();
    expect(watch.callsOf(failingId).filter((c) => !c.startsWith('script.write'))).toEqual(['voice.speak en']);
  }, 300_000);
});

describe('a lane’s render beside another’s, pipeline paused', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ render: 'dispatcher', config: { pipelinePaused: true, rateLimits: limits } });
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  /** A new customer's campaign in scripting, its plan stored (what processing leaves): its id. */
  async function scriptingCampaign(languages: string[]): Promise<string> {
    const { key } = await h.newCustomer('business');
    const created = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, languages, platforms: ['tiktok'] } });
    expect(created.status).toBe(201);
    const id: string = created.body.campaign_id;
    await h.sql("UPDATE campaigns SET status = 'scripting', progress = 25 WHERE id = $1", [id]);
    await h.sql(
      `INSERT INTO campaign_plans (campaign_id, plan, page_texts, created_at, updated_at) VALUES ($1, '{"sourceLanguage":"en"}', '[]', now(), now())`,
      [id],
    );
    return id;
  }

  test('a lane’s script and voice stages called again (its node died before the actor recorded them) keep what they stored', async () => {
    const id = await scriptingCampaign(['en', HELD_LANGUAGE]);
    const [en] = await h.sql<{ id: string }>("SELECT id FROM videos WHERE campaign_id = $1 AND language = 'en'", [id]);
    // What the lane's first run stored before its node died: the plan (above), its script, its video's storyboard.
    const script = { language: 'en', source: 'localized_page', title: {}, screens: [], closing: {} };
    await h.sql(
      "INSERT INTO campaign_scripts (id, campaign_id, language, script_source, script, created_at, updated_at) VALUES (gen_random_uuid(), $1, 'en', 'localized_page', $2, now(), now())",
      [id, JSON.stringify(script)],
    );
    await h.sql('INSERT INTO storyboards (video_id, campaign_id, document, created_at, updated_at) VALUES ($1, $2, $3, now(), now())', [
      en.id,
      id,
      JSON.stringify({ videoId: en.id, captionsKey: 'captions/stored-en.vtt' }),
    ]);
    const stored = async () =>
      h.sql<{ id: string; updated_at: Date }>('SELECT id, updated_at FROM campaign_scripts WHERE campaign_id = $1', [id]);
    const before = await stored();
    const input = await h.call('campaigns.stageInput', { campaign_id: id });
    // Answered from what is stored: nothing is written again (a script written anew would need the page's texts).
    expect(await h.call('script.write', { campaign_id: id, input, languages: ['en'] })).toEqual({
      campaign_id: id,
      script_sources: [{ language: 'en', script_source: 'localized_page', openings: 1 }],
      page_language: 'en',
    });
    expect(await stored()).toEqual(before);
    expect(await h.call('voice.speak', { campaign_id: id, input, languages: ['en'] })).toEqual({
      campaign_id: id,
      captions: [{ video_id: en.id, captions_key: 'captions/stored-en.vtt' }],
    });
  }, 120_000);

  test('the script stage stops for a stopped campaign: nothing planned or written once the stop was broadcast', async () => {
    const id = await scriptingCampaign(['en']);
    const input = await h.call('campaigns.stageInput', { campaign_id: id });
    // The campaign actor stops a campaign's work on every node (a cancel, a timeout, another lane's failure).
    await h.api.broadcast(CAMPAIGN_WORK_STOPS, { campaign_id: id });
    await expect(h.call('script.write', { campaign_id: id, input, languages: ['en'] })).rejects.toMatchObject({ type: 'canceled' });
    await expect(h.call('script.analyze', { campaign_id: id, input })).rejects.toMatchObject({ type: 'canceled' });
    expect(await h.sql('SELECT id FROM campaign_scripts WHERE campaign_id = $1', [id])).toEqual([]);
    const [plan] = await h.sql<{ plan: unknown }>('SELECT plan FROM campaign_plans WHERE campaign_id = $1', [id]);
    expect(plan.plan).toEqual({ sourceLanguage: 'en' });
  }, 120_000);

  test('a canceled campaign’s waiting lane turns are removed: its waiting calls end, nothing of it is left to grant', async () => {
    const { orgId, key } = await h.newCustomer('business');
    const created = await h.request('POST', '/api/v1/campaigns', {
      key,
      body: { url: h.pageUrl, languages: ['en', HELD_LANGUAGE], platforms: ['tiktok'] },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.campaign_id;
    await h.sql("UPDATE campaigns SET status = 'voiceover', progress = 35 WHERE id = $1", [id]);
    // Another organization holds more of each stage than any capacity, and its express turn: the lanes' turns wait.
    const blocker = crypto.randomUUID();
    const blockerOrg = crypto.randomUUID();
    for (const stage of ['voiceover', 'rendering'])
      await h.sql(
        `INSERT INTO stage_turns (campaign_id, stage, lane, org_id, weight, age_ms, queued_ms, granted_ms, holder, lease_expires_ms, express)
         VALUES ($1, $2, '', $3, 1000, 0, 0, 0, 'elsewhere', $4, false), ($1, $2, 'express', $3, 1, 0, 0, 0, 'elsewhere', $4, true)`,
        [blocker, stage, blockerOrg, Date.now() + 600_000],
      );
    const gate = (h.worker.getLocalService('campaigns') as unknown as { turnGate(): TurnGate }).turnGate();
    // One lane spoken, the other (past it) rendered: a turn of each waits.
    const lanes = [
      { campaignId: id, stage: 'voiceover', lane: HELD_LANGUAGE },
      { campaignId: id, stage: 'rendering', lane: 'en' },
    ] as const;
    const waits = lanes.map((turn) =>
      gate.take({ ...turn, orgId, weight: 1, ageMs: Date.now() }).then(
        () => 'granted',
        (err: { type?: string }) => err.type,
      ),
    );
    const queued = () =>
      h.sql<{ stage: string; lane: string }>('SELECT stage, lane FROM stage_turns WHERE campaign_id = $1 ORDER BY stage', [id]);
    expect(await waitFor(queued, (rows) => rows.length === 2, 10_000, 50)).toHaveLength(2);
    try {
      expect((await h.request('POST', `/api/v1/campaigns/${id}/cancel`, { key })).status).toBe(200);
      // Gone with the cancel's transaction: no grant can go to them, and they hold no place.
      expect(await queued()).toEqual([]);
      expect(await Promise.all(waits)).toEqual([StageInterruptedError.TYPE, StageInterruptedError.TYPE]);
    } finally {
      for (const turn of lanes) await gate.release(turn);
      await h.sql('DELETE FROM stage_turns WHERE campaign_id = $1', [blocker]);
    }
  }, 60_000);

  test('its start closes the open attempts of its own videos (an earlier run’s), not those of another lane rendering', async () => {
    const { key } = await h.newCustomer('business');
    const created = await h.request('POST', '/api/v1/campaigns', {
      key,
      body: { url: h.pageUrl, languages: ['en', HELD_LANGUAGE], platforms: ['tiktok'] },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.campaign_id;
    await h.sql("UPDATE campaigns SET status = 'rendering', progress = 50 WHERE id = $1", [id]);
    const videos = await h.sql<{ id: string; language: string }>('SELECT id, language FROM videos WHERE campaign_id = $1', [id]);
    for (const video of videos)
      await h.sql(
        "INSERT INTO render_attempts (video_id, campaign_id, node_id, outcome, started_at) VALUES ($1, $2, 'node-a', 'rendering', now())",
        [video.id, id],
      );
    const input = await h.call('campaigns.stageInput', { campaign_id: id });
    // No storyboards were made (the campaign was put in rendering by hand): the stage ends after its start.
    await expect(h.call('rendering.renderCampaign', { campaign_id: id, input, languages: [HELD_LANGUAGE] })).rejects.toMatchObject({
      type: 'render_failed',
    });
    const attempts = await h.sql<{ language: string; outcome: string }>(
      'SELECT v.language, a.outcome FROM render_attempts a JOIN videos v ON v.id = a.video_id WHERE a.campaign_id = $1 ORDER BY v.language',
      [id],
    );
    expect(attempts).toEqual([
      { language: 'en', outcome: 'rendering' },
      { language: HELD_LANGUAGE, outcome: 'lost' },
    ]);
  }, 120_000);
});
