// Log lines reach a client only when it asks, and only for its own work: a 2026-07-28 request names
// its level in `_meta` (io.modelcontextprotocol/logLevel; without it, no line), a 2025-11-25
// connection asks with logging/setLevel (before that, no line). Several clients of one HTTP server
// never see each other's lines. The server logs nothing but warnings to stderr (LOG_LEVEL=warn): the
// lines a client gets are debug lines sent because that request asked.
import { CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY, type LoggingLevel } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { connectHttp, connectStdio, type EraClient, type ServerHome, serverHome, startHttpServer, WIRES, type Wire } from '../helpers/eras.js';
import type { HttpChild } from '../helpers/spawn-http.js';

type Json = Record<string, any>;

let sandbox: SandboxHandle;
let home: ServerHome;
let http: HttpChild;
const open: EraClient[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  home = await serverHome(sandbox);
  http = await startHttpServer(home);
}, 60_000);
afterAll(async () => {
  for (const c of open) await c.close().catch(() => {});
  await http?.stop();
  await sandbox?.close();
  await home?.cleanup();
});

async function connect(wire: Wire, era: 'legacy' | 'modern'): Promise<EraClient> {
  const c = wire === 'stdio' ? await connectStdio(era, home) : await connectHttp(era, http);
  open.push(c);
  return c;
}

/**
 * Calls a tool and answers the log lines the server sent the client while the call ran: read off the
 * wire, where a request's lines come before its answer (the client dispatches notifications a tick
 * later than answers).
 */
async function linesOfCall(c: EraClient, name: string, args: Json, level?: LoggingLevel): Promise<Json[]> {
  const from = c.received.wire.length;
  const r = await c.client.callTool({ name, arguments: args, ...(level ? { _meta: { [LOG_LEVEL_META_KEY]: level } } : {}) });
  expect(r.isError).toBeFalsy();
  return logLines(c, from);
}

/** The log lines on the client's wire since position `from`. */
function logLines(c: EraClient, from = 0): Json[] {
  return (c.received.wire.slice(from) as Json[]).filter((m) => m.method === 'notifications/message').map((m) => m.params as Json);
}

const FINDINGS = { engagement: ENGAGEMENT_AP, limit: 2 };
const INTERVIEWS = { engagement: ENGAGEMENT_AP, limit: 2 };

for (const wire of WIRES) {
  describe(`logging over ${wire}`, () => {
    it('a 2026-07-28 request with a logLevel gets the lines of its own work; one without gets none', async () => {
      const c = await connect(wire, 'modern');
      const stderrBefore = c.stderr().length;
      const asked = await linesOfCall(c, 'list_findings', FINDINGS, 'debug');
      // Sent to the client that asked, not written to stderr, which stays at its own level (warn).
      expect(c.stderr().slice(stderrBefore)).not.toMatch(/"msg":"tool call"/);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked).toContainEqual(
        expect.objectContaining({
          level: 'debug',
          logger: 'workspace-consulting-mcp',
          data: expect.objectContaining({ tool: 'list_findings', msg: 'tool call' }),
        }),
      );
      expect(await linesOfCall(c, 'list_findings', FINDINGS)).toEqual([]);
      // The level named is the lowest sent: a call that only logs at debug sends nothing at error.
      expect(await linesOfCall(c, 'list_findings', FINDINGS, 'error')).toEqual([]);
    });

    it('a 2025-11-25 connection gets lines only once it asked with logging/setLevel', async () => {
      const c = await connect(wire, 'legacy');
      expect(await linesOfCall(c, 'list_findings', FINDINGS)).toEqual([]);
      // A 2025 connection's level is the connection's: a level in a request's _meta is not how it asks.
      expect(await linesOfCall(c, 'list_findings', FINDINGS, 'debug')).toEqual([]);
      await c.client.setLoggingLevel('debug');
      const lines = await linesOfCall(c, 'list_findings', FINDINGS);
      expect(lines).toContainEqual(expect.objectContaining({ level: 'debug', data: expect.objectContaining({ tool: 'list_findings', msg: 'tool call' }) }));
      // A request carrying a reserved _meta key still gets the lines its connection asked for.
      const from = c.received.wire.length;
      await c.client.callTool({ name: 'list_findings', arguments: FINDINGS, _meta: { [CLIENT_INFO_META_KEY]: { name: 'eras', version: '1.0.0' } } });
      expect(logLines(c, from)).toContainEqual(expect.objectContaining({ level: 'debug', data: expect.objectContaining({ tool: 'list_findings' }) }));
      await c.client.setLoggingLevel('error');
      expect(await linesOfCall(c, 'list_findings', FINDINGS)).toEqual([]);
    });
  });
}

describe('several clients of one HTTP server', () => {
  it("never see each other's lines, whatever their era, with calls interleaved", async () => {
    const legacy = await connect('http', 'legacy');
    const modern = await connect('http', 'modern');
    const quiet = await connect('http', 'modern');
    const quietLegacy = await connect('http', 'legacy');
    await legacy.client.setLoggingLevel('debug');
    const from = new Map(open.map((c) => [c, c.received.wire.length]));
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 5; i++) {
      calls.push(legacy.client.callTool({ name: 'list_findings', arguments: FINDINGS }));
      calls.push(modern.client.callTool({ name: 'list_interviews', arguments: INTERVIEWS, _meta: { [LOG_LEVEL_META_KEY]: 'debug' } }));
      calls.push(quiet.client.callTool({ name: 'list_deliverable_documents', arguments: { engagement: ENGAGEMENT_AP } }));
      calls.push(quietLegacy.client.callTool({ name: 'get_analysis_run', arguments: { engagement: ENGAGEMENT_AP, run: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' } }));
    }
    await Promise.all(calls);
    const tools = (c: EraClient) =>
      new Set(
        logLines(c, from.get(c))
          .map((l) => (l.data as Json).tool)
          .filter(Boolean),
      );
    expect(tools(legacy)).toEqual(new Set(['list_findings']));
    expect(tools(modern)).toEqual(new Set(['list_interviews']));
    expect(logLines(legacy, from.get(legacy)).filter((l) => (l.data as Json).msg === 'tool call')).toHaveLength(5);
    expect(logLines(modern, from.get(modern)).filter((l) => (l.data as Json).msg === 'tool call')).toHaveLength(5);
    expect(logLines(quiet, from.get(quiet))).toEqual([]);
    expect(logLines(quietLegacy, from.get(quietLegacy))).toEqual([]);
  });
});
