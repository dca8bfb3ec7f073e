/** The crop around a shot's content (lib/framing.ts): the content's full width stays in frame through the zoom. */
import { contentWithin, frameShot, KEN_BURNS_ZOOM, safeZoneFor, SIDE_MARGIN, typeScale, type ShotContent } from '../../lib/framing';

const TIKTOK = { width: 1080, height: 1920 };
const YOUTUBE = { width: 1920, height: 1080 };
const SQUARE = { width: 1080, height: 1080 };

/** Where the content lands in the frame at the zoom's closest point (centred zoom by 1 + KEN_BURNS_ZOOM). */
function contentInFrameAtZoom(shot: ShotContent, frame: { width: number; height: number }) {
  const { region, scale, at } = frameShot(shot, frame);
  const zoom = 1 + KEN_BURNS_ZOOM;
  const toFrame = (x: number, y: number) => ({
    x: frame.width / 2 + (at.x + (x - region.x) * scale - frame.width / 2) * zoom,
    y: frame.height / 2 + (at.y + (y - region.y) * scale - frame.height / 2) * zoom,
  });
  const c = contentWithin(shot);
  const topLeft = toFrame(c.x, c.y);
  const bottomRight = toFrame(c.x + c.width, c.y + c.height);
  return { left: topLeft.x, right: bottomRight.x, top: topLeft.y, bottom: bottomRight.y };
}

const desktopSection: ShotContent = { width: 1440, height: 900, pixelRatio: 1, content: { x: 120, y: 210, width: 1200, height: 480 } };
const phoneSection: ShotContent = { width: 780, height: 1688, pixelRatio: 2, content: { x: 40, y: 300, width: 700, height: 1100 } };

describe('frameShot', () => {
  it.each([
    ['desktop on 16:9', desktopSection, YOUTUBE],
    ['desktop on 9:16', desktopSection, TIKTOK],
    ['desktop on 1:1', desktopSection, SQUARE],
    ['phone on 9:16', phoneSection, TIKTOK],
    ['phone on 1:1', phoneSection, SQUARE],
    ['phone on 16:9', phoneSection, YOUTUBE],
  ])('%s keeps the content’s whole width inside the frame, with a margin, at the closest zoom', (_name, shot, frame) => {
    const { left, right } = contentInFrameAtZoom(shot, frame);
    expect(left).toBeGreaterThanOrEqual(frame.width * SIDE_MARGIN * 0.99);
    expect(right).toBeLessThanOrEqual(frame.width * (1 - SIDE_MARGIN * 0.99));
  });

  it('crops inside the image and fills the frame when the image has the room', () => {
    const roomy: ShotContent = { ...phoneSection, content: { x: 100, y: 300, width: 580, height: 900 } };
    const { region, scale, at } = frameShot(roomy, TIKTOK);
    expect(region.x).toBeGreaterThanOrEqual(0);
    expect(region.y).toBeGreaterThanOrEqual(0);
    expect(region.x + region.width).toBeLessThanOrEqual(roomy.width);
    expect(region.y + region.height).toBeLessThanOrEqual(roomy.height);
    expect(region.width * scale).toBeCloseTo(TIKTOK.width, 0);
    expect(region.height * scale).toBeCloseTo(TIKTOK.height, 0);
    expect(at).toEqual({ x: 0, y: 0 });
  });

  it('shows the backdrop at the sides rather than cut a phone page whose content runs near its edges', () => {
    const { region, scale, at } = frameShot(phoneSection, TIKTOK);
    expect(region).toMatchObject({ x: 0, width: phoneSection.width });
    expect(at.x).toBeGreaterThan(0);
    expect(region.width * scale + 2 * at.x).toBeCloseTo(TIKTOK.width, 0);
  });

  it('zooms in on a narrow column rather than showing the whole screenshot small', () => {
    const column: ShotContent = { width: 1440, height: 900, pixelRatio: 1, content: { x: 420, y: 200, width: 600, height: 300 } };
    const { region, scale } = frameShot(column, YOUTUBE);
    expect(region.width).toBeLessThan(1440);
    expect(scale).toBeGreaterThan(YOUTUBE.width / 1440);
    // ... but never past the upscale limit.
    expect(scale).toBeLessThanOrEqual(2);
  });

  it('puts a short section’s middle in the part of the frame the headline band and the captions leave clear', () => {
    const short: ShotContent = { width: 780, height: 1688, pixelRatio: 2, content: { x: 40, y: 700, width: 700, height: 300 } };
    const { top, bottom } = contentInFrameAtZoom(short, TIKTOK);
    const safe = safeZoneFor(TIKTOK);
    const middle = (top + bottom) / 2 / TIKTOK.height;
    expect(middle).toBeGreaterThan(safe.top);
    expect(middle).toBeLessThan(safe.bottom);
    expect(Math.abs(middle - (safe.top + safe.bottom) / 2)).toBeLessThan(0.06);
  });

  it('starts a tall section at its top, just under the headline band, even at the closest zoom', () => {
    const tall: ShotContent = { width: 780, height: 1688, pixelRatio: 2, content: { x: 40, y: 300, width: 700, height: 1388 } };
    const { top } = contentInFrameAtZoom(tall, TIKTOK);
    expect(top / TIKTOK.height).toBeCloseTo(safeZoneFor(TIKTOK).top, 2);
  });

  it('puts backdrop above a section shot from its very top rather than the section under the headline band', () => {
    const fromTop: ShotContent = { width: 1440, height: 900, pixelRatio: 1, content: { x: 170, y: 24, width: 1100, height: 876 } };
    const { region, at } = frameShot(fromTop, YOUTUBE);
    expect(region.y).toBe(0);
    expect(at.y).toBeGreaterThan(0);
    const { top } = contentInFrameAtZoom(fromTop, YOUTUBE);
    expect(top / YOUTUBE.height).toBeGreaterThanOrEqual(safeZoneFor(YOUTUBE).top - 0.005);
  });

  it('letterboxes (never crops the sides) when the content is wider than the frame’s shape allows', () => {
    const { region, scale, at } = frameShot(desktopSection, SQUARE);
    expect(region.width).toBeGreaterThanOrEqual(desktopSection.content.width);
    expect(at.y).toBeGreaterThan(0);
    expect(region.width * scale).toBeCloseTo(SQUARE.width, 0);
  });

  it('falls back to the whole image for a missing or empty content box', () => {
    const empty: ShotContent = { width: 1440, height: 900, pixelRatio: 1, content: { x: 2000, y: 0, width: 10, height: 10 } };
    expect(contentWithin(empty)).toEqual({ x: 0, y: 0, width: 1440, height: 900 });
  });
});

describe('typeScale', () => {
  it('prefers the phone capture on a square frame: its type comes out larger', () => {
    expect(typeScale(phoneSection, SQUARE)).toBeGreaterThan(typeScale(desktopSection, SQUARE));
  });
});
