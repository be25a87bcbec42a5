// Deliverables and exports over real HTTP: documents and their concurrency token, generation jobs,
// publishing, comments, previews, and every export kind followed to its file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { finished, TestClock } from '../../helpers/clock.js';
import { api, CLIENT, checkPdfXref, ENGAGEMENT, parseCsv, VERSION_1, xmlElements, zipNames } from '../helpers.js';

let sb: SandboxHandle;
const E = `/engagements/${ENGAGEMENT}`;

// Runs with real time; a test moves it past a job's end to read the job finished.
const clock = new TestClock();
beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.001, rateLimit: false, clock: clock.now });
});
afterAll(async () => {
  await sb.close();
});

describe('deliverable documents', () => {
  it('lists every document kind with blocks of the spec types and a concurrency token', async () => {
    const r = await api(sb, 'GET', `${E}/deliverable/documents?limit=200`);
    expect(r.status).toBe(200);
    const kinds = r.json.data.map((d: any) => d.kind);
    expect(kinds).toEqual(expect.arrayContaining(['executive_summary', 'coverage', 'pain_map', 'roadmap', 'process_sheets', 'verbatims', 'methodology']));
    const types = new Set(r.json.data.flatMap((d: any) => d.blocks.map((b: any) => b.type)));
    for (const t of ['heading', 'paragraph', 'key_figures', 'item_list', 'chart', 'quote', 'callout', 'table']) expect(types).toContain(t);
    for (const d of r.json.data) expect(Number.isNaN(Date.parse(d.updated_at))).toBe(false);
    const summary = r.json.data.find((d: any) => d.kind === 'executive_summary');
    const findings = summary.blocks.find((b: any) => b.type === 'item_list' && b.item_type === 'finding');
    expect(findings.ids.length).toBeGreaterThan(0);
    const quote = summary.blocks.find((b: any) => b.type === 'quote');
    expect(quote.evidence_id).toMatch(/^[0-9A-Z]{26}$/);
  });

  it('refuses a stale updated_at as the spec answers invalid data (422 validation.failed on updated_at) and changes nothing', async () => {
    const before = (await api(sb, 'GET', `${E}/deliverable/documents/pain_map`)).json.data;
    const stale = new Date(Date.parse(before.updated_at) - 60_000).toISOString();
    const r = await api(sb, 'PATCH', `${E}/deliverable/documents/pain_map`, {
      body: { updated_at: stale, included: false, blocks: [{ type: 'paragraph', text: 'écrasé' }] },
    });
    expect(r.status).toBe(422);
    expect(r.json.code).toBe('validation.failed');
    expect(Object.keys(r.json.details.fields)).toEqual(['updated_at']);
    const after = (await api(sb, 'GET', `${E}/deliverable/documents/pain_map`)).json.data;
    expect(after.blocks).toEqual(before.blocks);
    expect(after.included).toBe(true);
    expect(after.updated_at).toBe(before.updated_at);
  });

  it('accepts the current updated_at and hands out a strictly later one, even twice in a row', async () => {
    let doc = (await api(sb, 'GET', `${E}/deliverable/documents/methodology`)).json.data;
    const stamps = [doc.updated_at];
    for (const text of ['Première note', 'Deuxième note']) {
      const r = await api(sb, 'PATCH', `${E}/deliverable/documents/methodology`, {
        body: { updated_at: doc.updated_at, blocks: [...doc.blocks, { id: 'user-note', type: 'paragraph', text }] },
      });
      expect(r.status).toBe(200);
      doc = r.json.data;
      stamps.push(doc.updated_at);
    }
    expect(Date.parse(stamps[1])).toBeGreaterThan(Date.parse(stamps[0]));
    expect(Date.parse(stamps[2])).toBeGreaterThan(Date.parse(stamps[1]));
    expect(doc.blocks.at(-1)).toMatchObject({ id: 'user-note', text: 'Deuxième note' });
    // The first token is spent: reusing it is refused.
    const reuse = await api(sb, 'PATCH', `${E}/deliverable/documents/methodology`, { body: { updated_at: stamps[1], included: false } });
    expect(reuse.status).toBe(422);
  });

  it('stores each block exactly as sent: fields beyond the spec kept, key order kept, a round trip reads back byte for byte', async () => {
    const before = (await api(sb, 'GET', `${E}/deliverable/documents/coverage`)).json.data;
    const odd = { text: 'Note', type: 'paragraph', x_origin: { by: 'import', n: 2 }, id: 'user-odd' };
    const sent = [...before.blocks, odd];
    const r = await api(sb, 'PATCH', `${E}/deliverable/documents/coverage`, { body: { updated_at: before.updated_at, blocks: sent } });
    expect(r.status).toBe(200);
    const after = (await api(sb, 'GET', `${E}/deliverable/documents/coverage`)).json.data;
    expect(JSON.stringify(after.blocks)).toBe(JSON.stringify(sent));
    // The spec's fields are still validated.
    const bad = await api(sb, 'PATCH', `${E}/deliverable/documents/coverage`, {
      body: { updated_at: after.updated_at, blocks: [{ type: 'poem', text: 'x' }] },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.json.details.fields)).toEqual(['blocks.0.type']);
  });

  it('refuses an unknown document kind and an unknown engagement', async () => {
    expect((await api(sb, 'GET', `${E}/deliverable/documents/annual_report`)).status).toBe(404);
    expect((await api(sb, 'GET', `/engagements/01M1D4MS5080000000GGT70VZZ/deliverable/documents`)).status).toBe(404);
  });
});

