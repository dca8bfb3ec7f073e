/**
 * Where the page is in a rendered video, scene by scene: the rectangle of the frame its picture fills at the
 * scene's midpoint (without our headline band and captions around it) and the part of the screenshot shown there.
 * The video's own check (lib/quality/check.ts) measures and reads only that rectangle, and knows the page's words in
 * it from the capture's text boxes. Not derived anew: the render plan, the layers' layout, the framing and the
 * camera are the renderer's own functions (lib/render/plan.ts, overlay-layout.ts, framing.ts, render-video.ts).
 */
import type { Storyboard, StoryboardScene } from '../campaign/storyboard';
import { sceneIdAt } from '../campaign/storyboard';
import { scrollAt } from '../render/camera';
import { bodyLineRows, cutsContent, frameShot, KEN_BURNS_ZOOM, type Box, type ShotContent } from '../render/framing';
import { screenLayout } from '../render/overlay-layout';
import { buildRenderPlan, frameFor } from '../render/plan';
import { scrollPlanFor } from '../render/render-video';

export interface PageView {
  sceneId: string;
  kind: StoryboardScene['kind'];
  /** The moment looked at (video seconds): the scene's midpoint, its picture settled. */
  seconds: number;
  /** Where the page's picture lies in the video's frame at that moment (its pixels, clipped to the frame); null for the cards. */
  area: Box | null;
  /** The part of the screenshot seen in `area` (image pixels); null when the storyboard does not record the screenshot's size. */
  shown: Box | null;
  /** The screenshot's recorded text boxes (image pixels), if any. */
  focus: NonNullable<ShotContent['focus']>;
  /** Whether the camera moves at that moment (a scroll under way): the lines at its edges pass by, they are not cut. */
  moving: boolean;
  /**
   * The parts of the screenshot shown while the picture stands still (image pixels): the Ken Burns zoom's crop, or a
   * scroll's window at its start and at its end — where a viewer reads the lines at the crop's top and bottom.
   */
  rests: Box[];
  /** A line of the page's body type, in image pixels (its measured type size × 1.5); null when the capture did not measure it. */
  lineRows: number | null;
}

/** The scene's id as the video document names it. */
export function sceneIdOf(scene: StoryboardScene, position: number): string {
  return scene.id ?? sceneIdAt(position);
}

const clipTo = (box: Box, width: number, height: number): Box => {
  const x = Math.max(0, box.x);
  const y = Math.max(0, box.y);
  return {
    x,
    y,
    width: Math.max(0, Math.min(width, box.x + box.width) - x),
    height: Math.max(0, Math.min(height, box.y + box.height) - y),
  };
};

/** The page's place in each scene of `storyboard`'s video, rendered at `video`'s size (full or draft). */
export function pageViews(storyboard: Storyboard, video: { width: number; height: number }): PageView[] {
  const full = frameFor(storyboard.frame, 'full');
  const draft = frameFor(storyboard.frame, 'draft');
  const quality = Math.abs(video.width - draft.width) < Math.abs(video.width - full.width) ? 'draft' : 'full';
  const plan = buildRenderPlan(storyboard, [], (key) => key, { quality, videoOnlyPath: '' });
  // A video of another size than the plan's (should not happen): the plan's geometry scaled to it.
  const sx = video.width / plan.width;
  const sy = video.height / plan.height;
  const toVideo = (box: Box): Box =>
    clipTo({ x: box.x * sx, y: box.y * sy, width: box.width * sx, height: box.height * sy }, video.width, video.height);
  return storyboard.scenes.map((scene, position) => {
    const clip = plan.clips[position];
    const t = scene.durationSeconds / 2;
    const base = {
      sceneId: sceneIdOf(scene, position),
      kind: scene.kind,
      seconds: scene.startSeconds + t,
      focus: scene.screenshotContent?.focus ?? [],
      moving: false,
      rests: [] as Box[],
      lineRows: scene.screenshotContent ? bodyLineRows(scene.screenshotContent) : null,
    };
    if (scene.kind !== 'screen' || !clip.imagePath) return { ...base, area: null, shown: null };
    const { zone } = screenLayout(plan, clip);
    const shot = clip.imageContent;
    // No record of the screenshot's size (an older storyboard): the whole zone, the page's place within it unknown.
    if (!shot) return { ...base, area: toVideo({ x: 0, y: zone.top, width: plan.width, height: zone.bottom - zone.top }), shown: null };
    const safe = { top: zone.top / plan.height, bottom: zone.bottom / plan.height };
    const framing = frameShot(shot, plan, KEN_BURNS_ZOOM, safe, clip.reframed ? 'far' : 'near');
    const scroll = cutsContent(shot, framing) ? scrollPlanFor(clip, shot, framing, plan, 1) : null;
    if (scroll) {
      // Scrolled, without zoom: the window its cut picture filled, the rows of the moment under it.
      const { tall, move } = scroll;
      const area = { x: tall.at.x, y: tall.at.y, width: tall.region.width * tall.scale, height: framing.region.height * framing.scale };
      const windowAt = (pixels: number) => ({ ...tall.region, y: tall.region.y + pixels / tall.scale, height: framing.region.height });
      const shown = windowAt(scrollAt(move, t));
      const moving = t > move.start && t < move.end;
      return { ...base, area: toVideo(area), shown, moving, rests: [windowAt(move.from), windowAt(move.to)] };
    }
    // The Ken Burns zoom about the frame's centre, at the moment's progress through the clip.
    const progress = Math.min(1, Math.max(0, t / clip.duration));
    const zoom = 1 + KEN_BURNS_ZOOM * (clip.zoom === 'in' ? progress : 1 - progress);
    const [cx, cy] = [plan.width / 2, plan.height / 2];
    const rest = {
      x: framing.at.x,
      y: framing.at.y,
      width: framing.region.width * framing.scale,
      height: framing.region.height * framing.scale,
    };
    const zoomed = {
      x: cx + (rest.x - cx) * zoom,
      y: cy + (rest.y - cy) * zoom,
      width: rest.width * zoom,
      height: rest.height * zoom,
    };
    const area = clipTo(zoomed, plan.width, plan.height);
    // The screenshot's part inside the frame (a picture zoomed past the frame's edge loses its margins).
    const perPixel = framing.scale * zoom;
    const shown = {
      x: framing.region.x + (area.x - zoomed.x) / perPixel,
      y: framing.region.y + (area.y - zoomed.y) / perPixel,
      width: area.width / perPixel,
      height: area.height / perPixel,
    };
    return { ...base, area: toVideo(area), shown, rests: [shown] };
  });
}

/** Share of `box`'s area inside `region`. */
export function shareInside(box: Box, region: Box): number {
  const w = Math.min(box.x + box.width, region.x + region.width) - Math.max(box.x, region.x);
  const h = Math.min(box.y + box.height, region.y + region.height) - Math.max(box.y, region.y);
  return w > 0 && h > 0 && box.width > 0 && box.height > 0 ? (w * h) / (box.width * box.height) : 0;
}
