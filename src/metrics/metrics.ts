// Metrics for the operator, in Prometheus's text format, on a port of their own (WORKSPACE_METRICS_PORT,
// loopback by default): never on the MCP endpoint, whose port the remote mode opens to the internet,
// where call counts by tool, sign-ins and session counts would tell anyone how the firm works. Each
// server has its own registry (not prom-client's global one), and prom-client is imported only when
// the operator asks for metrics: a server without them never loads it.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApiAnswerEvent, apiAnswers, budgetRefusals, budgetWaits } from '../api/diagnostics.js';
import type { AuditEvent, EventSink } from '../audit/events.js';
import type { Logger } from '../log.js';

/** Distinct tool labels kept; past them, calls count under `other` (a client may send any name). */
const MAX_TOOL_LABELS = 300;

export interface Metrics extends EventSink {
  /** Where Prometheus scrapes: `http://host:port/metrics`. */
  url: string;
  /** A Redis operation failed (the store's connection, the shared budget, the audit stream). */
  redisError(): void;
  /** How many MCP sessions (2025 era) this process holds: read at each scrape. */
  countSessions(read: () => number): void;
  /**
   * Which tool names are the server's: only those get a label of their own. Any other name a client
   * sends counts as `other`, so made-up names cannot take the bounded labels from the real tools.
   */
  knownTools(known: (name: string) => boolean): void;
  /** The exposition as a scrape gets it (tests compare it with what /metrics served). */
  text(): Promise<string>;
  close(): Promise<void>;
}

interface MetricsOptions {
  host: string;
  port: number;
  logger: Logger;
}

export async function startMetrics(opts: MetricsOptions): Promise<Metrics> {
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry, prefix: 'wcm_' });
  const calls = new prom.Counter({
    name: 'wcm_tool_calls_total',
    help: 'Tool calls, by tool and outcome (ok, error, refused, cancelled, failed).',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  });
  const latency = new prom.Histogram({
    name: 'wcm_tool_call_duration_seconds',
    help: 'Time from a tool call to its answer, by tool.',
    labelNames: ['tool'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const upstream = new prom.Counter({
    name: 'wcm_upstream_responses_total',
    help: 'Answers of the workspace API, by status class (2xx, 4xx, 5xx...).',
    labelNames: ['class'],
    registers: [registry],
  });
  const upstream429 = new prom.Counter({ name: 'wcm_upstream_rate_limited_total', help: 'Workspace answers 429 (rate limited).', registers: [registry] });
  const waits = new prom.Counter({ name: 'wcm_budget_waits_total', help: 'Calls queued for the rate budget.', registers: [registry] });
  const refusals = new prom.Counter({
    name: 'wcm_budget_refusals_total',
    help: 'Calls refused because their wait for the rate budget passed the bound (nothing sent).',
    registers: [registry],
  });
  let readSessions: (() => number) | undefined;
  new prom.Gauge({
    name: 'wcm_sessions',
    help: 'MCP sessions (2025 era) held by this process.',
    registers: [registry],
    collect() {
      this.set(readSessions?.() ?? 0);
    },
  });
  const signIns = new prom.Counter({
    name: 'wcm_sign_ins_total',
    help: 'Sign-ins of members (remote mode), by outcome.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const grantChanges = new prom.Counter({
    name: 'wcm_grant_changes_total',
    help: 'Grants activated or narrowed (remote mode).',
    labelNames: ['change'],
    registers: [registry],
  });
  const revocations = new prom.Counter({
    name: 'wcm_revocations_total',
    help: 'Grants ended and access tokens revoked (remote mode).',
    labelNames: ['what'],
    registers: [registry],
  });
  const redisErrors = new prom.Counter({ name: 'wcm_redis_errors_total', help: 'Failed Redis operations and connection errors.', registers: [registry] });

  const tools = new Set<string>();
  let known: ((name: string) => boolean) | undefined;
  const toolLabel = (name: string) => {
    if (tools.has(name)) return name;
    if (tools.size >= MAX_TOOL_LABELS || !/^[a-z0-9_]{1,64}$/.test(name) || (known && !known(name))) return 'other';
    tools.add(name);
    return name;
  };

  const onAnswer = (m: unknown) => {
    const status = (m as ApiAnswerEvent).status;
    upstream.inc({ class: `${Math.floor(status / 100)}xx` });
    if (status === 429) upstream429.inc();
  };
  const onWait = () => waits.inc();
  const onRefusal = () => refusals.inc();
  subscribe(apiAnswers.name, onAnswer);
  subscribe(budgetWaits.name, onWait);
  subscribe(budgetRefusals.name, onRefusal);

  const http: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://metrics.invalid').pathname;
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Metrics are at GET /metrics.\n');
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      (err: unknown) => {
        opts.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'metrics could not be collected');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics could not be collected.\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;

  return {
    url: `http://${host}:${port}/metrics`,
    emit(e: AuditEvent) {
      switch (e.event) {
        case 'tool_call': {
          const tool = toolLabel(e.tool);
          calls.inc({ tool, outcome: e.outcome });
          latency.observe({ tool }, e.duration_ms / 1000);
          return;
        }
        case 'sign_in':
          signIns.inc({ outcome: e.outcome });
          return;
        case 'grant_change':
          grantChanges.inc({ change: e.change });
          return;
        case 'revocation':
          revocations.inc({ what: e.what });
          return;
      }
    },
    redisError: () => redisErrors.inc(),
    countSessions(read) {
      readSessions = read;
    },
    knownTools(k) {
      known = k;
    },
    text: () => registry.metrics(),
    async close() {
      unsubscribe(apiAnswers.name, onAnswer);
      unsubscribe(budgetWaits.name, onWait);
      unsubscribe(budgetRefusals.name, onRefusal);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
