/**
 * An edit's narration (decisions §12), and a repair's (decisions §13): a module of the voice stage (mixed into
 * services/voice.service.ts, which owns the storyboards). The video's storyboard made from the one it was edited
 * from, only the scenes whose words or voice changed spoken again (lib/voice/respeak.ts). An edit's is stored as the
 * video's revision; a repair's is handed back to the rendering stage, and kept as the first revision once rendered.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Context } from 'moleculer';
import type { CampaignOptions } from '../../lib/campaign/options';
import type { Storyboard, VideoEditDocument } from '../../lib/campaign/storyboard';
import { durationRefusal } from '../../lib/campaign/video-edit';
import type { ScreenshotRef } from '../../lib/db/models';
import { stageFailure } from '../../lib/errors';
import { screenshotIdOf } from '../../lib/storage/keys';
import { respeakVideo } from '../../lib/voice/respeak';
import { asSpeechFailure } from '../../lib/voice/speech';
import {
  SCENE_JOBS,
  type KeepRepairParams,
  type RepairNarrationParams,
  type RespeakParams,
  type RespeakResult,
  type VoiceActionSchemas,
  type VoiceThis,
} from './types';

const EDIT_DOCUMENT_SCHEMA = { type: 'object', required: ['voice_id', 'captions', 'quality', 'scenes'] } as const;
const SCREENS_SCHEMA = { type: 'array', maxItems: 200, items: { type: 'object', required: ['key'] } } as const;

interface SpeakEditInput {
  campaignId: string;
  base: Storyboard;
  edit: VideoEditDocument;
  revision: number;
  /** The part of the files' keys that names the revision (an edit's number, or a repair round's tag). */
  keyRevision: string;
  screens: ScreenshotRef[];
  options: CampaignOptions | null;
}

/** The edited storyboard: the changed scenes spoken, the track and captions made again; refused when too long. */
async function speakEdit(this: VoiceThis, input: SpeakEditInput): Promise<{ storyboard: Storyboard; spoken: number }> {
  const { campaignId, base } = input;
  const screens = new Map(
    input.screens.flatMap((ref) => {
      const id = screenshotIdOf(campaignId, ref.key);
      return id ? [[id, ref] as const] : [];
    }),
  );
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), `respeak-${base.videoId}-`));
  const cancel = this.watchCancel(campaignId);
  try {
    const made = await respeakVideo(
      {
        storage: this.storage,
        jobs: SCENE_JOBS,
        voiceOf: (language, voiceId) => this.speech.voiceOf(language, voiceId),
        speak: (index, scene, minSeconds, voices, words) => {
          cancel.signal.throwIfAborted();
          // The customer's words are spoken as written: no re-fitting to a length.
          return this.speakScene(campaignId, base.language, index, scene, minSeconds, Infinity, workDir, voices, words);
        },
      },
      { base, edit: input.edit, revision: input.revision, keyRevision: input.keyRevision, options: input.options, screens, workDir },
    );
    const tooLong = durationRefusal(made.storyboard.platform, made.storyboard.totalSeconds);
    if (tooLong) throw stageFailure('speech_failed', tooLong, false);
    return made;
  } catch (err) {
    if (cancel.signal.aborted) throw cancel.signal.reason;
    throw asSpeechFailure(err);
  } finally {
    cancel.done();
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

export const editActions: VoiceActionSchemas = {
  /** An edit's narration (lib/voice/respeak.ts), its storyboard stored as the video's revision. */
  respeak: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['campaign_id', 'video_id', 'revision', 'base_revision', 'edit', 'screens', 'options'],
      properties: {
        campaign_id: { type: 'string', maxLength: 64 },
        video_id: { type: 'string', maxLength: 64 },
        revision: { type: 'integer', minimum: 2 },
        base_revision: { type: 'integer', minimum: 1 },
        // The campaign actor's own record of an edit it checked (lib/campaign/video-edit.ts readEdit).
        edit: EDIT_DOCUMENT_SCHEMA,
        screens: SCREENS_SCHEMA,
        options: { type: ['object', 'null'] },
      },
    },
    async handler(ctx: Context<RespeakParams>): Promise<RespeakResult> {
      const { campaign_id: campaignId, video_id: videoId, revision } = ctx.params;
      const base = await this.storyboardAt(videoId, ctx.params.base_revision);
      if (!base) throw stageFailure('speech_failed', `The video's revision ${ctx.params.base_revision} has no storyboard.`, false);
      const { storyboard, spoken } = await speakEdit.call(this, {
        campaignId,
        base,
        edit: ctx.params.edit,
        revision,
        keyRevision: String(revision),
        screens: ctx.params.screens,
        options: ctx.params.options,
      });
      await this.db.models.StoryboardRevision.upsert({ video_id: videoId, revision, campaign_id: campaignId, document: storyboard });
      return { captions_key: storyboard.captionsKey, scenes_spoken: spoken };
    },
  },

  /** A repair's narration (decisions §13): the mended first revision, handed back unstored (voice.keepRepair keeps it). */
  repairNarration: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['campaign_id', 'video_id', 'round', 'base', 'edit', 'screens', 'options'],
      properties: {
        campaign_id: { type: 'string', maxLength: 64 },
        video_id: { type: 'string', maxLength: 64 },
        round: { type: 'integer', minimum: 1, maximum: 9 },
        base: { type: 'object', required: ['videoId', 'scenes'] },
        edit: EDIT_DOCUMENT_SCHEMA,
        screens: SCREENS_SCHEMA,
        options: { type: ['object', 'null'] },
      },
    },
    async handler(ctx: Context<RepairNarrationParams>): Promise<Storyboard> {
      const { storyboard } = await speakEdit.call(this, {
        campaignId: ctx.params.campaign_id,
        base: ctx.params.base,
        edit: ctx.params.edit,
        revision: 1,
        keyRevision: `1-repair${ctx.params.round}`,
        screens: ctx.params.screens,
        options: ctx.params.options,
      });
      // A first revision names no revision (decisions §12: absent is 1).
      const { revision: _revision, ...first } = storyboard;
      return first;
    },
  },

  /** The mended storyboard, its render ready: now the video's first revision (what its document and an edit start from). */
  keepRepair: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['video_id', 'storyboard'],
      properties: { video_id: { type: 'string', maxLength: 64 }, storyboard: { type: 'object', required: ['videoId', 'scenes'] } },
    },
    async handler(ctx: Context<KeepRepairParams>): Promise<{ kept: boolean }> {
      const [kept] = await this.db.models.Storyboard.update(
        { document: ctx.params.storyboard },
        { where: { video_id: ctx.params.video_id } },
      );
      return { kept: kept === 1 };
    },
  },
};
