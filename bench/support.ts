/** Shared by the benchmarks: their settings come from the environment. */
export function positiveInteger(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name}: "${text}" must be a positive integer`);
  return value;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The highest peak RSS of some runs, in MiB, as the tables print it. */
export function peakMiB(runs: Array<{ peakRssBytes: number }>): string {
  return `${Math.round(Math.max(...runs.map((r) => r.peakRssBytes)) / 2 ** 20)} MiB`;
}
