// The fault matrix (FAULTS.md): each injected failure, on a read and on a write, with the outcome it
// must have. Counted on the sandbox: how many requests reached it and whether a write's handler ran.
// Across the whole file: no unhandled rejection, no socket left open once the stacks are closed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorDetail } from '../../src/mcp/render/tool-result.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type FaultSpec, type RequestLogEntry, type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { type Stack, startStack, textOf } from '../helpers/stack.js';
import { LogScan } from './token-scan.js';

const TIMEOUT_MS = 300;
const CAP_S = 2;

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPServerWrap').length;

let socketsBefore: number;
let sandbox: SandboxHandle;
let stack: Stack;
const scan = new LogScan();
const env = { WORKSPACE_TIMEOUT_MS: String(TIMEOUT_MS), WORKSPACE_MAX_RETRY_AFTER: String(CAP_S), WORKSPACE_RATE_LIMIT: '120/0.6' };

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  socketsBefore = sockets();
  sandbox = await startSandbox({ port: 0, rateLimit: false, timeScale: 0.01 });
  stack = await startStack({ sandboxHandle: sandbox, liveOpenApi: false, env });
});
afterAll(async () => {
  scan.add(stack.logs.join('\n'));
  await stack.close();
  await sandbox.close();
  // libuv releases a closed socket's handle in the close phase that ends the loop's turn: once a whole
  // turn has passed (two checks), a socket still counted was left open.
  for (let turn = 0; turn < 2; turn++) await new Promise((r) => setImmediate(r));
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
  expect(sockets()).toBeLessThanOrEqual(socketsBefore);
  expect(scan.leaks(Object.values(sandbox.tokens))).toEqual([]);
});

interface Cell {
  /** What reaches the sandbox, in order: the status of each attempt (0 = no answer written). */
  statuses: number[];
  isError: boolean;
  text: string;
  code?: string;
}

const READ = { tool: 'get_workspace', args: {}, method: 'GET', path: '/workspace' } as const;
const WRITE = {
  tool: 'create_finding',
  args: { engagement: ENGAGEMENT_AP, type: 'risk', statement: 'Fault matrix: duplicate payments not detected' },
  method: 'POST',
  path: '/engagements/{engagement}/findings',
} as const;
type Target = typeof READ | typeof WRITE;

const findingsWithStatement = () =>
  stack.api
    .request({ method: 'GET', path: '/engagements/{engagement}/findings', pathParams: { engagement: ENGAGEMENT_AP }, query: { limit: 200 } })
    .then((r) => (r.data as { statement?: string }[]).filter((f) => f.statement === WRITE.args.statement).length);

/**
 * An answer slower than any timeout: held until the client hangs up, then written to no one (the
 * sandbox logs it then, marked client_closed).
 */
const UNANSWERED = { before: ({ hungUp }: { hungUp: Promise<void> }) => hungUp } as const;

/** Once the sandbox has logged the `count` attempts a fault held unanswered (logged as their client hung up). */
async function abandonedLogged(count: number, match: { method: string; path: string }): Promise<void> {
  const logged = new Set<RequestLogEntry>();
  while (logged.size < count) {
    logged.add(
      await sandbox.waitForRequest(
        (q) => q.client_closed === true && q.method === match.method && q.template === match.path && !logged.has(q),
        10_000,
        'abandoned attempt',
      ),
    );
  }
}

async function run(target: Target, fault: Omit<FaultSpec, 'match'>, on: Stack = stack): Promise<Cell & { seen: RequestLogEntry[] }> {
  sandbox.clearRequests();
  sandbox.admin.clearFaults();
  sandbox.admin.fault({ ...fault, match: { method: target.method, path: target.path } });
  const r = await on.call(target.tool, target.args);
  if (fault.before === UNANSWERED.before) await abandonedLogged(fault.count, target);
  const seen = sandbox.requests().filter((q) => q.template === target.path && q.method === target.method);
  const code = errorDetail(r)?.code;
  return { statuses: seen.map((q) => q.status), isError: Boolean(r.isError), text: textOf(r), ...(code ? { code } : {}), seen };
}

/** A write reached the sandbox once, and the text says its outcome is unknown and how to check. */
function reportedUnknown(cell: Cell & { seen: RequestLogEntry[] }): void {
  expect(cell.seen).toHaveLength(1);
  expect(cell.isError).toBe(true);
  expect(cell.text).toMatch(/may or may not have been applied/);
  expect(cell.text).toMatch(/not sent again|before trying again/);
  expect(cell.text).toMatch(/read|list/i);
}

