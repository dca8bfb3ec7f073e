/** Shared by the benchmarks: their settings come from the environment, and a run whose figures are not valid fails loudly. */
import type autocannon from 'autocannon';

/** A setting of the benchmark from the environment: a positive integer, else `fallback`. */
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

/** Every response must be a 200: anything else means we measured something other than what we meant to. */
export function assertAllOk(label: string, result: autocannon.Result): void {
  const codes = Object.keys(result.statusCodeStats);
  const bad = result.non2xx > 0 || result.errors > 0 || result.timeouts > 0 || result['2xx'] === 0 || codes.some((code) => code !== '200');
  if (!bad) return;
  const lines = [
    '',
    '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
    `!!! ${label}: NOT EVERY RESPONSE WAS 200 — the figures are not valid`,
    `!!!   non-2xx responses: ${result.non2xx}`,
    `!!!   2xx responses:     ${result['2xx']}`,
    `!!!   errors: ${result.errors}, timeouts: ${result.timeouts}`,
    `!!!   status codes: ${JSON.stringify(Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])))}`,
    '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
    '',
  ];
  console.error(lines.join('\n'));
  throw new BenchFailure(`${label}: ${result.non2xx} non-2xx responses, ${result.errors} errors, ${result.timeouts} timeouts`);
}

/** A run whose figures are not valid: main() prints it as BENCH FAILED and exits 1. */
export class BenchFailure extends Error {}
