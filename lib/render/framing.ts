/**
 * Framing a page capture for a video frame without cutting the page's text and without any of it under our own
 * layers: the capture records where the content of each shot is (its text and media, read from the DOM), and the
 * renderer crops around that box, never through its lines. Pure geometry, unit-tested without rendering.
 *
 * How a screen scene shows its page (docs/video.md, "Rendering"):
 * - The page's picture is the content box (plus a few CSS pixels of the page around it), at its full width: a line
 *   of the page is never cut at its ends. The rest of the frame is the backdrop (the screenshot, blurred).
 * - It lies between the bottom of the headline band and the top of the caption box (lib/render/overlay-layout.ts
 *   pageZone, from the very rectangles the renderer draws them in), with a gap of backdrop, at every moment of the
 *   Ken Burns zoom: the zoom enlarges the frame about its centre, so the picture is laid out in the zone shrunk
 *   towards the centre by the zoom. Without burned captions (file_only) the page may use their room.
 * - Its scale: as large as the content's width allows (its width inside SIDE_MARGIN of the frame's sides at the
 *   zoom's closest point), at most MAX_UPSCALE: the largest type the page's whole lines allow. A section taller
 *   than the zone at that scale is shown from its top and cut at the zone's bottom, in a gap between two lines
 *   (lib/render/render-video.ts). When the capture measured the page's type (textPx), a section that would fit
 *   the zone whole at no less than WHOLE_MIN_SHARE of that scale is shown whole instead, if its type stays
 *   legible so (MIN_TEXT_SHARE of the frame's shorter side); a section whose type would be smaller than that
 *   whole is cut shorter, never narrower, at the largest scale, where its type reaches the minimum whenever the
 *   content's width allows it at all.
 * - A vertical frame showing a desktop capture (a page without a phone layout, or whose phone capture is missing)
 *   follows the same rules: the desktop content's full width fits the frame's width, lines whole, and the type is
 *   smaller than on a phone capture — accepted rather than cutting the lines; the picture sits in the zone like any
 *   other, mostly a short band of the section under the headline, with the backdrop above and below.
 */
import { headlineLayout, pageZone, uiInsetsFor } from './overlay-layout';
import type { LanguageCode, PlatformName } from '../../config/catalog';

/** A rectangle in image pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One of the capture's text boxes: a heading or a paragraph-level block, its text, and how many lines it shows. */
export interface TextBox {
  box: Box;
  text: string;
  /** Its lines of text, as the browser laid them out (absent on older captures: estimated, lib/render/framing.ts lineBands). */
  lines?: number;
}

/** A screenshot's size (image pixels), its pixel ratio, and where its content is. */
export interface ShotContent {
  width: number;
  height: number;
  /** Image pixels per CSS pixel (the capture's deviceScaleFactor). */
  pixelRatio: number;
  content: Box;
  /** The median CSS font size of the text in the content box, when the capture measured it. */
  textPx?: number;
  /**
   * The section's heading and its paragraph-level blocks with their text, in image pixels, as the capture found them
   * (absent on older captures): the renderer marks the one the narration speaks of (lib/render/camera.ts).
   */
  focus?: TextBox[];
}

/** The rows of the frame left to the page's picture by our layers, as shares of the frame's height. */
export interface SafeZone {
  top: number;
  bottom: number;
}

export interface SafeZoneOptions {
  /** The app's UI to keep our layers out of (config/catalog.ts); without one, by the frame's shape. */
  platform?: PlatformName | null;
  /** The storyboard's caption mode: file_only draws no caption box; any other draws the cues in one. */
  captions?: string;
  /** The scene's headline (the band's height follows its lines); undefined: a headline of one line; null or '': no band. */
  headline?: string | null;
  language?: LanguageCode;
}

/**
 * The part of the frame our layers leave to the page: derived from the renderer's own layout of the band and the
 * caption box (lib/render/overlay-layout.ts), for the platform's frame.
 */
export function safeZoneFor(frame: { width: number; height: number }, opts: SafeZoneOptions = {}): SafeZone {
  const overlay = { width: frame.width, height: frame.height, insets: uiInsetsFor(frame, opts.platform) };
  const headline = headlineLayout(overlay, opts.headline === undefined ? 'Headline' : opts.headline, opts.language ?? 'en');
  const zone = pageZone(overlay, { headline, captions: opts.captions !== 'file_only' });
  return { top: zone.top / frame.height, bottom: zone.bottom / frame.height };
}

