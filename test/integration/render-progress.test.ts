/**
 * The campaign's progress while it renders (services/campaigns/orchestrator.ts recordVideo): the rendering stage only
 * reports each video's state, and the owner moves the campaign within its band (50 → 99) as videos become ready.
 */
import { startHarness, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { pipelinePaused: true } });
});
afterAll(async () => h?.stop());

test('each video ready moves a rendering campaign through its band; other reports and other states leave it', async () => {
  const { key } = await h.newCustomer('business');
  const created = await h.request('POST', '/api/v1/campaigns', {
    key,
    body: { url: h.pageUrl, languages: ['en', 'ja'], platforms: ['tiktok'] },
  });
  expect(created.status).toBe(201);
  const id: string = created.body.campaign_id;
  const progress = async () => (await h.sql<{ progress: number }>('SELECT progress FROM campaigns WHERE id = $1', [id]))[0].progress;
  const videos = await h.sql<{ id: string }>('SELECT id FROM videos WHERE campaign_id = $1 ORDER BY language', [id]);
  expect(videos).toHaveLength(2);

  // Not rendering yet: a report changes the video, not the campaign.
  await h.call('campaigns.recordVideo', { video_id: videos[0].id, status: 'ready', file_key: 'a.mp4' });
  expect(await progress()).toBe(0);

  await h.sql("UPDATE campaigns SET status = 'rendering', progress = 50 WHERE id = $1", [id]);
  await h.sql("UPDATE videos SET status = 'queued' WHERE campaign_id = $1", [id]);
  await h.call('campaigns.recordVideo', { video_id: videos[0].id, status: 'rendering' });
  expect(await progress()).toBe(50);
  await h.call('campaigns.recordVideo', { video_id: videos[0].id, status: 'ready', file_key: 'a.mp4' });
  expect(await progress()).toBe(75);
  await h.call('campaigns.recordVideo', { video_id: videos[1].id, status: 'ready', file_key: 'b.mp4' });
  // Never 100 while rendering: that is review's.
  expect(await progress()).toBe(99);
});
