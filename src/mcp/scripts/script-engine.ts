// The isolate that runs a model's script (run_read_script, run_write_script): QuickJS compiled to
// WebAssembly (quickjs-emscripten), not node:vm, which is no security boundary. Inside there is no
// Node, network, file system, environment, module loader or timer: only what this module gives, an
// `api` whose calls go to the host (which runs them through the tool pipeline) and `console.log`.
//
// Each script gets its own WebAssembly instance and linear memory, capped at the memory limit: the
// cap is enforced by WebAssembly itself (QuickJS's own malloc limit counts allocations, not their
// size, in this build: a loop of large strings passed it by a hundred times), and the memory is
// given back when the script ends, so one script can neither starve the next nor grow the process.
// The compiled module is cached by the process; instantiating it costs a few milliseconds. The tools
// run it on a worker thread (script-thread.ts), so a script's own code never holds the server's.
//
// Host functions answer promises created inside the VM (newPromise) rather than suspending it
// (asyncify): a script can await several calls at once (Promise.all of reads), and between host
// events the VM is not running at all, so stopping it is simply not resuming it.
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';

export interface ScriptLimits {
  /** From start to answer, API calls included. */
  wallMs: number;
  /** Time spent running the script's own code (checked by QuickJS's interrupt handler). */
  cpuMs: number;
  /** The isolate's whole WebAssembly memory (at least 16 MiB, the engine's floor). */
  memoryBytes: number;
  /** QuickJS's stack. */
  stackBytes: number;
  /** api.* calls per script. */
  maxCalls: number;
  /**
   * Characters of the answer: the return value as JSON and the console.log lines together, and the
   * final answer's text and structuredContent each, whatever produced them (an error included).
   */
  maxOutputChars: number;
}

export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = {
  wallMs: 120_000,
  // Scripts call the API and shape its answers: seconds of their own computing is a runaway loop,
  // holding a core of the machine (on its worker thread) for nothing.
  cpuMs: 2_000,
  memoryBytes: 64 * 1024 * 1024,
  // QuickJS runs on the Node thread's own stack (about 1 MB): its limit must stay well below.
  stackBytes: 256 * 1024,
  maxCalls: 100,
  maxOutputChars: 200_000,
};

/** What the host answers for one api call: the operation's structuredContent, or why it failed. */
export type CallAnswer = { ok: true; value: unknown } | { ok: false; error: ScriptError };

/** An error as the script sees it (an Error with these fields) and as the tool reports it. */
export interface ScriptError {
  name: string;
  message: string;
  code: string;
  /** The script's line the error came from, when known. */
  line?: number;
  [field: string]: unknown;
}

export interface ScriptHost {
  /** One `api.<name>(args)`; `args` is what the script passed (JSON-decoded). */
  call(name: string, args: unknown, signal: AbortSignal): Promise<CallAnswer>;
  /** Each console.log line as it is written (the outcome carries them all too). */
  log?(line: string): void;
  /** The engine is loaded and the script's time starts now. */
  started?(): void;
  /** The calls not answered yet, at this moment: what a stop cancels, told in its message. */
  inFlight?(): InFlight;
}

/** The script's API calls not answered yet: how many, how many of them writes, and of those how many wait for the user's confirmation (not sent). */
interface InFlight {
  calls: number;
  writes: number;
  waitingForUser: number;
}

/** What stopping the script did to the calls in flight (unknown: the most it may have done). */
function cancelledWords(f: InFlight | undefined): string {
  if (f?.calls === 0) return 'no API call was in flight.';
  const many = (n: number, one: string, more: string) => (n === 1 ? one : `${n} ${more}`);
  if (f?.writes === 0)
    return `${many(f.calls, 'the call still in flight (a read) was', 'calls still in flight (reads) were')} cancelled; no write was in flight.`;
  if (f !== undefined && f.writes === f.waitingForUser) {
    const reads = f.calls - f.writes;
    return `${many(f.writes, 'the write', 'writes')} waiting for the user's confirmation ${f.writes === 1 ? 'was' : 'were'} cancelled unsent${reads ? `, and ${many(reads, 'a read', 'reads')} in flight with ${f.writes === 1 ? 'it' : 'them'}` : ''}: nothing was changed by ${f.calls === 1 ? 'it' : 'them'}.`;
  }
  return 'an API call still in flight was cancelled (a write among them may or may not have been applied).';
}

