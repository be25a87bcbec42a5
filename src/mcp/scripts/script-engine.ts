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
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';

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

/**
 * Runs `source` (an async function body) with `api` and `console` and nothing else, within
 * `limits`. `signal` is the tool call's cancellation: it stops the script and its API calls.
 */
export async function runScript(source: string, host: ScriptHost, limits: ScriptLimits, signal: AbortSignal): Promise<ScriptOutcome> {
  const qjs = await loadEngine();
  const limit = limitMessages(limits);
  const pages = Math.max(MIN_PAGES, Math.ceil(limits.memoryBytes / PAGE));
  const wasmMemory = new Memory({ initial: MIN_PAGES, maximum: pages });
  // Nothing of the engine may print: stdout carries the protocol in stdio mode.
  // (print and printErr are Emscripten's own options; the loader's type leaves them out.)
  const quiet = { print: () => {}, printErr: () => {} } as unknown as EmscriptenOptions;
  const module = await qjs.newQuickJSWASMModule(qjs.newVariant(qjs.RELEASE_SYNC, { wasmMemory, emscriptenModule: quiet }));

  const logs: string[] = [];
  let output = 0;
  let calls = 0;
  let stop: ScriptError | undefined;
  let finished = false;
  let result: Done | undefined;
  let onStop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    onStop = resolve;
  });
  let onDone: () => void = () => {};
  const answered = new Promise<void>((resolve) => {
    onDone = resolve;
  });
  // Aborts the API calls in flight when the script stops, whatever the reason.
  const calling = new AbortController();
  const halt = (why: ScriptError) => {
    stop ??= why;
    calling.abort(new Error(why.message));
    onStop();
  };

  // CPU time is the time spent inside the VM, on every entry the host makes (the script's start, each
  // round of promise jobs after an answer): the script's own code and whatever of it those entries
  // run (getters, toJSON, a then the script replaced). The interrupt handler stops the VM once the
  // time inside passes the budget; outside the VM no script code can run.
  let cpuUsed = 0;
  let enteredAt = 0;
  let depth = 0;
  const runtime: QuickJSRuntime = module.newRuntime();
  runtime.setMaxStackSize(limits.stackBytes);
  host.started?.();
  const deadline = performance.now() + limits.wallMs;
  runtime.setInterruptHandler(() => {
    if (stop) return true;
    const now = performance.now();
    // The wall-time timer cannot fire while the script's code holds the thread: checked here too.
    if (now > deadline) halt(limit.wall());
    else if (depth > 0 && cpuUsed + (now - enteredAt) > limits.cpuMs) halt(limit.cpu());
    return stop !== undefined;
  });
  const ctx: QuickJSContext = runtime.newContext();

  /** Runs VM code, counting its time; a failure of the engine itself (an abort) ends the script. */
  const inVm = <T>(f: () => T): T | undefined => {
    if (depth++ === 0) enteredAt = performance.now();
    try {
      return f();
    } catch (err) {
      const why = String(err);
      halt(
        /memory|OOM/i.test(why)
          ? limit.memory()
          : /call stack/i.test(why)
            ? limit.stack()
            : { name: 'ScriptEngineError', code: 'engine', message: `The script engine stopped: ${why}` },
      );
      return undefined;
    } finally {
      if (--depth === 0) cpuUsed += performance.now() - enteredAt;
    }
  };
  /** Runs the promise jobs a host answer made ready (the script's continuations). */
  const drain = () => {
    if (stop || finished) return;
    const r = inVm(() => runtime.executePendingJobs());
    // A job's own failure rejects the script's promise, which the bootstrap reports; this is the engine's.
    r?.error?.dispose();
  };
  /**
   * A string the VM handed over, copied out only when it is one and within `max` characters (its
   * length read first: a string primitive's length is its own, whatever the script replaced).
   */
  const stringWithin = (h: QuickJSHandle, max: number): string | undefined | 'too_long' => {
    if (ctx.typeof(h) !== 'string') return undefined;
    const lengthH = ctx.getProp(h, 'length');
    const length = ctx.getNumber(lengthH);
    lengthH.dispose();
    return length > max ? 'too_long' : ctx.getString(h);
  };

  const onAbort = () => halt({ name: 'AbortError', code: 'cancelled', message: 'The tool call was cancelled; the script was stopped.' });
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => halt(limit.wall()), limits.wallMs);
  const inFlight = new Set<Promise<unknown>>();
  /** Promises the script awaits that no answer settled yet: freed with the context. */
  const pending = new Set<{ dispose(): void }>();

  const callFn = ctx.newFunction('__call', (nameH, argsH) => {
    if (stop) return { error: ctx.newError('stopped') };
    if (++calls > limits.maxCalls) {
      halt(limit.calls());
      return { error: ctx.newError(limit.calls().message) };
    }
    // Both are strings the bootstrap built (a name it checked, the arguments' JSON).
    const name = stringWithin(nameH, 200);
    const argsText = stringWithin(argsH, MAX_ARGS_CHARS);
    const deferred = ctx.newPromise();
    pending.add(deferred);
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
          : host.call(name, JSON.parse(argsText), calling.signal).catch(
              (err: unknown): CallAnswer => ({
                ok: false,
                error: { name: 'Error', code: 'failed', message: err instanceof Error ? err.message : String(err) },
              }),
            );
    const settled = answer.then((a) => {
      inFlight.delete(settled);
      if (finished || stop || !ctx.alive) return;
      pending.delete(deferred);
      const json = ctx.newString(JSON.stringify(a));
      deferred.resolve(json);
      json.dispose();
      drain();
    });
    inFlight.add(settled);
    return deferred.handle;
  });
  const logFn = ctx.newFunction('__log', (lineH) => {
    const room = limits.maxOutputChars - output;
    const line = stringWithin(lineH, room);
    if (line === undefined) return;
    if (line === 'too_long') return halt(limit.output());
    output += line.length + 1;
    if (output > limits.maxOutputChars) return halt(limit.output());
    logs.push(line);
    host.log?.(line);
  });
  const doneFn = ctx.newFunction('__done', (kindH, textH) => {
    if (result || stop) return;
    const kind = ctx.typeof(kindH) === 'string' ? ctx.getString(kindH) : '';
    if (kind === 'ok') {
      const json = textH ? stringWithin(textH, limits.maxOutputChars - output) : undefined;
      if (json === 'too_long') return halt(limit.output());
      result = json === undefined ? { kind: 'ok' } : { kind: 'ok', json };
    } else {
      // Bounded by the bootstrap: an error's texts are cut there.
      const text = textH ? stringWithin(textH, 4 * MAX_ERROR_TEXT + MAX_ERROR_FIELDS + 1_000) : undefined;
      const readable = typeof text === 'string' && text !== 'too_long' ? text : undefined;
      result =
        kind === 'not_json'
          ? { kind: 'not_json', why: readable ?? '(unreadable)' }
          : { kind: 'error', description: readable ?? '{"name":"Error","message":"(unreadable)"}' };
    }
    onDone();
  });
  ctx.setProp(ctx.global, '__call', callFn);
  ctx.setProp(ctx.global, '__log', logFn);
  ctx.setProp(ctx.global, '__done', doneFn);
  callFn.dispose();
  logFn.dispose();
  doneFn.dispose();

  const fail = (error: ScriptError): ScriptOutcome => ({ ok: false, error, logs, calls: Math.min(calls, limits.maxCalls) });
  let boot: QuickJSHandle | undefined;
  let runH: QuickJSHandle | undefined;
  let describeH: QuickJSHandle | undefined;
  try {
    const booted = inVm(() => ctx.evalCode(BOOTSTRAP, 'bootstrap.js'));
    if (!booted || booted.error) {
      booted?.error?.dispose();
      return fail(stop ?? { name: 'ScriptEngineError', code: 'engine', message: 'The script engine could not start.' });
    }
    boot = booted.value;
    // Read before any of the script's code exists: the bootstrap's own plain object.
    runH = ctx.getProp(boot, 'run');
    describeH = ctx.getProp(boot, 'describe');
    // The body on the wrapper's first line: the script's line numbers are its own.
    const compiled = inVm(() => ctx.evalCode(`(async () => {${source}\n})`, 'script.js', { type: 'global', strict: false }));
    if (!compiled || stop) {
      compiled?.dispose();
      return fail(stop ?? limit.cpu());
    }
    if (compiled.error) {
      // A syntax error: described by the bootstrap, like any error (nothing of the script ran).
      const errH = compiled.error;
      const described = inVm(() => ctx.callFunction(describeH as QuickJSHandle, ctx.undefined, errH));
      errH.dispose();
      const text = described && !described.error ? stringWithin(described.value, 4 * MAX_ERROR_TEXT + MAX_ERROR_FIELDS + 1_000) : undefined;
      described?.dispose();
      return fail(scriptError(typeof text === 'string' && text !== 'too_long' ? text : '{"name":"SyntaxError","message":"(unreadable)"}', limit));
    }
    const main = compiled.value;
    const started = inVm(() => ctx.callFunction(runH as QuickJSHandle, ctx.undefined, main));
    main.dispose();
    started?.dispose();
    drain();
    if (!result && !stop) await Promise.race([answered, stopped]);
    if (stop) return fail(stop);
    const done = result as Done;
    finished = true;
    // Calls the script started without awaiting them still run to their end (a write is not cut
    // off midway), within the time limit; their answers go nowhere.
    if (inFlight.size) await Promise.race([Promise.allSettled([...inFlight]), stopped]);
    if (done.kind === 'error') return fail(scriptError(done.description, limit));
    if (done.kind === 'not_json') {
      return fail({ name: 'TypeError', code: 'not_json', message: `The script's return value is not JSON: ${done.why}. Return plain data.` });
    }
    return { ok: true, result: done.json === undefined ? undefined : JSON.parse(done.json), logs, calls };
  } finally {
    finished = true;
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    calling.abort(new Error('the script ended'));
    try {
      runH?.dispose();
      describeH?.dispose();
      boot?.dispose();
      for (const d of pending) d.dispose();
      ctx.dispose();
      runtime.dispose();
    } catch {
      // A script stopped midway leaves promise handles behind: the instance and its memory are dropped whole.
    }
  }
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
