import { watch } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { negotiation } from '../helpers/stack.js';
import { signInAutoConsent } from './deployment.js';
import { type LoneServeRemote, spawnLoneServeRemote } from './helpers.js';

const CANARY = 'CANARY-7f3c9e-never-in-the-trail';

let sandbox: SandboxHandle;
let server: LoneServeRemote;
let dir: string;
let auditFile: string;
let mcpUrl: URL;
let metricsUrl: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false, oauth: { autoConsent: 'write' }, logger: () => {} });
  dir = await mkdtemp(join(tmpdir(), 'wcm-audit-'));
  auditFile = join(dir, 'trail', 'audit.log');
  server = await spawnLoneServeRemote(
    {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      WORKSPACE_URL: sandbox.url,
      LOG_LEVEL: 'info',
      WORKSPACE_AUDIT: `file:${auditFile}`,
      WORKSPACE_METRICS_PORT: '0',
    },
    [/public URL (\S+)/, /serving metrics at (\S+)/],
    30_000,
  );
  mcpUrl = new URL(server.found[0] as string);
  metricsUrl = server.found[1] as string;
}, 40_000);

afterAll(async () => {
  await server?.stop();
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, any>;

async function auditEvents(): Promise<Json[]> {
  const text = await readFile(auditFile, 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Json);
}

/** The trail's events once `enough` holds of them, read again at each change in its folder; fails after 10 s. */
async function auditEventsWhen(enough: (events: Json[]) => boolean): Promise<Json[]> {
  const watcher = watch(dirname(auditFile));
  try {
    return await new Promise<Json[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the audit trail did not hold the events awaited within 10 s')), 10_000);
      const read = () =>
        // A line still being written reads as no event yet.
        auditEvents().then(
          (events) => {
            if (!enough(events)) return;
            clearTimeout(timer);
            resolve(events);
          },
          () => {},
        );
      watcher.on('change', read);
      void read();
    });
  } finally {
    watcher.close();
  }
}

/** One sample of the exposition: its metric name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * A strict reader of the Prometheus text format (0.0.4): every line is a HELP or TYPE comment or a
 * sample `name{label="value",...} number`; every sample belongs to a family declared by TYPE (a
 * histogram's _bucket, _sum and _count included); anything else throws.
 */
function parseExposition(text: string): Sample[] {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
  const sampleLine = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (-?(?:[0-9.]+(?:e[+-]?[0-9]+)?|NaN|\\+Inf|-Inf))(?: -?[0-9]+)?$`);
  const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (comment) {
      if (comment[1] === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(comment[3] as string)) throw new Error(`bad TYPE: ${line}`);
        types.set(comment[2] as string, comment[3] as string);
      }
      continue;
    }
    const m = sampleLine.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const name = m[1] as string;
    const labels: Record<string, string> = {};
    if (m[2]) {
      labelPair.lastIndex = 0;
      let read = 0;
      for (let p = labelPair.exec(m[2]); p; p = labelPair.exec(m[2])) {
        labels[p[1] as string] = (p[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
        read = labelPair.lastIndex;
      }
      if (read !== m[2].length) throw new Error(`bad labels: ${line}`);
    }
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(family)) throw new Error(`a sample of no declared family: ${line}`);
    samples.push({ name, labels, value: Number(m[3]) });
  }
  return samples;
}

const total = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

describe('serve --remote tells the operator what was done, never what was said', () => {
  it('a sign-in and three calls: their audit events, without argument values, and /metrics counting them', async () => {
    // The sign-in, as an MCP client does it: 401, discovery, registration, the browser, the code.
    const { client, provider } = await signInAutoConsent(mcpUrl, 'legacy', 'audit-test');
    try {
      const write = (await client.callTool({
        name: 'create_finding',
        arguments: { engagement: ENGAGEMENT_AP, type: 'risk', statement: `Double payments ${CANARY}` },
      })) as CallToolResult;
      expect(write.isError).toBeFalsy();
      const search = (await client.callTool({ name: 'find_operations', arguments: { query: `findings ${CANARY}` } })) as CallToolResult;
      expect(search.isError).toBeFalsy();
      // Refused for its arguments: nothing is sent, and the id it was given is not an id from a path.
      // Sent by a client of the 2026-07-28 protocol (stateless requests): the same member and client.
      const modern = new Client({ name: 'audit-test', version: '1.0.0' }, { versionNegotiation: negotiation('modern') });
      await modern.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
      try {
        const refused = (await modern.callTool({ name: 'get_engagement', arguments: { engagement: CANARY } })) as CallToolResult;
        expect(refused.isError).toBe(true);
      } finally {
        await modern.close();
      }
    } finally {
      await client.close();
    }
    const clientId = provider.clientInformation()?.client_id as string;

    const events = await auditEventsWhen((all) => all.filter((e) => e.event === 'tool_call').length >= 3);
    const text = await readFile(auditFile, 'utf8');
    // Nothing a member said reaches the trail.
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain('Double payments');
    // Owner-only, as it may be read by whoever can read the file.
    expect((await stat(auditFile)).mode & 0o777).toBe(0o600);

    const signIn = events.filter((e) => e.event === 'sign_in');
    expect(signIn).toHaveLength(1);
    expect(signIn[0]).toMatchObject({ name: 'audit', outcome: 'ok', client: clientId, scope: 'write' });
    const member = signIn[0]?.member as string;
    expect(member).toMatch(/^member:/);
    expect(events.filter((e) => e.event === 'grant_change')).toEqual([
      expect.objectContaining({ change: 'activated', member, client: clientId, scope: 'write' }),
    ]);

    const calls = events.filter((e) => e.event === 'tool_call');
    expect(calls.map((c) => c.tool)).toEqual(['create_finding', 'find_operations', 'get_engagement']);
    for (const c of calls) {
      expect(c).toMatchObject({ member, client: clientId });
      expect(c.request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof c.duration_ms).toBe('number');
      expect(typeof c.time).toBe('string');
    }
    expect(calls[0]).toMatchObject({
      outcome: 'ok',
      operation: 'POST /engagements/{engagement}/findings',
      ids: { engagement: ENGAGEMENT_AP },
      status: 201,
    });
    expect(calls[1]).toMatchObject({ outcome: 'ok', operation: null, ids: {}, status: null });
    expect(calls[2]).toMatchObject({ outcome: 'refused', operation: null, ids: {}, status: null });
    // The server's own logs keep out of the trail: it is its own stream.
    expect(server.stderr()).not.toContain('"name":"audit"');

    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseExposition(await res.text());
    expect(total(samples, 'wcm_sign_ins_total', { outcome: 'ok' })).toBe(1);
    expect(total(samples, 'wcm_grant_changes_total', { change: 'activated' })).toBe(1);
    expect(total(samples, 'wcm_tool_calls_total')).toBe(3);
    expect(total(samples, 'wcm_tool_calls_total', { tool: 'create_finding', outcome: 'ok' })).toBe(1);
    expect(total(samples, 'wcm_tool_calls_total', { tool: 'find_operations', outcome: 'ok' })).toBe(1);
    expect(total(samples, 'wcm_tool_calls_total', { tool: 'get_engagement', outcome: 'refused' })).toBe(1);
    expect(total(samples, 'wcm_tool_call_duration_seconds_count')).toBe(3);
    // The workspace answered the write (and the live description's fetch): no 429 among them.
    expect(total(samples, 'wcm_upstream_responses_total', { class: '2xx' })).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'wcm_upstream_rate_limited_total')).toBe(0);
    expect(samples.some((s) => s.name === 'wcm_sessions')).toBe(true);
    expect(samples.some((s) => s.name === 'wcm_redis_errors_total')).toBe(true);
    // Only /metrics is served there, and not on the MCP port.
    expect((await fetch(new URL('/', metricsUrl))).status).toBe(404);
    expect((await fetch(new URL('/metrics', mcpUrl))).status).not.toBe(200);
  }, 60_000);
});
