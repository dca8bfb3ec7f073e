/**
 * Framing a page capture for a video frame without cutting the page's text: the capture records where the
 * content of each shot is (its text and media, read from the DOM), and the renderer crops around that box,
 * never through it. Pure geometry, unit-tested without rendering.
 *
 * Why a crop and not the whole screenshot: a desktop screen fitted whole into a 9:16 frame is a thin strip of
 * small type; fitted with "cover" it loses its sides, and with them the ends of its lines. The crop keeps the
 * content's full width (plus what the Ken Burns zoom takes and a margin) and as much of its height as the
 * frame's shape allows, so the section fills the frame and its words stay whole.
 */

/** A rectangle in image pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A screenshot's size (image pixels), its pixel ratio, and where its content is. */
export interface ShotContent {
  width: number;
  height: number;
  /** Image pixels per CSS pixel (the capture's deviceScaleFactor). */
  pixelRatio: number;
  content: Box;
}

/** The part of the frame that overlays leave clear: the headline band above it, the captions below. */
export interface SafeZone {
  top: number;
  bottom: number;
}

/** Measured on the renderer's layers (lib/render/editly-child.ts): band and captions, as shares of the frame's height. */
export function safeZoneFor(frame: { width: number; height: number }): SafeZone {
  return frame.height > frame.width ? { top: 0.13, bottom: 0.68 } : { top: 0.17, bottom: 0.78 };
}

/** The Ken Burns zoom of a screen scene (editly's zoomAmount: the picture grows or shrinks by this share). */
export const KEN_BURNS_ZOOM = 0.08;
/** Share of the visible width kept clear on each side of the content at the zoom's closest point. */
export const SIDE_MARGIN = 0.03;
/** A screenshot is never enlarged more than this: beyond it, small type turns to blur. */
export const MAX_UPSCALE = 2;

export interface Framing {
  /** The region of the screenshot to show (inside the image). */
  region: Box;
  /** Scale from image pixels to frame pixels. */
  scale: number;
  /** Where the region's top left corner lands in the frame (frame pixels); the rest of the frame is the backdrop. */
  at: { x: number; y: number };
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
 * Where to crop `shot` for a frame of `frame`'s size and how to place it, so that the content's full width
 * stays inside the frame through a centred zoom of `zoomAmount` (editly's Ken Burns: 1 → 1 + zoomAmount), with
 * SIDE_MARGIN either side, and its middle sits in the frame's safe zone when it fits there.
 */
export function frameShot(
  shot: ShotContent,
  frame: { width: number; height: number },
  zoomAmount = KEN_BURNS_ZOOM,
  safe = safeZoneFor(frame),
): Framing {
  const content = contentWithin(shot);
  const aspect = frame.width / frame.height;
  // At the zoom's closest point only width / (1 + zoom) of the region is seen, centred. The region may be wider
  // than the screenshot (a phone page's content runs close to its edges): the backdrop then shows at the sides.
  const needWidth = (content.width * (1 + zoomAmount)) / (1 - 2 * SIDE_MARGIN);
  const regionWidth = Math.max(needWidth, frame.width / MAX_UPSCALE);
  const height = Math.min(regionWidth / aspect, shot.height);
  const scale = Math.min(frame.width / regionWidth, frame.height / height);
  const width = Math.min(regionWidth, shot.width);
  const at = { x: (frame.width - width * scale) / 2, y: (frame.height - height * scale) / 2 };
  // Horizontally: centred on the content.
  const x = clamp(content.x + content.width / 2 - width / 2, 0, shot.width - width);
  // Vertically: the content's middle at the safe zone's middle when it fits between the overlays; else its top at
  // the zone's top. The zone is shrunk towards the middle by the zoom, which pushes everything outwards.
  const zoom = 1 + zoomAmount;
  const zone = { top: 0.5 - (0.5 - safe.top) / zoom, bottom: 0.5 + (safe.bottom - 0.5) / zoom };
  const zoneTop = (zone.top * frame.height - at.y) / scale;
  const zoneHeight = ((zone.bottom - zone.top) * frame.height) / scale;
  const wantedTop = content.height <= zoneHeight ? content.y + content.height / 2 - (zoneTop + zoneHeight / 2) : content.y - zoneTop;
  // The region may start above the screenshot (a section shot with its top at the viewport's top) or end below
  // it: that part of the frame is backdrop, under the headline band or the captions. At most 40 % of it.
  const y = clamp(wantedTop, -0.4 * height, shot.height - 0.6 * height);
  const top = Math.max(0, y);
  const bottom = Math.min(shot.height, y + height);
  return {
    region: { x, y: top, width, height: bottom - top },
    scale,
    at: { x: at.x, y: at.y + (top - y) * scale },
  };
}

/**
 * How large the page's type appears in the frame: frame pixels per CSS pixel. Of a page's desktop and phone
 * captures, the one that shows its text larger frames better (used for square frames).
 */
export function typeScale(shot: ShotContent, frame: { width: number; height: number }): number {
  return frameShot(shot, frame).scale * shot.pixelRatio;
}
