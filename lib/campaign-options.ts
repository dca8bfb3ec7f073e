/**
 * The optional creative fields of a create (decisions §11, issue 15 item 5), defined once: the JSON Schemas of the
 * create body and of GET derive from these, the campaign actor stores them, the voice stage writes them into each
 * storyboard, and the renderer follows the storyboard. `voice` and `brand.logo_url` are not accepted yet (README).
 */
import type { RenderQuality } from './render/plan';

export const CAPTION_MODES = ['burned', 'file_only'] as const;
export type CaptionMode = (typeof CAPTION_MODES)[number];
export const QUALITIES = ['full', 'draft'] as const satisfies readonly RenderQuality[];
export const HEX_COLOR_PATTERN = '^#[0-9a-fA-F]{6}$';
export const METADATA_MAX_PAIRS = 20;
export const METADATA_MAX_CHARACTERS = 500;

/** What a campaign asked of its videos; an absent field is the default (captions burned, the node's quality, the page's colour). */
export interface CampaignOptions {
  captions?: CaptionMode;
  quality?: RenderQuality;
  brand?: { primary_color: string };
}
/** The integrator's own key–value pairs, echoed in GET, the list and the webhooks; never interpreted. */
export type CampaignMetadata = Record<string, string>;

/** The options a create body carries, without the fields that are not options. */
export function optionsOf(body: CampaignOptions): CampaignOptions | null {
  const options: CampaignOptions = {
    ...(body.captions ? { captions: body.captions } : {}),
    ...(body.quality ? { quality: body.quality } : {}),
    ...(body.brand ? { brand: { primary_color: body.brand.primary_color.toLowerCase() } } : {}),
  };
  return Object.keys(options).length ? options : null;
}
