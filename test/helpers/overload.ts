// An overload paced by what the workspace serves, not by a clock: a backlog of calls is asked for at
// once, and one more each time the sandbox logs a request, so from the first send to the last there
// is always the same amount more to send than the budget lets through, however fast or loaded the
// machine. Each call then waits about as many windows as the backlog holds budgets: a backlog of a
// few budgets keeps every wait well within the bound a call may wait for the budget.
import type { RequestLogEntry, SandboxHandle } from '../../src/sandbox/index.js';

/**
 * Asks for `total` calls, `ask(i)` for i from 0: `backlog` at once, then one more each time the
 * sandbox logs a request (one not in its log already), until all are asked for. Resolves then,
 * with the calls still under way.
 */
export async function overload(sandbox: SandboxHandle, total: number, backlog: number, ask: (i: number) => void): Promise<void> {
  const counted = new Set<RequestLogEntry>(sandbox.requests());
  let asked = 0;
  for (; asked < Math.min(backlog, total); asked++) ask(asked);
  while (asked < total) {
    counted.add(await sandbox.waitForRequest((e) => !counted.has(e), 60_000, 'a request of the overload'));
    ask(asked++);
  }
}
