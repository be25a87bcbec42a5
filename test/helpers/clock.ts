// A clock a test moves by hand, for the modules that take one (the sandbox's `clock`, a `now`
// option): a job or a window is read at the moment the test chooses, not waited for.

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
