// Only a well-formed yes is yes (docs/architecture.md, Confirmation by the user): a raw client, over
// stdio (the server as a client starts it) and over Streamable HTTP (the serving code of
// `serve --http`), in both protocol eras, answers a destructive call's question with what no form
// admits: a result that is no object, content that is a text, null, or has fields the form does not
// ask for (`confirm: false` among them), no answer at all, an answer under another key, an error. Each
// call answers at once (well within the test's own bound, where the server used to hold such a call ten
// minutes), says in a plain sentence that nothing was sent (not that the user cancelled, no validator
// dump), and the sandbox sees no DELETE. A 2026 answer sent with another call's arguments is refused
// with nothing sent, and the question stays open for the right retry; an accepted retry sent again
// sends nothing more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorDetail } from '../../../src/mcp/render/tool-result.js';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { HttpPeer, messagesOf, type RawAnswer } from '../../helpers/spawn-http.js';
import { type Stack, startDefaultStack, stopDefaultStack } from '../../helpers/stack.js';
import { serverHome } from '../../helpers/stdio-server.js';
import { type Era, eraParams, type Rpc, StdioPeer } from '../../reliability/stdio-peer.js';

let sandbox: SandboxHandle;
let stack: Stack;

beforeAll(async () => {
  ({ sandbox, stack } = await startDefaultStack());
});
afterAll(() => stopDefaultStack({ sandbox, stack }));

/** How long a call may take to answer here: far below the ten minutes a question may wait. */
const AT_ONCE_MS = 15_000;

let made = 0;
async function newFinding(label: string): Promise<string> {
  const res = await fetch(`${sandbox.api}/engagements/${ENGAGEMENT_AP}/findings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.tokens.write}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'risk', statement: `${label} (#${++made})` }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

const deletesOf = (finding: string) => sandbox.requests().filter((r) => r.method === 'DELETE' && r.path.endsWith(`/findings/${finding}`));

const CAPABILITIES = { elicitation: { form: {} } };
const deletion = (finding: string) => ({ name: 'delete_finding', arguments: { engagement: ENGAGEMENT_AP, finding } });
/** A script deleting the finding, answering what the delete came to. */
const scriptDeleting = (finding: string) => ({
  name: 'run_write_script',
  arguments: {
    script: `try { await api.delete_finding({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, finding: ${JSON.stringify(finding)} }); return 'deleted'; } catch (e) { return [e.name, e.code, e.message]; }`,
  },
});

/** In a script, the write's refusal: a DeclinedError saying nothing was sent, the script going on at once. */
function expectScriptToldNothingSent(answer: Rpc | undefined, finding: string) {
  const sc = resultOf(answer).structuredContent as { result?: unknown; writes?: unknown[] } | undefined;
  expect(sc?.result).toEqual(['DeclinedError', 'not_confirmed', expect.stringMatching(/^Not run: delete_finding was not confirmed: .*\. Nothing was sent\.$/)]);
  expect(sc?.writes).toEqual([]);
  expect(deletesOf(finding)).toEqual([]);
}

/** The tool result a tools/call answer carries (empty when it carries none). */
const resultOf = (m: Rpc | undefined) =>
  (m?.result ?? {}) as {
    isError?: boolean;
    content?: { type: string; text?: string }[];
    structuredContent?: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  };

/** The text of a tools/call answer (its first text block). */
const textOfAnswer = (m: Rpc | undefined): string => resultOf(m).content?.find((c) => c.type === 'text')?.text ?? '';

/** A refusal to write for want of a well-formed yes: said plainly, nothing sent, not blamed on the user. */
function expectNothingSent(answer: Rpc | undefined, finding: string, why?: RegExp) {
  expect(answer?.error, JSON.stringify(answer?.error)).toBeUndefined();
  expect(resultOf(answer).isError).toBe(true);
  const text = textOfAnswer(answer);
  expect(text).toMatch(/^Not run: delete_finding was not confirmed: .*\. Nothing was sent\.$/);
  if (why) expect(text).toMatch(why);
  expect(text).not.toMatch(/cancelled/i);
  expect(text).not.toMatch(/zod|invalid_type|expected|Invalid input|schema/i);
  expect(errorDetail(resultOf(answer))?.code).toBe('not_confirmed');
  expect(deletesOf(finding)).toEqual([]);
}

// -- 2025-11-25: the server asks with elicitation/create within the call's request --------------------

/** A raw 2025 client: calls a tool and answers its one elicitation/create with `reply` (a result or an error, as sent). */
interface Legacy {
  call(params: Record<string, unknown>, reply: Record<string, unknown>): Promise<Rpc | undefined>;
  close(): Promise<void>;
}

async function legacyStdio(): Promise<Legacy> {
  const home = await serverHome(sandbox, { WORKSPACE_TOOLSETS: 'default' });
  const peer = new StdioPeer('source', home.env);
  peer.send({
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: CAPABILITIES, clientInfo: { name: 'raw', version: '1' } },
  });
  await peer.answer('init');
  peer.send({ method: 'notifications/initialized' });
  const answered = new Set<unknown>();
  let n = 0;
  return {
    async call(params, reply) {
      const id = `call-${++n}`;
      peer.send({ id, method: 'tools/call', params });
      const asked = await peer.waitFor((m) => m.method === 'elicitation/create' && !answered.has(m.id), 'an elicitation/create');
      answered.add(asked.id);
      peer.raw(`${JSON.stringify({ jsonrpc: '2.0', id: asked.id, ...reply })}\n`);
      return peer.answer(id, AT_ONCE_MS);
    },
    async close() {
      await peer.close();
      await home.cleanup();
    },
  };
}

/** The JSON-RPC messages of an event stream, each as it comes. */
async function* events(res: Response): AsyncGenerator<Rpc> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line.startsWith('data:') && line.length > 5) yield JSON.parse(line.slice(5)) as Rpc;
    }
  }
}

