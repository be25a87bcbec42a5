// edit_document_blocks: a deliverable document changed block by block instead of re-sent whole. It
// reads the latest document, applies the edits, and writes it back in one request echoing the
// document's updated_at (the spec's concurrency token). Every block not named comes back exactly as
// read, fields the spec does not list included. What a new block cites is checked against the
// engagement before anything is written, by the rule every write of blocks meets (pipeline/citations.ts).
// A document someone else changed between the read and the write is read again and the edits applied
// once more when that loses nothing; otherwise nothing is saved and the answer names the blocks in the
// way. Every request goes through the pipeline (`invoke`).
// An inserted block without an id is given one, returned in the answer, so the next edit can name it.
// A replace puts the block given in place, whole (the answer names the fields it left out, now gone);
// an update changes only the fields it gives.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { block as blockSchema } from '../../../catalog/deliverables.js';
import { DOCUMENT_KINDS, id, str } from '../../../catalog/shared.js';
import { WorkspaceApiError } from '../../api/errors.js';
import { type Applied, applyEdits, type Block, type BlockEdit, type Change, changedBetween, citations, reapplicable } from '../documents/block-edits.js';

import { InvocationRefused } from '../pipeline/invocation-refused.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import { shownSchema } from '../pipeline/shown-schema.js';
import { type CallContext, defineTool, type ToolSpec } from '../pipeline/tool-spec.js';
import { renderError, toolError } from '../render/index.js';
import { type Problem, refusal, refusalResult } from '../render/refusal.js';

type Json = Record<string, unknown>;

const EDIT_OPS = ['insert', 'replace', 'update', 'delete', 'move'] as const;
const blockId = () => str(64).min(1);

const edit = z
  .strictObject({
    // Which fields each op takes is said once, in the tool's description.
    op: z.enum(EDIT_OPS),
    id: blockId().optional(),
    after: blockId().nullable().optional(),
    block: blockSchema().optional(),
  })
  .superRefine((e, ctx) => {
    const say = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message, input: e });
    const placed = e.op === 'insert' || e.op === 'move';
    const written = e.op === 'insert' || e.op === 'replace' || e.op === 'update';
    if (e.op === 'insert' && e.id !== undefined) say('id', "insert takes no id: put the new block's id inside block");
    if (e.op !== 'insert' && e.id === undefined) say('id', `required for ${e.op}: the id of the block`);
    if (placed && e.after === undefined) say('after', `required for ${e.op}: the id of the block to place it after, or null for the start`);
    if (!placed && typeof e.after === 'string') say('after', `${e.op} takes no after: add a move edit to move the block`);
    if (written && e.block === undefined)
      say('block', `required for ${e.op}: ${e.op === 'update' ? 'its type and the fields to change' : 'the whole new block'}`);
    if (!written && e.block !== undefined) say('block', `${e.op} takes no block`);
  });

const input = z.strictObject({
  engagement: id(),
  kind: z.enum(DOCUMENT_KINDS),
  edits: z.array(edit).min(1).max(200),
});

/**
 * The answer: the changes, not the document. `at` is a change's position in the document saved
 * (null: deleted). Open objects: an output schema is read by the client's validator, not by a model's
 * strict mode, and every keyword here is paid in every tools/list.
 */
export const editDocumentBlocksOutput = z.object({
  updated_at: z.string(),
  blocks: z.number().int(),
  changes: z.array(z.object({ op: z.string(), id: z.string().nullable(), at: z.number().int().nullable(), dropped: z.array(z.string()).optional() })),
  reapplied: z.boolean(),
  changed_by_others: z.array(z.string()),
});

interface Doc {
  updated_at: string;
  blocks: Block[];
}

/** A null in a new block is a field left out (strict-mode clients send null for each one they skip). */
function withoutNulls(b: Json): Block {
  return Object.fromEntries(Object.entries(b).filter(([, v]) => v !== null)) as Block;
}

