/**
 * An edit's narration (decisions §12, issue 29 item 2), a module of the voice stage (mixed into
 * services/voice.service.ts, which owns the storyboards): the video's storyboard at the edit's revision, made from the
 * one it was edited from, only the scenes whose words or voice changed spoken again (lib/voice/respeak.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Context } from 'moleculer';
import { durationRefusal } from '../../lib/campaign/video-edit';
import { stageFailure } from '../../lib/errors';
import { screenshotIdOf } from '../../lib/storage/keys';
import { respeakVideo } from '../../lib/voice/respeak';
import { asSpeechFailure } from '../../lib/voice/speech';
import { SCENE_JOBS, type RespeakParams, type RespeakResult, type VoiceActionSchemas } from './types';

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
        edit: { type: 'object', required: ['voice_id', 'captions', 'quality', 'scenes'] },
        screens: { type: 'array', maxItems: 200, items: { type: 'object', required: ['key'] } },
        options: { type: ['object', 'null'] },
      },
    },
    async handler(ctx: Context<RespeakParams>): Promise<RespeakResult> {
      const { campaign_id: campaignId, video_id: videoId, revision, edit } = ctx.params;
      const base = await this.storyboardAt(videoId, ctx.params.base_revision);
      if (!base) throw stageFailure('speech_failed', `The video's revision ${ctx.params.base_revision} has no storyboard.`, false);
      const screens = new Map(
        ctx.params.screens.flatMap((ref) => {
          const id = screenshotIdOf(campaignId, ref.key);
          return id ? [[id, ref] as const] : [];
        }),
      );
      const workDir = await fs.mkdtemp(path.join(os.tmpdir(), `respeak-${videoId}-`));
      const cancel = this.watchCancel(campaignId);
      try {
        const { storyboard, spoken } = await respeakVideo(
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
          { base, edit, revision, options: ctx.params.options, screens, workDir },
        );
        const tooLong = durationRefusal(storyboard.platform, storyboard.totalSeconds);
        if (tooLong) throw stageFailure('speech_failed', tooLong, false);
        await this.db.models.StoryboardRevision.upsert({ video_id: videoId, revision, campaign_id: campaignId, document: storyboard });
        return { captions_key: storyboard.captionsKey, scenes_spoken: spoken };
      } catch (err) {
        if (cancel.signal.aborted) throw cancel.signal.reason;
        throw asSpeechFailure(err);
      } finally {
        cancel.done();
        await fs.rm(workDir, { recursive: true, force: true });
      }
    },
  },
};
