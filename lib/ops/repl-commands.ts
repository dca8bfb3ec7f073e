/**
 * Operators' commands in `npm run repl` (moleculer-repl custom commands, wired in broker-options.ts).
 * Each asks the ops service (or webhooks.retry) wherever it runs in the cluster and prints plain tables.
 */
import type { ReplOptions, ServiceBroker } from 'moleculer';
import type { CampaignState } from '../campaign/states';
import { call } from '../net/calls';
import type { CampaignTimeline, RenderNodesView, StateOverview, WebhookDeliveryView } from './queries';
import { messageOf } from '../errors';
import type { StageTurnsView } from '../campaign/turns';

export type Print = (text: string) => void;
export type ReplCustomCommand = NonNullable<ReplOptions['customCommands']>[number];

/**
 * What moleculer-repl hands a command: its named arguments, each the string typed (`<campaignId>` → campaignId).
 * It also passes `options` and `rawCommand`, which these commands do not read.
 */
type CommandArgs = Partial<Record<string, string>>;

export function replCommands(print: Print = (text) => console.log(text)): ReplCustomCommand[] {
  const command = (
    spec: string,
    description: string,
    run: (broker: ServiceBroker, args: CommandArgs) => Promise<string>,
  ): ReplCustomCommand => ({
    command: spec,
    description,
    async action(broker, args) {
      try {
        print(await run(broker, args as unknown as CommandArgs));
      } catch (err) {
        print(`${spec.split(' ')[0]}: ${messageOf(err)}`);
      }
    },
  });
  return [
    command('campaigns [state]', 'Campaigns per state, and the latest to enter each state', async (broker, { state }) => {
      // The state as typed: the action's params schema refuses one that is not a campaign state, and that is printed.
      const params = state ? { state: state as CampaignState, limit: 20 } : { limit: 3 };
      return formatStates(await call(broker, 'ops.campaignsByState', params));
    }),
    command(
      'timeline <campaignId>',
      'A campaign: its transitions, videos, render attempts and webhook deliveries',
      async (broker, { campaignId }) => formatTimeline(await call(broker, 'ops.timeline', { campaign_id: String(campaignId) })),
    ),
    // Not `nodes`: moleculer-repl has its own (every node of the cluster) and skips a custom command of that name.
    command('render-nodes', 'Render nodes with busy and free slots, and the render queue', async (broker) =>
      formatNodes(await call(broker, 'ops.renderNodes')),
    ),
    command('turns', "Each stage's turn queue: capacity, turns granted, turns waiting by organization", async (broker) =>
      formatTurns(await call(broker, 'campaigns.stageTurns')),
    ),
    command('deliveries <campaignId>', 'Webhook deliveries of a campaign, with every attempt', async (broker, { campaignId }) =>
      formatDeliveries(await call(broker, 'ops.webhookDeliveries', { campaign_id: String(campaignId) })),
    ),
    command('retry-delivery <deliveryId>', 'Send a failed webhook delivery again (same event id)', async (broker, { deliveryId }) => {
      const result = await call(broker, 'webhooks.retry', { delivery_id: String(deliveryId) });
      return `Delivery ${result.delivery_id} is ${result.status} again; the dispatcher sends it now.`;
    }),
  ];
}

export function formatStates(states: StateOverview[]): string {
  const sections = [textTable(states.map(({ state, count }) => ({ state, campaigns: count })))];
  for (const { state, count, recent } of states) {
    if (!recent.length) continue;
    sections.push(
      `${state}: the latest ${recent.length} of ${count}\n${textTable(
        recent.map((c) => ({
          id: c.id,
          org: c.org_id,
          progress: `${c.progress}%`,
          created: c.created_at,
          'in state since': c.status_changed_at,
          for: age(c.status_changed_at),
        })),
      )}`,
    );
  }
  return sections.join('\n\n');
}

