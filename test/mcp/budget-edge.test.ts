// The rate budget's edge, over stdio with the SDK's own client, as a desktop assistant meets it: many
// calls at once on a fresh budget. None waits silently past the bound (WORKSPACE_MAX_BUDGET_WAIT): the
// client's request timeout is set just past it, so a call held longer fails the test as it failed the
// assistants (200 reads at once: 104 waited more than 60 s, past the SDK clients' default timeout).
// A call refused at the edge sent nothing (the sandbox's request log counts what reached it); a call
// that waits tells a client that gave a progress token; the calls served answer what the workspace holds.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { errorDetail } from '../../src/mcp/render/tool-result.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { connectStdio, type EraClient, serverHome } from '../helpers/eras.js';
import { apiRequests } from '../helpers/stdio-server.js';
import { busiestWindow } from '../helpers/windows.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

type Json = Record<string, any>;

/** A sandbox that enforces the API's own limit, and a stdio server on it with `env`, through the SDK client. */
async function serverOn(env: Record<string, string>, timeScale = 1): Promise<{ sandbox: SandboxHandle; client: EraClient }> {
  const sandbox = await startSandbox({ port: 0, rateLimit: true, timeScale, logger: () => {} });
  cleanups.push(() => sandbox.close());
  const home = await serverHome(sandbox, { WORKSPACE_TOOLSETS: 'all', ...env });
  cleanups.push(home.cleanup);
  const client = await connectStdio('legacy', home);
  cleanups.push(() => client.close());
  return { sandbox, client };
}

/** What the workspace answers for GET /workspace, asked directly with the read token (another budget). */
async function workspaceRecord(sandbox: SandboxHandle): Promise<Json> {
  const res = await fetch(`${sandbox.api}/workspace`, { headers: { authorization: `Bearer ${sandbox.tokens.read}`, accept: 'application/json' } });
  return ((await res.json()) as { data: Json }).data;
}

const refusedAtTheEdge = (r: CallToolResult) => errorDetail(r)?.code === 'rate_budget_exhausted';

describe('the rate budget edge over stdio', () => {
  it('200 calls at once on a fresh 120/60 budget: none waits past the bound, the refused ones send nothing, the served ones are right', async () => {
    const boundS = 30;
    const { sandbox, client } = await serverOn({ WORKSPACE_RATE_LIMIT: '120/60', WORKSPACE_MAX_BUDGET_WAIT: String(boundS) });
    const expected = await workspaceRecord(sandbox);
    const before = apiRequests(sandbox).length;
    const started = Date.now();
    const waits: number[] = [];
    // The client gives up on a call at the bound and a margin for the round trip: a call held in the
    // queue for its slot past the bound fails the test with the client's own timeout.
    const results = await Promise.all(
      Array.from({ length: 200 }, () =>
        (client.client.callTool({ name: 'get_workspace', arguments: {} }, { timeout: (boundS + 10) * 1000 }) as Promise<CallToolResult>).then((r) => {
          waits.push(Date.now() - started);
          return r;
        }),
      ),
    );
    const served = results.filter((r) => !r.isError);
    const refused = results.filter(refusedAtTheEdge);
    const sent = apiRequests(sandbox).slice(before);
    console.info(
      `budget edge, 200 calls at once on 120/60 (bound ${boundS} s): served ${served.length}, refused ${refused.length}, ` +
        `requests sent ${sent.length}, slowest answer ${Math.max(...waits)} ms`,
    );
    expect(served.length + refused.length).toBe(results.length);
    expect(refused.length).toBeGreaterThan(0);
    // The refused calls reached nothing: the workspace saw the served ones, and no refusal of its own.
    expect(sent).toHaveLength(served.length);
    expect(sent.filter((r) => r.status === 429)).toHaveLength(0);
    expect(served.length).toBeLessThanOrEqual(120);
    for (const r of refused) {
      const err = errorDetail(r) as Json;
      // Refused because its slot opens past the bound, and told when it opens.
      expect(err.retry_after_seconds).toBeGreaterThan(boundS);
      expect(err.sent).toBe(false);
      const text = (r.content[0] as { text: string }).text;
      expect(text).toContain(`Call again in ${err.retry_after_seconds} s`);
      expect(text).toMatch(/Nothing was sent/);
    }
    for (const r of served) expect(r.structuredContent).toMatchObject({ id: expected.id, name: expected.name, slug: expected.slug });
  }, 120_000);

  it('a call that waits for its slot within the bound tells a client that gave a progress token, then is served', async () => {
    // A small budget (10 a 5 s window) and a bound of 8 s: the second ten wait one window, within the
    // bound (3 s to spare for a slow machine's answers); the rest would wait two, past it, and are
    // refused at once.
    const boundS = 8;
    const { sandbox, client } = await serverOn({
      WORKSPACE_RATE_LIMIT: '10/5',
      WORKSPACE_MAX_BUDGET_WAIT: String(boundS),
      WORKSPACE_MAX_BUDGET_WAIT_WITH_PROGRESS: String(boundS),
    });
    const before = apiRequests(sandbox).length;
    const progressOf = new Map<number, string[]>();
    const results = await Promise.all(
      Array.from(
        { length: 25 },
        (_, i) =>
          client.client.callTool(
            { name: 'get_workspace', arguments: {} },
            {
              timeout: (boundS + 10) * 1000,
              onprogress: (p) => progressOf.set(i, [...(progressOf.get(i) ?? []), p.message ?? '']),
            },
          ) as Promise<CallToolResult>,
      ),
    );
    const served = results.filter((r) => !r.isError).length;
    const refused = results.filter(refusedAtTheEdge).length;
    const sent = apiRequests(sandbox).slice(before);
    expect(served + refused).toBe(results.length);
    expect(sent).toHaveLength(served);
    // More were served than one window holds: some waited a window for their slot, within the bound...
    expect(served).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(0);
    // ...and each of those heard, while queued, that it waits for the rate budget and about how long.
    const toldOfAWindowWait = [...progressOf.values()].filter((messages) =>
      messages.some((m) => /^waiting for the rate budget: about (\d+) s$/.test(m) && Number(/(\d+) s$/.exec(m)?.[1]) >= 2),
    );
    expect(toldOfAWindowWait.length).toBeGreaterThanOrEqual(served - 10);
  }, 60_000);
});

