/**
 * The voice stage's own vocabulary (services/voice.service.ts and its modules services/voice/edits.ts and
 * services/voice/samples.ts): what its actions take and answer, and the methods and state the parts share on `this`.
 */
import os from 'node:os';
import type { Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import type { LanguageCode, VideoVariant } from '../../config/catalog';
import type { CampaignOptions } from '../../lib/campaign/options';
import type {
  AdoptParams,
  AdoptResult,
  ScriptOutputs,
  StageCall,
  StageInput,
  StageParams,
  VoiceoverResult,
} from '../../lib/campaign/stages';
import type { Storyboard, StoryboardScene, VideoEditDocument } from '../../lib/campaign/storyboard';
import type { ScreenshotRef } from '../../lib/db/models';
import type { CampaignPlanDocument } from '../../lib/script/analyze';
import type { ScriptScene } from '../../lib/script/writer';
import type { FileStorage } from '../../lib/storage/files';
import type { SpeechProvider, WordTiming } from '../../lib/voice/speech';
import type { CancelableMethods } from '../../mixins/cancelable.mixin';
import type { DbMethods } from '../../mixins/db.mixin';

/**
 * Scenes spoken at once: one more than the cores, as each is mostly short processes' start-up (an engine, a
 * few ffmpeg runs) on one core. One after another, 3 languages took 23 s; see bench/e2e/README.md.
 */
export const SCENE_JOBS = os.availableParallelism() + 1;

export interface SpokenScene {
  kind: StoryboardScene['kind'];
  script: ScriptScene;
  audioKey: string;
  durationSeconds: number;
  /** captions `words`: its caption words, timed in seconds of the scene's audio */
  words?: WordTiming[];
}
/** A scene spoken: its normalized file in the work directory, and what the storyboard records of it. */
export interface SaidScene {
  file: string;
  spoken: SpokenScene;
}

/** The voices a campaign asked for, per language (lib/campaign/options.ts). */
export type CampaignVoices = NonNullable<CampaignOptions['voice']>;

/** voice.storyboards' answer: each video's storyboard. */
export type StoryboardsResult = Array<{ video_id: string; document: Storyboard }>;

/** The actions others call (the campaign actor, the rendering stage, reports), for `call` (lib/net/calls.ts). */
export interface VoiceActions {
  'voice.speak': { params: StageCall; result: VoiceoverResult };
  'voice.storyboards': { params: StageParams; result: StoryboardsResult };
  'voice.storyboard': { params: StoryboardParams; result: Storyboard | null };
  'voice.adopt': { params: AdoptParams; result: AdoptResult };
  'voice.respeak': { params: RespeakParams; result: RespeakResult };
  'voice.repairNarration': { params: RepairNarrationParams; result: Storyboard };
  'voice.keepRepair': { params: KeepRepairParams; result: { kept: boolean } };
  'voice.sample': { params: VoiceSampleParams; result: VoiceSampleResult };
}
/** voice.sample (the dashboard's voice picker): a voice of config/voices.ts, and where its sample is stored. */
export interface VoiceSampleParams {
  voice_id: string;
}
export interface VoiceSampleResult {
  storage_key: string;
}
/** voice.storyboard: one video's, at a revision (absent: 1, the first render's). */
export interface StoryboardParams {
  video_id: string;
  revision?: number;
}
/**
 * voice.respeak (an edit, decisions §12): the video's storyboard at `revision`, made from the one at `base_revision`
 * with `edit`'s scenes, only those that changed spoken again. `screens`: the screenshots the edit's screen scenes show.
 */
export interface RespeakParams {
  campaign_id: string;
  video_id: string;
  revision: number;
  base_revision: number;
  edit: VideoEditDocument;
  screens: ScreenshotRef[];
  options: CampaignOptions | null;
}
/**
 * voice.repairNarration (the video's own check, decisions §13): the first revision's storyboard mended before the video
 * is ready — only the changed scenes spoken, under the repair round's own keys — returned, not stored: the rendering
 * stage keeps it (voice.keepRepair) once its render is ready, so a repair that fails leaves the first storyboard as it was.
 */
export interface RepairNarrationParams {
  campaign_id: string;
  video_id: string;
  /** The repair round (1, 2): its files' keys. */
  round: number;
  /** The storyboard the repair starts from (the one just rendered and checked). */
  base: Storyboard;
  edit: VideoEditDocument;
  screens: ScreenshotRef[];
  options: CampaignOptions | null;
}
/** voice.keepRepair: the mended storyboard, now the video's first revision (its render is ready). */
export interface KeepRepairParams {
  video_id: string;
  storyboard: Storyboard;
}
export interface RespeakResult {
  captions_key: string;
  /** How many scenes were spoken (the others kept their audio). */
  scenes_spoken: number;
}

/** One scene's audio file, its length, and the narration it actually says (perhaps shortened). */
export interface SceneSpeech {
  file: string;
  durationSeconds: number;
  narration: ScriptScene['narration'];
  /** asked for: the caption words, timed in seconds of the file */
  words?: WordTiming[];
}

/** One language's script, as script.outputs gives it. */
export type ScriptRow = ScriptOutputs['scripts'][number];

export type VoiceMethods = DbMethods<'voice'> &
  CancelableMethods & {
    storyboardAt(videoId: string, revision: number): Promise<Storyboard | null>;
    languageStoryboards(
      campaign: StageInput,
      plan: CampaignPlanDocument,
      row: ScriptRow,
      language: LanguageCode,
      said: SaidScene[],
      workDir: string,
      variant?: VideoVariant,
    ): Promise<Array<{ videoId: string; document: Storyboard }>>;
    speakScene(
      campaignId: string,
      language: LanguageCode,
      /** Names its files in the work directory: the scene's index, with a hook variant's letter for its opening. */
      index: number | string,
      scene: ScriptScene,
      minSeconds: number,
      maxSeconds: number,
      workDir: string,
      voices: CampaignVoices,
      words?: boolean,
    ): Promise<SceneSpeech>;
  };

export interface VoiceLocalVars {
  storage: FileStorage;
  /** Samples being made now, by voice: a second ask waits for the first rather than speaking it again. */
  samplesInFlight: Map<string, Promise<string>>;
  /** The speech provider, its voices checked at start. */
  speech: SpeechProvider;
}

export type VoiceThis = Service<ServiceSettingSchema> & VoiceMethods & VoiceLocalVars;

type VoiceSchema = ServiceSchema<ServiceSettingSchema, VoiceMethods, VoiceLocalVars>;
/** A part of the stage's actions (its modules export theirs; the service spreads them into its schema). */
export type VoiceActionSchemas = NonNullable<VoiceSchema['actions']>;
