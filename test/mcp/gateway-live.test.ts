// The live description: fetched once, kept for a day with its version (in memory and on disk for the
// next start), turned into callable operations; a failed fetch degrades to the catalog with a warning.
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { RateLimiter } from '../../src/api/limiter.js';
import { createLogger } from '../../src/log.js';
import { forgetLiveDescriptions, liveOperations, loadLiveDescription, LIVE_MAX_AGE_MS } from '../../src/mcp/live-openapi.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { catalog } from '../../tools/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { loadConfig } from '../../src/config.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { startStack, textOf } from '../helpers/stack.js';

let sandbox: SandboxHandle;
let client: ApiClient;
const lines: string[] = [];
const { logger } = createLogger('debug', (l) => lines.push(l));

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  client = new ApiClient({ baseUrl: sandbox.api, token: () => sandbox.tokens.read, limiter: new RateLimiter({ limit: 120, windowMs: 1000 }), retry: { backoffBaseMs: 5 } });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});
beforeEach(() => {
  forgetLiveDescriptions();
  sandbox.admin.clearFaults();
  sandbox.clearRequests();
  lines.length = 0;
});

const fetches = () => sandbox.requests().filter((r) => r.path === '/api/v1/openapi.json').length;

describe('loading the live description', () => {
  it('is fetched once, then served from disk on the next start while under a day old', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wcm-config-'));
    let now = Date.UTC(2026, 10, 21, 9);
    const opts = { client, origin: sandbox.url, cacheDir: dir, logger, now: () => now };
    const first = await loadLiveDescription(opts);
    expect(first?.source).toBe('network');
    expect(first?.version).toBe('1.0.0');
    expect(fetches()).toBe(1);
    const [file] = await readdir(dir);
    const kept = JSON.parse(await readFile(join(dir, file!), 'utf8')) as { version: string; fetched_at: number; origin: string };
    expect(kept).toMatchObject({ version: '1.0.0', fetched_at: now, origin: sandbox.url });

    forgetLiveDescriptions(); // a new process
    now += LIVE_MAX_AGE_MS - 60_000;
    const second = await loadLiveDescription(opts);
    expect(second?.source).toBe('disk');
    expect(fetches()).toBe(1);

    forgetLiveDescriptions();
    now += 120_000; // now over a day old
    const third = await loadLiveDescription(opts);
    expect(third?.source).toBe('network');
    expect(fetches()).toBe(2);
  });

  it('a failed refresh falls back to the copy from the last start, with a warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wcm-config-'));
    let now = Date.UTC(2026, 10, 21, 9);
    const opts = { client, origin: sandbox.url, cacheDir: dir, logger, now: () => now };
    await loadLiveDescription(opts);
    forgetLiveDescriptions();
    now += 2 * LIVE_MAX_AGE_MS;
    sandbox.admin.fault({ count: 5, status: 500, match: { method: 'GET', path: '/openapi.json' } });
    const stale = await loadLiveDescription(opts);
    expect(stale?.source).toBe('disk');
    expect(lines.join('\n')).toMatch(/could not refresh the live API description/);
  });

  it('turns what the catalog lacks into operations, marked generated, with the description\'s scope and area', async () => {
    const d = await loadLiveDescription({ client, origin: sandbox.url, logger });
    const ops = liveOperations(d!.document, catalog);
    const names = ops.map((o) => o.name);
    expect(names).toEqual(expect.arrayContaining(['list_engagements', 'get_engagement', 'create_engagement', 'ask_audit_chat']));
    for (const o of ops) expect(catalog.some((c) => c.method === o.method && c.path === o.path)).toBe(false);
    const ask = ops.find((o) => o.name === 'ask_audit_chat')!;
    expect(ask).toMatchObject({ method: 'POST', scope: 'read', toolset: 'chat', body: 'json', generated: true });
    expect(ask.annotations.readOnlyHint).toBe(true);
    // Validation from the description's schema: required and unknown fields are enforced.
    expect(ask.input.safeParse({ engagement: '01M1D4MS5080000000GGT70VZH' }).success).toBe(false);
    expect(ask.input.safeParse({ engagement: '01M1D4MS5080000000GGT70VZH', question: 'Why?', extra: 1 }).success).toBe(false);
    expect(ask.input.safeParse({ engagement: '../x', question: 'Why?' }).success).toBe(false);
    expect(ops.find((o) => o.name === 'list_engagements')?.paginated).toBe(true);
  });
});

describe('a server whose workspace does not serve its description', () => {
  it('starts, lists the catalog-backed surface, and warns', async () => {
    forgetLiveDescriptions();
    sandbox.admin.fault({ count: 5, status: 500, match: { method: 'GET', path: '/openapi.json' } });
    const stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default' } });
    try {
      const { tools } = await stack.client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain('list_findings');
      expect(names).toContain('find_operations');
      expect(names).not.toContain('list_engagements');
      expect(stack.logs.join('\n')).toMatch(/could not read the live API description: serving the documented operations only/);
      const r = await stack.call('call_operation', { operation: 'list_engagements' });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/Unknown operation/);
    } finally {
      await stack.close();
    }
  });
});

describe('a slow description', () => {
  it('does not hold tools/list long; the client is told when the list grows', async () => {
    sandbox.admin.fault({ count: 1, delay_ms: 2_500, match: { method: 'GET', path: '/openapi.json' } });
    // Built here rather than with startStack, which waits for the description to land.
    const config = loadConfig({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, WORKSPACE_TOOLSETS: 'default' });
    const server = createMcpServer({ config, client, logger, operations: catalog });
    const mcp = new Client({ name: 'test', version: '1.0.0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), mcp.connect(a)]);
    try {
      const changed = new Promise<void>((resolve) => mcp.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      const started = Date.now();
      const first = (await mcp.listTools()).tools.map((t) => t.name);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(first).toContain('find_operations');
      expect(first).not.toContain('list_engagements');
      await changed;
      const second = (await mcp.listTools()).tools.map((t) => t.name);
      expect(second).toContain('list_engagements');
    } finally {
      await mcp.close();
      await server.close();
    }
  });
});
