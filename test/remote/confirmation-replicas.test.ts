// Confirmation by the user across the remote mode's replicas: two replicas of the real CLI's
// `serve --remote` on one real Redis behind the round-robin balancer, members signed in through the
// workspace's pages, and the SDK client in 2026-07-28 mode declaring form elicitation. A destructive
// call's first round (the form, and a signed requestState) is answered by one replica and the client's
// retry by the other, which holds nothing of the first: accept sends it once, decline and cancel send
// nothing. As an attacker would: a retry rewritten for other arguments, sent by another member, with
// an altered state, or an accepted state sent again, sends nothing. The sandbox's request log shows
// what was sent. Scripts cannot be resumed on another replica: they keep `allow`.
import { Client, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, ElicitRequest } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { negotiation, textOf } from '../helpers/stack.js';
import { CLAIRE, type Deployment, deployment, MARC, type Member, remoteFixture, signInAs } from './deployment.js';
import type { TestOAuthProvider } from './helpers.js';

type Action = 'accept' | 'decline' | 'cancel';

const remote = remoteFixture();
let d: Deployment;
let claire: Member;
let marc: Member;

beforeAll(async () => {
  d = await deployment(remote.redis, 2);
  claire = await signInAs(d, CLAIRE, 'write', 'modern');
  marc = await signInAs(d, MARC, 'write', 'modern');
}, 120_000);
afterAll(async () => {
  await claire?.client.close();
  await marc?.client.close();
  await d?.close();
});

