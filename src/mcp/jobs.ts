// Following a long-running job (analysis run, export, document generation, recommendation
// suggestion, session end) from the tool call that started it: polling with backoff inside a fixed
// share of the token's rate budget, reporting progress, stopping at the caller's patience, and
// cancelling the job on the server when the caller asked for that and then gave up.
//
// The poll share, stated once: every job together polls at most POLL_SHARE (25%) of the token's
// requests per rolling window (30 a minute at 120/min), and one job at most once per
// window / (limit x POLL_SHARE) (2 s at 120/min), backing off x1.5 to window / 6 (10 s).
import type { ApiClient } from '../api/client.js';
import { WorkspaceApiError } from '../api/errors.js';
import { sleep } from '../api/retry.js';
import type { HttpMethod, Operation } from '../operation.js';

type Json = Record<string, unknown>;

export const POLL_SHARE = 0.25;
const BACKOFF = 1.5;
/** Consecutive failed polls (after the client's own retries) before the follower stops asking. */
const MAX_POLL_FAILURES = 3;

export type JobPhase = 'running' | 'succeeded' | 'failed' | 'cancelled';

/** One reading of a job: its own status fields and the record that carries them. */
export interface JobSnapshot {
  id: string;
  status: string;
  phase: JobPhase;
  progress?: number;
  error?: unknown;
  /** What the read answered: the job itself, or the document/draft/session it belongs to. */
  record: Json;
}

interface Endpoint {
  method: HttpMethod;
  path: string;
}

/** A way to read the job's state again. */
interface JobRead extends Endpoint {
  args(ref: JobRef): Json;
  pick(data: unknown, ref: JobRef): JobSnapshot | undefined;
}

export interface JobKind {
  /** Words for the assistant: "analysis run", "export". */
  label: string;
  start: Endpoint;
  /** The job record in the start answer (the answer itself, or a field of it). */
  jobIn(data: Json): Json | undefined;
  /** Reads in order of preference; one is used only when this workspace has its operation. */
  reads: JobRead[];
  /** The job can be stopped on the server (analysis runs). */
  cancel?: Endpoint & { args(ref: JobRef): Json };
  /** What a succeeded job produced, fetched as a file (exports). */
  download?: Endpoint & { args(ref: JobRef): Json };
}