/** The Ken Burns zoom of a screen scene (editly's zoomAmount: the picture grows or shrinks by this share). */
export const KEN_BURNS_ZOOM = 0.08;
/** Share of the visible width kept clear on each side of the content at the zoom's closest point. */
export const SIDE_MARGIN = 0.03;
/** A screenshot is never enlarged more than this: beyond it, small type turns to blur. */
export const MAX_UPSCALE = 2;
/**
 * The smallest the page's body type may be drawn, as a share of the frame's shorter side (its font size in frame
 * pixels, at the zoom's farthest point): 1.9 %, 20.5 px on a 1080 px side. A phone shows a 1080 px wide video
 * about 390 pt wide: the type is then about 7.4 pt, an x-height of 1.4 mm, which at arm's length (35 cm) is
 * 0.23°, just above the critical print size of normal reading (about 0.2°, Legge et al.), below which reading
 * slows down sharply; the captions are set at 4.6 %. Text read in a few seconds of video cannot be smaller.
 */
export const MIN_TEXT_SHARE = 0.019;
/** A section is shown whole (smaller) when that keeps at least this share of the size its width allows. */
export const WHOLE_MIN_SHARE = 0.75;
/** CSS pixels of the page kept around the content box: its margins, never the next section's lines. */
export const PAGE_PAD_CSS = 12;

export interface Framing {
  /** The region of the screenshot to show (inside the image). */
  region: Box;
  /** Scale from image pixels to frame pixels. */
  scale: number;
  /** Where the region's top left corner lands in the frame (frame pixels); the rest of the frame is the backdrop. */
  at: { x: number; y: number };
  /**
   * The image row where the section's whole picture ends (its content, the page's pad, the edge moved to a gap
   * between text boxes): a region ending above it cuts the section (cutsContent), a scroll goes down to it
   * (uncutFraming). Absent on framings made by hand: the content's bottom and pad.
   */
  sectionBottom?: number;
}

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), Math.max(min, max));

/** The content box clipped to the image, or the whole image when the box is missing or empty. */
export function contentWithin(shot: ShotContent): Box {
  const { content } = shot;
  const x = clamp(content.x, 0, shot.width);
  const y = clamp(content.y, 0, shot.height);
  const width = clamp(content.x + content.width, 0, shot.width) - x;
  const height = clamp(content.y + content.height, 0, shot.height) - y;
  return width > 1 && height > 1 ? { x, y, width, height } : { x: 0, y: 0, width: shot.width, height: shot.height };
}

/**
 * The rows of `safe` in which a picture can be laid out (frame pixels, at rest) so that it stays in `safe` at every
 * zoom from 1 to 1 + zoomAmount about the frame's centre: a row at y is drawn at c + (y − c) × z.
 */
export function zoneThroughZoom(frame: { height: number }, safe: SafeZone, zoomAmount = KEN_BURNS_ZOOM): { top: number; bottom: number } {
  const zoom = 1 + zoomAmount;
  const centre = frame.height / 2;
  const [top, bottom] = [safe.top * frame.height, safe.bottom * frame.height];
  return { top: Math.max(top, centre + (top - centre) / zoom), bottom: Math.min(bottom, centre + (bottom - centre) / zoom) };
}

/**
 * How far a crop's top or bottom edge may move to leave a gap between the capture's text boxes, as a share of the
 * crop's height: `near` for every render (small moves: the section's framing barely changes), `far` for a scene the
 * video's own check found cut there (the repair's reframe, decisions §13).
 */
export const EDGE_REACH = { near: 0.2, far: 0.5 } as const;
export type EdgeReach = keyof typeof EDGE_REACH;

/** A line of the page's body type in image pixels (its measured size × 1.5); null when the capture did not measure it. */
export function bodyLineRows(shot: Pick<ShotContent, 'textPx' | 'pixelRatio'>): number | null {
  return shot.textPx ? shot.textPx * 1.5 * shot.pixelRatio : null;
}

/**
 * The lines of a recorded text box (a paragraph is one box), evenly: as many as the capture counted (`measured`), else
 * estimated, as many as the body's line height (`lineRows`) fits in it — one when it is not taller than a line and
 * a half, or the line height is unknown.
 */
export function lineBands(box: Box, lineRows: number | null, measured?: number): Box[] {
  const lines =
    measured && measured >= 1
      ? Math.round(measured)
      : lineRows && box.height > 1.5 * lineRows
        ? Math.max(1, Math.round(box.height / lineRows))
        : 1;
  const pitch = box.height / lines;
  return Array.from({ length: lines }, (_, i) => ({ ...box, y: box.y + i * pitch, height: pitch }));
}