async function legacyHttp(url: string): Promise<Legacy> {
  const post = (body: unknown, session?: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
      },
      body: JSON.stringify(body),
    });
  const init = await post({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: CAPABILITIES, clientInfo: { name: 'raw', version: '1' } },
  });
  const session = init.headers.get('mcp-session-id') as string;
  await init.text();
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
  let n = 0;
  return {
    async call(params, reply) {
      const id = `call-${++n}`;
      const res = await post({ jsonrpc: '2.0', id, method: 'tools/call', params }, session);
      const bound = AbortSignal.timeout(AT_ONCE_MS);
      for await (const m of events(res)) {
        if (bound.aborted) return undefined;
        if (m.method === 'elicitation/create') {
          const sent = await post({ jsonrpc: '2.0', id: m.id, ...reply }, session);
          await sent.text();
        } else if (m.id === id) return m;
      }
      return undefined;
    },
    close: async () => {},
  };
}

/** What a 2025 client may answer a question with that is no yes, and why the call says it was not. */
const LEGACY_REPLIES: { name: string; reply: Record<string, unknown>; why: RegExp }[] = [
  { name: 'a result that is no object', reply: { result: [] }, why: /the client answered the question with an error/ },
  { name: 'content that is a text', reply: { result: { action: 'accept', content: 'yes' } }, why: /content was a text/ },
  { name: 'null content', reply: { result: { action: 'accept', content: null } }, why: /content was null/ },
  { name: 'confirm: false', reply: { result: { action: 'accept', content: { confirm: false } } }, why: /a field the form does not ask for/ },
  { name: 'a field the form does not ask for', reply: { result: { action: 'accept', content: { note: 'go ahead' } } }, why: /a field the form/ },
  { name: 'an action that is none of the three', reply: { result: { action: 'yes' } }, why: /neither accept, decline nor cancel/ },
  { name: 'an error instead of an answer', reply: { error: { code: -32603, message: 'the form could not be shown' } }, why: /with an error/ },
];

for (const wire of ['stdio', 'HTTP'] as const) {
  describe(`2025-11-25 over ${wire}: a question's answer that is no well-formed yes`, () => {
    let client: Legacy;
    beforeAll(async () => {
      client = wire === 'stdio' ? await legacyStdio() : await legacyHttp(stack.url);
    }, 60_000);
    afterAll(() => client?.close());

    for (const c of LEGACY_REPLIES) {
      it(`${c.name}: nothing is sent, and the call says so at once`, async () => {
        const finding = await newFinding(`Malformed 2025 ${wire}: ${c.name}`);
        expectNothingSent(await client.call(deletion(finding), c.reply), finding, c.why);
      });
    }

    it('in a script, confirm: false: the write gets a DeclinedError at once, nothing sent', async () => {
      const finding = await newFinding(`Malformed 2025 script ${wire}`);
      expectScriptToldNothingSent(await client.call(scriptDeleting(finding), { result: { action: 'accept', content: { confirm: false } } }), finding);
    });

    it('the well-formed yes, an empty object as content: deleted once', async () => {
      const finding = await newFinding(`Well-formed 2025 ${wire}`);
      const answer = await client.call(deletion(finding), { result: { action: 'accept', content: {} } });
      expect(resultOf(answer).isError, textOfAnswer(answer)).toBeFalsy();
      expect(deletesOf(finding)).toHaveLength(1);
    });
  });
}

// -- 2026-07-28: the server answers input_required; the client sends the request again with the answer

/** A raw 2026 client: one tools/call request and the message answering it. */
interface Modern {
  call(params: Record<string, unknown>): Promise<Rpc | undefined>;
  close(): Promise<void>;
}

const modernParams = (params: Record<string, unknown>) =>
  eraParams('modern', { ...params, _meta: { 'io.modelcontextprotocol/clientCapabilities': CAPABILITIES } });

async function modernStdio(): Promise<Modern> {
  const home = await serverHome(sandbox, { WORKSPACE_TOOLSETS: 'default' });
  const peer = new StdioPeer('source', home.env);
  let n = 0;
  return {
    async call(params) {
      const id = `call-${++n}`;
      peer.send({ id, method: 'tools/call', params: modernParams(params) });
      return peer.answer(id, AT_ONCE_MS);
    },
    async close() {
      await peer.close();
      await home.cleanup();
    },
  };
}

