/** Image work on screenshots in Node, with canvas (already built for editly): near-duplicates and a palette. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createCanvas, loadImage } = require('canvas') as typeof import('canvas');

const FINGERPRINT_SIZE = 32;

/** A 32×32 grayscale thumbnail: enough to tell two screens apart, cheap to compare. */
export async function fingerprint(png: Buffer): Promise<Uint8Array> {
  return fingerprintOf(await loadImage(png));
}

/** The same thumbnail of an image already loaded, or of its part `area` (the page's area of a video frame). */
export function fingerprintOf(
  image: Parameters<ReturnType<ReturnType<typeof createCanvas>['getContext']>['drawImage']>[0],
  area?: { x: number; y: number; width: number; height: number },
): Uint8Array {
  const canvas = createCanvas(FINGERPRINT_SIZE, FINGERPRINT_SIZE);
  const context = canvas.getContext('2d');
  if (area) context.drawImage(image, area.x, area.y, area.width, area.height, 0, 0, FINGERPRINT_SIZE, FINGERPRINT_SIZE);
  else context.drawImage(image, 0, 0, FINGERPRINT_SIZE, FINGERPRINT_SIZE);
  const { data } = context.getImageData(0, 0, FINGERPRINT_SIZE, FINGERPRINT_SIZE);
  const gray = new Uint8Array(FINGERPRINT_SIZE * FINGERPRINT_SIZE);
  for (let i = 0; i < gray.length; i += 1) gray[i] = Math.round(0.299 * data[i * 4] + 0.587 * data[i * 4 + 1] + 0.114 * data[i * 4 + 2]);
  return gray;
}

/** Mean absolute difference of two fingerprints, 0 (same) to 255. */
export function difference(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

/** Below this the two screens look the same to a viewer (measured on the fixture site: distinct sections differ by > 10). */
export const NEAR_DUPLICATE_THRESHOLD = 3;

/** Indexes of the images to keep: each differs from every kept one. */
export async function dropNearDuplicates(pngs: Buffer[], threshold = NEAR_DUPLICATE_THRESHOLD): Promise<number[]> {
  const kept: Array<{ index: number; print: Uint8Array }> = [];
  for (const [index, png] of pngs.entries()) {
    const print = await fingerprint(png);
    if (kept.every((k) => difference(k.print, print) >= threshold)) kept.push({ index, print });
  }
  return kept.map((k) => k.index);
}

/**
 * A small brand palette from screenshots: the most common saturated colours first (buttons, headers,
 * accents), then the most common neutrals (background, text), as #rrggbb. Counting alone would return
 * five shades of page background.
 */
export async function palette(pngs: Buffer[], size = 5): Promise<string[]> {
  const counts = new Map<number, { n: number; r: number; g: number; b: number }>();
  for (const png of pngs) {
    const image = await loadImage(png);
    const canvas = createCanvas(96, 60);
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0, 96, 60);
    const { data } = context.getImageData(0, 0, 96, 60);
    for (let i = 0; i < data.length; i += 4) {
      const key = ((data[i] >> 4) << 8) | ((data[i + 1] >> 4) << 4) | (data[i + 2] >> 4);
      const bucket = counts.get(key) ?? { n: 0, r: 0, g: 0, b: 0 };
      bucket.n += 1;
      bucket.r += data[i];
      bucket.g += data[i + 1];
      bucket.b += data[i + 2];
      counts.set(key, bucket);
    }
  }
  const colours = [...counts.values()].map((c) => ({ n: c.n, r: c.r / c.n, g: c.g / c.n, b: c.b / c.n }));
  const saturation = (c: { r: number; g: number; b: number }) => {
    const max = Math.max(c.r, c.g, c.b);
    const min = Math.min(c.r, c.g, c.b);
    return max === 0 ? 0 : (max - min) / max;
  };
  const byCount = (a: { n: number }, b: { n: number }) => b.n - a.n;
  const saturated = colours.filter((c) => saturation(c) > 0.35 && Math.max(c.r, c.g, c.b) > 60).sort(byCount);
  const neutral = colours.filter((c) => !saturated.includes(c)).sort(byCount);
  const picked = [...saturated.slice(0, size - 2), ...neutral].slice(0, size);
  const hex = (v: number) => Math.round(v).toString(16).padStart(2, '0');
  return picked.map((c) => `#${hex(c.r)}${hex(c.g)}${hex(c.b)}`);
}
