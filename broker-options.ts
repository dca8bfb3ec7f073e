/**
 * The broker's wiring, at the root beside moleculer.config.ts because it joins every layer: settings
 * (config/), the validator, transporter and REPL commands (lib/), the action rules' middleware (mixins/). Shared by moleculer-runner
 * (moleculer.config.ts), the admin tool, tests and benchmarks. Nothing below the root imports it.
 */
import { ServiceBroker, type BrokerOptions, type Errors } from 'moleculer';
import type { AppConfig, TracingSettings } from './config';
import { replCommands } from './lib/ops/repl-commands';
import { transporterOption } from './lib/net/redis-transporter';
import { AjvValidator } from './lib/http/validator';
import { withActionRules } from './mixins/action-rules';
import { withCpuClass } from './lib/campaign/cpu-class';

/**
 * Moleculer tracing from TRACING_EXPORTER (config/index.ts). Every span of a campaign's pipeline carries the campaign
 * id as its trace id, on whichever node it runs (lib/campaign/stages.ts campaignTrace), so one search finds the whole campaign.
 */
function tracingOption(tracing: TracingSettings): BrokerOptions['tracing'] {
  if (tracing.exporter === 'none') return { enabled: false };
  const exporters = {
    console: { type: 'Console' as const },
    zipkin: { type: 'Zipkin' as const, options: { baseURL: tracing.zipkinUrl } },
    // The spans of every node to whichever service listens (one of them gets each batch), not to all.
    event: {
      type: 'Event' as const,
      options: { eventName: '$tracing.spans', sendStartSpan: false, sendFinishSpan: true, broadcast: false, interval: 1 },
    },
  };
  return { enabled: true, sampling: { rate: 1 }, exporter: [exporters[tracing.exporter]] };
}

export function brokerOptions(app: AppConfig): BrokerOptions {
  return {
    namespace: app.namespace,
    nodeID: app.nodeID,
    transporter: transporterOption(app.transporter) as BrokerOptions['transporter'],
    logger: { type: 'Console', options: { level: app.logLevel, formatter: 'short' } },
    validator: new AjvValidator({ paramName: 'params' }),
    // The rules actions declare (scope, plan rate, dashboard access) are the broker's, for every caller (mixins/action-rules.ts);
    // each action runs in the CPU class its call's meta names, so a batch's programs yield the CPU (lib/campaign/cpu-class.ts).
    internalMiddlewares: false,
    middlewares: withCpuClass(withActionRules(ServiceBroker.INTERNAL_MIDDLEWARES)),
    // Dead nodes are noticed in seconds, not the default minute. 3 s (stack-facts) dropped live nodes whose
    // event loop stalled under load, answering 503 meanwhile; 6 s notices a dead node in about 7 s.
    heartbeatInterval: app.heartbeatIntervalSeconds,
    heartbeatTimeout: app.heartbeatTimeoutSeconds,
    // Drain: a stopping node first withdraws its services (Moleculer sends the cluster an empty node info), then waits
    // for the calls it is running — a render node's renders — for up to DRAIN_TIMEOUT before its services stop.
    tracking: { enabled: true, shutdownTimeout: app.drainTimeoutMs },
    requestTimeout: 0,
    retryPolicy: {
      enabled: true,
      retries: 3,
      delay: 200,
      maxDelay: 2000,
      factor: 2,
      check: (err: Partial<Errors.MoleculerError>) => !!err?.retryable,
    },
    registry: { strategy: 'RoundRobin', preferLocal: true },
    // Read by GET /metrics (lib/ops/metrics.ts); no reporter of Moleculer's own, so no extra port.
    metrics: { enabled: true },
    tracing: tracingOption(app.tracing),
    replOptions: { customCommands: replCommands() },
    app,
  };
}
