/**
 * A screen scene's crop never slices a line of the page at its top or bottom edge (lib/render/framing.ts snapEdge,
 * frameShot; lib/render/render-video.ts restInGaps for a scroll's resting places): each edge moves, a little, to a
 * gap between the capture's text boxes, keeping the picture's scale and width; a box taller than the crop is exempt;
 * the repair's reframe (reach `far`) moves further. Synthetic text boxes, no rendering.
 */
import { EDGE_REACH, frameShot, slices, snapEdge, type Box, type ShotContent } from '../../lib/render/framing';
import { restInGaps } from '../../lib/render/render-video';

const YOUTUBE = { width: 1920, height: 1080 };

/** Lines of a page, `height` tall every `pitch` rows from `first` (image pixels). */
function lines(first: number, count: number, pitch = 50, height = 40): Array<{ box: Box; text: string }> {
  return Array.from({ length: count }, (_, i) => ({ box: { x: 40, y: first + i * pitch, width: 1400, height }, text: `line ${i}` }));
}
const shotOf = (focus: ShotContent['focus'], content: Box = { x: 0, y: 0, width: 1560, height: 3000 }): ShotContent => ({
  width: 1560,
  height: 3000,
  pixelRatio: 2,
  textPx: 16,
  content,
  focus,
});
const sliced = (boxes: Array<{ box: Box }>, row: number) => boxes.filter(({ box }) => slices(box, row)).map(({ box }) => box.y);

describe('snapEdge', () => {
  const boxes = lines(100, 5).map((l) => l.box); // 100–140, 150–190, …
  it('keeps an edge that slices nothing, and moves one that does to the nearest gap its way', () => {
    expect(snapEdge(145, boxes, 500, 'up', 100)).toBe(145);
    expect(snapEdge(160, boxes, 500, 'up', 100)).toBe(150);
    expect(snapEdge(160, boxes, 500, 'down', 100)).toBe(190);
    expect(snapEdge(185, boxes, 500, 'either', 100)).toBe(190);
  });
  it('gives up beyond its reach, and exempts a box taller than the crop', () => {
    expect(snapEdge(160, boxes, 500, 'up', 5)).toBeNull();
    const wordmark = { x: 0, y: 0, width: 1500, height: 900 };
    expect(snapEdge(400, [wordmark], 600, 'up', 100)).toBe(400);
  });
});

describe('frameShot: the crop’s top and bottom in gaps between the text boxes', () => {
  it('ends a section cut at the zone between two lines, not through one, at the same scale and width', () => {
    const focus = lines(55, 58); // a line 555–595 lies across the zone's cut (573)
    const bare = frameShot(shotOf(undefined), YOUTUBE);
    expect(sliced(focus, bare.region.y + bare.region.height)).toEqual([555]);
    const framed = frameShot(shotOf(focus), YOUTUBE);
    expect(sliced(focus, framed.region.y + framed.region.height)).toEqual([]);
    expect(sliced(focus, framed.region.y)).toEqual([]);
    expect(framed.region.y + framed.region.height).toBeCloseTo(555, 5);
    expect(framed.scale).toBe(bare.scale);
    expect(framed.region.width).toBe(bare.region.width);
  });

  it('starts below a line the content’s top slices (a section shot from the middle of a line)', () => {
    const focus = lines(-15, 30); // the first line, −15…25, is cut by the screenshot’s top
    const framed = frameShot(shotOf(focus, { x: 0, y: 0, width: 1560, height: 1400 }), YOUTUBE);
    expect(framed.region.y).toBe(25);
    expect(sliced(focus, framed.region.y)).toEqual([]);
    expect(sliced(focus, framed.region.y + framed.region.height)).toEqual([]);
  });

  it('leaves display type taller than the crop where it is, and a paragraph’s box out of near reach to the reframe, which stops between its lines', () => {
    const wordmark = [{ box: { x: 0, y: 200, width: 1560, height: 1200 }, text: 'ACME' }];
    expect(frameShot(shotOf(wordmark), YOUTUBE)).toEqual(frameShot(shotOf(undefined), YOUTUBE));
    // One recorded box for a paragraph of many lines (a <p>), across the cut: near cannot clear it, far can.
    const paragraph = [...lines(55, 4), { box: { x: 40, y: 300, width: 1400, height: 400 }, text: 'a long paragraph' }];
    const near = frameShot(shotOf(paragraph), YOUTUBE);
    expect(sliced(paragraph, near.region.y + near.region.height)).toEqual([300]);
    // The reframe stops between two of its lines, estimated from the body's line height (16 px × 1.5 × 2: 8 lines of 50).
    const far = frameShot(shotOf(paragraph), YOUTUBE, undefined, undefined, 'far');
    expect(far.region.y + far.region.height).toBe(550);
    expect((near.region.height - far.region.height) / near.region.height).toBeLessThanOrEqual(EDGE_REACH.far);
  });
});

describe('the lines the capture counted in a paragraph’s box', () => {
  it('let the everyday framing stop between two lines of one paragraph, exactly where the browser laid them out', () => {
    // One <p> of 9 lines 44.4 rows apart from row 300 (a line height no estimate from the body's type would give).
    const paragraph = [...lines(55, 4), { box: { x: 40, y: 300, width: 1400, height: 400 }, text: 'a long paragraph', lines: 9 }];
    const framed = frameShot(shotOf(paragraph), YOUTUBE);
    const bottom = framed.region.y + framed.region.height;
    expect(Math.abs((bottom - 300) / (400 / 9) - Math.round((bottom - 300) / (400 / 9)))).toBeLessThan(1e-6);
    expect(bottom).toBeGreaterThan(300);
    expect(bottom).toBeLessThanOrEqual(frameShot(shotOf(undefined), YOUTUBE).region.height);
  });
});

describe('restInGaps: a scroll rests with whole lines at its edges', () => {
  it('moves the end of a scroll so that the window’s top and bottom slice no line, never making it longer', () => {
    const focus = lines(10, 60);
    const shot = shotOf(focus);
    const framing = { region: { x: 0, y: 0, width: 1560, height: 600 }, scale: 1, at: { x: 0, y: 0 } };
    const move = { from: 0, to: 1234, start: 1, end: 5 };
    expect(sliced(focus, 1234)).toEqual([1210]);
    const rested = restInGaps(move, shot, framing, 1, 'near');
    expect(sliced(focus, rested.to)).toEqual([]);
    expect(sliced(focus, rested.to + 600)).toEqual([]);
    expect(rested.to).toBeLessThanOrEqual(move.to);
    expect(move.to - rested.to).toBeLessThan(50);
    // Half a pixel per image row: the same rows.
    const half = restInGaps({ ...move, to: 617 }, shot, framing, 0.5, 'near');
    expect(sliced(focus, half.to / 0.5)).toEqual([]);
    // A window whose height does not match the lines' pitch: one edge whole at least.
    const odd = restInGaps(move, shot, { ...framing, region: { ...framing.region, height: 575 } }, 1, 'near');
    expect(sliced(focus, odd.to).length + sliced(focus, odd.to + 575).length).toBe(1);
  });
});
