// One rule for the ids a document's blocks cite (docs/architecture.md, Cited ids): a write of blocks
// (an operation whose entry names its `citesIn` field: update_deliverable_document) may cite only
// what its engagement holds. What the blocks cite that the document did not already is checked
// against the engagement's lists before the request, on every path: the operation's own tool,
// call_operation, a script's call, and the workflows that write through `invoke` (edit_document_blocks).
// Refused, nothing is written, in the same words whichever path it came by.
import { WorkspaceApiError } from '../../api/errors.js';
import { type Operation, pathParams } from '../../operation.js';
import { type Block, type Citation, citations, citedIds } from '../documents/block-edits.js';
import { type Refusal, refusal } from '../render/refusal.js';
import { InvocationRefused } from './invocation-refused.js';
import type { Pipeline } from './pipeline.js';
import { allPages } from './sections.js';
import type { CallContext } from './tool-spec.js';

type Json = Record<string, unknown>;
type Reads = Pick<CallContext, 'signal' | 'waiting' | 'budgetWaitMs'>;

/** Reference types the API lists (checked exactly), and those it offers no read of. */
const LISTED = new Set(['finding', 'evidence', 'contradiction']);

/**
 * Where a write of blocks comes from, when a workflow makes it: the document it read and changed (what
 * that already cites is not checked again, and not read again), and its own words for the refusal.
 */
export interface BlocksBasis {
  /** The document as the caller read it; used only when the write echoes its updated_at. */
  read: { updated_at: string; blocks: readonly Block[] };
  /** The tool that refuses (the workflow), and where each block sent came from in its arguments. */
  tool: string;
  origin(index: number): string | undefined;
}

/**
 * The ids cited that are not of this engagement. Findings, their evidences and contradictions are
 * checked against the API's lists (an evidence not in a finding read, or a finding past the pages
 * read, is asked for by id). Processes, steps, opportunities, tools, topics and follow-ups have no
 * read in the API: such an id is known when a finding or a document of the engagement names it, as
 * the documents generated from the analysis do.
 */
async function unknownCitations(pipeline: Pipeline, engagement: string, cited: readonly Citation[], ctx: Reads): Promise<Citation[]> {
  const types = new Set(cited.map((c) => c.type));
  const has = (...ts: string[]) => ts.some((t) => types.has(t));
  const unlisted = [...types].some((t) => !LISTED.has(t));
  const [findings, contradictions, documents] = await Promise.all([
    has('finding', 'evidence') || unlisted ? allPages(pipeline, 'list_findings', { engagement }, ctx.signal) : undefined,
    has('contradiction') ? allPages(pipeline, 'list_contradictions', { engagement }, ctx.signal) : undefined,
    unlisted ? allPages(pipeline, 'list_deliverable_documents', { engagement }, ctx.signal) : undefined,
  ]);
  const known = new Map<string, Set<string>>();
  const add = (type: string, value: unknown) => {
    if (typeof value !== 'string') return;
    const set = known.get(type) ?? new Set<string>();
    set.add(value);
    known.set(type, set);
  };
  for (const f of findings?.items ?? []) {
    add('finding', f.id);
    add('process', f.process_id);
    add('process_step', f.step_id);
    for (const e of Array.isArray(f.evidences) ? (f.evidences as Json[]) : []) add('evidence', e.id);
  }
  for (const c of contradictions?.items ?? []) add('contradiction', c.id);
  for (const d of documents?.items ?? []) {
    for (const [type, ids] of citedIds(Array.isArray(d.blocks) ? (d.blocks as Block[]) : [])) if (!LISTED.has(type)) for (const x of ids) add(type, x);
  }
  const missing = cited.filter((c) => !known.get(c.type)?.has(c.id));
  // What a list could not settle is asked for by id: an evidence (findings may not carry theirs),
  // a finding beyond the pages read.
  const askable: Record<string, [string, string]> = {
    evidence: ['preview_evidence', 'evidence'],
    ...(findings && !findings.complete ? { finding: ['get_finding', 'finding'] as [string, string] } : {}),
  };
  const asked = new Map<string, boolean>();
  await Promise.all(
    [...new Set(missing.filter((c) => askable[c.type]).map((c) => `${c.type}:${c.id}`))].map(async (key) => {
      const [type, value] = key.split(/:(.*)/s) as [string, string];
      const [op, param] = askable[type] as [string, string];
      try {
        await pipeline.invoke(op, { engagement, [param]: value }, ctx);
        asked.set(key, true);
      } catch (err) {
        if (err instanceof WorkspaceApiError && err.status === 404) asked.set(key, false);
        else if (err instanceof InvocationRefused) asked.set(key, false);
        else throw err;
      }
    }),
  );
  return missing.filter((c) => !asked.get(`${c.type}:${c.id}`));
}

/** The blocks of the document as stored: a read of the operation's own path (get_deliverable_document). */
async function storedBlocks(pipeline: Pipeline, op: Operation, args: Json, ctx: Reads): Promise<readonly Block[]> {
  const read = pipeline.registry.operations.all().find((o) => o.method === 'GET' && o.path === op.path && !o.paginated && o.response === 'json');
  if (!read) return [];
  const data = (await pipeline.invoke(read.name, Object.fromEntries(pathParams(op.path).map((p) => [p, args[p]])), ctx)).data as Json | undefined;
  return Array.isArray(data?.blocks) ? (data.blocks as Block[]) : [];
}

/**
 * Why a write of blocks may not be sent: what its blocks cite that the document did not already and
 * that is not of the engagement, each at the field that gave it; undefined when it may go. Reads the
 * engagement's lists (and the document, unless `basis` holds the version written on) only when the
 * blocks cite something new. A failed read throws, as the write's own failure would.
 */
export async function citationRefusal(pipeline: Pipeline, op: Operation, args: Json, ctx: Reads, basis?: BlocksBasis): Promise<Refusal | undefined> {
  const field = op.citesIn;
  const sent = field ? args[field] : undefined;
  const engagement = args.engagement;
  if (!field || !Array.isArray(sent) || typeof engagement !== 'string') return undefined;
  const cited = (sent as Block[]).flatMap((b, i) => citations(b, basis?.origin(i) ?? `${field}.${i}`).cited);
  if (!cited.length) return undefined;
  const before = basis && basis.read.updated_at === args.updated_at ? basis.read.blocks : await storedBlocks(pipeline, op, args, ctx);
  const had = citedIds(before);
  const added = cited.filter((c) => !had.get(c.type)?.has(c.id));
  if (!added.length) return undefined;
  const unknown = await unknownCitations(pipeline, engagement, added, ctx);
  if (!unknown.length) return undefined;
  // In the order the caller gave them (a workflow's edits need not follow the document's order).
  const inOrder = [...unknown].sort((a, b) => a.at.localeCompare(b.at, 'en', { numeric: true }));
  const problems = inOrder.map((c) => ({
    path: c.at.split('.'),
    rule: LISTED.has(c.type)
      ? `no ${c.type} of engagement ${engagement} has this id`
      : `no finding or document of engagement ${engagement} names a ${c.type} with this id (the API has no list of them to check against)`,
    given: JSON.stringify(c.id),
  }));
  return { ...refusal(basis?.tool ?? op.name, problems), code: 'unknown_reference' };
}
