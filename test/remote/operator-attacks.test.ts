// What a member can do to what the operator is told, over two replicas of the real `serve --remote`
// on one real Redis behind the round-robin balancer, each with metrics on a port of its own and the
// audit trail in a file:
// - Made-up tool names (any signed-in member may send them) count as `other`, and never take the
//   bounded tool labels from the server's own tools: otherwise 300 made-up names on a replica would leave
//   every real tool counted as `other` from then on, blinding the operator to what members ran.
// - A script's source and its calls' arguments reach neither the trail nor the metrics.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type RedisHandle, startRedis } from '../helpers/redis.js';
import { CLAIRE, type Deployment, deployment, signInAs } from './deployment.js';

const CANARY = 'CANARY-5d1e-a-script-never-in-the-trail';

let redis: RedisHandle;
let dir: string;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), 'wcm-operator-attacks-'));
});
afterAll(async () => {
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => {});
});

const metricsOf = (d: Deployment) =>
  d.replicas.map((r) => {
    const m = /serving metrics at (\S+)/.exec(r.stderr());
    if (!m) throw new Error(`no metrics URL: ${r.stderr()}`);
    return m[1] as string;
  });

/** The tool_calls samples of one scrape: label set -> value. */
async function toolCalls(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(url)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^wcm_tool_calls_total\{(.*)\} (\S+)$/.exec(line);
    if (m) out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

describe('the operator is told what members ran, and a member cannot blind them', () => {
  it("made-up tool names count as other and leave the labels to the server's tools; a script's source and arguments reach neither trail nor metrics", async () => {
    const audit = join(dir, 'audit.log');
    const d = await deployment(redis, 2, { WORKSPACE_METRICS_PORT: '0', WORKSPACE_AUDIT: `file:${audit}` });
    closers.push(d.close);
    const [first] = metricsOf(d) as [string, string];
    const claire = await signInAs(d, CLAIRE, 'write', 'modern');
    closers.push(() => claire.client.close());
    // All on the first replica: its labels are what is attacked.
    d.lb.targets.splice(1);
    for (let i = 0; i < 320; i++) {
      const r = (await claire.client.callTool({ name: `made_up_${i}`, arguments: {} })) as CallToolResult;
      expect(r.isError).toBe(true);
    }
    const listed = (await claire.client.callTool({ name: 'list_engagements', arguments: {} })) as CallToolResult;
    expect(listed.isError).toBeFalsy();
    const script = (await claire.client.callTool({
      name: 'run_read_script',
      arguments: {
        script: `// ${CANARY}\nawait api.list_findings({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, cursor: ${JSON.stringify(CANARY)} }).catch((e) => e.code); console.log(${JSON.stringify(CANARY)}); return (await api.get_engagement({ engagement: ${JSON.stringify(ENGAGEMENT_AP)} })).id;`,
      },
    })) as CallToolResult;
    expect(script.isError).toBeFalsy();

    const calls = await toolCalls(first);
    expect(calls.get('tool="list_engagements",outcome="ok"')).toBe(1);
    expect(calls.get('tool="run_read_script",outcome="ok"')).toBe(1);
    expect(calls.get('tool="other",outcome="refused"')).toBe(320);
    expect([...calls.keys()].filter((k) => k.includes('made_up'))).toEqual([]);

    const trail = await readFile(audit, 'utf8');
    expect(trail).toContain('"tool":"run_read_script"');
    expect(trail).not.toContain(CANARY);
    expect(trail).not.toContain(claire.token);
    expect(await (await fetch(first)).text()).not.toContain(CANARY);
  }, 180_000);
});
