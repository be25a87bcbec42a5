// The protocol's own conformance suite (@modelcontextprotocol/conformance, which no one here wrote)
// against `serve --http` on the embedded sandbox, with the baseline of scenarios that do not apply.
// Totals are not enough: a scenario can pass on a tool-not-found answer, so each scenario's checks
// are read and each scenario is put in exactly one class below.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';
import { spawnHttpServer, type HttpChild } from '../http/spawn-http.js';

/** Scenarios that exercise this server's own behaviour: each must pass. */
const APPLICABLE = [
  'server-initialize',
  'server-session-lifecycle',
  'ping',
  'logging-set-level',
  'tools-list',
  'resources-list',
  'prompts-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/**
 * Scenarios that pass without applying: they call a fixture tool this server does not have, and the
 * unknown-tool answer (an isError result with text) satisfies their checks. Not counted as passes.
 */
const PASS_ON_UNKNOWN_TOOL = ['tools-call-simple-text', 'tools-call-error'];

/** How a baselined scenario may fail: the spec's answer to a fixture name this server lacks. */
const FIXTURE_MISSING =
  /Unknown (tool|prompt|resource) "?(test_|test:\/\/)|Method not found|did not request (sampling|elicitation)|No (image|audio|resource) content found|Missing (image|resource) content|No (log|progress) notifications received/;

const BASELINE_FILE = join(ROOT, 'test/conformance/expected-failures.yml');
const CONFORMANCE_BIN = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
  errorMessage?: string;
  details?: Record<string, unknown>;
}

async function baseline(): Promise<string[]> {
  const text = await readFile(BASELINE_FILE, 'utf8');
  return [...text.matchAll(/^\s+-\s+([a-z0-9-]+)\s*$/gm)].map((m) => m[1] as string);
}

let server: HttpChild;
let out: string;
let run: { code: number | null; stdout: string };
const checks = new Map<string, Check[]>();

beforeAll(async () => {
  server = await spawnHttpServer();
  out = await mkdtemp(join(tmpdir(), 'wcm-conformance-'));
  run = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CONFORMANCE_BIN, 'server', '--url', server.url, '-o', out, '--expected-failures', BASELINE_FILE], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout }));
  });
  // Results land in DIR/server-<scenario>-<timestamp>/checks.json.
  for (const dir of await readdir(out)) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    checks.set(scenario, JSON.parse(await readFile(join(out, dir, 'checks.json'), 'utf8')) as Check[]);
  }
}, 240_000);

afterAll(async () => {
  await server?.stop();
  if (out) await rm(out, { recursive: true, force: true });
});

describe('MCP conformance suite against serve --http', () => {
  it('passes with the baseline: no unexpected failure, no stale entry', () => {
    expect(run.stdout).toContain('Baseline check passed');
    expect(run.code).toBe(0);
  });

  it('classifies every scenario the suite ran, once', async () => {
    const classified = [...APPLICABLE, ...PASS_ON_UNKNOWN_TOOL, ...(await baseline())];
    expect(new Set(classified).size).toBe(classified.length);
    expect([...checks.keys()].sort()).toEqual([...classified].sort());
  });

  it('passes every applicable scenario on its own checks', () => {
    const passed = APPLICABLE.filter((s) => {
      const c = checks.get(s) ?? [];
      return c.length > 0 && c.every((x) => x.status === 'SUCCESS');
    });
    console.info(`conformance: applicable scenarios passed ${passed.length}/${APPLICABLE.length} (of ${checks.size} in the active suite)`);
    expect(passed).toEqual(APPLICABLE);
  });

  it('rejects DNS rebinding and accepts its own loopback Host, as the suite checks it', () => {
    const c = checks.get('dns-rebinding-protection') ?? [];
    const rejected = c.find((x) => x.id === 'localhost-host-rebinding-rejected');
    expect(rejected?.status).toBe('SUCCESS');
    expect(rejected?.details?.statusCode).toBe(403);
    expect(c.find((x) => x.id === 'localhost-host-valid-accepted')?.status).toBe('SUCCESS');
  });

  it('counts no pass that came from a tool-not-found answer', () => {
    for (const s of PASS_ON_UNKNOWN_TOOL) {
      const [check] = checks.get(s) ?? [];
      const result = check?.details?.result as { isError?: boolean; content?: { text?: string }[] } | undefined;
      expect(result?.isError, s).toBe(true);
      expect(result?.content?.[0]?.text, s).toMatch(/^Unknown tool "test_/);
    }
  });

  it('fails each baselined scenario only for want of the suite fixture it names', async () => {
    const listed = (checks.get('tools-list')?.[0]?.details?.tools ?? []) as string[];
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((t) => t.startsWith('test_'))).toEqual([]);
    for (const s of await baseline()) {
      const failures = (checks.get(s) ?? []).filter((x) => x.status !== 'SUCCESS');
      expect(failures.length, s).toBeGreaterThan(0);
      for (const f of failures) expect(`${f.errorMessage ?? ''} ${JSON.stringify(f.details ?? {})}`, s).toMatch(FIXTURE_MISSING);
    }
  });
});
