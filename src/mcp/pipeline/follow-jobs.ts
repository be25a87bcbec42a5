// Following a long-running job (analysis run, export, document generation, recommendation
// suggestion, session end) from the tool call that started it: polling with backoff inside the polls'
// share of the member's rate budget (the limiter's, docs/architecture.md, Rate budget), reporting
// progress, stopping at the caller's patience, and cancelling the job on the server when the caller
// asked for that and then gave up. One job polls at most once per the limiter's pollIntervalMs (its
// share alone), backing off x1.5 to a sixth of the window.
import type { ApiClient } from '../../api/client.js';
import { BudgetWaitTooLongError, RateLimitWaitTooLongError, WorkspaceApiError } from '../../api/errors.js';
import { sleep } from '../../api/retry.js';
import type { JobFacet, JobValue, Operation } from '../../operation.js';

type Json = Record<string, unknown>;

const BACKOFF = 1.5;
/** Consecutive failed polls (after the client's own retries) before the follower stops asking. */
const MAX_POLL_FAILURES = 3;

type JobPhase = 'running' | 'succeeded' | 'failed' | 'cancelled';

/** One reading of a job: its own status fields and the record that carries them. */
interface JobSnapshot {
  id: string;
  status: string;
  phase: JobPhase;
  progress?: number;
  error?: unknown;
  /** What the read answered: the job itself, or the document/draft/session it belongs to. */
  record: Json;
}

/** A way to read the job's state again. */
interface JobRead {
  /** The catalog name of the operation that reads it. */
  operation: string;
  args(ref: JobRef): Json;
  pick(data: unknown, ref: JobRef): JobSnapshot | undefined;
}

/** An operation's job facet (src/operation.ts) with its value references resolved to functions. */
export interface JobKind {
  /** Words for the assistant: "analysis run", "export". */
  label: string;
  /** The job record in the start answer (the answer itself, or a field of it). */
  jobIn(data: Json): Json | undefined;
  /** Reads in order of preference; one is used only when this workspace has its operation. */
  reads: JobRead[];
  /** The job can be stopped on the server (analysis runs). */
  cancel?: { operation: string; args(ref: JobRef): Json };
  /** What a succeeded job produced, fetched as a file (exports). */
  download?: { operation: string; args(ref: JobRef): Json };
}

