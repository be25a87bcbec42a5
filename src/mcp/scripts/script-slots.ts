// How many scripts run at once. Each script holds a worker thread and up to its memory limit (64 MiB
// of WebAssembly by default) for as long as it runs, up to its time limit: with nothing counting
// them, one member of a shared server firing scripts in parallel could hold every core and gigabytes
// of the replica from everyone else. So scripts are counted per process and, on a shared (remote)
// server, per member; past a cap a script is refused at once, before any worker is taken or request
// sent, with words a client can act on (retry when one of the running scripts has ended). Refused
// rather than queued: a queued script would wait silently, past its client's patience.

/** Scripts running at once in one process, whoever runs them. */
export const MAX_SCRIPTS_PER_PROCESS = 8;
/** Scripts one member runs at once on one replica of a shared server. */
const MAX_SCRIPTS_PER_MEMBER = 2;

type SlotAnswer = { ok: true; release: () => void } | { ok: false; cap: 'member' | 'process'; limit: number };

export class ScriptSlots {
  readonly #perProcess: number;
  readonly #perOwner: number;
  #running = 0;
  readonly #byOwner = new Map<string, number>();

  constructor(opts: { perProcess: number; perOwner: number }) {
    this.#perProcess = opts.perProcess;
    this.#perOwner = opts.perOwner;
  }

  /** Scripts running now (for tests and metrics). */
  get running(): number {
    return this.#running;
  }

  /** A slot for one script of `owner` (a member of a shared server; none on a member's own server). */
  take(owner?: string): SlotAnswer {
    const mine = owner === undefined ? 0 : (this.#byOwner.get(owner) ?? 0);
    if (owner !== undefined && mine >= this.#perOwner) return { ok: false, cap: 'member', limit: this.#perOwner };
    if (this.#running >= this.#perProcess) return { ok: false, cap: 'process', limit: this.#perProcess };
    this.#running++;
    if (owner !== undefined) this.#byOwner.set(owner, mine + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.#running--;
        if (owner === undefined) return;
        const left = (this.#byOwner.get(owner) ?? 1) - 1;
        if (left > 0) this.#byOwner.set(owner, left);
        else this.#byOwner.delete(owner);
      },
    };
  }
}

/** The process's slots: every session of the process draws from them. */
export const processScriptSlots = new ScriptSlots({ perProcess: MAX_SCRIPTS_PER_PROCESS, perOwner: MAX_SCRIPTS_PER_MEMBER });