describe('a burst that waits with progress', () => {
  // The sandbox's minute lasts 3 s: 120 requests go at once, the rest wait about a window. The bound
  // without a progress token is 1 s (refused at once); with one, the operator's longer bound (300 s).
  const SCALE = 0.05;
  const WINDOW_MS = 60_000 * SCALE;
  const env = { WORKSPACE_RATE_LIMIT: `120/${WINDOW_MS / 1000}`, WORKSPACE_MAX_BUDGET_WAIT: '1' };

  it('150 calls with a progress token on one token: all answered, none refused, progress heard while queued, the window never above the limit', async () => {
    const { sandbox, client } = await serverOn(env, SCALE);
    const before = apiRequests(sandbox).length;
    const progressOf = new Map<number, string[]>();
    const results = await Promise.all(
      Array.from(
        { length: 150 },
        (_, i) =>
          client.client.callTool(
            { name: 'get_workspace', arguments: {} },
            { onprogress: (p) => progressOf.set(i, [...(progressOf.get(i) ?? []), p.message ?? '']) },
          ) as Promise<CallToolResult>,
      ),
    );
    const sent = apiRequests(sandbox).slice(before);
    expect(results.filter((r) => r.isError).map((r) => JSON.stringify(r.content))).toEqual([]);
    expect(sent).toHaveLength(150);
    expect(sent.filter((r) => r.status === 429)).toHaveLength(0);
    expect(
      busiestWindow(
        sent.map((r) => r.counted_ms ?? Number.NaN),
        WINDOW_MS,
      ),
    ).toBeLessThanOrEqual(120);
    // The 30 past the window's 120 were queued, and each heard what it waited for and about when.
    const told = [...progressOf.values()].filter((messages) => messages.some((m) => /^waiting for the rate budget: about \d+ s$/.test(m)));
    expect(told.length).toBeGreaterThanOrEqual(30);
  }, 60_000);

  it('the same burst without a progress token: the calls past the window are refused at once, as before, nothing sent for them', async () => {
    const { sandbox, client } = await serverOn(env, SCALE);
    const before = apiRequests(sandbox).length;
    const results = await Promise.all(
      Array.from({ length: 150 }, () => client.client.callTool({ name: 'get_workspace', arguments: {} }) as Promise<CallToolResult>),
    );
    const refused = results.filter(refusedAtTheEdge);
    const sent = apiRequests(sandbox).slice(before);
    expect(refused.length).toBeGreaterThanOrEqual(25);
    expect(results.filter((r) => !r.isError).length + refused.length).toBe(150);
    expect(sent).toHaveLength(150 - refused.length);
  }, 60_000);

  it('a queued call whose client cancels ends at once: nothing is sent for it, and the calls behind it still go', async () => {
    const { sandbox, client } = await serverOn(env, SCALE);
    const before = apiRequests(sandbox).length;
    // The window filled and answered; then 10 queued with a progress token, of which 5 are cancelled.
    await Promise.all(Array.from({ length: 120 }, () => client.client.callTool({ name: 'get_workspace', arguments: {} })));
    // (The server's own start-up read may have taken one of the window's slots: counted, not assumed.)
    const first = apiRequests(sandbox).slice(before).length;
    const cancels = Array.from({ length: 10 }, () => new AbortController());
    let heard = 0;
    const queued = cancels.map((c) =>
      (client.client.callTool({ name: 'get_workspace', arguments: {} }, { signal: c.signal, onprogress: () => heard++ }) as Promise<CallToolResult>).then(
        (r) => ({ ok: !r.isError }),
        (err: unknown) => ({ cancelled: err }),
      ),
    );
    // Once every queued call has heard that it waits, half of them are cancelled.
    while (heard < 10) await new Promise((r) => setImmediate(r));
    for (const c of cancels.slice(0, 5)) c.abort(new Error('cancelled by the user'));
    const outcomes = await Promise.all(queued);
    expect(outcomes.slice(0, 5).every((o) => 'cancelled' in o)).toBe(true);
    expect(outcomes.slice(5)).toEqual(Array.from({ length: 5 }, () => ({ ok: true })));
    // Nothing was sent for the cancelled calls: the window's first calls and the 5 that went.
    expect(apiRequests(sandbox).slice(before)).toHaveLength(first + 5);
  }, 60_000);
});
