import { presentCampaign } from '../../lib/campaign/view';
import { renderView } from '../../lib/dashboard/render';
import { variantGroups } from '../../lib/dashboard/variants';

/** The campaign page of lib/dashboard/views/campaign.eta for a campaign's public view, as the dashboard serves it. */
function campaignPage(view: Record<string, unknown>): string {
  return renderView('campaign', { title: view.title, campaign: view, timeline: [], scripts: [], readyCount: 0, csrf: 't' });
}

const campaign = {
  id: '5b0f1c1e-2a43-4c4e-9d55-0c2a9c1d2e3f',
  status: 'rendering',
  url: 'https://acme.io/',
  title: 'acme.io',
  languages: ['en', 'ja'],
  platforms: ['tiktok'],
  progress: 60,
  created_at: '2026-11-01T00:00:00.000Z',
  page_language: 'en',
};
const video = (id: string, language: string, script_source: string) => ({
  id,
  language,
  platform: 'tiktok',
  status: 'rendering',
  script_source,
});

test('a video narrated in the page language shows its warning in plain words beside it; the other video shows none', () => {
  const html = campaignPage(presentCampaign(campaign, [video('a', 'en', 'localized_page'), video('b', 'ja', 'source_text')]));
  const figures = html.split('<figure class="video card"').slice(1);
  expect(figures).toHaveLength(2);
  expect(figures[0]).not.toContain('class="warning"');
  expect(figures[1]).toContain('<p class="warning" role="note" data-warning="narration_not_in_language">');
  expect(figures[1]).toContain('<strong>Scenes not narrated in Japanese.</strong>');
  expect(figures[1]).toContain('narrated in the page&#39;s language (en); only the opening and closing lines are in ja.');
  expect(figures[1]).toContain('configure TRANSLATION_BASE_URL');
});

test('warning text is escaped like all page-derived text', () => {
  const view = presentCampaign(campaign, [video('b', 'ja', 'source_text')]);
  const [shown] = view.videos as Array<{ warnings: Array<{ code: string; message: string }> }>;
  shown.warnings[0].message = '<img src=x onerror=alert(1)>';
  const html = campaignPage(view);
  expect(html).not.toContain('<img');
  expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
});

test("each video's own check is shown under it: its flags in words with the scene, what was mended, or that it passed", () => {
  const checked = '2026-11-28T09:00:00.000Z';
  const flagged = {
    ...video('a', 'en', 'localized_page'),
    status: 'ready',
    quality: {
      checked_at: checked,
      passed: false,
      flags: [{ code: 'cut_text', scene_id: 'scene_3', message: 'Scene 4: the page’s text is cut at the right edge (“<b>installatio”).' }],
      repaired: [{ code: 'repeated_narration', scene_id: 'scene_2', action: 'renarrated' }],
    },
  };
  const clean = {
    ...video('b', 'ja', 'localized_page'),
    status: 'ready',
    quality: { checked_at: checked, passed: true, flags: [], repaired: [] },
  };
  const unchecked = { ...video('c', 'en', 'localized_page'), platform: 'youtube', status: 'ready' };
  const html = campaignPage(presentCampaign({ ...campaign, platforms: ['tiktok', 'youtube'] }, [flagged, clean, unchecked]));
  const [a, c, b] = html.split('<figure class="video card"').slice(1);
  expect(a).toContain(
    '<li data-flag="cut_text" data-scene="scene_3"><strong>Text cut at the edge:</strong> Scene 4: the page’s text is cut',
  );
  expect(a).toContain('&lt;b&gt;installatio');
  expect(a).toContain('<span data-repair="renarrated">Sentence said twice: given other words from the page.</span>');
  expect(b).toContain('quality-passed');
  expect(b).not.toContain('data-flag=');
  expect(c).not.toContain('class="quality"');
});

test('hook variants: each language × platform under its heading, its variants side by side, each with its opening, escaped', () => {
  const view = presentCampaign(campaign, [
    { ...video('a', 'en', 'localized_page'), variant: 'a' },
    { ...video('b', 'en', 'localized_page'), variant: 'b' },
  ]) as unknown as { videos: Array<{ id: string; variant: string; language: string; platform: string }> };
  const script = {
    language: 'en' as const,
    source: 'localized_page' as const,
    title: { onScreenText: 'Acme', narration: [{ text: 'Meet Acme.', language: 'en' as const }] },
    screens: [],
    closing: { onScreenText: 'Try', ctaLabel: 'Try', narration: [] },
    openings: [
      { variant: 'a' as const, kind: 'meet' as const, narration: 'Meet Acme.', headline: 'Acme' },
      { variant: 'b' as const, kind: 'question' as const, narration: 'Still <b>by hand</b>?', headline: 'By <i>hand</i>?' },
    ],
  };
  const html = renderView('campaign', {
    title: 'acme.io',
    campaign: view,
    timeline: [],
    scripts: [],
    readyCount: 0,
    csrf: 't',
    variantGroups: variantGroups(view.videos, [{ language: 'en', script }]),
  });
  expect(html).toContain('<h3 id="variants-en-tiktok">English · TikTok</h3>');
  const figures = html.split('<figure class="video card"').slice(1);
  expect(figures.map((f) => /data-variant="(\w)"/.exec(f)?.[1])).toEqual(['a', 'b']);
  expect(figures[0]).toContain('<strong class="variant-label">Variant A</strong>');
  expect(figures[1]).toContain('Opens with <q class="opening-headline">By &lt;i&gt;hand&lt;/i&gt;?</q>');
  expect(figures[1]).toContain('<q class="opening-narration">Still &lt;b&gt;by hand&lt;/b&gt;?</q>');
  // Without variants: the videos as before, no groups.
  expect(campaignPage(presentCampaign(campaign, [video('a', 'en', 'localized_page')]))).not.toContain('variant-group');
});
