/** Runs one program (no shell) and measures it: wall time and peak resident memory (VmHWM). */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';

export interface ProcessStats {
  wallSeconds: number;
  /** The process's own high-water mark of resident memory (not its children's). */
  peakRssBytes: number;
}

const POLL_MS = 100;
const STDERR_TAIL_CHARS = 4000;

/** VmHWM is the kernel's running peak of VmRSS, so polling it misses at most the last interval's growth. */
async function readPeakRssBytes(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : 0;
}

/** Resolves with the stats when the program exits 0; rejects with the tail of its stderr otherwise. */
export function runMeasured(command: string, args: string[]): Promise<ProcessStats> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let peakRssBytes = 0;
    let exited = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
    });
    const poll = async () => {
      if (exited || child.pid === undefined) return;
      peakRssBytes = Math.max(peakRssBytes, await readPeakRssBytes(child.pid));
    };
    const timer = setInterval(() => void poll(), POLL_MS);
    void poll();
    child.on('error', (err) => {
      exited = true;
      clearInterval(timer);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      exited = true;
      clearInterval(timer);
      const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code === 0) resolve({ wallSeconds, peakRssBytes });
      else reject(new Error(`${command} failed (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n').slice(-8).join('\n')}`));
    });
  });
}
