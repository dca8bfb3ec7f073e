/**
 * The CPU class of a job: 'bulk' (a batch's campaigns) or 'interactive' (everything else). A caller puts it in a call's
 * meta (`CPU_CLASS_META`; absent = interactive); Moleculer carries meta to nested calls, on whichever node they run, and
 * the broker's middleware below runs each local action handler in that class (AsyncLocalStorage). Every program a stage
 * spawns is lowered with `lowerIfBulk(child.pid)` right after spawn, so on a small node a batch's ffmpeg, tesseract and
 * voices yield the CPU to another organization's single campaign instead of sharing it half and half.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import type { ActionHandler, Context, Middleware, Service } from 'moleculer';

/** The meta key carrying the class of the job a call belongs to. */
export const CPU_CLASS_META = 'cpuClass';

export type CpuClass = 'bulk' | 'interactive';

/**
 * The niceness of a bulk job's programs. Linux's scheduler weights niceness 0 against 10 about 1024 to 110, so an
 * interactive program next to a bulk one gets ~90 % of a core instead of half, while a bulk job alone still has every
 * idle cycle (niceness never leaves a core unused). Measured on the fairness bench: 10 was enough.
 */
export const BULK_NICENESS = 10;

const current = new AsyncLocalStorage<CpuClass>();

/** The class of the job the current async context belongs to. */
export function currentCpuClass(): CpuClass {
  return current.getStore() ?? 'interactive';
}

/** The class meta names: 'bulk' only when it says so, anything else (absent included) interactive. */
export function cpuClassOf(meta: Record<string, unknown> | undefined): CpuClass {
  return meta?.[CPU_CLASS_META] === 'bulk' ? 'bulk' : 'interactive';
}

/** Runs `fn` (and everything it starts asynchronously) as work of class `cls`. */
export function runInCpuClass<T>(cls: CpuClass | undefined, fn: () => T): T {
  return current.run(cls === 'bulk' ? 'bulk' : 'interactive', fn);
}

const warned = new Set<string>();

/**
 * When the current job is bulk, sets the niceness of process `pid` to BULK_NICENESS: its main thread and each thread it
 * has already started (niceness is per thread on Linux; threads and processes it starts later inherit it). Call it
 * right after spawn. A program that has already ended (ESRCH) is left alone; any other failure is reported once, by
 * its code, and the program runs at its usual priority.
 */
export function lowerIfBulk(pid: number | undefined): void {
  if (pid === undefined || currentCpuClass() !== 'bulk') return;
  let tids: number[] = [pid];
  try {
    tids = [...new Set([pid, ...readdirSync(`/proc/${pid}/task`).map(Number)])];
  } catch {
    /* no /proc, or the program has ended: its pid alone */
  }
  for (const tid of tids) {
    try {
      os.setPriority(tid, BULK_NICENESS);
    } catch (err) {
      // Node reports a failed setpriority as ERR_SYSTEM_ERROR, the errno's name in `info.code`.
      const code = (err as { info?: { code?: string } }).info?.code ?? (err as NodeJS.ErrnoException).code ?? 'unknown';
      if (code === 'ESRCH') continue; // the program (or that thread) has already ended
      if (!warned.has(code)) {
        warned.add(code);
        process.emitWarning(`could not lower a bulk job's program to niceness ${BULK_NICENESS} (${code})`, 'CpuClassWarning');
      }
    }
  }
}

/**
 * Runs each local action handler in the CPU class its call's meta names. Registered innermost (broker-options.ts), so
 * the class is set when the handler itself runs, not when a queue in front of it (the bulkhead) admitted the call.
 * An interactive call made from inside a bulk handler's context (an event, a timer) runs as interactive.
 */
export const CpuClassMiddleware: Middleware = {
  name: 'CpuClass',
  localAction(next: ActionHandler) {
    return function cpuClassHandler(this: Service, ctx: Context<unknown, Record<string, unknown>>) {
      const cls = cpuClassOf(ctx.meta);
      if (cls === 'interactive' && currentCpuClass() === 'interactive') return next.call(this, ctx) as unknown;
      return runInCpuClass(cls, () => next.call(this, ctx) as unknown);
    } as ActionHandler;
  },
};

/**
 * The broker's middleware list with CpuClassMiddleware just outside moleculer's ActionHook (the innermost: the first
 * listed wraps the handler first), so the action's hooks and handler run in the class, inside the bulkhead's queue.
 */
export function withCpuClass(middlewares: readonly (Middleware | string)[]): (Middleware | string)[] {
  const at = middlewares.indexOf('ActionHook');
  if (at < 0) throw new Error("moleculer's internal middlewares no longer name 'ActionHook'");
  return [...middlewares.slice(0, at + 1), CpuClassMiddleware, ...middlewares.slice(at + 1)];
}
