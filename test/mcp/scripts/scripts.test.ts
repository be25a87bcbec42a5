// Code mode over real MCP transports: run_read_script and run_write_script on the default surface,
// the SDK's v2 client over Streamable HTTP, the sandbox over real HTTP. Each api call is held to the
// rules of a tool call (policy, validation, no retried write, outcome unknown), the isolate gives the
// script nothing of Node, and every limit ends the script with its own error while the server
// answers the next call. Limits are set small per stack; nothing here asserts on elapsed time.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens, WORKSPACE_CONTENT_NOTE } from '../../../src/mcp/render/index.js';
import { MAX_SCRIPTS_PER_PROCESS, processScriptSlots } from '../../../src/mcp/scripts/script-slots.js';
import { scriptWorkers } from '../../../src/mcp/scripts/script-thread.js';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { gate } from '../../helpers/reached.js';
import { type Stack, type StackOptions, startStack, textOf } from '../../helpers/stack.js';

const DEFAULT = { WORKSPACE_TOOLSETS: 'default' };
const UNKNOWN_FINDING = '01ZZZZZZZZZZZZZZZZZZZZZZZZ';

let sandbox: SandboxHandle;
let stack: Stack;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  stack = await startStack({ sandboxHandle: sandbox, env: DEFAULT });
});
afterAll(async () => {
  await stack.close();
  await sandbox.close();
});

const apiRequests = () => sandbox.requests().filter((r) => r.path.startsWith('/api/v1/'));

// The script workers of this file's servers, heard as each starts (all of them: none starts before
// this module runs), so that a test awaits their exits instead of counting them again and again.
const workerExited = new Set<() => void>();
process.on('worker', (worker) =>
  // Read once the server's own exit listener has run too (it counts the worker out).
  worker.once('exit', () =>
    queueMicrotask(() => {
      for (const tell of workerExited) tell();
    }),
  ),
);

/** Resolves once the server has at most `n` script workers, read again at each worker's exit. */
function scriptWorkersDownTo(n: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (scriptWorkers() > n) return;
      workerExited.delete(check);
      resolve();
    };
    workerExited.add(check);
    check();
  });
}

type Structured = {
  result?: unknown;
  logs: string[];
  api_calls: number;
  writes?: { operation: string; ok: boolean; code?: string }[];
  error?: Record<string, unknown>;
};
const structured = (r: CallToolResult) => r.structuredContent as Structured;

function read(script: string, on: Stack = stack) {
  return on.call('run_read_script', { script });
}

/** A stack of its own with smaller limits, closed after `f`. */
async function withLimits(limits: StackOptions['scriptLimits'], f: (s: Stack) => Promise<void>): Promise<void> {
  const s = await startStack({ sandboxHandle: sandbox, env: DEFAULT, scriptLimits: limits });
  try {
    await f(s);
  } finally {
    await s.close();
  }
}

/** The server still answers: a script and a direct tool call right after. */
async function stillAnswers(s: Stack): Promise<void> {
  const r = await read('return 1 + 1', s);
  expect(r.isError).toBeFalsy();
  expect(structured(r).result).toBe(2);
  const direct = await s.call('list_findings', { engagement: ENGAGEMENT_AP, limit: 1 });
  expect(direct.isError).toBeFalsy();
}

