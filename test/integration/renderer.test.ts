/**
 * The renderer in one process (Fake transporter between nodes): a real campaign from the fixture site
 * to `review`, every video rendered by editly and checked with ffprobe; burned-in ja/ko
 * captions; a bad input file retried on another render node, then failing its video and the campaign.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServiceBroker } from 'moleculer';
import { brokerOptions } from '../../broker-options';
import { probeVideo } from '../../lib/render/media';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { CampaignCanceledError } from '../../lib/errors';
import { CAMPAIGN_WORK_STOPS } from '../../mixins/cancelable.mixin';
import RendererService from '../../services/renderer.service';
import { ANNOUNCE_SOON, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

// Generous: these tests are about the pipeline, not the limiter (whose Redis deadline a loaded CI machine can miss).
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
const DRAFT_FRAMES: Record<string, [number, number]> = { tiktok: [540, 960], youtube: [960, 540], linkedin: [540, 540] };

/** Grey levels of one frame at `seconds`. */
function grayFrame(file: string, seconds: number, width: number, height: number): Buffer {
  const raw = execFileSync('ffmpeg', [
    '-v',
    'error',
    '-ss',
    String(seconds),
    '-i',
    file,
    '-frames:v',
    '1',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'gray',
    '-',
  ]);
  expect(raw.length).toBe(width * height);
  return raw;
}

/** Share of pixels in rows [from, to) (fractions of the height) whose grey level differs by more than 40. */
function differingShare(a: Buffer, b: Buffer, width: number, height: number, from: number, to: number): number {
  let differing = 0;
  let total = 0;
  for (let y = Math.floor(height * from); y < Math.floor(height * to); y += 1) {
    for (let x = 0; x < width; x += 1) {
      total += 1;
      if (Math.abs(a[y * width + x] - b[y * width + x]) > 40) differing += 1;
    }
  }
  return differing / total;
}

