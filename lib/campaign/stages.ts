/**
 * The stage contract, written once: the campaign actor (services/campaigns/orchestrator.ts) calls the action of
 * STAGE_ACTIONS for the campaign's state with these params; the stage computes, stores what it alone owns,
 * and returns what the actor must record. A stage that cannot go on through no fault of the campaign throws
 * StageInterruptedError (lib/errors.ts).
 */
import { CPU_CLASS_META, type CpuClass } from './cpu-class';
import type { CampaignOptions } from './options';
import { GENERATING_STATES, VIDEO_STATES, type GeneratingState, type VideoState } from './states';
import type { ScreenshotRef } from '../db/models';
import type { CampaignPlanDocument, CapturedBrand, CapturedText } from '../script/analyze';
import type { ScriptDocument } from '../script/writer';
import type { QualityReport } from '../quality/report';

export interface StageParams {
  campaign_id: string;
}

/**
 * A stage's call (the action of STAGE_ACTIONS): the campaign, and what the stage needs to know of it and its videos,
 * read by the actor with the step. The stage never calls back for it.
 */
export interface StageCall extends StageParams {
  input: StageInput;
  /**
   * The languages this call is for (a lane's, lib/campaign/lanes.ts): the stage does, stores and returns only theirs,
   * and leaves the other languages' work as it is. Absent: every language of the campaign.
   */
  languages?: string[];
}

/** The languages a stage call is for: its `languages`, in the campaign's order, or every language of the campaign. */
export function callLanguages(params: StageCall): string[] {
  const { languages } = params;
  return languages ? params.input.languages.filter((language) => languages.includes(language)) : params.input.languages;
}

/** The campaign's videos a stage call is for (those of its languages). */
export function callVideos(params: StageCall): StageInput['videos'] {
  const languages = callLanguages(params);
  return params.input.videos.filter((video) => languages.includes(video.language));
}

/**
 * The call options of every call made for a campaign's pipeline outside a handler's own context (the actor's stage
 * calls, a stage's calls to other actors, the renders): the campaign id is the request id, which Moleculer's tracing
 * takes as the trace id, so one campaign's spans share a trace across every node.
 */
export function campaignTrace(campaignId: string): { requestID: string } {
  return { requestID: campaignId };
}

/**
 * What a stage call made in its turn tells the nodes that run it (its meta, which Moleculer passes on to the calls the
 * stage makes in its context): `express`, the turn is the stage's express turn (lib/campaign/fair-order.ts pickExpress:
 * a render runs in a node's express slot); CPU_CLASS_META, 'bulk' when its organization has a backlog, so its programs
 * run at a lower CPU priority than other organizations' (lib/campaign/cpu-class.ts).
 */
export interface TurnMeta {
  express?: boolean;
  [CPU_CLASS_META]?: CpuClass;
}

/** The call options of a stage call made in its turn: the campaign's trace, and what the turn tells the stage. */
export function turnCallOptions(campaignId: string, meta: TurnMeta): { requestID: string; meta: TurnMeta } {
  return { ...campaignTrace(campaignId), meta };
}

/** The params schema of every stage action (validated by lib/http/validator.ts). */
export const STAGE_PARAMS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['campaign_id'],
  properties: { campaign_id: { type: 'string', maxLength: 64 } },
} as const;

export const STAGE_CALL_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['campaign_id', 'input'],
  properties: {
    campaign_id: { type: 'string', maxLength: 64 },
    // The actor's own read (services/campaigns/orchestrator.ts stageInputOf), not a customer's: its shape is StageInput's.
    input: { type: 'object', required: ['id', 'url', 'languages', 'platforms', 'videos'] },
    languages: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', maxLength: 20 } },
  },
} as const;

/** campaigns.stageInput's answer, and a stage call's `input`: what a stage needs to know of a campaign and its videos. */
export interface StageInput {
  id: string;
  url: string;
  title: string;
  status: string;
  languages: string[];
  platforms: string[];
  /** The creative options given at create (the voice stage writes them into each storyboard). */
  options: CampaignOptions | null;
  /** The language the page's own text is in, once the script is written (the render node's check knows it is no fault). */
  page_language?: string | null;
  videos: Array<{
    id: string;
    campaign_id: string;
    language: string;
    platform: string;
    /** The hook variant (decisions §15): "a", "b" or "c". */
    variant: string;
    status: string;
    file_key: string | null;
    thumbnail_key: string | null;
    captions_srt_key: string | null;
    script_source: string | null;
  }>;
}

/**
 * The event the rendering stage emits for each change of a video's state (rendering, ready, failed, back to queued),
 * which the campaign actor consumes (services/campaigns/orchestrator.ts): progress as it happens, without a call per
 * step. Best effort: the ready videos are also in the stage's result (RenderingResult), which the actor records when
 * the campaign leaves rendering, so a report lost with a node leaves nothing unrecorded.
 */
