// `npm run bench`, the job-cost part: the three jobs (bench/jobs.ts) run through the built server on
// a sandbox at real speed with its rate limit on (the API's 120 requests a minute, which the server
// keeps to), beside a tool-per-operation bridge's raw JSON for the same requests. Then what single
// answers cost: a page of 50 findings in the concise form (the sandbox's 22 plus copies made through
// the API), and the two workflow reads. Prints tables, writes .bench-out/job-cost.json.
// Run: npx tsx bench/job-cost.ts (after npm run build).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGAGEMENT_AP } from '../src/sandbox/data/ids.js';
import { startSandbox } from '../src/sandbox/index.js';
import { type Call, costOf, findingCopy, type JobRun, jobCostTable, rawTokens, resultTokens, runJobs, startRecordingProxy } from './jobs.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, '.bench-out');
const CLI = join(ROOT, 'dist/src/cli.js');

type Rec = Record<string, unknown>;

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npm run bench` (it builds first)');
  mkdirSync(OUT, { recursive: true });
  const sandbox = await startSandbox({ port: 0, rateLimit: true, logger: () => {} });
  const proxy = await startRecordingProxy(sandbox.url);
  try {
    const post = async (path: string, body: Rec) => {
      const res = await fetch(`${sandbox.api}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.tokens.write}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`POST ${path}: ${res.status}`);
    };
    // Measurements on the same session, after the jobs.
    const after = [
      {
        job: 'page of 50 findings, concise',
        async run(call: Call, ctx: { engagement?: string }) {
          // The demo engagement has 22 findings: copies of them (with their evidences) make 50.
          const seeded = (await call('list_findings', { engagement: ctx.engagement, response_format: 'detailed', limit: 50 })).structuredContent
            ?.items as Rec[];
          for (let i = 0; seeded.length + i < 50; i++) {
            await post(`/engagements/${ENGAGEMENT_AP}/findings`, findingCopy(seeded[i % seeded.length]!, i + 1));
          }
          await call('list_findings', { engagement: ctx.engagement, limit: 50 });
        },
      },
      {
        job: 'engagement_overview',
        run: async (call: Call, ctx: { engagement?: string }) => void (await call('engagement_overview', { engagement: ctx.engagement })),
      },
      {
        job: 'document_context',
        run: async (call: Call, ctx: { engagement?: string }) =>
          void (await call('document_context', { engagement: ctx.engagement, kind: 'executive_summary' })),
      },
    ];
    process.stderr.write('job cost: three jobs at real speed on a rate-limited sandbox (about a minute)\n');
    const runs: JobRun[] = await runJobs({
      command: process.execPath,
      args: [CLI],
      cwd: ROOT,
      workspaceUrl: proxy.url,
      token: sandbox.tokens.write,
      downloadDir: await mkdtemp(join(tmpdir(), 'wcm-bench-jobs-')),
      log: proxy.log,
      after,
    });
    const jobs = runs.slice(0, 3).map(costOf);
    const [page, overview, context] = runs.slice(3);
    // One answer's cost: its last call, and its requests (the page's own read only: the detailed
    // read before it fetched the findings to copy).
    const single = (answer: string, run: JobRun, lastRequestOnly = false) => {
      const requests = lastRequestOnly ? run.requests.slice(-1) : run.requests;
      return {
        answer,
        apiRequests: requests.length,
        resultTokens: resultTokens(run.calls.at(-1)!.answer),
        bridgeTokens: requests.reduce((n, q) => n + rawTokens(q), 0),
      };
    };
    const singles = [
      single('list_findings, 50 findings, concise', page!, true),
      single('engagement_overview', overview!),
      single('document_context', context!),
    ];
    const lines = [
      'job cost: tool calls, API requests and o200k tokens of the results the model reads; bridge = one tool per operation answering raw API JSON for the same requests',
      jobCostTable(jobs),
      '',
      '| answer | API requests | result tokens | raw JSON tokens |',
      '|---|---|---|---|',
      ...singles.map((s) => `| ${s.answer} | ${s.apiRequests} | ${s.resultTokens} | ${s.bridgeTokens} |`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    writeFileSync(join(OUT, 'job-cost.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, jobs, singles }, null, 2)}\n`);
    process.stdout.write('written: .bench-out/job-cost.json\n');
  } finally {
    await proxy.close();
    await sandbox.close();
  }
}

await main();
