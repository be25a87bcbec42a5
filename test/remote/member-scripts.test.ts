// Code mode on a shared server, attacked as a member would: two replicas of the real `serve --remote`
// on one real Redis behind the round-robin balancer, members signed in through the workspace's pages.
// - Scripts at once are counted per member on each replica: a member's third script is refused at
//   once (retryable, nothing sent, no worker taken), from any of their clients, while another member's
//   runs; once one ends, the member runs again.
// - A script reaches nothing of the replica: no Node, environment or Function escape out of QuickJS; a
//   path upload is refused before the disk is asked; a download comes back as this member's link,
//   never a file on disk.
// - Under read consent a script writes nothing, by any route; a script's calls draw from the member's
//   one rate budget, shared by both replicas.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorDetail } from '../../src/mcp/render/tool-result.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { gate } from '../helpers/reached.js';
import { CLAIRE, type Deployment, MARC, type Member, remoteFixture } from './deployment.js';
import { STATE_KEY } from './helpers.js';

type Json = Record<string, unknown>;
const CANARY = `canary ${Math.random().toString(36).slice(2)} of the replica's disk`;

const remote = remoteFixture();
const { signIn } = remote;
let scratch: string;
let canary: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'wcm-member-scripts-'));
  canary = join(scratch, 'canary.txt');
  await writeFile(canary, CANARY);
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function deploy(env: Record<string, string> = {}): Promise<Deployment> {
  // Downloads would go under a regular file, so nothing can ever be written there.
  await writeFile(join(scratch, 'blocker'), 'a file, not a folder');
  return remote.deploy({ WORKSPACE_DOWNLOAD_DIR: join(scratch, 'blocker', 'downloads'), WORKSPACE_UPLOAD_DIRS: scratch, ...env });
}

const run = (m: Member, script: string, tool = 'run_read_script') => m.client.callTool({ name: tool, arguments: { script } }) as Promise<CallToolResult>;
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const sc = (r: CallToolResult) => r.structuredContent as Json;
const at = (d: Deployment, template: string) => d.sandbox.requests().filter((q) => q.template === template);
const AP = JSON.stringify(ENGAGEMENT_AP);

describe('scripts at once are counted per member', () => {
  it("a member's third script at once on a replica is refused, retryable, with nothing sent, from any of their clients; another member's runs", async () => {
    const d = await deploy();
    // One replica: the cap is the replica's (its workers and memory).
    d.lb.targets.splice(1);
    const claire = await signIn(d, CLAIRE, 'write');
    const claireReading = await signIn(d, CLAIRE, 'read');
    const marc = await signIn(d, MARC, 'read');

    // Claire's two scripts are held inside their first API call until released.
    const inCall = gate();
    d.sandbox.admin.fault({ count: 2, match: { method: 'GET', path: '/engagements/{engagement}/findings' }, before: inCall.before });
    const first = run(claire, `const { items } = await api.list_findings({ engagement: ${AP}, limit: 1 }); return items.length;`);
    const second = run(claire, `const { items } = await api.list_findings({ engagement: ${AP}, limit: 1 }); return items.length;`);
    await inCall.held(2);

    d.sandbox.clearRequests();
    for (const [who, m] of [
      ['the same client', claire],
      ['another client of the same member', claireReading],
    ] as const) {
      const third = await run(m, `return await api.get_engagement({ engagement: ${AP} });`);
      expect(third.isError, who).toBe(true);
      expect(sc(third)).toMatchObject({ error: { code: 'member_busy', retryable: true }, api_calls: 0 });
      expect(text(third)).toMatch(/2 scripts running.*Nothing was sent.*Call again/);
    }
    expect(at(d, '/engagements/{engagement}')).toEqual([]);

    // Another member is not held up by Claire's scripts.
    const marcs = await run(marc, `return (await api.get_engagement({ engagement: ${AP} })).id;`);
    expect(marcs.isError, text(marcs)).toBeFalsy();
    expect(sc(marcs).result).toBe(ENGAGEMENT_AP);

    inCall.open();
    for (const r of await Promise.all([first, second])) expect(r.isError, text(r)).toBeFalsy();
    // Her scripts answered: her slots are free again.
    const again = await run(claire, 'return 1 + 1');
    expect(sc(again).result).toBe(2);
  }, 180_000);
});

