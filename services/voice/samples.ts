/**
 * Voice samples for the dashboard's voice picker, a module of the voice stage (mixed into
 * services/voice.service.ts): one sentence per voice, spoken the first time any node is asked, then kept in the file
 * store and only looked up (lib/voice/samples.ts).
 */
import type { Context } from 'moleculer';
import { VOICE_OPTIONS } from '../../config/voices';
import { makeVoiceSample, voiceSampleKey } from '../../lib/voice/samples';
import { asSpeechFailure } from '../../lib/voice/speech';
import type { VoiceActionSchemas, VoiceSampleParams, VoiceSampleResult } from './types';

export const sampleActions: VoiceActionSchemas = {
  /**
   * A voice's short sample (lib/voice/samples.ts) for the dashboard: spoken the first time any node is asked for it,
   * then kept in the file store and only looked up.
   */
  sample: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['voice_id'],
      properties: { voice_id: { type: 'string', enum: VOICE_OPTIONS.map((v) => v.id) } },
    },
    async handler(ctx: Context<VoiceSampleParams>): Promise<VoiceSampleResult> {
      const voiceId = ctx.params.voice_id;
      const key = voiceSampleKey(voiceId)!;
      if (await this.storage.exists(key)) return { storage_key: key };
      let making = this.samplesInFlight.get(voiceId);
      if (!making) {
        making = (async () => {
          await this.storage.put(key, await makeVoiceSample(this.speech, voiceId));
          this.logger.info(`voice sample ${voiceId}: made and stored as ${key}`);
          return key;
        })().finally(() => this.samplesInFlight.delete(voiceId));
        this.samplesInFlight.set(voiceId, making);
      }
      try {
        return { storage_key: await making };
      } catch (err) {
        // A sample asked for again may find the engine back.
        throw asSpeechFailure(err, 'The sample could not be spoken', true);
      }
    },
  },
};
