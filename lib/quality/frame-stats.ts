/**
 * The page's area of a video frame as numbers, for the video's own check (lib/quality/check.ts): how bright, how
 * varied and how busy with edges it is (a picture that did not load is a flat or almost flat field), a fingerprint
 * to tell two screens alike (the same 32×32 grey thumbnail as lib/capture/images.ts, so its thresholds hold), and
 * the area cut out as a PNG for OCR. With canvas, already built for editly.
 */
import type { Box } from '../render/framing';
import { fingerprintOf } from '../capture/images';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createCanvas, loadImage } = require('canvas') as typeof import('canvas');

export interface AreaStats {
  /** Mean grey level, 0–255. */
  mean: number;
  /** Standard deviation of the grey levels. */
  stdev: number;
  /** Share of pixels on an edge (a grey step of more than EDGE_STEP to the right or below), at a width of STATS_WIDTH. */
  edgeDensity: number;
  /** Colours in use (each channel in 16 levels) that cover at least 0.1 % of the area. */
  distinctColours: number;
  /**
   * Share of the area's BUSY_BANDS horizontal bands that hold something (edges: type, shapes, a picture's
   * contours): a page whose picture did not load holds something in a strip at most; a list of short labels, a wall of
   * logos or a photograph in most bands, whatever their number of words. A soft gradient holds no edges.
   */
  busyShare: number;
}

/** The area is measured at this width at most (its aspect kept): the numbers describe the picture, not its resolution. */
const STATS_WIDTH = 360;
/** A grey step this large between neighbours is an edge (type on a page is far above it; JPEG-like noise far below). */
const EDGE_STEP = 48;
/** The area is cut into this many horizontal bands to see where it holds something. */
const BUSY_BANDS = 12;
/** A band with at least this share of its pixels on an edge holds something (a line of small type is far above it). */
const BUSY_BAND_EDGES = 0.002;

export type FrameImage = Awaited<ReturnType<typeof loadImage>>;

/** A frame (a PNG file or its bytes) as canvas can draw it. */
export function loadFrame(png: string | Buffer): Promise<FrameImage> {
  return loadImage(png);
}

const gray = (data: Uint8ClampedArray, i: number) => 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2];

/** Numbers of `area` of `image` (whole pixels inside it). */
export function areaStats(image: FrameImage, area: Box): AreaStats {
  const scale = Math.min(1, STATS_WIDTH / Math.max(1, area.width));
  const width = Math.max(2, Math.round(area.width * scale));
  const height = Math.max(2, Math.round(area.height * scale));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.drawImage(image, area.x, area.y, area.width, area.height, 0, 0, width, height);
  const { data } = context.getImageData(0, 0, width, height);
  const n = width * height;
  const levels = new Float64Array(n);
  const colours = new Map<number, number>();
  let sum = 0;
  for (let p = 0; p < n; p += 1) {
    const i = p * 4;
    levels[p] = gray(data, i);
    sum += levels[p];
    const key = ((data[i] >> 4) << 8) | ((data[i + 1] >> 4) << 4) | (data[i + 2] >> 4);
    colours.set(key, (colours.get(key) ?? 0) + 1);
  }
  const mean = sum / n;
  let squares = 0;
  let edges = 0;
  const bandEdges = new Array<number>(BUSY_BANDS).fill(0);
  for (let y = 0; y < height; y += 1) {
    const band = Math.min(BUSY_BANDS - 1, Math.floor((y * BUSY_BANDS) / height));
    for (let x = 0; x < width; x += 1) {
      const p = y * width + x;
      squares += (levels[p] - mean) ** 2;
      const right = x + 1 < width ? Math.abs(levels[p + 1] - levels[p]) : 0;
      const below = y + 1 < height ? Math.abs(levels[p + width] - levels[p]) : 0;
      if (Math.max(right, below) > EDGE_STEP) {
        edges += 1;
        bandEdges[band] += 1;
      }
    }
  }
  const bandPixels = (band: number) => (Math.floor(((band + 1) * height) / BUSY_BANDS) - Math.floor((band * height) / BUSY_BANDS)) * width;
  const busyBands = bandEdges.filter((count, band) => count > 0 && count >= bandPixels(band) * BUSY_BAND_EDGES).length;
  const distinctColours = [...colours.values()].filter((count) => count >= n * 0.001).length;
  return { mean, stdev: Math.sqrt(squares / n), edgeDensity: edges / n, distinctColours, busyShare: busyBands / BUSY_BANDS };
}

/** `area` of `image` as a PNG, enlarged `scale` times (tesseract reads small type better enlarged). */
export function areaPng(image: FrameImage, area: Box, scale = 1): Buffer {
  const width = Math.max(1, Math.round(area.width * scale));
  const height = Math.max(1, Math.round(area.height * scale));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.drawImage(image, area.x, area.y, area.width, area.height, 0, 0, width, height);
  return canvas.toBuffer('image/png', { compressionLevel: 1 });
}

/** The fingerprint of `area` (lib/capture/images.ts), base64: compact enough to travel in a render's answer. */
export function areaFingerprint(image: FrameImage, area: Box): string {
  return Buffer.from(fingerprintOf(image, area)).toString('base64');
}

/** A fingerprint back from its base64 form. */
export function fingerprintBytes(encoded: string): Uint8Array {
  return new Uint8Array(Buffer.from(encoded, 'base64'));
}

/** The grey levels' range (lightest − darkest) over `box` of `image` (frame pixels, whole pixels inside it): ink there when large. */
export function inkRange(image: FrameImage, box: Box): number {
  const x = Math.max(0, Math.floor(box.x));
  const y = Math.max(0, Math.floor(box.y));
  const width = Math.min(image.width, Math.ceil(box.x + box.width)) - x;
  const height = Math.min(image.height, Math.ceil(box.y + box.height)) - y;
  if (width < 1 || height < 1) return 0;
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.drawImage(image, x, y, width, height, 0, 0, width, height);
  const { data } = context.getImageData(0, 0, width, height);
  let [min, max] = [255, 0];
  for (let i = 0; i < data.length; i += 4) {
    const level = gray(data, i);
    min = Math.min(min, level);
    max = Math.max(max, level);
  }
  return max - min;
}