/** A started job: its kind, id, the record the start answered and the path arguments of the call. */
export interface JobRef {
  kind: JobKind;
  id: string;
  job: Json;
  args: Json;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function phaseOf(status: unknown): JobPhase {
  const s = String(status ?? '').toLowerCase();
  if (['succeeded', 'success', 'completed', 'complete', 'done', 'finished', 'ready', 'ended'].includes(s)) return 'succeeded';
  if (['failed', 'failure', 'error', 'errored'].includes(s)) return 'failed';
  if (['cancelled', 'canceled', 'aborted'].includes(s)) return 'cancelled';
  return 'running';
}

function snapshot(job: Json, record: Json = job): JobSnapshot {
  const progress = typeof job.progress === 'number' ? job.progress : undefined;
  return {
    id: String(job.id ?? job.job_id ?? ''),
    status: String(job.status ?? 'unknown'),
    phase: phaseOf(job.status),
    ...(progress !== undefined ? { progress } : {}),
    ...(job.error ? { error: job.error } : {}),
    record,
  };
}

/** The job among a list's items, by id. */
const inList = (data: unknown, ref: JobRef) => {
  const hit = Array.isArray(data) ? data.find((r) => isObject(r) && r.id === ref.id) : undefined;
  return isObject(hit) ? snapshot(hit) : undefined;
};
const itself = (data: unknown, ref: JobRef) => (isObject(data) && data.id === ref.id ? snapshot(data) : undefined);
/** A job shown inside the record it works on (`generation`, `suggestion`, `end_job`). */
const nested = (field: string) => (data: unknown, ref: JobRef) => {
  if (!isObject(data)) return undefined;
  const j = data[field];
  if (!isObject(j) || String(j.job_id ?? j.id) !== ref.id) return undefined;
  return snapshot({ ...j, id: ref.id }, data);
};

const E = '/engagements/{engagement}';
const engagement = (ref: JobRef) => ({ engagement: ref.args.engagement });

/** Every job the API starts, by the operation that starts it. */
export const JOB_KINDS: readonly JobKind[] = [
  {
    label: 'analysis run',
    start: { method: 'POST', path: `${E}/analysis/runs` },
    jobIn: (d) => d,
    reads: [
      // Not in the spec's list; used when the workspace's live description has it.
      { method: 'GET', path: `${E}/analysis/runs/{run}`, args: (r) => ({ ...engagement(r), run: r.id }), pick: itself },
      // Runs are listed newest first, so a run just started is on the first page.
      { method: 'GET', path: `${E}/analysis/runs`, args: (r) => ({ ...engagement(r), limit: 50 }), pick: inList },
    ],
    cancel: { method: 'POST', path: `${E}/analysis/runs/{run}/cancel`, args: (r) => ({ ...engagement(r), run: r.id }) },
  },
  {
    label: 'export',
    start: { method: 'POST', path: `${E}/exports` },
    jobIn: (d) => d,
    reads: [
      { method: 'GET', path: `${E}/exports/{export}`, args: (r) => ({ ...engagement(r), export: r.id }), pick: itself },
      { method: 'GET', path: `${E}/exports`, args: (r) => ({ ...engagement(r), limit: 50 }), pick: inList },
    ],
    download: { method: 'GET', path: `${E}/exports/{export}/download`, args: (r) => ({ ...engagement(r), export: r.id }) },
  },
  {
    label: 'document generation',
    start: { method: 'POST', path: `${E}/deliverable/documents/{kind}/generate` },
    jobIn: (d) => d,
    reads: [{ method: 'GET', path: `${E}/deliverable/documents/{kind}`, args: (r) => ({ ...engagement(r), kind: r.args.kind }), pick: nested('generation') }],
  },
  {
    label: 'generation of all documents',
    start: { method: 'POST', path: `${E}/deliverable/documents/generate-all` },
    jobIn: (d) => d,
    // Every document the job covers shows it; the first is read (one request instead of the list).
    reads: [
      {
        method: 'GET',
        path: `${E}/deliverable/documents/{kind}`,
        args: (r) => ({ ...engagement(r), kind: Array.isArray(r.job.kinds) && typeof r.job.kinds[0] === 'string' ? r.job.kinds[0] : 'executive_summary' }),
        pick: nested('generation'),
      },
    ],
  },
  {
    label: 'recommendation suggestion',
    start: { method: 'POST', path: `${E}/deliverable/draft/suggest-recommendations` },
    jobIn: (d) => d,
    reads: [{ method: 'GET', path: `${E}/deliverable/draft`, args: engagement, pick: nested('suggestion') }],
  },
  {
    label: 'session end',
    start: { method: 'POST', path: '/sessions/{session}/end' },
    jobIn: (d) => (isObject(d.end_job) ? d.end_job : undefined),
    reads: [{ method: 'GET', path: '/sessions/{session}', args: (r) => ({ session: r.args.session }), pick: nested('end_job') }],
  },
];

export function jobKindOf(op: Pick<Operation, 'method' | 'path'>): JobKind | undefined {
  return JOB_KINDS.find((k) => k.start.method === op.method && k.start.path === op.path);
}

/** The job arguments an operation accepts, as shown in its tool's input schema. */
export function jobArgumentProperties(op: Pick<Operation, 'method' | 'path'>): Record<string, object> | undefined {
  const kind = jobKindOf(op);
  if (!kind) return undefined;
  return {
    // One type (seconds): a multi-type union does not convert in every client (Gemini's subset).
    // The reader still takes true and false as models send them (src/mcp/arguments.ts).
    wait: { type: 'number', minimum: 0, maximum: 600, description: 'seconds to follow the job before answering; 0: answer at once' },
    ...(kind.cancel ? { cancel_on_abort: { type: 'boolean', description: `Cancel the ${kind.label} if this call is cancelled` } } : {}),
  };
}

/** The job a start answer describes, or undefined when the answer is already final (or not a job). */
export function jobFromStart(kind: JobKind, data: unknown, args: Json): JobRef | undefined {
  if (!isObject(data)) return undefined;
  const job = kind.jobIn(data);
  if (!job || typeof job.id !== 'string' || !job.id) return undefined;
  return { kind, id: job.id, job, args };
}

/**
 * The token's poll allowance: at most `limit x POLL_SHARE` polls in any rolling window, all jobs of
 * all sessions using the same client together. As in the rate limiter, a poll counts from when it
 * is taken until a window after its answer: the workspace stamps it somewhere in between, and only
 * the answer's time is a bound we know.
 */
export class PollBudget {
  readonly perWindow: number;
  readonly #windowMs: number;
  readonly #holdMs: number;
  #slots: Array<{ end: number }> = [];