export const VIDEO_REPORTED = 'rendering.videoReported';

/** A VIDEO_REPORTED event's payload: the rendering stage's report on one video. */
export interface VideoReport {
  campaign_id: string;
  video_id: string;
  /** When the report was made (epoch ms): a report older than the last one applied is ignored (events can cross). */
  at: number;
  status: VideoState;
  file_key?: string;
  /** The poster frame (JPEG) and the SubRip captions the renderer stored beside the video. */
  thumbnail_key?: string;
  captions_srt_key?: string;
  duration_seconds?: number;
  error_code?: string | null;
  error_message?: string | null;
  /** The video's own check (decisions §13), with the report that makes it ready. */
  quality?: QualityReport;
  /** Its WebVTT captions when a repair changed its words (the voiceover stage's otherwise). */
  captions_key?: string;
}

/** The VIDEO_REPORTED payload's schema, checked where the actor consumes it (lib/http/validator.ts checks events too). */
export const VIDEO_REPORT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['campaign_id', 'video_id', 'at', 'status'],
  properties: {
    campaign_id: { type: 'string', maxLength: 64 },
    video_id: { type: 'string', maxLength: 64 },
    at: { type: 'number', minimum: 0 },
    status: { type: 'string', enum: [...VIDEO_STATES] },
    file_key: { type: 'string', maxLength: 500 },
    thumbnail_key: { type: 'string', maxLength: 500 },
    captions_srt_key: { type: 'string', maxLength: 500 },
    duration_seconds: { type: 'number', minimum: 0 },
    error_code: { type: ['string', 'null'], maxLength: 40 },
    error_message: { type: ['string', 'null'], maxLength: 2000 },
    quality: { type: 'object', required: ['checked_at', 'passed', 'flags', 'repaired'] },
    captions_key: { type: 'string', maxLength: 500 },
  },
} as const;

/**
 * A stage owner's `adopt` (POST /campaigns/{id}/retry): copy what it stored for the failed campaign
 * `from_campaign_id` to its retry `campaign_id`, which starts in state `starts_in`; `videos` maps each failed video's id
 * to the retry's video of the same language and platform. Stored files are referred to, not copied (a campaign's
 * files are never deleted). Answers how many rows it copied.
 */
export interface AdoptParams {
  from_campaign_id: string;
  campaign_id: string;
  starts_in: GeneratingState;
  videos: Array<{ from: string; to: string }>;
}
export interface AdoptResult {
  copied: number;
}
export const ADOPT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['from_campaign_id', 'campaign_id', 'starts_in', 'videos'],
  properties: {
    from_campaign_id: { type: 'string', maxLength: 64 },
    campaign_id: { type: 'string', maxLength: 64 },
    starts_in: { type: 'string', enum: [...GENERATING_STATES] },
    videos: {
      type: 'array',
      maxItems: 200,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['from', 'to'],
        properties: { from: { type: 'string', maxLength: 64 }, to: { type: 'string', maxLength: 64 } },
      },
    },
  },
} as const;

/** capture.pages' answer: one captured version of the page (the source, or a language's own page). */
export interface CapturedPage {
  variant: string;
  url: string;
  final_url: string;
  language: string | null;
  text: CapturedText;
  brand: CapturedBrand;
  screenshots: ScreenshotRef[];
}

/** What the scripting stage returns: where each language's script came from (decisions §5). */
export interface ScriptingResult {
  campaign_id: string;
  /**
   * `openings`: how many different openings the language's script has (decisions §15); a variant beyond them opens
   * as variant a does, and its video says so (opening_not_distinct). Absent from a stage of an older version.
   */
  script_sources: Array<{ language: string; script_source: string; openings?: number }>;
  /**
   * The language the page's own text is in (the plan's sourceLanguage): what a `source_text` video is narrated in,
   * named by its warning (lib/campaign/view.ts). Absent from a stage of an older version: the warning then says
   * "the page's own language".
   */
  page_language?: string | null;
}

/** script.outputs' answer: what the processing and scripting stages made, for the voiceover stage. */
export interface ScriptOutputs {
  plan: CampaignPlanDocument | null;
  scripts: Array<{ language: string; script_source: string; script: ScriptDocument }>;
}

/** What the rendering stage returns: how many videos the campaign has, and the reports of those it rendered. */
export interface RenderingResult {
  campaign_id: string;
  videos: number;
  rendered: VideoReport[];
}

/** What the voiceover stage returns: each video's captions file. */
export interface VoiceoverResult {
  campaign_id: string;
  captions: Array<{ video_id: string; captions_key: string }>;
}