describe('what a script returns', () => {
  it("a read script's count of findings by review status equals list_findings'", async () => {
    // The direct tool, page by page.
    const direct: Record<string, number> = {};
    let cursor: string | null = null;
    do {
      const page = (await stack.call('list_findings', { engagement: ENGAGEMENT_AP, limit: 200, ...(cursor ? { cursor } : {}) })).structuredContent as {
        items: { review_status: string }[];
        next_cursor: string | null;
      };
      for (const f of page.items) direct[f.review_status] = (direct[f.review_status] ?? 0) + 1;
      cursor = page.next_cursor;
    } while (cursor);
    expect(Object.keys(direct).length).toBeGreaterThan(1);

    const r = await read(`
      const counts = {};
      let cursor;
      do {
        const page = await api.list_findings({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, limit: 200, cursor });
        for (const f of page.items) counts[f.review_status] = (counts[f.review_status] ?? 0) + 1;
        cursor = page.next_cursor;
      } while (cursor);
      console.log('statuses', Object.keys(counts).length);
      return counts;
    `);
    expect(r.isError).toBeFalsy();
    expect(structured(r).result).toEqual(direct);
    expect(structured(r).logs).toEqual([`statuses ${Object.keys(direct).length}`]);
    expect(structured(r).api_calls).toBeGreaterThan(0);
    // The model reads the return value, not the findings.
    expect(textOf(r)).toContain(JSON.stringify(direct));
  });

  it('a call resolves to what the operation tool returns as structuredContent, live-description operations included', async () => {
    const direct = await stack.call('get_analysis_summary', { engagement: ENGAGEMENT_AP });
    const r = await read(`return await api.get_analysis_summary({ engagement: ${JSON.stringify(ENGAGEMENT_AP)} });`);
    expect(structured(r).result).toEqual(direct.structuredContent);
    // list_engagements exists only in the sandbox's live description.
    const live = await read('const page = await api.list_engagements({}); return page.items.map((e) => e.id);');
    expect(live.isError).toBeFalsy();
    expect(structured(live).result).toContain(ENGAGEMENT_AP);
  });

  it('the text the model reads stays within the response budget; structuredContent.result keeps all of it', async () => {
    const small = await startStack({ sandboxHandle: sandbox, env: { ...DEFAULT, WORKSPACE_RESPONSE_BUDGET: '500' } });
    try {
      const r = await read("return Array.from({ length: 400 }, (_, i) => 'finding number ' + i);", small);
      expect(r.isError).toBeFalsy();
      expect(structured(r).result).toHaveLength(400);
      expect(estimateTokens(textOf(r))).toBeLessThan(600);
      expect(textOf(r)).toMatch(/Cut to stay within the response budget of 500 tokens; all of it is in structuredContent/);
    } finally {
      await small.close();
    }
  });

  it('carries the workspace-content note when a call quoted people, and only then', async () => {
    const quoting = await read(`return (await api.list_findings({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, limit: 1 })).items.length;`);
    expect(JSON.stringify(quoting.content)).toContain(WORKSPACE_CONTENT_NOTE);
    const plain = await read('return 1;');
    expect(JSON.stringify(plain.content)).not.toContain(WORKSPACE_CONTENT_NOTE);
  });

  it('a script that throws reports its error and the line it came from', async () => {
    const r = await read("const a = 1;\nthrow new TypeError('no such column');");
    expect(r.isError).toBe(true);
    expect(structured(r).error).toMatchObject({ name: 'TypeError', message: 'no such column', line: 2 });
    expect(textOf(r)).toMatch(/The script stopped: TypeError .*\(line 2\): no such column/);
  });
});