/** A finding of its own to delete, made through the workspace API (the test's own request). */
async function newFinding(statement: string): Promise<string> {
  const res = await fetch(`${d.sandbox.api}/engagements/${ENGAGEMENT_AP}/findings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.sandbox.tokens.write}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'risk', statement }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

const deletes = () => d.sandbox.requests().filter((r) => r.method === 'DELETE' && r.template === '/engagements/{engagement}/findings/{finding}');

/** A request the client sent: its headers and body, as a retry carrying a requestState is replayed or rewritten. */
interface Sent {
  headers: Headers;
  body: string;
}

/**
 * The member's client in 2026-07-28 mode, declaring form elicitation and answering each question with
 * `action`; `rewrite` may change a retry (a request carrying a requestState) before it leaves.
 */
async function confirmingClient(provider: TestOAuthProvider, action: Action, rewrite?: (sent: Sent) => Sent) {
  const asked: string[] = [];
  const retries: Sent[] = [];
  const fetchVia: FetchLike = async (url, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"requestState"')) {
      let sent: Sent = { headers: new Headers(init.headers), body: init.body };
      retries.push(sent);
      if (rewrite) sent = rewrite({ headers: new Headers(sent.headers), body: sent.body });
      return fetch(url, { ...init, headers: sent.headers, body: sent.body });
    }
    return fetch(url, init);
  };
  const client = new Client({ name: 'confirming', version: '1' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: negotiation('modern') });
  client.setRequestHandler('elicitation/create', (req: ElicitRequest) => {
    asked.push(req.params.message);
    return { action };
  });
  await client.connect(new StreamableHTTPClientTransport(d.mcpUrl, { authProvider: provider, fetch: fetchVia }));
  return { client, asked, retries };
}

/** Calls `name`; the replicas that answered the call's requests, in order. */
async function callOnReplicas(client: Client, name: string, args: Record<string, unknown>) {
  const mark = d.lb.served.length;
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const targets = d.lb.served
    .slice(mark)
    .filter((s) => s.path.startsWith('/mcp'))
    .map((s) => s.target);
  return { result, targets };
}

/** Sends a captured request again, as it was (or with `body`); the JSON-RPC answer, from JSON or an event stream. */
async function resend(sent: Sent, body = sent.body): Promise<{ result?: CallToolResult; error?: { code: number; message: string } }> {
  const res = await fetch(d.mcpUrl, { method: 'POST', headers: sent.headers, body });
  const text = await res.text();
  const messages = String(res.headers.get('content-type')).startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>)
    : [JSON.parse(text) as Record<string, unknown>];
  const answer = messages.find((m) => 'result' in m || 'error' in m);
  if (!answer) throw new Error(`no answer in: ${text.slice(0, 300)}`);
  return answer as { result?: CallToolResult; error?: { code: number; message: string } };
}

describe('a destructive call by a 2026 client, asked on one replica and answered on the other', () => {
  it('accept: the user is shown what will be deleted, the retry lands on the other replica, and it is deleted once; the accepted state sent again sends nothing more', async () => {
    const finding = await newFinding('Confirmed across replicas');
    const { client, asked, retries } = await confirmingClient(claire.provider, 'accept');
    try {
      d.sandbox.clearRequests();
      const { result, targets } = await callOnReplicas(client, 'delete_finding', { engagement: ENGAGEMENT_AP, finding });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('"Confirmed across replicas"');
      expect(asked[0]).toContain(`finding ${finding}`);
      // The question and the answer went to different replicas.
      expect(targets).toHaveLength(2);
      expect(new Set(targets).size).toBe(2);
      expect(deletes()).toHaveLength(1);

      // Replayed, to either replica: refused, no second DELETE.
      expect(retries).toHaveLength(1);
      for (let i = 0; i < 2; i++) {
        const again = await resend(retries[0] as Sent);
        expect(again.result?.isError).toBe(true);
        expect(textOf(again.result as CallToolResult)).toMatch(/already used\. Nothing more was sent/);
      }
      expect(deletes()).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);

  for (const action of ['decline', 'cancel'] as const) {
    it(`${action}: asked on one replica, answered on the other, nothing is sent`, async () => {
      const finding = await newFinding(`Kept across replicas (${action})`);
      const { client, asked } = await confirmingClient(claire.provider, action);
      try {
        d.sandbox.clearRequests();
        const { result, targets } = await callOnReplicas(client, 'delete_finding', { engagement: ENGAGEMENT_AP, finding });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(new RegExp(`the user ${action === 'decline' ? 'declined' : 'cancelled'} delete_finding .*Nothing was sent`));
        expect(asked).toHaveLength(1);
        expect(new Set(targets).size).toBe(2);
        expect(deletes()).toEqual([]);
      } finally {
        await client.close();
      }
    }, 60_000);
  }

  it('through call_operation: accepted on the other replica, deleted once', async () => {
    const finding = await newFinding('Gateway across replicas');
    const { client, asked } = await confirmingClient(claire.provider, 'accept');
    try {
      d.sandbox.clearRequests();
      const { result, targets } = await callOnReplicas(client, 'call_operation', {
        operation: 'delete_finding',
        arguments: { engagement: ENGAGEMENT_AP, finding },
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(asked[0]).toContain('"Gateway across replicas"');
      expect(new Set(targets).size).toBe(2);
      expect(deletes()).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a retry rewritten for other arguments is refused, and nothing is sent', async () => {
    const asked = await newFinding('Asked about this one');
    const other = await newFinding('Not asked about this one');
    const { client } = await confirmingClient(claire.provider, 'accept', (sent) => ({
      headers: sent.headers,
      body: sent.body.replace(asked, other),
    }));
    try {
      d.sandbox.clearRequests();
      const { result } = await callOnReplicas(client, 'delete_finding', { engagement: ENGAGEMENT_AP, finding: asked });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/given for other arguments\. Nothing was sent/);
      expect(deletes()).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("another member sending a member's accepted retry is refused, and nothing is sent", async () => {
    const finding = await newFinding("Claire's to confirm");
    const { client } = await confirmingClient(claire.provider, 'accept', (sent) => {
      sent.headers.set('authorization', `Bearer ${marc.token}`);
      return sent;
    });
    try {
      d.sandbox.clearRequests();
      const { result } = await callOnReplicas(client, 'delete_finding', { engagement: ENGAGEMENT_AP, finding });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/asked of another member\. Nothing was sent/);
      expect(deletes()).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('an altered state is refused as invalid, and nothing is sent', async () => {
    const finding = await newFinding('Altered state');
    const { client } = await confirmingClient(claire.provider, 'accept', (sent) => {
      const body = JSON.parse(sent.body) as { params: { requestState: string } };
      const state = body.params.requestState;
      // The state's signed body says which finding; the signature no longer fits once it changes.
      body.params.requestState = `${state.slice(0, 10)}${state[10] === 'A' ? 'B' : 'A'}${state.slice(11)}`;
      return { headers: sent.headers, body: JSON.stringify(body) };
    });
    try {
      d.sandbox.clearRequests();
      await expect(client.callTool({ name: 'delete_finding', arguments: { engagement: ENGAGEMENT_AP, finding } })).rejects.toThrow(
        /Invalid or expired requestState/,
      );
      expect(deletes()).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a script is not resumed on another replica: it is not asked, and a destructive call still needs allow', async () => {
    const finding = await newFinding('Script across replicas');
    const { client, asked } = await confirmingClient(claire.provider, 'accept');
    try {
      d.sandbox.clearRequests();
      const script = `await api.delete_finding({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, finding: ${JSON.stringify(finding)} });`;
      const refused = (await client.callTool({ name: 'run_write_script', arguments: { script } })) as CallToolResult;
      expect((refused.structuredContent as { error: { code: string } }).error.code).toBe('not_allowed');
      expect(textOf(refused)).toMatch(/not put to the user through the client's form .*with allow/);
      expect(asked).toEqual([]);
      expect(deletes()).toEqual([]);
      const allowed = (await client.callTool({ name: 'run_write_script', arguments: { script, allow: ['delete_finding'] } })) as CallToolResult;
      expect(allowed.isError, textOf(allowed)).toBeFalsy();
      expect(asked).toEqual([]);
      expect(deletes()).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);
});
