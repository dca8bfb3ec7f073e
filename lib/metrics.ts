/**
 * GET /metrics in the Prometheus text format (0.0.4): Moleculer's own metrics of the node that answers,
 * formatted by Moleculer's Prometheus reporter, plus the cluster-wide figures the `ops` service reads
 * from the database at scrape time (OpsMetrics), all named campaign_video_*.
 */
import { MetricReporters, type MetricRegistry, type ServiceBroker } from 'moleculer';
import { CAMPAIGN_STATES, type CampaignState } from './campaign-states';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
export const METRIC_PREFIX = 'campaign_video_';
/** Upper bounds of the stage-duration histogram: stages take from seconds (processing) to many minutes (rendering). */
export const STAGE_DURATION_BUCKETS_SECONDS = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600] as const;
/** States a campaign leaves again: each is a stage whose time is measured (review ends with publish). */
export const MEASURED_STAGES = CAMPAIGN_STATES.filter((state) => state !== 'published' && state !== 'failed');

export type DeliveryOutcome = 'pending' | 'delivered' | 'failed';
export type AttemptResult = '2xx' | 'error';

export interface StageDurations {
  stage: string;
  count: number;
  sumSeconds: number;
  /** Cumulative counts, one per STAGE_DURATION_BUCKETS_SECONDS bound. */
  buckets: number[];
}

export interface RenderNodeSlots {
  node: string;
  busy: number;
  free: number;
  /** Stopping: finishing its renders in flight, taking no new one (issue 16 drain). */
  draining: boolean;
}

export interface OpsMetrics {
  campaignsByState: Record<CampaignState, number>;
  stageDurations: StageDurations[];
  renderQueueDepth: number;
  /** As the rendering stage sees the render nodes; null when no rendering stage runs. */
  renderSlots: RenderNodeSlots[] | null;
  webhookDeliveries: Record<DeliveryOutcome, number>;
  webhookAttempts: Record<AttemptResult, number>;
}

interface Sample {
  suffix?: string;
  labels?: Record<string, string>;
  value: number;
}
interface Family {
  name: string;
  help: string;
  type: 'gauge' | 'counter' | 'histogram';
  samples: Sample[];
}

export function opsMetricsText(metrics: OpsMetrics): string {
  const families: Family[] = [
    {
      name: 'campaigns_by_state',
      type: 'gauge',
      help: 'Campaigns in each state.',
      samples: CAMPAIGN_STATES.map((state) => ({ labels: { state }, value: metrics.campaignsByState[state] ?? 0 })),
    },
    {
      name: 'campaign_stage_duration_seconds',
      type: 'histogram',
      help: 'Time campaigns spent in a state before leaving it.',
      samples: metrics.stageDurations.flatMap(({ stage, count, sumSeconds, buckets }) => [
        ...STAGE_DURATION_BUCKETS_SECONDS.map((bound, i) => ({
          suffix: '_bucket',
          labels: { stage, le: String(bound) },
          value: buckets[i],
        })),
        { suffix: '_bucket', labels: { stage, le: '+Inf' }, value: count },
        { suffix: '_sum', labels: { stage }, value: sumSeconds },
        { suffix: '_count', labels: { stage }, value: count },
      ]),
    },
    {
      name: 'render_queue_depth',
      type: 'gauge',
      help: 'Videos queued or rendering in campaigns that are rendering.',
      samples: [{ value: metrics.renderQueueDepth }],
    },
    {
      name: 'render_slots',
      type: 'gauge',
      help: 'Render slots per render node, busy or free, as the rendering stage sees them.',
      samples: (metrics.renderSlots ?? []).flatMap(({ node, busy, free }) => [
        { labels: { node, state: 'busy' }, value: busy },
        { labels: { node, state: 'free' }, value: free },
      ]),
    },
    {
      name: 'render_node_draining',
      type: 'gauge',
      help: '1 while a render node drains (SIGTERM: finishing its renders in flight, taking no new one), else 0.',
      samples: (metrics.renderSlots ?? []).map(({ node, draining }) => ({ labels: { node }, value: draining ? 1 : 0 })),
    },
    {
      name: 'webhook_deliveries_total',
      type: 'gauge',
      help: 'Webhook deliveries by current outcome.',
      samples: (['delivered', 'failed', 'pending'] as const).map((outcome) => ({
        labels: { outcome },
        value: metrics.webhookDeliveries[outcome] ?? 0,
      })),
    },
    {
      name: 'webhook_attempts_total',
      type: 'counter',
      help: 'Webhook attempts: answered 2xx, or anything else (other status, network error, timeout).',
      samples: (['2xx', 'error'] as const).map((result) => ({ labels: { result }, value: metrics.webhookAttempts[result] ?? 0 })),
    },
  ];
  return (
    families
      .filter((family) => family.samples.length > 0)
      .map(familyText)
      .join('\n\n') + '\n'
  );
}

function familyText({ name, help, type, samples }: Family): string {
  const full = METRIC_PREFIX + name;
  return [
    `# HELP ${full} ${help}`,
    `# TYPE ${full} ${type}`,
    ...samples.map((sample) => `${full}${sample.suffix ?? ''}${labelsText(sample.labels)} ${sample.value}`),
  ].join('\n');
}

function labelsText(labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels).map(
    ([key, value]) => `${key}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
  );
  return pairs.length ? `{${pairs.join(',')}}` : '';
}

/** Moleculer's Prometheus reporter for its formatting only: its own init() would open an HTTP server. */
class PrometheusFormatter extends MetricReporters.Prometheus {
  override init(registry: MetricRegistry): void {
    MetricReporters.Base.prototype.init.call(this, registry);
    Object.assign(this, { defaultLabels: { namespace: registry.broker.namespace, nodeID: registry.broker.nodeID } });
  }
}

/** The broker's own metrics (requests, events, transit, process) labelled with its namespace and node. */
export function moleculerMetricsText(broker: ServiceBroker): string {
  if (!broker.metrics.isEnabled()) return '';
  const formatter = new PrometheusFormatter();
  formatter.init(broker.metrics);
  return formatter.generatePrometheusResponse();
}
