// Both protocol eras on both transports: a 2025-11-25 client and a 2026-07-28 client (the v2 client
// pinned to each) over stdio and over Streamable HTTP each list the same complete tools on their
// first tools/list (nothing arrives later), call a tool, read a resource, get a prompt, follow a job
// with progress and cancel one. The server runs as a client starts it (src/cli.ts serve, the default
// surface): one process per stdio client, one `serve --http` for both HTTP clients, on a sandbox
// whose clock runs 33 times faster (a 90 s analysis run lasts 2.7 s). The jobs of all four clients
// run at once, each on an engagement of its own (one run at a time per engagement); the runs left
// going are read at the end, the sandbox's clock moved past their end.
import type { CallToolResult, Progress, Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog/index.js';
import { toolListFor } from '../../src/mcp/server/session.js';
import { CLIENT_BERTHIER, ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { finished, TestClock } from '../helpers/clock.js';
import { connectHttp, connectStdio, ERAS, type Era, type EraClient, type ServerHome, serverHome, startHttpServer, WIRES, type Wire } from '../helpers/eras.js';
import type { HttpChild } from '../helpers/spawn-http.js';

const TIME_SCALE = 0.03;
const RUNS = '/engagements/{engagement}/analysis/runs';
// The API's budget (120 a minute) on the sandbox's clock, so polls come as often as they would.
const SCALED = { WORKSPACE_RATE_LIMIT: `120/${60 * TIME_SCALE}`, WORKSPACE_JOB_WAIT_SECONDS: '30' };

type Json = Record<string, any>;

const CELLS = WIRES.flatMap((wire) => ERAS.map((era) => ({ wire, era, label: `a ${era === 'legacy' ? '2025-11-25' : '2026-07-28'} client over ${wire}` })));
const key = (wire: Wire, era: Era) => `${wire}/${era}`;

let sandbox: SandboxHandle;
/** The sandbox's clock: real time until the end, when it is moved past the runs left going. */
const clock = new TestClock();
let home: ServerHome;
let http: HttpChild;
/** Each cell's client, connected at the start, and the tools its first tools/list answered. */
const clients = new Map<string, EraClient>();
const firsts = new Map<string, Tool[]>();
/** What the default surface lists, computed offline by the code tools/list answers with. */
let expected: Tool[];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false, timeScale: TIME_SCALE, clock: clock.now });
  home = await serverHome(sandbox, SCALED);
  http = await startHttpServer(home);
  expected = toolListFor({ toolsets: 'default', readOnly: false }, catalog);
  await Promise.all(
    CELLS.map(async ({ wire, era }) => {
      const c = wire === 'stdio' ? await connectStdio(era, home) : await connectHttp(era, http);
      clients.set(key(wire, era), c);
      // The first thing a client does, and for most client libraries the only listing they make.
      firsts.set(key(wire, era), (await c.client.listTools()).tools);
    }),
  );
}, 60_000);
afterAll(async () => {
  for (const c of clients.values()) await c.close().catch(() => {});
  await http?.stop();
  await sandbox?.close();
  await home?.cleanup();
});

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

