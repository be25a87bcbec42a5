// Every number the README and the docs moved out of it state is generated or checked. Generated: the
// blocks and the <!-- fact:NAME --> values `npm run docs` writes (test/scripts/generate-docs.test.ts keeps
// them current). Checked: each other number is claimed below, against the code, the package or the test
// that proves it; and a sweep fails on any number left unclaimed in the swept text (SWEPT), so a number
// added tomorrow gets a check or a generator too. A claim is looked for in every doc, swept or not.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DRAFTING_CEILINGS } from '../../bench/drafting.js';
import { sandboxOperations, toolListFor } from '../../bench/tokens.js';
import { catalog } from '../../catalog/index.js';
import { ARTIFACT_MAX_KIB, EXTERNAL_SOURCE_MAX_KIB } from '../../catalog/shared.js';
import { FACT } from '../../scripts/generate-docs.js';
import { isTransientStatus } from '../../src/api/retry.js';
import { loadConfig, SETTINGS } from '../../src/config.js';
import { EMBED_MAX_BYTES } from '../../src/mcp/render/member-file.js';
import { DEFAULT_SCRIPT_LIMITS, MAX_ERROR_TEXT } from '../../src/mcp/scripts/script-engine.js';
import { NODE_FLOOR, NODE_INSTALL_BIN, NODE_INSTALL_LINE } from '../../src/node-floor.js';
import { SESSION_BUYER } from '../../src/sandbox/data/ids.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { wavSize } from '../../src/sandbox/media.js';
import { classificationFile, REVISIONS } from '../conformance/classification.js';
import { ROOT } from '../helpers/spawn.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/**
 * Where every number is swept: the README and the docs its sections moved to, whole, or only the
 * sections (by `## ` heading) that came from it (the rest of deploying.md predates the sweep).
 */
const SWEPT: Record<string, 'all' | string[]> = {
  'README.md': 'all',
  'docs/configuration.md': 'all',
  'docs/tools.md': 'all',
  'docs/code-mode.md': 'all',
  'docs/apps.md': 'all',
  'docs/development.md': 'all',
  'docs/deploying.md': ['What is tested', 'Audit trail and metrics'],
};

/**
 * A doc without what is generated (blocks between `<!-- NAME:start` and `<!-- NAME:end -->`, and
 * fact values), nor the sandbox tokens (test/scripts/generate-docs.test.ts checks them against the sandbox). Replaced by
 * spaces of the same length, so positions still point into the file.
 */
const blank = (s: string) => s.replace(/[^\n]/g, ' ');
const proseOf = (text: string) =>
  text
    .replace(/<!-- (\w+):start[\s\S]*?<!-- \1:end -->/g, blank)
    .replace(FACT, blank)
    .replace(/pat_[0-9a-f]{40}/g, blank);

/** `text` with everything outside the named `## ` sections blanked (a section runs to the next `## `). */
function onlySections(text: string, headings: string[]): string {
  let keep = false;
  return text
    .split('\n')
    .map((line) => {
      const heading = /^## (.+)$/.exec(line)?.[1];
      if (heading !== undefined) keep = headings.includes(heading.trim());
      return keep ? line : blank(line);
    })
    .join('\n');
}

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].map((path) => {
  const text = read(path);
  const prose = proseOf(text);
  const swept = SWEPT[path];
  return { path, text, prose, swept: swept === undefined ? undefined : swept === 'all' ? prose : onlySections(prose, swept) };
});

/** Numbers that name something rather than count or measure it. */
const NAMES: RegExp[] = [
  /RFC \d+/g,
  /base64/g,
  /OAuth 2\.1/g,
  /127\.0\.0\.1/g,
  /::1/g,
  /version: '1\.0\.0'/g,
  /o200k/g,
  /SDK v\d+/g,
  /https?:\/\/[^\s)]+/g,
  /Microsoft 365/g,
];

