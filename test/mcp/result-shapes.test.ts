// Results the sandbox cannot produce still answer in their tool's declared shape: checked with the
// validator the SDK client applies to every callTool (its Ajv provider), on a workspace stand-in
// over loopback that answers what a real workspace might.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog/index.js';
import { ApiClient } from '../../src/api/client.js';
import { RateLimiter } from '../../src/api/limiter.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { OperationSet } from '../../src/mcp/operations/operation-set.js';
import { Session } from '../../src/mcp/server/session.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type FakeWorkspace, fakeWorkspace, sendJson } from '../api/fake-workspace.js';

let ws: FakeWorkspace | undefined;
afterEach(async () => {
  await ws?.close();
  ws = undefined;
});

async function sessionOn(answer: (method: string, url: string) => { status: number; body: unknown }) {
  ws = await fakeWorkspace((hit, res) => {
    const a = answer(hit.method, hit.url);
    sendJson(res, a.status, a.body);
  });
  const config = loadConfig({ WORKSPACE_URL: ws.origin, WORKSPACE_TOKEN: 'pat_resultshapes0000', WORKSPACE_TOOLSETS: 'all', WORKSPACE_JOB_WAIT_SECONDS: '0' });
  const { logger } = createLogger('silent');
  const client = new ApiClient({ baseUrl: ws.api, token: () => 'pat_resultshapes0000', limiter: new RateLimiter(), logger });
  const session = new Session({ config, client, logger, operations: new OperationSet({ catalog, logger, live: false }) });
  const close = async () => {
    session.close();
    await client.close();
  };
  return { session, close };
}

const validate = (schema: unknown, value: unknown) => new AjvJsonSchemaValidator().getValidator(schema as never)(value);

describe('declared shapes off the sandbox', () => {
  it('a job start whose answer names no job answers in the job shape: state unknown, the answer as its record', async () => {
    const { session, close } = await sessionOn(() => ({ status: 202, body: { data: { accepted: true } } }));
    try {
      const r = await session.call('start_analysis_run', { engagement: ENGAGEMENT_AP, mode: 'incremental' }, { signal: new AbortController().signal });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ state: 'unknown', polls: 0, record: { accepted: true } });
      expect(r.structuredContent).not.toHaveProperty('job');
      const tool = session.tools().find((t) => t.name === 'start_analysis_run');
      expect(validate(tool?.outputSchema, r.structuredContent)).toMatchObject({ valid: true });
      // The bare answer, without the job's state, is refused by the same check.
      expect(validate(tool?.outputSchema, { accepted: true })).toMatchObject({ valid: false });
    } finally {
      await close();
    }
  });
});
