// The live description: fetched once, kept for a day with its version (in memory and on disk for the
// next start), turned into callable operations; a failed fetch degrades to the catalog with a warning.
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { catalog } from '../../../catalog/index.js';
import { ApiClient } from '../../../src/api/client.js';
import { RateLimiter } from '../../../src/api/limiter.js';
import { createLogger } from '../../../src/log.js';
import { forgetLiveDescriptions, LIVE_MAX_AGE_MS, liveOperations, loadLiveDescription } from '../../../src/mcp/operations/live-openapi.js';
import { LIVE_LIST_WAIT_MS } from '../../../src/mcp/operations/operation-set.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { gate } from '../../helpers/reached.js';
import { startStack, textOf } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
let client: ApiClient;
const lines: string[] = [];
const { logger } = createLogger('debug', (l) => lines.push(l));

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  client = new ApiClient({
    baseUrl: sandbox.api,
    token: () => sandbox.tokens.read,
    limiter: new RateLimiter({ limit: 120, windowMs: 1000 }),
    retry: { backoffBaseMs: 5 },
  });
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

  it("turns what the catalog lacks into operations, marked generated, with the description's scope and area", async () => {
    const d = await loadLiveDescription({ client, origin: sandbox.url, logger });
    // The sandbox describes two operations the catalog does not curate.
    const ops = liveOperations(d!.document, catalog);
    expect(ops.map((o) => o.name).sort()).toEqual(['get_client_company', 'list_compliance_documents']);
    for (const o of ops) expect(catalog.some((c) => c.method === o.method && c.path === o.path)).toBe(false);
    expect(ops.find((o) => o.name === 'list_compliance_documents')?.paginated).toBe(true);
    // A read-scoped POST of the description (as if the catalog did not curate the audit chat).
    const known = catalog.filter((o) => o.name !== 'ask_audit_chat');
    const ask = liveOperations(d!.document, known).find((o) => o.name === 'ask_audit_chat')!;
    expect(ask).toMatchObject({ method: 'POST', scope: 'read', toolset: 'chat', body: 'json', generated: true, documented: false, quotesContent: true });
    expect(ask.annotations.readOnlyHint).toBe(true);
    // Validation from the description's schema: required and unknown fields are enforced.
    expect(ask.input.safeParse({ engagement: '01M1D4MS5080000000GGT70VZH' }).success).toBe(false);
    expect(ask.input.safeParse({ engagement: '01M1D4MS5080000000GGT70VZH', question: 'Why?', extra: 1 }).success).toBe(false);
    expect(ask.input.safeParse({ engagement: '../x', question: 'Why?' }).success).toBe(false);
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
      // Curated in the catalog: listed whatever the description says.
      expect(names).toContain('list_engagements');
      expect(stack.logs.join('\n')).toMatch(/could not read the live API description: serving the documented operations only/);
      const r = await stack.call('call_operation', { operation: 'get_client_company', arguments: { company: '01M1D4JYJ0Q00040GRWYN74ED1' } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/Unknown operation/);
    } finally {
      await stack.close();
    }
  });
});

describe('the first tools/list', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`waits for a description that comes within the bound, so nothing arrives later (${era})`, async () => {
      forgetLiveDescriptions();
      // The description is held at the workspace until the first tools/list waits for it.
      const description = gate();
      sandbox.admin.fault({ count: 1, before: description.before, match: { method: 'GET', path: '/openapi.json' } });
      const stack = await startStack({ sandboxHandle: sandbox, era, waitForLive: false, env: { WORKSPACE_TOOLSETS: 'all' } });
      try {
        await description.held(1);
        const since = stack.logs.length;
        const listing = stack.client.listTools();
        await stack.waitForLog(/tools\/list waits for the live API description/, 10_000, since);
        description.open();
        const names = (await listing).tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(['get_client_company', 'list_compliance_documents']));
        expect(stack.logs.join('\n')).not.toMatch(/slow to arrive/);
      } finally {
        await stack.close();
      }
    });

    it(`lists the catalog after the bound when the description is slower, with a warning, and announces the rest (${era})`, async () => {
      forgetLiveDescriptions();
      // The description is held at the workspace until the first tools/list has answered without it.
      const description = gate();
      sandbox.admin.fault({ count: 1, before: description.before, match: { method: 'GET', path: '/openapi.json' } });
      const stack = await startStack({ sandboxHandle: sandbox, era, waitForLive: false, env: { WORKSPACE_TOOLSETS: 'all' } });
      try {
        let resolveChanged!: (tools: Tool[]) => void;
        const changed = new Promise<Tool[]>((r) => (resolveChanged = r));
        const listener = await stack.connect(era, { listChanged: { tools: { debounceMs: 0, onChanged: (_e, tools) => tools && resolveChanged(tools) } } });
        await description.held(1);
        // Answered though the description never came: the list waited for the bound, not for it.
        const first = (await listener.listTools()).tools.map((t) => t.name);
        expect(first).toContain('list_findings');
        expect(first).not.toContain('get_client_company');
        expect(stack.logs.join('\n')).toMatch(/live API description is slow to arrive/);
        expect(stack.logs.join('\n')).toContain(`"waitedMs":${LIVE_LIST_WAIT_MS}`);
        description.open();
        const second = (await changed).map((t) => t.name);
        expect(second).toContain('get_client_company');
      } finally {
        await stack.close();
      }
    }, 30_000);
  }
});