export function formatTimeline({ campaign, events, videos, render_attempts, webhook_deliveries }: CampaignTimeline): string {
  const lines = [
    `Campaign ${campaign.id} (org ${campaign.org_id}): ${campaign.status}, ${campaign.progress}%`,
    `${campaign.title} <${campaign.url}>`,
    `created ${campaign.created_at}, deadline ${campaign.deadline_at}, lease ${campaign.lease_owner ? `${campaign.lease_owner} until ${campaign.lease_expires_at}` : 'none'}`,
  ];
  if (campaign.error_code) lines.push(`error ${campaign.error_code}: ${campaign.error_message}`);
  const eventRows = events.map((e, i) => ({
    at: e.at,
    from: e.from,
    to: e.to,
    after: i === 0 ? null : duration(Date.parse(e.at) - Date.parse(events[i - 1].at)),
    detail: e.detail,
  }));
  return [
    lines.join('\n'),
    `Transitions\n${textTable(eventRows)}`,
    `Videos\n${textTable(videos.map((v) => ({ id: v.id, language: v.language, platform: v.platform, status: v.status, error: v.error_message })))}`,
    `Render attempts\n${textTable(
      render_attempts.map((a) => ({
        video: a.video_id,
        node: a.node_id,
        outcome: a.outcome,
        started: a.started_at,
        wall: a.wall_ms === null ? null : duration(a.wall_ms),
        error: a.error_message,
      })),
    )}`,
    `Webhook deliveries\n${formatDeliveries(webhook_deliveries)}`,
  ].join('\n\n');
}

export function formatNodes({ nodes, queue_depth }: RenderNodesView): string {
  const free = nodes.reduce((sum, node) => sum + (node.free ?? 0), 0);
  const table = textTable(
    nodes.map((n) => ({
      node: n.node_id,
      state: n.draining ? 'draining' : 'serving',
      slots: n.slots,
      busy: n.busy,
      free: n.free,
      reserved: n.reserved,
      videos: n.videos,
      error: n.error,
    })),
  );
  return `${table}\n\nQueue: ${queue_depth} video(s) queued or rendering; ${free} free slot(s) on ${nodes.length} render node(s).`;
}

/** The stages' turn queues (decisions §14): what each holds of its capacity, and who waits. */
export function formatTurns(stages: StageTurnsView[]): string {
  return textTable(
    stages.map((s) => ({
      stage: s.stage,
      capacity: s.capacity,
      granted: s.granted,
      held: s.held,
      waiting: s.waiting,
      'waiting by organization': s.waiting_by_org.map((o) => `${o.org_id} ${o.waiting}`).join(', ') || null,
    })),
  );
}

export function formatDeliveries(deliveries: WebhookDeliveryView[]): string {
  const table = textTable(
    deliveries.map((d) => ({
      id: d.id,
      event: d.event_type,
      status: d.status,
      attempts: d.attempts,
      'next attempt': d.next_attempt_at,
      'last error': d.last_error,
      url: d.url,
    })),
  );
  const attempts = deliveries.flatMap((d) =>
    d.attempt_log.map((a) => ({
      delivery: d.id,
      attempt: a.attempt,
      at: a.at,
      status: a.status_code,
      took: duration(a.duration_ms),
      error: a.error,
    })),
  );
  return attempts.length ? `${table}\n\nAttempts\n${textTable(attempts)}` : table;
}

/** Columns from the first row's keys, left-aligned; null and undefined show as "-". */
export function textTable(rows: Array<Record<string, TableCell>>): string {
  if (!rows.length) return '(none)';
  const columns = Object.keys(rows[0]);
  const cells = rows.map((row) => columns.map((column) => cellText(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((row) => row[i].length)));
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}

/** What the ops views put in a table cell. */
type TableCell = string | number | boolean | string[] | null | undefined;

function cellText(value: TableCell): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.length ? value.join(',') : '-';
  return String(value).replace(/\s+/g, ' ');
}

function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes} min ${seconds % 60} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function age(since: string): string {
  return duration(Math.max(0, Date.now() - Date.parse(since)));
}