export type ScriptOutcome = { ok: true; result: unknown; logs: string[]; calls: number } | { ok: false; error: ScriptError; logs: string[]; calls: number };

/** The engine's floor: the module's memory starts at 16 MiB. */
const PAGE = 65_536;
const MIN_PAGES = 256;
/** Arguments of one call, as JSON: more is surely a mistake (the API's largest body, a document, is far less). */
const MAX_ARGS_CHARS = 2_000_000;

type QuickJs = typeof import('quickjs-emscripten');
type VariantOptions = Parameters<QuickJs['newVariant']>[1];
type WasmMemory = NonNullable<VariantOptions['wasmMemory']>;
type EmscriptenOptions = NonNullable<VariantOptions['emscriptenModule']>;
/** WebAssembly's Memory (the project's lib settings leave out the WebAssembly types; Node has it). */
const { Memory } = (globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number; maximum: number }) => WasmMemory } }).WebAssembly;
let engine: Promise<QuickJs> | undefined;

/** The engine's code, imported on the first script only (a session may never run one). */
function loadEngine(): Promise<QuickJs> {
  engine ??= import('quickjs-emscripten').catch((err: unknown) => {
    engine = undefined;
    throw err;
  });
  return engine;
}

function limitError(code: string, message: string): ScriptError {
  return { name: 'ScriptLimitError', code, message };
}

const MIB = 1024 * 1024;

export function limitMessages(l: ScriptLimits) {
  return {
    cpu: () => limitError('cpu_limit', `The script ran more than ${l.cpuMs} ms of its own code (the CPU limit) and was stopped. Do less work per script.`),
    wall: (inFlight?: InFlight) =>
      limitError(
        'time_limit',
        `The script ran longer than ${l.wallMs < 10_000 ? `${l.wallMs} ms` : `${Math.round(l.wallMs / 1000)} s`} (the time limit) and was stopped; ${cancelledWords(inFlight)}`,
      ),
    memory: () => limitError('memory_limit', `The script ran out of memory (the limit is ${Math.round(l.memoryBytes / MIB)} MiB) and was stopped.`),
    stack: () => limitError('stack_limit', `The script overflowed its stack (${Math.round(l.stackBytes / 1024)} KiB): too deep a recursion.`),
    calls: () =>
      limitError(
        'call_limit',
        `The script made more than ${l.maxCalls} API calls (the limit per script) and was stopped before sending the next one. Ask for bigger pages (limit up to 200) or split the work.`,
      ),
    output: () =>
      limitError(
        'output_limit',
        `The script's answer (its return value as JSON, its console.log lines, its error) passed ${l.maxOutputChars} characters (the limit) and was stopped. Return a summary instead.`,
      ),
  };
}

/** Longest message, name or stack of a script's error kept (each); longer ones are cut, saying so. */
export const MAX_ERROR_TEXT = 4_000;
/** Longest JSON of a script error's other fields (code, status...): past it they are left out. */
const MAX_ERROR_FIELDS = 20_000;

