// Requests the SDK cannot read. Left to it, requests whose `_meta` is an array or a string, whose
// progressToken is an object, a `tools/list` with `params: []`, and a message holding both `method`
// and `result` are never answered (the client waits forever); non-object `arguments` and a tools/call
// without a tool `name` are answered -32603 "Internal error" with a zod dump. So the message guard (src/mcp/transport/message-guard.ts) answers each with its id: -32602 for params that are
// not what the method takes, -32600 for a message that is not a request; a notification as malformed
// is dropped (JSON-RPC answers none). Each case is sent as a client of each era sends it (a 2026
// client's params carry the `_meta` envelope, unless `_meta` itself is what is broken), over stdio and
// over HTTP (`serve --http`, where the error comes with status 400), and the next request is served.
import { beforeAll, describe, expect, it } from 'vitest';
import { HttpPeer } from '../helpers/spawn-http.js';
import { ERAS, useMisbehavingClientTargets } from './misbehaving-client-targets.js';
import { type Era, eraParams, MODERN_META, type Rpc } from './stdio-peer.js';

interface Case {
  what: string;
  /** The message as a client of the era sends it (id given; none for a notification). */
  message(era: Era, id: string): Record<string, unknown>;
  /** The JSON-RPC error it gets, or 'dropped' for a notification. */
  answer: { code: number; says: RegExp } | 'dropped';
}

const call = (era: Era, params: Record<string, unknown>) => ({ method: 'tools/call', params: eraParams(era, params) });
/** A `_meta` that is not an object: a 2026 client's envelope, which lives in `_meta`, goes with it. */
const metaNotObject = (meta: unknown) => (_era: Era, id: string) => ({ id, method: 'tools/list', params: { _meta: meta } });
const INVALID_PARAMS = (says: RegExp) => ({ code: -32602, says });

const CASES: Case[] = [
  {
    what: '_meta is an array',
    message: metaNotObject(['io.modelcontextprotocol/protocolVersion', '2026-07-28']),
    answer: INVALID_PARAMS(/params\._meta must be an object/),
  },
  { what: '_meta is a string', message: metaNotObject('2026-07-28'), answer: INVALID_PARAMS(/params\._meta must be an object/) },
  {
    what: 'progressToken is an object',
    message: (era, id) => ({ id, ...call(era, { name: 'get_workspace', arguments: {}, _meta: { progressToken: { token: 1 } } }) }),
    answer: INVALID_PARAMS(/params\._meta\.progressToken must be a string or a number/),
  },
  { what: 'tools/list with params: []', message: (_era, id) => ({ id, method: 'tools/list', params: [] }), answer: INVALID_PARAMS(/params must be an object/) },
  {
    what: 'a message holding both method and result',
    message: (era, id) => ({ id, method: 'tools/list', params: eraParams(era), result: {} }),
    answer: { code: -32600, says: /a message cannot be both a request and a response/ },
  },
  ...(
    [
      ['an array', [1, 2]],
      ['a number', 42],
      ['a boolean', true],
      ['plain text', 'engagement please'],
    ] as const
  ).map(
    ([shape, args]): Case => ({
      what: `arguments as ${shape}`,
      message: (era, id) => ({ id, ...call(era, { name: 'get_workspace', arguments: args }) }),
      answer: INVALID_PARAMS(/arguments must be an object of named arguments/),
    }),
  ),
  {
    what: 'a tools/call without a tool name',
    message: (era, id) => ({ id, ...call(era, { arguments: {} }) }),
    answer: INVALID_PARAMS(/params\.name must be the name of a tool/),
  },
  {
    what: 'a tool name that is a number',
    message: (era, id) => ({ id, ...call(era, { name: 42, arguments: {} }) }),
    answer: INVALID_PARAMS(/params\.name must be the name of a tool/),
  },
  {
    what: 'a tools/call with no params',
    message: (_era, id) => ({ id, method: 'tools/call' }),
    answer: INVALID_PARAMS(/params\.name must be the name of a tool/),
  },
  {
    what: 'a notification whose _meta is an array',
    message: (era) => ({ method: 'notifications/roots/list_changed', params: { _meta: era === 'modern' ? [MODERN_META] : [] } }),
    answer: 'dropped',
  },
];

/** What a client can act on: the code, a short message of plain words, no schema library's dump. */
function expectReadableError(m: Rpc | undefined, id: string, want: { code: number; says: RegExp }): void {
  expect(m, `no answer to ${id}`).toBeDefined();
  expect(m?.error?.code, JSON.stringify(m)).toBe(want.code);
  expect(m?.error?.message).toMatch(want.says);
  expect(m?.error?.message.length).toBeLessThan(200);
  expect(JSON.stringify(m)).not.toMatch(/invalid_type|invalid_union|"path"|ZodError|expected (object|string|record)|Internal error/);
}

const targets = useMisbehavingClientTargets('wcm-malformed-');

const next = (era: Era, id: string) => ({ id, method: 'tools/list', params: eraParams(era) });

describe.each(ERAS)('over stdio, %s era', (era) => {
  it.each(CASES.map((c) => [c.what, c] as const))('%s: answered by its id (or dropped), and the next request served', async (_what, c) => {
    const peer = targets.peer(era);
    const id = `bad ${c.what}`;
    const before = peer.messages.length;
    peer.send(c.message(era, id));
    peer.send(next(era, `next ${c.what}`));
    const listed = await peer.answer(`next ${c.what}`);
    expect((listed.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    if (c.answer === 'dropped') {
      // Nothing came back for it: the only message since is the next request's answer.
      expect(peer.messages.slice(before).map((m) => m.id)).toEqual([`next ${c.what}`]);
    } else {
      expectReadableError(await peer.answer(id), id, c.answer);
      expect(peer.messages.slice(before).filter((m) => m.id === null)).toEqual([]);
    }
    expect(peer.child.exitCode).toBeNull();
  });

  it('ends cleanly on EOF after them all: exit 0, only JSON-RPC on stdout', async () => {
    const peer = targets.peer(era);
    expect(await peer.close()).toEqual({ code: 0, signal: null });
    expect(peer.strayLines).toEqual([]);
    expect(peer.stderr).not.toMatch(/TypeError|RangeError|uncaught|unhandled/i);
  });
});

describe.each(ERAS)('over HTTP (serve --http), %s era', (era) => {
  let peer: HttpPeer;
  beforeAll(async () => {
    peer = await HttpPeer.open(targets.http.port, era);
  });

  it.each(CASES.map((c) => [c.what, c] as const))('%s: 400 with its JSON-RPC error (or dropped), and the next request served', async (_what, c) => {
    const id = `bad ${c.what}`;
    const bad = await peer.send(c.message(era, id));
    expect(bad.status).toBe(400);
    if (c.answer === 'dropped') {
      // HTTP answers every POST: a notification it drops gets 400 and an error without an id.
      expect(bad.messages).toEqual([{ jsonrpc: '2.0', id: null, error: { code: expect.any(Number), message: expect.any(String) } }]);
    } else {
      expect(bad.messages).toHaveLength(1);
      expect(bad.messages[0]?.id).toBe(id);
      expectReadableError(bad.messages[0], id, c.answer);
    }
    const listed = await peer.send(next(era, 'next'));
    expect(listed.status).toBe(200);
    const answer = listed.messages.find((m) => m.id === 'next');
    expect(answer, 'no answer to the next tools/list').toBeDefined();
    expect((answer!.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    expect(targets.http.child.exitCode).toBeNull();
  });
});
