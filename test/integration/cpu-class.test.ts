/**
 * The CPU class of a job (lib/campaign/cpu-class.ts) on real brokers and real programs: a call whose meta says cpuClass 'bulk'
 * runs its action — and an action it calls on another node, over the real Redis transporter — in that class, and a
 * program it spawns through the stages' helper runs at niceness 10, read from the program's /proc/<pid>/stat; anything
 * else runs at 0. editly's child process (lib/render/run-editly.ts) is lowered before it starts its threads, which
 * inherit its niceness, and so do the ffmpeg processes it forks during a real (draft) render.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServiceBroker, type Context } from 'moleculer';
import { brokerOptions } from '../../broker-options';
import { loadConfig } from '../../config';
import { BULK_NICENESS, CPU_CLASS_META, runInCpuClass } from '../../lib/campaign/cpu-class';
import { transporterOption } from '../../lib/net/redis-transporter';
import { renderVideo } from '../../lib/render/render-video';
import { RenderProcessError, runEditly } from '../../lib/render/run-editly';
import { run } from '../../lib/voice/exec';
import { sceneOf, writeSilentAudio } from '../support/quality-pages';
import { storyboardOf } from '../support/storyboard';
import { waitFor } from '../support/wait';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/** Field 19 of a /proc/<pid>/stat line (or of a thread's /proc/<pid>/task/<tid>/stat): the niceness. */
function niceOfStat(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/**
 * Spawns, through the stages' helper, a shell that waits a moment (well after the helper has lowered it) and then
 * prints its own /proc/<pid>/stat.
 */
async function spawnedNiceness(): Promise<number> {
  const { stdout } = await run('sh', ['-c', 'sleep 0.2; cat /proc/$$/stat'], { timeoutMs: 10_000 });
  return niceOfStat(stdout);
}

const namespace = `cpu_${crypto.randomBytes(5).toString('hex')}`;
const config = loadConfig({});
const brokerOf = (nodeID: string) =>
  new ServiceBroker({ ...brokerOptions(config), namespace, nodeID, logger: false, transporter: transporterOption(TEST_REDIS_URL) as any });
let stageNode: ServiceBroker;
let renderNode: ServiceBroker;

beforeAll(async () => {
  stageNode = brokerOf('cpu-stage-node');
  renderNode = brokerOf('cpu-render-node');
  // A stage that calls the render node, as the rendering stage calls renderer.renderVideo.
  stageNode.createService({
    name: 'cpuStage',
    actions: {
      viaRenderNode: (ctx: Context) => ctx.call('cpuRenderer.spawn'),
      spawnHere: () => spawnedNiceness(),
    },
  });
  renderNode.createService({
    name: 'cpuRenderer',
    actions: {
      async spawn() {
        await new Promise((resolve) => setTimeout(resolve, 20)); // the class survives the handler's own awaits
        return spawnedNiceness();
      },
    },
  });
  await Promise.all([stageNode.start(), renderNode.start()]);
  await stageNode.waitForServices(['cpuRenderer']);
});

afterAll(async () => {
  await Promise.all([stageNode?.stop(), renderNode?.stop()]);
});

test('a bulk call: its program, and the program of the action it calls on another node, run at niceness 10', async () => {
  const meta = { [CPU_CLASS_META]: 'bulk' };
  expect(BULK_NICENESS).toBe(10);
  expect(await stageNode.call('cpuStage.spawnHere', {}, { meta })).toBe(10);
  expect(await stageNode.call('cpuStage.viaRenderNode', {}, { meta })).toBe(10);
});

test('a call without the class, or interactive, runs its programs at 0, even when made from inside bulk work', async () => {
  expect(await stageNode.call('cpuStage.viaRenderNode')).toBe(0);
  expect(await stageNode.call('cpuStage.viaRenderNode', {}, { meta: { [CPU_CLASS_META]: 'interactive' } })).toBe(0);
  // An event or a timer of a bulk job that calls an action without the class: the action is interactive.
  expect(await runInCpuClass('bulk', () => stageNode.call('cpuStage.spawnHere'))).toBe(0);
  // The helper itself, outside any action: interactive unless the work is bulk.
  expect(await spawnedNiceness()).toBe(0);
  expect(await runInCpuClass('bulk', spawnedNiceness)).toBe(10);
});

/** The processes below this one (from /proc/<pid>/task/<tid>/children). */
function descendants(pid = process.pid): number[] {
  const read = (file: string) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return ''; // a process that has just ended
    }
  };
  const found: number[] = [];
  const tasks = read(`/proc/${pid}/status`) ? fs.readdirSync(`/proc/${pid}/task`) : [];
  for (const task of tasks) {
    const children = read(`/proc/${pid}/task/${task}/children`).split(/\s+/).filter(Boolean).map(Number);
    for (const child of children) found.push(child, ...descendants(child));
  }
  return found;
}

