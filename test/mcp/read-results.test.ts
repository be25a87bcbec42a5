// Every read operation, called as its own tool (`WORKSPACE_TOOLSETS=all`: the catalog's and those the
// live description adds) on a fresh sandbox's deterministic demo data: the SDK client validates each result against the tool's
// outputSchema, and each result (structured and text) matches its reviewed snapshot in
// ./result-snapshots (docs/tool-results.md). The default surface's tools, reads and writes, are
// snapshotted by tool-results.test.ts; writes of the other operations are called and validated in
// test/tools/every-operation.test.ts, whose answers depend on what ran before them.
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_META_KEY } from '../../src/operation.js';
import { ENGAGEMENT_AP, INTERVIEW_AP_CLERK, METHOD_P2P, SESSION_AP_CLERK } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { catalog } from '../../tools/index.js';
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

async function get(path: string, query?: Record<string, unknown>): Promise<unknown> {
  return (await stack.api.request({ method: 'GET', path, ...(query ? { query } : {}) })).data;
}
const list = async (path: string) => (await get(path, { limit: 200 })) as Rec[];

/** The arguments of each read, from the demo data (ids read from it, in the order it lists them). */
async function readArguments(): Promise<Record<string, Record<string, unknown>>> {
  const findings = await list(`/engagements/${E}/findings`);
  const finding = (await get(`/engagements/${E}/findings/${(findings[0] as Rec).id}`)) as { evidences: Rec[] };
  const evidence = finding.evidences[0] as Rec;
  const segment = String(finding.evidences.find((e) => e.source_type === 'transcript_segment')?.source_id);
  const frames = await list(`/sessions/${SESSION_AP_CLERK}/frames`);
  const media = (frames[0] as Rec).media as { disk: string; path: string };
  const session = (await get(`/sessions/${SESSION_AP_CLERK}`)) as { recording_ids: string[] };
  const owner = { ownerType: 'method', ownerId: METHOD_P2P };
  const proposal = (
    await stack.api.request({
      method: 'POST',
      path: '/guide/{ownerType}/{ownerId}/propose-topics',
      pathParams: owner,
      json: { count: 3, focus: 'avoirs et litiges', locale: 'fr' },
    })
  ).data as Rec;
  return {
    get_method_version: { method: METHOD_P2P, version: ((await list(`/methods/${METHOD_P2P}/versions`))[0] as Rec).id },
    get_topic_proposal: { ...owner, proposal: proposal.id },
    get_analysis_run: { engagement: E, run: ((await list(`/engagements/${E}/analysis/runs`))[0] as Rec).id },
    preview_evidence: { engagement: E, evidence: evidence.id },
    get_chapter_recap: { interview: INTERVIEW_AP_CLERK, chapter: ((await list(`/interviews/${INTERVIEW_AP_CLERK}/chapters`))[0] as Rec).id },
    get_interview_source: { interview: INTERVIEW_AP_CLERK, type: 'transcript_segment', source: segment },
    get_media: { disk: media.disk, path: media.path },
    get_media_thumbnail: { disk: media.disk, path: media.path },
    get_session_recording: { session: SESSION_AP_CLERK, recording: session.recording_ids[0] },
    get_artifact: { engagement: E, artifact: ((await list(`/engagements/${E}/artifacts`))[0] as Rec).id },
    download_artifact: { engagement: E, artifact: ((await list(`/engagements/${E}/artifacts`))[0] as Rec).id },
    list_external_source_items: { engagement: E, source: ((await list(`/engagements/${E}/external-sources`))[0] as Rec).id },
    preview_draft_evidence: { engagement: E, evidence: evidence.id },
    ...(await (async () => {
      const exported = { engagement: E, export: await finishedExport() };
      return { get_export: exported, download_export: exported };
    })()),
    // Generated from the live description (not in the catalog).
    get_client_company: { company: ((await list('/client-companies'))[0] as Rec).id },
    download_compliance_document: { document: ((await list('/compliance-documents'))[0] as Rec).id },
  };
}

/** The catalog entry's example arguments (demo ids filled in), for a read the table above does not name. */
function exampleOf(name: string): Record<string, unknown> | undefined {
  const op = catalog.find((o) => o.name === name);
  return op ? exampleArguments(op) : undefined;
}

describe('every read operation, called as its own tool on the demo data', () => {
  it('answers within its declared schema and matches its snapshot', async () => {
    const args = await readArguments();
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
    // Every argument written above is for a read that is called.
    expect(Object.keys(args).filter((n) => !reads.some((o) => o.name === n))).toEqual([]);
  });
});
