// A DELETE is idempotent, so the client sends it again after a lost answer. When that earlier
// attempt was applied (the workspace deleted the resource, then the connection was reset or a
// gateway answered 503), the retry's 404 is not "not found, check the id": the call succeeded, and
// says "already gone when checked again". Counted on the sandbox, with its fault injection.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { WorkspaceApiError } from '../../src/api/errors.js';
import { RateLimiter } from '../../src/api/limiter.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type FaultSpec, type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';

const FINDING = '/engagements/{engagement}/findings/{finding}';

let sandbox: SandboxHandle;
let client: ApiClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  client = new ApiClient({
    baseUrl: sandbox.api,
    token: () => sandbox.tokens.write,
    timeoutMs: 2_000,
    limiter: new RateLimiter({ windowMs: 1_000 }),
    retry: { backoffBaseMs: 10 },
  });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});
beforeEach(() => {
  sandbox.admin.clearFaults();
  sandbox.clearRequests();
});

async function newFinding(statement: string): Promise<string> {
  const res = await client.request({
    method: 'POST',
    path: '/engagements/{engagement}/findings',
    pathParams: { engagement: ENGAGEMENT_AP },
    json: { type: 'risk', statement },
  });
  return (res.data as { id: string }).id;
}

function deleteFinding(finding: string) {
  return client.request({ method: 'DELETE', path: FINDING, pathParams: { engagement: ENGAGEMENT_AP, finding } });
}

async function exists(finding: string): Promise<boolean> {
  try {
    await client.request({ method: 'GET', path: FINDING, pathParams: { engagement: ENGAGEMENT_AP, finding } });
    return true;
  } catch (err) {
    if (err instanceof WorkspaceApiError && err.status === 404) return false;
    throw err;
  }
}

/** The DELETE attempts that reached the sandbox: their status (0 when no answer was written) and whether the deletion ran. */
const deletes = () =>
  sandbox
    .requests()
    .filter((q) => q.method === 'DELETE' && q.template === FINDING)
    .map((q) => ({ status: q.status, ran: q.handler_ran }));

describe('a DELETE sent again after a lost answer', () => {
  it.each<[string, Omit<FaultSpec, 'count' | 'match'>]>([
    ['the connection reset after the workspace deleted it', { reset: true, after_handler: true }],
    ['a 503 after the workspace deleted it', { status: 503, after_handler: true }],
    ['a 502 after the workspace deleted it', { status: 502, after_handler: true }],
    ['a success whose body arrived cut', { broken_body: true, after_handler: true }],
  ])('%s: the retry 404 is reported as already gone, a success', async (_, fault) => {
    const finding = await newFinding(`delete retry: ${JSON.stringify(fault)}`);
    sandbox.clearRequests();
    sandbox.admin.fault({ count: 1, ...fault, match: { method: 'DELETE', path: FINDING } });
    const res = await deleteFinding(finding);
    expect(res.alreadyGone).toBe(true);
    expect(res.status).toBe(404);
    expect(res.attempts).toBe(2);
    // Both attempts reached the handler: the first deleted, the second found nothing.
    const seen = deletes();
    expect(seen.map((d) => d.ran)).toEqual([true, true]);
    expect(seen[1]?.status).toBe(404);
    expect(await exists(finding)).toBe(false);
  });

  it('a 503 before anything was deleted: the retry deletes, a plain success', async () => {
    const finding = await newFinding('delete retry: 503 before the handler');
    sandbox.clearRequests();
    sandbox.admin.fault({ count: 1, status: 503, match: { method: 'DELETE', path: FINDING } });
    const res = await deleteFinding(finding);
    expect(res.alreadyGone).toBeUndefined();
    expect(res.status).toBeLessThan(300);
    expect(deletes().map((d) => d.status)).toEqual([503, res.status]);
    expect(await exists(finding)).toBe(false);
  });

  it('an id that never existed, answered at once: still "not found"', async () => {
    const err = await deleteFinding('01ZZZZZZZZZZZZZZZZZZZZZZZZ').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceApiError);
    expect((err as WorkspaceApiError).status).toBe(404);
  });

  it('a 429 says nothing was applied: the 404 after it is still "not found"', async () => {
    sandbox.admin.fault({ count: 1, status: 429, retry_after: 0, match: { method: 'DELETE', path: FINDING } });
    const err = await deleteFinding('01ZZZZZZZZZZZZZZZZZZZZZZZZ').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceApiError);
    expect((err as WorkspaceApiError).status).toBe(404);
    expect(deletes().map((d) => d.status)).toEqual([429, 404]);
  });
});
