/**
 * A render node in a process of its own, started exactly as an operator starts one:
 *   SERVICES=renderer TRANSPORTER=redis://… npm start
 * (the runner under tsx), with its own DATA_DIR: it shares no disk with the other nodes.
 */
import type { Harness } from './harness';
import { startNodeProcess, type NodeProcess } from './node-process';

export type RenderNode = NodeProcess;

export function startRenderNode(h: Harness, nodeID: string, env: Record<string, string> = {}): RenderNode {
  return startNodeProcess(h, { nodeID, services: ['renderer'], env });
}
