/**
 * Fixed-size raw frames read one at a time from a process (lib/render/clip-graph.ts's ffmpeg) through a named
 * pipe, straight into a few reused frame buffers.
 *
 * Why this way, measured (bench/render/README.md): the child's stdout as a stream arrives in 64 KB chunks,
 * each a new buffer — the garbage collector spent 15 % of a render on them; reading the FIFO with fs.read
 * avoided that but cost a thread-pool round trip per 64 KB, and with x264 keeping both cores busy those
 * round trips left the clip's ffmpeg waiting on us for 60 % of the render. A socket on the FIFO with
 * `onread` reads in the event loop, into the frame buffer itself: no allocation, no thread hop.
 *
 * One frame is read ahead while editly encodes the last, except near the clip's end: its last frames are
 * all read ahead so that the process has ended before the next clip's starts (one clip process at a time).
 */
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { constants, open as openFile } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { lowerIfBulk } from '../campaign/cpu-class';

/** Frames read ahead of the consumer: one lets ffmpeg draw the next while editly encodes this one; more only hold memory. */
const READ_AHEAD = 1;

/**
 * Frame buffers a closed pipe gave back, for the next clip's pipe: without them each clip allocated its own
 * (its read-ahead tail is 13 frames, 40 MB at 1080×1920) while the last clip's waited for the garbage
 * collector, and the render's peak memory held both (600 → 571 MiB, with the clip graph's one thread). Kept up to `FRAME_POOL_MAX`.
 */
const framePool = new Map<number, Buffer[]>();
const FRAME_POOL_MAX = 24;

function takeFrameBuffer(frameBytes: number): Buffer {
  return framePool.get(frameBytes)?.pop() ?? Buffer.allocUnsafe(frameBytes);
}

function giveBackFrameBuffers(frameBytes: number, buffers: Buffer[]): void {
  const pool = framePool.get(frameBytes) ?? [];
  framePool.set(frameBytes, pool);
  for (const buffer of buffers) if (pool.length < FRAME_POOL_MAX && !pool.includes(buffer)) pool.push(buffer);
}

export class FramePipe {
  private readonly child: ChildProcessByStdio<null, null, Readable>;
  private socket: net.Socket | null = null;
  private readonly ready: Buffer[] = [];
  /** Frame buffers free for reuse (a 1080×1920 yuv420p frame is 3 MB). */
  private readonly spare: Buffer[] = [];
  /** The frame being filled by the socket. */
  private current: Buffer;
  private filled = 0;
  /** The frame handed out last: the caller uses it until it asks for the next one. */
  private lent: Buffer | null = null;
  /** Frames read from the process so far. */
  private produced = 0;
  private ended = false;
  private draining = false;
  private closed = false;
  private failure: Error | null = null;
  private stderr = '';
  private readonly exited: Promise<void>;
  private readonly done: Promise<void>;
  private wakeConsumer: (() => void) | null = null;

  private constructor(
    command: string,
    args: string[],
    private readonly fifo: string,
    private readonly frameBytes: number,
    private readonly tail: { frames: number; readAll: number },
  ) {
    this.current = takeFrameBuffer(frameBytes);
    this.child = spawn(command, [...args, '-y', fifo], { stdio: ['ignore', 'ignore', 'pipe'] });
    // In editly's child process this is a no-op (no job there): the clip's ffmpeg inherits that process's niceness.
    lowerIfBulk(this.child.pid);
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
    this.done = this.readAll();
  }

  /**
   * Starts `command args… <fifo>`, which must write `tail.frames` raw frames of `frameBytes` to the path it is
   * given last. The last `tail.readAll` frames are read ahead all at once.
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
    if (this.draining) return Infinity;
    return this.produced >= this.tail.frames - this.tail.readAll ? this.tail.readAll : READ_AHEAD;
  }

  /** Opening a FIFO for reading waits for its writer (in libuv's thread pool). */
  private async openFifo(): Promise<number> {
    const opening = promisify(openFile)(this.fifo, constants.O_RDONLY);
    // If ffmpeg ended without opening it, our own writer lets the open through (it would hold a pool thread for good).
    if (!(await Promise.race([opening.then(() => true), this.exited.then(() => false)]))) {
      const writer = await fs.open(this.fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => null);
      const fd = await opening;
      await writer?.close();
      return fd;
    }
    return opening;
  }

  private async readAll(): Promise<void> {
    try {
      const fd = await this.openFifo();
      await new Promise<void>((resolve, reject) => {
        const socket = new net.Socket({
          fd,
          readable: true,
          writable: false,
          // Each read lands in the frame being filled, never past its end.
          onread: { buffer: () => this.current.subarray(this.filled), callback: (bytes: number) => this.take(bytes) },
        });
        this.socket = socket;
        socket.on('end', resolve);
        socket.on('close', () => resolve());
        socket.on('error', reject);
        if (this.closed) socket.destroy();
      });
    } catch (err) {
      if (!this.closed) this.failure ??= err as Error;
    } finally {
      this.socket?.destroy();
      await this.exited;
      await fs.rm(this.fifo, { force: true });
      this.ended = true;
      this.wake();
    }
  }

  private take(bytes: number): boolean {
    this.filled += bytes;
    if (this.filled === this.frameBytes) {
      this.ready.push(this.current);
      this.produced += 1;
      this.current = this.spare.pop() ?? takeFrameBuffer(this.frameBytes);
      this.filled = 0;
      if (this.ready.length >= this.readAhead()) this.socket?.pause();
      this.wake();
    }
    return true;
  }

  private wake(): void {
    const waiter = this.wakeConsumer;
    this.wakeConsumer = null;
    waiter?.();
  }

  /** Reads every frame left into memory, however many, so that the process can finish. */
  drain(): void {
    this.draining = true;
    this.socket?.resume();
  }

  /** Resolves once every frame was read and the process has exited (or was closed). */
  finished(): Promise<void> {
    return this.done;
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
    if (this.ready.length < this.readAhead()) this.socket?.resume();
    return frame;
  }

  /** Ends the process (if still running) and gives the frame buffers back for the next pipe: the caller is done
   * with every frame it was handed (editly closes a clip after the transition out of it). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    this.socket?.destroy();
    const buffers = [...this.spare, ...this.ready, this.current, ...(this.lent ? [this.lent] : [])];
    this.spare.length = 0;
    this.ready.length = 0;
    this.lent = null;
    giveBackFrameBuffers(this.frameBytes, buffers);
  }
}
