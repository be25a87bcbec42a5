// A request at the sandbox, awaited: a fault's `before` hook (src/sandbox/faults.ts) runs when the
// request is taken, before any delay of the fault, so a test acts on a request in flight once it is
// really there instead of after a guessed time.

/** `tell` for the fault's `before`; `reached` settles when the sandbox has taken the request. */
export function reached(): { tell: () => void; reached: Promise<void> } {
  let tell!: () => void;
  const promise = new Promise<void>((r) => (tell = r));
  return { tell, reached: promise };
}

/**
 * A gate for a fault's `before`: each request it takes waits there until `open()`, and `held(n)`
 * settles once n are waiting (or went through), so a test acts once they are really held.
 */
export function gate(): { before: () => Promise<void>; held(n: number): Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  let arrived = 0;
  const waiters: { n: number; tell: () => void }[] = [];
  return {
    async before() {
      arrived++;
      for (const w of waiters) if (arrived >= w.n) w.tell();
      await opened;
    },
    held: (n) => (arrived >= n ? Promise.resolve() : new Promise((tell) => waiters.push({ n, tell }))),
    open,
  };
}