describe('every api call goes through the pipeline', () => {
  it('a write in run_read_script is refused before anything is sent', async () => {
    sandbox.clearRequests();
    const r = await read(`
      try {
        await api.review_finding({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, finding: ${JSON.stringify(UNKNOWN_FINDING)}, review_status: 'validated' });
        return 'sent';
      } catch (e) {
        return { name: e.name, code: e.code, message: e.message };
      }
    `);
    expect(structured(r).result).toMatchObject({ name: 'RefusedError', code: 'read_script' });
    expect((structured(r).result as { message: string }).message).toMatch(/run_write_script/);
    expect(apiRequests()).toHaveLength(0);
  });

  it('a bad id is refused by validation, naming the field, with no request', async () => {
    sandbox.clearRequests();
    const r = await read(`
      try {
        await api.get_finding({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, finding: '../../workspace' });
      } catch (e) {
        return { name: e.name, code: e.code, message: e.message };
      }
    `);
    const e = structured(r).result as { name: string; code: string; message: string };
    expect(e).toMatchObject({ name: 'ValidationError', code: 'invalid_arguments' });
    expect(e.message).toMatch(/finding: must be a 26-character ULID/);
    expect(apiRequests()).toHaveLength(0);
  });

  it('a destructive operation runs only when allow names it', async () => {
    sandbox.clearRequests();
    const script = `
      try {
        await api.delete_finding({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, finding: ${JSON.stringify(UNKNOWN_FINDING)} });
        return 'deleted';
      } catch (e) {
        return { name: e.name, code: e.code, status: e.status };
      }
    `;
    const refused = await stack.call('run_write_script', { script });
    expect(structured(refused).result).toMatchObject({ name: 'RefusedError', code: 'not_allowed' });
    expect(apiRequests()).toHaveLength(0);

    const allowed = await stack.call('run_write_script', { script, allow: ['delete_finding'] });
    // Sent, and the workspace answered: that finding does not exist.
    expect(structured(allowed).result).toMatchObject({ name: 'ApiError', status: 404 });
    expect(apiRequests().filter((q) => q.method === 'DELETE')).toHaveLength(1);
  });

  it('allow naming no operation is refused before the script runs', async () => {
    sandbox.clearRequests();
    const r = await stack.call('run_write_script', { script: 'return await api.get_workspace({})', allow: ['drop_everything'] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/allow: names operations/);
    expect(apiRequests()).toHaveLength(0);
  });

  it('a write whose answer was lost reaches the script as OutcomeUnknownError, sent once', async () => {
    sandbox.clearRequests();
    sandbox.admin.fault({ count: 1, reset: true, after_handler: true, match: { method: 'POST', path: '/engagements/{engagement}/findings' } });
    const r = await stack.call('run_write_script', {
      script: `
        try {
          await api.create_finding({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, type: 'risk', statement: 'Code mode: a lost answer' });
          return 'created';
        } catch (e) {
          return { name: e.name, code: e.code, operation: e.operation };
        }
      `,
    });
    expect(structured(r).result).toEqual({ name: 'OutcomeUnknownError', code: 'outcome_unknown', operation: 'create_finding' });
    // The answer says which writes were made, and how they ended.
    expect(textOf(r)).toMatch(/Writes made: create_finding \(outcome unknown\)/);
    expect(structured(r).writes).toEqual([{ operation: 'create_finding', ok: false, code: 'outcome_unknown' }]);
    expect(apiRequests().filter((q) => q.method === 'POST')).toHaveLength(1);
  });

  it('each API call reports progress to a client that sent a progress token', async () => {
    const seen: number[] = [];
    const r = await stack.client.callTool(
      {
        name: 'run_read_script',
        arguments: {
          script: `for (let i = 0; i < 3; i++) await api.list_findings({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, limit: 1 }); return 'done';`,
        },
      },
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(r.isError).toBeFalsy();
    expect(seen).toEqual([1, 2, 3]);
  });
});

describe('the policy', () => {
  it('read consent lists run_read_script and not run_write_script, and refuses the write script', async () => {
    const rs = await startStack({ sandboxHandle: sandbox, token: 'read', grantedScope: 'read', env: DEFAULT });
    try {
      const names = (await rs.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('run_read_script');
      expect(names).not.toContain('run_write_script');
      sandbox.clearRequests();
      const w = await rs.call('run_write_script', { script: 'return 1' });
      expect(w.isError).toBe(true);
      expect(apiRequests()).toHaveLength(0);
    } finally {
      await rs.close();
    }
  });

  it('run_read_script is annotated read-only, run_write_script destructive, both with an output schema', async () => {
    const tools = (await stack.client.listTools()).tools;
    const r = tools.find((t) => t.name === 'run_read_script');
    const w = tools.find((t) => t.name === 'run_write_script');
    expect(r?.annotations?.readOnlyHint).toBe(true);
    expect(w?.annotations?.destructiveHint).toBe(true);
    expect(r?.outputSchema?.required).toEqual(['logs', 'api_calls']);
    expect(Object.keys(r?.inputSchema.properties ?? {})).toEqual(['script']);
    expect(Object.keys(w?.inputSchema.properties ?? {})).toEqual(['script', 'allow']);
  });

  it("run_read_script takes the write script's shape with an empty allow, and refuses a non-empty one", async () => {
    const empty = await stack.call('run_read_script', { script: 'return 3', allow: [] });
    expect(structured(empty).result).toBe(3);
    const named = await stack.call('run_read_script', { script: 'return 3', allow: ['delete_finding'] });
    expect(named.isError).toBe(true);
    expect(textOf(named)).toMatch(/allow/);
  });
});

/** The answer's size as the client gets it: its text, and its structuredContent as JSON. */
function answerSize(r: CallToolResult): { text: number; structured: number } {
  return { text: textOf(r).length, structured: JSON.stringify(r.structuredContent ?? {}).length };
}
const OUTPUT_LIMIT = 200_000;

describe('limits on every path', () => {
  it('an error with a 12 MB message is answered within the output limit, its message cut saying so', async () => {
    const r = await read("throw new Error('x'.repeat(12_000_000));");
    expect(r.isError).toBe(true);
    expect(answerSize(r).structured).toBeLessThanOrEqual(OUTPUT_LIMIT);
    expect(answerSize(r).text).toBeLessThanOrEqual(OUTPUT_LIMIT);
    expect(String(structured(r).error?.message)).toMatch(/\.\.\. \(cut: 12000000 characters\)$/);
  });

  it('a return value whose toJSON throws a 12 MB message is answered within the output limit', async () => {
    const r = await read("return { toJSON() { throw new Error('y'.repeat(12_000_000)); } };");
    expect(r.isError).toBe(true);
    expect(structured(r).error).toMatchObject({ code: 'not_json' });
    expect(answerSize(r).structured).toBeLessThanOrEqual(OUTPUT_LIMIT);
    expect(answerSize(r).text).toBeLessThanOrEqual(OUTPUT_LIMIT);
  });

  it('a value lying about its length through a replaced Promise.prototype.then changes nothing the host reads', async () => {
    const r = await read(`
      const big = { length: 1, toString() { return '"' + 'z'.repeat(12_000_000) + '"'; } };
      Promise.prototype.then = function (ok) { return ok(['ok', big]); };
      return 'small';
    `);
    expect(answerSize(r).structured).toBeLessThanOrEqual(OUTPUT_LIMIT);
    expect(answerSize(r).text).toBeLessThanOrEqual(OUTPUT_LIMIT);
    expect(structured(r).result).toBe('small');
  });

  it('a replaced Promise.prototype.then that never ends is not run by the host: answered at once, not at the time limit', async () => {
    await withLimits({ cpuMs: 200, wallMs: 30_000 }, async (s) => {
      const r = await read("Promise.prototype.then = function () { for (;;) {} }; return 'done';", s);
      expect(structured(r).error?.code).not.toBe('time_limit');
      expect(structured(r).result).toBe('done');
    });
  });

  it("the getters and toJSON of a script's error and answer count as its CPU time: an endless one is stopped at the CPU limit", async () => {
    await withLimits({ cpuMs: 200, wallMs: 30_000 }, async (s) => {
      const getter = await read('throw { get message() { for (;;) {} } };', s);
      expect(structured(getter).error).toMatchObject({ name: 'ScriptLimitError', code: 'cpu_limit' });
      const toJson = await read('throw { toJSON() { for (;;) {} }, name: "E" };', s);
      expect(structured(toJson).error?.code).not.toBe('time_limit');
      const answer = await read('return { toJSON() { for (;;) {} } };', s);
      expect(structured(answer).error).toMatchObject({ name: 'ScriptLimitError', code: 'cpu_limit' });
      await stillAnswers(s);
    });
  });

  it('an answer whose JSON escapes past the limit (logs of quotes) is answered within it', async () => {
    await withLimits({ maxOutputChars: 10_000 }, async (s) => {
      const r = await read("console.log('\"'.repeat(9_000)); return 1;", s);
      expect(answerSize(r).structured).toBeLessThanOrEqual(10_000);
      expect(answerSize(r).text).toBeLessThanOrEqual(10_000);
      expect(structured(r).error).toMatchObject({ code: 'output_limit' });
    });
  });
});

describe('the isolate', () => {
  it('has no process, require, fetch, timers or modules', async () => {
    const r = await read(`
      let imported;
      try { await import('node:fs'); imported = 'loaded'; } catch (e) { imported = e.name; }
      return { process: typeof process, require: typeof require, fetch: typeof fetch, setTimeout: typeof setTimeout, WebAssembly: typeof WebAssembly, imported };
    `);
    expect(structured(r).result).toEqual({
      process: 'undefined',
      require: 'undefined',
      fetch: 'undefined',
      setTimeout: 'undefined',
      WebAssembly: 'undefined',
      imported: 'ReferenceError',
    });
  });

  it('an endless loop is stopped at the CPU limit, and the server answers the next call', async () => {
    await withLimits({ cpuMs: 200 }, async (s) => {
      const r = await read('while (true) {}', s);
      expect(r.isError).toBe(true);
      expect(structured(r).error).toMatchObject({ name: 'ScriptLimitError', code: 'cpu_limit' });
      expect(textOf(r)).toMatch(/CPU limit/);
      // Catching does not help: the stop is not an exception the script can swallow.
      const caught = await read('try { while (true) {} } catch (e) { return "caught"; }', s);
      expect(structured(caught).error).toMatchObject({ code: 'cpu_limit' });
      await stillAnswers(s);
    });
  });

  it('a memory bomb is stopped at the memory limit, and the server answers the next call', async () => {
    await withLimits({ memoryBytes: 24 * 1024 * 1024, cpuMs: 20_000 }, async (s) => {
      const r = await read("const a = []; while (true) a.push('x'.repeat(100000) + a.length);", s);
      expect(r.isError).toBe(true);
      expect(structured(r).error).toMatchObject({ name: 'ScriptLimitError', code: 'memory_limit' });
      expect(textOf(r)).toMatch(/out of memory \(the limit is 24 MiB\)/);
      await stillAnswers(s);
    });
  });

  it('1,000 calls are stopped at the call limit before the next request, and the server answers the next call', async () => {
    await withLimits({ maxCalls: 10 }, async (s) => {
      sandbox.clearRequests();
      const r = await read(`for (let i = 0; i < 1000; i++) await api.list_findings({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, limit: 1 });`, s);
      expect(r.isError).toBe(true);
      expect(structured(r).error).toMatchObject({ name: 'ScriptLimitError', code: 'call_limit' });
      expect(structured(r).api_calls).toBe(10);
      expect(apiRequests()).toHaveLength(10);
      await stillAnswers(s);
    });
  });

  it('a huge output is stopped at the output limit, returned or logged, and the server answers the next call', async () => {
    await withLimits({ maxOutputChars: 10_000 }, async (s) => {
      const returned = await read("return 'x'.repeat(1000000);", s);
      expect(returned.isError).toBe(true);
      expect(structured(returned).error).toMatchObject({ code: 'output_limit' });
      const logged = await read("for (;;) console.log('a line of output');", s);
      expect(structured(logged).error).toMatchObject({ code: 'output_limit' });
      // What was logged before the stop stays within the limit (each line counted with its newline).
      expect(structured(logged).logs.reduce((n, l) => n + l.length + 1, 0)).toBeLessThanOrEqual(10_000);
      await stillAnswers(s);
    });
  });

  it('a deep recursion is stopped at the stack limit', async () => {
    const r = await read('function f(n) { return f(n + 1) + 1; } return f(0);');
    expect(structured(r).error).toMatchObject({ name: 'ScriptLimitError', code: 'stack_limit' });
    await stillAnswers(stack);
  });

  it('a script still waiting at the time limit is stopped, its call cancelled', async () => {
    await withLimits({ wallMs: 300 }, async (s) => {
      // The call is held at the workspace until the server hangs up: the time limit must end it.
      sandbox.clearRequests();
      sandbox.admin.fault({ count: 1, before: ({ hungUp }) => hungUp, match: { method: 'GET', path: '/engagements/{engagement}/findings' } });
      const r = await read(`await api.list_findings({ engagement: ${JSON.stringify(ENGAGEMENT_AP)} }); return 'answered';`, s);
      expect(r.isError).toBe(true);
      expect(structured(r).error).toMatchObject({ name: 'ScriptLimitError', code: 'time_limit' });
      // It says what the stop cancelled: a read, no write.
      expect((structured(r).error as { message: string }).message).toMatch(/the call still in flight \(a read\) was cancelled; no write was in flight\.$/);
      // Cancelled for real: the server hung up on it.
      const call = await sandbox.waitForRequest((q) => q.template === '/engagements/{engagement}/findings', 10_000, 'call hung up on');
      expect(call.client_closed).toBe(true);
      await stillAnswers(s);
    });
  });

  it("a script's call waits for the rate budget within the script's time, even when its client gave a progress token", async () => {
    // Two requests a minute: the script's third call would wait about a minute, longer than the
    // script may run (5 s) though well within the bound of a call with progress (5 minutes). It is
    // refused at once, saying when, and the script goes on with that answer.
    const s = await startStack({ sandboxHandle: sandbox, env: { ...DEFAULT, WORKSPACE_RATE_LIMIT: '2/60' }, scriptLimits: { wallMs: 5_000 } });
    try {
      const script = `const got = []; for (let i = 0; i < 3; i++) { try { await api.get_workspace({}); got.push('ok'); } catch (e) { got.push(e.code); } } return got;`;
      let progress = 0;
      const r = (await s.client.callTool({ name: 'run_read_script', arguments: { script } }, { onprogress: () => progress++ })) as CallToolResult;
      expect(r.isError, textOf(r)).toBeFalsy();
      expect(structured(r).result).toEqual(['ok', 'ok', 'rate_budget_exhausted']);
      expect(progress).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });

  it('while a script computes, the server answers other calls, scripts too', async () => {
    await withLimits({ cpuMs: 600_000, wallMs: 600_000 }, async (s) => {
      const controller = new AbortController();
      let loopEnded = false;
      const loop = s.client.callTool({ name: 'run_read_script', arguments: { script: 'for (;;) {}' } }, { signal: controller.signal }).finally(() => {
        loopEnded = true;
      });
      loop.catch(() => {});
      // Answered while the loop still holds its own thread.
      await stillAnswers(s);
      expect(loopEnded).toBe(false);
      controller.abort('user cancelled');
      await expect(loop).rejects.toThrow();
    });
  });

  it('cancelling a script that loops in its own code ends it at once: the next call is answered', async () => {
    await withLimits({ cpuMs: 600_000, wallMs: 600_000 }, async (s) => {
      const controller = new AbortController();
      const call = s.client.callTool({ name: 'run_read_script', arguments: { script: 'while (true) {}' } }, { signal: controller.signal });
      // The script is running (its worker took it) before the cancel.
      await stillAnswers(s);
      controller.abort('user cancelled');
      await expect(call).rejects.toThrow();
      await stillAnswers(s);
      // Its worker is gone: only the idle one is left, while the script alone could have run ten minutes.
      await scriptWorkersDownTo(1);
    });
  });

  it('cancelling the tool call stops the script and its API calls', async () => {
    sandbox.clearRequests();
    // The script's third call is held at the workspace: the tool call is cancelled while it waits.
    const third = gate();
    let calls = 0;
    sandbox.admin.fault({
      count: 100,
      match: { method: 'GET', path: '/engagements/{engagement}/findings' },
      before: () => (++calls < 3 ? undefined : third.before()),
    });
    const controller = new AbortController();
    const call = stack.client.callTool(
      {
        name: 'run_read_script',
        arguments: { script: `for (;;) await api.list_findings({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, limit: 1 });` },
      },
      { signal: controller.signal },
    );
    await third.held(1);
    controller.abort('user cancelled');
    await expect(call).rejects.toThrow();
    // The script's worker is gone (only the idle one is left): no call can come from it any more.
    await scriptWorkersDownTo(1);
    third.open();
    // Logged once answered, to no one.
    await sandbox.waitForRequest(() => apiRequests().length >= 3, 10_000, 'third call');
    // The requests stopped: the three it made, the last cancelled while it waited.
    expect(apiRequests().map((q) => q.template)).toEqual(Array(3).fill('/engagements/{engagement}/findings'));
    sandbox.admin.clearFaults();
    await stillAnswers(stack);
  });

  it('past the cap of scripts at once in a process, a script is refused at once, retryable, with nothing sent; the running ones answer', async () => {
    // Each script running holds a worker and up to its memory limit: the process runs so many at once.
    const inCall = gate();
    sandbox.admin.fault({ count: MAX_SCRIPTS_PER_PROCESS, match: { method: 'GET', path: '/engagements/{engagement}/findings' }, before: inCall.before });
    const script = `const { items } = await api.list_findings({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, limit: 1 }); return items.length;`;
    const running = Array.from({ length: MAX_SCRIPTS_PER_PROCESS }, () => read(script));
    await inCall.held(MAX_SCRIPTS_PER_PROCESS);
    expect(processScriptSlots.running).toBe(MAX_SCRIPTS_PER_PROCESS);
    sandbox.clearRequests();
    const workers = scriptWorkers();
    const refused = await read(`return await api.get_engagement({ engagement: ${JSON.stringify(ENGAGEMENT_AP)} });`);
    expect(refused.isError).toBe(true);
    expect(structured(refused)).toMatchObject({ error: { name: 'ScriptLimitError', code: 'server_busy', retryable: true }, api_calls: 0 });
    expect(textOf(refused)).toMatch(/already running \d+ scripts.*Nothing was sent.*Call again/);
    expect(apiRequests()).toEqual([]);
    // No worker was taken for it.
    expect(scriptWorkers()).toBe(workers);
    // A direct tool call is not held up.
    const direct = await stack.call('get_engagement', { engagement: ENGAGEMENT_AP });
    expect(direct.isError).toBeFalsy();
    inCall.open();
    for (const r of await Promise.all(running)) expect(r.isError, textOf(r)).toBeFalsy();
    expect(processScriptSlots.running).toBe(0);
    await stillAnswers(stack);
  }, 180_000);
});