describe('rendering in one process', () => {
  let h: Harness;
  let key: string;
  let campaignId: string;
  const files = (k: string) => path.join(h.config.dataDir, 'files', k);

  beforeAll(async () => {
    h = await startHarness({
      render: 'worker',
      config: { rateLimits: limits, videoTargetSeconds: 12, captureMaxShots: 3, renderConcurrency: 2 },
    });
    ({ key } = await h.newCustomer('business'));
  });
  afterAll(async () => h?.stop());

  test("a campaign reaches review with every video ready: H.264 yuv420p, the frame of its platform, AAC, the storyboard's length", async () => {
    const created = await h.request('POST', '/api/v1/campaigns', {
      key,
      body: { url: h.pageUrl, languages: ['ja', 'ko'], platforms: ['tiktok', 'youtube', 'linkedin'] },
    });
    expect(created.status).toBe(201);
    campaignId = created.body.campaign_id;
    const done = await waitFor(
      () => h.request('GET', `/api/v1/campaigns/${campaignId}`, { key }),
      (res) => ['review', 'failed'].includes(res.body.status),
      300_000,
      500,
    );
    expect(done.body.error).toBeUndefined();
    expect(done.body.status).toBe('review');
    expect(done.body.progress).toBe(100);
    expect(done.body.videos).toHaveLength(6);

    const rows = await h.sql(
      'SELECT v.id, v.platform, v.status, v.file_key, v.thumbnail_key, v.captions_srt_key, v.duration_seconds, s.document FROM videos v JOIN storyboards s ON s.video_id = v.id WHERE v.campaign_id = $1',
      [campaignId],
    );
    for (const row of rows) {
      expect(row.status).toBe('ready');
      expect(row.file_key).toBe(`campaigns/${campaignId}/videos/${row.id}.mp4`);
      // Beside it, the poster and the SubRip captions (test/integration/poster-captions.test.ts looks inside them).
      expect(row.thumbnail_key).toBe(`campaigns/${campaignId}/videos/${row.id}.jpg`);
      expect(row.captions_srt_key).toBe(`campaigns/${campaignId}/videos/${row.id}.srt`);
      expect(fs.existsSync(files(row.thumbnail_key)) && fs.existsSync(files(row.captions_srt_key))).toBe(true);
      const probe = await probeVideo(files(row.file_key));
      const [width, height] = DRAFT_FRAMES[row.platform];
      expect(probe).toMatchObject({ videoCodec: 'h264', pixelFormat: 'yuv420p', width, height, audioCodec: 'aac', faststart: true });
      const storyboard = row.document as Storyboard;
      expect(Math.abs(probe.durationSeconds - storyboard.totalSeconds)).toBeLessThanOrEqual(0.2);
      expect(Math.abs(row.duration_seconds - storyboard.totalSeconds)).toBeLessThanOrEqual(0.2);
    }
    const attempts = await h.sql('SELECT outcome, node_id FROM render_attempts WHERE campaign_id = $1 AND outcome <> $2', [
      campaignId,
      'busy',
    ]);
    expect(attempts).toHaveLength(6);
    expect(attempts.every((a) => a.outcome === 'ready' && a.node_id === h.worker.nodeID)).toBe(true);
    // Nothing half-written is left: no partial files in the store, no render work directories.
    const stored = fs.readdirSync(path.join(h.config.dataDir, 'files'), { recursive: true }) as string[];
    expect(stored.filter((name) => name.endsWith('~partial'))).toEqual([]);
    expect(
      fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('render-') && rows.some((r) => name.includes(`-${r.id}-`))),
    ).toEqual([]);
  }, 360_000);

  test('ja and ko captions are drawn: the caption area differs from the same frame rendered with captions hidden', async () => {
    expect(campaignId).toBeDefined();
    const rows = await h.sql(
      "SELECT v.id, v.language, v.file_key, s.document FROM videos v JOIN storyboards s ON s.video_id = v.id WHERE v.campaign_id = $1 AND v.platform = 'tiktok'",
      [campaignId],
    );
    expect(rows.map((r) => r.language).sort()).toEqual(['ja', 'ko']);
    const emptyCaptions = `campaigns/${campaignId}/test/empty.vtt`;
    fs.mkdirSync(path.dirname(files(emptyCaptions)), { recursive: true });
    fs.writeFileSync(files(emptyCaptions), 'WEBVTT\n');
    for (const row of rows) {
      const storyboard = row.document as Storyboard;
      const hiddenKey = `campaigns/${campaignId}/test/${row.language}-no-captions.mp4`;
      await h.call('renderer.renderVideo', {
        video_id: row.id,
        output_key: hiddenKey,
        thumbnail_key: hiddenKey.replace(/\.mp4$/, '.jpg'),
        captions_srt_key: hiddenKey.replace(/\.mp4$/, '.srt'),
        storyboard: { ...storyboard, captionsKey: emptyCaptions },
      });
      const screen = storyboard.scenes.find((s) => s.kind === 'screen')!;
      const moment = screen.startSeconds + screen.durationSeconds / 2;
      const [width, height] = DRAFT_FRAMES.tiktok;
      const withCaptions = grayFrame(files(row.file_key), moment, width, height);
      const without = grayFrame(files(hiddenKey), moment, width, height);
      // The caption sits in the lower part of a vertical frame; above it the two frames are the same picture.
      expect(differingShare(withCaptions, without, width, height, 0.55, 0.8)).toBeGreaterThan(0.01);
      expect(differingShare(withCaptions, without, width, height, 0.2, 0.45)).toBeLessThan(0.002);
    }
  }, 180_000);

  test("a node's slots all busy: one express render runs past them (an express turn's), a second one and a plain one are refused", async () => {
    expect(campaignId).toBeDefined();
    const [row] = await h.sql(
      "SELECT v.id, s.document FROM videos v JOIN storyboards s ON s.video_id = v.id WHERE v.campaign_id = $1 AND v.platform = 'tiktok' LIMIT 1",
      [campaignId],
    );
    // Under a campaign id of its own: the stop below (remembered for a while) touches no other test's renders.
    const stopped = crypto.randomUUID();
    const storyboard = { ...(row.document as Storyboard), campaignId: stopped };
    const status = () =>
      h.worker.call<{ slots: number; busy: number; express_busy: number }, Record<string, never>>(
        'renderer.status',
        {},
        { nodeID: h.worker.nodeID },
      );
    const render = (name: string, express: boolean) => {
      const output = `campaigns/${campaignId}/test/${name}.mp4`;
      return h.worker
        .call(
          'renderer.renderVideo',
          {
            video_id: row.id,
            output_key: output,
            thumbnail_key: output.replace(/\.mp4$/, '.jpg'),
            captions_srt_key: output.replace(/\.mp4$/, '.srt'),
            storyboard,
          },
          { nodeID: h.worker.nodeID, meta: express ? { express } : {} },
        )
        .then(
          () => 'rendered',
          (err: { type?: string }) => err.type,
        );
    };
    const plain = [render('plain-1', false), render('plain-2', false)];
    expect(await waitFor(status, (s) => s.busy === 2, 10_000, 50)).toMatchObject({ slots: 2, busy: 2, express_busy: 0 });
    const express = render('express-1', true);
    expect(await waitFor(status, (s) => s.express_busy === 1, 10_000, 50)).toMatchObject({ busy: 2, express_busy: 1 });
    expect(await render('plain-3', false)).toBe('RENDERER_BUSY');
    expect(await render('express-2', true)).toBe('RENDERER_BUSY');
    // Enough seen: the three stop (as for a canceled campaign), and every slot is given back.
    await h.worker.broadcast(CAMPAIGN_WORK_STOPS, { campaign_id: stopped });
    expect(await Promise.all([...plain, express])).toEqual([
      CampaignCanceledError.TYPE,
      CampaignCanceledError.TYPE,
      CampaignCanceledError.TYPE,
    ]);
    expect(await status()).toMatchObject({ busy: 0, express_busy: 0 });
  }, 180_000);

  test('a bad input file fails its video with a clear error after tries on more than one node; the stage fails render_failed', async () => {
    expect(campaignId).toBeDefined();
    const second = new ServiceBroker({
      ...brokerOptions(h.config),
      ...ANNOUNCE_SOON,
      nodeID: `render-b-${crypto.randomBytes(3).toString('hex')}`,
      transporter: 'Fake',
      logger: false,
    });
    second.createService(RendererService);
    await second.start();
    try {
      await waitFor(
        async () => h.worker.registry.getActionEndpoints('renderer.renderVideo')?.count() ?? 0,
        (n) => n >= 2,
        10_000,
        100,
      );
      const [source] = await h.sql(
        "SELECT v.id, s.document FROM videos v JOIN storyboards s ON s.video_id = v.id WHERE v.campaign_id = $1 AND v.language = 'ja' AND v.platform = 'linkedin'",
        [campaignId],
      );
      // A campaign the actor leaves alone (terminal), so that only this call renders it.
      const broken = crypto.randomUUID();
      const video = crypto.randomUUID();
      await h.sql(
        `INSERT INTO campaigns (id, org_id, job_id, status, url, title, languages, platforms, webhook_url, progress, quota_period, status_changed_at, deadline_at, created_at, updated_at)
        SELECT $2, org_id, $2, 'failed', url, title, '["ja"]', '["linkedin"]', NULL, 50, quota_period, now(), deadline_at, now(), now() FROM campaigns WHERE id = $1`,
        [campaignId, broken],
      );
      await h.sql(
        "INSERT INTO videos (id, campaign_id, language, platform, status, created_at, updated_at) VALUES ($1, $2, 'ja', 'linkedin', 'queued', now(), now())",
        [video, broken],
      );
      const storyboard = source.document as Storyboard;
      const badKey = `campaigns/${broken}/capture/broken.png`;
      fs.mkdirSync(path.dirname(files(badKey)), { recursive: true });
      fs.writeFileSync(files(badKey), Buffer.from('\x89PNG\r\n\x1a\nthis is not an image'));
      const document = {
        ...storyboard,
        videoId: video,
        scenes: storyboard.scenes.map((s) => (s.kind === 'screen' ? { ...s, screenshotKey: badKey } : s)),
      };
      await h.sql('INSERT INTO storyboards (video_id, campaign_id, document, created_at, updated_at) VALUES ($1, $2, $3, now(), now())', [
        video,
        broken,
        JSON.stringify(document),
      ]);

      // Called as the actor calls it: with the campaign's stage input, read from its owner.
      const input = await h.call('campaigns.stageInput', { campaign_id: broken });
      const failure = await h.call('rendering.renderCampaign', { campaign_id: broken, input }).then(
        () => null,
        (err: Error & { type?: string }) => err,
      );
      expect(failure).toMatchObject({ type: 'render_failed' });
      expect(failure!.message).toMatch(/1 of 1 videos could not be rendered/);
      const attempts = await h.sql('SELECT node_id, outcome, error_message FROM render_attempts WHERE video_id = $1 ORDER BY id', [video]);
      const failed = attempts.filter((a) => a.outcome === 'failed');
      expect(failed).toHaveLength(h.config.renderAttempts);
      // The second try went to the other node.
      expect(new Set(failed.map((a) => a.node_id))).toEqual(new Set([h.worker.nodeID, second.nodeID]));
      expect(failed[0].node_id).not.toBe(failed[1].node_id);
      // The video's final report travels with the stage's failure: the campaign actor records it with the transition.
      const reports = (failure as Error & { data?: { videos?: Array<Record<string, unknown>> } }).data?.videos;
      expect(reports).toEqual([
        expect.objectContaining({
          campaign_id: broken,
          video_id: video,
          status: 'failed',
          error_code: 'render_failed',
          error_message: `Input file ${badKey} is not a readable image.`,
        }),
      ]);
      expect(fs.existsSync(files(`campaigns/${broken}/videos/${video}.mp4`))).toBe(false);

      // Run by the campaign actor (its sweep takes a rendering campaign up), the same failure is recorded on the video
      // with the campaign's, in one transaction.
      await h.sql("UPDATE campaigns SET status = 'rendering', deadline_at = now() + interval '10 minutes' WHERE id = $1", [broken]);
      const [ended] = await waitFor(
        () => h.sql('SELECT status, error_code FROM campaigns WHERE id = $1', [broken]),
        (rows) => rows[0]?.status === 'failed',
        120_000,
        250,
      );
      expect(ended.error_code).toBe('render_failed');
      const [row] = await h.sql('SELECT status, error_code, error_message FROM videos WHERE id = $1', [video]);
      expect(row).toEqual({
        status: 'failed',
        error_code: 'render_failed',
        error_message: `Input file ${badKey} is not a readable image.`,
      });
    } finally {
      await second.stop();
    }
  }, 240_000);
});
