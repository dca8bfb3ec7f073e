/**
 * Moleculer's spans as TRACING_EXPORTER=event emits them (`$tracing.spans`), gathered by a service of their own: the
 * tracing test and bench/internal-calls read one campaign's trace from it.
 */
import type { ServiceSchema } from 'moleculer';

export interface ExportedSpan {
  name: string;
  traceID: string;
  tags: { nodeID?: string; action?: { name?: string } };
}

/** A service that pushes every span its node hears onto `into`. */
export function spanCollector(into: ExportedSpan[]): ServiceSchema {
  return {
    name: 'span-collector',
    events: {
      '$tracing.spans'(ctx: { params: ExportedSpan[] }) {
        into.push(...ctx.params);
      },
    },
  };
}
