// A message nested thousands of levels deep. Left to the SDK, the stdio server would exit
// (RangeError: Maximum call stack size exceeded, in the SDK's JSON.stringify of the parsed message)
// on one line nested about 5,000 deep, whether a response for an id it never issued
// (`{"jsonrpc":"2.0","id":"never","result":{"x":[[[...]]]}}`) or a tools/call whose params._meta
// nested that deep; at 2,000 levels it would stay up but never answer the request. So every message
// passes the message guard (src/mcp/transport/message-guard.ts) before the SDK sees it: a request nested
// deeper than any real message is answered -32600 with its id, a response or a notification is
// dropped (JSON-RPC answers neither), and the next request is served. Over stdio (one process per
// era) and over HTTP (`serve --http`, both eras: the same errors, with status 400).
// The same depth inside a value sent as JSON text (a message only a few levels deep) once made the
// arguments reader spend seconds (20,000 levels: 7 s, quadratic) or overflow the stack (5,000: -32603);
// such text is now refused like the message, naming the field, with nothing sent.
import { describe, expect, it } from 'vitest';
import { MAX_DEPTH } from '../../src/mcp/transport/message-guard.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { HttpPeer } from '../helpers/spawn-http.js';
import { ERAS, useMisbehavingClientTargets } from './misbehaving-client-targets.js';
import { type Era, eraParams, MODERN_META } from './stdio-peer.js';

/** 2,000: left unanswered without the guard; 5,000 and 100,000: ended the process. */
const DEPTHS = [2_000, 5_000, 100_000];

/** The response for an id never issued, its result nested `depth` deep (arrays, as the probe sent it). */
function deepResponse(depth: number): string {
  return `{"jsonrpc":"2.0","id":"never","result":{"x":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}}`;
}

/**
 * A tools/call whose params._meta nests `depth` deep (objects); a 2026 client's envelope keys sit
 * beside the deep one, as that client would send them.
 */