/**
 * What a crop's edges must not slice: the lines of the capture's text boxes where it counted them (an edge may stop
 * between two lines of one paragraph), else the whole box; for the repair's reach (`far`) the lines of every box,
 * estimated where not counted (lineBands).
 */
export function edgeBoxes(shot: ShotContent, reach: EdgeReach): Box[] {
  return (shot.focus ?? []).flatMap((item) =>
    item.lines || reach === 'far' ? lineBands(item.box, bodyLineRows(shot), item.lines) : [item.box],
  );
}

/** Whether a crop edge at image row `y` slices `box` (a pixel of rounding allowed). */
export function slices(box: Box, y: number): boolean {
  return box.y < y - 1 && box.y + box.height > y + 1;
}

/**
 * The row nearest `y` (moving only `towards` one way, at most `limit` rows) where a crop edge slices none of
 * `boxes` (the capture's text boxes; a box taller than `cropHeight` is exempt: no crop holds it whole); `y` itself
 * when it slices none; null when no such row is within reach.
 */
export function snapEdge(y: number, boxes: Box[], cropHeight: number, towards: 'up' | 'down' | 'either', limit: number): number | null {
  const lines = boxes.filter((box) => box.height <= cropHeight && box.height > 0);
  const clear = (row: number) => !lines.some((box) => slices(box, row));
  if (clear(y)) return y;
  const candidates = lines
    .flatMap((box) => [box.y, box.y + box.height])
    .filter((row) => (towards === 'up' ? row < y : towards === 'down' ? row > y : true) && Math.abs(row - y) <= limit && clear(row))
    .sort((a, b) => Math.abs(a - y) - Math.abs(b - y));
  return candidates[0] ?? null;
}

/**
 * Where to crop `shot` for a frame of `frame`'s size and how to place it (the rules are in this file's header):
 * the content's full width inside the frame through a centred zoom of `zoomAmount` (editly's Ken Burns:
 * 1 → 1 + zoomAmount) with SIDE_MARGIN either side, the whole region inside `safe` through the zoom.
 */
export function frameShot(
  shot: ShotContent,
  frame: { width: number; height: number },
  zoomAmount = KEN_BURNS_ZOOM,
  safe = safeZoneFor(frame),
  reach: EdgeReach = 'near',
): Framing {
  const content = contentWithin(shot);
  const zoom = 1 + zoomAmount;
  const zone = zoneThroughZoom(frame, safe, zoomAmount);
  const zoneHeight = Math.max(zone.bottom - zone.top, 1);
  // The region: the content box and a little of the page around it, inside the image.
  const pad = PAGE_PAD_CSS * shot.pixelRatio;
  const left = Math.max(0, content.x - pad);
  const top = Math.max(0, content.y - pad);
  const region = {
    x: left,
    y: top,
    width: Math.min(shot.width, content.x + content.width + pad) - left,
    height: Math.min(shot.height, content.y + content.height + pad) - top,
  };
  // As large as the content's width allows: at the closest zoom it spans the frame but SIDE_MARGIN either side.
  const byWidth = Math.min((frame.width * (1 - 2 * SIDE_MARGIN)) / zoom / content.width, MAX_UPSCALE);
  let scale = byWidth;
  if (shot.textPx && shot.textPx > 0) {
    // The whole section, when its type stays legible so and the picture keeps WHOLE_MIN_SHARE of the largest size:
    // else the largest size, cut at the bottom — the largest type the lines allow, so at least the minimum wherever
    // the content's width allows it (a section shrunk into a narrow card amid the backdrop reads worse than its top).
    const whole = Math.min(byWidth, zoneHeight / region.height);
    const legible = shot.textPx * shot.pixelRatio * whole >= MIN_TEXT_SHARE * Math.min(frame.width, frame.height);
    if (legible && whole >= WHOLE_MIN_SHARE * byWidth) scale = whole;
  }
  // Its top and bottom edges in gaps between the capture's text boxes: no line of the page sliced by either (the
  // section's own bottom too: a content box that ends across a line, where the screenshot ended).
  const boxes = edgeBoxes(shot, reach);
  const crop = zoneHeight / scale;
  const limit = EDGE_REACH[reach] * Math.min(crop, region.height);
  const snappedTop = snapEdge(region.y, boxes, crop, 'down', limit);
  if (snappedTop !== null && snappedTop > region.y) {
    region.height -= snappedTop - region.y;
    region.y = snappedTop;
  }
  const sectionBottom = snapEdge(region.y + region.height, boxes, crop, 'up', limit) ?? region.y + region.height;
  region.height = Math.max(1, sectionBottom - region.y);
  // Taller than the zone: from its top, cut at the zone's bottom (in a gap too).
  if (region.height > crop)
    region.height = Math.max(1, (snapEdge(region.y + crop, boxes, crop, 'up', limit) ?? region.y + crop) - region.y);
  return {
    sectionBottom,
    region,
    scale,
    at: {
      // The content's middle at the frame's middle: the zoom keeps it there.
      x: frame.width / 2 - (content.x + content.width / 2 - region.x) * scale,
      // In the middle of the zone (a section cut at the bottom fills it).
      y: zone.top + (zoneHeight - region.height * scale) / 2,
    },
  };
}