// Runs once in each fresh context, before the script: builds `api` and `console` over the host
// functions and hides them. Values cross as JSON text only, so no host object ever enters the VM.
// Everything the host later runs in the VM is here, bound to the engine's own functions as they are
// before the script starts (JSON.stringify, Reflect.apply, Promise.prototype.then...): a script that
// replaces a prototype's method or lies about a length changes nothing the host reads. Its answer and
// its errors reach the host as one string each, already bounded (an error's texts are cut here), so
// the host never converts a script's object itself (which would run its getters, toJSON or toString
// outside the VM's time accounting).
const BOOTSTRAP = `(() => {
  const g = globalThis, call = g.__call, log = g.__log, done = g.__done;
  delete g.__call; delete g.__log; delete g.__done;
  const stringify = JSON.stringify, parse = JSON.parse, apply = Reflect.apply, then = Promise.prototype.then;
  const keys = Object.keys, slice = String.prototype.slice, toText = String, Err = Error;
  const MAX = ${MAX_ERROR_TEXT}, MAX_FIELDS = ${MAX_ERROR_FIELDS};
  const cut = (s) => s.length > MAX ? apply(slice, s, [0, MAX]) + '... (cut: ' + s.length + ' characters)' : s;
  const str = (v) => { try { const s = toText(v); return typeof s === 'string' ? cut(s) : '(unreadable)'; } catch { return '(unreadable)'; } };
  const text = (v) => { if (typeof v === 'string') return v; try { const s = stringify(v); return s === undefined ? toText(v) : s; } catch { return toText(v); } };
  const fns = Object.create(null);
  g.api = new Proxy({}, { get(_, name) {
    if (typeof name !== 'string' || name === 'then') return undefined;
    return fns[name] ??= async (args) => {
      const r = parse(await call(name, args === undefined ? '{}' : (stringify(args) ?? 'null')));
      if (r.ok) return r.value;
      const e = new Err(r.error.message);
      for (const k in r.error) if (k !== 'message') e[k] = r.error[k];
      throw e;
    };
  } });
  const write = (...a) => { let line = ''; for (let i = 0; i < a.length; i++) line += (i ? ' ' : '') + text(a[i]); log(line); };
  g.console = { log: write, info: write, warn: write, error: write, debug: write };
  const read = (f, fallback) => { try { return f(); } catch { return fallback; } };
  // An error as one bounded JSON text: name, message and stack as strings, the other own fields.
  const describe = (e) => {
    if (e === null || (typeof e !== 'object' && typeof e !== 'function')) return stringify({ name: 'Error', message: str(e), plain: true });
    const name = read(() => str(e.name ?? 'Error'), 'Error');
    const message = read(() => str(e.message ?? ''), '');
    const stack = read(() => (typeof e.stack === 'string' ? cut(e.stack) : ''), '');
    const rest = {};
    read(() => { const ks = keys(e); for (let i = 0; i < ks.length; i++) { const k = ks[i]; if (k !== 'name' && k !== 'message' && k !== 'stack') rest[k] = e[k]; } });
    let fields = read(() => stringify(rest), '{}');
    if (typeof fields !== 'string' || fields.length > MAX_FIELDS) fields = '{}';
    return '{"name":' + stringify(name) + ',"message":' + stringify(message) + ',"stack":' + stringify(stack) + ',"fields":' + fields + '}';
  };
  const fail = (e) => { let d; try { d = describe(e); } catch { d = '{"name":"Error","message":"The script failed; its error could not be read (out of memory?)"}'; } done('error', d); };
  const ok = (v) => {
    try {
      if (v === undefined) return done('ok');
      let s;
      try { s = stringify(v); } catch (e) { return done('not_json', read(() => str(e !== null && typeof e === 'object' ? e.message : e), '(unreadable)')); }
      if (typeof s !== 'string') return done('ok');
      done('ok', s);
    } catch (e) { fail(e); }
  };
  const run = (main) => {
    let p;
    try { p = main(); apply(then, p, [ok, fail]); } catch (e) { fail(e); }
  };
  return { run, describe };
})()`;

/** The first line of the script named in a QuickJS stack ("at f (script.js:3:5)"). */
function lineOf(stack: unknown): number | undefined {
  const m = typeof stack === 'string' ? /script\.js:(\d+)/.exec(stack) : null;
  return m ? Number(m[1]) : undefined;
}

