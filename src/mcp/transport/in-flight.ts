// Calls in flight, so a shutdown can let them finish before it closes the servers (which cancels
// whatever is left): counted by the transport from a request's arrival until its answer is written.
export class InFlight {
  #size = 0;
  #waiters: (() => void)[] = [];

  get size(): number {
    return this.#size;
  }

  /** Counts one call from now until the returned function is called (once). */
  begin(): () => void {
    this.#size++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.#size === 0) for (const w of this.#waiters.splice(0)) w();
    };
  }

  /** Counts `fn` while it runs. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const end = this.begin();
    try {
      return await fn();
    } finally {
      end();
    }
  }

  /** Resolves once nothing is in flight (at once when nothing is), however long that takes. */
  idle(): Promise<void> {
    if (this.#size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /** Resolves true once nothing is in flight, or false when `timeoutMs` passes first. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.#size === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      this.#waiters.push(done);
    });
  }
}
