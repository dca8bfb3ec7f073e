/**
 * A render node's service: turns one storyboard into one MP4 with editly. It holds no database and
 * shares no disk: the storyboard comes in the call, files come and go through lib/storage/storage.ts. It renders
 * at most RENDER_CONCURRENCY videos at once and refuses more (RENDERER_BUSY), announcing its busy slots
 * on every change so callers balance by them (lib/render/slots.ts).
 *
 *   SERVICES=renderer TRANSPORTER=redis://127.0.0.1:6379 RENDER_CONCURRENCY=2 npm start
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import { configOf } from '../config';
import { isClusterUnreachable, RendererBusyError, RenderInterruptedError, messageOf } from '../lib/errors';
import { RenderAbortedError, renderVideo } from '../lib/render/render-video';
import { CancelableMixin, type CancelableMethods } from '../mixins/cancelable.mixin';
import { EXPRESS_RENDER_SLOTS, type RenderMeta, type SlotReport } from '../lib/render/slots';
import { SharedTails } from '../lib/render/shared-tails';
import { storageFor } from '../lib/storage/storage';
import type { FileStorage } from '../lib/storage/files';
import type { Storyboard } from '../lib/campaign/storyboard';
import { checkVideo, type SceneObservation } from '../lib/quality/check';
import type { QualityFlag } from '../lib/quality/report';

export interface RenderVideoParams {
  video_id: string;
  /** Where the video, its poster (JPEG) and its SubRip captions are stored (lib/storage/keys.ts). */
  output_key: string;
  thumbnail_key: string;
  captions_srt_key: string;
  storyboard: Storyboard;
  /** The language of the page its screenshots show, when it is not the video's (a translated or source-text script): the check accepts page text in it. */
  page_language?: string | null;
  /**
   * The campaign has other hook variants of this video's language and platform (decisions §15): the picture after the
   * opening is rendered once on this node for them all (lib/render/splice.ts), each variant's opening joined to it.
   */
  shared_tail?: boolean;
}
export interface RenderVideoResult {
  video_id: string;
  file_key: string;
  thumbnail_key: string;
  captions_srt_key: string;
  duration_seconds: number;
  width: number;
  height: number;
  node_id: string;
  wall_ms: number;
  peak_rss_bytes: number;
  /** The video's own check (decisions §13, lib/quality/check.ts): what a customer would see wrong, scene by scene. */
  quality_flags: QualityFlag[];
  /** What the check saw of each scene (its page area's numbers and words), for the repair and for operators. */
  quality_scenes: SceneObservation[];
  /** Why there are no flags though the video was not checked: the check is off on this node, or it failed (the render stands). */
  quality_note?: string;
  /** The check's own time (ms), part of wall_ms. */
  quality_ms?: number;
}
/** renderer.status's answer: this node's slots and the videos it renders now. */
export interface RendererStatusResult {
  node_id: string;
  slots: number;
  busy: number;
  /** Renders in the express slot, past `slots`. */
  express_busy: number;
  videos: string[];
}
/** The actions others call (the rendering stage, ops), for `call` (lib/net/calls.ts): each on the node it names. */
export interface RendererActions {
  'renderer.renderVideo': { params: RenderVideoParams; result: RenderVideoResult };
  'renderer.status': { params: Record<string, never>; result: RendererStatusResult };
}

const RENDER_PARAMS = {
  type: 'object',
  additionalProperties: false,
  required: ['video_id', 'output_key', 'thumbnail_key', 'captions_srt_key', 'storyboard'],
  properties: {
    video_id: { type: 'string', maxLength: 64 },
    output_key: { type: 'string', maxLength: 500 },
    thumbnail_key: { type: 'string', maxLength: 500 },
    captions_srt_key: { type: 'string', maxLength: 500 },
    page_language: { type: ['string', 'null'], maxLength: 16 },
    shared_tail: { type: 'boolean' },
    storyboard: { type: 'object', required: ['videoId', 'frame', 'scenes', 'narrationKey', 'captionsKey', 'totalSeconds'] },
  },
};

const WORK_DIR_PREFIX = 'render-';

/** Work directories of render nodes that died (their pid is gone) are removed when a node starts. */
async function removeDeadRendersWorkDirs(): Promise<void> {
  const pattern = new RegExp(`^${WORK_DIR_PREFIX}(\\d+)-`);
  for (const name of await fs.readdir(os.tmpdir()).catch(() => [] as string[])) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch (err) {
      alive = (err as NodeJS.ErrnoException).code === 'EPERM';
    }
    if (!alive) await fs.rm(path.join(os.tmpdir(), name), { recursive: true, force: true });
  }
}

