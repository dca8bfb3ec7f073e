/** Shared by the benchmarks: their settings come from the environment. */
export function positiveInteger(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name}: "${text}" must be a positive integer`);
  return value;
}
