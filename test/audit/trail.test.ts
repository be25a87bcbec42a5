// The audit trail's three destinations, each real: a log stream of its own on stderr (the logger name
// "audit", apart from the server's logs), a file appended to and readable by its owner only (brought
// back to 0600 when it was there with wider rights), and a Redis stream on a real redis-server, kept
// to about the length the operator set (XADD MAXLEN ~).
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCallEvent } from '../../src/audit/events.js';
import { AUDIT_STREAM, openAuditTrail } from '../../src/audit/trail.js';
import { createLogger } from '../../src/log.js';
import { RedisStore } from '../../src/store/redis.js';
import { startRedis } from '../helpers/redis.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

const call = (n: number): ToolCallEvent => ({
  event: 'tool_call',
  request_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  rpc_id: n,
  member: 'member:01M1D47Z00H0000HRCYV2EBQSD',
  client: 'https://client.example/metadata.json',
  tool: 'list_findings',
  operation: 'GET /engagements/{engagement}/findings',
  ids: { engagement: '01M1D47Z00H0000HRCYV2EBQSE' },
  outcome: 'ok',
  status: 200,
  duration_ms: 12,
});

const quiet = () => {
  const lines: string[] = [];
  return { logger: createLogger('warn', (l) => lines.push(l)).logger, lines };
};

describe('the audit trail', () => {
  it('on stderr: one JSON line per event, under the logger name "audit", with its time', async () => {
    const written: string[] = [];
    const trail = openAuditTrail({ kind: 'stderr' }, { logger: quiet().logger, stderr: { write: (l: string) => written.push(l) } });
    trail.emit(call(1));
    trail.emit({ event: 'sign_in', member: 'member:x', client: 'c', outcome: 'ok', scope: 'read' });
    await trail.close();
    const lines = written.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ name: 'audit', ...call(1), msg: 'tool_call' });
    expect(lines[1]).toMatchObject({ name: 'audit', event: 'sign_in', outcome: 'ok' });
    expect(Date.parse(lines[0]?.time as string)).not.toBeNaN();
  });

  it('in a file: appended, owner-only even when it was there with wider rights', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wcm-audit-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'audit.log');
    await writeFile(path, '{"earlier":true}\n');
    await chmod(path, 0o644);
    const trail = openAuditTrail({ kind: 'file', path }, { logger: quiet().logger });
    trail.emit(call(1));
    trail.emit(call(2));
    await trail.close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines[0]).toBe('{"earlier":true}');
    expect(lines.slice(1).map((l) => (JSON.parse(l) as { rpc_id: number }).rpc_id)).toEqual([1, 2]);
  });

  it('in a Redis stream: in order, each event whole, the stream kept to about its cap', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const store = await RedisStore.connect(redis.url);
    cleanups.push(() => store.close());
    const maxLen = 100;
    const trail = openAuditTrail({ kind: 'redis', maxLen }, { logger: quiet().logger, store });
    const count = 2_000;
    for (let i = 1; i <= count; i++) trail.emit(call(i));
    await trail.close();

    const reader = createClient({ url: redis.url });
    await reader.connect();
    cleanups.push(() => reader.close());
    const key = `wcm:${AUDIT_STREAM}`;
    const length = Number(await reader.sendCommand(['XLEN', key]));
    // MAXLEN ~ trims whole stream nodes (100 entries each by default): about the cap, never the whole history.
    expect(length).toBeGreaterThanOrEqual(maxLen);
    expect(length).toBeLessThanOrEqual(maxLen + 100);
    const entries = (await reader.sendCommand(['XRANGE', key, '-', '+'])) as Array<[string, string[]]>;
    const ids = entries.map(([, fields]) => (JSON.parse(fields[1] as string) as { rpc_id: number }).rpc_id);
    // The newest are kept, in the order they were emitted.
    expect(ids.at(-1)).toBe(count);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(JSON.parse((entries.at(-1) as [string, string[]])[1][1] as string)).toMatchObject(call(count));
  });

  it('a Redis trail whose write fails says so in the logs and counts it, and the caller is never held', async () => {
    const redis = await startRedis();
    const store = await RedisStore.connect(redis.url, { connectTimeoutMs: 1_000 });
    cleanups.push(() => store.close());
    await redis.stop();
    const { logger, lines } = quiet();
    let failures = 0;
    const trail = openAuditTrail({ kind: 'redis', maxLen: 10 }, { logger, store, onWriteError: () => failures++ });
    trail.emit(call(1));
    await trail.close();
    expect(failures).toBe(1);
    expect(lines.join('')).toMatch(/an audit event could not be written/);
  });
});
