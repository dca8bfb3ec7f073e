/**
 * GET /metrics in the Prometheus text format (0.0.4): Moleculer's own metrics of the node that answers,
 * formatted by Moleculer's Prometheus reporter, plus the cluster-wide figures the `ops` service reads
 * from the database at scrape time (OpsMetrics), all named campaign_video_* and formatted by prom-client.
 */
import { MetricReporters, type MetricRegistry, type ServiceBroker } from 'moleculer';
import { Counter, Gauge, Registry, type Metric } from 'prom-client';
import { CAMPAIGN_STATES, type CampaignState } from '../campaign/states';

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
  /** RENDER_CONCURRENCY of the node: its slots in all. */
  slots: number;
  busy: number;
  free: number;
  /** Stopping: finishing its renders in flight, taking no new one. */
  draining: boolean;
}

export interface OpsMetrics {
  campaignsByState: Record<CampaignState, number>;
  stageDurations: StageDurations[];
  renderQueueDepth: number;
  /** Every render node that has joined (as the rendering stage sees its slots, else as it declared them); null when there is none. */
  renderSlots: RenderNodeSlots[] | null;
  webhookDeliveries: Record<DeliveryOutcome, number>;
  webhookAttempts: Record<AttemptResult, number>;
}

/**
 * The cluster-wide figures as Prometheus text, through prom-client: a registry per scrape, each family set from the
 * figures read at scrape time (they are the database's, not this process's counters). The stage-duration histogram is
 * already counted per bucket by the database, so it is a prom-client metric of our own whose `get()` answers those
 * counts; prom-client writes the HELP, TYPE and escaped label lines of every family.
 */
export async function opsMetricsText(metrics: OpsMetrics): Promise<string> {
  const registry = new Registry();
  const name = (family: string) => METRIC_PREFIX + family;
  const gauge = (family: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name: name(family), help, labelNames, registers: [registry] });

  const byState = gauge('campaigns_by_state', 'Campaigns in each state.', ['state']);
  for (const state of CAMPAIGN_STATES) byState.set({ state }, metrics.campaignsByState[state] ?? 0);

  if (metrics.stageDurations.length > 0) registry.registerMetric(stageDurationHistogram(name('campaign_stage_duration_seconds'), metrics));

  gauge('render_queue_depth', 'Videos queued or rendering in campaigns that are rendering.').set(metrics.renderQueueDepth);
  if (metrics.renderSlots?.length) {
    const slots = gauge('render_slots', 'Render slots per render node, busy or free, as the rendering stage sees them.', ['node', 'state']);
    const draining = gauge(
      'render_node_draining',
      '1 while a render node drains (SIGTERM: finishing its renders in flight, taking no new one), else 0.',
      ['node'],
    );
    const total = gauge('render_node_slots', 'Render slots of each render node in all (RENDER_CONCURRENCY), from the moment it joins.', [
      'node',
    ]);
    for (const { node, slots: all, busy, free, draining: isDraining } of metrics.renderSlots) {
      total.set({ node }, all);
      slots.set({ node, state: 'busy' }, busy);
      slots.set({ node, state: 'free' }, free);
      draining.set({ node }, isDraining ? 1 : 0);
    }
  }
  const deliveries = gauge('webhook_deliveries_total', 'Webhook deliveries by current outcome.', ['outcome']);
  for (const outcome of ['delivered', 'failed', 'pending'] as const) deliveries.set({ outcome }, metrics.webhookDeliveries[outcome] ?? 0);
  const attempts = new Counter({
    name: name('webhook_attempts_total'),
    help: 'Webhook attempts: answered 2xx, or anything else (other status, network error, timeout).',
    labelNames: ['result'],
    registers: [registry],
  });
  for (const result of ['2xx', 'error'] as const) attempts.inc({ result }, metrics.webhookAttempts[result] ?? 0);
  return registry.metrics();
}

/** A histogram whose buckets were counted elsewhere (the database): prom-client formats what get() answers. */
function stageDurationHistogram(metricName: string, metrics: OpsMetrics): Metric {
  const values = metrics.stageDurations.flatMap(({ stage, count, sumSeconds, buckets }) => [
    ...STAGE_DURATION_BUCKETS_SECONDS.map((bound, i) => ({
      metricName: `${metricName}_bucket`,
      labels: { stage, le: bound },
      value: buckets[i],
    })),
    { metricName: `${metricName}_bucket`, labels: { stage, le: '+Inf' }, value: count },
    { metricName: `${metricName}_sum`, labels: { stage }, value: sumSeconds },
    { metricName: `${metricName}_count`, labels: { stage }, value: count },
  ]);
  const help = 'Time campaigns spent in a state before leaving it.';
  return {
    name: metricName,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: () => Promise.resolve({ name: metricName, help, type: 'histogram', aggregator: 'sum', values }),
  } as unknown as Metric;
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
