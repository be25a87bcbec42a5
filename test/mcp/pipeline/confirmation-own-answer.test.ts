// Each write waits for the answer to its own question (docs/architecture.md, Confirmation by the
// user): a script that deletes two or three findings at once shows the user one question per finding,
// one at a time, and deletes exactly the ones whose own question was accepted, whatever the answers
// and their order; no DELETE leaves before the answer to its own question; parallel tool calls and
// other sessions each wait for their own answer. Through the real SDK clients: v2 in both protocol
// eras over Streamable HTTP (the serving code of `serve --http`) and over stdio (the server as a
// client starts it), and the v1 SDK client (2025-11-25) on both transports. The sandbox's request log
// shows what reached the workspace.
import type { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema as V1ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, ElicitRequest } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { connectStdio, ERAS, serverHome } from '../../helpers/eras.js';
import { ROOT } from '../../helpers/spawn.js';
import { type Stack, startStack, textOf } from '../../helpers/stack.js';

/** What the user answers to one finding's question; `never`: no answer until the call has given up on it. */
type Answer = 'accept' | 'decline' | 'cancel' | 'never';

let sandbox: SandboxHandle;
let stack: Stack;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  // A script's time limit within a test's: a script left waiting for an answer its write never gets ends, and says what it did.
  stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default' }, scriptLimits: { wallMs: 20_000 } });
});
afterAll(async () => {
  await stack.close();
  await sandbox.close();
});

