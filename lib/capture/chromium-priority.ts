/**
 * Chromium started without CAP_SYS_NICE. Run as root (the container's user) it holds that capability and raises its
 * own browser, GPU and compositor threads to niceness −8, above every other program of the node: on 2 cores it then
 * takes most of the CPU, and a batch's bulk programs lowered to niceness 10 (lib/campaign/cpu-class.ts) no longer leave an
 * interactive campaign its share. Without the capability its requests to raise a thread fail, and it runs at 0.
 *
 * The browser is launched through a shell script written once to a temporary directory:
 * `exec setpriv --bounding-set -sys_nice --inh-caps -sys_nice -- <chromium> "$@"`. Dropped from the bounding and the
 * inheritable sets, the capability is not given back when Chromium is exec'd (root gets its inheritable and bounding
 * sets at exec). `exec` keeps the pid, so puppeteer closes and kills the browser it started as before, and the
 * DevTools pipe (file descriptors 3 and 4) passes through. Not root, or no setpriv (util-linux), or a setpriv that
 * cannot drop it (no CAP_SETPCAP): Chromium is launched as before.
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export const SETPRIV = '/usr/bin/setpriv';
const DROP_SYS_NICE = ['--bounding-set', '-sys_nice', '--inh-caps', '-sys_nice', '--'];

const wrappers = new Map<string, Promise<string>>();

function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

async function dropsSysNice(): Promise<boolean> {
  try {
    await fs.access(SETPRIV, constants.X_OK);
    await promisify(execFile)(SETPRIV, [...DROP_SYS_NICE, 'true'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

async function writeWrapper(executable: string): Promise<string> {
  if (process.getuid?.() !== 0 || !(await dropsSysNice())) return executable;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cvg-chromium-'));
  const wrapper = path.join(dir, 'chromium');
  await fs.writeFile(wrapper, `#!/bin/sh\nexec ${[SETPRIV, ...DROP_SYS_NICE, executable].map(shellQuoted).join(' ')} "$@"\n`, {
    mode: 0o755,
  });
  return wrapper;
}

/** What to launch for the Chromium at `executable`: the wrapper without CAP_SYS_NICE when running as root, else itself. */
export function chromiumLaunchPath(executable: string): Promise<string> {
  let wrapper = wrappers.get(executable);
  if (!wrapper) {
    wrapper = writeWrapper(executable).catch(() => executable);
    wrappers.set(executable, wrapper);
  }
  return wrapper;
}
