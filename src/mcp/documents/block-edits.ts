// Block edits of a deliverable document (edit_document_blocks), as pure functions over the blocks the
// API answered: applying a list of edits, what they name, what they reference, and what changed
// between two readings. A block the edits do not touch is carried over as the very object read, so
// it is sent back exactly as it came, fields the spec does not list included.

type Json = Record<string, unknown>;

/** A block as the document holds it (anything the API answered), and as an edit gives one. */
export type Block = Json & { id?: string | null; type?: unknown };

/**
 * An edit. A replace puts the block given in place of the one named, whole: a field it leaves out is
 * gone. An update changes only the fields it gives, the others kept as read.
 */
export type BlockEdit =
  | { op: 'insert'; after: string | null; block: Block }
  | { op: 'replace'; id: string; block: Block }
  | { op: 'update'; id: string; block: Block }
  | { op: 'delete'; id: string }
  | { op: 'move'; id: string; after: string | null };

/**
 * One applied edit, as the answer reports it: the block and where it now is (null once deleted); for a
 * replace, the fields the block had that the new one left out (gone with it), so a model that meant
 * to change one field reads what it lost.
 */
export interface Change {
  op: BlockEdit['op'];
  id: string | null;
  at: number | null;
  dropped?: string[];
}

/** Why an edit cannot be applied to these blocks: which edit, and what to send instead. */
interface EditProblem {
  edit: number;
  rule: string;
}

export type Applied = { ok: true; blocks: Block[]; changes: Change[] } | { ok: false; problems: EditProblem[] };

const idOf = (b: Block): string | null => (typeof b.id === 'string' && b.id !== '' ? b.id : null);

/** The index of the one block with this id; a problem when there is none, or more than one. */
function find(blocks: readonly Block[], id: string): number | string {
  let at = -1;
  for (const [i, b] of blocks.entries()) {
    if (idOf(b) !== id) continue;
    if (at >= 0) return `two blocks have the id ${id}: it does not say which one`;
    at = i;
  }
  return at >= 0 ? at : `no block has the id ${id}`;
}

/** Where a block placed `after` goes: 0 for null (the start), else right after that block. */
function slotAfter(blocks: readonly Block[], after: string | null): number | string {
  if (after === null) return 0;
  const at = find(blocks, after);
  return typeof at === 'number' ? at + 1 : `after: ${at}`;
}

/**
 * Apply the edits in order, each to the result of the ones before (a block inserted by one edit can
 * be named by the next). Every problem is reported, not only the first; nothing is applied then.
 */
export function applyEdits(read: readonly Block[], edits: readonly BlockEdit[]): Applied {
  const blocks = [...read];
  const problems: EditProblem[] = [];
  const done: Array<{ op: BlockEdit['op']; block: Block | null; id: string | null; dropped?: string[] }> = [];
  const taken = (id: string | null, except?: Block) => id !== null && blocks.some((b) => b !== except && idOf(b) === id);
  for (const [n, e] of edits.entries()) {
    const fail = (rule: string) => problems.push({ edit: n, rule });
    switch (e.op) {
      case 'insert': {
        const at = slotAfter(blocks, e.after);
        if (typeof at === 'string') fail(at);
        else if (taken(idOf(e.block))) fail(`block.id: a block already has the id ${idOf(e.block)}; give a new one or none`);
        else {
          blocks.splice(at, 0, e.block);
          done.push({ op: 'insert', block: e.block, id: idOf(e.block) });
        }
        break;
      }
      case 'replace':
      case 'update': {
        const at = find(blocks, e.id);
        if (typeof at === 'string') {
          fail(`id: ${at}`);
          break;
        }
        const old = blocks[at] as Block;
        if (e.op === 'update' && e.block.type !== undefined && e.block.type !== old.type) {
          fail(`block.type: an update keeps the block's type (${String(old.type)}); send that, or replace the block whole to change it`);
          break;
        }
        // Without an id of its own, the new block keeps the old one's, so later edits can name it. An
        // update lays the fields given over the block read, whose other fields (and key order) stay.
        const next: Block = e.op === 'update' ? { ...old, ...e.block } : 'id' in e.block ? e.block : { id: e.id, ...e.block };
        if (idOf(next) !== e.id && taken(idOf(next), old)) fail(`block.id: a block already has the id ${idOf(next)}`);
        else {
          blocks[at] = next;
          const dropped = e.op === 'replace' ? Object.keys(old).filter((k) => k !== 'id' && !(k in next)) : [];
          done.push({ op: e.op, block: next, id: idOf(next), ...(dropped.length ? { dropped } : {}) });
        }
        break;
      }
      case 'delete': {
        const at = find(blocks, e.id);
        if (typeof at === 'string') fail(`id: ${at}`);
        else {
          blocks.splice(at, 1);
          done.push({ op: 'delete', block: null, id: e.id });
        }
        break;
      }
      case 'move': {
        const from = find(blocks, e.id);
        if (typeof from === 'string') {
          fail(`id: ${from}`);
          break;
        }
        if (e.after === e.id) {
          fail('after: a block cannot be placed after itself');
          break;
        }
        const [moved] = blocks.splice(from, 1) as [Block];
        const at = slotAfter(blocks, e.after);
        if (typeof at === 'string') {
          blocks.splice(from, 0, moved);
          fail(at);
        } else {
          blocks.splice(at, 0, moved);
          done.push({ op: 'move', block: moved, id: e.id });
        }
        break;
      }
    }
  }
  if (problems.length) return { ok: false, problems };
  // Positions in the document as saved (a later edit may have shifted an earlier one's block).
  const changes = done.map((d) => ({ op: d.op, id: d.id, at: d.block ? blocks.indexOf(d.block) : null, ...(d.dropped ? { dropped: d.dropped } : {}) }));
  return { ok: true, blocks, changes };
}