function deepMetaCall(era: Era, depth: number, id: string): string {
  const inner = depth - 3; // the message, params and _meta are three levels already
  const deep = `${'{"x":'.repeat(inner)}1${'}'.repeat(inner)}`;
  const envelope = era === 'modern' ? `${JSON.stringify(MODERN_META).slice(1, -1)},` : '';
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"get_workspace","arguments":{},"_meta":{${envelope}"deep":${deep}}}}`;
}

/** A list read whose `fields` (an array, which clients may send as JSON text) is that text nested `depth` deep. */
function deepTextCall(era: Era, depth: number, id: string) {
  return {
    id,
    method: 'tools/call',
    params: eraParams(era, { name: 'list_findings', arguments: { engagement: ENGAGEMENT_AP, fields: `${'['.repeat(depth)}${']'.repeat(depth)}` } }),
  };
}
/** The whole arguments as JSON text nested `depth` deep. */
function deepArgumentsCall(era: Era, depth: number, id: string) {
  return {
    id,
    method: 'tools/call',
    params: eraParams(era, { name: 'list_findings', arguments: `{"engagement":"${ENGAGEMENT_AP}","x":${'['.repeat(depth)}${']'.repeat(depth)}}` }),
  };
}
const findingsRead = () => targets.sandbox.requests().filter((r) => r.template === '/engagements/{engagement}/findings');
const deepTextRefusal =
  /^Invalid arguments for list_findings; nothing was sent\.\n- fields: must be an array .*; got JSON text nested more than 64 levels deep\.$/m;

const nextCall = (era: Era, id: string) => ({ id, method: 'tools/call', params: eraParams(era, { name: 'get_workspace', arguments: {} }) });
const tooDeep = new RegExp(`^Invalid Request: nested more than ${MAX_DEPTH} levels deep\\.$`);

const targets = useMisbehavingClientTargets('wcm-deep-');

describe.each(ERAS)('over stdio, %s era', (era) => {
  it.each(DEPTHS)('%i levels: the response is dropped, the request answered -32600 with its id, and the next call served', async (depth) => {
    const peer = targets.peer(era);
    const before = peer.messages.length;
    peer.raw(`${deepResponse(depth)}\n`);
    peer.raw(`${deepMetaCall(era, depth, `deep-${depth}`)}\n`);
    peer.send(nextCall(era, `next-${depth}`));
    const refused = await peer.answer(`deep-${depth}`);
    expect(refused.error).toEqual({ code: -32600, message: expect.stringMatching(tooDeep) });
    expect((await peer.answer(`next-${depth}`)).result).toMatchObject({ structuredContent: { slug: 'atelier' } });
    // The response got nothing back: no error without an id, nothing for "never".
    const after = peer.messages.slice(before);
    expect(after.filter((m) => m.id === null || m.id === 'never')).toEqual([]);
    expect(after.map((m) => m.id)).toEqual([`deep-${depth}`, `next-${depth}`]);
    expect(peer.child.exitCode).toBeNull();
  });

  it.each(DEPTHS)('%i levels inside JSON text: the field is refused by name, the arguments -32602, nothing sent, the next call served', async (depth) => {
    const peer = targets.peer(era);
    targets.sandbox.clearRequests();
    peer.send(deepTextCall(era, depth, `text-${depth}`));
    peer.send(deepArgumentsCall(era, depth, `args-${depth}`));
    peer.send(nextCall(era, `after-text-${depth}`));
    const field = (await peer.answer(`text-${depth}`)).result as { isError?: boolean; content: Array<{ text: string }> };
    expect(field.isError).toBe(true);
    expect(field.content[0]?.text).toMatch(deepTextRefusal);
    expect((await peer.answer(`args-${depth}`)).error).toEqual({
      code: -32602,
      message: expect.stringMatching(/arguments must be an object of named arguments; got JSON text nested more than 64 levels deep/),
    });
    expect((await peer.answer(`after-text-${depth}`)).result).toMatchObject({ structuredContent: { slug: 'atelier' } });
    expect(findingsRead()).toEqual([]);
  });

  it('ends cleanly on EOF after them all: exit 0, only JSON-RPC on stdout, no crash trace', async () => {
    const peer = targets.peer(era);
    const { code, signal } = await peer.close();
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(peer.strayLines).toEqual([]);
    expect(peer.stderr).not.toMatch(/RangeError|Maximum call stack|TypeError|uncaught/i);
  });
});

describe.each(ERAS)('over HTTP (serve --http), %s era', (era) => {
  it.each(DEPTHS)('%i levels: 400 for both, the request answered -32600 with its id, and the next call served', async (depth) => {
    const peer = await HttpPeer.open(targets.http.port, era);
    const response = await peer.post(deepResponse(depth));
    // HTTP must answer a POST: a response it cannot accept gets 400 and an error without an id.
    expect(response.status).toBe(400);
    expect(response.messages).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: a response nested too deep\.$/) } },
    ]);
    const request = await peer.post(deepMetaCall(era, depth, `deep-${depth}`));
    expect(request.status).toBe(400);
    expect(request.messages).toEqual([{ jsonrpc: '2.0', id: `deep-${depth}`, error: { code: -32600, message: expect.stringMatching(tooDeep) } }]);
    const next = await peer.send(nextCall(era, `next-${depth}`));
    expect(next.status).toBe(200);
    expect(next.messages.find((m) => m.id === `next-${depth}`)?.result).toMatchObject({ structuredContent: { slug: 'atelier' } });
    expect(targets.http.child.exitCode).toBeNull();
  });

  it.each(DEPTHS)('%i levels inside JSON text: the field is refused by name, the arguments 400 with -32602, nothing sent', async (depth) => {
    const peer = await HttpPeer.open(targets.http.port, era);
    targets.sandbox.clearRequests();
    const field = await peer.send(deepTextCall(era, depth, `text-${depth}`));
    expect(field.status).toBe(200);
    const result = field.messages.find((m) => m.id === `text-${depth}`)?.result as { isError?: boolean; content: Array<{ text: string }> };
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(deepTextRefusal);
    const args = await peer.send(deepArgumentsCall(era, depth, `args-${depth}`));
    expect(args.status).toBe(400);
    expect(args.messages[0]?.error).toEqual({
      code: -32602,
      message: expect.stringMatching(/arguments must be an object of named arguments; got JSON text nested more than 64 levels deep/),
    });
    expect(findingsRead()).toEqual([]);
  });
});
