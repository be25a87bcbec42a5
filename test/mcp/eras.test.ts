// Both protocol eras on both transports: a 2025-11-25 client and a 2026-07-28 client (the v2 client
// pinned to each) over stdio and over Streamable HTTP each list the same complete tools on their
// first tools/list (nothing arrives later), call a tool, read a resource, get a prompt, follow a job
// with progress and cancel one. The server runs as a client starts it (src/cli.ts serve, the default
// surface), on a sandbox whose clock runs 33 times faster (a 90 s analysis run lasts 2.7 s).
import type { CallToolResult, Progress, Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolListFor } from '../../src/mcp/session.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { catalog } from '../../tools/index.js';
import { connectHttp, connectStdio, ERAS, type EraClient, type ServerHome, serverHome, startHttpServer, until, WIRES } from '../helpers/eras.js';
import type { HttpChild } from '../http/spawn-http.js';

const TIME_SCALE = 0.03;
const RUNS = '/engagements/{engagement}/analysis/runs';
// The API's budget (120 a minute) on the sandbox's clock, so polls come as often as they would.
const SCALED = { WORKSPACE_RATE_LIMIT: `120/${60 * TIME_SCALE}`, WORKSPACE_JOB_WAIT_SECONDS: '30' };

type Json = Record<string, any>;

let sandbox: SandboxHandle;
let home: ServerHome;
let http: HttpChild;
/** What the default surface lists, computed offline by the code tools/list answers with. */
let expected: Tool[];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false, timeScale: TIME_SCALE });
  home = await serverHome(sandbox, SCALED);
  http = await startHttpServer(home);
  expected = toolListFor({ toolsets: 'default', readOnly: false }, catalog);
}, 60_000);
afterAll(async () => {
  await http?.stop();
  await sandbox?.close();
  await home?.cleanup();
});

/** The runs of the engagement as the workspace has them (newest first). */
async function runs(): Promise<Json[]> {
  const res = await fetch(`${sandbox.api}/engagements/${ENGAGEMENT_AP}/analysis/runs`, { headers: { authorization: `Bearer ${sandbox.tokens.write}` } });
  return ((await res.json()) as { data: Json[] }).data;
}

const runOf = async (id: string) => (await runs()).find((r) => r.id === id);
const terminal = (r: Json | undefined) => (r && ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : undefined);

/** No run left going on the engagement (a test that starts one waits for it to end). */
async function settled(): Promise<void> {
  await until(async () => ((await runs()).every((r) => terminal(r)) ? true : undefined), 15_000, 'the runs to end');
}

/** Starts an analysis run through the tool, collecting its progress; `signal` cancels the call. */
function startRun(c: EraClient, args: Json, signal?: AbortSignal) {
  const seen: Progress[] = [];
  const result = c.client.callTool(
    { name: 'start_analysis_run', arguments: { engagement: ENGAGEMENT_AP, mode: 'incremental', ...args } },
    { onprogress: (p: Progress) => void seen.push(p), ...(signal ? { signal } : {}) },
  ) as Promise<CallToolResult>;
  // A cancelled call's rejection is awaited by the test; until then it must not count as unhandled.
  result.catch(() => {});
  return { result, seen };
}

/** The ids of the runs the engagement has now. */
const runIds = async () => new Set((await runs()).map((r) => r.id as string));

/** The run a call started: the one the engagement has that it did not have before (`known`). */
async function newRun(known: Set<string>): Promise<string> {
  return until(async () => (await runs()).find((r) => !known.has(r.id))?.id as string | undefined, 10_000, 'the run to start');
}

/**
 * The progress notifications the server sent for the call whose progress the client saw first, with
 * their place on the wire, and the place of the call's answer.
 */
function progressOnWire(c: EraClient, seen: Progress[]) {
  const wire = c.received.wire as Json[];
  const first = wire.findIndex((m) => m.method === 'notifications/progress' && m.params.progress === seen[0]?.progress && m.params.message === seen[0]?.message);
  const token = wire[first]?.params.progressToken;
  const progress = wire.flatMap((m, at) => (m.method === 'notifications/progress' && m.params.progressToken === token ? [{ value: m.params.progress as number, at }] : []));
  const answerAt = wire.findIndex((m) => m.method === undefined && m.id !== undefined && String(m.id) === String(token));
  expect(answerAt).toBeGreaterThan(first);
  return { progress, answerAt };
}

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

