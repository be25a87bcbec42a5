import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { remoteFixture, signInAutoConsent } from './deployment.js';

const CANARY = 'CANARY-redis-91b2';
const remote = remoteFixture();
const { closers } = remote;

describe('the audit trail in Redis, shared by the replicas', () => {
  it('a sign-in and calls across two replicas: one stream, every event, no argument value', async () => {
    const { lb, mcpUrl } = await remote.deploy({ WORKSPACE_AUDIT: 'redis' }, 2, { oauth: { autoConsent: 'write' } });
    const { client, provider } = await signInAutoConsent(mcpUrl, 'modern', 'audit-redis');
    closers.push(() => client.close());
    const mark = lb.served.length;
    for (let i = 0; i < 4; i++) {
      const r = await client.callTool({ name: 'list_findings', arguments: { engagement: ENGAGEMENT_AP, limit: 2, fields: ['id', CANARY] } });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    }
    // The calls met both replicas.
    expect(new Set(lb.served.slice(mark).map((s) => s.target))).toEqual(new Set(lb.targets));

    const reader = createClient({ url: remote.redis.url });
    await reader.connect();
    closers.push(() => reader.close());
    // Read as they come: each XREAD waits (BLOCK) for entries after the last one read.
    const events = { all: [] as Record<string, any>[], raw: '' };
    for (let last = '0'; events.all.filter((e) => e.event === 'tool_call').length < 4; ) {
      // By stream name: the entries, each its id and its fields.
      const read = (await reader.sendCommand(['XREAD', 'BLOCK', '10000', 'STREAMS', 'wcm:audit', last])) as Record<string, Array<[string, string[]]>> | null;
      if (read === null) throw new Error(`the audit stream got no new event within 10 s: ${events.raw}`);
      const entries = read['wcm:audit'] ?? [];
      if (entries.length === 0) throw new Error(`XREAD answered no entry: ${JSON.stringify(read)}`);
      for (const [id, fields] of entries) {
        last = id;
        events.all.push(JSON.parse(fields[1] as string) as Record<string, any>);
      }
      events.raw += JSON.stringify(entries);
    }
    expect(events.raw).not.toContain(CANARY);
    const clientId = provider.clientInformation()?.client_id;
    expect(events.all.filter((e) => e.event === 'sign_in')).toEqual([expect.objectContaining({ outcome: 'ok', client: clientId })]);
    const calls = events.all.filter((e) => e.event === 'tool_call');
    expect(calls).toHaveLength(4);
    for (const c of calls) {
      expect(c).toMatchObject({
        tool: 'list_findings',
        client: clientId,
        operation: 'GET /engagements/{engagement}/findings',
        ids: { engagement: ENGAGEMENT_AP },
        outcome: 'ok',
        status: 200,
      });
      expect(c.member).toMatch(/^member:/);
    }
  }, 90_000);
});
