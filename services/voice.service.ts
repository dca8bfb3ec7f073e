/**
 * Stage `voiceover` (voice.speak): speaks every script scene by scene, measures each scene's audio,
 * writes the voice track and WebVTT captions per language, and stores one storyboard per video.
 * The speech provider's voices are checked when the service starts: a missing voice stops the node.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Context, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import pLimit from 'p-limit';
import type { Transaction } from 'sequelize';
import { configOf } from '../config';
import { CAMPAIGN_SLOTS } from '../lib/campaign/turns';
import type { LanguageCode, PlatformName, VideoVariant } from '../config/catalog';
import { toWebVtt, videoCues } from '../lib/voice/captions';
import type { StoryboardRow } from '../lib/db/models';
import { stageFailure } from '../lib/errors';
import { CLOSING_SECONDS, TITLE_SECONDS, type CampaignPlanDocument } from '../lib/script/analyze';
import { HERO_NARRATION_SECONDS, plannedFor, SCREEN_NARRATION_SECONDS, shortenNarration, type ScriptScene } from '../lib/script/writer';
import {
  ADOPT_SCHEMA,
  callLanguages,
  callVideos,
  STAGE_CALL_SCHEMA,
  STAGE_PARAMS_SCHEMA,
  type AdoptParams,
  type AdoptResult,
  type StageCall,
  type StageInput,
  type StageParams,
  type VoiceoverResult,
} from '../lib/campaign/stages';
import { call } from '../lib/net/calls';
import { storageFor } from '../lib/storage/storage';
import { storageKeys } from '../lib/storage/keys';
import { buildStoryboard, sceneIdAt, type Storyboard, type StoryboardScene } from '../lib/campaign/storyboard';
import { concatAudio, measureDuration, normalizeAudio } from '../lib/voice/audio';
import { run } from '../lib/voice/exec';
import { OfflineSpeechProvider } from '../lib/voice/offline';
import { createSpeechProvider } from '../lib/voice/tts';
import { asSpeechFailure, type SpeechRequest, type SpeechResult, type WordTiming } from '../lib/voice/speech';
import { wordTimings } from '../lib/voice/word-timing';
import { languageVariants, sceneJobs, variantScenes } from '../lib/voice/variants';
import { CancelableMixin, type CancelableMethods } from '../mixins/cancelable.mixin';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';

import { editActions } from './voice/edits';
import { sampleActions } from './voice/samples';
import {
  SCENE_JOBS,
  type CampaignVoices,
  type SaidScene,
  type SceneSpeech,
  type ScriptRow,
  type SpokenScene,
  type StoryboardParams,
  type StoryboardsResult,
  type VoiceLocalVars,
  type VoiceMethods,
  type VoiceThis,
} from './voice/types';

export type {
  RespeakParams,
  RespeakResult,
  StoryboardParams,
  StoryboardsResult,
  VoiceActions,
  VoiceSampleParams,
  VoiceSampleResult,
  VoiceThis,
} from './voice/types';

/** The pause after each scene's last word, so scenes do not run into each other. */
const SCENE_PAUSE_MS = 450;
const MIN_SCREEN_SECONDS = 3;
/**
 * Longest speech per scene kind. A voice slower than the reading rate the script assumed is re-fitted to this. The
 * title never is: the meet line is one sentence, and a hook opening's question, benefit or figure is said whole
 * with the product's name after it (lib/script/hooks.ts fits it to its time) — a re-fit would keep the question
 * and drop the name.
 */
const MAX_SPOKEN_SECONDS: Record<StoryboardScene['kind'], number> = {
  title: Number.POSITIVE_INFINITY,
  screen: SCREEN_NARRATION_SECONDS + 1,
  closing: 5,
};
/** Shortest scene per kind: a scene with little to say still lasts this long. */
const MIN_SECONDS: Record<StoryboardScene['kind'], number> = { title: TITLE_SECONDS, screen: MIN_SCREEN_SECONDS, closing: CLOSING_SECONDS };

