// Jobs followed from the tool call that starts them, against the sandbox over HTTP with its clock
// scaled (timeScale 0.01: a 90 s analysis run lasts 0.9 s) and the client's rate window scaled alike.
import type { CallToolResult, Progress } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../../src/sandbox/index.js';
import { type Stack, startStack, textOf } from '../../../helpers/stack.js';

const RUNS = `/engagements/{engagement}/analysis/runs`;
// 120 requests per 0.6 s: the API's budget at the sandbox's time scale.
const SCALED = { WORKSPACE_RATE_LIMIT: '120/0.6', WORKSPACE_JOB_WAIT_SECONDS: '10' };

let sandbox: SandboxHandle;
let stack: Stack;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false, timeScale: 0.01 });
  stack = await startStack({ sandboxHandle: sandbox, env: SCALED });
});
afterAll(async () => {
  await stack.close();
  await sandbox.close();
});
afterEach(() => {
  sandbox.admin.reset();
});

type Json = Record<string, any>;
const structured = (r: CallToolResult) => r.structuredContent as Json;

/** Calls a tool with a progress token and collects the notifications the SDK client receives. */
async function callWithProgress(name: string, args: Json, signal?: AbortSignal) {
  const seen: Progress[] = [];
  let progressed!: () => void;
  /** Resolves with the first notification: the job has started and is being followed. */
  const following = new Promise<void>((r) => (progressed = r));
  const result = stack.client.callTool(
    { name, arguments: args },
    {
      onprogress: (p: Progress) => {
        seen.push(p);
        progressed();
      },
      ...(signal ? { signal } : {}),
    },
  ) as Promise<CallToolResult>;
  return { result, seen, following };
}

