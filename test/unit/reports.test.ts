/**
 * lib/ops/reports.ts: report ids, the usage report's sums, and a campaign report assembled from its owners' facts —
 * including a campaign that ended before its voiceover (the script as written, no timings, no voice).
 */
import { CAMPAIGN_STATES } from '../../lib/campaign/states';
import { buildCampaignReport, buildUsageReport, campaignIdOfReport, reportIdOf, type ReportInputs } from '../../lib/ops/reports';
import type { ScriptDocument } from '../../lib/script/writer';
import type { Storyboard } from '../../lib/campaign/storyboard';

const ID = '0b4f2c4e-8d1a-4c55-9a77-3f1e2d5c6b7a';

test('a report id exists once the campaign has an outcome, and only our ids lead back to a campaign', () => {
  expect(reportIdOf({ id: ID, status: 'rendering' })).toBeNull();
  for (const status of ['review', 'published', 'failed']) expect(reportIdOf({ id: ID, status })).toBe(`rpt_${ID}`);
  expect(campaignIdOfReport(`rpt_${ID}`)).toBe(ID);
  expect(campaignIdOfReport(`rpt_${ID.toUpperCase()}`)).toBe(ID);
  for (const bad of [ID, `rpt_${ID}x`, 'rpt_', 'usage', `report_${ID}`]) expect(campaignIdOfReport(bad)).toBeUndefined();
});

test('usage: every state listed, videos and seconds summed by language and by platform, largest first', () => {
  const report = buildUsageReport(
    { month: '2026-11', used: 4, limit: 40, resets_at: '2026-12-01T00:00:00.000Z' },
    {
      campaigns: [
        { status: 'review', count: 2 },
        { status: 'failed', count: 1 },
        { status: 'rendering', count: 1 },
      ],
      videos: [
        { language: 'en', platform: 'tiktok', count: 2, seconds: 41.26 },
        { language: 'ja', platform: 'tiktok', count: 1, seconds: 19.5 },
        { language: 'en', platform: 'youtube', count: 1, seconds: 20 },
      ],
    },
    CAMPAIGN_STATES,
  );
  expect(report.campaigns).toEqual({
    total: 4,
    by_status: { collecting: 0, processing: 0, scripting: 0, voiceover: 0, rendering: 1, review: 2, published: 0, failed: 1 },
  });
  expect(report.videos).toEqual({ rendered: 4, seconds: 80.8 });
  expect(report.by_language).toEqual([
    { language: 'en', videos: 3, seconds: 61.3 },
    { language: 'ja', videos: 1, seconds: 19.5 },
  ]);
  expect(report.by_platform).toEqual([
    { platform: 'tiktok', videos: 3, seconds: 60.8 },
    { platform: 'youtube', videos: 1, seconds: 20 },
  ]);
});

const scene = (text: string) => ({ onScreenText: text.toUpperCase(), narration: [{ text, language: 'en' as const }] });
const script: ScriptDocument = {
  language: 'en',
  source: 'source_text',
  title: scene('Acme.'),
  screens: [scene('It counts.')],
  closing: { ...scene('Try it.'), ctaLabel: 'Try' },
  openings: [{ variant: 'a', kind: 'meet', narration: 'Acme.', headline: 'ACME.' }],
};
const timeline = [
  { from_status: null, to_status: 'collecting', at: '2026-11-25T10:00:00.000Z' },
  { from_status: 'collecting', to_status: 'processing', at: '2026-11-25T10:00:05.250Z' },
  { from_status: 'processing', to_status: 'failed', at: '2026-11-25T10:00:06.000Z' },
];

