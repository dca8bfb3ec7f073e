/**
 * The optional creative fields of a create (decisions §11), defined once: the JSON Schemas of the
 * create body and of GET derive from these, the campaign actor stores them, the voice stage writes them into each
 * storyboard, and the renderer follows the storyboard. The voices a campaign may ask for are config/voices.ts's.
 */
import type { CaptionMode, LanguageCode, RenderQuality } from '../../config/catalog';

export const HEX_COLOR_PATTERN = '^#[0-9a-fA-F]{6}$';
export const METADATA_MAX_PAIRS = 20;
export const METADATA_MAX_CHARACTERS = 500;
/** music.volume when not given: the music between sentences at 0.4 of the narration's amplitude (8 dB below it). */
export const MUSIC_DEFAULT_VOLUME = 0.4;

/** What a campaign asked of its videos; an absent field is the default (captions burned, the node's quality, the page's colour). */
export interface CampaignOptions {
  /** per language, a voice id of config/voices.ts VOICE_OPTIONS; a language not listed gets the node's voice */
  voice?: Partial<Record<LanguageCode, string>>;
  captions?: CaptionMode;
  quality?: RenderQuality;
  brand?: { primary_color?: string; logo_url?: string };
  /** the customer's track under the narration (lib/render/music.ts); volume (0, 1], MUSIC_DEFAULT_VOLUME when absent */
  music?: { url: string; volume?: number };
  /** Hook variants per language × platform (decisions §15), 1–3; absent: 1. The plan's cap is checked at create. */
  variants?: number;
}
/** The integrator's own key–value pairs, echoed in GET, the list and the webhooks; never interpreted. */
export type CampaignMetadata = Record<string, string>;

/** The options a create body carries, without the fields that are not options. */
export function optionsOf(body: CampaignOptions): CampaignOptions | null {
  const options: CampaignOptions = {
    ...(body.voice && Object.keys(body.voice).length ? { voice: body.voice } : {}),
    ...(body.captions ? { captions: body.captions } : {}),
    ...(body.quality ? { quality: body.quality } : {}),
    ...(body.brand
      ? {
          brand: {
            ...(body.brand.primary_color ? { primary_color: body.brand.primary_color.toLowerCase() } : {}),
            ...(body.brand.logo_url ? { logo_url: body.brand.logo_url } : {}),
          },
        }
      : {}),
    ...(body.variants !== undefined ? { variants: body.variants } : {}),
    ...(body.music ? { music: { url: body.music.url, ...(body.music.volume !== undefined ? { volume: body.music.volume } : {}) } } : {}),
  };
  return Object.keys(options).length ? options : null;
}
