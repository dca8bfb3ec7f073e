/** Polls `probe` until `accept` says yes or the time is up; returns the last value either way (the test asserts on it). */
export async function waitFor<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 90_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Whether a process of this pid is still there (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