/** A started job: its kind, id, the record the start answered and the arguments of the call. */
export interface JobRef {
  kind: JobKind;
  id: string;
  job: Json;
  args: Json;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function phaseOf(status: unknown): JobPhase {
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

/** One `$...` reference of a job facet: `$id`, `$args.NAME`, `$job.NAME[.N]`. */
function lookup(ref: JobRef, expr: string): unknown {
  if (expr === '$id') return ref.id;
  const [root, ...path] = expr.slice(1).split('.');
  let cur: unknown = root === 'args' ? ref.args : root === 'job' ? ref.job : undefined;
  for (const key of path) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined;
  return cur;
}

/** A facet value resolved for one job: the first present alternative of `a|b`, or the literal. */
function resolveJobValue(value: JobValue, ref: JobRef): unknown {
  if (typeof value !== 'string' || !value.startsWith('$')) return value;
  for (const alt of value.split('|')) {
    if (!alt.startsWith('$')) return alt;
    const v = lookup(ref, alt);
    if (v !== undefined && v !== null && v !== '') return v;
  }
  return undefined;
}

const argsOf = (args: Record<string, JobValue>) => (ref: JobRef) => {
  const out: Json = {};
  for (const [k, v] of Object.entries(args)) {
    const r = resolveJobValue(v, ref);
    if (r !== undefined) out[k] = r;
  }
  return out;
};

/** Where the job is in a read's answer: the answer itself, an item of a list, or a field of a record. */
function picker(pick: JobFacet['reads'][number]['pick']): JobRead['pick'] {
  if (pick === 'self') return (data, ref) => (isObject(data) && data.id === ref.id ? snapshot(data) : undefined);
  if (pick === 'list') {
    return (data, ref) => {
      const hit = Array.isArray(data) ? data.find((r) => isObject(r) && r.id === ref.id) : undefined;
      return isObject(hit) ? snapshot(hit) : undefined;
    };
  }
  // A job shown inside the record it works on (`generation`, `suggestion`, `end_job`).
  return (data, ref) => {
    if (!isObject(data)) return undefined;
    const j = data[pick.field];
    if (!isObject(j) || String(j.job_id ?? j.id) !== ref.id) return undefined;
    return snapshot({ ...j, id: ref.id }, data);
  };
}

const kinds = new WeakMap<JobFacet, JobKind>();

/** The job an operation starts, from its catalog facet; undefined for an operation that starts none. */
export function jobKindOf(op: Pick<Operation, 'job'>): JobKind | undefined {
  const f = op.job;
  if (!f) return undefined;
  let kind = kinds.get(f);
  if (!kind) {
    const field = f.in;
    kind = {
      label: f.label,
      jobIn: (d) => (field === undefined ? d : isObject(d[field]) ? (d[field] as Json) : undefined),
      reads: f.reads.map((r) => ({ operation: r.operation, args: argsOf(r.args), pick: picker(r.pick) })),
      ...(f.cancel ? { cancel: { operation: f.cancel.operation, args: argsOf(f.cancel.args) } } : {}),
      ...(f.download ? { download: { operation: f.download.operation, args: argsOf(f.download.args) } } : {}),
    };
    kinds.set(f, kind);
  }
  return kind;
}

/** The job a start answer describes, or undefined when the answer is already final (or not a job). */
export function jobFromStart(kind: JobKind, data: unknown, args: Json): JobRef | undefined {
  if (!isObject(data)) return undefined;
  const job = kind.jobIn(data);
  if (!job || typeof job.id !== 'string' || !job.id) return undefined;
  return { kind, id: job.id, job, args };
}

interface FollowDeps {
  client: ApiClient;
  /** The operation of this name this session may call (catalog or live description), if any. */
  operationNamed(name: string): Operation | undefined;
}

interface FollowOptions {
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
function readFor(ref: JobRef, deps: Pick<FollowDeps, 'operationNamed'>, skip = 0): { op: Operation; read: JobRead } | undefined {
  let seen = 0;
  for (const read of ref.kind.reads) {
    const op = deps.operationNamed(read.operation);
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
  const { pollIntervalMs, windowMs } = deps.client.limiter;
  let interval = pollIntervalMs;
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
      try {
        const res = await deps.client.callOperation(current.op, current.read.args(ref), {
          signal: opts.signal,
          poll: true,
          maxBudgetWaitMs: deadline - Date.now(),
        });
        polls++;
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
        // No slot for the poll, or a Retry-After, before the caller's patience runs out.
        if (err instanceof BudgetWaitTooLongError || err instanceof RateLimitWaitTooLongError) return outcome('waiting');
        polls++;
        pollError = err instanceof WorkspaceApiError ? `HTTP ${err.status} ${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
        // An endpoint the workspace does not have after all: the next way of reading the job.
        if (err instanceof WorkspaceApiError && (err.status === 404 || err.status === 405) && readFor(ref, deps, skip + 1)) {
          current = readFor(ref, deps, ++skip);
          continue;
        }
        if (++failures >= MAX_POLL_FAILURES) return outcome('unreadable');
      }
      interval = Math.min(interval * BACKOFF, Math.max(pollIntervalMs, windowMs / 6));
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
  const op = c && deps.operationNamed(c.operation);
  if (!c || !op) return;
  try {
    await deps.client.callOperation(op, c.args(ref), { signal: AbortSignal.timeout(10_000) });
  } catch {
    // Already finished (409) or unreachable: the waiting stops either way; nothing to report to.
  }
}
