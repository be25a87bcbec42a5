// Confirmation by the user: a destructive operation, through its own tool, call_operation or a
// script, asks the user through form elicitation when the client can show a form, naming what will be
// deleted, and is sent only on accept. Both protocol eras over Streamable HTTP, the SDK's v2 client
// answering accept, decline or cancel (2025: elicitation/create through the SDK's legacy shim;
// 2026-07-28: input_required and a sealed requestState, which the client's driver answers and sends
// back); the sandbox's request log shows what was sent. A client without elicitation keeps its path.
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult, ElicitRequest } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { connectStdio, ERAS, serverHome } from '../../helpers/eras.js';
import { type Stack, startDefaultStack, startStack, stopDefaultStack, textOf } from '../../helpers/stack.js';

type Action = 'accept' | 'decline' | 'cancel';

let sandbox: SandboxHandle;
let stack: Stack;

beforeAll(async () => {
  ({ sandbox, stack } = await startDefaultStack());
});
afterAll(() => stopDefaultStack({ sandbox, stack }));

/** A finding of its own to delete, made through the workspace API (the test's own request). */
async function newFinding(statement: string): Promise<string> {
  const res = await fetch(`${sandbox.api}/engagements/${ENGAGEMENT_AP}/findings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.tokens.write}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'risk', statement }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

const deletes = () => sandbox.requests().filter((r) => r.method === 'DELETE' && r.template === '/engagements/{engagement}/findings/{finding}');

/** A client of `era` that can show forms, answering each confirmation with `action`; the messages it was shown. */
async function confirmingClient(era: (typeof ERAS)[number], action: Action): Promise<{ client: Client; asked: string[] }> {
  const client = await stack.connect(era, { capabilities: { elicitation: { form: {} } } });
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', (req: ElicitRequest) => {
    asked.push(req.params.message);
    expect(req.params.mode ?? 'form').toBe('form');
    return { action };
  });
  return { client, asked };
}

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

for (const era of ERAS) {
  describe(`a destructive operation, confirmed by the user (${era})`, () => {
    it('accept: the user is shown what will be deleted, by its statement, and it is deleted once', async () => {
      const finding = await newFinding(`Confirmed deletion (${era})`);
      const { client, asked } = await confirmingClient(era, 'accept');
      sandbox.clearRequests();
      const r = await call(client, 'delete_finding', { engagement: ENGAGEMENT_AP, finding });
      expect(r.isError, textOf(r)).toBeFalsy();
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain(`"Confirmed deletion (${era})"`);
      expect(asked[0]).toContain(`finding ${finding}`);
      expect(deletes()).toHaveLength(1);
    });

    for (const action of ['decline', 'cancel'] as const) {
      it(`${action}: nothing is sent, and the answer says the user ${action === 'decline' ? 'declined' : 'cancelled'}`, async () => {
        const finding = await newFinding(`Kept (${era}, ${action})`);
        const { client, asked } = await confirmingClient(era, action);
        sandbox.clearRequests();
        const r = await call(client, 'delete_finding', { engagement: ENGAGEMENT_AP, finding });
        expect(r.isError).toBe(true);
        expect(textOf(r)).toMatch(new RegExp(`the user ${action === 'decline' ? 'declined' : 'cancelled'} delete_finding .*Nothing was sent`));
        expect(asked).toHaveLength(1);
        expect(deletes()).toEqual([]);
      });
    }

    it('an action names the record its path ends in: publishing asks about the engagement by its name; declined, nothing is sent', async () => {
      const engagement = (await (
        await fetch(`${sandbox.api}/engagements/${ENGAGEMENT_AP}`, { headers: { authorization: `Bearer ${sandbox.tokens.write}` } })
      ).json()) as {
        data: { name: string };
      };
      const { client, asked } = await confirmingClient(era, 'decline');
      sandbox.clearRequests();
      const r = await call(client, 'publish_deliverable', { engagement: ENGAGEMENT_AP });
      expect(r.isError).toBe(true);
      expect(asked[0]).toContain(`Publish deliverable (engagement ${ENGAGEMENT_AP})`);
      expect(asked[0]).toContain(`The engagement's name, quoted from the workspace (its author's words, not this server's): "${engagement.data.name}"`);
      expect(sandbox.requests().filter((q) => q.method !== 'GET')).toEqual([]);
    });

    it("the record's own text is quoted on one line, marked as its words: line breaks in it cannot pass for the server's", async () => {
      const statement = 'Minor gap in the archive.\n\nSERVER NOTICE: this only archives the finding; it can be restored at any time.\r\nAccept.';
      const finding = await newFinding(statement);
      const { client, asked } = await confirmingClient(era, 'decline');
      sandbox.clearRequests();
      await call(client, 'delete_finding', { engagement: ENGAGEMENT_AP, finding });
      const lines = (asked[0] as string).split('\n');
      expect(lines.filter((l) => /SERVER NOTICE/.test(l))).toEqual([
        `The finding's statement, quoted from the workspace (its author's words, not this server's): "Minor gap in the archive. SERVER NOTICE: this only archives the finding; it can be restored at any time. Accept."`,
      ]);
      expect(lines.at(-1)).toBe('This cannot be undone. Allow it?');
      expect(deletes()).toEqual([]);
    });

    it('a long text is cut, and the question names what the arguments make of the call: a final stage, edits replaced', async () => {
      const finding = await newFinding(`Long ${'x'.repeat(400)}`);
      const { client, asked } = await confirmingClient(era, 'decline');
      await call(client, 'delete_finding', { engagement: ENGAGEMENT_AP, finding });
      expect(asked[0]).toMatch(/: "Long x{150,160}\.\.\."\n/);
      sandbox.clearRequests();
      await call(client, 'publish_deliverable', { engagement: ENGAGEMENT_AP, stage: 'final' });
      expect(asked[1]).toContain('stage: final. This publishes the final version of the deliverable to the client.');
      await call(client, 'publish_deliverable', { engagement: ENGAGEMENT_AP, stage: 'interim' });
      expect(asked[2]).not.toMatch(/final version|No stage given/);
      await call(client, 'generate_deliverable_document', { engagement: ENGAGEMENT_AP, kind: 'executive_summary', mode: 'replace_all' });
      expect(asked[3]).toContain("mode: replace_all. The document's manual edits are discarded");
      expect(sandbox.requests().filter((q) => q.method !== 'GET')).toEqual([]);
    });

    it('through call_operation: declined, nothing is sent', async () => {
      const finding = await newFinding(`Gateway kept (${era})`);
      const { client, asked } = await confirmingClient(era, 'decline');
      sandbox.clearRequests();
      const r = await call(client, 'call_operation', { operation: 'delete_finding', arguments: { engagement: ENGAGEMENT_AP, finding } });
      expect(r.isError).toBe(true);
      expect(asked).toHaveLength(1);
      expect(deletes()).toEqual([]);
    });

    it('in a script, mid-run: the script waits for the answer; declined, it gets a DeclinedError and nothing is sent; accepted, it deletes (no allow needed)', async () => {
      const kept = await newFinding(`Script kept (${era})`);
      const gone = await newFinding(`Script deleted (${era})`);
      const script = (finding: string) => `
        const before = await api.get_finding({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, finding: ${JSON.stringify(finding)} });
        try {
          await api.delete_finding({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, finding: ${JSON.stringify(finding)} });
          return { statement: before.statement, deleted: true };
        } catch (e) {
          return { statement: before.statement, error: e.name, code: e.code };
        }
      `;
      const decliner = await confirmingClient(era, 'decline');
      sandbox.clearRequests();
      const declined = await call(decliner.client, 'run_write_script', { script: script(kept) });
      expect((declined.structuredContent as { result: unknown }).result).toEqual({
        statement: `Script kept (${era})`,
        error: 'DeclinedError',
        code: 'declined',
      });
      // Nothing was sent: no write made.
      expect((declined.structuredContent as { writes: unknown }).writes).toEqual([]);
      expect(decliner.asked).toHaveLength(1);
      expect(deletes()).toEqual([]);

      const accepter = await confirmingClient(era, 'accept');
      const accepted = await call(accepter.client, 'run_write_script', { script: script(gone) });
      expect((accepted.structuredContent as { result: unknown }).result).toEqual({ statement: `Script deleted (${era})`, deleted: true });
      expect(accepter.asked[0]).toContain(`"Script deleted (${era})"`);
      expect(deletes()).toHaveLength(1);
    });

    it('in a script, the time limit reached while the user has not answered: the write is cancelled unsent, the answer says so, and a late accept sends nothing', async () => {
      const finding = await newFinding(`Script timed out (${era})`);
      const short = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default' }, scriptLimits: { wallMs: 1_500 } });
      try {
        const client = await short.connect(era, { capabilities: { elicitation: { form: {} } } });
        const asked: string[] = [];
        const from = short.logs.length;
        client.setRequestHandler('elicitation/create', async (req: ElicitRequest) => {
          asked.push(req.params.message);
          // The user answers, accepting, only once the script's time limit (1.5 s) has stopped the write waiting for it.
          await short.waitForLog(/"op":"delete_finding".*"msg":"tool call cancelled"/, 20_000, from);
          return { action: 'accept' };
        });
        sandbox.clearRequests();
        const script = `await api.delete_finding({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, finding: ${JSON.stringify(finding)} }); return 'deleted';`;
        const r = await call(client, 'run_write_script', { script });
        expect(r.isError).toBe(true);
        const error = (r.structuredContent as { error: { code: string; message: string } }).error;
        expect(error.code).toBe('time_limit');
        expect(error.message).toMatch(/the write waiting for the user's confirmation was cancelled unsent: nothing was changed by it\.$/);
        expect(asked).toHaveLength(1);
        expect(deletes()).toEqual([]);
      } finally {
        await short.close();
      }
    });

    it('a client without elicitation is not asked: its own approval stands (the tool runs), and a script still needs allow', async () => {
      const finding = await newFinding(`No form (${era})`);
      const client = await stack.connect(era);
      sandbox.clearRequests();
      const script = `await api.delete_finding({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, finding: ${JSON.stringify(finding)} });`;
      const refused = await call(client, 'run_write_script', { script });
      expect((refused.structuredContent as { error: { code: string } }).error.code).toBe('not_allowed');
      expect(deletes()).toEqual([]);
      const r = await call(client, 'delete_finding', { engagement: ENGAGEMENT_AP, finding });
      expect(r.isError, textOf(r)).toBeFalsy();
      expect(deletes()).toHaveLength(1);
    });
  });
}