for (const { wire, era, label } of CELLS) {
  describe(label, () => {
    const cell = () => clients.get(key(wire, era)) as EraClient;

    it('lists every tool of the default surface on its first tools/list, in order, and no tool arrives later', async () => {
      const c = cell();
      const first = firsts.get(key(wire, era)) as Tool[];
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
        const c = cell();
        const hints = (r: Json) => ({ ttlMs: r.ttlMs, cacheScope: r.cacheScope });
        const tools = hints(await c.client.listTools(undefined, { cacheMode: 'bypass' }));
        expect(tools).toEqual({ ttlMs: expect.any(Number), cacheScope: 'private' });
        expect(tools.ttlMs).toBeGreaterThan(0);
        for (const r of [
          await c.client.listPrompts(undefined, { cacheMode: 'bypass' }),
          await c.client.listResourceTemplates(undefined, { cacheMode: 'bypass' }),
        ]) {
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
      const r = (await cell().client.callTool({ name: 'list_findings', arguments: { engagement: ENGAGEMENT_AP, limit: 3 } })) as CallToolResult;
      expect(r.isError, textOf(r)).toBeFalsy();
      expect(r.structuredContent).toBeTruthy();
      expect(textOf(r)).toMatch(/\w{26}/);
    });

    it('lists the resource templates and reads a resource', async () => {
      const c = cell();
      const { resourceTemplates } = await c.client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('workspace://engagements/{engagement}');
      const uri = `workspace://engagements/${ENGAGEMENT_AP}`;
      const read = await c.client.readResource({ uri });
      expect(read.contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: ENGAGEMENT_AP });
    });

    it('lists the prompts and gets one', async () => {
      const c = cell();
      const { prompts } = await c.client.listPrompts();
      expect(prompts.map((p) => p.name)).toContain('brief_engagement');
      const p = await c.client.getPrompt({ name: 'brief_engagement', arguments: { engagement: ENGAGEMENT_AP } });
      expect(p.messages[0]?.content).toMatchObject({ type: 'text' });
      expect((p.messages[0]!.content as { text: string }).text).toContain(ENGAGEMENT_AP);
    });
  });
}

/** A new engagement of the sandbox's audited client: room for one analysis run of its own. */
async function newEngagement(name: string): Promise<string> {
  const res = await fetch(`${sandbox.api}/engagements`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.tokens.write}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_company_id: CLIENT_BERTHIER, name }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

/** The runs of an engagement as the workspace has them. */
async function runsOf(engagement: string): Promise<Json[]> {
  const res = await fetch(`${sandbox.api}/engagements/${engagement}/analysis/runs`, { headers: { authorization: `Bearer ${sandbox.tokens.write}` } });
  return ((await res.json()) as { data: Json[] }).data;
}

/** The one run of an engagement created for one test, once the workspace has answered the call that started it. */
async function theRun(engagement: string): Promise<Json> {
  await sandbox.waitForRequest((q) => q.method === 'POST' && q.template === RUNS && q.path.includes(engagement), 10_000, 'start of the run');
  return (await runsOf(engagement))[0] as Json;
}

/** Starts an analysis run through the tool, collecting its progress; `signal` cancels the call. */
function startRun(c: EraClient, engagement: string, args: Json, signal?: AbortSignal) {
  const seen: Progress[] = [];
  let heard = () => {};
  const firstProgress = new Promise<void>((resolve) => (heard = resolve));
  const result = c.client.callTool(
    { name: 'start_analysis_run', arguments: { engagement, mode: 'incremental', ...args } },
    {
      onprogress: (p: Progress) => {
        seen.push(p);
        heard();
      },
      ...(signal ? { signal } : {}),
    },
  ) as Promise<CallToolResult>;
  // A cancelled call's rejection is awaited by the test; until then it must not count as unhandled.
  result.catch(() => {});
  return { result, seen, firstProgress };
}

/** Runs whose call was cancelled without cancel_on_abort, by cell: read once the clock is past their end. */
const leftGoing: { label: string; engagement: string; run: string }[] = [];

/**
 * The progress notifications the server sent for the call that followed job `job` (the call's id is
 * its progress token), with their place on the wire, and the place of the call's answer.
 */
function progressOnWire(c: EraClient, job: string) {
  const wire = c.received.wire as Json[];
  const answerAt = wire.findIndex((m) => m.method === undefined && m.result?.structuredContent?.job?.id === job);
  const token = wire[answerAt]?.id;
  const progress = wire.flatMap((m, at) =>
    m.method === 'notifications/progress' && String(m.params.progressToken) === String(token) ? [{ value: m.params.progress as number, at }] : [],
  );
  return { progress, answerAt };
}

