// What the operator asked to be told (src/audit: the audit trail, src/metrics: Prometheus metrics),
// opened once per server from the configuration: one sink for the events of tool calls and sign-ins,
// and hooks for what only the server's wiring sees (Redis errors, sessions held). Either part is off
// unless configured; the metrics module (and prom-client) is imported only when asked for.
import type { EventSink } from './audit/events.js';
import { fanOut } from './audit/events.js';
import { type AuditTrail, openAuditTrail } from './audit/trail.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics/metrics.js';

export interface Operator {
  /** Undefined when neither the audit trail nor the metrics are on. */
  events: EventSink | undefined;
  redisError(): void;
  countSessions(read: () => number): void;
  /** Which tool names are the server's (the metrics label only those). */
  knownTools(known: (name: string) => boolean): void;
  /** The metrics' scrape URL, when on. */
  metricsUrl: string | undefined;
  close(): Promise<void>;
}

/** `store`: the shared store, or the promise of it (a Redis audit trail appends to it). */
export async function openOperator(config: Config, logger: Logger, store?: unknown): Promise<Operator> {
  let metrics: Metrics | undefined;
  if (config.metrics) {
    const { startMetrics } = await import('./metrics/metrics.js');
    metrics = await startMetrics({ ...config.metrics, logger });
  }
  let audit: AuditTrail | undefined;
  if (config.audit) {
    audit = openAuditTrail(config.audit, {
      logger,
      ...(store !== undefined ? { store: Promise.resolve(store) } : {}),
      ...(config.audit.kind === 'redis' && metrics ? { onWriteError: () => metrics?.redisError() } : {}),
    });
  }
  return {
    events: fanOut(audit, metrics),
    redisError: () => metrics?.redisError(),
    countSessions: (read) => metrics?.countSessions(read),
    knownTools: (known) => metrics?.knownTools(known),
    metricsUrl: metrics?.url,
    async close() {
      await audit?.close().catch(() => {});
      await metrics?.close().catch(() => {});
    },
  };
}
