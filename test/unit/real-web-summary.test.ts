/**
 * The real-web bench's counting (bench/real-web/summary.ts): from campaign GET bodies to the numbers it prints —
 * videos ready, videos passed, flags by code, repairs by action and the no-flag total over all videos — so that a
 * comparison of two runs compares what the product reported and nothing the bench made up.
 */
import { outcomeOf, summary, type CampaignBody, type CampaignVideo, type SiteEntry } from '../../bench/real-web/summary';
import type { QualityReport } from '../../lib/quality/report';

const entry: SiteEntry = { name: 'shop', path: '/', kind: 'shop', languages: ['en'], platforms: ['tiktok', 'youtube'], repo: 'o/r' };

function video(id: string, status: string, quality?: QualityReport): CampaignVideo {
  return { id, language: 'en', platform: 'tiktok', status, duration_seconds: 20, file_url: null, captions_url: null, quality };
}

const flagged: QualityReport = {
  checked_at: '2026-01-01T00:00:00Z',
  passed: false,
  flags: [
    { code: 'cut_text', scene_id: 'scene_1', message: 'cut' },
    { code: 'cut_text', scene_id: 'scene_2', message: 'cut' },
    { code: 'boilerplate', scene_id: 'scene_3', message: 'nav' },
  ],
  repaired: [{ code: 'duplicate_screen', scene_id: 'scene_2', action: 'replaced' }],
};
const clean: QualityReport = {
  checked_at: '2026-01-01T00:00:00Z',
  passed: true,
  flags: [],
  repaired: [
    { code: 'cut_text', scene_id: 'scene_1', action: 'reframed' },
    { code: 'repeated_narration', scene_id: 'scene_2', action: 'renarrated' },
  ],
};

function body(videos: CampaignVideo[]): CampaignBody {
  return { campaign_id: 'c', status: 'review', videos };
}

describe('real-web bench counting', () => {
  it('counts each site’s videos ready, passed, flags by code and repairs by action', () => {
    const outcome = outcomeOf(entry, 'review', 90, body([video('1', 'ready', flagged), video('2', 'ready', clean), video('3', 'failed')]));
    expect(outcome).toMatchObject({ videos: 3, ready: 2, checked: 2, passed: 1, unflagged: 1 });
    expect(outcome.flags).toEqual({ cut_text: 2, boilerplate: 1 });
    expect(outcome.repairs).toEqual({ replaced: 1, reframed: 1, renarrated: 1 });
  });

  it('prints the no-flag total over all videos of the run, and the flags and repairs in the vocabulary’s order', () => {
    const shop = outcomeOf(entry, 'review', 90, body([video('1', 'ready', flagged), video('2', 'ready', clean)]));
    const docs = outcomeOf({ ...entry, name: 'docs' }, 'failed', 10, body([video('3', 'failed'), video('4', 'failed')]), 'internal: x');
    const text = summary([shop, docs]);
    expect(text).toContain('videos with no flag: 1/4 (25 %)');
    expect(text).toContain('flags by code: cut_text:2 boilerplate:1');
    expect(text).toContain('repairs by action: replaced:1 reframed:1 renarrated:1');
    expect(text).toContain('docs: internal: x');
  });

  it('says so when no video carries a quality report, instead of printing zeros', () => {
    const text = summary([outcomeOf(entry, 'review', 50, body([video('1', 'ready')]))]);
    expect(text).toContain('quality: no video carries a quality report');
    expect(text).not.toContain('videos with no flag');
  });
});