let made = 0;
/** Findings of their own to delete, made through the workspace API (the test's own requests). */
async function newFindings(n: number, label: string): Promise<{ id: string; statement: string }[]> {
  const out: { id: string; statement: string }[] = [];
  for (let i = 0; i < n; i++) {
    const statement = `${label}: finding ${String.fromCharCode(65 + i)} (#${++made})`;
    const res = await fetch(`${sandbox.api}/engagements/${ENGAGEMENT_AP}/findings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.tokens.write}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'risk', statement }),
    });
    expect(res.status).toBe(201);
    out.push({ id: ((await res.json()) as { data: { id: string } }).data.id, statement });
  }
  return out;
}

/** The findings deleted so far, by id, in the order the DELETEs reached the workspace. */
const deleted = () =>
  sandbox
    .requests()
    .filter((r) => r.method === 'DELETE' && r.template === '/engagements/{engagement}/findings/{finding}')
    .map((r) => r.path.split('/').at(-1) as string);

/** A script deleting every finding at once, answering what each delete came to: deleted, or its error's code. */
const deleteAtOnce = (ids: string[]) => `
  const settled = await Promise.allSettled(${JSON.stringify(ids)}.map((finding) => api.delete_finding({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, finding })));
  return settled.map((s) => (s.status === 'fulfilled' ? 'deleted' : s.reason.name + ':' + s.reason.code));
`;

type ElicitParams = ElicitRequest['params'];

/**
 * The user, answering each finding's question with its answer (found by the statement the question
 * quotes). Records, for each question, which finding it was about and whether a DELETE not yet
 * accepted had already left: a write sent before the answer to its own question.
 */
function user(findings: { id: string; statement: string }[], answers: Answer[], never?: () => Promise<unknown>) {
  const asked: number[] = [];
  const early: string[] = [];
  // Deleted before this user was asked anything: not theirs to answer for.
  const accepted = new Set<string>(deleted());
  const handle = async (params: ElicitParams): Promise<{ action: 'accept' | 'decline' | 'cancel' }> => {
    const i = findings.findIndex((f) => params.message.includes(JSON.stringify(f.statement)));
    asked.push(i);
    for (const id of deleted()) if (!accepted.has(id)) early.push(id);
    const answer = answers[i] ?? 'cancel';
    if (answer === 'never') {
      // Answered only once the call has given up on the question: a late yes.
      await never?.();
      return { action: 'accept' };
    }
    if (answer === 'accept') accepted.add(findings[i]?.id as string);
    return { action: answer };
  };
  return { asked, early, handle };
}

/** The expectations every case shares: one question per finding, nothing sent early, exactly the accepted ones deleted. */
function expectOwnAnswers(findings: { id: string }[], answers: Answer[], u: ReturnType<typeof user>, result: CallToolResult, since: readonly string[]) {
  const gone = deleted().filter((id) => !since.includes(id));
  expect(u.early, 'deleted before the answer to its own question').toEqual([]);
  expect([...gone].sort(), 'deleted').toEqual(
    findings
      .filter((_, i) => answers[i] === 'accept')
      .map((f) => f.id)
      .sort(),
  );
  expect([...u.asked].sort(), 'the findings asked about').toEqual(findings.map((_, i) => i));
  const sc = result.structuredContent as { result?: string[]; writes: { operation: string; ok: boolean }[] };
  expect(sc.writes).toEqual(gone.map(() => ({ operation: 'delete_finding', ok: true })));
}

/** The outcome each finding's delete should report in the script. */
const outcomeOf = (a: Answer) => (a === 'accept' ? 'deleted' : 'DeclinedError:declined');

/** A client's tool call, whichever SDK made the client. */
type CallTool = (params: { name: string; arguments: Record<string, unknown> }) => Promise<unknown>;

/** Runs the script deleting the findings at once; it deletes exactly those whose own question was accepted, and says so per finding. */
async function expectScriptDeletesOwnAnswers(callTool: CallTool, findings: { id: string }[], answers: Answer[], u: ReturnType<typeof user>) {
  const before = deleted();
  const r = (await callTool({ name: 'run_write_script', arguments: { script: deleteAtOnce(findings.map((f) => f.id)) } })) as CallToolResult;
  expectOwnAnswers(findings, answers, u, r, before);
  expect(r.isError, textOf(r)).toBeFalsy();
  expect((r.structuredContent as { result: string[] }).result).toEqual(answers.map(outcomeOf));
}

const CASES: { name: string; answers: Answer[] }[] = [
  { name: 'the first accepted, the second declined', answers: ['accept', 'decline'] },
  { name: 'the first declined, the second accepted', answers: ['decline', 'accept'] },
  { name: 'both accepted', answers: ['accept', 'accept'] },
  { name: 'both declined', answers: ['decline', 'decline'] },
  { name: 'one cancelled, one accepted', answers: ['cancel', 'accept'] },
  { name: 'three: accepted, declined, accepted', answers: ['accept', 'decline', 'accept'] },
  { name: 'three: declined, accepted, cancelled', answers: ['decline', 'accept', 'cancel'] },
];

for (const era of ERAS) {
  describe(`a script deleting several findings at once, each asked on its own (${era}, HTTP)`, () => {
    for (const c of CASES) {
      it(`${c.name}: exactly the accepted ones are deleted, each only after its own yes`, async () => {
        const findings = await newFindings(c.answers.length, `Own answer ${era}`);
        const client = await stack.connect(era, { capabilities: { elicitation: { form: {} } } });
        const u = user(findings, c.answers);
        client.setRequestHandler('elicitation/create', (req: ElicitRequest) => u.handle(req.params));
        await expectScriptDeletesOwnAnswers((p) => client.callTool(p), findings, c.answers, u);
      }, 30_000);
    }

    it('one never answered: the accepted one is deleted, the script stops at its own time limit saying the other was cancelled unsent, and a late yes sends nothing', async () => {
      const short = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default' }, scriptLimits: { wallMs: 2_000 } });
      try {
        const findings = await newFindings(2, `Never answered ${era}`);
        const client = await short.connect(era, { capabilities: { elicitation: { form: {} } } });
        const from = short.logs.length;
        // The event the late answer waits for: the server gave up the write waiting for it.
        const u = user(findings, ['accept', 'never'], () => short.waitForLog(/"op":"delete_finding".*"msg":"tool call cancelled"/, 20_000, from));
        client.setRequestHandler('elicitation/create', (req: ElicitRequest) => u.handle(req.params));
        const before = deleted();
        const r = (await client.callTool({ name: 'run_write_script', arguments: { script: deleteAtOnce(findings.map((f) => f.id)) } })) as CallToolResult;
        expect(r.isError).toBe(true);
        const error = (r.structuredContent as { error: { code: string; message: string } }).error;
        expect(error.code).toBe('time_limit');
        expect(error.message).toMatch(/the write waiting for the user's confirmation was cancelled unsent: nothing was changed by it\.$/);
        expect(textOf(r)).toMatch(/Writes made: delete_finding \(done\)\./);
        expectOwnAnswers(findings, ['accept', 'never'], u, r, before);
      } finally {
        await short.close();
      }
    }, 30_000);

    it('parallel tool calls each wait for their own answer: the accepted one is deleted, the declined one is not', async () => {
      const findings = await newFindings(2, `Parallel ${era}`);
      const client = await stack.connect(era, { capabilities: { elicitation: { form: {} } } });
      const u = user(findings, ['decline', 'accept']);
      client.setRequestHandler('elicitation/create', (req: ElicitRequest) => u.handle(req.params));
      const before = deleted();
      const [a, b] = (await Promise.all(
        findings.map((f) => client.callTool({ name: 'delete_finding', arguments: { engagement: ENGAGEMENT_AP, finding: f.id } })),
      )) as CallToolResult[];
      expect(a?.isError).toBe(true);
      expect(textOf(a as CallToolResult)).toMatch(/the user declined delete_finding .*Nothing was sent/);
      expect(b?.isError, textOf(b as CallToolResult)).toBeFalsy();
      expect(u.early).toEqual([]);
      expect(deleted().filter((id) => !before.includes(id))).toEqual([findings[1]?.id]);
    }, 30_000);

    it("another session's answers are its own: each session deletes what its own user accepted", async () => {
      const findings = await newFindings(2, `Sessions ${era}`);
      const users = [user(findings, ['accept', 'cancel']), user(findings, ['decline', 'accept'])];
      const clients: Client[] = [];
      for (const u of users) {
        const client = await stack.connect(era, { capabilities: { elicitation: { form: {} } } });
        client.setRequestHandler('elicitation/create', (req: ElicitRequest) => u.handle(req.params));
        clients.push(client);
      }
      const before = deleted();
      // Each session deletes its own finding while the other is being asked.
      const results = (await Promise.all(
        clients.map((client, i) => client.callTool({ name: 'run_write_script', arguments: { script: deleteAtOnce([findings[i]?.id as string]) } })),
      )) as CallToolResult[];
      expect(results.map((r) => (r.structuredContent as { result: string[] }).result)).toEqual([['deleted'], ['deleted']]);
      expect(users.map((u) => u.asked)).toEqual([[0], [1]]);
      expect([...deleted().filter((id) => !before.includes(id))].sort()).toEqual(findings.map((f) => f.id).sort());
    }, 30_000);
  });
}

describe('over stdio, the server as a client starts it', () => {
  for (const era of ERAS) {
    it(`a script deleting three findings at once: exactly the accepted ones are deleted, each after its own yes (${era})`, async () => {
      const home = await serverHome(sandbox, { WORKSPACE_TOOLSETS: 'default' });
      const findings = await newFindings(3, `Stdio ${era}`);
      const answers: Answer[] = ['accept', 'decline', 'accept'];
      const u = user(findings, answers);
      const c = await connectStdio(era, home, {
        options: { capabilities: { elicitation: { form: {} } } },
        setup: (client) => client.setRequestHandler('elicitation/create', (req: ElicitRequest) => u.handle(req.params)),
      });
      try {
        await expectScriptDeletesOwnAnswers((p) => c.client.callTool(p), findings, answers, u);
      } finally {
        await c.close();
        await home.cleanup();
      }
    }, 60_000);
  }
});

describe('the v1 SDK client (2025-11-25)', () => {
  /** A v1 client declaring form elicitation, answering as `u` does. */
  const v1Client = (u: ReturnType<typeof user>) => {
    const client = new V1Client({ name: 'v1-confirming', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(V1ElicitRequest, (req) => u.handle(req.params as ElicitParams));
    return client;
  };

  it('over HTTP, a script deleting two findings at once: the accepted one is deleted, the declined one is not', async () => {
    const findings = await newFindings(2, 'V1 HTTP');
    const answers: Answer[] = ['decline', 'accept'];
    const u = user(findings, answers);
    const client = v1Client(u);
    await client.connect(new V1HttpTransport(new URL(stack.url)));
    try {
      await expectScriptDeletesOwnAnswers((p) => client.callTool(p), findings, answers, u);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('over stdio, a script deleting two findings at once: the accepted one is deleted, the cancelled one is not', async () => {
    const home = await serverHome(sandbox, { WORKSPACE_TOOLSETS: 'default' });
    const findings = await newFindings(2, 'V1 stdio');
    const answers: Answer[] = ['accept', 'cancel'];
    const u = user(findings, answers);
    const client = v1Client(u);
    await client.connect(
      new V1StdioTransport({ command: process.execPath, args: ['--import', 'tsx', `${ROOT}/src/cli.ts`, 'serve'], cwd: ROOT, env: home.env, stderr: 'pipe' }),
    );
    try {
      await expectScriptDeletesOwnAnswers((p) => client.callTool(p), findings, answers, u);
    } finally {
      await client.close();
      await home.cleanup();
    }
  }, 60_000);
});