for (const wire of WIRES) {
  for (const era of ERAS) {
    describe(`a ${era === 'legacy' ? '2025-11-25' : '2026-07-28'} client over ${wire}`, () => {
      let c: EraClient;
      let first: Tool[];

      beforeAll(async () => {
        c = wire === 'stdio' ? await connectStdio(era, home) : await connectHttp(era, http);
        // The first thing a client does, and for most client libraries the only listing they make.
        first = (await c.client.listTools()).tools;
      }, 60_000);
      afterAll(async () => {
        await c?.close();
      });

      it('lists every tool of the default surface on its first tools/list, in order, and no tool arrives later', async () => {
        expect(first.map((t) => t.name)).toEqual(expected.map((t) => t.name));
        expect(first).toEqual(expected);
        // Listed again without the client's cache: the same list, and the client heard of no change.
        expect((await c.client.listTools(undefined, { cacheMode: 'bypass' })).tools).toEqual(first);
        expect(c.received.toolChanges).toEqual([]);
        // The live description came within the first listing's bound: no catalog-only listing.
        expect(c.stderr()).not.toMatch(/slow to arrive|not merged|could not read the live API description/);
      });

      if (era === 'modern') {
        it('its lists carry cache hints: tools private to the member, prompts and templates public, reads not cached', async () => {
          const hints = (r: Json) => ({ ttlMs: r.ttlMs, cacheScope: r.cacheScope });
          const tools = hints(await c.client.listTools(undefined, { cacheMode: 'bypass' }));
          expect(tools).toEqual({ ttlMs: expect.any(Number), cacheScope: 'private' });
          expect(tools.ttlMs).toBeGreaterThan(0);
          for (const r of [await c.client.listPrompts(undefined, { cacheMode: 'bypass' }), await c.client.listResourceTemplates(undefined, { cacheMode: 'bypass' })]) {
            expect(hints(r)).toEqual({ ttlMs: expect.any(Number), cacheScope: 'public' });
            expect(r.ttlMs).toBeGreaterThan(0);
          }
          expect(hints(await c.client.listResources(undefined, { cacheMode: 'bypass' }))).toMatchObject({ cacheScope: 'private' });
          const read = await c.client.readResource({ uri: `workspace://engagements/${ENGAGEMENT_AP}` }, { cacheMode: 'bypass' });
          expect(hints(read)).toEqual({ ttlMs: 0, cacheScope: 'private' });
          expect(hints(c.client.getDiscoverResult() as Json)).toEqual({ ttlMs: expect.any(Number), cacheScope: 'public' });
        });
      }

      it('calls a tool', async () => {
        const r = await c.client.callTool({ name: 'list_findings', arguments: { engagement: ENGAGEMENT_AP, limit: 3 } });
        expect(r.isError, textOf(r as CallToolResult)).toBeFalsy();
        expect((r.structuredContent as Json).data ?? r.structuredContent).toBeTruthy();
        expect(textOf(r as CallToolResult)).toMatch(/\w{26}/);
      });

      it('lists the resource templates and reads a resource', async () => {
        const { resourceTemplates } = await c.client.listResourceTemplates();
        expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('workspace://engagements/{engagement}');
        const uri = `workspace://engagements/${ENGAGEMENT_AP}`;
        const read = await c.client.readResource({ uri });
        expect(read.contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
        expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: ENGAGEMENT_AP });
      });

      it('lists the prompts and gets one', async () => {
        const { prompts } = await c.client.listPrompts();
        expect(prompts.map((p) => p.name)).toContain('brief_engagement');
        const p = await c.client.getPrompt({ name: 'brief_engagement', arguments: { engagement: ENGAGEMENT_AP } });
        expect(p.messages[0]?.content).toMatchObject({ type: 'text' });
        expect((p.messages[0]?.content as { text: string }).text).toContain(ENGAGEMENT_AP);
      });

      it('follows an analysis run to success with progress notifications in increasing order', async () => {
        await settled();
        const { result, seen } = startRun(c, {});
        const r = await result;
        expect(r.isError, textOf(r)).toBeFalsy();
        const s = r.structuredContent as Json;
        expect(s).toMatchObject({ state: 'succeeded', job: { kind: 'analysis run', status: 'succeeded' } });
        // What the client handed on: in increasing order (it may miss the last one: see Received.wire).
        const values = seen.map((p) => p.progress);
        expect(values.length).toBeGreaterThanOrEqual(2);
        for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
        // What the server sent: every step in increasing order up to 100, all before the answer.
        const { progress, answerAt } = progressOnWire(c, seen);
        expect(progress.map((p) => p.value)).toEqual(expect.arrayContaining(values));
        for (let i = 1; i < progress.length; i++) expect(progress[i]!.value).toBeGreaterThan(progress[i - 1]!.value);
        expect(progress.at(-1)?.value).toBe(100);
        expect(progress.every((p) => p.at < answerAt)).toBe(true);
        expect(await runOf(s.job.id)).toMatchObject({ status: 'succeeded' });
      });

      it('a call cancelled with cancel_on_abort cancels the run on the workspace', async () => {
        await settled();
        const known = await runIds();
        const abort = new AbortController();
        const { result, seen } = startRun(c, { mode: 'full', cancel_on_abort: true }, abort.signal);
        await until(() => (seen.length > 0 ? true : undefined), 10_000, 'the first progress notification');
        abort.abort();
        await expect(result).rejects.toThrow();
        const run = await newRun(known);
        const cancel = await until(
          () => sandbox.requests().find((q) => q.method === 'POST' && q.template === `${RUNS}/{run}/cancel` && q.path.includes(run)),
          10_000,
          'the cancel request',
        );
        expect(cancel.status).toBe(200);
        expect(await runOf(run)).toMatchObject({ status: 'cancelled' });
      });

      it('a call cancelled without cancel_on_abort leaves the run going on to its end', async () => {
        await settled();
        const known = await runIds();
        const abort = new AbortController();
        const { result, seen } = startRun(c, { mode: 'full' }, abort.signal);
        await until(() => (seen.length > 0 ? true : undefined), 10_000, 'the first progress notification');
        abort.abort();
        await expect(result).rejects.toThrow();
        const run = await newRun(known);
        // The run ends on its own: it succeeds, and nothing asked the workspace to cancel it.
        expect(await until(async () => terminal(await runOf(run)), 15_000, 'the run to end')).toMatchObject({ status: 'succeeded' });
        expect(sandbox.requests().some((q) => q.template === `${RUNS}/{run}/cancel` && q.path.includes(run))).toBe(false);
      });

      it('heard of no list change for as long as it was connected', () => {
        expect(c.received.toolChanges).toEqual([]);
        expect((c.received.wire as Json[]).filter((m) => m.method === 'notifications/tools/list_changed')).toEqual([]);
      });
    });
  }
}
