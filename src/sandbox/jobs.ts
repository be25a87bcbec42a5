// Jobs (analysis runs, exports, document generation, session ends) whose state is derived from the
// clock when read, not pushed by timers: nothing keeps the process alive, a stopped sandbox leaves no
// work behind, and a time scale shortens every job the same way.
import { ApiError, type HandlerContext, type Localized, type Rec, type WorkspaceState } from './types.js';

export const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

interface JobPlan {
  /** How long the job takes, in unscaled sandbox milliseconds (scaled by the time scale at start). */
  durationMs: number;
  /** Fail at the end instead of succeeding. */
  failWith?: { code: string; message: Localized };
  /** Runs once, when the job is first seen finished: apply side effects, return fields to merge. */
  onSucceeded?: (ws: WorkspaceState, job: Rec) => Record<string, unknown> | undefined;
}

interface Running {
  plan: JobPlan;
  startedAt: number;
  durationMs: number;
}

// Plans hold functions, so they live beside the records rather than in them.
const running = new WeakMap<Rec, Running>();

/** Admin switch: the next N jobs started in this workspace fail (see the admin endpoint). */
export const FAIL_NEXT_JOBS = 'fail_next_jobs';

/** Insert a job record in `collection` and start its clock. */
export function startJob(ctx: HandlerContext, collection: string, fields: Record<string, unknown>, plan: JobPlan): Rec {
  const ws = ctx.ws;
  const failNext = ws.counters[FAIL_NEXT_JOBS] ?? 0;
  if (failNext > 0 && !plan.failWith) {
    ws.counters[FAIL_NEXT_JOBS] = failNext - 1;
    plan = {
      ...plan,
      failWith: {
        code: 'job.failed',
        message: { en: 'The job failed (injected by the sandbox).', fr: 'La tâche a échoué (injecté par le bac à sable).' },
      },
    };
  }
  const now = ctx.now();
  const rec = ctx.ws.c(collection).insert({
    ...fields,
    status: 'queued',
    progress: 0,
    started_at: now.toISOString(),
    finished_at: null,
    error: null,
  });
  running.set(rec, { plan, startedAt: now.getTime(), durationMs: Math.max(1, ctx.scaled(plan.durationMs)) });
  return rec;
}

/** Bring a job record up to date with the clock; returns the same (mutated) record. */
export function refreshJob(ws: WorkspaceState, rec: Rec, now: Date): Rec {
  const r = running.get(rec);
  if (!r || TERMINAL.has(String(rec.status))) return rec;
  const elapsed = now.getTime() - r.startedAt;
  // The first tenth of a job is spent queued, as a real worker pool would.
  if (elapsed < r.durationMs) {
    rec.status = elapsed < r.durationMs / 10 ? 'queued' : 'running';
    rec.progress = Math.min(99, Math.floor((elapsed / r.durationMs) * 100));
    rec.updated_at = now.toISOString();
    return rec;
  }
  const finishedAt = new Date(r.startedAt + r.durationMs).toISOString();
  if (r.plan.failWith) {
    Object.assign(rec, {
      status: 'failed',
      finished_at: finishedAt,
      updated_at: finishedAt,
      error: { code: r.plan.failWith.code, message: r.plan.failWith.message.en },
    });
  } else {
    const extra = r.plan.onSucceeded?.(ws, rec) ?? {};
    Object.assign(rec, extra, { status: 'succeeded', progress: 100, finished_at: finishedAt, updated_at: finishedAt });
  }
  running.delete(rec);
  return rec;
}

export function refreshAll(ws: WorkspaceState, collection: string, now: Date): void {
  for (const rec of ws.c(collection).all()) refreshJob(ws, rec, now);
}

/** Cancel a job that has not finished; a finished one answers 409 job.finished. */
export function cancelJob(ws: WorkspaceState, rec: Rec, now: Date): Rec {
  refreshJob(ws, rec, now);
  if (TERMINAL.has(String(rec.status))) {
    throw new ApiError(
      409,
      'job.finished',
      { en: `The job has already ended (${String(rec.status)}).`, fr: `La tâche est déjà terminée (${String(rec.status)}).` },
      { status: rec.status },
    );
  }
  running.delete(rec);
  const at = now.toISOString();
  return Object.assign(rec, { status: 'cancelled', finished_at: at, updated_at: at });
}
