// The three jobs of the server, scripted as an assistant runs them on the sandbox's demo engagement,
// through the real server (spawned over stdio, driven by the MCP client), with a recording proxy
// between the server and the workspace so every API request and its raw answer is seen:
//   brief   "brief me on the engagement": list_engagements, engagement_overview
//   review  "review the proposed findings with their evidence and validate two": list_findings
//           with the evidences, review_findings
//   export  "regenerate the executive summary and export it as PDF": generate_deliverable_document,
//           create_export (followed to its end and downloaded in the same call)
// For each: the tool calls, the API requests, the o200k tokens of the results the model reads, the
// wall time; and beside them the generic bridge's cost for the same requests, one tool per operation
// answering the API's raw JSON (which is what such a bridge returns), each answer read by the model.
// Used by bench/job-cost.ts (the table of `npm run bench`) and test/mcp/render/job-cost.test.ts.
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  status: number;
  contentType: string;
  /** The raw answer: its text when JSON or text, else its byte count only. */
  body: string | undefined;
  bytes: number;
  ms: number;
}

/** A proxy in front of the workspace that records every API request and its raw answer. */
export async function startRecordingProxy(target: string): Promise<{ url: string; log: RecordedRequest[]; close(): Promise<void> }> {
  const origin = new URL(target);
  const log: RecordedRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const upstream = httpRequest(
      { host: origin.hostname, port: origin.port, method: req.method, path: req.url, headers: { ...req.headers, host: origin.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const type = String(answer.headers['content-type'] ?? '');
        const keep = /json|text/.test(type);
        const chunks: Buffer[] = [];
        let bytes = 0;
        answer.on('data', (c: Buffer) => {
          bytes += c.length;
          if (keep) chunks.push(c);
          res.write(c);
        });
        answer.on('end', () => {
          res.end();
          if (req.url?.startsWith('/api/v1/')) {
            log.push({
              method: req.method ?? 'GET',
              url: req.url,
              status: answer.statusCode ?? 0,
              contentType: type,
              body: keep ? Buffer.concat(chunks).toString('utf8') : undefined,
              bytes,
              ms: performance.now() - started,
            });
          }
        });
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a tool call answered, as a client sees it. */
export interface ToolAnswer {
  content: Array<{ type: string; text?: string; [k: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The tokens a model reads of a result: its text blocks, and any other block as the JSON a client shows. */
export function resultTokens(r: ToolAnswer): number {
  return r.content.reduce((n, c) => n + encode(c.type === 'text' ? (c.text ?? '') : JSON.stringify(c)).length, 0);
}

/** The tokens a tool-per-operation bridge's model reads for one request: the raw answer (files not counted). */
export function rawTokens(q: RecordedRequest): number {
  return q.body === undefined ? 0 : encode(q.body).length;
}

export interface JobRun {
  job: string;
  /** Tool calls made, in order, with what each answered. */
  calls: Array<{ tool: string; arguments: Record<string, unknown>; answer: ToolAnswer }>;
  /** API requests made during the job, with their raw answers. */
  requests: RecordedRequest[];
  wallMs: number;
}

export interface JobCost {
  job: string;
  toolCalls: number;
  apiRequests: number;
  resultTokens: number;
  wallSeconds: number;
  bridge: { toolCalls: number; apiRequests: number; resultTokens: number; apiSeconds: number };
}

export function costOf(run: JobRun): JobCost {
  return {
    job: run.job,
    toolCalls: run.calls.length,
    apiRequests: run.requests.length,
    resultTokens: run.calls.reduce((n, c) => n + resultTokens(c.answer), 0),
    wallSeconds: run.wallMs / 1000,
    bridge: {
      // One tool per operation: one call per request, its raw answer read whole.
      toolCalls: run.requests.length,
      apiRequests: run.requests.length,
      resultTokens: run.requests.reduce((n, q) => n + rawTokens(q), 0),
      // Only the requests' own time: the bridge's model turns between them are not counted.
      apiSeconds: run.requests.reduce((n, q) => n + q.ms, 0) / 1000,
    },
  };
}

export type Call = (tool: string, args: Record<string, unknown>) => Promise<ToolAnswer>;

/**
 * The body that creates the `n`th copy of a demo finding (read in the detailed form), with its
 * evidences: the demo engagement has 22 findings, and a page of 50 is measured.
 */
export function findingCopy(f: Record<string, unknown>, n: number): Record<string, unknown> {
  const body: Record<string, unknown> = { type: f.type, statement: `${String(f.statement)} (${n})` };
  for (const k of ['details', 'quantity', 'process_id', 'step_id', 'deliverable_category']) if (f[k] !== null && f[k] !== undefined) body[k] = f[k];
  body.evidences = (f.evidences as Array<Record<string, unknown>>).map((e) => ({
    source_type: e.source_type,
    source_id: e.source_id,
    locator: e.locator ?? null,
    excerpt: e.excerpt,
  }));
  return body;
}

function items(a: ToolAnswer): Array<Record<string, unknown>> {
  return ((a.structuredContent?.items ?? []) as Array<Record<string, unknown>>).slice();
}

/** The jobs, as an assistant runs them: each step reads what the previous answered. */
export const JOBS: ReadonlyArray<{ job: string; run(call: Call, ctx: { engagement?: string }): Promise<void> }> = [
  {
    job: 'brief me on the engagement',
    async run(call, ctx) {
      const listed = await call('list_engagements', {});
      ctx.engagement = String(items(listed)[0]?.id);
      await call('engagement_overview', { engagement: ctx.engagement });
    },
  },
  {
    job: 'review the proposed findings with their evidence, validate two',
    async run(call, ctx) {
      const engagement = ctx.engagement!;
      const found = await call('list_findings', { engagement, fields: ['id', 'type', 'statement', 'review_status', 'evidences'] });
      const proposed = items(found).filter((f) => f.review_status === 'proposed');
      await call('review_findings', {
        engagement,
        reviews: proposed.slice(0, 2).map((f) => ({ finding: f.id, review_status: 'validated' })),
      });
    },
  },
  {
    job: 'regenerate the executive summary and export it as PDF',
    async run(call, ctx) {
      const engagement = ctx.engagement!;
      await call('generate_deliverable_document', { engagement, kind: 'executive_summary' });
      await call('create_export', { engagement, kind: 'document_pdf', document_kind: 'executive_summary' });
    },
  },
];

export interface JobsOptions {
  /** The command and arguments that start the server on stdio. */
  command: string;
  args: string[];
  cwd: string;
  /** The workspace the server talks to (the recording proxy's URL) and its token. */
  workspaceUrl: string;
  token: string;
  downloadDir: string;
  /** More environment for the server (a time-scaled rate limit in tests). */
  env?: Record<string, string>;
  /** The recording proxy's log: the requests of each job are the ones added while it runs. */
  log: RecordedRequest[];
  /** The jobs to run (default: the three jobs above). */
  jobs?: ReadonlyArray<{ job: string; run(call: Call, ctx: { engagement?: string }): Promise<void> }>;
  /** More calls on the same session after the jobs (measurements), each recorded like a job. */
  after?: ReadonlyArray<{ job: string; run(call: Call, ctx: { engagement?: string }): Promise<void> }>;
}

/** Starts the server, runs the three jobs one after the other, and stops it. */
export async function runJobs(o: JobsOptions): Promise<JobRun[]> {
  const transport = new StdioClientTransport({
    command: o.command,
    args: o.args,
    cwd: o.cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? o.downloadDir,
      WORKSPACE_URL: o.workspaceUrl,
      WORKSPACE_TOKEN: o.token,
      WORKSPACE_DOWNLOAD_DIR: o.downloadDir,
      WORKSPACE_TOOLSETS: 'default',
      LOG_LEVEL: 'warn',
      ...o.env,
    },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'job-cost', version: '1.0.0' });
  await client.connect(transport);
  try {
    // The first list waits for the live description: its request is the server's, not a job's.
    // A tool the surface does not list is reached as an assistant reaches it: through call_operation.
    const listed = new Set((await client.listTools()).tools.map((t) => t.name));
    const ctx: { engagement?: string } = {};
    const runs: JobRun[] = [];
    for (const j of [...(o.jobs ?? JOBS), ...(o.after ?? [])]) {
      const run: JobRun = { job: j.job, calls: [], requests: [], wallMs: 0 };
      const from = o.log.length;
      const started = performance.now();
      await j.run(async (tool, args) => {
        const direct = listed.has(tool);
        const answer = (await client.callTool(
          direct ? { name: tool, arguments: args } : { name: 'call_operation', arguments: { operation: tool, arguments: args } },
        )) as ToolAnswer;
        if (answer.isError) throw new Error(`${j.job}: ${tool} failed: ${JSON.stringify(answer.content).slice(0, 500)}`);
        run.calls.push({ tool, arguments: args, answer });
        return answer;
      }, ctx);
      run.wallMs = performance.now() - started;
      // The live description is the server's own start-up read (it may land during the first job).
      run.requests = o.log.slice(from).filter((q) => !q.url.startsWith('/api/v1/openapi.json'));
      runs.push(run);
    }
    return runs;
  } finally {
    await client.close();
  }
}

/** The job-cost table, as `npm run bench` prints it. */
export function jobCostTable(costs: readonly JobCost[]): string {
  const total = (f: (c: JobCost) => number) => costs.reduce((n, c) => n + f(c), 0);
  const rows = [
    ['job', 'tool calls', 'API requests', 'result tokens', 'wall s', 'bridge calls', 'bridge tokens', 'bridge API s', 'tokens vs bridge'],
    ...costs.map((c) => [
      c.job,
      String(c.toolCalls),
      String(c.apiRequests),
      String(c.resultTokens),
      c.wallSeconds.toFixed(1),
      String(c.bridge.toolCalls),
      String(c.bridge.resultTokens),
      c.bridge.apiSeconds.toFixed(2),
      `${((100 * c.resultTokens) / Math.max(1, c.bridge.resultTokens)).toFixed(0)}%`,
    ]),
    [
      'all three',
      String(total((c) => c.toolCalls)),
      String(total((c) => c.apiRequests)),
      String(total((c) => c.resultTokens)),
      total((c) => c.wallSeconds).toFixed(1),
      String(total((c) => c.bridge.toolCalls)),
      String(total((c) => c.bridge.resultTokens)),
      total((c) => c.bridge.apiSeconds).toFixed(2),
      `${(
        (100 * total((c) => c.resultTokens)) /
          Math.max(
            1,
            total((c) => c.bridge.resultTokens),
          )
      ).toFixed(0)}%`,
    ],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`);
  lines.splice(1, 0, `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  return lines.join('\n');
}
