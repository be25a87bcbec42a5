// The demo's walk through the three jobs an assistant does for a consultant, as tool calls of a real
// MCP client: (1) brief me on the engagement, (2) review the proposed findings with their evidence
// and validate two, (3) regenerate the executive summary and export it as PDF, following each job
// with progress notifications. Read-only runs (--against a real workspace) make every read and say,
// at each write, what it would have done instead.
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { clip, type Transcript } from './transcript.js';

/** A record of an answer: the walk prints its fields with String() or compares them, so they stay unknown. */
type Fields = Readonly<Record<string, unknown>>;
/** The nested parts of the answers the walk reads, each optional as a workspace may leave it out. */
type Part<T> = T | null | undefined;
interface Engagement extends Fields {
  client_company?: Part<{ name?: unknown }>;
}
interface Overview extends Fields {
  coverage?: Part<{ interviews?: Part<Fields[]> }>;
  findings?: Part<{ total?: unknown; by_review_status?: Part<Fields> }>;
  contradictions?: Part<{ open?: unknown }>;
  latest_analysis_run?: Part<{ status?: unknown }>;
  deliverable?: Part<{ stage?: unknown }>;
}
interface Finding extends Fields {
  evidences?: Part<Fields[]>;
}
interface Job extends Fields {
  job?: Part<{ id?: unknown; status?: unknown }>;
  file?: Part<{ path?: unknown; name?: unknown; size?: unknown }>;
}

interface WalkOptions {
  client: Client;
  out: Transcript;
  readOnly: boolean;
}

/** A tool call failed: the walk stops, the demo exits 1 with the tool's own message. */
export class DemoStepError extends Error {}

const textOf = (r: CallToolResult) =>
  r.content
    .map((c) => (c.type === 'text' ? c.text : ''))
    .filter(Boolean)
    .join('\n');

async function call(o: WalkOptions, tool: string, args: Fields, progress = false): Promise<CallToolResult> {
  o.out.call(tool, args);
  const r = (await o.client.callTool(
    { name: tool, arguments: args },
    // Asking for progress makes the job tools follow the job and report it (notifications/progress).
    progress
      ? {
          onprogress: (p: { progress: number; total?: number; message?: string }) => o.out.progress(p.progress, p.total, p.message),
          resetTimeoutOnProgress: true,
          timeout: 300_000,
        }
      : { timeout: 120_000 },
  )) as CallToolResult;
  if (r.isError) {
    o.out.error(clip(textOf(r), 300));
    throw new DemoStepError(`${tool} failed: ${clip(textOf(r), 300)}`);
  }
  return r;
}

/** What the walk reads of a result: its structured content (either SDK's CallToolResult has it). */
type Structured = { structuredContent?: unknown };

// The shape is the one this server's own tools answer with; every part the walk reads is optional and
// reached with ?. or String(), so one left out prints as undefined or '?' instead of failing.
const data = <T extends Fields = Fields>(r: Structured): T => (r.structuredContent ?? {}) as T;
const items = <T extends Fields>(r: Structured): T[] => {
  const d = data(r);
  return (Array.isArray(d.items) ? d.items : Array.isArray(d.data) ? d.data : []) as T[];
};

/**
 * A list call's records, how to count them ("7 of 22"), and, when they are not the whole list, what
 * to say: the page was cut to stay within the response budget (the result's `truncated`), or more
 * pages follow (`next_cursor`); each time with the call that gets the rest. A count alone would read
 * as the whole list.
 */
export function page<T extends Fields = Fields>(r: Structured, tool: string): { items: T[]; count: string; rest?: string } {
  const d = data(r);
  const list = items<T>(r);
  const cut = d.truncated as { shown: number; omitted: number; retry_with_limit: number } | undefined;
  if (cut && cut.omitted > 0) {
    // The server gives the cursor right after the last record shown, when it could ask for it.
    const after = typeof d.next_cursor === 'string' ? d.next_cursor : undefined;
    const how = after ? `call ${tool} again with cursor "${after}"` : `call ${tool} again with limit ${cut.retry_with_limit} and follow next_cursor`;
    return {
      items: list,
      count: `${list.length} of ${cut.shown + cut.omitted}`,
      rest: `page cut to stay within the response budget (WORKSPACE_RESPONSE_BUDGET): ${cut.omitted} more left out. For the rest, ${how}, or ask for fewer fields.`,
    };
  }
  const next = typeof d.next_cursor === 'string' ? d.next_cursor : undefined;
  if (next) return { items: list, count: `${list.length} (first page)`, rest: `more on the next page: call ${tool} again with cursor "${next}".` };
  return { items: list, count: String(list.length) };
}
const tally = (counts: Part<Fields>) =>
  Object.entries(counts ?? {})
    .map(([k, v]) => `${String(v)} ${k}`)
    .join(', ');

