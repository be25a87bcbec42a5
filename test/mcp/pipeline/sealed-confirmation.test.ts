// Confirmations asked without holding the call (the remote mode's replicas): what a state opens to
// on its time, and for whom. The rounds themselves, across two real replicas, are in
// test/remote/confirmation-replicas.test.ts; here the clock is the test's, so a state can be let expire.
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Confirm, SealedConfirmations } from '../../../src/mcp/pipeline/confirmation.js';

/** A request of `member`: all the confirmations read of it is whose it is (and, on a retry, the answer under its question's key). */
const requestOf = (member: string, answer?: { key: string; action: 'accept' | 'decline' | 'cancel' }): ServerContext =>
  ({
    member,
    mcpReq: {
      inputResponses: answer ? { [answer.key]: { action: answer.action } } : undefined,
    },
  }) as unknown as ServerContext;

function confirmations(claimed = new Set<string>()) {
  return new SealedConfirmations({
    key: new Uint8Array(32).fill(7),
    claim: async (nonce) => !claimed.has(nonce) && Boolean(claimed.add(nonce)),
    memberOf: (ctx) => (ctx as unknown as { member: string }).member,
  });
}

const OK: CallToolResult = { content: [{ type: 'text', text: 'deleted' }] };

/** A call that asks to delete one finding, and counts how often it was sent. */
function deletion(finding: string) {
  const sent: string[] = [];
  const run = async (confirm: Confirm): Promise<CallToolResult> => {
    const answer = await confirm({
      message: `Delete finding ${finding}?`,
      operation: 'delete_finding',
      args: { finding },
      signal: new AbortController().signal,
    });
    if (answer.action !== 'accept') return { content: [{ type: 'text', text: answer.action }], isError: true };
    sent.push(finding);
    return OK;
  };
  return { run, sent };
}

/** The first round's state, and the key its question's answer goes under. */
async function ask(c: SealedConfirmations, member: string, finding: string): Promise<{ state: string; key: string }> {
  const first = await c.start(requestOf(member), 'delete_finding', deletion(finding).run);
  expect(first).toMatchObject({ resultType: 'input_required' });
  const { requestState, inputRequests } = first as { requestState: string; inputRequests: Record<string, unknown> };
  const keys = Object.keys(inputRequests);
  expect(keys).toHaveLength(1);
  return { state: requestState, key: keys[0] as string };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a sealed confirmation state', () => {
  it('opens for the member it was asked of, within its ten minutes; past them it is refused, nothing sent', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-28T10:00:00Z'));
    const c = confirmations();
    const { state, key } = await ask(c, 'member:claire', 'F1');
    expect(await c.verify(state, requestOf('member:claire'))).toMatchObject({ ask: 'sealed', tool: 'delete_finding' });

    vi.setSystemTime(new Date('2026-11-28T10:10:02Z'));
    const expired = await c.verify(state, requestOf('member:claire', { key, action: 'accept' }));
    expect(expired).toEqual({ ask: 'refused', why: 'expired' });
    const call = deletion('F1');
    const r = await c.resume(requestOf('member:claire', { key, action: 'accept' }), 'delete_finding', expired, call.run);
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/expired\. Nothing was sent/);
    expect(call.sent).toEqual([]);
  });

  it("another member's request opens it as refused; another key's state, or an altered one, does not open at all", async () => {
    const c = confirmations();
    const { state } = await ask(c, 'member:claire', 'F2');
    expect(await c.verify(state, requestOf('member:marc'))).toEqual({ ask: 'refused', why: 'member' });
    const other = new SealedConfirmations({ key: new Uint8Array(32).fill(8), claim: async () => true, memberOf: () => 'member:claire' });
    await expect(other.verify(state, requestOf('member:claire'))).rejects.toThrow();
    await expect(c.verify(`${state.slice(0, -2)}xx`, requestOf('member:claire'))).rejects.toThrow();
  });

  it('accepted, it sends once; the same state again, for the same call, sends nothing more', async () => {
    const c = confirmations();
    const asked = await ask(c, 'member:claire', 'F3');
    const state = await c.verify(asked.state, requestOf('member:claire'));
    const call = deletion('F3');
    const yes = { key: asked.key, action: 'accept' } as const;
    expect(await c.resume(requestOf('member:claire', yes), 'delete_finding', state, call.run)).toEqual(OK);
    const again = await c.resume(requestOf('member:claire', yes), 'delete_finding', state, call.run);
    expect(JSON.stringify(again.content)).toMatch(/already used/);
    expect(call.sent).toEqual(['F3']);
  });
});