type RendererMethods = CancelableMethods & {
  slotReport(): SlotReport;
  announce(): void;
  render(params: RenderVideoParams, signal: AbortSignal): Promise<RenderVideoResult>;
  checkQuality(
    params: RenderVideoParams,
    videoPath: string,
    workDir: string,
  ): Promise<Pick<RenderVideoResult, 'quality_flags' | 'quality_scenes' | 'quality_note' | 'quality_ms'>>;
};

interface RendererLocalVars {
  /** RENDER_CONCURRENCY: renders this node takes at once (also in its service metadata). */
  slots: number;
  /** Renders in progress, by `<video_id>:<context id>`, each with the controller that aborts it. */
  active: Map<string, AbortController>;
  /** Which of them run in the express slot (EXPRESS_RENDER_SLOTS: an express turn's, past the node's slots). */
  express: Set<string>;
  /** Set once the node stops: new renders are refused, running ones finish (drain), then what is left is aborted. */
  stopping: boolean;
  storage: FileStorage;
  /** The pictures after the opening that hook variants share, rendered once here (lib/render/shared-tails.ts). */
  sharedTails: SharedTails;
}

export type RendererThis = Service<ServiceSettingSchema> & RendererMethods & RendererLocalVars;

const RendererService: ServiceSchema<ServiceSettingSchema, RendererMethods, RendererLocalVars> = {
  name: 'renderer',
  mixins: [CancelableMixin],

  created() {
    const config = configOf(this.broker);
    this.slots = config.renderConcurrency;
    // Into the same object: the service's registry entry (what other nodes learn of it) holds this one, not `this.metadata`.
    Object.assign(this.metadata, { renderSlots: this.slots });
    this.active = new Map<string, AbortController>();
    this.express = new Set<string>();
    this.stopping = false;
    // Named like a render's work directory, so a node that dies has it removed by the next one to start.
    this.sharedTails = new SharedTails(path.join(os.tmpdir(), `${WORK_DIR_PREFIX}${process.pid}-tails-${randomUUID()}`));
  },

  async started() {
    await removeDeadRendersWorkDirs();
    this.storage = storageFor(this.broker);
    this.announce();
  },

  /**
   * Drain: before this runs, the broker has withdrawn this node's services from the cluster (no new
   * render comes; one that still arrives is refused, and the stage sends it elsewhere) and Moleculer's context
   * tracking has waited up to DRAIN_TIMEOUT for the renders in flight, which answered over the transporter, still
   * connected. What is still running now is aborted and rendered elsewhere, as when a node dies.
   */
  stopped() {
    this.stopping = true;
    if (this.active.size) this.logger.warn(`drain: ${this.active.size} render(s) still running after DRAIN_TIMEOUT: given back`);
    for (const controller of this.active.values()) controller.abort();
    return this.sharedTails.clear();
  },

  actions: {
    renderVideo: {
      visibility: 'public',
      params: RENDER_PARAMS,
      async handler(ctx: Context<RenderVideoParams, RenderMeta>): Promise<RenderVideoResult> {
        if (this.stopping) throw new RenderInterruptedError(this.broker.nodeID);
        const express = ctx.meta.express === true;
        if (express ? this.express.size >= EXPRESS_RENDER_SLOTS : this.active.size - this.express.size >= this.slots)
          throw new RendererBusyError(this.broker.nodeID);
        const controller = new AbortController();
        const slotKey = `${ctx.params.video_id}:${ctx.id}`;
        this.active.set(slotKey, controller);
        if (express) this.express.add(slotKey);
        this.announce();
        // Its campaign canceled: the render stops (editly and ffmpeg killed) and says so.
        const cancel = this.watchCancel(ctx.params.storyboard.campaignId);
        const stopForCancel = () => controller.abort();
        if (cancel.signal.aborted) stopForCancel();
        else cancel.signal.addEventListener('abort', stopForCancel, { once: true });
        try {
          return await this.render(ctx.params, controller.signal);
        } catch (err) {
          if (cancel.signal.aborted) throw cancel.signal.reason;
          // Its inputs or outputs could not cross the cluster (Redis restarting): not the video's fault, rendered again.
          if (isClusterUnreachable(err))
            throw new RenderInterruptedError(this.broker.nodeID, `Render interrupted: the cluster was unreachable (${messageOf(err)}).`);
          // The caller avoids this node on its next try: say which node failed (data crosses the transporter).
          const e = err as { data?: Record<string, unknown> };
          e.data = { ...(e.data ?? {}), nodeID: this.broker.nodeID };
          throw err;
        } finally {
          cancel.signal.removeEventListener('abort', stopForCancel);
          cancel.done();
          this.active.delete(slotKey);
          this.express.delete(slotKey);
          this.announce();
        }
      },
    },

    /** Slots of this node, for operators and for callers that just joined. */
    status: {
      visibility: 'public',
      handler(): RendererStatusResult {
        const { slots, busy, expressBusy = 0 } = this.slotReport();
        return {
          node_id: this.broker.nodeID,
          slots,
          busy,
          express_busy: expressBusy,
          videos: [...this.active.keys()].map((k) => k.split(':')[0]),
        };
      },
    },
  },

  events: {
    /** A caller joined and asks for the slots of every render node. */
    'renderer.announce'() {
      this.announce();
    },
    /** Back after a transporter outage: a report sent meanwhile was refused, so the slots are told again. */
    '$transporter.connected'() {
      this.announce();
    },
  },

  methods: {
    /** This node's slots as callers balance by them: renders in its slots, and apart, in its express slot. */
    slotReport(): SlotReport {
      return { nodeID: this.broker.nodeID, slots: this.slots, busy: this.active.size - this.express.size, expressBusy: this.express.size };
    },

    announce() {
      void this.broker.broadcast<SlotReport>('renderer.slots', this.slotReport());
    },

    async render(params: RenderVideoParams, signal: AbortSignal): Promise<RenderVideoResult> {
      const config = configOf(this.broker);
      const started = Date.now();
      const workDir = await fs.mkdtemp(path.join(os.tmpdir(), `${WORK_DIR_PREFIX}${process.pid}-${params.video_id}-`));
      try {
        const { outputPath, posterPath, captionsSrtPath, probe, peakRssBytes } = await renderVideo({
          storyboard: params.storyboard,
          workDir,
          // The campaign's choice (in its storyboard), else this node's setting.
          quality: params.storyboard.quality ?? config.renderQuality,
          signal,
          fetchInput: (key, localPath) => this.storage.getFile(key, localPath),
          memoryLimitBytes: config.renderMemoryLimitBytes,
          timeoutMs: config.renderTimeoutMs,
          ...(params.shared_tail ? { sharedTails: this.sharedTails } : {}),
        });
        // Same keys every time: a re-render replaces each file whole, only once the video passed its check. The
        // video's own check (decisions §13) reads the local file meanwhile: it is removed with the work directory.
        const [quality] = await Promise.all([
          this.checkQuality(params, outputPath, workDir),
          (async () => {
            await this.storage.putFile(params.thumbnail_key, posterPath);
            await this.storage.putFile(params.captions_srt_key, captionsSrtPath);
            await this.storage.putFile(params.output_key, outputPath);
          })(),
        ]);
        return {
          video_id: params.video_id,
          file_key: params.output_key,
          thumbnail_key: params.thumbnail_key,
          captions_srt_key: params.captions_srt_key,
          duration_seconds: Math.round(probe.durationSeconds * 1000) / 1000,
          width: probe.width,
          height: probe.height,
          node_id: this.broker.nodeID,
          wall_ms: Date.now() - started,
          peak_rss_bytes: peakRssBytes,
          ...quality,
        };
      } catch (err) {
        if (err instanceof RenderAbortedError) throw new RenderInterruptedError(this.broker.nodeID);
        throw err;
      } finally {
        await fs.rm(workDir, { recursive: true, force: true });
      }
    },

    /** The video's own check on the rendered file; never fails the render: a check that throws reports no flags and says why. */
    async checkQuality(params, videoPath, workDir) {
      if (!configOf(this.broker).qualityCheck)
        return { quality_flags: [], quality_scenes: [], quality_note: 'The quality check is off on this render node (QUALITY_CHECK=off).' };
      const started = Date.now();
      try {
        const check = await checkVideo({
          videoPath,
          storyboard: params.storyboard,
          workDir: path.join(workDir, 'quality'),
          pageLanguage: params.page_language ?? null,
        });
        return { quality_flags: check.flags, quality_scenes: check.scenes, quality_ms: Date.now() - started };
      } catch (err) {
        this.logger.warn(`quality check of video ${params.video_id} failed: ${messageOf(err)}`);
        return {
          quality_flags: [],
          quality_scenes: [],
          quality_note: `The quality check could not run: ${messageOf(err)}`,
          quality_ms: Date.now() - started,
        };
      }
    },
  } satisfies Omit<RendererMethods, keyof CancelableMethods> & ThisType<RendererThis>,
};

export default RendererService;