  constructor(rate: { limit: number; windowMs: number }) {
    this.perWindow = Math.max(1, Math.floor(rate.limit * POLL_SHARE));
    this.#windowMs = rate.windowMs;
    this.#holdMs = rate.windowMs + Math.max(10, rate.windowMs / 100);
  }

  /** Shortest gap between two polls of one job: one job alone may use the whole share, no more. */
  get minIntervalMs(): number {
    return this.#windowMs / this.perWindow;
  }

  get maxIntervalMs(): number {
    return Math.max(this.minIntervalMs, this.#windowMs / 6);
  }

  /**
   * Take a poll slot, waiting for one; undefined when none frees before `notAfter` (epoch ms).
   * Call the returned function once the poll is answered (or failed).
   */
  async take(signal: AbortSignal, notAfter: number): Promise<(() => void) | undefined> {
    for (;;) {
      const now = Date.now();
      this.#slots = this.#slots.filter((s) => s.end > now);
      if (this.#slots.length < this.perWindow) {
        const slot = { end: Infinity };
        this.#slots.push(slot);
        return () => {
          slot.end = Date.now() + this.#holdMs;
        };
      }
      // The earliest slot to free; one still in flight frees a window after its answer at the soonest.
      const free = Math.min(...this.#slots.map((s) => s.end), now + this.#holdMs);
      if (free > notAfter) return undefined;
      await sleep(Math.max(1, Math.min(free - now + 1, this.minIntervalMs)), signal);
    }
  }
}

const budgets = new WeakMap<ApiClient, PollBudget>();

/** The poll allowance of the token behind `client` (one client per token and process). */
export function pollBudgetFor(client: ApiClient, rate: { limit: number; windowMs: number }): PollBudget {
  let b = budgets.get(client);
  if (!b) {
    b = new PollBudget(rate);
    budgets.set(client, b);
  }
  return b;
}

export interface FollowDeps {
  client: ApiClient;
  /** The operation of this workspace at a method and path (catalog or live description), if any. */
  operationAt(method: HttpMethod, path: string): Operation | undefined;
  budget: PollBudget;
}

export interface FollowOptions {
  waitMs: number;
  signal: AbortSignal;
  /** Job progress 0..100, sent only when it grows. */
  progress?: (done: number, total: number, message?: string) => void;
  /** Cancel the job on the server when the call is cancelled (jobs with a cancel operation). */
  cancelOnAbort?: boolean;
}

export interface FollowOutcome {
  /** finished: succeeded, failed or cancelled; waiting: the wait ran out; unreadable: polls kept failing. */
  outcome: 'finished' | 'waiting' | 'unreadable';
  last: JobSnapshot;
  polls: number;
  waitedMs: number;
  /** The read used to poll, for "check again" hints. */
  read?: { op: Operation; args: Json };
  pollError?: string;
}

/** The read this workspace offers for the job, in the kind's order of preference. */
export function readFor(ref: JobRef, deps: Pick<FollowDeps, 'operationAt'>, skip = 0): { op: Operation; read: JobRead } | undefined {
  let seen = 0;
  for (const read of ref.kind.reads) {
    const op = deps.operationAt(read.method, read.path);
    if (!op) continue;
    if (seen++ >= skip) return { op, read };
  }
  return undefined;
}

/** Follow a started job until it ends, the wait runs out, or the caller cancels (which rethrows). */
export async function followJob(ref: JobRef, deps: FollowDeps, opts: FollowOptions): Promise<FollowOutcome> {
  const started = Date.now();
  const deadline = started + opts.waitMs;
  let last = snapshot(ref.job);
  let sentProgress = -1;
  const report = (s: JobSnapshot) => {
    const p = s.phase === 'succeeded' ? 100 : Math.max(0, Math.min(99, Math.floor(s.progress ?? 0)));
    if (p > sentProgress) {
      sentProgress = p;
      opts.progress?.(p, 100, `${ref.kind.label} ${s.status}${s.phase === 'running' ? ` (${p}%)` : ''}`);
    }
  };
  report(last);
  let skip = 0;
  let current = readFor(ref, deps, skip);
  let interval = deps.budget.minIntervalMs;
  let polls = 0;
  let failures = 0;
  let pollError: string | undefined;
  const outcome = (o: FollowOutcome['outcome']): FollowOutcome => ({
    outcome: o,
    last,
    polls,
    waitedMs: Date.now() - started,
    ...(current ? { read: { op: current.op, args: current.read.args(ref) } } : {}),
    ...(pollError ? { pollError } : {}),
  });
  if (last.phase !== 'running') return outcome('finished');
  try {
    while (current) {
      const now = Date.now();
      if (now >= deadline) return outcome('waiting');
      await sleep(Math.min(interval, deadline - now), opts.signal);
      const release = await deps.budget.take(opts.signal, deadline);
      if (!release) return outcome('waiting');
      polls++;
      try {
        const res = await deps.client.callOperation(current.op, current.read.args(ref), { signal: opts.signal });
        const s = current.read.pick(res.data, ref);
        failures = 0;
        pollError = undefined;
        if (s) {
          last = s;
          report(s);
          if (s.phase !== 'running') return outcome('finished');
        }
      } catch (err) {
        if (opts.signal.aborted) throw err;
        pollError = err instanceof WorkspaceApiError ? `HTTP ${err.status} ${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
        // An endpoint the workspace does not have after all: the next way of reading the job.
        if (err instanceof WorkspaceApiError && (err.status === 404 || err.status === 405) && readFor(ref, deps, skip + 1)) {
          current = readFor(ref, deps, ++skip);
          continue;
        }
        if (++failures >= MAX_POLL_FAILURES) return outcome('unreadable');
      } finally {
        release();
      }
      interval = Math.min(interval * BACKOFF, deps.budget.maxIntervalMs);
    }
    return outcome('waiting');
  } catch (err) {
    if (opts.signal.aborted && opts.cancelOnAbort && ref.kind.cancel) await cancelOnServer(ref, deps);
    throw err;
  }
}

/** The caller gave up and asked for the job to stop with it: one cancel, on its own short deadline. */
async function cancelOnServer(ref: JobRef, deps: FollowDeps): Promise<void> {
  const c = ref.kind.cancel;
  const op = c && deps.operationAt(c.method, c.path);
  if (!c || !op) return;
  try {
    await deps.client.callOperation(op, c.args(ref), { signal: AbortSignal.timeout(10_000) });
  } catch {
    // Already finished (409) or unreachable: the waiting stops either way; nothing to report to.
  }
}
