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
  /** Characters of output: the return value as JSON and the console.log lines together. */
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
    wall: () =>
      limitError(
        'time_limit',
        `The script ran longer than ${l.wallMs < 10_000 ? `${l.wallMs} ms` : `${Math.round(l.wallMs / 1000)} s`} (the time limit) and was stopped; an API call still in flight was cancelled (a write among them may or may not have been applied).`,
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
        `The script's output (its return value as JSON and its console.log lines) passed ${l.maxOutputChars} characters (the limit) and was stopped. Return a summary instead.`,
      ),
  };
}

// Runs once in each fresh context, before the script: builds `api` and `console` over the two host
// functions and hides them. Values cross as JSON text only, so no host object ever enters the VM.
const BOOTSTRAP = `(() => {
  const call = globalThis.__call, log = globalThis.__log, stringify = JSON.stringify, parse = JSON.parse;
  delete globalThis.__call; delete globalThis.__log;
  const text = (v) => { if (typeof v === 'string') return v; try { const s = stringify(v); return s === undefined ? String(v) : s; } catch { return String(v); } };
  const fns = Object.create(null);
  globalThis.api = new Proxy({}, { get(_, name) {
    if (typeof name !== 'string' || name === 'then') return undefined;
    return fns[name] ??= async (args) => {
      const r = parse(await call(name, args === undefined ? '{}' : (stringify(args) ?? 'null')));
      if (r.ok) return r.value;
      const e = new Error(r.error.message);
      for (const k in r.error) if (k !== 'message') e[k] = r.error[k];
      throw e;
    };
  } });
  const write = (...a) => { log(a.map(text).join(' ')); };
  globalThis.console = { log: write, info: write, warn: write, error: write, debug: write };
  globalThis.__run = (main) => main().then((v) => {
    if (v === undefined) return ['ok'];
    try { return ['ok', stringify(v)]; } catch (e) { return ['not_json', String(e && e.message || e)]; }
  });
})()`;

