import { defaultTitle, pageLanguageCode, presentCampaign, VIDEO_WARNING_CODES } from '../../lib/campaign/view';

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

test('a video narrated in the page language, not its own (script_source source_text), carries one plain warning; others none', () => {
  const campaign = {
    id: 'c1',
    status: 'rendering',
    url: 'https://acme.io/',
    title: 'acme.io',
    languages: ['en', 'ja', 'fr'],
    platforms: ['tiktok'],
    progress: 60,
    created_at: '2026-11-01T00:00:00.000Z',
    page_language: 'en',
  };
  const video = (id: string, language: string, script_source: string | null) => ({
    id,
    language,
    platform: 'tiktok',
    status: 'rendering',
    script_source,
  });
  const videos = [video('a', 'en', 'localized_page'), video('b', 'ja', 'source_text'), video('c', 'fr', 'translated')];
  const shown = presentCampaign(campaign, videos).videos as any[];
  expect(shown.map((v) => [v.language, v.warnings.map((w: { code: string }) => w.code)])).toEqual([
    ['en', []],
    ['ja', ['narration_not_in_language']],
    ['fr', []],
  ]);
  expect(shown[1].warnings).toEqual([
    {
      code: 'narration_not_in_language',
      message:
        "No ja version of this page was found and no translation provider is configured, so the scenes are narrated in the page's language (en); only the opening and closing lines are in ja. Add a ja page linked with hreflang, or configure TRANSLATION_BASE_URL, then create the campaign again.",
    },
  ]);
  // Before its script is written a video has no source, and no warning.
  expect((presentCampaign(campaign, [video('d', 'ja', null)]).videos as any[])[0].warnings).toEqual([]);
  // The page's language unknown (a campaign scripted before it was recorded), or not a plain code (page text): not named.
  for (const page_language of [null, undefined, '<b>en</b>', 'english']) {
    const [ja] = presentCampaign({ ...campaign, page_language }, [video('b', 'ja', 'source_text')]).videos as any[];
    expect(ja.warnings[0].message).toContain("narrated in the page's own language; only the opening and closing lines are in ja.");
  }
  expect(VIDEO_WARNING_CODES).toEqual(['narration_not_in_language', 'opening_not_distinct']);
});

test('a hook variant whose page gave too few words for its own opening is made, and says it opens as variant a does', () => {
  const campaign = {
    id: 'c2',
    status: 'review',
    url: 'https://weui.example/',
    title: 'weui.example',
    languages: ['zh'],
    platforms: ['tiktok'],
    progress: 100,
    created_at: '2026-11-01T00:00:00.000Z',
    page_language: 'zh',
  };
  const video = (id: string, variant: string, opening_repeated: boolean) => ({
    id,
    language: 'zh',
    platform: 'tiktok',
    variant,
    status: 'ready',
    script_source: 'localized_page',
    opening_repeated,
  });
  const shown = presentCampaign(campaign, [video('a', 'a', false), video('b', 'b', true), video('c', 'c', true)]).videos as any[];
  expect(shown.map((v) => [v.variant, v.warnings.map((w: { code: string }) => w.code)])).toEqual([
    ['a', []],
    ['b', ['opening_not_distinct']],
    ['c', ['opening_not_distinct']],
  ]);
  expect(shown[1].warnings[0].message).toMatch(
    /^The page gave too few words in zh for a different opening, so variant b opens as variant a does/,
  );
  // Narrated from the page's text and repeating a's opening: both said.
  const both = presentCampaign(campaign, [{ ...video('b', 'b', true), script_source: 'source_text' }]).videos as any[];
  expect(both[0].warnings.map((w: { code: string }) => w.code)).toEqual(['narration_not_in_language', 'opening_not_distinct']);
});

test("a page's declared language is kept only as a plain lower-case code", () => {
  expect(pageLanguageCode('en')).toBe('en');
  expect(pageLanguageCode('pt-BR')).toBe('pt');
  expect(pageLanguageCode(' ZH_hant ')).toBe('zh');
  expect(pageLanguageCode('fil')).toBe('fil');
  for (const bad of ['', 'english', '"><script>', 'e1', null, undefined, 42]) expect(pageLanguageCode(bad)).toBeNull();
});
