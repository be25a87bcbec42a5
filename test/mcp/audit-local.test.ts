// A local server (stdio, as a desktop client starts it) keeps an audit trail too when the operator asks
// for one: on stderr, as its own stream (the logger "audit"), whatever LOG_LEVEL silences, naming the
// one member as `local` and the client by the name it gave; nothing of the arguments, and the ids of
// what was sent.
import { afterEach, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { connectStdio, serverHome } from '../helpers/eras.js';

const CANARY = 'CANARY-local-5d1e';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe('the audit trail of a local server', () => {
  it('on stderr with LOG_LEVEL silent: one event per call, the local member, the client, no argument value', async () => {
    const sandbox: SandboxHandle = await startSandbox({ port: 0, rateLimit: false, logger: () => {} });
    cleanups.push(() => sandbox.close());
    const home = await serverHome(sandbox, { WORKSPACE_AUDIT: 'stderr', LOG_LEVEL: 'silent', WORKSPACE_TOOLSETS: 'all' });
    cleanups.push(home.cleanup);
    const c = await connectStdio('legacy', home);
    cleanups.push(() => c.close());
    // The canary goes to the workspace in the query (a cursor it does not know): the trail still holds none of it.
    const r = await c.client.callTool({ name: 'list_findings', arguments: { engagement: ENGAGEMENT_AP, cursor: CANARY } });
    expect(r.isError).toBe(true);
    const line = await c.when(
      () =>
        c
          .stderr()
          .split('\n')
          // Whole lines only: the last one may still be coming.
          .slice(0, -1)
          .find((l) => l.includes('"name":"audit"')),
      'audit line on stderr',
    );
    expect(JSON.parse(line)).toMatchObject({
      event: 'tool_call',
      member: 'local',
      client: 'eras-stdio-legacy',
      tool: 'list_findings',
      operation: 'GET /engagements/{engagement}/findings',
      ids: { engagement: ENGAGEMENT_AP },
      outcome: 'error',
      status: 422,
    });
    expect(c.stderr()).not.toContain(CANARY);
    // Only the trail: the server's own logs are silenced.
    expect(
      c
        .stderr()
        .split('\n')
        .filter((l) => l.startsWith('{') && !l.includes('"name":"audit"')),
    ).toEqual([]);
  }, 60_000);
});
