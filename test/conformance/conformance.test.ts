// The protocol's own conformance suite (@modelcontextprotocol/conformance, which no one here wrote) in
// the requirements of each protocol revision this server speaks, against `serve --http --port 0` on
// the embedded sandbox. Each run's baseline is test/conformance/expected-failures-REVISION.yml, which
// also classifies every scenario the suite runs (test/conformance/classification.ts reads it).
// Totals are not enough: a scenario can pass on this server's answer to a tool it does not have, and
// fail for want of the suite's fixtures. So each scenario's checks are read, and each scenario must be
// where its file puts it, for the reason the file gives.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';
import { type HttpChild, spawnHttpServer } from '../helpers/spawn-http.js';
import {
  type Classification,
  type Entry,
  FAILURE_KINDS,
  REVISIONS,
  type Revision,
  readClassification,
  scenariosOf,
  UNCOUNTED_KINDS,
} from './classification.js';

const CONFORMANCE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance');

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  details?: Record<string, unknown>;
}

interface Run {
  code: number | null;
  /** The suite's report, colours removed. */
  stdout: string;
  checks: Map<string, Check[]>;
  classification: Classification;
  /** The scenarios the revision requires (the rest run unscored: pending, extensions, added later). */
  scored: Set<string>;
}

const failed = (c: Check) => c.status === 'FAILURE' || c.status === 'WARNING';
const evidence = (c: Check) => `${c.errorMessage ?? ''} ${JSON.stringify(c.details ?? {})}`;
/** The check the suite adds to every scenario: each message this server sent, against the schema. */
const WIRE = 'wire-schema-valid';

/**
 * What a failure of each kind looks like. `fixture`: the server's answer to an unknown name of the
 * suite's reference server (tool, prompt, resource), or the suite's message for the content, requests
 * or notifications that fixture would have produced. `not offered`: the answer of a server without
 * the optional feature.
 */
const FAILURE_EVIDENCE: Record<Exclude<(typeof FAILURE_KINDS)[number], 'tasks'>, RegExp> = {
  fixture: new RegExp(
    [
      String.raw`Unknown (tool|prompt|resource) \\?"?(test_|test://)`,
      "Tool 'json_schema_2020_12_tool' not found",
      "does not list the diagnostic tool 'test_",
      'No (image|audio|resource) content found',
      'Missing (image|resource) content',
      'No log notifications received',
      'did not request elicitation',
      'Prerequisite failed: could not get initial InputRequiredResult',
      'Mutated the tool list but no notifications/tools/list_changed arrived',
    ].join('|'),
  ),
  'not offered': /Method not found|server exposes no tool with x-mcp-header annotations|did not send priming event|did not send retry field/,
};

