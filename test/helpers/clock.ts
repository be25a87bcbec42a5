// A clock a test moves by hand, for the modules that take one (the sandbox's `clock`, a `now`
// option): a job or a window is read at the moment the test chooses, not waited for; and a sandbox
// job read once its clock is past its end.

export class TestClock {
  #frozenAt: number | undefined;
  #offset = 0;

  /** frozen: stands still until advanced; otherwise runs with real time, and advance() jumps ahead. */
  constructor(opts: { frozen?: boolean } = {}) {
    if (opts.frozen) this.#frozenAt = Date.now();
  }

  /** Epoch ms, as Date.now. */
  readonly now = (): number => (this.#frozenAt ?? Date.now()) + this.#offset;

  advance(ms: number): void {
    this.#offset += ms;
  }
}

/** Longer than any sandbox job at time scale 1 (the longest, an analysis run, lasts 90 s). */
const PAST_ANY_JOB_MS = 60 * 60_000;

/**
 * Move the sandbox's clock (the `clock` it was started with) past the end of any job, then read the
 * job `read` returns: it has finished, or the test fails. No waiting: the sandbox derives a job's
 * state from its clock when read.
 */
export async function finished<T>(clock: TestClock, read: () => Promise<T>): Promise<T> {
  clock.advance(PAST_ANY_JOB_MS);
  const job = await read();
  const status = String((job as { status?: unknown } | undefined)?.status);
  if (!['succeeded', 'failed', 'cancelled'].includes(status)) throw new Error(`job still ${status} past the end of any job`);
  return job;
}
