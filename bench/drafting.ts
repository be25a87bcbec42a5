// The deliverable job an unattended agent does, scripted three ways (no model is reachable here, so the
// agent is a fixed sequence of calls, each reading what the previous answered):
//   "refresh the executive summary from the validated findings: add a key figure, rewrite one
//    paragraph, insert one citing two findings, remove a stale callout; then export it as PDF"
//   whole     tool by tool: the document read in full and re-sent whole through update_deliverable_document
//   blocks    tool by tool: the document's outline and the validated findings (document_context,
//             outline: true), then the four changes sent as edit_document_blocks
//   script    one run_write_script doing the same as blocks inside the isolate (api.document_context,
//             api.edit_document_blocks: the tools listed beside it)
// Every way reads only the fields it needs of the lists (an engagement's id, the findings' ids and
// review status), as the list tools allow. Each way runs on a fresh sandbox (the same starting
// document) through the real server over stdio, behind the recording proxy of bench/jobs.ts, so tool
// calls, API requests, the o200k tokens of the results the model reads and of the arguments it writes,
// and the wall time are all measured.
//   code      the script way on WORKSPACE_TOOLSETS=code, where the agent learns what it calls from
//             find_operations first (CODE_WAY)
// Used by bench/drafting-cost.ts (`npm run bench`) and test/mcp/drafting-cost.test.ts.
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { OutlineBlock } from '../src/mcp/tools/document-context.js';
import { ENGAGEMENT_AP } from '../src/sandbox/data/ids.js';
import { startSandbox } from '../src/sandbox/index.js';
import { type Call, type JobRun, resultTokens, runJobs, startRecordingProxy, type ToolAnswer } from './jobs.js';

type Rec = Record<string, unknown>;
export type Block = Rec & { id?: string | null; type: string };

const KIND = 'executive_summary';
/** The last real-speed run of `npm run bench` (bench/drafting-cost.ts): docs/code-mode.md's table is generated from it. */
export const DRAFTING_RESULTS = fileURLToPath(new URL('./results/drafting.json', import.meta.url));
/** What the agent writes: the same four changes on every way. */
const NEW_FIGURE = '2 constats validés par le comité';
const NEW_PARAGRAPH = 'Le processus fournisseurs repose encore sur des ressaisies manuelles ; les constats validés ci-dessous fondent les recommandations.';
const CITING_TEXT = 'Deux constats validés expliquent l’essentiel des retards de paiement.';

function sc(a: ToolAnswer): Rec {
  return (a.structuredContent ?? {}) as Rec;
}

/** The validated findings' ids (the first two), from a list_findings answer. */
function validatedIds(a: ToolAnswer): string[] {
  const items = (sc(a).items ?? []) as Rec[];
  return items.filter((f) => f.review_status === 'validated').map((f) => String(f.id));
}

/** The four changes, found by what the blocks are (the agent reads the document to find them). */
function plan<B extends { id?: string | null; type: unknown }>(blocks: readonly B[]) {
  const paragraph = blocks.find((b) => b.type === 'paragraph');
  const figures = blocks.find((b) => b.type === 'key_figures');
  // The stale callout: the member's note the steering committee has since dealt with.
  const stale = blocks.filter((b) => b.type === 'callout').at(-1);
  if (!paragraph?.id || !figures?.id || !stale?.id) throw new Error('the demo executive summary lacks a paragraph, key figures or a callout');
  return { paragraph: { ...paragraph, id: paragraph.id }, figures: { ...figures, id: figures.id }, stale: { ...stale, id: stale.id } };
}

export interface DraftingWay {
  way: 'whole' | 'blocks' | 'script' | 'code';
  label: string;
  run(call: Call, ctx: { engagement?: string }): Promise<void>;
}

async function engagementOf(call: Call, ctx: { engagement?: string }): Promise<string> {
  if (!ctx.engagement) {
    const listed = await call('list_engagements', { fields: ['id', 'name'] });
    ctx.engagement = String(((sc(listed).items ?? []) as Rec[])[0]?.id);
  }
  return ctx.engagement;
}

/** The findings as every way reads them: what choosing the validated ones needs. */
const FINDING_FIELDS = ['id', 'review_status'];