export async function walk(o: WalkOptions): Promise<void> {
  const { out } = o;

  // 1. Brief me on the engagement.
  out.job(1, 'Brief me on the engagement');
  const listed = page<Engagement>(await call(o, 'list_engagements', { limit: 10 }), 'list_engagements');
  const engagements = listed.items;
  const chosen = engagements.find((e) => e.status === 'active') ?? engagements[0];
  if (!chosen) throw new DemoStepError('the workspace has no engagement to walk through');
  out.ok(
    `${listed.count} engagement(s); taking "${clip(String(chosen.name), 70)}"${chosen.client_company?.name ? ` for ${String(chosen.client_company.name)}` : ''}`,
  );
  if (listed.rest) out.note(listed.rest);
  const engagement = String(chosen.id);

  const ov = data<Overview>(await call(o, 'engagement_overview', { engagement }));
  const interviews = ov.coverage?.interviews ?? [];
  out.ok(
    `${interviews.length} interview(s): ${clip(interviews.map((i) => `${String(i.interviewee_name ?? '?')} (${String(i.status ?? '?')})`).join(', '), 110)}`,
  );
  out.ok(`${String(ov.findings?.total ?? 0)} findings: ${tally(ov.findings?.by_review_status)}`);
  out.ok(
    `${String(ov.contradictions?.open ?? 0)} open contradiction(s); latest analysis run ${String(ov.latest_analysis_run?.status ?? 'none')}; deliverable stage ${String(ov.deliverable?.stage ?? '?')}`,
  );

  // 2. Review the proposed findings with their evidence, validate two.
  out.job(2, 'Review the proposed findings with their evidence, and validate two');
  // Only the fields the review needs: a whole page of findings with their evidences outgrows the
  // response budget, and the walk would then review a cut list.
  const findings = page(await call(o, 'list_findings', { engagement, limit: 100, fields: ['id', 'type', 'statement', 'review_status'] }), 'list_findings');
  const proposed = findings.items.filter((f) => f.review_status === 'proposed');
  out.ok(`${findings.count} finding(s) listed, ${proposed.length} of them proposed`);
  if (findings.rest) out.note(findings.rest);
  const picked = proposed.slice(0, 2);
  for (const f of picked) {
    const finding = data<Finding>(await call(o, 'get_finding', { engagement, finding: String(f.id) }));
    const evidences = finding.evidences ?? [];
    out.ok(`[${String(finding.type)}] ${clip(String(finding.statement), 90)} (${evidences.length} evidence(s))`);
    const first = evidences[0];
    if (first) {
      const preview = data(await call(o, 'call_operation', { operation: 'preview_evidence', arguments: { engagement, evidence: String(first.id) } }));
      const excerpt = preview.excerpt ?? preview.text ?? first.excerpt;
      out.ok(`${String(first.source_type)}: "${clip(String(excerpt ?? JSON.stringify(preview)), 90)}"`);
    }
  }
  if (picked.length === 0) out.skipped('no proposed finding left to review');
  else if (o.readOnly) out.skipped(`read-only: would call review_findings to validate ${picked.map((f) => String(f.id)).join(' and ')}`);
  else {
    const reviewed = data(
      await call(o, 'review_findings', { engagement, reviews: picked.map((f) => ({ finding: String(f.id), review_status: 'validated' })) }),
    );
    out.ok(`${String(reviewed.applied)} validated, ${String(reviewed.failed)} failed`);
  }

  // 3. Regenerate the executive summary and export it as PDF.
  out.job(3, 'Regenerate the executive summary and export it as PDF');
  if (o.readOnly) {
    const docs = page(await call(o, 'list_deliverable_documents', { engagement }), 'list_deliverable_documents');
    const summary = docs.items.find((d) => d.kind === 'executive_summary');
    out.ok(
      `${docs.count} document(s); executive summary ${summary ? `last updated ${String(summary.updated_at ?? '?')}` : docs.rest ? 'not on this page' : 'not generated yet'}`,
    );
    if (docs.rest) out.note(docs.rest);
    out.skipped('read-only: would call generate_deliverable_document (executive_summary) and create_export (document_pdf), following both jobs');
    return;
  }
  const gen = data<Job>(await call(o, 'generate_deliverable_document', { engagement, kind: 'executive_summary', mode: 'keep_edits' }, true));
  out.ok(`generation ${String(gen.state ?? gen.job?.status ?? 'started')}${gen.waited_seconds !== undefined ? ` in ${String(gen.waited_seconds)} s` : ''}`);
  const exp = data<Job>(await call(o, 'create_export', { engagement, kind: 'document_pdf', document_kind: 'executive_summary' }, true));
  if (exp.file?.path)
    out.ok(`export ${String(exp.state ?? 'succeeded')}: ${String(exp.file.name)} (${String(exp.file.size)} bytes) saved to ${String(exp.file.path)}`);
  else {
    // The job outlived the follow time: its id and how to check again are in the answer.
    const ref = exp.job?.id ?? exp.id;
    out.skipped(`export ${String(exp.state ?? exp.status ?? 'started')} (${String(ref)}); download_export fetches it once it is done`);
  }
}