/** The niceness of every thread of process `pid`. */
function threadNiceness(pid: number): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).map((tid) => niceOfStat(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
}

/**
 * Starts editly's child in class `cls` with its plan held back, waits until it has loaded (its threads started),
 * reads the niceness of each of its threads, then fails the plan (the child is killed).
 */
async function editlyChildNiceness(cls: 'bulk' | 'interactive'): Promise<number[]> {
  let failPlan!: (err: Error) => void;
  const plan = new Promise<string>((_resolve, reject) => (failPlan = reject));
  plan.catch(() => undefined);
  const rendering = runInCpuClass(cls, () => runEditly(plan, { memoryLimitBytes: 2 ** 31, timeoutMs: 60_000 }));
  try {
    const child = await waitFor(
      async () =>
        descendants().find(
          (pid) => fs.existsSync(`/proc/${pid}`) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('editly-child'),
        ),
      (pid) => pid !== undefined,
      10_000,
      20,
    );
    expect(child).toBeDefined();
    // Node's worker threads and editly's loading come after the spawn: 1.5 s in, they are all there.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const threads = threadNiceness(child!);
    expect(threads.length).toBeGreaterThan(4);
    return threads;
  } finally {
    failPlan(new Error('no plan in this test'));
    await expect(rendering).rejects.toBeInstanceOf(RenderProcessError);
  }
}

test("editly's child of a bulk render runs at niceness 10, every thread it started after the spawn too", async () => {
  expect(new Set(await editlyChildNiceness('bulk'))).toEqual(new Set([10]));
  expect(new Set(await editlyChildNiceness('interactive'))).toEqual(new Set([0]));
});

/** Field `n` (from 1) of process `pid`'s /proc stat line, '' once it has ended. */
function statField(pid: number, n: number): string {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
  return n === 2 ? stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) : stat.slice(stat.lastIndexOf(')') + 2).split(' ')[n - 3];
}

test("a bulk render's ffmpeg processes, forked by editly's child, inherit its niceness 10", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpu-class-'));
  try {
    const storyboard = storyboardOf([sceneOf(0, 'title', 'Meet Acme.', 'Acme', null, 2)], {
      narrationKey: 'voice.wav',
      captionsKey: 'captions.vtt',
      quality: 'draft',
    });
    writeSilentAudio(storyboard, dir);
    fs.mkdirSync(path.join(dir, 'work'));
    // Every process below this one, read every 20 ms while the video renders: its name, its parent's command line, its niceness.
    const seen = new Map<number, { name: string; underEditly: boolean; nice: number }>();
    const watch = setInterval(() => {
      for (const pid of descendants()) {
        const [name, parent, nice] = [statField(pid, 2), statField(pid, 4), statField(pid, 19)];
        if (!name || seen.has(pid)) continue;
        const parentCommand = fs.existsSync(`/proc/${parent}/cmdline`) ? fs.readFileSync(`/proc/${parent}/cmdline`, 'utf8') : '';
        seen.set(pid, { name, underEditly: parentCommand.includes('editly-child'), nice: Number(nice) });
      }
    }, 20);
    try {
      await runInCpuClass('bulk', () =>
        renderVideo({
          storyboard,
          workDir: path.join(dir, 'work'),
          quality: 'draft',
          memoryLimitBytes: 3 * 2 ** 30,
          timeoutMs: 120_000,
          fetchInput: async (key, local) => fs.copyFileSync(path.join(dir, key), local),
        }),
      );
    } finally {
      clearInterval(watch);
    }
    const forked = [...seen.values()].filter((p) => p.underEditly && p.name === 'ffmpeg');
    expect(forked.length).toBeGreaterThan(0);
    expect([...seen.values()].filter((p) => p.nice !== 10)).toEqual([]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
