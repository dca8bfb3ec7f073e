import { defaultTitle, presentCampaign } from '../../lib/campaign-view';

test('the default title is the host without a leading www.', () => {
  expect(defaultTitle(new URL('https://www.acme.io/pricing'))).toBe('acme.io');
  expect(defaultTitle(new URL('https://WWW.Acme.io'))).toBe('acme.io');
  expect(defaultTitle(new URL('https://shop.acme.io/x'))).toBe('shop.acme.io');
  expect(defaultTitle(new URL('https://wwwacme.io'))).toBe('wwwacme.io');
});

test('videos are ordered by language then platform, links null until ready, error only when failed', () => {
  const campaign = {
    id: 'c1',
    status: 'failed',
    url: 'https://acme.io/',
    title: 'acme.io',
    languages: ['ja', 'en'],
    platforms: ['youtube', 'tiktok'],
    progress: 0,
    created_at: '2026-11-01T00:00:00.000Z',
    error_code: 'timeout',
    error_message: 'Took too long.',
  };
  const video = (id: string, language: string, platform: string) => ({ id, language, platform, status: 'queued' });
  const body = presentCampaign(campaign, [
    video('a', 'en', 'tiktok'),
    video('b', 'ja', 'tiktok'),
    video('c', 'en', 'youtube'),
    video('d', 'ja', 'youtube'),
  ]);
  expect((body.videos as any[]).map((v) => v.id)).toEqual(['d', 'b', 'c', 'a']);
  expect((body.videos as any[])[0]).toMatchObject({
    file_url: null,
    captions_url: null,
    captions_srt_url: null,
    thumbnail_url: null,
    published_at: null,
    duration_seconds: null,
  });
  expect(body.error).toEqual({ code: 'timeout', message: 'Took too long.' });
  expect(presentCampaign({ ...campaign, status: 'collecting' }, []).error).toBeUndefined();
});

test('each video carries the links the caller signs for it; without a signer they stay null', () => {
  const campaign = {
    id: 'c1',
    status: 'review',
    url: 'https://acme.io/',
    title: 'acme.io',
    languages: ['en'],
    platforms: ['tiktok', 'youtube'],
    progress: 100,
    created_at: '2026-11-01T00:00:00.000Z',
  };
  const videos = [
    {
      id: 'a',
      language: 'en',
      platform: 'tiktok',
      status: 'ready',
      file_key: 'a.mp4',
      captions_key: 'a.vtt',
      captions_srt_key: 'a.srt',
      thumbnail_key: 'a.jpg',
    },
    { id: 'b', language: 'en', platform: 'youtube', status: 'rendering' },
  ];
  const cdn = (key: string | null | undefined) => (key ? `https://cdn.example/${key}` : null);
  const signed = presentCampaign(campaign, videos, (video) => ({
    file_url: cdn(video.file_key),
    captions_url: cdn(video.captions_key),
    captions_srt_url: cdn(video.captions_srt_key),
    thumbnail_url: cdn(video.thumbnail_key),
  }));
  expect((signed.videos as any[]).map((v) => [v.id, v.file_url, v.captions_url, v.captions_srt_url, v.thumbnail_url])).toEqual([
    ['a', 'https://cdn.example/a.mp4', 'https://cdn.example/a.vtt', 'https://cdn.example/a.srt', 'https://cdn.example/a.jpg'],
    ['b', null, null, null, null],
  ]);
  // Storage keys are internal: they never reach the public body.
  for (const key of ['file_key', 'captions_key', 'captions_srt_key', 'thumbnail_key'])
    expect((signed.videos as any[])[0]).not.toHaveProperty(key);
  expect((presentCampaign(campaign, videos).videos as any[])[0]).toMatchObject({
    file_url: null,
    captions_url: null,
    captions_srt_url: null,
    thumbnail_url: null,
  });
});
