/**
 * A storyboard as the voice stage stores one, for unit tests of what reads it (the render plan, the poster, the video
 * document): `scenes` in play order, its length theirs, every other field a plain default that `extra` overrides.
 */
import type { Storyboard, StoryboardScene } from '../../lib/campaign/storyboard';

export const TEST_BRAND: Storyboard['brand'] = {
  name: 'Acme',
  domain: 'acme.test',
  primary: '#1f2937',
  background: '#ffffff',
  text: '#111827',
  palette: [],
  logoUrl: null,
};

export function storyboardOf(scenes: StoryboardScene[], extra: Partial<Storyboard> = {}): Storyboard {
  const last = scenes.at(-1)!;
  return {
    version: 1,
    campaignId: 'c',
    videoId: 'v',
    language: 'en',
    platform: 'tiktok',
    frame: { width: 1080, height: 1920 },
    direction: 'ltr',
    font: 'Noto Sans',
    brand: TEST_BRAND,
    scriptSource: 'localized_page',
    scenes,
    narrationKey: 'n.wav',
    captionsKey: 'c.vtt',
    totalSeconds: last.startSeconds + last.durationSeconds,
    closing: { ctaLabel: 'Start now', domain: 'acme.test' },
    ...extra,
  };
}
