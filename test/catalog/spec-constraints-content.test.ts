// The analysis, interviews, sources and deliverables entries carry the spec's constraints: what the
// spec refuses, their schemas refuse before any request is sent.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analysis } from '../../catalog/analysis.js';
import { deliverables } from '../../catalog/deliverables.js';
import { interviews } from '../../catalog/interviews.js';
import { sources } from '../../catalog/sources.js';
import type { Operation } from '../../src/operation.js';

const mine = [...analysis, ...interviews, ...sources, ...deliverables];

function entry(name: string): Operation {
  const o = mine.find((e) => e.name === name);
  if (!o) throw new Error(`no entry ${name}`);
  return o;
}

const accepts = (name: string, args: unknown) => entry(name).input.safeParse(args).success;

// Distinct valid ULIDs (Crockford base 32, 26 characters).
const E = '01JD6Z3Q8M5V7N2K4P9R0S1T2A';
const F = '01JD6Z3Q8M5V7N2K4P9R0S1T2B';
const X = '01JD6Z3Q8M5V7N2K4P9R0S1T2C';

const documented = readFileSync(fileURLToPath(new URL('../fixtures/documented-operations.tsv', import.meta.url)), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t').join(' '));

describe('areas b: coverage of the documented operations', () => {
  const inArea: Record<string, (path: string) => boolean> = {
    analysis: (p) =>
      p.startsWith('/analysis/') || /^\/engagements\/\{engagement\}\/(analysis|change-proposals|contradictions|evidences|findings)(\/|$)/.test(p),
    interviews: (p) =>
      /^\/(interviews|media|media-thumbnails|sessions)\//.test(p) || /^\/engagements\/\{engagement\}\/(interviews|live-sessions)(\/|$)/.test(p),
    sources: (p) => p.startsWith('/sources/') || /^\/engagements\/\{engagement\}\/(artifacts|external-sources)(\/|$)/.test(p),
    deliverables: (p) => /^\/engagements\/\{engagement\}\/(deliverable|exports)(\/|$)/.test(p),
  };
  const modules: Record<string, readonly Operation[]> = { analysis, interviews, sources, deliverables };

  for (const [toolset, ops] of Object.entries(modules)) {
    it(`${toolset}: one entry per documented operation, with method, path template and scope as listed`, () => {
      const want = documented.filter((d) => inArea[toolset]!(d.split(' ')[1]!)).sort();
      const got = ops
        .filter((o) => o.documented)
        .map((o) => `${o.method} ${o.path} ${o.scope}`)
        .sort();
      // How many there are is the spec list's business (test/catalog/catalog.test.ts matches the whole
      // catalog to it): here each area has some, and the same as its entries.
      expect(want.length).toBeGreaterThan(0);
      expect(got).toEqual(want);
      for (const o of ops) expect(o.toolset).toBe(toolset);
    });
  }

  it('each documented path belongs to one area at most', () => {
    const twice = documented.filter((d) => Object.values(inArea).filter((f) => f(d.split(' ')[1]!)).length > 1);
    expect(twice).toEqual([]);
  });

  it('list payloads are paginated; downloads, media and recordings answer files', () => {
    const paginated = mine.filter((o) => o.paginated).map((o) => o.name);
    expect(paginated).toEqual(
      expect.arrayContaining(['list_findings', 'list_change_proposals', 'list_session_pins', 'list_exports', 'list_analysis_enum_values']),
    );
    expect(paginated).not.toContain('get_finding');
    const files = mine
      .filter((o) => o.response === 'file')
      .map((o) => o.name)
      .sort();
    expect(files).toEqual(['download_artifact', 'download_export', 'get_media', 'get_media_thumbnail', 'get_session_recording']);
    const reference = mine
      .filter((o) => o.reference)
      .map((o) => o.name)
      .sort();
    expect(reference).toEqual(['get_external_source_schema', 'list_analysis_enum_values']);
  });

  it('flags the irreversible actions destructive, and the re-doable ones not', () => {
    const destructive = (n: string) => entry(n).annotations.destructiveHint;
    for (const n of [
      'cancel_analysis_run',
      'reject_change_proposal',
      'reject_all_change_proposals',
      'accept_all_change_proposals',
      'publish_deliverable',
      'end_session',
      'delete_finding',
    ])
      expect(destructive(n), n).toBe(true);
    for (const n of ['review_finding', 'resolve_contradiction', 'close_deliverable_comment', 'start_analysis_run', 'create_export'])
      expect(destructive(n), n).toBe(false);
    expect(mine.every((o) => !o.annotations.openWorldHint)).toBe(true);
  });
});

describe('findings and evidences', () => {
  const fullFinding = {
    engagement: E,
    type: 'key_person_dependency',
    statement: 'Only Marie knows how to close the month in the ERP.',
    details: null,
    quantity: { hours_per_month: 12 },
    process_id: F,
    step_id: null,
    deliverable_category: 'finance',
    evidences: [{ source_type: 'transcript_segment', source_id: X, locator: { start_ms: 1200 }, excerpt: 'Only I can do it.' }],
  };

  it('accepts a full finding with its evidences', () => {
    expect(accepts('create_finding', fullFinding)).toBe(true);
  });

  it('requires type and statement on create, but nothing on update', () => {
    const { type: _t, ...noType } = fullFinding;
    const { statement: _s, ...noStatement } = fullFinding;
    expect(accepts('create_finding', noType)).toBe(false);
    expect(accepts('create_finding', noStatement)).toBe(false);
    expect(accepts('update_finding', { engagement: E, finding: F })).toBe(true);
  });

  it('refuses a 1001-character statement, an unknown type and an unknown key', () => {
    expect(accepts('create_finding', { ...fullFinding, statement: 'x'.repeat(1000) })).toBe(true);
    expect(accepts('create_finding', { ...fullFinding, statement: 'x'.repeat(1001) })).toBe(false);
    expect(accepts('create_finding', { ...fullFinding, type: 'opinion' })).toBe(false);
    expect(accepts('create_finding', { ...fullFinding, severity: 'high' })).toBe(false);
  });

  it('refuses a 27-character evidence source id and an unknown key inside an evidence', () => {
    const evidence = fullFinding.evidences[0]!;
    expect(accepts('create_finding', { ...fullFinding, evidences: [{ ...evidence, source_id: `${X}Z` }] })).toBe(false);
    expect(accepts('create_finding', { ...fullFinding, evidences: [{ ...evidence, weight: 2 }] })).toBe(false);
    expect(accepts('add_finding_evidence', { engagement: E, finding: F, source_type: 'pin', source_id: X })).toBe(true);
    expect(accepts('add_finding_evidence', { engagement: E, finding: F, source_type: 'email', source_id: X })).toBe(false);
  });

  it('keeps evidences and review status out of the finding update', () => {
    expect(accepts('update_finding', { engagement: E, finding: F, evidences: [] })).toBe(false);
    expect(accepts('update_finding', { engagement: E, finding: F, review_status: 'validated' })).toBe(false);
    expect(accepts('review_finding', { engagement: E, finding: F, review_status: 'validated' })).toBe(true);
    expect(accepts('review_finding', { engagement: E, finding: F, review_status: 'approved' })).toBe(false);
  });

  it('refuses a path id that is not a ULID', () => {
    expect(accepts('get_finding', { engagement: E, finding: '../../workspace' })).toBe(false);
    expect(accepts('get_finding', { engagement: E, finding: `${F}0` })).toBe(false);
  });
});

describe('analysis runs, proposals and contradictions', () => {
  it('requires the run mode', () => {
    expect(accepts('start_analysis_run', { engagement: E, mode: 'full' })).toBe(true);
    expect(accepts('start_analysis_run', { engagement: E })).toBe(false);
    expect(accepts('start_analysis_run', { engagement: E, mode: 'partial' })).toBe(false);
  });

  it('narrows a bulk accept by entity type and run, or by nothing', () => {
    expect(accepts('accept_all_change_proposals', { engagement: E })).toBe(true);
    expect(accepts('accept_all_change_proposals', { engagement: E, entity_type: 'process_step', analysis_run_id: null })).toBe(true);
    expect(accepts('reject_all_change_proposals', { engagement: E, entity_type: 'interview' })).toBe(false);
    expect(accepts('reject_all_change_proposals', { engagement: E, analysis_run_id: 'run-1' })).toBe(false);
  });

  it('requires a contradiction status and bounds the note', () => {
    const base = { engagement: E, contradiction: F };
    expect(accepts('resolve_contradiction', { ...base, status: 'kept_as_finding', resolved_finding_id: X, resolution_note: 'n'.repeat(2000) })).toBe(true);
    expect(accepts('resolve_contradiction', { ...base, resolution_note: 'why' })).toBe(false);
    expect(accepts('resolve_contradiction', { ...base, status: 'dismissed', resolution_note: 'n'.repeat(2001) })).toBe(false);
  });

  it('requires is_publishable on the evidence update', () => {
    expect(accepts('set_evidence_publishable', { engagement: E, evidence: F, is_publishable: false })).toBe(true);
    expect(accepts('set_evidence_publishable', { engagement: E, evidence: F })).toBe(false);
  });

  it('takes an enum name as a slug only', () => {
    expect(accepts('list_analysis_enum_values', { name: 'finding-types' })).toBe(true);
    expect(accepts('list_analysis_enum_values', { name: '../ai' })).toBe(false);
  });
});

describe('interviews, sessions and media', () => {
  it('accepts a stored file path with slashes and refuses empty, dot and dot-dot segments', () => {
    const ok = (path: string) => accepts('get_media', { disk: 'public', path });
    expect(ok('sessions/01JD/frames/0001.jpg')).toBe(true);
    expect(ok('a.b/c..d/.hidden')).toBe(true);
    for (const bad of ['', '.', '..', '../secrets', 'a/../../b', 'a/./b', 'a//b', '/etc/passwd', 'frames/', 'a\\b', 'a\u0000b', 'a\nb'])
      expect(ok(bad), JSON.stringify(bad)).toBe(false);
    expect(accepts('get_media_thumbnail', { disk: '../x', path: 'a.jpg' })).toBe(false);
  });

  it('takes the interview source type from the evidence source types', () => {
    expect(accepts('get_interview_source', { interview: E, type: 'screen_frame', source: F })).toBe(true);
    expect(accepts('get_interview_source', { interview: E, type: 'email', source: F })).toBe(false);
  });

  it('bounds the preview session request and its client info', () => {
    const base = { engagement: E };
    expect(accepts('start_preview_session', base)).toBe(true);
    expect(
      accepts('start_test_interview', { ...base, population_id: null, mode: 'text_simulation', locale: 'fr-FR', client_info: { os: 'macOS', browser: null } }),
    ).toBe(true);
    expect(accepts('start_test_interview', { ...base, locale: 'fr-FR-x-long' })).toBe(false);
    expect(accepts('start_test_interview', { ...base, mode: 'video' })).toBe(false);
    expect(accepts('start_preview_session', { ...base, client_info: { os: 'x'.repeat(65) } })).toBe(false);
    expect(accepts('start_preview_session', { ...base, client_info: { screen: '4k' } })).toBe(false);
  });
});

describe('uploads', () => {
  const eng = { engagement: E };

  it('takes exactly one of path, text or base64', () => {
    expect(accepts('upload_artifact', { ...eng, file: { path: '/tmp/procedure.pdf' } })).toBe(true);
    expect(accepts('upload_artifact', { ...eng, file: { text: 'a,b\n1,2\n', filename: 'data.csv', content_type: 'text/csv' } })).toBe(true);
    expect(accepts('upload_artifact', { ...eng, file: { base64: 'aGVs\nbG8=' } })).toBe(true);
    expect(accepts('upload_artifact', { ...eng, file: { filename: 'x.pdf' } })).toBe(false);
    expect(accepts('upload_artifact', { ...eng, file: { path: '/tmp/a', text: 'a' } })).toBe(false);
    expect(accepts('upload_artifact', { ...eng, file: { text: 'a', url: 'https://example.com/a' } })).toBe(false);
  });

  it('names the fix when the file is given twice', () => {
    const r = entry('upload_artifact').input.safeParse({ ...eng, file: { path: '/tmp/a', base64: 'YQ==' } });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message)).toContain('give exactly one of path, text or base64');
  });

  it('refuses inline content above the size limit before any request', () => {
    const tenMiB = 10240 * 1024;
    expect(accepts('upload_external_source', { ...eng, name: 'CRM export', file: { text: 'x'.repeat(tenMiB) } })).toBe(true);
    expect(accepts('upload_external_source', { ...eng, name: 'CRM export', file: { text: 'x'.repeat(tenMiB + 1) } })).toBe(false);
    // 4 base64 characters carry 3 bytes: this decodes to 10 MiB + 2 bytes (10 MiB + 2 is a multiple of 3).
    const b64 = 'A'.repeat(((tenMiB + 2) / 3) * 4);
    expect(Buffer.from(b64, 'base64').length).toBe(tenMiB + 2);
    expect(accepts('upload_external_source', { ...eng, name: 'CRM export', file: { base64: `${b64.slice(4)}AA==` } })).toBe(true);
    expect(accepts('upload_external_source', { ...eng, name: 'CRM export', file: { base64: b64 } })).toBe(false);
    expect(accepts('upload_artifact', { ...eng, file: { base64: b64 } })).toBe(true);
    expect(accepts('upload_artifact', { ...eng, file: { base64: 'not base64!' } })).toBe(false);
  });

  it('requires the external source name, up to 255 characters', () => {
    const file = { text: '{}' };
    expect(accepts('upload_external_source', { ...eng, file })).toBe(false);
    expect(accepts('upload_external_source', { ...eng, file, name: 'n'.repeat(256) })).toBe(false);
    expect(entry('upload_external_source').body).toBe('multipart');
  });
});

