/**
 * The Chromium pool behind the capture service: puppeteer-cluster on Debian's Chromium, driven by
 * puppeteer-core, with every connection forced through our egress proxy (lib/net/egress-proxy.ts).
 * Each page has an incognito context of its own in one browser, relaunched when it fails and after
 * `pagesPerBrowser` pages, so a leaking browser never lives long (recyclingContexts).
 */
import type { Browser, BrowserContext, Dialog, LaunchOptions, Page } from 'puppeteer-core';
import { Cluster } from 'puppeteer-cluster';
import ConcurrencyImplementation, { type WorkerInstance } from 'puppeteer-cluster/dist/concurrency/ConcurrencyImplementation';
import { chromiumProxyArgs } from '../net/egress-proxy';
import { chromiumLaunchPath } from './chromium-priority';
import { stageFailure } from '../errors';

export interface BrowserPoolOptions {
  executablePath: string;
  concurrency: number;
  pagesPerBrowser: number;
  /** Upper bound of one task (a page load and everything done on it). */
  taskTimeoutMs: number;
  proxyUrl: string;
  /** How long one Chromium start may take before it is killed and tried once more (default 30 s). */
  launchDeadlineMs?: number;
  /** How long opening (or closing) one page's context may take before the browser is judged unwell (default 30 s). */
  pageDeadlineMs?: number;
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

/**
 * A page's own dialogs answered at once, as a visitor closing them would: alert, confirm and prompt dismissed
 * (confirm answers false, prompt null), "leave this page?" (beforeunload) accepted. Unanswered, one alert() while
 * the page loads holds its load until the capture's timeout ("The page did not load in time"). The contract is
 * silent: dismissing is the answer that agrees to nothing (no notification, no e-mail given).
 */
export function answerDialog(dialog: Dialog): void {
  void (dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss()).catch(() => undefined);
}

interface Launcher {
  launch(options: LaunchOptions): Promise<Browser>;
}

/** What one job holds: its page, in an incognito context of its own. */
interface PageResources {
  page: Page;
  context: BrowserContext;
}

/**
 * Waits for `work` at most `ms`; past that it fails, and what `work` yields later is handed to `abandon` (a
 * context created after its caller gave up is closed, not left open in the browser).
 */
async function withDeadline<T>(work: Promise<T>, ms: number, what: string, abandon: (late: T) => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      late = true;
      reject(new Error(`${what} took more than ${ms / 1000} s`));
    }, ms);
  });
  work.then(
    (value) => late && abandon(value),
    () => undefined,
  );
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One Chromium for the pool's pages, each page in an incognito context of its own, the browser relaunched after
 * `pagesPerBrowser` pages and when it fails. puppeteer-cluster's built-in equivalent (CONCURRENCY_CONTEXT) gives
 * a context and its page 5 s, a constant: on a node busy rendering that is not enough, and after ten such misses
 * its worker throws where nobody can catch it (puppeteer-cluster's GitHub issues: https://github.com/thomasdondorf/puppeteer-cluster/issues/304, /502, /529). Here the allowance is
 * `pageDeadlineMs`, and the browser is relaunched only once the pages still open on it are done.
 */
function recyclingContexts(pagesPerBrowser: number, pageDeadlineMs: number) {
  return class RecyclingContexts extends ConcurrencyImplementation {
    private browser: Browser | null = null;
    private relaunching: Promise<void> | null = null;
    private openPages = 0;
    private pagesSinceLaunch = 0;
    private idleWaiters: Array<() => void> = [];

    /** The base class keeps the puppeteer it was given untyped: ours, with the launch deadline (BrowserPool.start). */
    private launch(): Promise<Browser> {
      return (this.puppeteer as Launcher).launch(this.options);
    }

    async init(): Promise<void> {
      this.browser = await this.launch();
    }

    async close(): Promise<void> {
      await this.relaunching?.catch(() => undefined);
      await this.browser?.close().catch(() => this.browser?.process()?.kill('SIGKILL'));
    }

    /** Relaunches the browser once no page is open on it; every caller meanwhile waits for the same relaunch. */
    private relaunch(): Promise<void> {
      this.relaunching ??= (async () => {
        while (this.openPages > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
        const old = this.browser;
        this.browser = null;
        await withDeadline(old?.close() ?? Promise.resolve(), pageDeadlineMs, 'closing the browser', () => undefined).catch(() =>
          old?.process()?.kill('SIGKILL'),
        );
        this.browser = await this.launch();
        this.pagesSinceLaunch = 0;
      })().finally(() => {
        this.relaunching = null;
      });
      return this.relaunching;
    }

    private pageClosed(): void {
      this.openPages -= 1;
      if (this.openPages === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }

    private async openPage(): Promise<PageResources> {
      while (this.relaunching || this.pagesSinceLaunch >= pagesPerBrowser || !this.browser?.connected) {
        await (this.relaunching ?? this.relaunch());
      }
      const browser = this.browser;
      this.openPages += 1;
      this.pagesSinceLaunch += 1;
      try {
        const context = await withDeadline(
          browser.createBrowserContext(),
          pageDeadlineMs,
          'opening a browser context',
          (late) => void late.close().catch(() => undefined),
        );
        const page = await withDeadline(context.newPage(), pageDeadlineMs, 'opening a page', () => undefined).catch(async (err) => {
          await context.close().catch(() => undefined);
          throw err;
        });
        // Every page the pool opens (create's check and the collection alike).
        page.on('dialog', answerDialog);
        return { page, context };
      } catch (err) {
        this.pageClosed();
        throw err;
      }
    }

    workerInstance(): Promise<WorkerInstance> {
      return Promise.resolve({
        jobInstance: async () => {
          const resources = await this.openPage();
          return {
            resources,
            close: async () => {
              try {
                await withDeadline(resources.context.close(), pageDeadlineMs, 'closing a browser context', () => undefined);
              } finally {
                this.pageClosed();
              }
            },
          };
        },
        close: () => Promise.resolve(),
        // Called by the cluster's worker when a page could not be opened or closed: the browser is unwell.
        repair: () => this.relaunch(),
      });
    }
  };
}

/** No page can be opened: the browser cannot be started, or keeps failing. Retryable: the node may recover. */
function unavailable(err: unknown): Error {
  return stageFailure('capture_failed', `The browser could not open a page (${err instanceof Error ? err.message : String(err)}).`, true);
}

/** puppeteer-cluster's private state used here: the browser of its concurrency implementation, and its work loop. */
interface ClusterInternals {
  browser?: { browser: Browser | null };
  doWork(): Promise<void>;
}

export class BrowserPool {
  private cluster?: Cluster<undefined, unknown>;
  private launches = 0;
  /** The tasks not yet settled, failed together should the cluster's work loop break. */
  private readonly pending = new Set<(err: Error) => void>();
  /** A fresh cluster being started after the last one broke. */
  private starting?: Promise<void>;
  private stopped = false;

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
    const cluster = (await Cluster.launch({
      puppeteer: counting,
      concurrency: recyclingContexts(this.options.pagesPerBrowser, this.options.pageDeadlineMs ?? 30_000),
      maxConcurrency: this.options.concurrency,
      timeout: this.options.taskTimeoutMs,
      retryLimit: 0,
      monitor: false,
      puppeteerOptions: {
        // Without CAP_SYS_NICE when run as root: it would raise its own threads above every other program (chromium-priority.ts).
        executablePath: await chromiumLaunchPath(this.options.executablePath),
        headless: true,
        // Over a pipe, Chromium exits when this process dies (even by SIGKILL); over a WebSocket it would outlive it.
        pipe: true,
        args: [...CHROMIUM_BASE_ARGS, ...chromiumProxyArgs(this.options.proxyUrl)],
      },
    })) as Cluster<undefined, unknown>;
    // Errors reach the caller of run(); the cluster's own event would only log them twice.
    cluster.on('taskerror', () => undefined);
    // When no page can be opened at all (the browser cannot be relaunched), the cluster's work loop throws where
    // no caller sees it, and the task it held is never settled. Its callers get a retryable failure instead, and
    // the pool starts afresh for the next ones.
    const internals = cluster as unknown as ClusterInternals;
    const doWork = internals.doWork.bind(cluster);
    internals.doWork = () => doWork().catch((err: unknown) => this.broken(cluster, err));
    this.cluster = cluster;
  }

  /**
   * The cluster's work loop broke: every task waiting on it fails (retryable), and the next run() starts a fresh
   * cluster (or fails the same way, should Chromium still not start).
   */
  private broken(cluster: Cluster<undefined, unknown>, err: unknown): void {
    if (this.cluster !== cluster) return;
    this.cluster = undefined;
    const failure = unavailable(err);
    for (const fail of [...this.pending]) fail(failure);
    void cluster.close().catch(() => undefined);
  }

  private async currentCluster(): Promise<Cluster<undefined, unknown>> {
    while (!this.cluster) {
      if (this.stopped) throw new Error('browser pool is stopped');
      this.starting ??= this.start().finally(() => {
        this.starting = undefined;
      });
      await this.starting.catch((err: unknown) => {
        throw unavailable(err);
      });
    }
    return this.cluster;
  }

  /** Runs `task` on a fresh page in an incognito context of the pooled browser. */
  async run<T>(task: (page: Page) => Promise<T>): Promise<T> {
    const cluster = await this.currentCluster();
    let fail!: (err: Error) => void;
    const failed = new Promise<never>((_resolve, reject) => (fail = reject));
    this.pending.add(fail);
    try {
      // One cluster serves tasks of every result type: what execute resolves with is this task's own result.
      return (await Promise.race([cluster.execute(undefined, async ({ page }: { page: Page }) => task(page)), failed])) as T;
    } finally {
      this.pending.delete(fail);
    }
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
    this.stopped = true;
    await this.starting?.catch(() => undefined);
    const cluster = this.cluster;
    this.cluster = undefined;
    if (!cluster) return;
    // Queued work is not waited for: its callers get an error and their campaigns are resumed later.
    await cluster.close().catch(() => undefined);
  }
}