/** What the bootstrap reported at the end: the script's answer (JSON text), or its error (a description). */
type Done = { kind: 'ok'; json?: string } | { kind: 'not_json'; why: string } | { kind: 'error'; description: string };

/** The longest text an error's description may take: bounded by the bootstrap (its texts are cut there). */
const MAX_DESCRIPTION = 4 * MAX_ERROR_TEXT + MAX_ERROR_FIELDS + 1_000;

/**
 * Runs `source` (an async function body) with `api` and `console` and nothing else, within
 * `limits`. `signal` is the tool call's cancellation: it stops the script and its API calls.
 */
export async function runScript(source: string, host: ScriptHost, limits: ScriptLimits, signal: AbortSignal): Promise<ScriptOutcome> {
  const qjs = await loadEngine();
  const pages = Math.max(MIN_PAGES, Math.ceil(limits.memoryBytes / PAGE));
  const wasmMemory = new Memory({ initial: MIN_PAGES, maximum: pages });
  // Nothing of the engine may print: stdout carries the protocol in stdio mode.
  // (print and printErr are Emscripten's own options; the loader's type leaves them out.)
  const quiet = { print: () => {}, printErr: () => {} } as unknown as EmscriptenOptions;
  const module = await qjs.newQuickJSWASMModule(qjs.newVariant(qjs.RELEASE_SYNC, { wasmMemory, emscriptenModule: quiet }));
  return new ScriptRun(module, host, limits).run(source, signal);
}

/**
 * One script's run, used once: its isolate (a runtime and a context of its own), what the script has
 * logged and called, the time its own code has taken, and why it stopped. `run` evaluates the script
 * and answers its outcome; the isolate is freed when it returns.
 */
class ScriptRun {
  readonly #host: ScriptHost;
  readonly #limits: ScriptLimits;
  readonly #limit: ReturnType<typeof limitMessages>;
  readonly #runtime: QuickJSRuntime;
  readonly #vm: QuickJSContext;

  readonly #logs: string[] = [];
  /** Characters of console.log written so far (each line and its newline). */
  #output = 0;
  #calls = 0;
  /** Why the script was stopped (a limit, a cancellation, the engine): the first reason wins. */
  #stop: ScriptError | undefined;
  /** The script answered (or the run is over): host answers arriving now go nowhere. */
  #finished = false;
  /** What the bootstrap reported at the end. */
  #result: Done | undefined;
  readonly #stopped = signalled();
  readonly #answered = signalled();
  /** Aborts the API calls in flight when the script stops, whatever the reason. */
  readonly #calling = new AbortController();

  // CPU time is the time spent inside the VM, on every entry the host makes (the script's start, each
  // round of promise jobs after an answer): the script's own code and whatever of it those entries
  // run (getters, toJSON, a then the script replaced). The interrupt handler stops the VM once the
  // time inside passes the budget; outside the VM no script code can run.
  #cpuUsed = 0;
  #enteredAt = 0;
  #depth = 0;
  readonly #deadline: number;

  /** API calls not answered yet (a write is not cut off midway when the script answers). */
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Promises the script awaits that no answer settled yet: freed with the context. */
  readonly #pending = new Set<{ dispose(): void }>();
  /** The bootstrap's object and its two functions, freed with the context (in reverse order). */
  readonly #held: QuickJSHandle[] = [];

  constructor(module: QuickJSWASMModule, host: ScriptHost, limits: ScriptLimits) {
    this.#host = host;
    this.#limits = limits;
    this.#limit = limitMessages(limits);
    this.#runtime = module.newRuntime();
    this.#runtime.setMaxStackSize(limits.stackBytes);
    host.started?.();
    this.#deadline = performance.now() + limits.wallMs;
    this.#runtime.setInterruptHandler(() => this.#interrupted());
    this.#vm = this.#runtime.newContext();
  }