export const DRAFTING_WAYS: readonly DraftingWay[] = [
  {
    way: 'whole',
    label: 'tool by tool, whole-document update',
    async run(call, ctx) {
      const engagement = await engagementOf(call, ctx);
      const [a, b] = validatedIds(await call('list_findings', { engagement, fields: FINDING_FIELDS, limit: 200 }));
      const doc = sc(await call('get_deliverable_document', { engagement, kind: KIND, response_format: 'detailed' }));
      const blocks = doc.blocks as Block[];
      const { paragraph, figures, stale } = plan(blocks);
      const next: Block[] = [];
      for (const block of blocks) {
        if (block.id === stale.id) continue;
        if (block.id === figures.id) next.push({ ...block, items: [...(block.items as string[]), NEW_FIGURE] });
        else if (block.id === paragraph.id) {
          next.push({ ...block, text: NEW_PARAGRAPH });
          next.push({ type: 'paragraph', text: CITING_TEXT, refs: [a, b].map((id) => ({ type: 'finding', id })) });
        } else next.push(block);
      }
      await call('update_deliverable_document', { engagement, kind: KIND, updated_at: doc.updated_at, blocks: next });
      await call('create_export', { engagement, kind: 'document_pdf', document_kind: KIND });
    },
  },
  {
    way: 'blocks',
    label: 'tool by tool, edit_document_blocks after the outline',
    async run(call, ctx) {
      const engagement = await engagementOf(call, ctx);
      // The outline gives the blocks and the validated findings to cite: no list of findings is read.
      const context = sc(await call('document_context', { engagement, kind: KIND, outline: true }));
      const outline = (context.document as { blocks: OutlineBlock[] }).blocks;
      const [a, b] = (context.findings as { validated: Array<{ id: string }> }).validated.map((f) => f.id);
      const { paragraph, figures, stale } = plan(outline);

      await call('edit_document_blocks', {
        engagement,
        kind: KIND,
        edits: [
          // The outline gives a key_figures block's title and items: what re-sending it with one more item needs.
          { op: 'replace', id: figures.id, block: { type: 'key_figures', title: figures.title, items: [...(figures.items ?? []), NEW_FIGURE] } },
          { op: 'replace', id: paragraph.id, block: { type: 'paragraph', text: NEW_PARAGRAPH } },
          { op: 'insert', after: paragraph.id, block: { type: 'paragraph', text: CITING_TEXT, refs: [a, b].map((id) => ({ type: 'finding', id })) } },
          { op: 'delete', id: stale.id },
        ],
      });
      await call('create_export', { engagement, kind: 'document_pdf', document_kind: KIND });
    },
  },
  {
    way: 'script',
    label: 'one run_write_script',
    async run(call) {
      // What a model writes: the whole job in the isolate, the engagement included, answering only what it
      // decided. It calls the tools listed beside it (api.<tool>), so it needs no find_operations first.
      const script = `
const [{ id: engagement }] = (await api.list_engagements({ fields: ['id'] })).items;
const kind = ${JSON.stringify(KIND)};
const { document: doc, findings } = await api.document_context({ engagement, kind, outline: true });
const refs = findings.validated.slice(0, 2).map((f) => ({ type: 'finding', id: f.id }));
const paragraph = doc.blocks.find((b) => b.type === 'paragraph');
const figures = doc.blocks.find((b) => b.type === 'key_figures');
const stale = doc.blocks.filter((b) => b.type === 'callout').at(-1);
await api.edit_document_blocks({ engagement, kind, edits: [
  { op: 'replace', id: figures.id, block: { type: 'key_figures', title: figures.title, items: [...figures.items, ${JSON.stringify(NEW_FIGURE)}] } },
  { op: 'replace', id: paragraph.id, block: { type: 'paragraph', text: ${JSON.stringify(NEW_PARAGRAPH)} } },
  { op: 'insert', after: paragraph.id, block: { type: 'paragraph', text: ${JSON.stringify(CITING_TEXT)}, refs } },
  { op: 'delete', id: stale.id },
] });
return (await api.create_export({ engagement, kind: 'document_pdf', document_kind: kind })).state;
`;
      await call('run_write_script', { script });
    },
  },
];

/**
 * The script way on WORKSPACE_TOOLSETS=code: the listing shows the scripts and the gateway only, so
 * the agent first asks find_operations for what it will call (the block tools, then the export),
 * each search asking only for the matches it will use, then runs the same script.
 */
export const CODE_WAY: DraftingWay = {
  way: 'code',
  label: 'one run_write_script on WORKSPACE_TOOLSETS=code, its searches included',
  async run(call, ctx) {
    await call('find_operations', { query: 'edit document blocks', limit: 2 });
    await call('find_operations', { query: 'export PDF', limit: 1 });
    const script = DRAFTING_WAYS.find((w) => w.way === 'script');
    await script?.run(call, ctx);
  },
};

export interface DraftingCost {
  way: DraftingWay['way'];
  label: string;
  toolCalls: number;
  apiRequests: number;
  /** Of those, reads of the export job's state while it runs: how many depends on how long it takes. */
  exportPolls: number;
  /** o200k tokens of the results the model reads. */
  resultTokens: number;
  /** o200k tokens of the arguments the model writes (the whole document, twice in context, for `whole`). */
  argumentTokens: number;
  wallSeconds: number;
}

