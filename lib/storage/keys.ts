/**
 * Every key under which the pipeline stores a campaign's files (lib/storage/storage.ts), built in one place so
 * that writers and readers cannot disagree on a path.
 */
const campaignPrefix = (campaignId: string) => `campaigns/${campaignId}`;

export const storageKeys = {
  screenshot: (campaignId: string, variant: string, viewport: string, index: number) =>
    `${campaignPrefix(campaignId)}/capture/${variant}-${viewport}-${index}.png`,
  sceneAudio: (campaignId: string, language: string, sceneIndex: number) =>
    `${campaignPrefix(campaignId)}/voice/${language}/scene-${sceneIndex}.wav`,
  narration: (campaignId: string, language: string) => `${campaignPrefix(campaignId)}/voice/${language}/narration.wav`,
  captions: (campaignId: string, language: string) => `${campaignPrefix(campaignId)}/voice/${language}/captions.vtt`,
  /** The campaign's logo (create's brand.logo_url) as a PNG, fetched by the capture stage (lib/capture/logo.ts). */
  logo: (campaignId: string) => `${campaignPrefix(campaignId)}/capture/logo.png`,
  /** The campaign's music (create's music.url) as fetched (MP3, AAC, WAV or OGG: ffmpeg reads which), by the capture stage. */
  music: (campaignId: string) => `${campaignPrefix(campaignId)}/capture/music`,
  video: (campaignId: string, videoId: string) => `${campaignPrefix(campaignId)}/videos/${videoId}.mp4`,
  /** The video's poster frame (thumbnail_url), written by the renderer beside the video. */
  thumbnail: (campaignId: string, videoId: string) => `${campaignPrefix(campaignId)}/videos/${videoId}.jpg`,
  /** The video's SubRip captions (captions_srt_url), made by the renderer from the cues it burned in. */
  captionsSrt: (campaignId: string, videoId: string) => `${campaignPrefix(campaignId)}/videos/${videoId}.srt`,
};

const SAFE_KEY = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i;

/** A key as every store accepts it: relative, plain names, no `..`, at most 500 characters. */
export function assertStorageKey(key: string): string {
  if (typeof key !== 'string' || key.length > 500 || !SAFE_KEY.test(key) || key.includes('..'))
    throw new Error(`invalid storage key "${key}"`);
  return key;
}