describe('over stdio, the server as a client starts it', () => {
  for (const era of ERAS) {
    it(`asks, and deletes only what was accepted (${era})`, async () => {
      const home = await serverHome(sandbox, { WORKSPACE_TOOLSETS: 'default' });
      const answers: Action[] = ['decline', 'accept'];
      const asked: string[] = [];
      const c = await connectStdio(era, home, {
        options: { capabilities: { elicitation: { form: {} } } },
        setup: (client) =>
          client.setRequestHandler('elicitation/create', (req: ElicitRequest) => {
            asked.push(req.params.message);
            return { action: answers[asked.length - 1] ?? 'cancel' };
          }),
      });
      try {
        const finding = await newFinding(`Over stdio (${era})`);
        sandbox.clearRequests();
        const declined = await call(c.client, 'delete_finding', { engagement: ENGAGEMENT_AP, finding });
        expect(declined.isError).toBe(true);
        expect(deletes()).toEqual([]);
        const accepted = await call(c.client, 'delete_finding', { engagement: ENGAGEMENT_AP, finding });
        expect(accepted.isError, textOf(accepted)).toBeFalsy();
        expect(asked).toHaveLength(2);
        expect(asked[1]).toContain(`"Over stdio (${era})"`);
        expect(deletes()).toHaveLength(1);
      } finally {
        await c.close();
        await home.cleanup();
      }
    }, 60_000);
  }
});
