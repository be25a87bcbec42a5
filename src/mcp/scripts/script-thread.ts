// A script runs on a worker thread (script-worker.ts), not the server's: while its own code computes,
// the server goes on answering everyone else, and a time limit or a cancellation ends it at once,
// even inside an endless loop, by ending the worker. Its api calls come back here as messages and are
// answered by the host (the tool pipeline), on the server's thread, where the rate budget lives.
// One idle worker is kept warm between scripts (each script still gets a fresh isolate and memory).
import { Worker } from 'node:worker_threads';
import { type CallAnswer, limitMessages, type ScriptError, type ScriptHost, type ScriptLimits, type ScriptOutcome } from './script-engine.js';
import type { FromWorker, ToWorker } from './script-worker.js';

/** The longest a worker may take to start (load the engine) before its script's time counts. */
const WORKER_START_MS = 30_000;

let idle: Worker | undefined;
/** Workers not yet exited: busy ones and the idle one. */
const live = new Set<Worker>();

/** How many script workers this process has (at most the idle one once no script runs): for tests. */
export function scriptWorkers(): number {
  return live.size;
}

function spawnWorker(): Worker {
  // From source (tsx, vitest) the worker is TypeScript too, loaded the same way.
  const fromSource = import.meta.url.endsWith('.ts');
  const worker = new Worker(new URL(`./script-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url), {
    execArgv: fromSource ? ['--import', 'tsx'] : [],
    // Its output is its own, never the process's: in stdio mode stdout carries the protocol only.
    // Nothing in the worker writes (the engine's print is silenced) and the streams are not read:
    // reading them would keep the process alive for as long as the idle worker lives.
    stdout: true,
    stderr: true,
    // The host side of the worker holds only messages in transit; the script's memory is the isolate's.
    resourceLimits: { maxOldGenerationSizeMb: 256 },
  });
  live.add(worker);
  worker.once('exit', () => live.delete(worker));
  // An idle worker does not keep the process alive (stdio mode ends on EOF).
  worker.unref();
  return worker;
}

/** Runs `source` on a worker thread; the same contract as script-engine.ts's runScript. */
export function runScriptInWorker(source: string, host: ScriptHost, limits: ScriptLimits, signal: AbortSignal): Promise<ScriptOutcome> {
  const limit = limitMessages(limits);
  const worker = idle ?? spawnWorker();
  idle = undefined;
  const logs: string[] = [];
  let calls = 0;
  // The calls in flight, cancelled when the script ends before they do.
  const calling = new AbortController();

  return new Promise<ScriptOutcome>((resolve) => {
    let settled = false;
    const finish = (ended: ScriptOutcome, reusable: boolean) => {
      if (settled) return;
      settled = true;
      // Stopped at the time limit (here or by the worker's own clock): what it cancelled, told as it stands now.
      const outcome = !ended.ok && ended.error.code === 'time_limit' ? { ...ended, error: limit.wall(host.inFlight?.()) } : ended;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      calling.abort(new Error('the script ended'));
      if (reusable && !idle) idle = worker;
      else void worker.terminate();
      resolve(outcome);
    };
    const stop = (error: ScriptError) => finish({ ok: false, error, logs, calls: Math.min(calls, limits.maxCalls) }, false);
    const onMessage = (m: FromWorker) => {
      if (m.type === 'started') {
        // The script's time counts from here: a worker's start (loading the engine) is not the script's.
        clearTimeout(timer);
        timer = setTimeout(() => stop(limit.wall()), limits.wallMs);
      } else if (m.type === 'log') logs.push(m.line);
      else if (m.type === 'done') finish(m.outcome, true);
      else {
        calls++;
        void host
          .call(m.name, m.args, calling.signal)
          .catch(
            (err: unknown): CallAnswer => ({ ok: false, error: { name: 'Error', code: 'failed', message: err instanceof Error ? err.message : String(err) } }),
          )
          .then((answer) => {
            if (!settled) worker.postMessage({ type: 'answer', id: m.id, answer } satisfies ToWorker);
          });
      }
    };
    const onError = (err: Error) =>
      stop(/memory/i.test(err.message) ? limit.memory() : { name: 'ScriptEngineError', code: 'engine', message: `The script engine stopped: ${err.message}` });
    const onExit = () => stop({ name: 'ScriptEngineError', code: 'engine', message: 'The script engine stopped unexpectedly.' });
    const onAbort = () => stop({ name: 'AbortError', code: 'cancelled', message: 'The tool call was cancelled; the script was stopped.' });
    // Here, not only in the isolate: a script whose own code holds its thread is ended all the same.
    // Until the worker says it started, the limit allows for its start as well.
    let timer = setTimeout(() => stop(limit.wall()), limits.wallMs + WORKER_START_MS);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    worker.postMessage({ type: 'run', source, limits } satisfies ToWorker);
  });
}
