/** Runs a program without a shell; text for stdin is written as UTF-8. Rejects with the program's
 * exit status and the tail of its stderr, or with a timeout. */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { lowerIfBulk } from '../campaign/cpu-class';

export interface RunOptions {
  input?: string;
  timeoutMs: number;
}

export function run(cmd: string, args: string[], opts: RunOptions): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      { timeout: opts.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr });
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
        const tail = stderr.trim().split('\n').slice(-5).join(' | ');
        if (e.code === 'ENOENT') return reject(new Error(`${cmd} not found (is it installed and on PATH?)`));
        if (e.killed) return reject(new Error(`${cmd} timed out after ${opts.timeoutMs} ms`));
        reject(new Error(`${cmd} failed (exit ${e.code ?? 'unknown'}): ${tail || e.message}`));
      },
    );
    lowerIfBulk(child.pid);
    child.stdin?.on('error', () => {
      /* the exit callback reports the failure */
    });
    child.stdin?.end(opts.input ?? '');
  });
}

/** Whether `file` exists (and, with X_OK, may be run): an engine's dictionary, voice or program. */
export async function fileExists(file: string, mode = constants.F_OK): Promise<boolean> {
  try {
    await access(file, mode);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path `cmd` runs as (a path with a slash is taken as is), or undefined when there is no such executable. */
export async function findExecutable(cmd: string): Promise<string | undefined> {
  const candidates = cmd.includes('/')
    ? [cmd]
    : (process.env.PATH ?? '')
        .split(':')
        .filter(Boolean)
        .map((dir) => join(dir, cmd));
  for (const file of candidates) if (await fileExists(file, constants.X_OK)) return file;
  return undefined;
}
