// MCP tasks (the SDK's experimental tasks): a client that asks may run a job tool as a task,
// get the task at once, poll it, and read the job's final answer as the task's result.
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ sandbox: { timeScale: 0.01 }, env: { WORKSPACE_RATE_LIMIT: '120/0.6' } });
});
afterAll(() => stack.close());

describe('job tools as MCP tasks', () => {
  it('job tools declare optional task support; other tools do not', async () => {
    const { tools } = await stack.client.listTools();
    expect(tools.find((t) => t.name === 'start_analysis_run')?.execution).toEqual({ taskSupport: 'optional' });
    expect(tools.find((t) => t.name === 'create_export')?.execution).toEqual({ taskSupport: 'optional' });
    expect(tools.find((t) => t.name === 'list_findings')?.execution).toBeUndefined();
  });

  it('an analysis run called as a task: created at once, then completed with the followed result', async () => {
    const kinds: string[] = [];
    let result: CallToolResult | undefined;
    let taskId = '';
    for await (const m of stack.client.experimental.tasks.callToolStream(
      { name: 'start_analysis_run', arguments: { engagement: ENGAGEMENT_AP, mode: 'incremental' } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      kinds.push(m.type);
      if (m.type === 'taskCreated') taskId = m.task.taskId;
      if (m.type === 'result') result = m.result as CallToolResult;
      if (m.type === 'error') throw m.error;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds.at(-1)).toBe('result');
    expect(result?.structuredContent).toMatchObject({ state: 'succeeded', job: { kind: 'analysis run', status: 'succeeded' } });
    expect((await stack.client.experimental.tasks.getTask(taskId)).status).toBe('completed');
  });
});
