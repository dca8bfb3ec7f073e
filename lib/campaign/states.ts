/** Campaign states and the one table of transitions between them (campaign-api.md §3, decisions.md §3). */
import type { ActionName } from '../net/calls';
import { isOneOf } from '../../config/catalog';

export const CAMPAIGN_STATES = [
  'collecting',
  'processing',
  'scripting',
  'voiceover',
  'rendering',
  'review',
  'published',
  'failed',
] as const;
export type CampaignState = (typeof CAMPAIGN_STATES)[number];

/** The states in which the pipeline is working; each is one stage. */
export const GENERATING_STATES = ['collecting', 'processing', 'scripting', 'voiceover', 'rendering'] as const;
export type GeneratingState = (typeof GENERATING_STATES)[number];

/** A video's own states (decisions §2). */
export const VIDEO_STATES = ['queued', 'rendering', 'ready', 'failed'] as const;
export type VideoState = (typeof VIDEO_STATES)[number];

export const TERMINAL_STATES: readonly CampaignState[] = ['published', 'failed'];

export interface Transition {
  from: CampaignState;
  to: CampaignState;
  /** What moves it: a finished stage, an unrecoverable error, or the customer's publish call. */
  trigger: 'stage_done' | 'failure' | 'publish';
}

export const TRANSITIONS: readonly Transition[] = [
  { from: 'collecting', to: 'processing', trigger: 'stage_done' },
  { from: 'processing', to: 'scripting', trigger: 'stage_done' },
  { from: 'scripting', to: 'voiceover', trigger: 'stage_done' },
  { from: 'voiceover', to: 'rendering', trigger: 'stage_done' },
  { from: 'rendering', to: 'review', trigger: 'stage_done' },
  ...GENERATING_STATES.map((from) => ({ from, to: 'failed' as const, trigger: 'failure' as const })),
  { from: 'review', to: 'published', trigger: 'publish' },
];

/** Progress (0–100) reported on entering each state; stages may report finer progress within their band. */
export const PROGRESS_ON_ENTRY: Record<CampaignState, number> = {
  collecting: 0,
  processing: 15,
  scripting: 25,
  voiceover: 35,
  rendering: 50,
  review: 100,
  published: 100,
  failed: 0,
};

/**
 * The stage interface later issues fill: for each generating state, the Moleculer action that does its
 * work. The actor calls it with { campaign_id } and moves the campaign on when it returns. Each is an action of the
 * map (lib/net/calls.ts), whose owner declares it to take a StageCall.
 */
export const STAGE_ACTIONS = {
  collecting: 'capture.collect',
  processing: 'script.analyze',
  scripting: 'script.write',
  voiceover: 'voice.speak',
  rendering: 'rendering.renderCampaign',
} as const satisfies Record<GeneratingState, ActionName>;
/** A stage's action: what the actor calls for a generating state. */
export type StageAction = (typeof STAGE_ACTIONS)[GeneratingState];

/** decisions §14: a batch is complete once each of its campaigns is in one of these (generation has ended for it). */
export const SETTLED_STATES: readonly CampaignState[] = ['review', 'published', 'failed'];

export function isSettled(state: string): boolean {
  return isOneOf(SETTLED_STATES, state);
}

/** Campaigns counted by status, every status present (0 when none): a batch's `counts`. */
export function countByStatus(statuses: readonly string[]): Record<CampaignState, number> {
  const counts = Object.fromEntries(CAMPAIGN_STATES.map((state) => [state, 0])) as Record<CampaignState, number>;
  for (const status of statuses) if (isOneOf(CAMPAIGN_STATES, status)) counts[status] += 1;
  return counts;
}

export function canTransition(from: string, to: string): boolean {
  return TRANSITIONS.some((t) => t.from === from && t.to === to);
}

export function nextState(from: CampaignState): CampaignState | undefined {
  return TRANSITIONS.find((t) => t.from === from && t.trigger === 'stage_done')?.to;
}

export function isTerminal(state: string): boolean {
  return isOneOf(TERMINAL_STATES, state);
}

export function isGenerating(state: string): state is GeneratingState {
  return isOneOf(GENERATING_STATES, state);
}

export class InvalidTransitionError extends Error {
  constructor(
    readonly from: string,
    readonly to: string,
  ) {
    super(`campaign cannot go from ${from} to ${to}`);
  }
}