describe('generation jobs', () => {
  it('keep_edits regenerates from the findings and keeps user- blocks; the document shows the job', async () => {
    const before = (await api(sb, 'GET', `${E}/deliverable/documents/executive_summary`)).json.data;
    const userBlocks = before.blocks.filter((b: any) => String(b.id).startsWith('user-'));
    expect(userBlocks.length).toBeGreaterThan(0);
    const start = await api(sb, 'POST', `${E}/deliverable/documents/executive_summary/generate`, { body: { mode: 'keep_edits' } });
    expect(start.status).toBe(202);
    expect(start.json.data).toMatchObject({ kind: 'executive_summary', kinds: ['executive_summary'], progress: 0 });
    expect(['queued', 'running']).toContain(start.json.data.status);
    const doc = await finished(clock, async () => {
      const d = (await api(sb, 'GET', `${E}/deliverable/documents/executive_summary`)).json.data;
      return { ...d, status: d.generation.status };
    });
    expect(doc.generation).toEqual({ job_id: start.json.data.id, status: 'succeeded', progress: 100 });
    expect(Date.parse(doc.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    expect(doc.blocks.filter((b: any) => String(b.id).startsWith('user-'))).toEqual(userBlocks);
  });

  it('replace_all drops the manual blocks', async () => {
    const start = await api(sb, 'POST', `${E}/deliverable/documents/executive_summary/generate`, { body: { mode: 'replace_all' } });
    expect(start.status).toBe(202);
    const doc = await finished(clock, async () => {
      const d = (await api(sb, 'GET', `${E}/deliverable/documents/executive_summary`)).json.data;
      return { ...d, status: d.generation.status };
    });
    expect(doc.blocks.some((b: any) => String(b.id).startsWith('user-'))).toBe(false);
    expect(doc.blocks[0].type).toBe('heading');
  });

  it('rebuilds lists from current findings: a rejected finding leaves the pain map', async () => {
    const pain = (await api(sb, 'GET', `${E}/deliverable/documents/pain_map`)).json.data;
    const listed: string[] = pain.blocks.find((b: any) => b.type === 'item_list').ids;
    const target = listed[0]!;
    const review = await api(sb, 'POST', `${E}/findings/${target}/review`, { body: { review_status: 'rejected' } });
    expect(review.status).toBeLessThan(300);
    await api(sb, 'POST', `${E}/deliverable/documents/pain_map/generate`, { body: { mode: 'replace_all' } });
    const doc = await finished(clock, async () => {
      const d = (await api(sb, 'GET', `${E}/deliverable/documents/pain_map`)).json.data;
      return { ...d, status: d.generation.status };
    });
    expect(doc.blocks.find((b: any) => b.type === 'item_list').ids).not.toContain(target);
  });

  it('generate-all answers one job for every kind', async () => {
    const r = await api(sb, 'POST', `${E}/deliverable/documents/generate-all`, { body: { ai: false } });
    expect(r.status).toBe(202);
    expect(r.json.data.kinds).toHaveLength(11);
    const job = await finished(clock, async () => {
      const d = (await api(sb, 'GET', `${E}/deliverable/documents/roadmap`)).json.data;
      return { status: d.generation.status, id: d.generation.job_id };
    });
    expect(job).toEqual({ status: 'succeeded', id: r.json.data.id });
  });

  it('goes queued, then running, then succeeded with the clock', async () => {
    // At real speed on a clock that stands still: a generation lasts 20 s, the first tenth queued.
    const still = new TestClock({ frozen: true });
    const slow = await startSandbox({ port: 0, rateLimit: false, clock: still.now });
    try {
      const generation = async () => (await api(slow, 'GET', `${E}/deliverable/documents/roadmap`)).json.data.generation;
      const start = await api(slow, 'POST', `${E}/deliverable/documents/roadmap/generate`, { body: {} });
      expect(start.json.data.status).toBe('queued');
      expect((await generation()).status).toBe('queued');
      still.advance(10_000);
      expect(await generation()).toMatchObject({ status: 'running', progress: 50 });
      still.advance(10_000);
      expect(await generation()).toMatchObject({ status: 'succeeded', progress: 100 });
    } finally {
      await slow.close();
    }
  });

  it('refuses a process of no engagement', async () => {
    const r = await api(sb, 'POST', `${E}/deliverable/documents/process_sheets/generate`, { body: { process_id: '01M1D4MS5080000000GGT70VZZ' } });
    expect(r.status).toBe(422);
    expect(r.json.details.fields.process_id).toBeDefined();
  });
});

describe('draft, previews and suggestions', () => {
  it('reads and updates the draft; named attribution needs interviews of the engagement', async () => {
    const d = await api(sb, 'GET', `${E}/deliverable/draft`);
    expect(d.json.data).toMatchObject({
      id: '01M1D57330J00040GRWYZ363XK',
      attribution: 'by_role',
      stage: 'interim',
      include_proposed: false,
      auto_refresh_interim: true,
    });
    const bad = await api(sb, 'PATCH', `${E}/deliverable/draft`, { body: { attribution: 'named', named_interview_ids: ['01M1D4MS5080000000GGT70VZZ'] } });
    expect(bad.status).toBe(422);
    const ok = await api(sb, 'PATCH', `${E}/deliverable/draft`, { body: { introduction: 'Nouvelle introduction.' } });
    expect(ok.status).toBe(200);
    expect(ok.json.data.introduction).toBe('Nouvelle introduction.');
    expect(ok.json.data.recommendations).toBe(d.json.data.recommendations);
  });

  it('previews an evidence with the attribution of the draft', async () => {
    const docs = (await api(sb, 'GET', `${E}/deliverable/documents/verbatims`)).json.data;
    const evidenceId = docs.blocks.find((b: any) => b.type === 'quote').evidence_id;
    const byRole = await api(sb, 'GET', `${E}/deliverable/draft/evidences/${evidenceId}/preview`);
    expect(byRole.status).toBe(200);
    expect(byRole.json.data).toMatchObject({ evidence_id: evidenceId, attribution: 'by_role' });
    expect(byRole.json.data.excerpt).toBeTruthy();
    const interviewId = byRole.json.data.interview_id;
    if (interviewId) {
      const interview = (await api(sb, 'GET', `/interviews/${interviewId}`)).json.data;
      expect(byRole.json.data.speaker).toBe(interview.interviewee_role);
      await api(sb, 'PATCH', `${E}/deliverable/draft`, { body: { attribution: 'named', named_interview_ids: [interviewId] } });
      const named = await api(sb, 'GET', `${E}/deliverable/draft/evidences/${evidenceId}/preview`);
      expect(named.json.data.speaker).toBe(interview.interviewee_name);
      await api(sb, 'PATCH', `${E}/deliverable/draft`, { body: { attribution: 'by_role', named_interview_ids: [] } });
    }
    expect((await api(sb, 'GET', `${E}/deliverable/draft/evidences/01M1D4MS5080000000GGT70VZZ/preview`)).status).toBe(404);
  });

  it('previews the draft from current data: included documents as readable pages', async () => {
    const r = await api(sb, 'GET', `${E}/deliverable/draft/preview`);
    expect(r.status).toBe(200);
    expect(r.json.data.documents.length).toBeGreaterThan(0);
    const summary = r.json.data.documents.find((d: any) => d.kind === 'executive_summary');
    expect(summary.paragraphs.some((p: any) => p.style === 'bullet')).toBe(true);
    expect(Array.isArray(r.json.data.warnings)).toBe(true);
  });

  it('suggests recommendations through a job, then they can be dismissed', async () => {
    const r = await api(sb, 'POST', `${E}/deliverable/draft/suggest-recommendations`);
    expect(r.status).toBe(202);
    const draft = await finished(clock, async () => {
      const d = (await api(sb, 'GET', `${E}/deliverable/draft`)).json.data;
      return { ...d, status: d.suggestion.status };
    });
    expect(draft.suggested_recommendations).toMatch(/^1\. /);
    const dismissed = await api(sb, 'PATCH', `${E}/deliverable/draft`, { body: { dismiss_suggestion: true } });
    expect(dismissed.json.data.suggested_recommendations).toBeNull();
  });
});

describe('versions and comments', () => {
  it('has the seeded version 1 with three comments, two open with a reply', async () => {
    const v = await api(sb, 'GET', `${E}/deliverable/versions/${VERSION_1}`);
    expect(v.json.data).toMatchObject({ number: 1, stage: 'interim', comments_count: 3, open_comments_count: 2 });
    const c = await api(sb, 'GET', `${E}/deliverable/versions/${VERSION_1}/comments`);
    const open = c.json.data.filter((x: any) => x.status === 'open');
    expect(open).toHaveLength(2);
    for (const o of open) expect(o.replies).toHaveLength(1);
    const snap = await api(sb, 'GET', `${E}/deliverable/versions/${VERSION_1}/snapshot`);
    expect(snap.json.data.stage).toBe('interim');
    expect(snap.json.data.documents.map((d: any) => d.kind)).toContain('executive_summary');
  });

  it('replies to a comment and closes it once; closing again is 409', async () => {
    const c = (await api(sb, 'GET', `${E}/deliverable/versions/${VERSION_1}/comments`)).json.data.find((x: any) => x.status === 'open');
    const reply = await api(sb, 'POST', `${E}/deliverable/comments/${c.id}/reply`, { body: { body: 'Corrigé dans la v2.' } });
    expect(reply.status).toBe(200);
    expect(reply.json.data.replies.at(-1).body).toBe('Corrigé dans la v2.');
    const close = await api(sb, 'POST', `${E}/deliverable/comments/${c.id}/close`);
    expect(close.json.data.status).toBe('closed');
    const again = await api(sb, 'POST', `${E}/deliverable/comments/${c.id}/close`);
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('comment.closed');
  });

  it('publishes version N+1 with a snapshot of the included documents and the stage', async () => {
    const r = await api(sb, 'POST', `${E}/deliverable/publish`, { body: { changelog: 'Version finale', stage: 'final' } });
    expect(r.status).toBe(201);
    expect(r.json.data).toMatchObject({ number: 2, stage: 'final', changelog: 'Version finale', comments_count: 0 });
    const snap = (await api(sb, 'GET', `${E}/deliverable/versions/${r.json.data.id}/snapshot`)).json.data;
    const included = (await api(sb, 'GET', `${E}/deliverable/documents?limit=200`)).json.data.filter((d: any) => d.included);
    expect(snap.documents.map((d: any) => d.kind).sort()).toEqual(included.map((d: any) => d.kind).sort());
    const list = await api(sb, 'GET', `${E}/deliverable/versions`);
    expect(list.json.data.map((v: any) => v.number)).toEqual([2, 1]);
  });

  it('refuses to publish a deliverable with no included document', async () => {
    const created = await api(sb, 'POST', '/engagements', { body: { client_company_id: CLIENT, name: 'Audit des notes de frais' } });
    expect(created.status).toBe(201);
    const r = await api(sb, 'POST', `/engagements/${created.json.data.id}/deliverable/publish`, { body: {} });
    expect(r.status).toBe(422);
    // Nor do that engagement's paths reach the Berthier records.
    expect((await api(sb, 'GET', `/engagements/${created.json.data.id}/deliverable/versions/${VERSION_1}`)).status).toBe(404);
  });

  it('keeps versions of one workspace out of another', async () => {
    const globex = sb.workspaces.find((w) => w.slug === 'globex')!;
    const r = await api(sb, 'GET', `${E}/deliverable/versions/${VERSION_1}`, { host: 'globex.localhost', token: globex.tokens.read });
    expect(r.status).toBe(404);
  });
});

describe('exports', () => {
  async function exportFile(body: Record<string, unknown>) {
    const start = await api(sb, 'POST', `${E}/exports`, { body });
    expect(start.status, JSON.stringify(start.json)).toBe(202);
    const id = start.json.data.id;
    await finished(clock, async () => (await api(sb, 'GET', `${E}/exports`)).json.data.find((x: any) => x.id === id));
    const file = await api(sb, 'GET', `${E}/exports/${id}/download`);
    expect(file.status).toBe(200);
    return file;
  }

  const disposition = (r: { headers: Record<string, unknown> }) => String(r.headers['content-disposition']);

  it('answers 409 export.not_ready until the export has finished', async () => {
    const slow = await startSandbox({ port: 0, timeScale: 1, rateLimit: false });
    try {
      const start = await api(slow, 'POST', `${E}/exports`, { body: { kind: 'findings_csv' } });
      const r = await api(slow, 'GET', `${E}/exports/${start.json.data.id}/download`);
      expect(r.status).toBe(409);
      expect(r.json.code).toBe('export.not_ready');
      expect(['queued', 'running']).toContain(r.json.details.status);
    } finally {
      await slow.close();
    }
  });

  it('findings_csv: RFC 4180 with a BOM, a header and one row per finding', async () => {
    const r = await exportFile({ kind: 'findings_csv' });
    expect(r.headers['content-type']).toMatch(/^text\/csv/);
    expect(disposition(r)).toContain('berthier-p2p-findings.csv');
    expect([...r.body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parseCsv(r.body.toString('utf8').slice(1));
    expect(rows[0]).toEqual(['id', 'type', 'statement', 'details', 'review_status', 'process', 'deliverable_category', 'evidence_count', 'created_at']);
    const findings = (await api(sb, 'GET', `${E}/findings?limit=200`)).json.data;
    expect(rows).toHaveLength(findings.length + 1);
    for (const row of rows) expect(row).toHaveLength(9);
    expect(rows.slice(1).map((x) => x[2])).toContain(findings[0].statement);
  });

  it('opportunities_csv: one row per opportunity, accents intact', async () => {
    const r = await exportFile({ kind: 'opportunities_csv' });
    const rows = parseCsv(r.body.toString('utf8').replace(/^\uFEFF/, ''));
    expect(rows[0]?.[1]).toBe('title');
    expect(rows.length).toBeGreaterThan(1);
    expect(r.body.toString('utf8')).toMatch(/[éèà]/);
  });

  it('json_bundle: the engagement with its findings, evidences and processes', async () => {
    const r = await exportFile({ kind: 'json_bundle' });
    const bundle = JSON.parse(r.body.toString('utf8'));
    expect(bundle.engagement.id).toBe(ENGAGEMENT);
    expect(bundle.findings.length).toBeGreaterThan(0);
    expect(bundle.evidences.length).toBeGreaterThan(0);
    expect(bundle.processes[0].steps.length).toBeGreaterThan(0);
  });

  it('bpmn: well-formed BPMN 2.0 with a task per step of the process', async () => {
    const processes = (await api(sb, 'GET', `${E}/deliverable/documents/process_sheets`)).json.data.blocks.filter((b: any) => b.type === 'process');
    const r = await exportFile({ kind: 'bpmn', process_id: processes[0].process_id });
    const xml = r.body.toString('utf8');
    const names = xmlElements(xml);
    expect(names[0]).toBe('bpmn:definitions');
    expect(xml).toContain('xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"');
    expect(names.filter((n) => n === 'bpmn:task').length).toBeGreaterThan(2);
    expect(names).toContain('bpmn:startEvent');
    expect(names).toContain('bpmn:endEvent');
    expect(names.filter((n) => n === 'bpmn:sequenceFlow')).toHaveLength(names.filter((n) => n === 'bpmn:task').length + 1);
  });

  it('printable: a complete HTML5 page', async () => {
    const r = await exportFile({ kind: 'printable' });
    const page = r.body.toString('utf8');
    expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    const names = xmlElements(page.replace(/<meta[^>]*>/g, ''));
    expect(names).toEqual(expect.arrayContaining(['html', 'head', 'title', 'body', 'section', 'h1']));
  });

  it('document_pdf and deliverable_pdf: valid PDF 1.4 with pages and correct xref offsets', async () => {
    const doc = await exportFile({ kind: 'document_pdf', document_kind: 'executive_summary' });
    expect(doc.headers['content-type']).toBe('application/pdf');
    expect(disposition(doc)).toContain('berthier-p2p-executive_summary.pdf');
    expect(doc.body.subarray(0, 8).toString('latin1')).toBe('%PDF-1.4');
    expect(doc.body.toString('latin1')).toContain('/Type /Page ');
    expect(checkPdfXref(doc.body)).toBeGreaterThan(5);

    const whole = await exportFile({ kind: 'deliverable_pdf', deliverable_version_id: VERSION_1 });
    const text = whole.body.toString('latin1');
    const snap = (await api(sb, 'GET', `${E}/deliverable/versions/${VERSION_1}/snapshot`)).json.data;
    // One page at least per document of the version, plus the introduction page.
    expect(text.match(/\/Type \/Page /g)!.length).toBeGreaterThanOrEqual(snap.documents.length + 1);
    checkPdfXref(whole.body);
  });

  it('document_docx and document_pptx: OOXML zips listing [Content_Types].xml', async () => {
    const docx = await exportFile({ kind: 'document_docx', document_kind: 'roadmap' });
    const docxNames = zipNames(docx.body);
    expect(docxNames).toContain('[Content_Types].xml');
    expect(docxNames).toContain('word/document.xml');
    expect(docx.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');

    const pptx = await exportFile({ kind: 'document_pptx', document_kind: 'pain_map' });
    const pptxNames = zipNames(pptx.body);
    expect(pptxNames).toEqual(expect.arrayContaining(['[Content_Types].xml', 'ppt/presentation.xml', 'ppt/slides/slide1.xml', 'ppt/theme/theme1.xml']));
    expect(disposition(pptx)).toContain('berthier-p2p-pain_map.pptx');
  });

  it('document_csv: the table rows and listed items of a document', async () => {
    const r = await exportFile({ kind: 'document_csv', document_kind: 'coverage' });
    const rows = parseCsv(r.body.toString('utf8').replace(/^\uFEFF/, ''));
    expect(rows[0]).toEqual(['block_id', 'item_type', 'item_id', 'text', 'block_title']);
    expect(rows.some((row) => row[1] === 'table_row')).toBe(true);
  });

  it('refuses a document export without document_kind, and a version of nowhere', async () => {
    const a = await api(sb, 'POST', `${E}/exports`, { body: { kind: 'document_pdf' } });
    expect(a.status).toBe(422);
    expect(a.json.details.fields.document_kind).toBeDefined();
    const b = await api(sb, 'POST', `${E}/exports`, { body: { kind: 'deliverable_pdf', deliverable_version_id: '01M1D4MS5080000000GGT70VZZ' } });
    expect(b.status).toBe(422);
  });

  it('lists exports newest first with their state', async () => {
    const r = await api(sb, 'GET', `${E}/exports`);
    expect(r.json.data.length).toBeGreaterThan(5);
    for (const x of r.json.data) expect(x).toMatchObject({ engagement_id: ENGAGEMENT, status: 'succeeded' });
    expect(r.json.data[0].created_at >= r.json.data.at(-1).created_at).toBe(true);
  });
});
