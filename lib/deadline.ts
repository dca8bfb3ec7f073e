/** One deadline for a whole outside request (connect, send, answer): its signal aborts the request when time is up. */
export interface Deadline {
  signal: AbortSignal;
  /** true once the time was up (the abort was the deadline's, not the caller's) */
  readonly passed: boolean;
  clear(): void;
}

export function deadline(ms: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  return {
    signal: controller.signal,
    get passed() {
      return controller.signal.aborted;
    },
    clear: () => clearTimeout(timer),
  };
}