/** The first line of the script named in a QuickJS stack ("at f (script.js:3:5)"). */
function lineOf(stack: unknown): number | undefined {
  const m = typeof stack === 'string' ? /script\.js:(\d+)/.exec(stack) : null;
  return m ? Number(m[1]) : undefined;
}

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
  let onStop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    onStop = resolve;
  });
  // Aborts the API calls in flight when the script stops, whatever the reason.
  const calling = new AbortController();
  const halt = (why: ScriptError) => {
    stop ??= why;
    calling.abort(new Error(why.message));
    onStop();
  };

  let cpuUsed = 0;
  let sliceStart = 0;
  const runtime: QuickJSRuntime = module.newRuntime();
  runtime.setMaxStackSize(limits.stackBytes);
  host.started?.();
  const deadline = performance.now() + limits.wallMs;
  runtime.setInterruptHandler(() => {
    if (stop) return true;
    const now = performance.now();
    // The wall-time timer cannot fire while the script's code holds the thread: checked here too.
    if (now > deadline) halt(limit.wall());
    else if (sliceStart && cpuUsed + (now - sliceStart) > limits.cpuMs) halt(limit.cpu());
    return stop !== undefined;
  });
  const ctx: QuickJSContext = runtime.newContext();

  /** Runs VM code, counting its CPU time; a failure of the engine itself (an abort) ends the script. */
  const inVm = <T>(f: () => T): T | undefined => {
    sliceStart = performance.now();
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
      cpuUsed += performance.now() - sliceStart;
      sliceStart = 0;
    }
  };
  /** Runs the promise jobs a host answer made ready (the script's continuations). */
  const drain = () => {
    if (stop || finished) return;
    const r = inVm(() => runtime.executePendingJobs());
    // A job's own failure rejects the script's promise, which the driver reads; this is the engine's.
    r?.error?.dispose();
  };

  const onAbort = () => halt({ name: 'AbortError', code: 'cancelled', message: 'The tool call was cancelled; the script was stopped.' });
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => halt(limit.wall()), limits.wallMs);
  const inFlight = new Set<Promise<unknown>>();
  /** Promises the script awaits that no answer settled yet: freed with the context. */
  const pending = new Set<{ dispose(): void }>();

  const callFn = ctx.newFunction('__call', (nameH, argsH) => {
    const name = ctx.getString(nameH);
    if (stop) return { error: ctx.newError('stopped') };
    if (++calls > limits.maxCalls) {
      halt(limit.calls());
      return { error: ctx.newError(limit.calls().message) };
    }
    const deferred = ctx.newPromise();
    pending.add(deferred);
    const argsText = ctx.getString(argsH);
    const answer: Promise<CallAnswer> =
      argsText.length > MAX_ARGS_CHARS
        ? Promise.resolve({
            ok: false,
            error: {
              name: 'ValidationError',
              code: 'too_large',
              message: `api.${name}: arguments of ${argsText.length} characters; at most ${MAX_ARGS_CHARS}. Nothing was sent.`,
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
    const line = ctx.getString(lineH);
    output += line.length + 1;
    if (output > limits.maxOutputChars) halt(limit.output());
    else {
      logs.push(line);
      host.log?.(line);
    }
  });
  ctx.setProp(ctx.global, '__call', callFn);
  ctx.setProp(ctx.global, '__log', logFn);
  callFn.dispose();
  logFn.dispose();

  const fail = (error: ScriptError): ScriptOutcome => ({ ok: false, error, logs, calls: Math.min(calls, limits.maxCalls) });
  try {
    const boot = inVm(() => ctx.evalCode(BOOTSTRAP, 'bootstrap.js'));
    boot?.dispose();
    // The body on the wrapper's first line: the script's line numbers are its own.
    const started = inVm(() => ctx.evalCode(`__run(async () => {${source}\n})`, 'script.js', { type: 'global', strict: false }));
    if (!started || stop) return fail(stop ?? limit.cpu());
    if (started.error) {
      const e: unknown = ctx.dump(started.error);
      started.error.dispose();
      return fail(scriptError(e, limit));
    }
    const promise = started.value;
    const settled = ctx.resolvePromise(promise);
    promise.dispose();
    drain();
    await Promise.race([settled, stopped]);
    if (stop) {
      // The promise may still settle (its handles are freed with the runtime).
      void settled.then((r) => r.dispose()).catch(() => {});
      return fail(stop);
    }
    const r = await settled;
    if (r.error) {
      const e: unknown = ctx.dump(r.error);
      r.error.dispose();
      return fail(scriptError(e, limit));
    }
    const outcome = readResult(ctx, r.value, limits.maxOutputChars - output, limit.output);
    r.value.dispose();
    finished = true;
    // Calls the script started without awaiting them still run to their end (a write is not cut
    // off midway), within the time limit; their answers go nowhere.
    if (inFlight.size) await Promise.race([Promise.allSettled([...inFlight]), stopped]);
    if (!outcome.ok) return fail(outcome.error);
    return { ok: true, result: outcome.result, logs, calls };
  } finally {
    finished = true;
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    calling.abort(new Error('the script ended'));
    try {
      for (const d of pending) d.dispose();
      ctx.dispose();
      runtime.dispose();
    } catch {
      // A script stopped midway leaves promise handles behind: the instance and its memory are dropped whole.
    }
  }
}

/** An error the script threw (or a syntax error), as reported; the engine's own limits by their name. */
function scriptError(thrown: unknown, limit: ReturnType<typeof limitMessages>): ScriptError {
  // A script may throw anything: a string, a number, an object of its own.
  if (thrown === null || typeof thrown !== 'object') return { name: 'Error', code: 'script_error', message: String(thrown) };
  const e = thrown as { name?: unknown; message?: unknown; stack?: unknown; [k: string]: unknown };
  const message = String(e.message ?? '');
  if (e.name === 'InternalError' && /out of memory/.test(message)) return limit.memory();
  if (e.name === 'InternalError' && /stack overflow/.test(message)) return limit.stack();
  const line = lineOf(e.stack);
  const { name, message: _m, stack: _s, fileName: _f, lineNumber: _l, ...rest } = e;
  return {
    ...rest,
    name: String(name ?? 'Error'),
    code: typeof rest.code === 'string' ? rest.code : 'script_error',
    message,
    ...(line !== undefined ? { line } : {}),
  };
}

/** The script's answer: ['ok'] (nothing returned), ['ok', json] or ['not_json', why]. */
function readResult(
  ctx: QuickJSContext,
  value: QuickJSHandle,
  room: number,
  tooLong: () => ScriptError,
): { ok: true; result: unknown } | { ok: false; error: ScriptError } {
  const tag = ctx.getProp(value, 0);
  const body = ctx.getProp(value, 1);
  try {
    const kind = ctx.getString(tag);
    if (ctx.typeof(body) === 'undefined') return { ok: true, result: undefined };
    const lengthH = ctx.getProp(body, 'length');
    const length = ctx.getNumber(lengthH);
    lengthH.dispose();
    // Measured before it is copied out of the VM.
    if (kind === 'ok' && length > room) return { ok: false, error: tooLong() };
    const text = ctx.getString(body);
    if (kind !== 'ok') {
      return { ok: false, error: { name: 'TypeError', code: 'not_json', message: `The script's return value is not JSON: ${text}. Return plain data.` } };
    }
    return { ok: true, result: JSON.parse(text) };
  } finally {
    tag.dispose();
    body.dispose();
  }
}
