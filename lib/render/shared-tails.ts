/**
 * A render node's shared tails (lib/render/splice.ts): the picture after the opening, rendered by the first variant of
 * a language × platform to come to this node and kept here, by what its frames depend on, for the other variants. A
 * variant that comes while the tail is still being rendered waits for it. A few are kept, the oldest dropped first;
 * the directory is the node's own (removed with its other work directories should the node die).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** A tail this render makes for the others: kept once rendered, else given up (the next variant renders its own). */
export interface TailClaim {
  keep(file: string): Promise<void>;
  drop(): void;
}

export class SharedTails {
  private readonly tails = new Map<string, Promise<string | null>>();

  constructor(
    private readonly dir: string,
    private readonly max = 8,
  ) {}

  /** The tail's file when this node has it (waiting for one being rendered), else null. */
  async find(key: string): Promise<string | null> {
    const file = await (this.tails.get(key) ?? null);
    if (
      file &&
      !(await fs.access(file).then(
        () => true,
        () => false,
      ))
    )
      return null;
    return file;
  }

  /** Marks the tail as being rendered here, for the variants that come meanwhile. */
  claim(key: string): TailClaim {
    let settle!: (file: string | null) => void;
    this.tails.set(key, new Promise<string | null>((resolve) => (settle = resolve)));
    const drop = () => {
      this.tails.delete(key);
      settle(null);
    };
    return {
      keep: async (file) => {
        try {
          await fs.mkdir(this.dir, { recursive: true });
          const kept = path.join(this.dir, `${key}.mp4`);
          await fs.copyFile(file, kept);
          settle(kept);
          await this.evict();
        } catch {
          drop();
        }
      },
      drop,
    };
  }

  /** Every tail forgotten and its file removed (the node stops). */
  async clear(): Promise<void> {
    this.tails.clear();
    await fs.rm(this.dir, { recursive: true, force: true });
  }

  /** The oldest tails dropped beyond `max` (a Map keeps insertion order). */
  private async evict(): Promise<void> {
    while (this.tails.size > this.max) {
      const [oldest] = this.tails.keys();
      this.tails.delete(oldest);
      await fs.rm(path.join(this.dir, `${oldest}.mp4`), { force: true });
    }
  }
}