describe.concurrent('jobs, in every cell at once', () => {
  for (const { wire, era, label } of CELLS) {
    const cell = () => clients.get(key(wire, era)) as EraClient;

    it(`${label} follows an analysis run to success with progress notifications in increasing order`, async ({ expect }) => {
      const c = cell();
      const engagement = await newEngagement(`followed by ${label}`);
      const { result, seen } = startRun(c, engagement, {});
      const r = await result;
      expect(r.isError, textOf(r)).toBeFalsy();
      const s = r.structuredContent as Json;
      expect(s).toMatchObject({ state: 'succeeded', job: { kind: 'analysis run', status: 'succeeded' } });
      // What the client handed on: in increasing order (it may miss the last one: see Received.wire).
      const values = seen.map((p) => p.progress);
      expect(values.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] as number);
      // What the server sent: every step in increasing order up to 100, all before the answer.
      const { progress, answerAt } = progressOnWire(c, s.job.id);
      expect(answerAt).toBeGreaterThan(0);
      expect(progress.map((p) => p.value)).toEqual(expect.arrayContaining(values));
      for (let i = 1; i < progress.length; i++) expect(progress[i]?.value).toBeGreaterThan(progress[i - 1]?.value as number);
      expect(progress.at(-1)?.value).toBe(100);
      expect(progress.every((p) => p.at < answerAt)).toBe(true);
      expect((await runsOf(engagement)).find((run) => run.id === s.job.id)).toMatchObject({ status: 'succeeded' });
    });

    it(`${label}: a call cancelled with cancel_on_abort cancels the run on the workspace`, async ({ expect }) => {
      const c = cell();
      const engagement = await newEngagement(`cancelled by ${label}`);
      const abort = new AbortController();
      const { result, firstProgress } = startRun(c, engagement, { mode: 'full', cancel_on_abort: true }, abort.signal);
      await firstProgress;
      abort.abort();
      await expect(result).rejects.toThrow();
      const run = (await theRun(engagement)).id as string;
      const cancel = await sandbox.waitForRequest(
        (q) => q.method === 'POST' && q.template === `${RUNS}/{run}/cancel` && q.path.includes(run),
        10_000,
        'cancel request',
      );
      expect(cancel.status).toBe(200);
      expect((await runsOf(engagement))[0]).toMatchObject({ id: run, status: 'cancelled' });
    });

    it(`${label}: a call cancelled without cancel_on_abort leaves the run going (to its end: read at the end of the file)`, async ({ expect }) => {
      const c = cell();
      const engagement = await newEngagement(`left running by ${label}`);
      const abort = new AbortController();
      const { result, firstProgress } = startRun(c, engagement, { mode: 'full' }, abort.signal);
      await firstProgress;
      abort.abort();
      await expect(result).rejects.toThrow();
      const run = await theRun(engagement);
      expect(run.status).not.toBe('cancelled');
      leftGoing.push({ label, engagement, run: run.id as string });
    });
  }
});

describe('the runs left going', () => {
  it('each ran on to its end: it succeeded, and nothing asked the workspace to cancel it', async () => {
    expect(leftGoing.map((l) => l.label).sort()).toEqual(CELLS.map((c) => c.label).sort());
    // Past the end of any run: each is read once, finished.
    for (const { label, engagement, run } of leftGoing) {
      const ended = await finished(clock, async () => (await runsOf(engagement))[0]);
      expect(ended, label).toMatchObject({ id: run, status: 'succeeded' });
      expect(
        sandbox.requests().some((q) => q.template === `${RUNS}/{run}/cancel` && q.path.includes(run)),
        label,
      ).toBe(false);
    }
  });
});

describe('every client', () => {
  it('heard of no list change for as long as it was connected', () => {
    for (const c of clients.values()) {
      expect(c.received.toolChanges).toEqual([]);
      expect((c.received.wire as Json[]).filter((m) => m.method === 'notifications/tools/list_changed')).toEqual([]);
    }
  });
});