async function modernHttp(url: string): Promise<Modern> {
  const peer = await HttpPeer.open(Number(new URL(url).port), 'modern' satisfies Era);
  let n = 0;
  return {
    async call(params) {
      const id = `call-${++n}`;
      const a: RawAnswer = await peer.send({ id, method: 'tools/call', params: modernParams(params) });
      return messagesOf(a).find((m) => m.id === id);
    },
    close: async () => {},
  };
}

/** The first round of a call: its one question's key, its form, and the state to send back with the answer. */
async function firstRound(client: Modern, params: Record<string, unknown>): Promise<{ key: string; form: unknown; requestState: string }> {
  const answer = await client.call(params);
  const result = answer?.result as { resultType?: string; inputRequests?: Record<string, { params?: { requestedSchema?: unknown } }>; requestState?: string };
  expect(result?.resultType, JSON.stringify(answer)).toBe('input_required');
  const keys = Object.keys(result.inputRequests ?? {});
  expect(keys).toHaveLength(1);
  const key = keys[0] as string;
  return { key, form: result.inputRequests?.[key]?.params?.requestedSchema, requestState: result.requestState as string };
}

/** What a 2026 client may send back that is no yes to the question asked (`key`: its own key), and why the call says it was not. */
const MODERN_RETRIES: { name: string; responses: (key: string) => Record<string, unknown>; why: RegExp }[] = [
  { name: 'an answer that is no object', responses: (key) => ({ [key]: [] }), why: /carried no answer/ },
  { name: 'content that is a text', responses: (key) => ({ [key]: { action: 'accept', content: 'yes' } }), why: /content was a text/ },
  { name: 'null content', responses: (key) => ({ [key]: { action: 'accept', content: null } }), why: /content was null/ },
  { name: 'confirm: false', responses: (key) => ({ [key]: { action: 'accept', content: { confirm: false } } }), why: /a field the form does not ask for/ },
  { name: 'no answer at all', responses: () => ({}), why: /carried no answer/ },
  { name: 'a yes under another key', responses: () => ({ confirm: { action: 'accept' } }), why: /carried no answer/ },
];

for (const wire of ['stdio', 'HTTP'] as const) {
  describe(`2026-07-28 over ${wire}: a retry carrying no well-formed yes, or another call's state`, () => {
    let client: Modern;
    beforeAll(async () => {
      client = wire === 'stdio' ? await modernStdio() : await modernHttp(stack.url);
    }, 60_000);
    afterAll(() => client?.close());

    it('each question has a key of its own, and its form admits nothing but an empty object', async () => {
      const [a, b] = [await newFinding(`Form 2026 ${wire}`), await newFinding(`Form 2026 ${wire}`)];
      const first = await firstRound(client, deletion(a));
      const second = await firstRound(client, deletion(b));
      expect(first.key).not.toBe(second.key);
      expect(first.form).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    });

    for (const c of MODERN_RETRIES) {
      it(`${c.name}: nothing is sent, and the call says so at once`, async () => {
        const finding = await newFinding(`Malformed 2026 ${wire}: ${c.name}`);
        const { key, requestState } = await firstRound(client, deletion(finding));
        expectNothingSent(await client.call({ ...deletion(finding), inputResponses: c.responses(key), requestState }), finding, c.why);
      });
    }

    it('in a script, null content: the write gets a DeclinedError at once, nothing sent', async () => {
      const finding = await newFinding(`Malformed 2026 script ${wire}`);
      const { key, requestState } = await firstRound(client, scriptDeleting(finding));
      const answer = await client.call({ ...scriptDeleting(finding), inputResponses: { [key]: { action: 'accept', content: null } }, requestState });
      expectScriptToldNothingSent(answer, finding);
    });

    it("a yes with another call's arguments is refused, nothing sent; the question stays open for its own call, whose yes deletes it once; sent again, nothing more", async () => {
      const asked = await newFinding(`Asked about (2026 ${wire})`);
      const other = await newFinding(`Not asked about (2026 ${wire})`);
      const { key, requestState } = await firstRound(client, deletion(asked));
      const yes = { [key]: { action: 'accept', content: {} } };

      const crossed = await client.call({ ...deletion(other), inputResponses: yes, requestState });
      expect(resultOf(crossed).isError).toBe(true);
      expect(textOfAnswer(crossed)).toMatch(/another call .*Nothing was sent: call delete_finding again/);
      expect(deletesOf(asked)).toEqual([]);
      expect(deletesOf(other)).toEqual([]);

      const own = await client.call({ ...deletion(asked), inputResponses: yes, requestState });
      expect(resultOf(own).isError, textOfAnswer(own)).toBeFalsy();
      expect(deletesOf(asked)).toHaveLength(1);

      const replayed = await client.call({ ...deletion(asked), inputResponses: yes, requestState });
      expect(textOfAnswer(replayed)).toMatch(/no longer awaited.*Nothing was sent/);
      expect(deletesOf(asked)).toHaveLength(1);
      expect(deletesOf(other)).toEqual([]);
    });
  });
}
