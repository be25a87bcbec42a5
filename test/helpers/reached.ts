// A request at the sandbox, awaited: a fault's `before` hook (src/sandbox/faults.ts) runs when the
// request is taken, before any delay of the fault, so a test acts on a request in flight once it is
// really there instead of after a guessed time.

/** `tell` for the fault's `before`; `reached` settles when the sandbox has taken the request. */
export function reached(): { tell: () => void; reached: Promise<void> } {
  let tell!: () => void;
  const promise = new Promise<void>((r) => (tell = r));
  return { tell, reached: promise };
}
