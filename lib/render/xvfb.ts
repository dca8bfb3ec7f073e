/**
 * headless-gl (editly's transitions) needs an X display. A render node keeps one Xvfb for its lifetime,
 * shared by its renders (starting one per render, as xvfb-run does, costs about 0.8 s each). An X display
 * already given in DISPLAY is used as it is.
 */
import { spawn, type ChildProcess } from 'node:child_process';

let shared: { display: string; process: ChildProcess | null; users: number } | null = null;
let starting: Promise<string> | null = null;

function startXvfb(): Promise<{ display: string; process: ChildProcess }> {
  return new Promise((resolve, reject) => {
    // -displayfd: Xvfb picks a free display number and writes it to fd 3 once it accepts connections.
    const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1920x1920x24', '-nolisten', 'tcp'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('Xvfb did not start within 10 s'));
    }, 10_000);
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolve({ display: `:${chunk.toString().trim()}`, process: child });
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb could not start: ${err.message} (is the xvfb package installed?)`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${code}): ${stderr.trim()}`));
    });
  });
}

/** The X display for this node's renders; the caller pairs it with releaseDisplay(). */
export async function acquireDisplay(): Promise<string> {
  if (shared) {
    shared.users += 1;
    return shared.display;
  }
  starting ??= (async () => {
    if (process.env.DISPLAY) {
      shared = { display: process.env.DISPLAY, process: null, users: 0 };
    } else {
      const started = await startXvfb();
      started.process.unref();
      shared = { ...started, users: 0 };
    }
    return shared.display;
  })().finally(() => {
    starting = null;
  });
  const display = await starting;
  shared!.users += 1;
  return display;
}

export function releaseDisplay(): void {
  if (!shared) return;
  shared.users -= 1;
  if (shared.users > 0) return;
  shared.process?.kill('SIGTERM');
  shared = null;
}
