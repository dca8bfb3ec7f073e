import {
  CAMPAIGN_STATES,
  GENERATING_STATES,
  TRANSITIONS,
  canTransition,
  isTerminal,
  nextState,
  PROGRESS_ON_ENTRY,
  STAGE_ACTIONS,
} from '../../lib/campaign/states';

describe('campaign state table', () => {
  test('generation visits collecting → processing → scripting → voiceover → rendering → review in that order', () => {
    const path: string[] = ['collecting'];
    let state = nextState('collecting');
    while (state) {
      path.push(state);
      state = nextState(state);
    }
    expect(path).toEqual(['collecting', 'processing', 'scripting', 'voiceover', 'rendering', 'review']);
  });

  test('every generating state may fail; terminal states go nowhere', () => {
    for (const state of GENERATING_STATES) expect(canTransition(state, 'failed')).toBe(true);
    for (const state of ['published', 'failed']) {
      expect(isTerminal(state)).toBe(true);
      expect(TRANSITIONS.filter((t) => t.from === state)).toEqual([]);
    }
    expect(isTerminal('review')).toBe(false);
  });

  test('only review can be published, only by the publish trigger', () => {
    expect(TRANSITIONS.filter((t) => t.to === 'published')).toEqual([{ from: 'review', to: 'published', trigger: 'publish' }]);
  });

  test('no skipping or going back', () => {
    expect(canTransition('collecting', 'scripting')).toBe(false);
    expect(canTransition('rendering', 'collecting')).toBe(false);
    expect(canTransition('review', 'failed')).toBe(false);
    expect(canTransition('collecting', 'bogus')).toBe(false);
  });

  test('each generating state has a stage action and a progress band that grows', () => {
    expect(Object.keys(STAGE_ACTIONS).sort()).toEqual([...GENERATING_STATES].sort());
    const bands = GENERATING_STATES.map((s) => PROGRESS_ON_ENTRY[s]);
    expect([...bands].sort((a, b) => a - b)).toEqual(bands);
    expect(PROGRESS_ON_ENTRY.review).toBe(100);
    expect(new Set(CAMPAIGN_STATES).size).toBe(8);
  });
});