describe('deliverable documents, draft, comments and exports', () => {
  const doc = { engagement: E, kind: 'executive_summary', updated_at: '2026-11-20T10:00:00Z' };
  const fullBlock = {
    id: 'b1',
    type: 'item_list',
    level: null,
    text: 'Three processes rely on re-entry.',
    title: 'Key irritants',
    refs: [{ type: 'finding', id: F }],
    data_ref: null,
    items: ['Invoices are typed twice'],
    item_type: 'finding',
    ids: [F],
    display: 'compact',
    options: { columns: 2 },
    chart: 'pain_heatmap',
    process_id: null,
    show_map: false,
    evidence_id: null,
    theme: 'finance',
    tone: 'caution',
  };

  it('accepts a full block and a document of 200 blocks, refuses 201', () => {
    expect(accepts('update_deliverable_document', { ...doc, included: true, parameters: { period: 'Q3' }, blocks: [fullBlock] })).toBe(true);
    const paragraphs = (n: number) => Array.from({ length: n }, () => ({ type: 'paragraph', text: 'p' }));
    expect(accepts('update_deliverable_document', { ...doc, blocks: paragraphs(200) })).toBe(true);
    expect(accepts('update_deliverable_document', { ...doc, blocks: paragraphs(201) })).toBe(false);
  });

  it('requires updated_at and a known document kind', () => {
    const { updated_at: _u, ...noToken } = doc;
    expect(accepts('update_deliverable_document', noToken)).toBe(false);
    expect(accepts('update_deliverable_document', { ...doc, updated_at: 'x'.repeat(65) })).toBe(false);
    expect(accepts('update_deliverable_document', { ...doc, kind: 'annex' })).toBe(false);
    expect(accepts('get_deliverable_document', { engagement: E, kind: 'pain_map' })).toBe(true);
  });

  it('holds each block to its type enum, lengths and 50-entry lists', () => {
    const withBlock = (b: Record<string, unknown>) => accepts('update_deliverable_document', { ...doc, blocks: [{ ...fullBlock, ...b }] });
    const { type: _t, ...untyped } = fullBlock;
    expect(accepts('update_deliverable_document', { ...doc, blocks: [untyped] })).toBe(false);
    expect(withBlock({ type: 'video' })).toBe(false);
    expect(withBlock({ text: 't'.repeat(5001) })).toBe(false);
    expect(withBlock({ title: 't'.repeat(201) })).toBe(false);
    expect(withBlock({ refs: Array.from({ length: 50 }, () => ({ type: 'tool', id: 'erp' })) })).toBe(true);
    expect(withBlock({ refs: Array.from({ length: 51 }, () => ({ type: 'tool', id: 'erp' })) })).toBe(false);
    expect(withBlock({ refs: [{ type: 'person', id: 'marie' }] })).toBe(false);
    expect(withBlock({ refs: [{ type: 'tool', id: 'i'.repeat(65) }] })).toBe(false);
    expect(withBlock({ refs: [{ type: 'tool' }] })).toBe(false);
    expect(withBlock({ items: Array.from({ length: 51 }, () => 'i') })).toBe(false);
    expect(withBlock({ ids: Array.from({ length: 51 }, () => F) })).toBe(false);
    expect(withBlock({ tone: 'alarm' })).toBe(false);
    expect(withBlock({ display: 'wide' })).toBe(false);
    expect(withBlock({ chart: 'pie' })).toBe(false);
    expect(withBlock({ level: 1.5 })).toBe(false);
    // A field the spec does not list is carried, not refused: the API may answer blocks with more
    // fields than the spec lists, and a document read and sent back must stay that document. Where a
    // model writes a block of its own (edit_document_blocks), an unknown field is still refused.
    expect(withBlock({ colour: 'red' })).toBe(true);
    expect(withBlock({ colour: 'red', level: 1.5 })).toBe(false);
  });

  it('bounds the draft fields and the publication', () => {
    const base = { engagement: E };
    expect(accepts('update_deliverable_draft', { ...base, attribution: 'named', named_interview_ids: [F], stage: 'interim' })).toBe(true);
    expect(accepts('update_deliverable_draft', { ...base, introduction: 'i'.repeat(20001) })).toBe(false);
    expect(accepts('update_deliverable_draft', { ...base, attribution: 'anonymous' })).toBe(false);
    expect(accepts('publish_deliverable', { ...base, changelog: null, stage: 'final' })).toBe(true);
    expect(accepts('publish_deliverable', { ...base, stage: 'draft' })).toBe(false);
    expect(accepts('reply_deliverable_comment', { ...base, comment: F, body: '' })).toBe(false);
    expect(accepts('reply_deliverable_comment', { ...base, comment: F, body: 'b'.repeat(5001) })).toBe(false);
  });

  it('requires the export kind; document_kind and ids are optional, ids nullable', () => {
    const base = { engagement: E };
    expect(accepts('create_export', { ...base, kind: 'document_pptx', document_kind: 'roadmap', deliverable_version_id: null, process_id: null })).toBe(true);
    expect(accepts('create_export', { ...base, kind: 'deliverable_pdf', deliverable_version_id: F })).toBe(true);
    expect(accepts('create_export', { ...base, document_kind: 'roadmap' })).toBe(false);
    expect(accepts('create_export', { ...base, kind: 'xlsx' })).toBe(false);
    expect(accepts('create_export', { ...base, kind: 'document_pdf', document_kind: 'annex' })).toBe(false);
  });

  it('takes the generation mode from keep_edits and replace_all', () => {
    const base = { engagement: E, kind: 'roadmap' };
    expect(accepts('generate_deliverable_document', { ...base, mode: 'keep_edits', process_id: null, ai: true })).toBe(true);
    expect(accepts('generate_deliverable_document', { ...base, mode: 'merge' })).toBe(false);
  });
});
