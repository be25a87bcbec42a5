// The job cells of the fault matrix: what a followed job answers when its polls meet 500, 503 or a
// reset connection, when the job fails, and when someone cancels it meanwhile. Sandbox over HTTP,
// faults injected by the sandbox on the poll endpoint only.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../../../src/sandbox/data/ids.js';
import { type Stack, startStack, textOf } from '../../../helpers/stack.js';

type Json = Record<string, any>;
const EXPORT_POLL = { method: 'GET', path: '/engagements/{engagement}/exports/{export}' };
const RUNS = '/engagements/{engagement}/analysis/runs';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ sandbox: { timeScale: 0.02 }, env: { WORKSPACE_RATE_LIMIT: '120/1.2', WORKSPACE_JOB_WAIT_SECONDS: '10' } });
});
afterAll(() => stack.close());
afterEach(() => stack.sandbox.admin.reset());

const s = (r: CallToolResult) => r.structuredContent as Json;
const exportNow = () => stack.call('create_export', { engagement: ENGAGEMENT_AP, kind: 'findings_csv' });
const pollsFaulted = () => stack.sandbox.requests().filter((q) => q.template === EXPORT_POLL.path && q.fault);

describe('job cells of the fault matrix', () => {
  it.each([
    ['500', { status: 500 }],
    ['503', { status: 503 }],
    ['a reset connection', { reset: true }],
  ])('a poll answered %s is survived: the job is still followed to its file', async (_name, fault) => {
    stack.sandbox.admin.fault({ count: 2, match: EXPORT_POLL, ...fault });
    const r = await exportNow();
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(s(r)).toMatchObject({ state: 'succeeded', file: { content_type: expect.stringMatching(/csv/) } });
    expect(pollsFaulted()).toHaveLength(2);
  });

  it('polls that keep failing end the wait with the id and how to check again, not a failed job', async () => {
    stack.sandbox.admin.fault({ count: 1000, match: EXPORT_POLL, status: 500 });
    const r = await exportNow();
    expect(r.isError).toBeFalsy();
    expect(s(r)).toMatchObject({ state: 'unknown', check_again: { tool: 'get_export' }, download: { tool: 'download_export' } });
    expect(textOf(r)).toMatch(/could not be read \(HTTP 500 sandbox\.injected_fault.*\); it may still be running\. Check again: call get_export with/);
    // Three polls failed in a row (500 is not retried by the client), then the follower stopped.
    expect(pollsFaulted()).toHaveLength(3);
  });

  it('a job that fails answers an error naming the failure, and downloads nothing', async () => {
    stack.sandbox.admin.failNextJobs('atelier', 1);
    const r = await exportNow();
    expect(r.isError).toBe(true);
    expect(s(r)).toMatchObject({ state: 'failed', job: { status: 'failed', error: { code: 'job.failed' } } });
    expect(s(r).file).toBeUndefined();
    expect(stack.sandbox.requests().some((q) => q.template?.endsWith('/download'))).toBe(false);
  });

  it('a run cancelled by someone else meanwhile is reported cancelled', async () => {
    const call = stack.call('start_analysis_run', { engagement: ENGAGEMENT_AP, mode: 'full' });
    // The run starts; cancel it from outside once it exists.
    await stack.sandbox.waitForRequest((q) => q.method === 'POST' && q.template === RUNS && q.status === 201, 5_000, 'start of the run');
    const list = await stack.api.request({ method: 'GET', path: RUNS, pathParams: { engagement: ENGAGEMENT_AP } });
    const run = (list.data as Json[]).find((x) => x.status === 'queued' || x.status === 'running');
    if (!run) throw new Error(`no run under way: ${JSON.stringify(list.data)}`);
    await stack.api.request({ method: 'POST', path: `${RUNS}/{run}/cancel`, pathParams: { engagement: ENGAGEMENT_AP, run: run.id } });
    const r = await call;
    expect(r.isError).toBeFalsy();
    expect(s(r)).toMatchObject({ state: 'cancelled', job: { id: run.id, status: 'cancelled' } });
    expect(textOf(r)).toContain('was cancelled; it produced nothing');
  });
});