describe('reads', () => {
  it.each([502, 503, 504])('%i once: retried, and the call succeeds', async (status) => {
    const c = await run(READ, { count: 1, status });
    expect(c.statuses).toEqual([status, 200]);
    expect(c.isError).toBe(false);
  });

  it('503 that does not end: tried three times, then a clear error', async () => {
    const c = await run(READ, { count: 10, status: 503 });
    expect(c.statuses).toEqual([503, 503, 503]);
    expect(c.isError).toBe(true);
    expect(c.text).toMatch(/HTTP 503/);
    expect(c.text).toMatch(/try again later/i);
  });

  it('500: not retried (an application error repeats), reported with what to do', async () => {
    const c = await run(READ, { count: 1, status: 500 });
    expect(c.statuses).toEqual([500]);
    expect(c.isError).toBe(true);
    expect(c.text).toMatch(/HTTP 500/);
  });

  it('connection reset: retried, and the call succeeds', async () => {
    const c = await run(READ, { count: 1, reset: true });
    expect(c.statuses).toEqual([0, 200]);
    expect(c.isError).toBe(false);
  });

  it('an answer slower than the timeout: retried, and the call succeeds', async () => {
    const c = await run(READ, { count: 1, ...UNANSWERED });
    expect(c.seen).toHaveLength(2);
    expect(c.seen.filter((q) => q.client_closed)).toHaveLength(1); // the abandoned attempt
    expect(c.isError).toBe(false);
  });

  it('every answer slower than the timeout: a timeout error once the retries are spent', async () => {
    const c = await run(READ, { count: 3, ...UNANSWERED });
    expect(c.seen).toHaveLength(3);
    expect(c.isError).toBe(true);
    expect(c.text).toMatch(new RegExp(`no answer within ${TIMEOUT_MS} ms`));
  });

  it('broken JSON in a 200: retried, and the call succeeds', async () => {
    const c = await run(READ, { count: 1, broken_body: true, after_handler: true });
    expect(c.statuses).toEqual([200, 200]);
    expect(c.isError).toBe(false);
  });

  it('a 429 storm shorter than the retries: waited out, the call succeeds', async () => {
    const c = await run(READ, { count: 2, status: 429, retry_after: 0.05 });
    expect(c.statuses).toEqual([429, 429, 200]);
    expect(c.isError).toBe(false);
  });

  it('a 429 storm longer than the retries: a rate-limit error saying how long it waited', async () => {
    const c = await run(READ, { count: 10, status: 429, retry_after: 0.05 });
    expect(c.statuses).toEqual([429, 429, 429, 429, 429, 429]);
    expect(c.isError).toBe(true);
    expect(c.text).toMatch(/waited and retried 5 time/);
  });
});

describe('writes', () => {
  it.each([502, 503, 504])('%i: the outcome is unknown, said so with how to check; sent once', async (status) => {
    const c = await run(WRITE, { count: 1, status });
    reportedUnknown(c);
    expect(c.code).toBe('outcome_unknown');
  });

  it('500: reported as a failure that may have been applied, with how to check; sent once', async () => {
    const c = await run(WRITE, { count: 1, status: 500 });
    expect(c.statuses).toEqual([500]);
    expect(c.isError).toBe(true);
    expect(c.text).toMatch(/read the resource first to see whether it was applied/);
  });

  it('connection reset before the handler: unknown to the client, sent once, nothing created', async () => {
    const before = await findingsWithStatement();
    const c = await run(WRITE, { count: 1, reset: true });
    reportedUnknown(c);
    expect(c.seen[0]?.handler_ran).toBe(false);
    expect(await findingsWithStatement()).toBe(before);
  });

  it('connection reset after the handler ran: unknown to the client, sent once, created once', async () => {
    const before = await findingsWithStatement();
    const c = await run(WRITE, { count: 1, reset: true, after_handler: true });
    reportedUnknown(c);
    expect(c.seen[0]?.handler_ran).toBe(true);
    expect(await findingsWithStatement()).toBe(before + 1);
  });

  it('an answer slower than the timeout: unknown, sent once', async () => {
    const c = await run(WRITE, { count: 1, ...UNANSWERED });
    reportedUnknown(c);
  });

  it('broken JSON in the 201 of an applied write: unknown to the client (never "failed"), sent once, created once', async () => {
    const before = await findingsWithStatement();
    const c = await run(WRITE, { count: 1, broken_body: true, after_handler: true });
    reportedUnknown(c);
    expect(await findingsWithStatement()).toBe(before + 1);
  });

  it('a 429 storm: a 429 means not processed, so the write is retried and created once', async () => {
    const before = await findingsWithStatement();
    const c = await run(WRITE, { count: 2, status: 429, retry_after: 0.05 });
    expect(c.statuses).toEqual([429, 429, 201]);
    expect(c.isError).toBe(false);
    expect(await findingsWithStatement()).toBe(before + 1);
  });
});

