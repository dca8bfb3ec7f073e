/**
 * Runs editly in a child process of its own process group, watched: its memory (the whole process tree:
 * node, ffmpeg) is bounded, as is its time; on either limit, or when the caller aborts, the whole group is
 * killed. Resolves with the peak memory seen.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { lowerIfBulk } from '../campaign/cpu-class';

export interface EditlyRunOptions {
  memoryLimitBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

export class RenderProcessError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** The child script: TypeScript under tsx/jest (development), compiled JavaScript from dist/. */
function childCommand(): { args: string[] } {
  const ts = __filename.endsWith('.ts');
  const script = path.join(__dirname, ts ? 'editly-child.ts' : 'editly-child.js');
  return { args: ts ? ['--import', 'tsx', script] : [script] };
}

/**
 * The memory of the render's process tree, two ways: the sum of each process's resident set (RSS: what the
 * memory limit is checked against — it counts a shared library once per process that maps it, so three
 * ffmpeg processes count libavcodec three times), and the sum of proportional sets (PSS: shared pages divided
 * among the processes that share them — what the tree adds to the machine's memory).
 */
async function treeMemory(rootPid: number): Promise<{ rss: number; pss: number }> {
  let rss = 0;
  let pss = 0;
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop()!;
    const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const resident = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    rss += resident;
    const rollup = await fs.readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
    pss += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024 || resident;
    const tasks = await fs.readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
    for (const task of tasks) {
      const children = await fs.readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
      for (const child of children.split(/\s+/).filter(Boolean)) stack.push(Number(child));
    }
  }
  return { rss, pss };
}

/**
 * `plan` may still be in the making (the screens being composed): the child starts at once and loads editly
 * (about a second) meanwhile, then gets the plan's path on its stdin. If the plan fails, the child is killed
 * and this rejects with a RenderProcessError; the caller has the plan's own error.
 */
export async function runEditly(plan: Promise<string>, options: EditlyRunOptions): Promise<{ peakRssBytes: number; peakPssBytes: number }> {
  const { args } = childCommand();
  // A small young generation: the child allocates little per frame (frames are reused buffers), and the
  // default 16 MB semi-spaces are memory the render's process tree holds for nothing.
  const child = spawn(process.execPath, ['--max-semi-space-size=1', ...args], {
    detached: true, // its own process group: killing -pid takes ffmpeg along
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  // Before it has loaded editly: the ffmpeg processes it starts later inherit its niceness.
  lowerIfBulk(child.pid);
  child.stdin.on('error', () => undefined); // a child that died first: its exit is the error reported
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let peakRssBytes = 0;
  let peakPssBytes = 0;
  // Set from the timers' callbacks: declared wide so the checks below are not narrowed to null.
  let killedFor = null as string | null;
  const killGroup = (reason: string) => {
    if (killedFor) return;
    killedFor = reason;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  };
  plan.then(
    (planPath) => child.stdin.end(`${planPath}\n`),
    () => killGroup('had no plan to render'),
  );
  const watch = setInterval(() => {
    treeMemory(child.pid!).then(
      ({ rss, pss }) => {
        peakRssBytes = Math.max(peakRssBytes, rss);
        peakPssBytes = Math.max(peakPssBytes, pss);
        if (rss > options.memoryLimitBytes)
          killGroup(`used ${Math.round(rss / 2 ** 20)} MiB, over the limit of ${Math.round(options.memoryLimitBytes / 2 ** 20)} MiB`);
      },
      () => undefined,
    );
  }, 200);
  const timer = setTimeout(() => killGroup(`took longer than ${Math.round(options.timeoutMs / 1000)} s`), options.timeoutMs);
  const onAbort = () => killGroup('aborted');
  options.signal?.addEventListener('abort', onAbort);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (exitCode) => resolve(exitCode));
    });
    if (killedFor) throw new RenderProcessError(`The renderer was stopped: it ${killedFor}.`, killedFor !== 'aborted');
    if (code !== 0) {
      const reason = /editly failed: (?:\w*Error: )?([^\n]+)/.exec(stderr)?.[1] ?? `exit code ${code}`;
      throw new RenderProcessError(`editly could not render the video: ${reason}`, true);
    }
    return { peakRssBytes, peakPssBytes };
  } finally {
    clearInterval(watch);
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    // Stray grandchildren (ffmpeg) never outlive the render.
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* none left */
    }
  }
}
