/**
 * A render node in a process of its own, started exactly as an operator starts one:
 *   SERVICES=renderer TRANSPORTER=redis://… npm start
 * (the runner under tsx), with its own DATA_DIR: it shares no disk with the other nodes.
 */
import type { Harness } from './harness';
import { startNodeProcess, type NodeProcess } from './node-process';
import { waitFor } from './wait';

export type RenderNode = NodeProcess;

export function startRenderNode(h: Harness, nodeID: string, env: Record<string, string> = {}): RenderNode {
  return startNodeProcess(h, { nodeID, services: ['renderer'], env });
}

/** Waits until the worker sees at least `count` renderers (render nodes announce themselves over the transporter). */
export function waitForRenderers(h: Harness, count = 1, timeoutMs = 60_000): Promise<number> {
  return waitFor(
    async () => h.worker.registry.getActionEndpoints('renderer.renderVideo')?.count() ?? 0,
    (n) => n >= count,
    timeoutMs,
    200,
  );
}