describe('Retry-After beyond WORKSPACE_MAX_RETRY_AFTER', () => {
  it.each([READ, WRITE])('$method: a clear error at once, no waiting, and the next call fails fast without a request', async (target) => {
    // Its own client: the pause it learns would hold every later cell.
    const own = await startStack({ sandboxHandle: sandbox, liveOpenApi: false, env });
    try {
      const c = await run(target, { count: 1, status: 429, retry_after: 60 }, own);
      // No wait was begun: the server never logged the one it makes before sending again.
      expect(own.logs.filter((l) => l.includes('rate limited by the workspace, waiting'))).toEqual([]);
      expect(c.statuses).toEqual([429]);
      expect(c.isError).toBe(true);
      expect(c.text).toMatch(new RegExp(`wait 60 s.*more than the ${CAP_S} s`));
      sandbox.clearRequests();
      const again = await own.call(READ.tool, READ.args);
      expect(again.isError).toBe(true);
      expect(sandbox.requests()).toHaveLength(0);
    } finally {
      scan.add(own.logs.join('\n'));
      await own.close();
    }
  });
});

describe('jobs', () => {
  // JOBS: the job cells of the matrix go here once jobs exist: start a job (analysis run, export,
  // generation) under each fault above and check it is started once and polled (a read) with retries;
  // a job that fails on the sandbox (handle.admin.failNextJobs) is reported as failed, not retried.
  const START = {
    tool: 'create_export',
    args: { engagement: ENGAGEMENT_AP, kind: 'findings_csv' },
    method: 'POST',
    path: '/engagements/{engagement}/exports',
  } as const;
  // The export's own read: curated in the catalog, the first way the job is read.
  const POLL = { method: 'GET', path: '/engagements/{engagement}/exports/{export}' } as const;
  const FAULTS: Array<[string, Omit<FaultSpec, 'match' | 'count'>]> = [
    ['502', { status: 502 }],
    ['503', { status: 503 }],
    ['504', { status: 504 }],
    ['reset', { reset: true }],
    ['timeout', UNANSWERED],
  ];
  const starts = () => sandbox.requests().filter((q) => q.method === START.method && q.template === START.path);

  it.each(FAULTS)('starting a job under %s: started once, reported unknown', async (_name, fault) => {
    reportedUnknown(await run(START as unknown as Target, { count: 1, ...fault }));
  });

  it.each(FAULTS)('polling a job under %s: retried like any read, the job still followed to its file', async (_name, fault) => {
    sandbox.clearRequests();
    sandbox.admin.clearFaults();
    sandbox.admin.fault({ count: 1, ...fault, match: POLL });
    const r = await stack.call(START.tool, START.args);
    if (fault.before === UNANSWERED.before) await abandonedLogged(1, POLL);
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ state: 'succeeded', file: { content_type: expect.stringMatching(/csv/) } });
    expect(starts()).toHaveLength(1);
    const polls = sandbox.requests().filter((q) => q.method === POLL.method && q.template === POLL.path);
    expect(polls.some((q) => q.fault)).toBe(true);
    expect(polls.at(-1)!.status).toBe(200);
  });

  it('a job that fails on the workspace is reported as failed with its reason, not started again', async () => {
    sandbox.clearRequests();
    sandbox.admin.clearFaults();
    sandbox.admin.failNextJobs('atelier', 1);
    const r = await stack.call(START.tool, START.args);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/export \w{26} failed: job\.failed/);
    expect(starts()).toHaveLength(1);
    expect(sandbox.requests().some((q) => q.template?.endsWith('/download'))).toBe(false);
  });
});
