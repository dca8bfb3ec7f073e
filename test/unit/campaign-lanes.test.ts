/**
 * A campaign's lanes (lib/campaign/lanes.ts): each language's state read from what is recorded of its videos, never
 * below the campaign's status; the campaign's status the least advanced lane's; progress with the videos ready.
 */
import { campaignStateOfLanes, isLaneStage, lanesOf, laneStateOf, progressWithReady, type LaneVideo } from '../../lib/campaign/lanes';

const video = (language: string, made: Partial<LaneVideo> = {}): LaneVideo => ({
  language,
  status: 'queued',
  script_source: null,
  captions_key: null,
  ...made,
});
const scripted = (language: string) => video(language, { script_source: 'localized_page' });
const spoken = (language: string, status = 'queued') =>
  video(language, { script_source: 'localized_page', captions_key: `captions/${language}.vtt`, status });

describe('a lane’s state', () => {
  test('scripting until every video of its language has its script recorded, then voiceover, rendering, review', () => {
    expect(laneStateOf([video('en'), video('en')], 'scripting')).toBe('scripting');
    expect(laneStateOf([scripted('en'), video('en')], 'scripting')).toBe('scripting');
    expect(laneStateOf([scripted('en'), scripted('en')], 'scripting')).toBe('voiceover');
    expect(laneStateOf([spoken('en'), scripted('en')], 'scripting')).toBe('voiceover');
    expect(laneStateOf([spoken('en'), spoken('en', 'rendering')], 'scripting')).toBe('rendering');
    expect(laneStateOf([spoken('en', 'ready'), spoken('en', 'failed')], 'scripting')).toBe('rendering');
    expect(laneStateOf([spoken('en', 'ready'), spoken('en', 'ready')], 'scripting')).toBe('review');
  });

  test('a language without videos has nothing recorded: it is where the campaign is, not done', () => {
    expect(laneStateOf([], 'voiceover')).toBe('voiceover');
    expect(lanesOf('scripting', ['en', 'ja'], [spoken('en', 'ready')])).toEqual([
      { language: 'en', state: 'review' },
      { language: 'ja', state: 'scripting' },
    ]);
  });

  test('never below the campaign’s status: a retry that starts in rendering has every lane spoken', () => {
    expect(laneStateOf([video('en')], 'rendering')).toBe('rendering');
    expect(laneStateOf([scripted('en')], 'voiceover')).toBe('voiceover');
    expect(laneStateOf([spoken('en', 'ready')], 'voiceover')).toBe('review');
  });
});

describe('a campaign’s lanes', () => {
  test('one per language, in the campaign’s order, each from its own videos', () => {
    const videos = [spoken('ko'), scripted('ja'), spoken('en', 'ready'), spoken('en', 'ready')];
    expect(lanesOf('scripting', ['en', 'ja', 'ko'], videos)).toEqual([
      { language: 'en', state: 'review' },
      { language: 'ja', state: 'voiceover' },
      { language: 'ko', state: 'rendering' },
    ]);
  });

  test('the campaign shows its least advanced lane; review once every lane is done', () => {
    expect(
      campaignStateOfLanes([
        { language: 'en', state: 'review' },
        { language: 'ja', state: 'voiceover' },
        { language: 'ko', state: 'rendering' },
      ]),
    ).toBe('voiceover');
    expect(
      campaignStateOfLanes([
        { language: 'en', state: 'rendering' },
        { language: 'ja', state: 'scripting' },
      ]),
    ).toBe('scripting');
    expect(
      campaignStateOfLanes([
        { language: 'en', state: 'review' },
        { language: 'ja', state: 'review' },
      ]),
    ).toBe('review');
  });

  test('the lane stages are scripting, voiceover and rendering; review is a lane done', () => {
    expect(['collecting', 'processing', 'scripting', 'voiceover', 'rendering', 'review', 'failed'].filter(isLaneStage)).toEqual([
      'scripting',
      'voiceover',
      'rendering',
    ]);
  });
});

describe('progress with the videos ready', () => {
  test('the rendering band in proportion to the videos ready, whichever lane state the campaign shows', () => {
    expect(progressWithReady('voiceover', 0, 3, 35)).toBe(35);
    expect(progressWithReady('voiceover', 1, 3, 35)).toBe(66);
    expect(progressWithReady('scripting', 1, 2, 25)).toBe(75);
    expect(progressWithReady('rendering', 2, 3, 66)).toBe(83);
  });

  test('never back, never 100 before review', () => {
    expect(progressWithReady('rendering', 1, 3, 70)).toBe(70);
    expect(progressWithReady('rendering', 3, 3, 83)).toBe(99);
  });
});
