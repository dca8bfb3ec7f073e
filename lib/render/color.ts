/** Perceived brightness (0–255, Rec. 601 weights) of a `#rrggbb` colour; NaN when it is not one. */
export function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b;
}