const VoiceService: ServiceSchema<ServiceSettingSchema, VoiceMethods, VoiceLocalVars> = {
  name: 'voice',
  mixins: [DbMixin({ owner: 'voice' }), CancelableMixin],

  created() {
    // Fair turns (decisions §14): the campaign actor grants this stage as many campaigns at once as its nodes declare.
    Object.assign(this.metadata, { [CAMPAIGN_SLOTS]: configOf(this.broker).voiceCampaigns });
  },

  async started() {
    const config = configOf(this.broker);
    this.storage = storageFor(this.broker);
    this.samplesInFlight = new Map();
    // offline (default): an engine not installed here (Open JTalk, its Mei voice, festival) warns and leaves its
    // languages to espeak-ng; espeak-ng itself missing a language's voice stops the node.
    this.speech = createSpeechProvider(config.speech, { warn: (message) => this.logger.warn(message) });
    await this.speech.verify();
    if (this.speech instanceof OfflineSpeechProvider) {
      const chosen = this.speech.voices().filter((v) => v.engine !== 'espeak');
      const list = chosen.map((v) => `${v.language}: ${v.engine} (${v.voice})`).join(', ');
      this.logger.info(`speech: ${list || 'no engine but espeak-ng'}; every other language espeak-ng`);
    } else {
      this.logger.info(`speech: ${this.speech.name} for every language`);
    }
  },

  async stopped() {
    await this.speech?.close?.();
  },

  actions: {
    ...editActions,
    ...sampleActions,

    speak: {
      visibility: 'public',
      params: STAGE_CALL_SCHEMA,
      async handler(ctx: Context<StageCall>): Promise<VoiceoverResult> {
        const { models, sequelize } = this.db;
        // The campaign and its videos are the campaign actor's; the plan and scripts are the script stage's.
        const campaign = ctx.params.input;
        const languages = callLanguages(ctx.params);
        const videos = callVideos(ctx.params);
        // A lane's call (its languages named) after a node died mid-lane: storyboards already stored for each of its
        // videos are that lane's voiceover, done; they are answered, not spoken again.
        if (ctx.params.languages) {
          const done: StoryboardRow[] = await models.Storyboard.findAll({ where: { video_id: videos.map((v) => v.id) } });
          if (done.length === videos.length && videos.length > 0)
            return {
              campaign_id: campaign.id,
              captions: done.map((row) => ({ video_id: row.video_id, captions_key: row.document.captionsKey })),
            };
        }
        const outputs = await call(ctx, 'script.outputs', { campaign_id: campaign.id });
        const { plan } = outputs;
        const scripts = outputs.scripts.filter((row) => languages.includes(row.language));
        if (!plan || scripts.length === 0) throw stageFailure('speech_failed', 'The scripts are missing; scripting must run again.', false);
        const workDir = await fs.mkdtemp(path.join(os.tmpdir(), `voice-${campaign.id}-`));
        // Canceled: the scenes not yet started are not spoken (one is at most a second).
        const cancel = this.watchCancel(campaign.id);
        const storyboards: Array<{ videoId: string; document: Storyboard }> = [];
        try {
          // Every scene of every language is its own job (an engine run and a few ffmpeg runs, each mostly
          // process start-up and one core): a few at a time, ordered back per language below. With hook variants
          // (decisions §15), each variant's opening is a job of its own and the shared scenes are spoken once.
          const limit = pLimit(SCENE_JOBS);
          const languageParts = scripts.map((row) => {
            const script = row.script;
            const variants = languageVariants(campaign.videos, script.language);
            const parts = sceneJobs(script, variants);
            return { row, language: script.language, variants, parts, said: [] as Array<Promise<SaidScene>> };
          });
          // Queued scene by scene across the languages (en 0, ja 0, ko 0, en 1, …), so the jobs running at once use
          // different engines: English has one festival process, and English scenes queued first waited on it.
          const mostParts = Math.max(...languageParts.map((l) => l.parts.length));
          for (let index = 0; index < mostParts; index += 1) {
            for (const { language, parts, said } of languageParts) {
              const part = parts[index];
              if (!part) continue;
              said.push(
                limit(async () => {
                  cancel.signal.throwIfAborted();
                  // Scene 1 is the hero screen, whose script may run longer (HERO_NARRATION_SECONDS).
                  const maxSeconds = part.index === 1 ? HERO_NARRATION_SECONDS + 1 : MAX_SPOKEN_SECONDS[part.kind];
                  const variant = part.variant ?? 'a';
                  const { file, durationSeconds, narration, words } = await this.speakScene(
                    campaign.id,
                    language,
                    variant === 'a' ? part.index : `${part.index}${variant}`,
                    part.scene,
                    MIN_SECONDS[part.kind],
                    maxSeconds,
                    workDir,
                    campaign.options?.voice ?? {},
                    campaign.options?.captions === 'words',
                  );
                  const audioKey = storageKeys.sceneAudio(campaign.id, language, part.index, variant);
                  await this.storage.put(audioKey, await fs.readFile(file));
                  return { file, spoken: { kind: part.kind, script: { ...part.scene, narration }, audioKey, durationSeconds, words } };
                }),
              );
            }
          }
          // Each variant's track: its own opening, then the language's shared scenes (spoken once above).
          const languages = await Promise.all(
            languageParts.map(async ({ row, language, variants, parts, said }) => {
              const spoken = await Promise.all(said);
              return Promise.all(
                variants.map((variant) =>
                  this.languageStoryboards(campaign, plan, row, language, variantScenes(parts, spoken, variant), workDir, variant),
                ),
              );
            }),
          );
          storyboards.push(...languages.flat(2));
        } catch (err) {
          if (cancel.signal.aborted) throw cancel.signal.reason;
          throw asSpeechFailure(err);
        } finally {
          cancel.done();
          await fs.rm(workDir, { recursive: true, force: true });
        }
        await sequelize.transaction(async (transaction: Transaction) => {
          // Only the call's videos: another lane's storyboards, stored meanwhile, stay.
          await models.Storyboard.destroy({ where: { campaign_id: campaign.id, video_id: videos.map((v) => v.id) }, transaction });
          for (const { videoId, document } of storyboards) {
            await models.Storyboard.create({ video_id: videoId, campaign_id: campaign.id, document }, { transaction });
          }
        });
        // Each video's captions file is the campaign actor's to record (lib/campaign/stages.ts).
        return {
          campaign_id: campaign.id,
          captions: storyboards.map(({ videoId, document }) => ({ video_id: videoId, captions_key: document.captionsKey })),
        };
      },
    },

    /** The rendering stage's input: each video's storyboard (this stage owns the storyboards table). */
    /**
     * A retry that starts after processing: each storyboard the failed campaign's videos have (their languages' lanes
     * spoken before it failed), copied to the retry's video of the same language, platform and variant (its narration
     * and captions stay where they were stored).
     */
    adopt: {
      visibility: 'public',
      params: ADOPT_SCHEMA,
      async handler(ctx: Context<AdoptParams>): Promise<AdoptResult> {
        const { models, sequelize } = this.db;
        const { from_campaign_id: from, campaign_id: to, videos } = ctx.params;
        const renamed = new Map(videos.map((v) => [v.from, v.to]));
        return sequelize.transaction(async (transaction: Transaction) => {
          const rows: StoryboardRow[] = await models.Storyboard.findAll({ where: { campaign_id: from }, transaction });
          await models.Storyboard.destroy({ where: { campaign_id: to }, transaction });
          let copied = 0;
          for (const row of rows) {
            const videoId = renamed.get(row.video_id);
            if (!videoId) continue;
            const document: Storyboard = { ...row.document, campaignId: to, videoId };
            await models.Storyboard.create({ video_id: videoId, campaign_id: to, document }, { transaction });
            copied += 1;
          }
          return { copied };
        });
      },
    },

    storyboards: {
      visibility: 'public',
      params: STAGE_PARAMS_SCHEMA,
      async handler(ctx: Context<StageParams>): Promise<StoryboardsResult> {
        const rows: StoryboardRow[] = await this.db.models.Storyboard.findAll({ where: { campaign_id: ctx.params.campaign_id } });
        return rows.map((row) => ({ video_id: row.video_id, document: row.document }));
      },
    },

    /** The campaign actor's video document (decisions §12): one video's storyboard, null until its voiceover. */
    storyboard: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['video_id'],
        properties: { video_id: { type: 'string', maxLength: 64 }, revision: { type: 'integer', minimum: 1 } },
      },
      handler(ctx: Context<StoryboardParams>): Promise<Storyboard | null> {
        return this.storyboardAt(ctx.params.video_id, ctx.params.revision ?? 1);
      },
    },
  },

  methods: {
    /** A video's storyboard at a revision: 1 is the voice stage's first (storyboards), an edit's are its own rows. */
    async storyboardAt(videoId: string, revision: number) {
      if (revision <= 1) {
        const row: StoryboardRow | null = await this.db.models.Storyboard.findByPk(videoId);
        return row?.document ?? null;
      }
      const row = await this.db.models.StoryboardRevision.findOne({ where: { video_id: videoId, revision } });
      return row?.document ?? null;
    },

    /**
     * One language's scenes spoken, as one hook variant says them (its opening, then the shared scenes): its narration
     * track and WebVTT stored, and a storyboard for each of its videos of that variant (one per platform), the scenes'
     * times added up from their audio.
     */
    async languageStoryboards(
      campaign: StageInput,
      plan: CampaignPlanDocument,
      row: ScriptRow,
      language: LanguageCode,
      said: SaidScene[],
      workDir: string,
      variant: VideoVariant = 'a',
    ) {
      const script = row.script;
      // The plan's scenes this script says (a scene with nothing new to say may have been left out).
      const shown = plannedFor(plan, script);
      const files = said.map((s) => s.file);
      const spoken: SpokenScene[] = said.map((s) => s.spoken);
      const languageStoryboards: Array<{ videoId: string; document: Storyboard }> = [];
      const trackFile = path.join(workDir, `${language}-${variant}-narration.wav`);
      await concatAudio(files, trackFile);
      const narrationKey = storageKeys.narration(campaign.id, language, variant);
      await this.storage.put(narrationKey, await fs.readFile(trackFile));

      let start = 0;
      const scenes: StoryboardScene[] = spoken.map((s, index) => {
        const screen = s.kind === 'screen' ? shown.scenes[index - 1] : undefined;
        // Starts add up the rounded durations, so scenes meet exactly (no 1 ms overlaps or gaps).
        const durationSeconds = round(s.durationSeconds);
        const scene: StoryboardScene = {
          index,
          id: sceneIdAt(index),
          kind: s.kind,
          screenshotKey: screen?.screenshotKey ?? null,
          onScreenText: s.script.onScreenText,
          narration: s.script.narration,
          audioKey: s.audioKey,
          ...(s.words ? { words: s.words.map((w) => ({ text: w.text, start: round(w.start), end: round(w.end) })) } : {}),
          startSeconds: start,
          durationSeconds,
        };
        start = round(start + durationSeconds);
        return scene;
      });
      // captions `words`: cues of short word groups timed by the words (lib/voice/word-timing.ts), in WebVTT
      // cue-internal timestamps, which the renderer reads back (the storyboard needs nothing more).
      const cues = videoCues(
        scenes.map((s, i) => ({
          text: s.narration.map((n) => n.text).join(' '),
          startSeconds: s.startSeconds,
          durationSeconds: s.durationSeconds,
          words: spoken[i].words,
        })),
        language,
        campaign.options?.captions,
      );
      const captionsKey = storageKeys.captions(campaign.id, language, variant);
      await this.storage.put(captionsKey, Buffer.from(toWebVtt(cues), 'utf8'));

      for (const video of campaign.videos.filter((v) => v.language === language && (v.variant ?? 'a') === variant)) {
        languageStoryboards.push({
          videoId: video.id,
          document: buildStoryboard({
            campaignId: campaign.id,
            videoId: video.id,
            language,
            platform: video.platform as PlatformName,
            variant,
            plan: shown,
            scriptSource: row.script_source as Storyboard['scriptSource'],
            scenes,
            narrationKey,
            captionsKey,
            totalSeconds: round(start),
            ctaLabel: script.closing.ctaLabel,
            voice: this.speech.voiceOf(language, campaign.options?.voice?.[language]),
            options: campaign.options,
          }),
        });
      }
      return languageStoryboards;
    },

    /**
     * One scene: each narration segment in its own voice, normalized, joined, padded to at least `minSeconds`.
     * Speech longer than `maxSeconds` is re-fitted to the voice's measured pace and spoken again (twice at most).
     */
    async speakScene(
      campaignId: string,
      language: LanguageCode,
      index: number | string,
      scene: ScriptScene,
      minSeconds: number,
      maxSeconds: number,
      workDir: string,
      voices: CampaignVoices,
      words?: boolean,
    ): Promise<SceneSpeech> {
      let narration = scene.narration.filter((segment) => segment.text.trim());
      let rawFiles: string[] = [];
      let said: Array<{ req: SpeechRequest; result: SpeechResult | void }> = [];
      let spokenSeconds = 0;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const runs = narration.flatMap((segment) => speechRuns(segment.text, segment.language));
        // The runs at once: in a Japanese scene, Open JTalk says its parts while festival says the Latin names.
        said = await Promise.all(
          runs.map(async (run, n) => {
            const raw = path.join(workDir, `${language}-${index}-${attempt}-${n}.raw.wav`);
            // A Latin name inside Japanese is said by the campaign's English voice, when it chose one.
            const req: SpeechRequest = {
              text: run.text,
              language: run.language,
              outFile: raw,
              voice: voices[run.language],
              words: words === true,
            };
            return { req, result: await this.speech.synthesize(req) };
          }),
        );
        rawFiles = said.map((s) => s.req.outFile);
        // The engines' files are PCM WAVs with true sizes: their lengths come from their headers, no ffmpeg run.
        spokenSeconds = 0;
        for (const raw of rawFiles) spokenSeconds += await measureDuration(raw);
        if (spokenSeconds <= maxSeconds) break;
        // The voice is slower than the script assumed: keep the share of text it can say in time.
        const ratio = (maxSeconds / spokenSeconds) * 0.95;
        const shorter = shortenNarration({ ...scene, narration }, ratio);
        if (shorter.length === 0 || shorter.every((segment, i) => segment.text === narration[i]?.text)) break;
        narration = shorter;
      }
      const padMs = SCENE_PAUSE_MS + Math.max(0, minSeconds * 1000 - spokenSeconds * 1000 - SCENE_PAUSE_MS);
      const file = path.join(workDir, `${language}-${index}.wav`);
      // One ffmpeg run a scene: runs in different voices (a Latin name in Japanese) levelled one by one, then
      // together, with the pause (normalizeAudio).
      if (spokenSeconds > 0) await normalizeAudio(rawFiles, file, { padEndMs: padMs });
      else await silence(file, Math.max(minSeconds, padMs / 1000));
      let timed: WordTiming[] | undefined;
      if (words === true && spokenSeconds > 0) {
        // normalizeAudio keeps each run's length and joins them in order (the pad at the end): a run's words move
        // by the length of the runs before it.
        timed = [];
        let offset = 0;
        for (const { req, result } of said) {
          const found = await wordTimings((r) => this.speech.synthesize(r), req, req.outFile, result?.words);
          timed.push(...found.words.map((w) => ({ ...w, start: w.start + offset, end: w.end + offset })));
          offset += await measureDuration(req.outFile);
        }
      }
      return { file, durationSeconds: await measureDuration(file), narration, words: timed };
    },
  } satisfies Omit<VoiceMethods, keyof DbMethods<'voice'> | keyof CancelableMethods> & ThisType<VoiceThis>,
};