/**
 * The rows of a region's foot, grey levels (`width` a row), bottom last: the index of the lowest row without ink (its
 * levels within `tolerance` of each other), a gap between two lines of the page; null when every row has some.
 */
export function lowestBlankRow(rows: Uint8Array, width: number, tolerance = 10): number | null {
  for (let y = Math.floor(rows.length / width) - 1; y >= 0; y -= 1) {
    let min = 255;
    let max = 0;
    for (let i = y * width; i < (y + 1) * width; i += 1) {
      min = Math.min(min, rows[i]);
      max = Math.max(max, rows[i]);
    }
    if (max - min <= tolerance) return y;
  }
  return null;
}

/**
 * `framing` with its region ending at image row `bottom` (above its current end: a gap between two lines of the
 * page, found in its pixels), its top left in place: a section cut at the zone's bottom is not cut across a line.
 */
export function endRegionAt(framing: Framing, bottom: number): Framing {
  const height = bottom - framing.region.y;
  if (!(height > 0) || height >= framing.region.height) return framing;
  return { ...framing, region: { ...framing.region, height } };
}

/** How far above a cut to look for a gap between lines: three lines of the page's type (16 px when unmeasured), in image pixels. */
export function gapSearchRows(shot: ShotContent, framing: Framing): number {
  return Math.round(Math.min(3 * 1.6 * (shot.textPx ?? 16) * shot.pixelRatio, framing.region.height / 3));
}

/**
 * `framing` with its region reaching the content's bottom again (and the page's pad under it), its top and scale
 * as they were: the whole section as a tall picture, which a scrolling camera shows through the zone
 * (lib/render/camera.ts) instead of cutting it.
 */
export function uncutFraming(shot: ShotContent, framing: Framing): Framing {
  const content = contentWithin(shot);
  const bottom = framing.sectionBottom ?? Math.min(shot.height, content.y + content.height + PAGE_PAD_CSS * shot.pixelRatio);
  return { ...framing, region: { ...framing.region, height: Math.max(framing.region.height, bottom - framing.region.y) } };
}

/** Whether `box` lies inside `region` (the same pixels), a pixel of rounding allowed on each side. */
export function boxWithin(box: Box, region: Box): boolean {
  return (
    box.x >= region.x - 1 &&
    box.y >= region.y - 1 &&
    box.x + box.width <= region.x + region.width + 1 &&
    box.y + box.height <= region.y + region.height + 1
  );
}

/** A box of the screenshot (image pixels) where `framing` draws it (frame pixels, at rest; for a tall picture, before any scroll). */
export function boxInFrame(box: Box, framing: Framing): Box {
  return {
    x: framing.at.x + (box.x - framing.region.x) * framing.scale,
    y: framing.at.y + (box.y - framing.region.y) * framing.scale,
    width: box.width * framing.scale,
    height: box.height * framing.scale,
  };
}

/** Whether the region ends above the content's bottom: the section is cut there. */
export function cutsContent(shot: ShotContent, framing: Framing): boolean {
  const content = contentWithin(shot);
  const bottom = framing.sectionBottom ?? content.y + content.height;
  return framing.region.y + framing.region.height < Math.min(bottom, content.y + content.height) - 0.5;
}

/** The page's body type as drawn in the frame at the zoom's farthest point (frame pixels), when the capture measured it. */
export function renderedTextPx(shot: ShotContent, framing: Framing): number | null {
  return shot.textPx ? shot.textPx * shot.pixelRatio * framing.scale : null;
}

/**
 * How large the page's type appears in the frame: frame pixels per CSS pixel. Of a page's desktop and phone
 * captures, the one that shows its text larger frames better (used for square frames).
 */
export function typeScale(shot: ShotContent, frame: { width: number; height: number }): number {
  return frameShot(shot, frame).scale * shot.pixelRatio;
}
