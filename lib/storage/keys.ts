/**
 * Every key under which the pipeline stores a campaign's files (lib/storage/storage.ts), built in one place so
 * that writers and readers cannot disagree on a path.
 */
const campaignPrefix = (campaignId: string) => `campaigns/${campaignId}`;
/** Revision 1's files keep the names they had before edits existed; an edit's carry its number, a repair round's its tag. */
const revisionSuffix = (revision: number | string) =>
  typeof revision === 'string' ? `-r${revision}` : revision > 1 ? `-r${revision}` : '';

const variantSuffix = (variant: string) => (variant === 'a' ? '' : `-${variant}`);

export const storageKeys = {
  screenshot: (campaignId: string, variant: string, viewport: string, index: number) =>
    `${campaignPrefix(campaignId)}/capture/${variant}-${viewport}-${index}.png`,
  /**
   * A language's spoken scene, shared by its videos; a hook variant's own title scene (decisions §15) carries the
   * variant. Variant a's files keep the names they had before variants existed.
   */
  sceneAudio: (campaignId: string, language: string, sceneIndex: number, variant = 'a') =>
    `${campaignPrefix(campaignId)}/voice/${language}/scene-${sceneIndex}${variantSuffix(variant)}.wav`,
  narration: (campaignId: string, language: string, variant = 'a') =>
    `${campaignPrefix(campaignId)}/voice/${language}/narration${variantSuffix(variant)}.wav`,
  captions: (campaignId: string, language: string, variant = 'a') =>
    `${campaignPrefix(campaignId)}/voice/${language}/captions${variantSuffix(variant)}.vtt`,
  /** The campaign's logo (create's brand.logo_url) as a PNG, fetched by the capture stage (lib/capture/logo.ts). */
  logo: (campaignId: string) => `${campaignPrefix(campaignId)}/capture/logo.png`,
  /** The campaign's music (create's music.url) as fetched (MP3, AAC, WAV or OGG: ffmpeg reads which), by the capture stage. */
  music: (campaignId: string) => `${campaignPrefix(campaignId)}/capture/music`,
  /** A video's files; revision 1's keep the names they had before edits existed, an edit's carry its revision. */
  video: (campaignId: string, videoId: string, revision: number | string = 1) =>
    `${campaignPrefix(campaignId)}/videos/${videoId}${revisionSuffix(revision)}.mp4`,
  /** The video's poster frame (thumbnail_url), written by the renderer beside the video. */
  thumbnail: (campaignId: string, videoId: string, revision: number | string = 1) =>
    `${campaignPrefix(campaignId)}/videos/${videoId}${revisionSuffix(revision)}.jpg`,
  /** The video's SubRip captions (captions_srt_url), made by the renderer from the cues it burned in. */
  captionsSrt: (campaignId: string, videoId: string, revision: number | string = 1) =>
    `${campaignPrefix(campaignId)}/videos/${videoId}${revisionSuffix(revision)}.srt`,
  /**
   * An edit's audio (decisions §12): a scene spoken again, the video's narration track and its WebVTT, under the
   * video and the revision (a language's first narration is shared by its platforms' videos; an edit is one video's).
   */
  editSceneAudio: (campaignId: string, videoId: string, revision: number | string, sceneId: string) =>
    `${campaignPrefix(campaignId)}/voice/edits/${videoId}/r${revision}/scene-${sceneId}.wav`,
  editNarration: (campaignId: string, videoId: string, revision: number | string) =>
    `${campaignPrefix(campaignId)}/voice/edits/${videoId}/r${revision}/narration.wav`,
  editCaptions: (campaignId: string, videoId: string, revision: number | string) =>
    `${campaignPrefix(campaignId)}/voice/edits/${videoId}/r${revision}/captions.vtt`,
  /** A voice's sample for the dashboard's picker (lib/voice/samples.ts), under a version of its sentence: no campaign's. */
  voiceSample: (voiceId: string, version: string) => `voice-samples/${voiceId}-${version}.mp3`,
};

/**
 * A screenshot's id (the video document's `screen`, decisions §12): its file name without `.png`,
 * `<variant>-<viewport>-<index>` (e.g. `source-desktop-0`, `ja-mobile-2`), unique within its campaign and stable, since
 * the capture stage writes the same keys whenever it runs. undefined for a key not laid out by storageKeys.screenshot.
 */
export const SCREENSHOT_ID_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*-(?:desktop|mobile)-\\d{1,3}$';
const SCREENSHOT_ID = new RegExp(SCREENSHOT_ID_PATTERN);

export function screenshotIdOf(campaignId: string, key: string): string | undefined {
  const prefix = `${campaignPrefix(campaignId)}/capture/`;
  if (!key.startsWith(prefix) || !key.endsWith('.png')) return undefined;
  const id = key.slice(prefix.length, -'.png'.length);
  return SCREENSHOT_ID.test(id) ? id : undefined;
}

/** The storage key of a screenshot named by its id (screenshotIdOf's inverse); undefined for anything else. */
export function screenshotKeyOf(campaignId: string, screenshotId: string): string | undefined {
  return SCREENSHOT_ID.test(screenshotId) ? `${campaignPrefix(campaignId)}/capture/${screenshotId}.png` : undefined;
}

const SAFE_KEY = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i;

/** A key as every store accepts it: relative, plain names, no `..`, at most 500 characters. */
export function assertStorageKey(key: string): string {
  if (typeof key !== 'string' || key.length > 500 || !SAFE_KEY.test(key) || key.includes('..'))
    throw new Error(`invalid storage key "${key}"`);
  return key;
}
