// Every read operation, called as its own tool (`WORKSPACE_TOOLSETS=all`: the catalog's and those the
// live description adds) on a fresh sandbox's deterministic demo data: the SDK client validates each result against the tool's
// outputSchema, and each result (structured and text) matches its reviewed snapshot in
// ./result-snapshots (docs/tool-results.md). The default surface's tools, reads and writes, are
// snapshotted by tool-results.test.ts; writes of the other operations are called and validated in
// test/catalog/every-operation.test.ts, whose answers depend on what ran before them.
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog/index.js';
import { OPERATION_META_KEY } from '../../src/operation.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { sandboxOperations } from '../../src/sandbox/server.js';
import { finished, TestClock } from '../helpers/clock.js';
import { exampleArguments } from '../helpers/examples.js';
import { expectResultSnapshot } from '../helpers/result-snapshot.js';
import { type Stack, startStack, textOf } from '../helpers/stack.js';

const E = ENGAGEMENT_AP;
type Rec = Record<string, unknown> & { id: string };

let sandbox: SandboxHandle;
let stack: Stack;
/**
 * The reads of a finished export, called on a sandbox of their own whose jobs run 100x faster (an
 * export finishes within the test; the demo data holds none): on the main one jobs stand still.
 */
const ON_RUNNING_JOBS = new Set(['get_export', 'download_export']);
let jobsSandbox: SandboxHandle;
/** The jobs sandbox's clock: runs with real time, moved past a job's end to read it finished. */
const jobsClock = new TestClock();
let jobs: Stack;
let onDefaultSurface: Set<string>;
/** The GET operations `all` lists, by tool name (catalog and generated). */
let readTools: string[];
/** Each tool as listed: handed to callTool, whose validation of the result uses its outputSchema. */
const listed = new Map<string, Tool>();

beforeAll(async () => {
  // Jobs stand still (a thousand times slower than real): no answer depends on how far one got.
  sandbox = await startSandbox({ port: 0, rateLimit: false, timeScale: 1000 });
  stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'all' } });
  // The listing the client validates every result against.
  const { tools } = await stack.client.listTools();
  for (const t of tools) listed.set(t.name, t);
  readTools = tools.filter((t) => (t._meta?.[OPERATION_META_KEY] as { method?: string } | undefined)?.method === 'GET').map((t) => t.name);
  expect(readTools.length).toBeGreaterThan(0);
  const def = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default' } });
  try {
    onDefaultSurface = new Set((await def.client.listTools()).tools.map((t) => t.name));
  } finally {
    await def.close();
  }
  jobsSandbox = await startSandbox({ port: 0, rateLimit: false, timeScale: 0.01, clock: jobsClock.now });
  jobs = await startStack({ sandboxHandle: jobsSandbox, env: { WORKSPACE_TOOLSETS: 'all' } });
});
afterAll(async () => {
  await jobs?.close();
  await jobsSandbox?.close();
  await stack?.close();
  await sandbox?.close();
});

/** An export of the findings, finished (read once the jobs sandbox's clock is past its end). */
async function finishedExport(): Promise<string> {
  const started = (await jobs.api.request({ method: 'POST', path: `/engagements/${E}/exports`, json: { kind: 'findings_csv' } })).data as Rec;
  const job = await finished(jobsClock, async () => (await jobs.api.request({ method: 'GET', path: `/engagements/${E}/exports/${started.id}` })).data as Rec);
  expect(job.status).toBe('succeeded');
  return started.id;
}

/**
 * The arguments of the reads whose ids are made on the way (an export finished during the test); every
 * other read is called with its entry's example (the catalog's, or the assumed operation's).
 */
async function madeOnTheWay(): Promise<Record<string, Record<string, unknown>>> {
  const exported = { engagement: E, export: await finishedExport() };
  return { get_export: exported, download_export: exported };
}

/** The entry's example arguments (demo ids filled in). */
function exampleOf(name: string): Record<string, unknown> | undefined {
  const op = sandboxOperations.find((o) => o.name === name);
  return op ? exampleArguments(op) : undefined;
}

describe('every read operation, called as its own tool on the demo data', () => {
  it('answers within its declared schema and matches its snapshot', async () => {
    const args = await madeOnTheWay();
    const reads = readTools.filter((n) => !onDefaultSurface.has(n)).map((name) => ({ name }));
    // Every catalog read is among them.
    expect(catalog.filter((o) => o.method === 'GET' && !onDefaultSurface.has(o.name) && !readTools.includes(o.name))).toEqual([]);
    for (const op of reads) {
      const r = (await (ON_RUNNING_JOBS.has(op.name) ? jobs : stack).client.callTool(
        { name: op.name, arguments: args[op.name] ?? exampleOf(op.name) ?? {} },
        { toolDefinition: listed.get(op.name) as Tool },
      )) as CallToolResult;
      expect(r.isError, `${op.name}: ${textOf(r)}`).toBeFalsy();
      // The live description is the sandbox's whole OpenAPI document, built from the catalog: 400 KB
      // that every new entry changes (test/sandbox/openapi.test.ts checks it). Validated, not kept.
      if (op.name !== 'get_openapi_description') await expectResultSnapshot(op.name, r, { folders: [stack.config.downloadDir, jobs.config.downloadDir] });
    }
    // Every argument written above is for a read that is called, and every read that needs an
    // argument has them (a read without example or argument here would be refused, and fail above).
    expect(Object.keys(args).filter((n) => !reads.some((o) => o.name === n))).toEqual([]);
  });
});
