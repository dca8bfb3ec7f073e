/**
 * Fixed-size raw frames read one at a time from a process (lib/render/clip-graph.ts's ffmpeg) through a named
 * pipe. Why a FIFO and not the child's stdout: a stdout stream arrives in 64 KB chunks, each a new buffer —
 * 128 of them per 1080×1920 frame, 6 GB a video — and the garbage collector spent 15 % of the render on them;
 * here the bytes are read straight into a few reused frame buffers. One frame is read ahead, so
 * ffmpeg draws the next frame while editly encodes this one, and a clip opened early (editly opens the next
 * clip before the transition into it) holds a few frames of memory, not its whole length.
 */
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';

/** Frames read ahead of the consumer: one lets ffmpeg draw the next while editly encodes this one; more only hold memory. */
const READ_AHEAD = 1;

export class FramePipe {
  private readonly child: ChildProcessByStdio<null, null, Readable>;
  private readonly ready: Buffer[] = [];
  /** Frame buffers free for reuse (a 1080×1920 frame is 8 MB). */
  private readonly spare: Buffer[] = [];
  /** The frame handed out last: the caller uses it until it asks for the next one. */
  private lent: Buffer | null = null;
  private ended = false;
  private closed = false;
  private failure: Error | null = null;
  private stderr = '';
  private exited: Promise<void>;
  private wakeConsumer: (() => void) | null = null;
  private wakeReader: (() => void) | null = null;

  /** Frames read from the process so far. */
  private produced = 0;

  private constructor(
    command: string,
    args: string[],
    private readonly fifo: string,
    private readonly frameBytes: number,
    private readonly tail: { frames: number; readAll: number },
  ) {
    this.child = spawn(command, [...args, '-y', fifo], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-2000);
    });
    this.exited = new Promise((resolve) => {
      this.child.on('error', (err) => {
        this.failure ??= err;
        resolve();
      });
      this.child.on('close', (code, signal) => {
        if (code !== 0 && !this.closed) this.failure ??= new Error(`${command} exited ${code ?? signal}: ${this.stderr.trim()}`);
        resolve();
      });
    });
    void this.readAll();
  }

  /**
   * Starts `command args… <fifo>`, which must write `tail.frames` raw frames of `frameBytes` to the path it is
   * given last. The last `tail.readAll` frames are read ahead all at once, so that the process has ended
   * before the clip after it starts its own (the two overlap in a transition): one ffmpeg at a time.
   */
  static async open(
    command: string,
    args: string[],
    fifo: string,
    frameBytes: number,
    tail: { frames: number; readAll: number },
  ): Promise<FramePipe> {
    await promisify(execFile)('mkfifo', ['-m', '600', fifo]);
    return new FramePipe(command, args, fifo, frameBytes, tail);
  }

  private readAhead(): number {
    return this.produced >= this.tail.frames - this.tail.readAll ? this.tail.readAll : READ_AHEAD;
  }

  private async readAll(): Promise<void> {
    const opening = fs.open(this.fifo, 'r');
    let handle: fs.FileHandle | null = null;
    try {
      // Opening a FIFO for reading waits for its writer. If ffmpeg ended without opening it, our own
      // writer lets the open through (it would otherwise hold a thread of libuv's pool for good).
      if (!(await Promise.race([opening.then(() => true), this.exited.then(() => false)]))) {
        const writer = await fs.open(this.fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => null);
        handle = await opening;
        await writer?.close();
      } else handle = await opening;
      for (;;) {
        while (this.ready.length >= this.readAhead() && !this.closed) await new Promise<void>((resolve) => (this.wakeReader = resolve));
        if (this.closed) return;
        const frame = this.spare.pop() ?? Buffer.allocUnsafe(this.frameBytes);
        let filled = 0;
        while (filled < this.frameBytes) {
          const { bytesRead } = await handle.read(frame, filled, this.frameBytes - filled, null);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        if (filled < this.frameBytes) return; // end of the stream (a partial last frame is dropped)
        this.ready.push(frame);
        this.produced += 1;
        this.wake();
      }
    } catch (err) {
      if (!this.closed) this.failure ??= err as Error;
    } finally {
      await handle?.close().catch(() => undefined);
      await this.exited;
      await fs.rm(this.fifo, { force: true });
      this.ended = true;
      this.wake();
    }
  }

  private wake(): void {
    const waiter = this.wakeConsumer;
    this.wakeConsumer = null;
    waiter?.();
  }

  /**
   * The next frame, or null once the process has ended and every frame was read; rejects if it failed. The
   * frame returned before is reused: the caller must be done with it (editly writes a frame to its encoder
   * before it asks a clip for the next).
   */
  async next(): Promise<Buffer | null> {
    while (!this.ready.length) {
      if (this.ended) {
        if (this.failure) throw this.failure;
        return null;
      }
      await new Promise<void>((resolve) => (this.wakeConsumer = resolve));
    }
    const frame = this.ready.shift()!;
    if (this.lent) this.spare.push(this.lent);
    this.lent = frame;
    const reader = this.wakeReader;
    this.wakeReader = null;
    reader?.();
    return frame;
  }

  close(): void {
    this.closed = true;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    const reader = this.wakeReader;
    this.wakeReader = null;
    reader?.();
  }
}
