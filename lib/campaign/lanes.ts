/**
 * A campaign's lanes: after processing, each of its languages goes its own way — script, voice, render — so one
 * language's videos are ready while another is still scripted or spoken. A lane's state is not stored: it is read
 * from what the campaign actor recorded of its videos (a script's source, a voiceover's captions, a video ready),
 * never below the campaign's own status; the campaign's public status is the state of its least advanced lane.
 */
import { isOneOf } from '../../config/catalog';
import { PROGRESS_ON_ENTRY, type CampaignState } from './states';

/** A lane's states, in order: the generating states a language goes through on its own, then done. */
export const LANE_STATES = ['scripting', 'voiceover', 'rendering', 'review'] as const;
export type LaneState = (typeof LANE_STATES)[number];
/** The states in which a campaign's languages run in lanes (the lane states but done). */
export type LaneStage = Exclude<LaneState, 'review'>;

export function isLaneStage(state: string): state is LaneStage {
  return state !== 'review' && isOneOf(LANE_STATES, state);
}

/** What a lane's state is read from: the recorded facts of one video. */
export interface LaneVideo {
  language: string;
  status: string;
  script_source?: string | null;
  captions_key?: string | null;
}

export interface Lane {
  language: string;
  state: LaneState;
}

const rank = (state: LaneState) => LANE_STATES.indexOf(state);

/**
 * One language's lane state: scripting until each of its videos has its script's source recorded, voiceover until
 * each has its captions, rendering until each is ready, then review (a language without videos: `floor`). Never below `floor`, the campaign's status (a
 * campaign in rendering has every lane spoken, even a retry's whose videos were given their captions another way).
 */
export function laneStateOf(videos: readonly LaneVideo[], floor: LaneState): LaneState {
  // A language without videos has nothing recorded: it is where the campaign is, never done by default.
  if (videos.length === 0) return floor;
  const recorded: LaneState = videos.some((v) => !v.script_source)
    ? 'scripting'
    : videos.some((v) => !v.captions_key)
      ? 'voiceover'
      : videos.some((v) => v.status !== 'ready')
        ? 'rendering'
        : 'review';
  return rank(recorded) > rank(floor) ? recorded : floor;
}

/** A campaign's lanes, one per language in the campaign's order (the order they are scheduled in). */
export function lanesOf(status: LaneState, languages: readonly string[], videos: readonly LaneVideo[]): Lane[] {
  return languages.map((language) => ({
    language,
    state: laneStateOf(
      videos.filter((v) => v.language === language),
      status,
    ),
  }));
}

/** The campaign's public status: the state of its least advanced lane. */
export function campaignStateOfLanes(lanes: readonly Lane[]): LaneState {
  return lanes.reduce<LaneState>((least, lane) => (rank(lane.state) < rank(least) ? lane.state : least), 'review');
}

/**
 * A campaign's progress with its videos ready: the rendering band (50 → 99) in proportion to the videos ready,
 * never below what its status shows on entry (nor what it showed before: progress does not go back). 100 is review's.
 */
export function progressWithReady(status: CampaignState, ready: number, total: number, shown: number): number {
  const band = PROGRESS_ON_ENTRY.review - PROGRESS_ON_ENTRY.rendering;
  const byVideos = ready > 0 ? PROGRESS_ON_ENTRY.rendering + Math.floor((band * ready) / Math.max(1, total)) : 0;
  return Math.min(99, Math.max(PROGRESS_ON_ENTRY[status], shown, byVideos));
}