describe('a job followed from the call that starts it', () => {
  it('an analysis run is followed to success, with progress notifications in increasing order', async () => {
    const { result, seen } = await callWithProgress('start_analysis_run', { engagement: ENGAGEMENT_AP, mode: 'incremental' });
    const r = await result;
    expect(r.isError).toBeFalsy();
    const s = structured(r);
    expect(s.state).toBe('succeeded');
    expect(s.job).toMatchObject({ kind: 'analysis run', status: 'succeeded', progress: 100 });
    expect(s.record.stats).toMatchObject({ findings_proposed: 2, change_proposals: 2 });
    expect(textOf(r)).toMatch(/analysis run \w{26} succeeded/);
    // Progress: at least the start and the end, each strictly larger than the one before, ending at 100.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    const values = seen.map((p) => p.progress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
    expect(values.at(-1)).toBe(100);
    expect(seen.every((p) => p.total === 100)).toBe(true);
    // The run really ended on the workspace, as a fresh read shows.
    const runs = await stack.api.request({ method: 'GET', path: RUNS, pathParams: { engagement: ENGAGEMENT_AP } });
    expect((runs.data as Json[])[0]).toMatchObject({ id: s.job.id, status: 'succeeded' });
  });

  it('a job that fails is reported as failed, with the reason, as an error result', async () => {
    sandbox.admin.failNextJobs('atelier', 1);
    const r = await stack.call('start_analysis_run', { engagement: ENGAGEMENT_AP, mode: 'incremental' });
    expect(r.isError).toBe(true);
    expect(structured(r)).toMatchObject({ state: 'failed', job: { kind: 'analysis run', status: 'failed', error: { code: 'job.failed' } } });
    expect(textOf(r)).toMatch(/analysis run \w{26} failed: job\.failed: The job failed/);
  });

  it('a failed generation says so even though the document shows no reason', async () => {
    sandbox.admin.failNextJobs('atelier', 1);
    const r = await stack.call('generate_deliverable_document', { engagement: ENGAGEMENT_AP, kind: 'executive_summary', mode: 'keep_edits' });
    expect(r.isError).toBe(true);
    expect(structured(r)).toMatchObject({ state: 'failed', job: { kind: 'document generation', status: 'failed' }, record: { kind: 'executive_summary' } });
    expect(textOf(r)).toMatch(/failed: the workspace gave no reason/);
  });

  it('past the wait, answers the job id, its state and exactly how to check again', async () => {
    // The run lasts 0.9 s; the caller waits 0.2 s.
    const r = await stack.call('start_analysis_run', { engagement: ENGAGEMENT_AP, mode: 'full', wait: 0.2 });
    expect(r.isError).toBeFalsy();
    const s = structured(r);
    expect(s.state).toBe('in_progress');
    expect(['queued', 'running']).toContain(s.job.status);
    // The live description has the single-run read, so that is the tool to check with.
    expect(s.check_again).toEqual({ tool: 'get_analysis_run', arguments: { engagement: ENGAGEMENT_AP, run: s.job.id } });
    expect(textOf(r)).toContain(`call get_analysis_run with {"engagement":"${ENGAGEMENT_AP}","run":"${s.job.id}"}`);
    // Following the hint works: the named tool answers the same run.
    const again = await stack.call(s.check_again.tool, s.check_again.arguments);
    expect(structured(again)).toMatchObject({ id: s.job.id });
  });

  it('wait: false starts the job and answers at once, without polling', async () => {
    sandbox.clearRequests();
    const r = await stack.call('create_export', { engagement: ENGAGEMENT_AP, kind: 'findings_csv', wait: false });
    const s = structured(r);
    expect(s).toMatchObject({ state: 'in_progress', polls: 0 });
    expect(s.download).toEqual({ tool: 'download_export', arguments: { engagement: ENGAGEMENT_AP, export: s.job.id } });
    expect(sandbox.requests().filter((q) => q.template?.includes('/exports') && q.method === 'GET')).toHaveLength(0);
  });

  it('cancelling the call stops the waiting and, when asked, cancels the run on the workspace', async () => {
    const controller = new AbortController();
    const since = stack.logs.length;
    const { result, following } = await callWithProgress(
      'start_analysis_run',
      { engagement: ENGAGEMENT_AP, mode: 'full', cancel_on_abort: true },
      controller.signal,
    );
    await following;
    controller.abort();
    await expect(result).rejects.toThrow();
    const cancel = await sandbox.waitForRequest((q) => q.method === 'POST' && q.template === `${RUNS}/{run}/cancel`, 3_000, 'cancel of the run');
    expect(cancel.status).toBe(200);
    // The server logs the call cancelled once it has stopped: then no poll came after the cancel.
    await stack.waitForLog(/tool call cancelled/, 3_000, since);
    const pollsAfter = () =>
      sandbox.requests().filter((q) => q.method === 'GET' && Date.parse(q.time) > Date.parse(cancel.time) && q.template?.startsWith(RUNS));
    expect(pollsAfter()).toEqual([]);
    const runs = await stack.api.request({ method: 'GET', path: RUNS, pathParams: { engagement: ENGAGEMENT_AP } });
    expect((runs.data as Json[])[0]).toMatchObject({ status: 'cancelled' });
    // The read just made, and nothing else.
    expect(pollsAfter()).toHaveLength(1);
  });

  it('cancelling without cancel_on_abort leaves the run running on the workspace', async () => {
    const controller = new AbortController();
    const since = stack.logs.length;
    const { result, following } = await callWithProgress('start_analysis_run', { engagement: ENGAGEMENT_AP, mode: 'full' }, controller.signal);
    await following;
    controller.abort();
    await expect(result).rejects.toThrow();
    // Once the server logs the call cancelled, it has stopped without a cancel.
    await stack.waitForLog(/tool call cancelled/, 3_000, since);
    expect(sandbox.requests().some((q) => q.template === `${RUNS}/{run}/cancel`)).toBe(false);
    const runs = await stack.api.request({ method: 'GET', path: RUNS, pathParams: { engagement: ENGAGEMENT_AP } });
    expect(['queued', 'running']).toContain((runs.data as Json[])[0]!.status);
  });

  it('cancel_on_abort is refused, with nothing sent, on a job that cannot be cancelled', async () => {
    sandbox.clearRequests();
    const r = await stack.call('create_export', { engagement: ENGAGEMENT_AP, kind: 'findings_csv', cancel_on_abort: true });
    expect(r.isError).toBe(true);
    // An export cannot be cancelled: its tool does not take the argument, and the refusal says why.
    expect(textOf(r)).toMatch(/cancel_on_abort: an export cannot be cancelled; leave it out/);
    const { tools } = await stack.client.listTools();
    expect(tools.find((t) => t.name === 'create_export')?.inputSchema.properties).not.toHaveProperty('cancel_on_abort');
    expect(tools.find((t) => t.name === 'start_analysis_run')?.inputSchema.properties).toHaveProperty('cancel_on_abort');
    expect(sandbox.requests()).toHaveLength(0);
  });

  it('a session end is followed until the session has ended', async () => {
    const live = (
      await stack.api.request({
        method: 'POST',
        path: '/engagements/{engagement}/interviews/preview-session',
        pathParams: { engagement: ENGAGEMENT_AP },
        json: {},
      })
    ).data as Json;
    const r = await stack.call('end_session', { session: live.id });
    expect(structured(r)).toMatchObject({ state: 'succeeded', job: { kind: 'session end' }, record: { id: live.id, status: 'ended' } });
  });

  it('a recommendation suggestion and a generation of all documents are followed to success', async () => {
    const sug = await stack.call('suggest_recommendations', { engagement: ENGAGEMENT_AP });
    expect(structured(sug)).toMatchObject({ state: 'succeeded', job: { kind: 'recommendation suggestion' } });
    expect(structured(sug).record.suggested_recommendations).toBeTruthy();
    const all = await stack.call('generate_all_documents', { engagement: ENGAGEMENT_AP });
    expect(structured(all)).toMatchObject({ state: 'succeeded', job: { kind: 'generation of all documents', status: 'succeeded' } });
  });
});