/**
 * The blocks of the document read that the edits name (replaced, updated, deleted, moved, or placed
 * after), and those among them whose content the edits overwrite or drop (replaced, updated, deleted). Blocks an
 * earlier edit of the same call inserted are not counted: they were not in the document.
 */
function namedBlocks(read: readonly Block[], edits: readonly BlockEdit[]): { named: Set<string>; overwritten: Set<string> } {
  const existing = new Set(read.map(idOf).filter((x): x is string => x !== null));
  const named = new Set<string>();
  const overwritten = new Set<string>();
  for (const e of edits) {
    for (const id of [e.op === 'insert' ? null : e.id, e.op === 'insert' || e.op === 'move' ? e.after : null]) {
      if (id !== null && existing.has(id)) named.add(id);
    }
    if ((e.op === 'replace' || e.op === 'update' || e.op === 'delete') && existing.has(e.id)) overwritten.add(e.id);
  }
  return { named, overwritten };
}

const same = (a: Block | undefined, b: Block | undefined) => JSON.stringify(a) === JSON.stringify(b);

function byId(blocks: readonly Block[]): Map<string, Block> {
  const out = new Map<string, Block>();
  for (const b of blocks) {
    const id = idOf(b);
    if (id !== null) out.set(id, b);
  }
  return out;
}

/** Ids of the blocks another writer added, removed or changed between two readings of a document. */
export function changedBetween(before: readonly Block[], after: readonly Block[]): string[] {
  const a = byId(before);
  const b = byId(after);
  const out: string[] = [];
  for (const [id, block] of a) if (!same(block, b.get(id))) out.push(id);
  for (const id of b.keys()) if (!a.has(id)) out.push(id);
  return out;
}

/**
 * Whether the edits can be applied again to a document someone changed since it was read: every
 * block they name is still there, and none they replace or delete was changed meanwhile (that would
 * throw the other writer's edit away). The blocks in the way are named otherwise.
 */
export function reapplicable(
  read: readonly Block[],
  current: readonly Block[],
  edits: readonly BlockEdit[],
): { ok: true } | { ok: false; gone: string[]; changed: string[] } {
  const { named, overwritten } = namedBlocks(read, edits);
  const was = byId(read);
  const now = byId(current);
  const gone = [...named].filter((id) => !now.has(id));
  const changed = [...overwritten].filter((id) => now.has(id) && !same(was.get(id), now.get(id)));
  return gone.length || changed.length ? { ok: false, gone, changed } : { ok: true };
}

/** An id of the engagement a block cites, by what it is (a ref's type, an item list's item_type). */
export interface Citation {
  type: string;
  id: string;
  /** Where in the edits: "edits.2.block.refs.0.id". */
  at: string;
}

/** What a block cites: its refs, an item list's ids, a quote's evidence_id and a process block's process_id. */
export function citations(b: Block, at: string): { cited: Citation[]; problems: string[] } {
  const cited: Citation[] = [];
  const problems: string[] = [];
  const refs = Array.isArray(b.refs) ? (b.refs as Json[]) : [];
  for (const [i, r] of refs.entries()) cited.push({ type: String(r.type), id: String(r.id), at: `${at}.refs.${i}.id` });
  const ids = Array.isArray(b.ids) ? (b.ids as unknown[]) : [];
  if (ids.length && typeof b.item_type !== 'string') problems.push(`${at}.item_type: say what the ids are (finding, opportunity, process...)`);
  else for (const [i, id] of ids.entries()) cited.push({ type: String(b.item_type), id: String(id), at: `${at}.ids.${i}` });
  if (typeof b.evidence_id === 'string') cited.push({ type: 'evidence', id: b.evidence_id, at: `${at}.evidence_id` });
  if (typeof b.process_id === 'string') cited.push({ type: 'process', id: b.process_id, at: `${at}.process_id` });
  return { cited, problems };
}

/** Every id of each kind a list of blocks cites (documents name processes, steps, opportunities...). */
export function citedIds(blocks: readonly Block[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const b of blocks) {
    for (const c of citations(b, '').cited) {
      const set = out.get(c.type) ?? new Set<string>();
      set.add(c.id);
      out.set(c.type, set);
    }
  }
  return out;
}
