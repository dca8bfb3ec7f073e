/**
 * The one map of the actions that the application's parts call on each other: each owner service exports the
 * signatures of its own (what they take and answer), and this module merges them into `Actions` of lib/net/calls.ts,
 * which `call(ctx or broker, 'service.action', params)` checks every call against.
 *
 * Nothing imports this module: it only adds to that interface (as types/moleculer.d.ts adds to moleculer's types), so
 * a service calls another without importing it, and the imports still point one way with no circle. An owner adding
 * an action others call adds it to its map; a new owner adds its map here.
 */
import type { AccountsActions } from './accounts.service';
import type { CampaignsActions } from './campaigns/types';
import type { CaptureActions } from './capture.service';
import type { FilesActions } from './files.service';
import type { OpsActions } from './ops.service';
import type { RendererActions } from './renderer.service';
import type { RenderingActions } from './rendering.service';
import type { ReportsActions } from './reports.service';
import type { ScriptActions } from './script.service';
import type { VoiceActions } from './voice.service';
import type { WebhooksActions } from './webhooks.service';

declare module '../lib/net/calls' {
  interface Actions
    extends
      AccountsActions,
      CampaignsActions,
      CaptureActions,
      FilesActions,
      OpsActions,
      RendererActions,
      RenderingActions,
      ReportsActions,
      ScriptActions,
      VoiceActions,
      WebhooksActions {}
}
