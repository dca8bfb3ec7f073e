/**
 * Runs editly in a child process of its own process group, watched: its memory (the whole process tree:
 * node, ffmpeg) is bounded, as is its time; on either limit, or when the caller aborts, the whole group is
 * killed. Resolves with the peak memory seen.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface EditlyRunOptions {
  display: string;
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

async function treeRssBytes(rootPid: number): Promise<number> {
  let total = 0;
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop()!;
    const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const rss = /VmRSS:\s+(\d+) kB/.exec(status);
    if (rss) total += Number(rss[1]) * 1024;
    const tasks = await fs.readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
    for (const task of tasks) {
      const children = await fs.readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
      for (const child of children.split(/\s+/).filter(Boolean)) stack.push(Number(child));
    }
  }
  return total;
}

export async function runEditly(planPath: string, options: EditlyRunOptions): Promise<{ peakRssBytes: number }> {
  const { args } = childCommand();
  const child = spawn(process.execPath, args.concat(planPath), {
    detached: true, // its own process group: killing -pid takes ffmpeg along
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DISPLAY: options.display, NODE_OPTIONS: '' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let peakRssBytes = 0;
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
  const watch = setInterval(() => {
    treeRssBytes(child.pid!).then(
      (rss) => {
        peakRssBytes = Math.max(peakRssBytes, rss);
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
    return { peakRssBytes };
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