const ID_LETTERS = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * An id for an inserted block the caller left without one: `user-` (the prefix the workspace gives a
 * consultant's own blocks, which a keep_edits regeneration keeps) and 10 random letters. Minted once
 * per call, before the first attempt, so a re-application after a concurrent change keeps it.
 */
function mintBlockId(): string {
  return `user-${[...randomBytes(10)].map((b) => ID_LETTERS[b % 32]).join('')}`;
}

function asEdits(raw: z.infer<typeof input>['edits']): BlockEdit[] {
  return raw.map((e): BlockEdit => {
    switch (e.op) {
      case 'insert': {
        const { id: given, ...rest } = withoutNulls(e.block as Json);
        return {
          op: 'insert',
          after: e.after ?? null,
          block: typeof given === 'string' && given !== '' ? { id: given, ...rest } : { id: mintBlockId(), ...rest },
        };
      }
      case 'replace':
      case 'update':
        return { op: e.op, id: e.id as string, block: withoutNulls(e.block as Json) };
      case 'delete':
        return { op: 'delete', id: e.id as string };
      default:
        return { op: 'move', id: e.id as string, after: e.after ?? null };
    }
  });
}

/**
 * Where each block of the document written came from in the arguments: the edit that wrote it
 * ("edits.2.block"), for a refusal of what it cites. The changes are the edits, in order, each at its
 * block's position; a block no edit wrote cites nothing new.
 */
function originOf(changes: readonly Change[]): (index: number) => string | undefined {
  const by = new Map<number, number>();
  for (const [n, c] of changes.entries()) if (c.at !== null && (c.op === 'insert' || c.op === 'replace' || c.op === 'update')) by.set(c.at, n);
  return (index) => {
    const n = by.get(index);
    return n === undefined ? undefined : `edits.${n}.block`;
  };
}

/** A write refused in a way that may mean "changed since read" (the spec's 422, or a 409). */
const maybeStale = (err: unknown) => err instanceof WorkspaceApiError && (err.status === 409 || err.status === 422);

export function editDocumentBlocks(deps: { pipeline: Pipeline }): ToolSpec {
  const { pipeline } = deps;
  const name = 'edit_document_blocks';

  async function readDoc(engagement: string, kind: string, ctx: CallContext): Promise<Doc> {
    const res = await pipeline.invoke('get_deliverable_document', { engagement, kind }, ctx);
    const d = (res.data ?? {}) as Json;
    return { updated_at: String(d.updated_at ?? ''), blocks: Array.isArray(d.blocks) ? (d.blocks as Block[]) : [] };
  }

  function conflict(kind: string, now: Doc, gone: string[], changed: string[], again: boolean) {
    const parts = [...changed.map((b) => `${b} (changed)`), ...gone.map((b) => `${b} (gone)`)];
    const why = again
      ? 'it was changed again while the edits were being applied to the new version'
      : `the edits name blocks that changed: ${parts.join(', ')}`;
    return toolError(
      `Not saved: ${kind} was changed by someone else since it was read, and ${why}. Their change is kept; none of these edits was applied. ` +
        'Read the document again (document_context with outline: true) and send edits for its current version.',
      { code: 'conflict', changed, gone, updated_at: now.updated_at },
    );
  }

  function saved(kind: string, doc: Doc, changes: Change[], reapplied: boolean, others: string[]) {
    const value: z.infer<typeof editDocumentBlocksOutput> = {
      updated_at: doc.updated_at,
      blocks: doc.blocks.length,
      changes,
      reapplied,
      changed_by_others: others,
    };
    const lines = changes.map((c) => {
      const what = c.id ?? 'a block without id';
      const line = c.at === null ? `- ${c.op}: ${what}` : `- ${c.op}: ${what}, now at position ${c.at}`;
      // A replace is whole: what it left out is gone, said so (update changes only the fields given).
      return c.dropped ? `${line}; the replace left out ${c.dropped.join(', ')}, now gone (update changes only the fields it gives)` : line;
    });
    const meanwhile = reapplied
      ? `\nSomeone else saved the document meanwhile (blocks ${others.join(', ') || 'none named'}): their change is kept and these edits were applied to their version.`
      : '';
    const text = `Saved ${changes.length} edit${changes.length === 1 ? '' : 's'} to ${kind}: ${doc.blocks.length} blocks, updated_at ${doc.updated_at}.\n${lines.join('\n')}${meanwhile}`;
    return { content: [{ type: 'text' as const, text }], structuredContent: value as unknown as Json };
  }

  function failed(err: unknown, args: { engagement: string; kind: string }) {
    if (err instanceof InvocationRefused) return err.result;
    const op = pipeline.registry.get('update_deliverable_document');
    if (op) return renderError(op, err, args);
    return toolError(err instanceof Error ? err.message : String(err), { code: 'failed' });
  }

  return defineTool({
    name,
    input,
    quotesContent: false,
    description:
      'Edit a deliverable document by block (ids: document_context with outline: true), never re-sending it. Edits in order: insert {after, block}, ' +
      'replace {id, block} (the whole block: fields left out are dropped), update {id, block} (only the fields given change), delete {id}, move {id, after}; after null = first. An inserted block keeps its id or gets one, answered. ' +
      'Other blocks are kept exactly; cited ids must be of the engagement; a concurrent save is merged unless it changed a block named.',
    outputSchema: shownSchema(editDocumentBlocksOutput) as NonNullable<ToolSpec['definition']['outputSchema']>,
    // A write, not destructive: it changes the working draft of one document (regenerable from the
    // analysis, not what the client sees until publish_deliverable) and never overwrites another
    // writer's change. Not idempotent: an insert sent twice inserts twice.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async run(args, ctx) {
      const { engagement, kind, edits: raw } = args;
      const edits = asEdits(raw);
      const shapeProblems: Problem[] = [];
      for (const [n, e] of edits.entries()) {
        if (e.op !== 'insert' && e.op !== 'replace' && e.op !== 'update') continue;
        for (const p of citations(e.block, `edits.${n}.block`).problems) shapeProblems.push({ path: [], rule: p });
      }
      if (shapeProblems.length) return refusalResult(refusal(name, shapeProblems));
      try {
        const first = await readDoc(engagement, kind, ctx);
        let base = first;
        let reapplied = false;
        for (let attempt = 0; ; attempt++) {
          const applied: Applied = applyEdits(base.blocks, edits);
          if (!applied.ok) {
            // Applied once already, the edits no longer fit the version someone else saved (an id taken).
            if (attempt > 0) return conflict(kind, base, [], changedBetween(first.blocks, base.blocks), false);
            const ids = base.blocks.map((b) => (typeof b.id === 'string' ? b.id : null)).filter(Boolean);
            const r = refusal(
              name,
              applied.problems.map((p) => ({ path: ['edits', p.edit], rule: p.rule })),
            );
            // The ids there are, so the next call can name the right ones.
            return refusalResult({
              ...r,
              code: 'unknown_block',
              message: `${r.message}\nBlock ids of ${kind}: ${ids.slice(0, 60).join(', ')}${ids.length > 60 ? ', ...' : ''}.`,
            });
          }
          try {
            // What the edits' blocks cite is checked there, as on every write of blocks, against the
            // engagement (the document read needs no second read); refused, nothing is written.
            const res = await pipeline.invoke('update_deliverable_document', { engagement, kind, updated_at: base.updated_at, blocks: applied.blocks }, ctx, {
              read: base,
              tool: name,
              origin: originOf(applied.changes),
            });
            const d = (res.data ?? {}) as Json;
            const now: Doc = { updated_at: String(d.updated_at ?? ''), blocks: Array.isArray(d.blocks) ? (d.blocks as Block[]) : applied.blocks };
            return saved(kind, now, applied.changes, reapplied, reapplied ? changedBetween(first.blocks, base.blocks) : []);
          } catch (err) {
            // Refused without being applied (a 4xx): was the document changed since it was read?
            if (!maybeStale(err)) return failed(err, { engagement, kind });
            const now = await readDoc(engagement, kind, ctx);
            if (now.updated_at === base.updated_at) return failed(err, { engagement, kind });
            if (attempt > 0) return conflict(kind, now, [], changedBetween(first.blocks, now.blocks), true);
            const can = reapplicable(base.blocks, now.blocks, edits);
            if (!can.ok) return conflict(kind, now, can.gone, can.changed, false);
            base = now;
            reapplied = true;
          }
        }
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        return failed(err, { engagement, kind });
      }
    },
  });
}