async function runSuite(url: string, revision: Revision): Promise<Run> {
  const classification = readClassification(revision);
  const out = await mkdtemp(join(tmpdir(), `wcm-conformance-${revision}-`));
  try {
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [join(CONFORMANCE, 'dist/index.js'), 'server', '--url', url, '--requirements', revision, '--expected-failures', classification.file, '-o', out],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
      child.on('error', reject);
      child.on('exit', (exit) => resolve({ code: exit, stdout: text.replace(/\x1b\[[0-9;]*m/g, '') }));
    });
    // Results land in DIR/server-<scenario>-<timestamp>/checks.json.
    const checks = new Map<string, Check[]>();
    for (const dir of await readdir(out)) {
      const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
      checks.set(scenario, JSON.parse(await readFile(join(out, dir, 'checks.json'), 'utf8')) as Check[]);
    }
    const requirements = await readFile(join(CONFORMANCE, `requirements/${revision}.yaml`), 'utf8');
    const serverList = /^server:\n((?: {2}- .+\n)+)/m.exec(requirements)?.[1] ?? '';
    const scored = new Set([...serverList.matchAll(/^ {2}- (\S+)$/gm)].map((m) => m[1] as string));
    return { code, stdout, checks, classification, scored };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

let server: HttpChild;
const runs = new Map<Revision, Run>();

beforeAll(async () => {
  server = await spawnHttpServer();
  // One after the other: the suite's scenarios are sequential, and the machine is shared.
  for (const revision of REVISIONS) runs.set(revision, await runSuite(server.url, revision));
}, 300_000);

afterAll(async () => {
  await server?.stop();
});

const runOf = (revision: Revision) => runs.get(revision) as Run;

/** The checks of `entry` that fail: all of its scenario's, or the one it names. */
function failuresOf(run: Run, entry: Entry): Check[] {
  const checks = run.checks.get(entry.scenario) ?? [];
  return checks.filter((c) => failed(c) && (entry.check === undefined || c.id === entry.check));
}

for (const revision of REVISIONS) {
  describe(`the MCP conformance suite in its ${revision} requirements, against serve --http`, () => {
    it('passes with the baseline: no unexpected failure, no stale entry', () => {
      const run = runOf(revision);
      expect(run.stdout).toContain('Baseline check passed');
      expect(run.code, run.stdout.slice(run.stdout.indexOf('=== SUMMARY ==='))).toBe(0);
    });

    it('ran the scenarios the revision requires, and the suite judged the baseline this file gives', () => {
      const run = runOf(revision);
      expect(run.scored.size).toBeGreaterThan(0);
      for (const s of run.scored) expect(run.checks.has(s), s).toBe(true);
      // The suite's own reading of the file (its YAML parser) names the entries ours does.
      const judged = /Expected failures \(in baseline\):\n((?: {2}~ .+\n)+)/.exec(run.stdout)?.[1] ?? '';
      const expected = [...judged.matchAll(/^ {2}~ (\S+)$/gm)].map((m) => m[1]);
      const scoredEntries = run.classification.failing.filter((e) => run.scored.has(e.scenario)).map((e) => e.name);
      expect(expected.sort()).toEqual(scoredEntries.sort());
    });

    it('classifies every scenario the suite ran, once', () => {
      const run = runOf(revision);
      const c = run.classification;
      const wholes = [...c.applicable, ...c.uncounted, ...c.failing.filter((e) => e.check === undefined)].map((e) => e.scenario);
      expect(wholes.length, 'a scenario listed twice').toBe(new Set(wholes).size);
      // A scenario with baselined checks is one that applies: its other checks must pass.
      for (const e of c.failing.filter((x) => x.check !== undefined))
        expect(
          c.applicable.map((a) => a.scenario),
          e.name,
        ).toContain(e.scenario);
      expect([...run.checks.keys()].sort()).toEqual(scenariosOf(c).sort());
    });

    it('gives every baselined entry and every uncounted pass a reason of a known kind', () => {
      const c = runOf(revision).classification;
      for (const e of c.failing) {
        expect(e.kinds.length, `${e.name}: its reason starts with ${FAILURE_KINDS.join(' | ')}`).toBeGreaterThan(0);
        for (const k of e.kinds) expect(FAILURE_KINDS as readonly string[], e.name).toContain(k);
        expect(e.reason.length, e.name).toBeGreaterThan(40);
      }
      for (const e of c.uncounted) {
        expect(e.kinds.length, e.name).toBe(1);
        expect(UNCOUNTED_KINDS as readonly string[], e.name).toContain(e.kinds[0]);
      }
    });

    it('passes every applicable scenario on its own checks, but the ones baselined one by one', () => {
      const run = runOf(revision);
      const single = new Set(run.classification.failing.filter((e) => e.check !== undefined).map((e) => `${e.scenario}:${e.check}`));
      for (const { scenario } of run.classification.applicable) {
        const checks = run.checks.get(scenario) ?? [];
        expect(checks.filter((c) => c.status === 'SUCCESS' && c.id !== WIRE).length, `${scenario} passes a check of its own`).toBeGreaterThan(0);
        const bad = checks.filter((c) => failed(c) && !single.has(`${scenario}:${c.id}`));
        expect(
          bad.map((c) => `${c.id}: ${c.errorMessage}`),
          scenario,
        ).toEqual([]);
      }
    });

    it('sent only messages valid on the wire, in every scenario, baselined ones included', () => {
      const run = runOf(revision);
      const invalid = [...run.checks].flatMap(([s, cs]) => cs.filter((c) => c.id === WIRE && c.status !== 'SUCCESS').map((c) => `${s}: ${evidence(c)}`));
      expect(invalid).toEqual([]);
    });

    it('fails each baselined entry, scored or not, only for the reason it gives', () => {
      const run = runOf(revision);
      for (const e of run.classification.failing) {
        const failures = failuresOf(run, e);
        // The suite judges scored scenarios only: an unscored entry that passes is found stale here.
        expect(failures.length, `${e.name} is baselined but does not fail: remove it`).toBeGreaterThan(0);
        for (const f of failures) {
          const why = `${e.name} (${e.kinds.join(', ')}): ${f.id}: ${evidence(f).slice(0, 400)}`;
          if (e.kinds.includes('tasks')) {
            expect(e.scenario, why).toMatch(/^tasks-/);
            continue;
          }
          const kinds = e.kinds as (keyof typeof FAILURE_EVIDENCE)[];
          expect(
            kinds.some((k) => FAILURE_EVIDENCE[k].test(evidence(f))),
            why,
          ).toBe(true);
        }
      }
    });

    it('has none of the fixtures the baselined scenarios ask for, and does not serve the tasks extension', () => {
      const run = runOf(revision);
      const listed = (scenario: string, key: string) => (run.checks.get(scenario)?.find((c) => c.id === scenario)?.details?.[key] ?? []) as string[];
      const tools = listed('tools-list', 'tools');
      expect(tools).toContain('list_engagements');
      expect(tools.filter((t) => t.startsWith('test_') || t === 'json_schema_2020_12_tool')).toEqual([]);
      expect(listed('prompts-list', 'prompts').length).toBeGreaterThan(0);
      expect(listed('prompts-list', 'prompts').filter((p) => p.startsWith('test_'))).toEqual([]);
      expect(listed('resources-list', 'resources').filter((r) => r.startsWith('test://'))).toEqual([]);
      const advertised = run.checks.get('tasks-capability-negotiation')?.find((c) => c.id === 'tasks-extension-advertised');
      if (run.classification.failing.some((e) => e.kinds.includes('tasks'))) expect(advertised?.details?.hasTasksExtension).toBe(false);
    });

    it('counts no pass that did not exercise this server: unknown-tool answers and skipped checks', () => {
      const run = runOf(revision);
      for (const e of run.classification.uncounted) {
        const own = (run.checks.get(e.scenario) ?? []).filter((c) => c.id !== WIRE);
        expect(own.length, e.scenario).toBeGreaterThan(0);
        if (e.kinds[0] === 'skipped') {
          expect(
            own.map((c) => c.status),
            e.scenario,
          ).toEqual(own.map(() => 'SKIPPED'));
          continue;
        }
        for (const c of own) {
          const result = c.details?.result as { isError?: boolean; content?: { text?: string }[] } | undefined;
          expect(c.status, e.scenario).toBe('SUCCESS');
          expect(result?.isError, e.scenario).toBe(true);
          expect(result?.content?.[0]?.text, e.scenario).toMatch(/^Unknown tool "test_/);
        }
      }
    });

    it('rejects DNS rebinding with 403 and accepts its own loopback Host, as the suite checks it', () => {
      const c = runOf(revision).checks.get('dns-rebinding-protection') ?? [];
      const rejected = c.find((x) => x.id === 'localhost-host-rebinding-rejected');
      expect(rejected?.status).toBe('SUCCESS');
      expect(rejected?.details?.statusCode).toBe(403);
      expect(c.find((x) => x.id === 'localhost-host-valid-accepted')?.status).toBe('SUCCESS');
    });
  });
}
