/**
 * The Chromium pool behind the capture service: puppeteer-cluster on Debian's Chromium, driven by
 * puppeteer-core, with every connection forced through our egress proxy (lib/egress-proxy.ts).
 * A crashed browser is relaunched by puppeteer-cluster's own repair; we also request that repair
 * after `pagesPerBrowser` pages, so a leaking browser never lives long.
 */
import type { Browser, LaunchOptions, Page } from 'puppeteer-core';
import { Cluster } from 'puppeteer-cluster';
import ContextConcurrency from 'puppeteer-cluster/dist/concurrency/built-in/Context';
import { chromiumProxyArgs } from '../egress-proxy';

export interface BrowserPoolOptions {
  executablePath: string;
  concurrency: number;
  pagesPerBrowser: number;
  /** Upper bound of one task (a page load and everything done on it). */
  taskTimeoutMs: number;
  proxyUrl: string;
  /** How long one Chromium start may take before it is killed and tried once more (default 30 s). */
  launchDeadlineMs?: number;
}

/**
 * Over a pipe, puppeteer waits for Chromium's first answers under the 180 s protocol timeout, not the
 * 30 s launch timeout it applies to a WebSocket start: a browser that stalls while starting would hold
 * the node's start (or a pool repair) for minutes. The deadline kills it through the launch's abort
 * signal, and the start is tried once more before the error is raised.
 */
export async function launchWithDeadline<B>(
  launch: (opts: LaunchOptions) => Promise<B>,
  opts: LaunchOptions,
  deadlineMs = 30_000,
  attempts = 2,
): Promise<B> {
  for (let attempt = 1; ; attempt += 1) {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`Chromium did not start within ${deadlineMs / 1000} s`)), deadlineMs);
    try {
      return await launch({ ...opts, signal: deadline.signal });
    } catch (err) {
      const stalled = deadline.signal.aborted;
      if (!stalled || attempt >= attempts) throw stalled ? deadline.signal.reason : err;
    } finally {
      clearTimeout(timer);
    }
  }
}

export const CHROMIUM_BASE_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--mute-audio',
  '--hide-scrollbars',
  // Pages that honour prefers-reduced-motion skip their entrance animations: a section is shot as it settles,
  // not half faded in, and Chromium draws fewer frames while we scroll.
  '--force-prefers-reduced-motion',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--disable-features=Translate,MediaRouter,OptimizationHints',
  '--lang=en-US',
];

/** puppeteer-cluster's private state used here: the repair flag of its single-browser concurrency and the browser it holds. */
interface SingleBrowserInternals {
  repairRequested: boolean;
  browser: Browser | null;
}

/** The cluster keeps its concurrency implementation in a private `browser` field. */
interface ClusterInternals {
  browser?: SingleBrowserInternals;
}

function recyclingConcurrency(pagesPerBrowser: number) {
  return class RecyclingContext extends ContextConcurrency {
    private pagesServed = 0;
    override async workerInstance() {
      const instance = await super.workerInstance();
      const jobInstance = instance.jobInstance;
      instance.jobInstance = async () => {
        const job = await jobInstance();
        const close = job.close;
        job.close = async () => {
          this.pagesServed += 1;
          // Picked up by SingleBrowserImplementation once no page is open: the browser is relaunched.
          if (this.pagesServed >= pagesPerBrowser) {
            this.pagesServed = 0;
            (this as unknown as SingleBrowserInternals).repairRequested = true;
          }
          await close();
        };
        return job;
      };
      return instance;
    }
  };
}

export class BrowserPool {
  private cluster?: Cluster<undefined, unknown>;
  private launches = 0;

  constructor(private readonly options: BrowserPoolOptions) {}

  async start(): Promise<void> {
    const puppeteer = (await import('puppeteer-core')).default;
    const counting = {
      ...puppeteer,
      launch: (opts: LaunchOptions) =>
        launchWithDeadline(
          (o) => {
            this.launches += 1;
            return puppeteer.launch(o);
          },
          opts,
          this.options.launchDeadlineMs,
        ),
    };
    this.cluster = await Cluster.launch({
      puppeteer: counting,
      concurrency: recyclingConcurrency(this.options.pagesPerBrowser),
      maxConcurrency: this.options.concurrency,
      timeout: this.options.taskTimeoutMs,
      retryLimit: 0,
      monitor: false,
      puppeteerOptions: {
        executablePath: this.options.executablePath,
        headless: true,
        // Over a pipe, Chromium exits when this process dies (even by SIGKILL); over a WebSocket it would outlive it.
        pipe: true,
        args: [...CHROMIUM_BASE_ARGS, ...chromiumProxyArgs(this.options.proxyUrl)],
      },
    });
    // Errors reach the caller of run(); the cluster's own event would only log them twice.
    this.cluster.on('taskerror', () => undefined);
  }

  /** Runs `task` on a fresh page in an incognito context of the pooled browser. */
  async run<T>(task: (page: Page) => Promise<T>): Promise<T> {
    if (!this.cluster) throw new Error('browser pool is not started');
    // One cluster serves tasks of every result type: what execute resolves with is this task's own result.
    return (await this.cluster.execute(undefined, async ({ page }: { page: Page }) => task(page))) as T;
  }

  /** How many browsers were launched so far (first start, crash repairs and recycling). */
  get browserLaunches(): number {
    return this.launches;
  }

  /** The browser process of the pool, for tests that kill it. */
  currentBrowserPid(): number | undefined {
    const impl = (this.cluster as unknown as ClusterInternals | undefined)?.browser;
    return impl?.browser?.process()?.pid;
  }

  async stop(): Promise<void> {
    const cluster = this.cluster;
    this.cluster = undefined;
    if (!cluster) return;
    // Queued work is not waited for: its callers get an error and their campaigns are resumed later.
    await cluster.close().catch(() => undefined);
  }
}