  async run(source: string, signal: AbortSignal): Promise<ScriptOutcome> {
    const onAbort = () => this.#halt({ name: 'AbortError', code: 'cancelled', message: 'The tool call was cancelled; the script was stopped.' });
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => this.#halt(this.#limit.wall()), this.#limits.wallMs);
    this.#install();
    try {
      return await this.#evaluate(source);
    } finally {
      this.#finished = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      this.#calling.abort(new Error('the script ended'));
      this.#dispose();
    }
  }

  #halt(why: ScriptError): void {
    this.#stop ??= why;
    this.#calling.abort(new Error(why.message));
    this.#stopped.fire();
  }

  #interrupted(): boolean {
    if (this.#stop) return true;
    const now = performance.now();
    // The wall-time timer cannot fire while the script's code holds the thread: checked here too.
    if (now > this.#deadline) this.#halt(this.#limit.wall());
    else if (this.#depth > 0 && this.#cpuUsed + (now - this.#enteredAt) > this.#limits.cpuMs) this.#halt(this.#limit.cpu());
    return this.#stop !== undefined;
  }

  /** Runs VM code, counting its time; a failure of the engine itself (an abort) ends the script. */
  #inVm<T>(f: () => T): T | undefined {
    if (this.#depth++ === 0) this.#enteredAt = performance.now();
    try {
      return f();
    } catch (err) {
      const why = String(err);
      this.#halt(
        /memory|OOM/i.test(why)
          ? this.#limit.memory()
          : /call stack/i.test(why)
            ? this.#limit.stack()
            : { name: 'ScriptEngineError', code: 'engine', message: `The script engine stopped: ${why}` },
      );
      return undefined;
    } finally {
      if (--this.#depth === 0) this.#cpuUsed += performance.now() - this.#enteredAt;
    }
  }

  /** Runs the promise jobs a host answer made ready (the script's continuations). */
  #drain(): void {
    if (this.#stop || this.#finished) return;
    const r = this.#inVm(() => this.#runtime.executePendingJobs());
    // A job's own failure rejects the script's promise, which the bootstrap reports; this is the engine's.
    r?.error?.dispose();
  }

  /**
   * A string the VM handed over, copied out only when it is one and within `max` characters (its
   * length read first: a string primitive's length is its own, whatever the script replaced).
   */
  #stringWithin(h: QuickJSHandle, max: number): string | undefined | 'too_long' {
    const vm = this.#vm;
    if (vm.typeof(h) !== 'string') return undefined;
    const lengthH = vm.getProp(h, 'length');
    const length = vm.getNumber(lengthH);
    lengthH.dispose();
    return length > max ? 'too_long' : vm.getString(h);
  }

  /** The host functions the bootstrap hides behind `api` and `console`, and through which it reports the end. */
  #install(): void {
    const vm = this.#vm;
    const callFn = vm.newFunction('__call', (nameH, argsH) => this.#call(nameH, argsH));
    const logFn = vm.newFunction('__log', (lineH) => this.#log(lineH));
    const doneFn = vm.newFunction('__done', (kindH, textH) => this.#done(kindH, textH));
    vm.setProp(vm.global, '__call', callFn);
    vm.setProp(vm.global, '__log', logFn);
    vm.setProp(vm.global, '__done', doneFn);
    callFn.dispose();
    logFn.dispose();
    doneFn.dispose();
  }

  /** `api.<name>(args)`: a promise in the VM, settled when the host answers. */
  #call(nameH: QuickJSHandle, argsH: QuickJSHandle) {
    const vm = this.#vm;
    const limits = this.#limits;
    if (this.#stop) return { error: vm.newError('stopped') };
    if (++this.#calls > limits.maxCalls) {
      this.#halt(this.#limit.calls());
      return { error: vm.newError(this.#limit.calls().message) };
    }
    // Both are strings the bootstrap built (a name it checked, the arguments' JSON).
    const name = this.#stringWithin(nameH, 200);
    const argsText = this.#stringWithin(argsH, MAX_ARGS_CHARS);
    const deferred = vm.newPromise();
    this.#pending.add(deferred);
    const answer: Promise<CallAnswer> =
      typeof name !== 'string' || name === 'too_long'
        ? Promise.resolve({ ok: false, error: { name: 'ValidationError', code: 'unknown', message: 'api: no such operation. Nothing was sent.' } })
        : typeof argsText !== 'string' || argsText === 'too_long'
          ? Promise.resolve({
              ok: false,
              error: {
                name: 'ValidationError',
                code: 'too_large',
                message: `api.${name}: arguments of more than ${MAX_ARGS_CHARS} characters. Nothing was sent.`,
              },
            })
          : this.#host.call(name, JSON.parse(argsText), this.#calling.signal).catch(
              (err: unknown): CallAnswer => ({
                ok: false,
                error: { name: 'Error', code: 'failed', message: err instanceof Error ? err.message : String(err) },
              }),
            );
    const settled = answer.then((a) => {
      this.#inFlight.delete(settled);
      if (this.#finished || this.#stop || !vm.alive) return;
      this.#pending.delete(deferred);
      const json = vm.newString(JSON.stringify(a));
      deferred.resolve(json);
      json.dispose();
      this.#drain();
    });
    this.#inFlight.add(settled);
    return deferred.handle;
  }

  /** One console.log line, within what the output limit leaves. */
  #log(lineH: QuickJSHandle) {
    const room = this.#limits.maxOutputChars - this.#output;
    const line = this.#stringWithin(lineH, room);
    if (line === undefined) return;
    if (line === 'too_long') return this.#halt(this.#limit.output());
    this.#output += line.length + 1;
    if (this.#output > this.#limits.maxOutputChars) return this.#halt(this.#limit.output());
    this.#logs.push(line);
    this.#host.log?.(line);
  }

  /** The bootstrap's report of the end: the script's answer (JSON text), or its error (a description). */
  #done(kindH: QuickJSHandle, textH: QuickJSHandle | undefined) {
    if (this.#result || this.#stop) return;
    const vm = this.#vm;
    const kind = vm.typeof(kindH) === 'string' ? vm.getString(kindH) : '';
    if (kind === 'ok') {
      const json = textH ? this.#stringWithin(textH, this.#limits.maxOutputChars - this.#output) : undefined;
      if (json === 'too_long') return this.#halt(this.#limit.output());
      this.#result = json === undefined ? { kind: 'ok' } : { kind: 'ok', json };
    } else {
      // Bounded by the bootstrap: an error's texts are cut there.
      const text = textH ? this.#stringWithin(textH, MAX_DESCRIPTION) : undefined;
      const readable = typeof text === 'string' && text !== 'too_long' ? text : undefined;
      this.#result =
        kind === 'not_json'
          ? { kind: 'not_json', why: readable ?? '(unreadable)' }
          : { kind: 'error', description: readable ?? '{"name":"Error","message":"(unreadable)"}' };
    }
    this.#answered.fire();
  }

  #fail(error: ScriptError): ScriptOutcome {
    return { ok: false, error, logs: this.#logs, calls: Math.min(this.#calls, this.#limits.maxCalls) };
  }

  /** Boots the VM, compiles and starts the script, and waits for its answer (or its stop). */
  async #evaluate(source: string): Promise<ScriptOutcome> {
    const vm = this.#vm;
    const booted = this.#inVm(() => vm.evalCode(BOOTSTRAP, 'bootstrap.js'));
    if (!booted || booted.error) {
      booted?.error?.dispose();
      return this.#fail(this.#stop ?? { name: 'ScriptEngineError', code: 'engine', message: 'The script engine could not start.' });
    }
    const boot = booted.value;
    // Read before any of the script's code exists: the bootstrap's own plain object.
    const runH = vm.getProp(boot, 'run');
    const describeH = vm.getProp(boot, 'describe');
    this.#held.push(boot, describeH, runH);
    // The body on the wrapper's first line: the script's line numbers are its own.
    const compiled = this.#inVm(() => vm.evalCode(`(async () => {${source}\n})`, 'script.js', { type: 'global', strict: false }));
    if (!compiled || this.#stop) {
      compiled?.dispose();
      return this.#fail(this.#stop ?? this.#limit.cpu());
    }
    if (compiled.error) {
      // A syntax error: described by the bootstrap, like any error (nothing of the script ran).
      const errH = compiled.error;
      const described = this.#inVm(() => vm.callFunction(describeH, vm.undefined, errH));
      errH.dispose();
      const text = described && !described.error ? this.#stringWithin(described.value, MAX_DESCRIPTION) : undefined;
      described?.dispose();
      return this.#fail(scriptError(typeof text === 'string' && text !== 'too_long' ? text : '{"name":"SyntaxError","message":"(unreadable)"}', this.#limit));
    }
    const main = compiled.value;
    const started = this.#inVm(() => vm.callFunction(runH, vm.undefined, main));
    main.dispose();
    started?.dispose();
    this.#drain();
    if (!this.#result && !this.#stop) await Promise.race([this.#answered.fired, this.#stopped.fired]);
    if (this.#stop) return this.#fail(this.#stop);
    const done = this.#result as Done;
    this.#finished = true;
    // Calls the script started without awaiting them still run to their end (a write is not cut
    // off midway), within the time limit; their answers go nowhere.
    if (this.#inFlight.size) await Promise.race([Promise.allSettled([...this.#inFlight]), this.#stopped.fired]);
    if (done.kind === 'error') return this.#fail(scriptError(done.description, this.#limit));
    if (done.kind === 'not_json') {
      return this.#fail({ name: 'TypeError', code: 'not_json', message: `The script's return value is not JSON: ${done.why}. Return plain data.` });
    }
    return { ok: true, result: done.json === undefined ? undefined : JSON.parse(done.json), logs: this.#logs, calls: this.#calls };
  }

  #dispose(): void {
    try {
      for (const h of this.#held.reverse()) h.dispose();
      for (const d of this.#pending) d.dispose();
      this.#vm.dispose();
      this.#runtime.dispose();
    } catch {
      // A script stopped midway leaves promise handles behind: the instance and its memory are dropped whole.
    }
  }
}

/** A promise and the function that settles it: an event awaited once. */
function signalled(): { fired: Promise<void>; fire(): void } {
  let fire: () => void = () => {};
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fired, fire };
}

/** An error the script threw (or a syntax error), from the bootstrap's description; the engine's own limits by their name. */
function scriptError(description: string, limit: ReturnType<typeof limitMessages>): ScriptError {
  let d: { name?: unknown; message?: unknown; stack?: unknown; fields?: unknown; plain?: unknown };
  try {
    d = JSON.parse(description) as typeof d;
  } catch {
    d = { name: 'Error', message: '(unreadable)' };
  }
  const name = typeof d.name === 'string' ? d.name : 'Error';
  const message = typeof d.message === 'string' ? d.message : '';
  // A script may throw anything: a string, a number, an object of its own.
  if (d.plain) return { name: 'Error', code: 'script_error', message };
  if (name === 'InternalError' && /out of memory/.test(message)) return limit.memory();
  if (name === 'InternalError' && /stack overflow/.test(message)) return limit.stack();
  const line = lineOf(d.stack);
  const fields = d.fields && typeof d.fields === 'object' && !Array.isArray(d.fields) ? (d.fields as Record<string, unknown>) : {};
  const { fileName: _f, lineNumber: _l, ...rest } = fields;
  return {
    ...rest,
    name,
    code: typeof rest.code === 'string' ? rest.code : 'script_error',
    message,
    ...(line !== undefined ? { line } : {}),
  };
}
