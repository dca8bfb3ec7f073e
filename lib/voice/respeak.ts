/**
 * An edit's narration (decisions §12): the edited video's storyboard from the one it was edited from.
 * A scene whose words and voice did not change keeps its audio file and its measured length (keepsAudio); only the
 * others are spoken, each under the edit's own key. The narration track and the captions are then made again from
 * every scene's audio, as the voice stage does for a language's first narration. The storage keys depend only on the
 * video, the revision and the scene, so a run interrupted by a node's death and run again writes the same files.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import type { LanguageCode } from '../../config/catalog';
import type { CampaignOptions } from '../campaign/options';
import { sceneIdAt, type SpokenVoice, type Storyboard, type StoryboardScene, type VideoEditDocument } from '../campaign/storyboard';
import { keepsAudio } from '../campaign/video-edit';
import { defaultVoiceId } from '../campaign/video-document';
import type { ScreenshotRef } from '../db/models';
import { shotContent } from '../script/analyze';
import type { ScriptScene } from '../script/writer';
import type { FileStorage } from '../storage/files';
import { screenshotKeyOf, storageKeys } from '../storage/keys';
import { concatAudio } from './audio';
import { toWebVtt, videoCues } from './captions';
import type { WordTiming } from './speech';

/** One scene spoken: its file in the work directory, its length, the words it says and, asked for, their times. */
export interface SpokenSceneFile {
  file: string;
  durationSeconds: number;
  narration: ScriptScene['narration'];
  words?: WordTiming[];
}

export interface RespeakInput {
  base: Storyboard;
  edit: VideoEditDocument;
  revision: number;
  /** The part of its files' keys that names the revision: the edit's number, or a repair round's tag (`1-repair1`). */
  keyRevision?: string;
  options: CampaignOptions | null;
  /** The screenshots the edit's screen scenes show, by id (capture.screenshots). */
  screens: Map<string, ScreenshotRef>;
  workDir: string;
}

export interface RespeakDeps {
  storage: FileStorage;
  /** The voice stage's speakScene: one scene, spoken to a file in `workDir`, at least `minSeconds` long. */
  speak(index: number, scene: ScriptScene, minSeconds: number, voices: Record<string, string>, words: boolean): Promise<SpokenSceneFile>;
  voiceOf(language: LanguageCode, voiceId: string): SpokenVoice;
  /** Scenes spoken at once. */
  jobs: number;
}

/** The shortest a scene of each kind lasts (as the voice stage's first narration makes them). */
export const MIN_SCENE_SECONDS: Record<StoryboardScene['kind'], number> = { title: 3, screen: 3, closing: 3.5 };

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

export async function respeakVideo(deps: RespeakDeps, input: RespeakInput): Promise<{ storyboard: Storyboard; spoken: number }> {
  const { base, edit, revision, workDir } = input;
  const keyRevision = input.keyRevision ?? String(revision);
  const language = base.language;
  const baseVoice = base.voiceId ?? input.options?.voice?.[language] ?? defaultVoiceId(language);
  const voices: Record<string, string> = { ...(input.options?.voice ?? {}), [language]: edit.voice_id };
  const baseScenes = new Map(base.scenes.map((scene, position) => [scene.id ?? sceneIdAt(position), scene]));
  const limit = pLimit(Math.max(1, deps.jobs));
  let spoken = 0;
  const said = await Promise.all(
    edit.scenes.map((scene, index) =>
      limit(async () => {
        const was = baseScenes.get(scene.id);
        if (was && keepsAudio(was, scene, { base: baseVoice, edited: edit.voice_id }, edit.captions)) {
          const file = path.join(workDir, `kept-${index}.wav`);
          await deps.storage.getFile(was.audioKey, file);
          return { file, audioKey: was.audioKey, durationSeconds: was.durationSeconds, narration: was.narration, words: was.words };
        }
        spoken += 1;
        const narration = scene.narration ? [{ text: scene.narration, language }] : [];
        const result = await deps.speak(
          index,
          { onScreenText: scene.headline, narration },
          MIN_SCENE_SECONDS[scene.kind],
          voices,
          edit.captions === 'words',
        );
        const audioKey = storageKeys.editSceneAudio(base.campaignId, base.videoId, keyRevision, scene.id);
        await deps.storage.putFile(audioKey, result.file);
        return {
          file: result.file,
          audioKey,
          durationSeconds: round(result.durationSeconds),
          narration: result.narration,
          words: result.words,
        };
      }),
    ),
  );

  let start = 0;
  const scenes: StoryboardScene[] = edit.scenes.map((scene, index) => {
    const was = baseScenes.get(scene.id);
    const { audioKey, durationSeconds, narration, words } = said[index];
    const screenshotKey = scene.screen ? screenshotKeyOf(base.campaignId, scene.screen)! : null;
    const ref = scene.screen ? input.screens.get(scene.screen) : undefined;
    const content = !screenshotKey
      ? null
      : was?.screenshotKey === screenshotKey
        ? (was.screenshotContent ?? null)
        : ref
          ? shotContent(ref)
          : null;
    const made: StoryboardScene = {
      index,
      id: scene.id,
      kind: scene.kind,
      screenshotKey,
      screenshotContent: content,
      // Framed again by a repair (decisions §13): kept while the scene shows the same screenshot.
      ...(was?.reframed && was.screenshotKey === screenshotKey ? { reframed: true } : {}),
      onScreenText: scene.headline,
      narration,
      audioKey,
      ...(words?.length ? { words: words.map((w) => ({ text: w.text, start: round(w.start), end: round(w.end) })) } : {}),
      startSeconds: start,
      durationSeconds,
    };
    start = round(start + durationSeconds);
    return made;
  });

  const trackFile = path.join(workDir, 'narration.wav');
  await concatAudio(
    said.map((s) => s.file),
    trackFile,
  );
  const narrationKey = storageKeys.editNarration(base.campaignId, base.videoId, keyRevision);
  await deps.storage.putFile(narrationKey, trackFile);
  const cues = videoCues(
    scenes.map((s) => ({
      text: s.narration.map((n) => n.text).join(' '),
      startSeconds: s.startSeconds,
      durationSeconds: s.durationSeconds,
      words: s.words,
    })),
    language,
    edit.captions,
  );
  const captionsKey = storageKeys.editCaptions(base.campaignId, base.videoId, keyRevision);
  await deps.storage.put(captionsKey, Buffer.from(toWebVtt(cues), 'utf8'));
  await fs.rm(trackFile, { force: true });

  const storyboard: Storyboard = {
    ...base,
    revision,
    voiceId: edit.voice_id,
    voice: deps.voiceOf(language, edit.voice_id),
    brand: { ...base.brand, ...(edit.primary_color ? { primary: edit.primary_color } : {}) },
    scenes,
    narrationKey,
    captionsKey,
    totalSeconds: round(start),
    captions: edit.captions,
    quality: edit.quality,
  };
  return { storyboard, spoken };
}
