/**
 * Each video as soon as it is ready (decisions §15): after processing, each language of a campaign runs its own lane
 * (script → voice → render, lib/campaign/lanes.ts). Through the whole pipeline (Chromium, the voices, editly at draft
 * quality), with the second language's voice stage held by the test (a middleware on the worker broker, no timing):
 * the first language's video is ready, shown by GET and announced by its signed video.ready, while the second is not
 * and the campaign shows its least advanced lane (voiceover). Then the held call ends as a node stopping would end it:
 * the lane waits, the actor lets the campaign go, and the actor that takes it over goes on from what is recorded —
 * the first language is neither scripted nor spoken again — to review with every video and one campaign.completed
 * after both video.ready.
 */
import { Errors, type Context, type Middleware } from 'moleculer';
import { createCampaignClient, verifyWebhook, type WebhookEvent } from '../../clients/typescript/src';
import { StageInterruptedError } from '../../lib/errors';
import { webhookReceivers } from '../fixtures/webhook-receiver';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const HELD_LANGUAGE = 'ja';

/** The stage calls the actor made, as "action languages", and the hold on the held language's first voice call. */
function laneWatch() {
  const calls: string[] = [];
  let letGo: (how: 'interrupt' | 'go') => void = () => undefined;
  const released = new Promise<'interrupt' | 'go'>((resolve) => (letGo = resolve));
  let held = false;
  let reached: () => void = () => undefined;
  const heldNow = new Promise<void>((resolve) => (reached = resolve));
  const middleware: Middleware = {
    name: 'HoldSecondLane',
    localAction(next: (ctx: Context) => Promise<unknown>, action: { name?: string }) {
      if (!['script.write', 'voice.speak', 'rendering.renderCampaign'].includes(action.name ?? '')) return next;
      return async (ctx: Context<{ languages?: string[] }>) => {
        const languages = ctx.params.languages?.join(',') ?? 'all';
        calls.push(`${action.name} ${languages}`);
        if (action.name === 'voice.speak' && languages === HELD_LANGUAGE && !held) {
          held = true;
          reached();
          // Ended as a stopping voice node ends it (STAGE_INTERRUPTED: the campaign waits), not retried by the broker.
          if ((await released) === 'interrupt')
            throw new Errors.MoleculerError('The voice node stopped (held by the test).', 503, StageInterruptedError.TYPE);
        }
        return next(ctx);
      };
    },
  };
  return { middleware, calls, heldNow, letGo };
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
    watch.letGo('go');
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

    await watch.heldNow;
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
    expect(watch.calls.filter((c) => c.endsWith(` ${HELD_LANGUAGE}`))).toEqual([
      `script.write ${HELD_LANGUAGE}`,
      `voice.speak ${HELD_LANGUAGE}`,
    ]);
  }, 900_000);

  test('the held lane, interrupted, is resumed by the next actor from what is recorded; the campaign reaches review', async () => {
    // The first lane ends (its render recorded), then the interrupted one waits: the actor lets the campaign go.
    watch.letGo('interrupt');
    const done = await waitFor(read, (c) => ['review', 'failed'].includes(c.status), 600_000, 1000);
    expect(done.error ?? null).toBeNull();
    expect(done.status).toBe('review');
    expect(done.progress).toBe(100);
    expect(done.videos.map((v) => [v.language, v.status])).toEqual([
      ['en', 'ready'],
      [HELD_LANGUAGE, 'ready'],
    ]);
    // The first language was scripted, spoken and rendered once; only the held lane's voice was called again.
    expect(watch.calls.filter((c) => c.endsWith(' en'))).toEqual(['script.write en', 'voice.speak en', 'rendering.renderCampaign en']);
    expect(watch.calls.filter((c) => c.endsWith(` ${HELD_LANGUAGE}`))).toEqual([
      `script.write ${HELD_LANGUAGE}`,
      `voice.speak ${HELD_LANGUAGE}`,
      `voice.speak ${HELD_LANGUAGE}`,
      `rendering.renderCampaign ${HELD_LANGUAGE}`,
    ]);
    // Each documented step once, in order.
    const timeline = await h.sql<{ to_status: string }>('SELECT to_status FROM campaign_events WHERE campaign_id = $1 ORDER BY id', [id]);
    expect(timeline.map((e) => e.to_status)).toEqual(['collecting', 'processing', 'scripting', 'voiceover', 'rendering', 'review']);
    // Both video.ready before the one campaign.completed.
    const received = await waitFor(
      async () => events(),
      (list) => list.includes('campaign.completed'),
      30_000,
      100,
    );
    expect(received).toEqual(['video.ready en', `video.ready ${HELD_LANGUAGE}`, 'campaign.completed']);
  }, 900_000);
});
