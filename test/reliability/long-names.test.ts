// Long names: a client may send a 1 MB unknown tool name, and an error that echoed it back whole
// would cost the model that much context. So names are cut where they are repeated (shownName: the first 80 characters and the
// length), the gateway's operation is refused by its length, and a name longer than any real one
// (over MAX_NAME_CHARS) is refused by the message guard with its length before the SDK, whose own
// errors (an Mcp-Name header that disagrees with the body) would repeat it whole. Checked on every
// place a client names something: tools/call, call_operation, describe_operation, an argument's key,
// prompts/get and resources/read; over stdio and HTTP (`serve --http`), in both eras. A 2026 client
// sends a name that fits a header as Mcp-Name too, as the SDK's client does.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NAME_CHARS } from '../../src/mcp/transport/message-guard.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { type HttpChild, spawnHttpServer } from '../helpers/spawn-http.js';
import { httpConnection, type RawConnection, stdioConnection, type Transport } from './raw-connection.js';
import { type Era, eraParams, type Rpc } from './stdio-peer.js';

const MB = 1024 * 1024;
/** Under the guard's cap: reaches the handlers, which cut it. */
const LONG = 1_000;
const name = (n: number) => 'x'.repeat(n);

interface Case {
  what: string;
  method: string;
  params: Record<string, unknown>;
  /** What the answer says instead of the name: a cut and the length. */
  says: RegExp;
}

const cut = (n: number) => new RegExp(`x{80}\\.\\.\\. \\(${n} characters\\)`);
const refusedByGuard = (field: string) =>
  new RegExp(`^Invalid params: params\\.${field} is ${MB} characters long; no (name|URI) here is longer than ${MAX_NAME_CHARS}\\.$`);

const CASES: Case[] = [
  { what: 'a 1 MB tool name', method: 'tools/call', params: { name: name(MB), arguments: {} }, says: refusedByGuard('name') },
  { what: `a ${LONG}-character tool name`, method: 'tools/call', params: { name: name(LONG), arguments: {} }, says: cut(LONG) },
  {
    what: 'a 1 MB operation through call_operation',
    method: 'tools/call',
    params: { name: 'call_operation', arguments: { operation: name(MB) } },
    says: new RegExp(`operation: at most 100 characters; got ${MB} characters`),
  },
  {
    what: 'a 1 MB operation through describe_operation',
    method: 'tools/call',
    params: { name: 'describe_operation', arguments: { operation: name(MB) } },
    says: new RegExp(`operation: at most 100 characters; got ${MB} characters`),
  },
  {
    what: 'an unknown 100-character operation through call_operation',
    method: 'tools/call',
    params: { name: 'call_operation', arguments: { operation: name(100) } },
    says: cut(100),
  },
  {
    what: 'an unknown 100-character operation through describe_operation',
    method: 'tools/call',
    params: { name: 'describe_operation', arguments: { operation: name(100) } },
    says: cut(100),
  },
  {
    what: 'a 1 MB argument name',
    method: 'tools/call',
    params: { name: 'get_workspace', arguments: { [name(MB)]: 1 } },
    says: /unknown argument x{20,60}…: remove it/,
  },
  { what: 'a 1 MB prompt name', method: 'prompts/get', params: { name: name(MB) }, says: refusedByGuard('name') },
  { what: `a ${LONG}-character prompt name`, method: 'prompts/get', params: { name: name(LONG) }, says: cut(LONG) },
  {
    what: 'a 1 MB resource URI',
    method: 'resources/read',
    params: { uri: `workspace://${name(MB)}` },
    says: /^Invalid params: params\.uri is \d+ characters long/,
  },
  {
    what: `a ${LONG}-character resource URI`,
    method: 'resources/read',
    params: { uri: `workspace://${name(LONG)}` },
    says: new RegExp(`workspace://x{188}\\.\\.\\. \\(${LONG + 12} characters\\)`),
  },
];

let sandbox: SandboxHandle;
let http: HttpChild;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  const dir = await mkdtemp(join(tmpdir(), 'wcm-long-names-'));
  env = { WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, HOME: dir, WORKSPACE_CONFIG_DIR: join(dir, 'config'), LOG_LEVEL: 'warn' };
  http = await spawnHttpServer(env);
}, 60_000);
afterAll(async () => {
  await http?.stop();
  await sandbox?.close();
});

/** The text a client reads: a JSON-RPC error's message, or a tool result's text. */
function said(m: Rpc | undefined): string {
  if (m?.error) return m.error.message;
  const r = m?.result as { content?: Array<{ text?: string }> } | undefined;
  return (r?.content ?? []).map((c) => c.text ?? '').join('\n');
}

describe.each(['legacy', 'modern'] as Era[])('%s era', (era) => {
  describe.each(['stdio', 'HTTP'] as Transport[])('over %s', (transport) => {
    let connection: RawConnection;
    beforeAll(async () => {
      connection = transport === 'stdio' ? await stdioConnection(env, era) : await httpConnection(http.port, era);
    });
    afterAll(async () => {
      if (connection?.peer) expect(await connection.peer.close()).toEqual({ code: 0, signal: null });
    });

    it.each(CASES.map((c) => [c.what, c] as const))('%s is cut in the answer, never echoed whole', async (_what, c) => {
      const answer = await connection.exchange({ id: c.what, method: c.method, params: eraParams(era, c.params) });
      expect(answer, `no answer to ${c.what}`).toBeDefined();
      const whole = JSON.stringify(answer);
      // The answer is small whatever was sent, and repeats at most a cut part of the name.
      expect(whole.length).toBeLessThan(3_000);
      expect(whole).not.toMatch(/x{201}/);
      expect(said(answer)).toMatch(c.says);
      expect(answer!.error === undefined ? (answer!.result as { isError?: boolean }).isError : true).toBe(true);
    });
  });
});