export function draftingCostOf(way: DraftingWay, run: JobRun): DraftingCost {
  return {
    way: way.way,
    label: way.label,
    toolCalls: run.calls.length,
    apiRequests: run.requests.length,
    exportPolls: run.requests.filter((q) => q.method === 'GET' && /\/exports\/[^/?]+(\?|$)/.test(q.url)).length,
    resultTokens: run.calls.reduce((n, c) => n + resultTokens(c.answer), 0),
    argumentTokens: run.calls.reduce((n, c) => n + encode(JSON.stringify(c.arguments)).length, 0),
    wallSeconds: run.wallMs / 1000,
  };
}

export interface DraftingResult {
  cost: DraftingCost;
  run: JobRun;
  /** The document's blocks after the job. */
  after: Block[];
  /** Exports the job started. */
  exports: number;
}

export interface DraftingOptions {
  /** The command and arguments that start the server on stdio. */
  command: string;
  args: string[];
  cwd: string;
  /** Time scale of the sandbox and the rate window (1: real speed, 120 requests a minute). */
  scale: number;
}

/** Runs each way on a fresh sandbox at 120 requests a minute (scaled), and measures it. */
export async function runDrafting(o: DraftingOptions): Promise<DraftingResult[]> {
  const out: DraftingResult[] = [];
  for (const way of [...DRAFTING_WAYS, CODE_WAY]) {
    const sandbox = await startSandbox({ port: 0, rateLimit: true, timeScale: o.scale, logger: () => {} });
    const proxy = await startRecordingProxy(sandbox.url);
    try {
      const [run] = await runJobs({
        command: o.command,
        args: o.args,
        cwd: o.cwd,
        workspaceUrl: proxy.url,
        token: sandbox.tokens.write,
        downloadDir: await mkdtemp(join(tmpdir(), 'wcm-drafting-')),
        log: proxy.log,
        env: { WORKSPACE_RATE_LIMIT: `120/${60 * o.scale}`, ...(way.way === 'code' ? { WORKSPACE_TOOLSETS: 'code' } : {}) },
        jobs: [{ job: way.label, run: way.run }],
      });
      // The document as the job left it, read straight from the workspace.
      const res = await fetch(`${sandbox.api}/engagements/${ENGAGEMENT_AP}/deliverable/documents/${KIND}`, {
        headers: { authorization: `Bearer ${sandbox.tokens.read}`, accept: 'application/json' },
      });
      const after = ((await res.json()) as { data: { blocks: Block[] } }).data.blocks;
      out.push({
        cost: draftingCostOf(way, run!),
        run: run!,
        after,
        exports: proxy.log.filter((q) => q.method === 'POST' && q.url.endsWith('/exports')).length,
      });
    } finally {
      await proxy.close();
      await sandbox.close();
    }
  }
  return out;
}

/** The committed figures of the last real-speed run. */
export function draftingResults(): { date: string; costs: DraftingCost[] } {
  return JSON.parse(readFileSync(DRAFTING_RESULTS, 'utf8')) as { date: string; costs: DraftingCost[] };
}

/** Tokens read and written: what a way costs the model. */
export const totalTokens = (c: Pick<DraftingCost, 'resultTokens' | 'argumentTokens'>) => c.resultTokens + c.argumentTokens;

/**
 * The most each way may cost, in tokens read and written, as a share of the whole-document way: the
 * bench reports a way over its ceiling (a measured figure is the bench's to judge, not a test's).
 */
export const DRAFTING_CEILINGS: Partial<Record<DraftingWay['way'], number>> = { blocks: 0.5, script: 0.2, code: 0.3 };

/** The ways whose cost is over their ceiling, in words. */
export function overCeilings(costs: readonly DraftingCost[]): string[] {
  const whole = costs.find((c) => c.way === 'whole');
  if (!whole) return [];
  return costs.flatMap((c) => {
    const ceiling = DRAFTING_CEILINGS[c.way];
    const share = totalTokens(c) / Math.max(1, totalTokens(whole));
    return ceiling !== undefined && share > ceiling ? [`${c.label}: ${share.toFixed(2)}x the whole-document way, over its ceiling of ${ceiling}x`] : [];
  });
}

/** The table `npm run bench` prints and docs/code-mode.md shows. */
export function draftingTable(costs: readonly DraftingCost[]): string {
  const whole = costs.find((c) => c.way === 'whole');
  const rows = [
    ['way', 'tool calls', 'API requests (export polls)', 'tokens read', 'tokens written', 'read + written', 'vs whole', 'wall s'],
    ...costs.map((c) => [
      c.label,
      String(c.toolCalls),
      `${c.apiRequests} (${c.exportPolls})`,
      String(c.resultTokens),
      String(c.argumentTokens),
      String(totalTokens(c)),
      whole ? `${(totalTokens(c) / Math.max(1, totalTokens(whole))).toFixed(2)}x` : '',
      c.wallSeconds.toFixed(1),
    ]),
  ];
  return [`| ${rows[0]!.join(' | ')} |`, `|${rows[0]!.map(() => '---').join('|')}|`, ...rows.slice(1).map((r) => `| ${r.join(' | ')} |`)].join('\n');
}
