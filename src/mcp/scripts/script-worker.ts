// The worker thread a script runs in (see script-thread.ts): the isolate of script-engine.ts, off the
// server's thread. Its api calls and console.log lines go to the server's thread as messages; the
// server answers the calls and may end the worker at any moment (time limit, cancellation).
import { parentPort } from 'node:worker_threads';
import { type CallAnswer, runScript, type ScriptLimits } from './script-engine.js';

export type ToWorker = { type: 'run'; source: string; limits: ScriptLimits } | { type: 'answer'; id: number; answer: CallAnswer };
export type FromWorker =
  | { type: 'call'; id: number; name: string; args: unknown }
  | { type: 'started' }
  | { type: 'log'; line: string }
  | { type: 'done'; outcome: Awaited<ReturnType<typeof runScript>> };

const port = parentPort;
if (port) {
  let next = 0;
  const waiting = new Map<number, (a: CallAnswer) => void>();
  // The server's thread ends the worker to stop a script: nothing here is ever aborted.
  const never = new AbortController().signal;
  port.on('message', (m: ToWorker) => {
    if (m.type === 'answer') {
      waiting.get(m.id)?.(m.answer);
      waiting.delete(m.id);
      return;
    }
    const host = {
      call(name: string, args: unknown): Promise<CallAnswer> {
        const id = next++;
        return new Promise<CallAnswer>((resolve) => {
          waiting.set(id, resolve);
          port.postMessage({ type: 'call', id, name, args } satisfies FromWorker);
        });
      },
      log(line: string) {
        port.postMessage({ type: 'log', line } satisfies FromWorker);
      },
      started() {
        port.postMessage({ type: 'started' } satisfies FromWorker);
      },
    };
    void runScript(m.source, host, m.limits, never).then((outcome) => port.postMessage({ type: 'done', outcome } satisfies FromWorker));
  });
}