test('a campaign that failed before its voiceover: the script as written, no timings, no voice; states timed', () => {
  const inputs: ReportInputs = {
    campaign: {
      campaign_id: ID,
      status: 'failed',
      url: 'https://acme.example/',
      created_at: timeline[0].at,
      error: { code: 'speech_failed', message: 'x' },
      videos: [{ id: 'v1', language: 'en', platform: 'tiktok', status: 'failed', duration_seconds: null }],
    },
    timeline,
    scripts: [{ language: 'en', script_source: 'source_text', script }],
    storyboards: [],
    attempts: [],
  };
  const report = buildCampaignReport(`rpt_${ID}`, inputs);
  expect(report.finished_at).toBe('2026-11-25T10:00:06.000Z');
  expect(report.error).toEqual({ code: 'speech_failed', message: 'x' });
  expect(report.states).toEqual([
    { state: 'collecting', entered_at: timeline[0].at, left_at: timeline[1].at, seconds: 5.3 },
    { state: 'processing', entered_at: timeline[1].at, left_at: timeline[2].at, seconds: 0.8 },
    { state: 'failed', entered_at: timeline[2].at, left_at: null, seconds: null },
  ]);
  expect(report.languages).toEqual([
    {
      language: 'en',
      script_source: 'source_text',
      voice: null,
      total_seconds: null,
      scenes: [
        { index: 0, kind: 'title', on_screen_text: 'ACME.', narration: 'Acme.', start_seconds: null, duration_seconds: null },
        { index: 1, kind: 'screen', on_screen_text: 'IT COUNTS.', narration: 'It counts.', start_seconds: null, duration_seconds: null },
        { index: 2, kind: 'closing', on_screen_text: 'TRY IT.', narration: 'Try it.', start_seconds: null, duration_seconds: null },
      ],
    },
  ]);
  expect(report.videos).toEqual([
    { id: 'v1', language: 'en', platform: 'tiktok', status: 'failed', duration_seconds: null, render_attempts: [] },
  ]);
});

test('a spoken campaign: the storyboard is what was said (its text, times and voice); attempts per video, oldest first', () => {
  const spoken = {
    language: 'en',
    totalSeconds: 9.5,
    voice: { engine: 'festival', name: 'cmu_us_slt_arctic_hts' },
    scenes: [
      {
        index: 0,
        kind: 'title',
        onScreenText: 'ACME.',
        narration: [{ text: 'Acme, refitted.', language: 'en' }],
        startSeconds: 0,
        durationSeconds: 3,
      },
      {
        index: 1,
        kind: 'closing',
        onScreenText: 'TRY IT.',
        narration: [{ text: 'Try it.', language: 'en' }],
        startSeconds: 3,
        durationSeconds: 6.5,
      },
    ],
  } as unknown as Storyboard;
  const attempt = (started: string, outcome: string, wall: number | null) => ({
    video_id: 'v1',
    node_id: 'render-1',
    outcome,
    started_at: started,
    finished_at: null,
    wall_ms: wall,
    error_message: outcome === 'failed' ? 'editly died' : null,
  });
  const report = buildCampaignReport(`rpt_${ID}`, {
    campaign: {
      campaign_id: ID,
      status: 'review',
      url: 'https://acme.example/',
      created_at: timeline[0].at,
      videos: [{ id: 'v1', language: 'en', platform: 'tiktok', status: 'ready', duration_seconds: 9.5 }],
    },
    timeline: [...timeline.slice(0, 2), { from_status: 'processing', to_status: 'review', at: '2026-11-25T10:00:30.000Z' }],
    scripts: [{ language: 'en', script_source: 'source_text', script }],
    storyboards: [{ video_id: 'v1', document: spoken }],
    attempts: [attempt('2026-11-25T10:00:20.000Z', 'ready', 8040), attempt('2026-11-25T10:00:10.000Z', 'failed', null)],
  });
  expect(report).not.toHaveProperty('error');
  expect(report.finished_at).toBe('2026-11-25T10:00:30.000Z');
  expect(report.languages[0]).toMatchObject({ voice: { engine: 'festival', name: 'cmu_us_slt_arctic_hts' }, total_seconds: 9.5 });
  expect(report.languages[0].scenes.map((s) => [s.kind, s.narration, s.start_seconds, s.duration_seconds])).toEqual([
    ['title', 'Acme, refitted.', 0, 3],
    ['closing', 'Try it.', 3, 6.5],
  ]);
  expect(report.videos[0].render_attempts.map((a) => [a.outcome, a.seconds, a.error])).toEqual([
    ['failed', null, 'editly died'],
    ['ready', 8, null],
  ]);
});
