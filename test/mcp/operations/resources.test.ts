// Resources over real HTTP: every URI template reads what it names, engagements are listed as
// resources, and tool results link to the resources they touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP, INTERVIEW_AP_CLERK, SESSION_AP_CLERK } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { finished, TestClock } from '../../helpers/clock.js';
import { type Stack, startStack } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
let stack: Stack;
// Runs with real time; a test moves it past a job's end to read the job finished.
const clock = new TestClock();
beforeAll(async () => {
  // Jobs (exports) finish in a hundredth of their usual time.
  sandbox = await startSandbox({ port: 0, rateLimit: false, timeScale: 0.01, clock: clock.now });
  stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default' } });
});
afterAll(async () => {
  await stack.close();
  await sandbox.close();
});

async function api<T>(path: string, pathParams: Record<string, string>, query?: Record<string, unknown>): Promise<T> {
  return (await stack.api.request({ method: 'GET', path, pathParams, ...(query ? { query } : {}) })).data as T;
}

async function readJson(uri: string): Promise<Record<string, unknown>> {
  const r = await stack.client.readResource({ uri });
  const c = r.contents[0]!;
  expect(c.uri).toBe(uri);
  expect(c.mimeType).toBe('application/json');
  return JSON.parse((c as { text: string }).text) as Record<string, unknown>;
}

describe('resource templates', () => {
  it('are listed, one per thing an assistant reads', async () => {
    const { resourceTemplates } = await stack.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'workspace://engagements/{engagement}',
      'workspace://engagements/{engagement}/findings/{finding}',
      'workspace://interviews/{interview}/chapters/{chapter}/recap',
      'workspace://sessions/{session}/transcript',
      'workspace://engagements/{engagement}/documents/{kind}',
      'workspace://engagements/{engagement}/exports/{export}/file',
    ]);
  });

  it('an engagement', async () => {
    const e = await readJson(`workspace://engagements/${ENGAGEMENT_AP}`);
    expect(e.id).toBe(ENGAGEMENT_AP);
  });

  it('a finding with its evidences', async () => {
    const [first] = await api<{ id: string }[]>('/engagements/{engagement}/findings', { engagement: ENGAGEMENT_AP }, { limit: 1 });
    const f = await readJson(`workspace://engagements/${ENGAGEMENT_AP}/findings/${first!.id}`);
    expect(f.id).toBe(first!.id);
    expect(Array.isArray(f.evidences)).toBe(true);
  });

  it('a session transcript, in full', async () => {
    const t = await readJson(`workspace://sessions/${SESSION_AP_CLERK}/transcript`);
    const direct = await api<unknown>('/sessions/{session}/transcript', { session: SESSION_AP_CLERK });
    expect(t).toEqual(direct);
  });

  it('a chapter recap', async () => {
    const [chapter] = await api<{ id: string }[]>('/interviews/{interview}/chapters', { interview: INTERVIEW_AP_CLERK });
    const recap = await readJson(`workspace://interviews/${INTERVIEW_AP_CLERK}/chapters/${chapter!.id}/recap`);
    expect(recap).toEqual(await api('/interviews/{interview}/chapters/{chapter}/recap', { interview: INTERVIEW_AP_CLERK, chapter: chapter!.id }));
  });

  it('a deliverable document', async () => {
    const d = await readJson(`workspace://engagements/${ENGAGEMENT_AP}/documents/executive_summary`);
    expect(d.updated_at).toBeTruthy();
  });

  it('an export file, as bytes with its type', async () => {
    const created = await stack.call('create_export', { engagement: ENGAGEMENT_AP, kind: 'findings_csv' });
    expect(created.isError).toBeFalsy();
    // create_export follows its job (src/mcp/pipeline/follow-jobs.ts): the export is in structuredContent.job.
    const id = (created.structuredContent as { job: { id: string } }).job.id;
    const uri = `workspace://engagements/${ENGAGEMENT_AP}/exports/${id}/file`;
    // The tool result links to the file it will become.
    expect(created.content.some((c) => c.type === 'resource_link' && c.uri === uri)).toBe(true);
    const job = await finished(clock, () => api<{ status: string }>('/engagements/{engagement}/exports/{export}', { engagement: ENGAGEMENT_AP, export: id }));
    expect(job.status).toBe('succeeded');
    const r = await stack.client.readResource({ uri });
    const c = r.contents[0] as { mimeType: string; text?: string; blob?: string };
    expect(c.mimeType).toBe('text/csv');
    expect(c.text?.split('\n')[0]).toMatch(/id/);
  });

  it('an unknown URI or record is an error, not an empty read', async () => {
    await expect(stack.client.readResource({ uri: 'workspace://nothing/here' })).rejects.toThrow(/Unknown resource/);
    await expect(stack.client.readResource({ uri: `workspace://engagements/01ZZZZZZZZZZZZZZZZZZZZZZZZ` })).rejects.toThrow(/HTTP 404/);
  });
});

describe('resource listing and links', () => {
  it('lists the engagements as resources, by name', async () => {
    const { resources } = await stack.client.listResources();
    const engagements = await api<{ id: string; name: string }[]>('/engagements', {});
    expect(resources.map((r) => [r.uri, r.name])).toEqual(engagements.map((e) => [`workspace://engagements/${e.id}`, e.name]));
  });

  it('tool results link to the resources they show', async () => {
    const list = await stack.call('list_engagements', {});
    expect(list.content.some((c) => c.type === 'resource_link' && c.uri === `workspace://engagements/${ENGAGEMENT_AP}`)).toBe(true);
    const doc = await stack.call('call_operation', { operation: 'get_deliverable_document', arguments: { engagement: ENGAGEMENT_AP, kind: 'roadmap' } });
    expect(doc.content.some((c) => c.type === 'resource_link' && c.uri === `workspace://engagements/${ENGAGEMENT_AP}/documents/roadmap`)).toBe(true);
  });
});
