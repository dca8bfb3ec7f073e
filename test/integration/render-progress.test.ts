/**
 * The campaign's progress while it renders (services/campaigns/orchestrator.ts recordVideo): the rendering stage emits a
 * report per change of a video (VIDEO_REPORTED, an event, not a call), and the owner applies it only while the
 * campaign renders and only if it is newer than the last one applied (events can cross), moving the campaign within
 * its band (50 → 99) as videos become ready.
 */
import { VIDEO_REPORTED, type VideoReport } from '../../lib/campaign/stages';
import { startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { pipelinePaused: true } });
});
afterAll(async () => h?.stop());

test('reports move a rendering campaign through its band, newest report wins, and none applies outside rendering', async () => {
  const { key } = await h.newCustomer('business');
  const created = await h.request('POST', '/api/v1/campaigns', {
    key,
    body: { url: h.pageUrl, languages: ['en', 'ja'], platforms: ['tiktok'] },
  });
  expect(created.status).toBe(201);
  const id: string = created.body.campaign_id;
  const state = async () => {
    const [campaign] = await h.sql<{ progress: number }>('SELECT progress FROM campaigns WHERE id = $1', [id]);
    const videos = await h.sql<{ status: string }>('SELECT status FROM videos WHERE campaign_id = $1 ORDER BY language', [id]);
    return { progress: campaign.progress, videos: videos.map((v) => v.status) };
  };
  const videos = await h.sql<{ id: string }>('SELECT id FROM videos WHERE campaign_id = $1 ORDER BY language', [id]);
  expect(videos).toHaveLength(2);
  const report = (video: number, at: number, status: VideoReport['status'], fileKey?: string): Promise<void> =>
    h.api.emit(VIDEO_REPORTED, {
      campaign_id: id,
      video_id: videos[video].id,
      at,
      status,
      ...(fileKey ? { file_key: fileKey } : {}),
    } satisfies VideoReport);
  const settles = (expected: { progress: number; videos: string[] }) =>
    waitFor(state, (s) => JSON.stringify(s) === JSON.stringify(expected), 10_000, 50);

  // Not rendering yet: a report changes nothing (a late one after a cancel would otherwise revive a video).
  await report(0, 1000, 'ready', 'a.mp4');
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await state()).toEqual({ progress: 0, videos: ['queued', 'queued'] });

  await h.sql("UPDATE campaigns SET status = 'rendering', progress = 50 WHERE id = $1", [id]);
  await report(0, 2000, 'rendering');
  await settles({ progress: 50, videos: ['rendering', 'queued'] });
  await report(0, 4000, 'ready', 'a.mp4');
  await settles({ progress: 75, videos: ['ready', 'queued'] });
  // An older report arriving late (events can cross) is ignored.
  await report(0, 3000, 'rendering');
  await report(1, 5000, 'ready', 'b.mp4');
  // Never 100 while rendering: that is review's.
  await settles({ progress: 99, videos: ['ready', 'ready'] });
  expect((await state()).videos[0]).toBe('ready');

  // Out of rendering, the videos are the transition's: a report made before it changes nothing.
  await h.sql("UPDATE campaigns SET status = 'review', progress = 100 WHERE id = $1", [id]);
  await report(1, 6000, 'rendering');
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await state()).toEqual({ progress: 100, videos: ['ready', 'ready'] });
});