interface Claim {
  /** What the README says, the number(s) captured; a space matches any run of spaces and line breaks. */
  says: RegExp;
  /** Checks the captured numbers against where they come from. */
  check(numbers: string[]): void | Promise<void>;
}

const num = (s: string) => Number(s.replace(/,/g, ''));
const sourceNumber = (path: string, pattern: RegExp) => {
  const m = pattern.exec(read(path));
  expect(m, `${pattern} in ${path}`).not.toBeNull();
  return Number((m as RegExpExecArray)[1]);
};
/** A claim a test proves: the test file still holds the assertion. */
const provedBy = (path: string, assertion: string) => () => expect(read(path), `${path} asserts ${assertion}`).toContain(assertion);

const CLAIMS: Claim[] = [
  {
    // How much of a record's own text a confirmation question quotes, as the question is written.
    says: /cut to (\d+) characters\), says what the/g,
    check: ([n]) => expect(sourceNumber('src/mcp/pipeline/confirmation.ts', /const MAX_QUOTED = (\d+);/)).toBe(num(n as string)),
  },
  {
    // How long a commit subject may be, as the commit-subject test holds it.
    says: /a subject of at most (\d+) characters/g,
    check: ([n]) => expect(sourceNumber('test/ci/commit-subjects.test.ts', /const MAX = (\d+);/)).toBe(num(n as string)),
  },
  {
    // Code mode's limits per script, as the script engine defaults them.
    says: /(\d+) s of wall time, (\d+) s of its own code's CPU time, (\d+) MiB of memory, a (\d+) KiB stack, (\d+) API calls, (\d[\d,]*) characters of output/g,
    check: ([wall, cpu, memory, stack, calls, output]) =>
      expect(DEFAULT_SCRIPT_LIMITS).toEqual({
        wallMs: num(wall as string) * 1000,
        cpuMs: num(cpu as string) * 1000,
        memoryBytes: num(memory as string) * 1024 * 1024,
        stackBytes: num(stack as string) * 1024,
        maxCalls: num(calls as string),
        maxOutputChars: num(output as string),
      }),
  },
  {
    // How much of a script error's message, name and stack an answer keeps, as the script engine cuts them.
    says: /cut at (\d[\d,]*) characters each/g,
    check: ([n]) => expect(MAX_ERROR_TEXT).toBe(num(n as string)),
  },
  {
    // The API's rate limit, which the client's budget defaults to.
    says: /the API's (\d+) requests a minute/g,
    check: ([n]) => expect(loadConfig({}).rateLimit).toEqual({ limit: Number(n), windowMs: 60_000 }),
  },
  {
    says: /A page of (\d+) findings reads in under (\d+(?:,\d+)*) tokens/g,
    check: ([page, bound]) => {
      provedBy('test/mcp/render/job-cost.test.ts', `toBeLessThan(${(bound as string).replace(',', '_')})`)();
      expect(read('test/mcp/render/job-cost.test.ts')).toMatch(new RegExp(`\\b${page}\\b findings`));
    },
  },
  {
    // The floor the package declares: ">=22", or ">=22.19.0" written 22.19.
    says: /Node\.js (\d+(?:\.\d+)*) or (?:newer|later)/g,
    check: ([v]) => {
      const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
      expect(engines).toMatch(/^>=\d+(\.\d+)*$/);
      expect(v).toBe(engines.slice(2).replace(/(\.0)+$/, ''));
    },
  },
  {
    // The line that brings a supported Node from npm (src/node-floor.ts), and where it puts it.
    says: /npm install --prefix "\$HOME\/\.node(\d+)" node@(\d+) && export PATH="\$HOME\/\.node(\d+)\/node_modules\/\.bin:\$PATH"/g,
    check: (majors) => {
      for (const major of majors) expect(major).toBe(NODE_FLOOR.split('.')[0]);
      expect(read('README.md')).toContain(NODE_INSTALL_LINE);
    },
  },
  {
    says: /`echo "\$HOME\/\.node(\d+)\/node_modules\/\.bin\/node"`/g,
    check: ([major]) => expect(`$HOME/.node${major}/node_modules/.bin/node`).toBe(NODE_INSTALL_BIN),
  },
  {
    // The client set-up's word for the floor.
    says: /when that one is older than (\d+\.\d+), the server refuses to start/g,
    check: ([v]) => expect(v).toBe(NODE_FLOOR.replace(/\.0$/, '')),
  },
  {
    says: /under (\d+) requests in any rolling minute/g,
    check: ([n]) => expect(loadConfig({}).rateLimit).toEqual({ limit: num(n as string), windowMs: 60_000 }),
  },
  {
    says: /retried on network failures and (\d+)\/(\d+)\/(\d+)/g,
    check: (codes) => {
      const transient = Array.from({ length: 100 }, (_, i) => 500 + i).filter(isTransientStatus);
      expect(codes.map(num)).toEqual(transient);
    },
  },
  {
    says: /memory after (\d[\d,]*) calls/g,
    check: ([n]) => expect(sourceNumber('bench/run.ts', /Number\(process\.env\.BENCH_CALLS \?\? (\d+)\)/)).toBe(num(n as string)),
  },
  {
    // bench/download.ts fetches the recording of the buyer's session.
    says: /a (\d+) MB download's memory/g,
    check: async ([n]) => {
      const sb = await startSandbox({ port: 0, logger: () => {} });
      try {
        const res = await fetch(`${sb.url}/api/v1/sessions/${SESSION_BUYER}`, { headers: { authorization: `Bearer ${sb.tokens.read}` } });
        const { data } = (await res.json()) as { data: { duration_ms: number } };
        expect(Math.round(wavSize(data.duration_ms) / 1e6)).toBe(num(n as string));
      } finally {
        await sb.close();
      }
    },
  },
  {
    // Claude Code's first turn with tool search, measured with the real CLI on each surface.
    says: /the default surface adds under (\d+(?:,\d{3})*) tokens to its first turn, `all` under (\d+(?:,\d{3})*)/g,
    check: ([def, all]) => {
      const test = 'test/install/claude-code-surfaces.test.ts';
      provedBy(test, `expect(cost.default.added).toBeLessThan(${(def as string).replace(/,/g, '_')})`)();
      provedBy(test, `expect(cost.all.added).toBeLessThan(${(all as string).replace(/,/g, '_')})`)();
    },
  },
  {
    // The bound of a call's wait for the rate budget: its default, and the most it may be set to.
    says: /`WORKSPACE_MAX_BUDGET_WAIT` seconds \(default (\d+), at most (\d+)/g,
    check: ([byDefault, most]) => {
      expect(loadConfig({}).maxBudgetWaitMs).toBe(num(byDefault as string) * 1000);
      expect(loadConfig({ WORKSPACE_MAX_BUDGET_WAIT: most as string }).maxBudgetWaitMs).toBe(num(most as string) * 1000);
      expect(() => loadConfig({ WORKSPACE_MAX_BUDGET_WAIT: String(num(most as string) + 1) })).toThrow(/WORKSPACE_MAX_BUDGET_WAIT/);
    },
  },
  {
    // The longer bound of a call whose client sent a progress token: its default.
    says: /`WORKSPACE_MAX_BUDGET_WAIT_WITH_PROGRESS` seconds \(default (\d+)\)/g,
    check: ([byDefault]) => {
      expect(loadConfig({}).maxBudgetWaitWithProgressMs).toBe(num(byDefault as string) * 1000);
    },
  },
  {
    // edit_document_blocks' section: the most blocks a whole-document update takes.
    says: /re-sending its up to (\d+) blocks/g,
    check: ([n]) => {
      const update = toolListFor({ toolsets: 'all', readOnly: false }, sandboxOperations()).tools.find((t) => t.name === 'update_deliverable_document');
      const blocks = (update?.inputSchema.properties as Record<string, { maxItems?: number }> | undefined)?.blocks;
      expect(blocks?.maxItems).toBe(num(n as string));
    },
  },
  {
    // The drafting bench's ceilings, as the bench judges them.
    says: /block edits (0\.5)x, the script (0\.2)x, the script on the code surface with its searches (0\.3)x/g,
    check: ([blocks, script, code]) => expect(DRAFTING_CEILINGS).toEqual({ blocks: Number(blocks), script: Number(script), code: Number(code) }),
  },
  { says: /the exit code is (0) only when nothing failed/g, check: provedBy('test/doctor/doctor.test.ts', 'expect(r.code).toBe(0);') },
  {
    // Before the tests, scripts/test-deps.mjs installs nothing when told so.
    says: /`TEST_DEPS_INSTALL=(0)` makes it never install/g,
    check: provedBy('test/scripts/test-deps.test.ts', "run({ TEST_DEPS_INSTALL: '0' })"),
  },
  { says: /one file per workspace, mode (0600)/g, check: provedBy('test/auth/store.test.ts', 'toBe(0o600)') },
  {
    // The snippet shows the default port, and the agent connects to the port the server was given.
    says: /serve --http --port (\d+)|127\.0\.0\.1:(\d+)\/mcp/g,
    check: (ports) => {
      const port = ports.find(Boolean) as string;
      expect(loadConfig({ WORKSPACE_HTTP: 'true' }).http?.port).toBe(num(port));
    },
  },
  {
    says: /`--port (0)` picks a free port/g,
    check: ([n]) => {
      expect(loadConfig({ WORKSPACE_HTTP: 'true', WORKSPACE_HTTP_PORT: n as string }).http?.port).toBe(0);
      expect(SETTINGS.find((s) => s.env === 'WORKSPACE_HTTP_PORT')?.help).toContain('0 picks a free one');
    },
  },
  { says: /refuses, with (403), any request whose Host or Origin/g, check: provedBy('test/serve/local-http.test.ts', 'expect(res.status).toBe(403);') },
  {
    says: /calls in flight finish \(up to (\d+) seconds\)/g,
    check: ([s]) => {
      expect(sourceNumber('src/serve/serve.ts', /SHUTDOWN_GRACE_MS = (\d+)/)).toBe(num(s as string) * 1000);
      expect(sourceNumber('src/serve/local-http.ts', /graceMs = (\d+)/)).toBe(num(s as string) * 1000);
    },
  },
  {
    // The protocol revisions test/conformance/conformance.test.ts runs the suite in, each with its file;
    // the suite speaks each revision's wire, so passing it is what shows the server speaks them.
    says: /revision (\d{4}-\d{2}-\d{2}): all/g,
    check: ([revision]) => {
      expect(REVISIONS as readonly string[]).toContain(revision);
      expect(read('test/conformance/conformance.test.ts')).toContain("'--requirements', revision");
      expect(readFileSync(classificationFile(revision as (typeof REVISIONS)[number]), 'utf8')).toMatch(/^applicable:$/m);
    },
  },
  { says: /`tasks\/\*` requests answer -(32601) \(method not found\)/g, check: provedBy('test/mcp/tasks.test.ts', "answers -32601', async (method)") },
  // The deployment section.
  {
    // The remote front's answer to a request without a token, which starts a client's sign-in.
    says: /calls `\/mcp` without a token and gets `(401)`/g,
    check: ([n]) => expect(read('src/remote/gate.ts')).toContain(`refusal(ctx, ${n}, 'unauthorized'`),
  },
  {
    says: /`openssl rand -base64 (32)`/g,
    check: ([n]) => expect(read('src/config.ts')).toContain(`if (key.length !== ${n}) return refuse(ctx, 'config.fix.state_key')`),
  },
  {
    // test/remote/replicas-serve.test.ts: no 429 and at least 95% of the budget used.
    says: /draw no `(429)`, and use at least (\d+)% of the budget/g,
    check: ([status, pct]) => {
      const test = read('test/remote/replicas-serve.test.ts');
      expect(test).toContain(`refused = reqs.filter((r) => r.status === ${status})`);
      expect(test).toContain('expect(refused).toHaveLength(0)');
      expect(test).toContain(`expect(use).toBeGreaterThanOrEqual(${num(pct as string) / 100})`);
    },
  },
  {
    says: /calls per second and latency for (\d+) concurrent sessions/g,
    check: ([n]) => expect(sourceNumber('bench/remote.ts', /BENCH_REMOTE_SESSIONS \?\? (\d+)/)).toBe(num(n as string)),
  },
  {
    // test/remote/caddy.test.ts runs the kill-mid-session case from this version on (test/helpers/caddy.ts), and shows the 502 before it.
    says: /Caddy must be (\d+)\.(\d+)\.(\d+) or later \(the compose file's image is\)/g,
    check: ([major, minor, patch]) => {
      expect(read('test/helpers/caddy.ts')).toContain(`atLeast(version, [${major}, ${minor}, ${patch}])`);
      expect(read('deploy/compose.yaml')).toContain(`image: caddy:${major}.${minor}-alpine`);
    },
  },
  {
    // The legacy protocol revision, whose clients hold sessions (src/mcp/transport/streamable-http.ts).
    says: /Clients of the (\d{4}-\d{2}-\d{2}) protocol (?:keep|open) an event stream/g,
    check: ([revision]) => expect(REVISIONS as readonly string[]).toContain(revision),
  },
  {
    // The remote mode's confirmation across replicas, tested with a client of that revision.
    says: /A destructive call confirmed by a (\d{4}-\d{2}-\d{2}) client, asked on one replica and answered on the other/g,
    check: ([revision]) => {
      expect(REVISIONS as readonly string[]).toContain(revision);
      const test = read('test/remote/confirmation-replicas.test.ts');
      expect(test).toContain('asked on one replica and answered on the other');
      expect(test).toContain(`${revision} mode`);
    },
  },
  {
    says: /ids of one answer (404) in the other/g,
    check: provedBy('test/sandbox/handlers/interviews.test.ts', 'answers 404 for a session of another workspace'),
  },
  {
    says: /artifact (\d+), external source (\d+); the spec gives/g,
    check: ([artifact, external]) => {
      expect([num(artifact as string), num(external as string)]).toEqual([ARTIFACT_MAX_KIB, EXTERNAL_SOURCE_MAX_KIB]);
      const spec = read('test/fixtures/documented-operations.tsv') + read('src/sandbox/BEHAVIOUR.md');
      expect(spec).toContain(String(ARTIFACT_MAX_KIB));
    },
  },
  {
    // Remote mode: what a download embeds in the result, and how long a larger one's link lives.
    says: /[Aa] file up to (\d+) MiB is embedded in the tool result/g,
    check: ([n]) => expect(EMBED_MAX_BYTES).toBe(num(n as string) * 1024 * 1024),
  },
  {
    says: /`WORKSPACE_DOWNLOAD_LINK_SECONDS` \| no \| How long a member's link to a downloaded file stays valid \(default (\d+), at most (\d+)\)/g,
    check: ([n, most]) => {
      expect(loadConfig({}, ['--remote']).remote?.downloadLinkSeconds).toBe(num(n as string));
      expect(loadConfig({ WORKSPACE_DOWNLOAD_LINK_SECONDS: most as string }, ['--remote']).remote?.downloadLinkSeconds).toBe(num(most as string));
      expect(() => loadConfig({ WORKSPACE_DOWNLOAD_LINK_SECONDS: String(num(most as string) + 1) }, ['--remote'])).toThrow(/WORKSPACE_DOWNLOAD_LINK_SECONDS/);
    },
  },
];

/** A claim's pattern as it is matched: prose is wrapped anywhere, so a space is any whitespace. */
const wrapped = (re: RegExp, flags = 'g') => new RegExp(re.source.replace(/ /g, '\\s+'), flags);

/** [start, end) of every match's captured numbers (or of the whole match for NAMES). */
function spans(re: RegExp, text: string, groups: boolean): Array<{ at: [number, number]; values: string[] }> {
  const out: Array<{ at: [number, number]; values: string[] }> = [];
  for (const m of text.matchAll(wrapped(re, 'gd'))) {
    const idx = (m as RegExpExecArray & { indices: Array<[number, number] | undefined> }).indices;
    if (!groups) out.push({ at: idx[0] as [number, number], values: [] });
    else
      for (let g = 1; g < idx.length; g++) {
        const at = idx[g];
        if (at) out.push({ at, values: [m[g] as string] });
      }
  }
  return out;
}

const context = (text: string, at: number) => text.slice(Math.max(0, at - 50), at + 30).replace(/\s+/g, ' ');

describe('numbers in the README and docs', () => {
  it('are generated or claimed: none is left unchecked', () => {
    const unchecked: string[] = [];
    for (const doc of DOCS) {
      if (doc.swept === undefined) continue;
      const swept = doc.swept;
      const covered: Array<[number, number]> = [...NAMES.flatMap((re) => spans(re, swept, false)), ...CLAIMS.flatMap((c) => spans(c.says, swept, true))].map(
        (s) => s.at,
      );
      for (const m of swept.matchAll(/\d+(?:[.,]\d+)*/g)) {
        if (!covered.some(([a, b]) => (m.index as number) >= a && (m.index as number) < b))
          unchecked.push(`${doc.path}: "${m[0]}" in "...${context(doc.text, m.index as number)}..."`);
      }
    }
    expect(
      unchecked,
      'Numbers in the docs must be generated (a <!-- fact:NAME --> of scripts/generate-docs.ts) or claimed in test/install/readme-numbers.test.ts',
    ).toEqual([]);
  });

  it('sweeps the sections it names', () => {
    for (const [path, sections] of Object.entries(SWEPT)) {
      const doc = DOCS.find((d) => d.path === path);
      expect(doc, path).toBeDefined();
      if (sections !== 'all') for (const h of sections) expect(doc?.text, `${path} has "## ${h}"`).toContain(`\n## ${h}\n`);
    }
  });

  for (const claim of CLAIMS) {
    it(`says what the code does: ${claim.says.source}`, async () => {
      const found = DOCS.flatMap((d) => [...d.prose.matchAll(wrapped(claim.says))]);
      expect(found.length, `the docs no longer say ${claim.says}: drop or change this claim`).toBeGreaterThan(0);
      for (const m of found) await claim.check(m.slice(1).filter((v): v is string => v !== undefined));
    });
  }

  it('has the counts written into generated text by hand (setting help, tool descriptions) right', () => {
    // The configuration table is generated from SETTINGS, whose help text is written by hand.
    const help = SETTINGS.find((st) => st.env === 'WORKSPACE_TOOLSETS')?.help ?? '';
    const defaultTools = toolListFor({ toolsets: 'default', readOnly: false }, sandboxOperations()).tools;
    expect(/the default surface \((\d+) tools/.exec(help)?.[1], help).toBe(String(defaultTools.length));
    // find_operations says how many operations it searches.
    const search = defaultTools.find((t) => t.name === 'find_operations')?.description ?? '';
    const over = Number(/over (\d+)/.exec(search)?.[1]);
    expect(over, search).toBeLessThan(catalog.length);
    expect(over, search).toBeGreaterThanOrEqual(Math.floor(catalog.length / 10) * 10);
  });

  it('has its generated numbers on lines of prose, where Markdown renders them inline', () => {
    // A line that starts with an HTML comment opens an HTML block: the text after it is not Markdown.
    expect(
      DOCS.flatMap((d) =>
        d.text
          .split('\n')
          .filter((l) => /^\s*<!-- fact:/.test(l))
          .map((l) => `${d.path}: ${l}`),
      ),
    ).toEqual([]);
    const facts = DOCS.flatMap((d) => [...d.text.matchAll(FACT)].map((m) => m[1]));
    expect(facts.length).toBeGreaterThan(0);
  });
});
