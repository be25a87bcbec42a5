// The deliverable job of an unattended agent, done four ways through the real server over stdio on
// the sandbox (bench/drafting.ts scripts it; `npm run bench` measures what each way costs in tokens
// and docs/code-mode.md shows it): the ways leave the same document, make the calls and requests
// they should, and answer what the next step reads. What they cost is measured by the bench, never
// asserted here: token counts move with ids and wording, not with whether the job works.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Block, type DraftingResult, runDrafting } from '../../bench/drafting.js';
import { ROOT } from '../helpers/spawn.js';

const SCALE = 0.01; // jobs and the rate window run 100x faster

let results: Record<'whole' | 'blocks' | 'script' | 'code', DraftingResult>;

/** The blocks with the ids of the starting document; a block the job added is compared without its id (each way gives it its own, or none). */
const content = (blocks: Block[]) =>
  blocks.map(({ id, ...rest }) => (String(id ?? '').startsWith('gen-') || id === 'user-note-cloture' ? { id, ...rest } : rest));

beforeAll(async () => {
  const runs = await runDrafting({ command: process.execPath, args: ['--import', 'tsx', join(ROOT, 'src/cli.ts')], cwd: ROOT, scale: SCALE });
  results = Object.fromEntries(runs.map((r) => [r.cost.way, r])) as typeof results;
}, 240_000);

describe('the drafting job done four ways', () => {
  it('each way leaves the same document: a figure added, a paragraph rewritten, two findings cited, the stale callout removed', () => {
    const whole = content(results.whole.after);
    expect(content(results.blocks.after)).toEqual(whole);
    expect(content(results.script.after)).toEqual(whole);
    expect(content(results.code.after)).toEqual(whole);
    const cited = whole.find((b) => Array.isArray(b.refs) && (b.refs as unknown[]).length === 2 && b.type === 'paragraph');
    expect(cited).toBeDefined();
    expect(whole.some((b) => b.id === 'user-note-cloture')).toBe(false);
    for (const r of Object.values(results)) expect(r.exports).toBe(1);
  });

  it('the block inserted by edit_document_blocks bears the id its answer gave', () => {
    const edit = results.blocks.run.calls.find((c) => c.tool === 'edit_document_blocks');
    if (!edit) throw new Error('the blocks way made no edit_document_blocks call');
    const changes = (edit.answer.structuredContent as { changes: Array<{ op: string; id: string | null }> }).changes;
    const inserted = changes.find((c) => c.op === 'insert')?.id;
    expect(inserted).toMatch(/^user-[0-9a-z]{10}$/);
    const block = results.blocks.after.find((b) => b.id === inserted);
    expect(block?.type).toBe('paragraph');
    expect(block?.refs).toHaveLength(2);
  });

  it('the script way is one call making the API requests its tools make called one by one', () => {
    const { blocks, script } = results;
    expect(script.run.calls.map((c) => c.tool)).toEqual(['run_write_script']); // the script lists the engagement itself
    // The same tools as the blocks way, run in the isolate: not one request more. The export job's polls
    // depend on how long it runs, the same for every way: the rest is the way's own.
    const own = (r: DraftingResult) => r.cost.apiRequests - r.cost.exportPolls;
    expect(own(script)).toBe(own(blocks));
    for (const r of Object.values(results)) expect(r.cost.exportPolls).toBeGreaterThanOrEqual(1);
  });

  it('on WORKSPACE_TOOLSETS=code, two searches answer the signatures the script calls, typed, each within its limit', () => {
    const { code, script } = results;
    expect(code.run.calls.map((c) => c.tool)).toEqual(['find_operations', 'find_operations', 'run_write_script']);
    const [blockSearch, exportSearch] = code.run.calls.map((c) => c.answer.content.map((b) => b.text ?? '').join('\n'));
    const lines = (text: string | undefined) => (text ?? '').split('\n').filter((l) => l.startsWith('api.'));
    // The block tools: the document's blocks typed (what the script reads), the document kinds named once.
    expect(lines(blockSearch).map((l) => l.slice(0, l.indexOf('(')))).toEqual(['api.document_context', 'api.edit_document_blocks']);
    expect(blockSearch).toMatch(/document: \{updated_at\?: string; blocks\?: \{id\?: string\|null; type: string; title\?: string\|null;/);
    expect(blockSearch).toMatch(/^type Kind = "coverage"\|/m);
    // The export: one match, as asked, and the file its answer holds once it succeeded.
    expect(lines(exportSearch)).toHaveLength(1);
    expect(exportSearch).toMatch(/^api\.create_export\(args: \{engagement: string; kind: [^\n]*file\?: \{path: string; name: string;/);
    // Then the same script as on the default surface, making the same requests.
    expect(code.run.calls[2]?.arguments).toEqual(script.run.calls[0]?.arguments);
    expect(code.cost.apiRequests - code.cost.exportPolls).toBe(script.cost.apiRequests - script.cost.exportPolls);
  });
});