describe("a script reaches nothing of the replica, and nothing beyond its member's rights", () => {
  it('no Node, environment or Function escape; a path upload is refused unread; a download is a link for its member only', async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write');
    const marc = await signIn(d, MARC, 'write');
    const results: CallToolResult[] = [];

    const probe = await run(
      claire,
      `
      const seen = {};
      const tryIt = (name, f) => { try { seen[name] = String(f()); } catch (e) { seen[name] = 'threw ' + e.name; } };
      tryIt('process', () => typeof process);
      tryIt('require', () => typeof require);
      tryIt('thisProcess', () => typeof (function () { return this; })().process);
      tryIt('functionCtor', () => Function('return typeof process + typeof require + typeof globalThis.__call')());
      tryIt('protoCtor', () => [].constructor.constructor('return Object.getOwnPropertyNames(globalThis).join()')());
      tryIt('asyncCtor', () => typeof (async () => {}).constructor('return process'));
      tryIt('std', () => typeof std + typeof os + typeof scriptArgs);
      tryIt('env', () => JSON.stringify(globalThis.process && globalThis.process.env));
      try { await import('fs'); seen.importFs = 'imported'; } catch (e) { seen.importFs = 'threw ' + e.name; }
      try { await api.constructor({}); seen.apiCtor = 'ran'; } catch (e) { seen.apiCtor = e.code; }
      try { await api.__proto__({}); seen.apiProto = 'ran'; } catch (e) { seen.apiProto = e.code; }
      return seen;`,
    );
    results.push(probe);
    expect(probe.isError, text(probe)).toBeFalsy();
    const seen = sc(probe).result as Record<string, string>;
    expect(seen).toMatchObject({ process: 'undefined', require: 'undefined', thisProcess: 'undefined', functionCtor: 'undefinedundefinedundefined' });
    expect(seen.std).toBe('undefinedundefinedundefined');
    expect(seen.env).toBe('undefined');
    expect(seen.importFs).toMatch(/^threw/);
    expect(seen.apiCtor).toBe('unknown');
    expect(seen.apiProto).toBe('unknown');
    const globals = (seen.protoCtor as string).split(',');
    expect(globals).toContain('api');
    for (const name of ['process', 'require', 'module', 'Buffer', 'fetch', 'setTimeout', '__call', '__log', 'std', 'os']) expect(globals).not.toContain(name);

    // A path upload from a script: refused before the disk is asked (the replica's local upload folder
    // holds the canary, and remote mode does not read it), nothing sent.
    d.sandbox.clearRequests();
    const upload = await run(
      claire,
      `try { return await api.upload_artifact({ engagement: ${AP}, file: { path: ${JSON.stringify(canary)} } }); } catch (e) { return { name: e.name, code: e.code, message: e.message }; }`,
      'run_write_script',
    );
    results.push(upload);
    expect(sc(upload).result).toMatchObject({ name: 'ValidationError' });
    expect(JSON.stringify(sc(upload).result)).toMatch(/file\.base64/);
    expect(d.sandbox.requests().filter((q) => q.method !== 'GET')).toEqual([]);

    // A large file downloaded from a script is Claire's link, not a file of the replica; Marc's token
    // and no token find nothing there.
    const bytes = Buffer.alloc(1024 * 1024 + 4096, 7);
    const up = (await claire.client.callTool({
      name: 'upload_artifact',
      arguments: { engagement: ENGAGEMENT_AP, file: { base64: bytes.toString('base64'), filename: 'big.bin', content_type: 'application/octet-stream' } },
    })) as CallToolResult;
    expect(up.isError, text(up)).toBeFalsy();
    const down = await run(claire, `return await api.download_artifact({ engagement: ${AP}, artifact: ${JSON.stringify(sc(up).id)} });`);
    results.push(down);
    expect(down.isError, text(down)).toBeFalsy();
    const file = (sc(down).result as { file: { url: string } }).file;
    expect(file.url.startsWith(`${d.lb.url}/files/`)).toBe(true);
    const open = (token?: string) => fetch(file.url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    for (let i = 0; i < 2; i++) {
      const other = await open(marc.token);
      expect(other.status).toBe(404);
      await other.body?.cancel();
      const anonymous = await open();
      expect(anonymous.status).toBe(404);
      await anonymous.body?.cancel();
    }
    const mine = await open(claire.token);
    expect(mine.status).toBe(200);
    expect(Buffer.from(await mine.arrayBuffer()).equals(bytes)).toBe(true);

    // Scripts that fail every way the engine can: their errors name nothing of the replica either.
    for (const failing of [
      'let a = []; for (;;) a.push("x".repeat(1 << 20));',
      'const f = (n) => f(n + 1) + 1; return f(0);',
      'return (',
      'throw { stack: new Error().stack, where: import.meta };',
      'return await api.get_engagement({ engagement: "../../etc/passwd" });',
    ]) {
      const r = await run(claire, failing);
      expect(r.isError, failing).toBe(true);
      results.push(r);
    }

    // Nothing of the replica in any answer: no state key, no canary, no path of its disk; nothing written.
    const all = JSON.stringify(results);
    for (const secret of [STATE_KEY, CANARY, 'file://', process.cwd(), 'node_modules']) expect(all).not.toContain(secret);
    expect((await readdir(scratch)).sort()).toEqual(['blocker', 'canary.txt']);
  }, 180_000);

  it('under read consent a script writes nothing, by any route', async () => {
    const d = await deploy();
    const marc = await signIn(d, MARC, 'read');
    d.sandbox.clearRequests();
    const tries = await run(
      marc,
      `
      const out = {};
      const attempt = async (name, args) => { try { await api[name](args); out[name] = 'ran'; } catch (e) { out[name] = e.code; } };
      await attempt('create_finding', { engagement: ${AP}, statement: 'x', severity: 'low' });
      await attempt('update_finding', { engagement: ${AP}, finding: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', statement: 'x' });
      await attempt('edit_document_blocks', {});
      await attempt('call_operation', { operation: 'create_finding', arguments: {} });
      await attempt('run_write_script', { script: 'return 1' });
      await attempt('review_board', {});
      return out;`,
    );
    expect(tries.isError, text(tries)).toBeFalsy();
    const out = sc(tries).result as Record<string, string>;
    // Writes by any name, an operation or a tool of the server, are refused by the one write check.
    for (const write of ['create_finding', 'update_finding', 'edit_document_blocks']) expect(out[write], write).toMatch(/^(read_script|scope)$/);
    // The scripts and call_operation are no part of api.
    for (const tool of ['call_operation', 'run_write_script']) expect(out[tool], tool).toBe('unknown');
    // A read tool of the server is reachable, and validated like a direct call (no engagement: refused, nothing sent).
    expect(out.review_board).toBe('invalid_arguments');
    // Nor around the script: the write script and the block edits, called directly, are refused.
    const write = await run(marc, 'return 1', 'run_write_script');
    expect(write.isError).toBe(true);
    const edit = (await marc.client.callTool({
      name: 'edit_document_blocks',
      arguments: { engagement: ENGAGEMENT_AP, deliverable: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', document: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', edits: [] },
    })) as CallToolResult;
    expect(edit.isError).toBe(true);
    expect(text(edit)).toMatch(/write|consent/i);
    expect(d.sandbox.requests().filter((q) => q.method !== 'GET')).toEqual([]);
  }, 180_000);

  it("a script's calls draw from the member's one budget, shared by both replicas; another member's is their own", async () => {
    const d = await deploy({ WORKSPACE_RATE_LIMIT: '6/60', WORKSPACE_MAX_BUDGET_WAIT: '1' });
    const claire = await signIn(d, CLAIRE, 'write');
    const marc = await signIn(d, MARC, 'read');
    // The script spends what is left of Claire's budget, then is told to retry later.
    const spent = await run(
      claire,
      `let ok = 0; for (;;) { try { await api.get_engagement({ engagement: ${AP} }); ok++; } catch (e) { return { ok, code: e.code, sent: e.sent }; } }`,
    );
    expect(spent.isError, text(spent)).toBeFalsy();
    expect(sc(spent).result).toMatchObject({ code: 'rate_budget_exhausted', sent: false });
    // On either replica, a direct call of hers is refused the same way, and nothing more is sent.
    const sentBefore = at(d, '/engagements/{engagement}').length;
    for (let i = 0; i < 2; i++) {
      const direct = (await claire.client.callTool({ name: 'get_engagement', arguments: { engagement: ENGAGEMENT_AP } })) as CallToolResult;
      expect(direct.isError).toBe(true);
      expect(errorDetail(direct)?.code).toBe('rate_budget_exhausted');
    }
    expect(at(d, '/engagements/{engagement}')).toHaveLength(sentBefore);
    // Within the window the workspace saw exactly the limit from her, whichever replica sent it (the
    // sign-in's own GET /me, made before she has a session, aside).
    const claireId = at(d, '/engagements/{engagement}')[0]?.member_id;
    const hers = d.sandbox.requests().filter((q) => q.member_id === claireId && q.path.startsWith('/api/v1/') && q.path !== '/api/v1/me');
    expect(hers).toHaveLength(6);
    // Marc's budget is his own.
    const his = await run(marc, `return (await api.get_engagement({ engagement: ${AP} })).id;`);
    expect(sc(his).result).toBe(ENGAGEMENT_AP);
  }, 180_000);
});