const LATIN_RUN = /[A-Za-z][A-Za-z0-9+&'’.-]*(?:\s+[A-Za-z0-9][A-Za-z0-9+&'’.-]*)*/g;

/**
 * Japanese and Chinese voices spell Latin words letter by letter ("A-C-M-E"): product names and other
 * Latin runs inside them are spoken by the English voice instead.
 */
export function speechRuns(text: string, language: LanguageCode): Array<{ text: string; language: LanguageCode }> {
  if (language !== 'ja' && language !== 'zh') return [{ text, language }];
  const runs: Array<{ text: string; language: LanguageCode }> = [];
  let last = 0;
  for (const match of text.matchAll(LATIN_RUN)) {
    const before = text.slice(last, match.index);
    if (/[^\s\p{P}]/u.test(before)) runs.push({ text: before, language });
    runs.push({ text: match[0], language: 'en' });
    last = match.index + match[0].length;
  }
  const rest = text.slice(last);
  if (/[^\s\p{P}]/u.test(rest)) runs.push({ text: rest, language });
  return runs.length ? runs : [{ text, language }];
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** A scene with nothing to say still lasts: silence of the right format. */
async function silence(file: string, seconds: number): Promise<void> {
  await run(
    'ffmpeg',
    ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=48000:cl=mono', '-t', String(seconds), '-c:a', 'pcm_s16le', file],
    { timeoutMs: 30_000 },
  );
}

export default VoiceService;
