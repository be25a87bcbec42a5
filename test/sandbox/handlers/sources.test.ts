// Sources of the sandbox over real HTTP: artifacts (seeded, uploaded as multipart, downloaded,
// deleted), external sources checked against their published format, and the chat threads.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { call } from '../raw-http.js';

const E = `/engagements/${ENGAGEMENT_AP}`;

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rateLimit: false });
});
afterAll(() => sb.close());
beforeEach(() => sb.admin.reset());

/** A multipart upload, as a browser or the MCP client sends it. */
async function upload(path: string, file: { name: string; type: string; content: string | Buffer }, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append('file', new Blob([file.content], { type: file.type }), file.name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(`${sb.api}${path}`, { method: 'POST', headers: { authorization: `Bearer ${sb.tokens.write}` }, body: form });
  return { status: res.status, json: (await res.json()) as any };
}

async function bytes(path: string) {
  const res = await fetch(`${sb.api}${path}`, { headers: { authorization: `Bearer ${sb.tokens.read}` } });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    disposition: res.headers.get('content-disposition'),
    body: Buffer.from(await res.arrayBuffer()),
  };
}

const validSource = () => ({
  format_version: '1',
  source: { name: 'Tickets support fournisseurs', system: 'Zendesk' },
  items: [
    {
      external_id: 'T-1',
      title: 'Relance paiement',
      body: 'Le fournisseur relance une facture de juillet.',
      occurred_at: '2026-09-02',
      attributes: { priority: 'high' },
    },
    { external_id: 'T-2', title: 'Changement de RIB', body: 'Demande de changement de coordonnées bancaires par e-mail.' },
  ],
});

describe('artifacts', () => {
  it('lists the procedure PDF and the blocked-invoices CSV, without their bytes', async () => {
    const r = await call(sb, 'GET', `${E}/artifacts`);
    expect(r.json.data.map((a: any) => a.filename)).toEqual([
      'Procédure de traitement des factures fournisseurs v3.pdf',
      'extraction_factures_bloquees_septembre.csv',
    ]);
    for (const a of r.json.data) {
      expect(a).not.toHaveProperty('content');
      expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('downloads a valid PDF whose size and hash are the ones recorded', async () => {
    const [pdf] = (await call(sb, 'GET', `${E}/artifacts`)).json.data;
    const d = await bytes(`${E}/artifacts/${pdf.id}/download`);
    expect(d.status).toBe(200);
    expect(d.type).toBe('application/pdf');
    expect(d.disposition).toContain('filename*=UTF-8');
    expect(d.body.length).toBe(pdf.size);
    expect(createHash('sha256').update(d.body).digest('hex')).toBe(pdf.sha256);
    const text = d.body.toString('latin1');
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
    // The cross-reference table points at each object exactly.
    const xref = Number(/startxref\n(\d+)/.exec(text)?.[1]);
    expect(text.slice(xref, xref + 4)).toBe('xref');
    const offsets = [...text.slice(xref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    for (const [i, o] of offsets.entries()) expect(text.slice(o).startsWith(`${i + 1} 0 obj`)).toBe(true);
  });

  it('stores an upload with its size, hash and type, serves it back and makes its text citable', async () => {
    const content = 'fournisseur;montant\nPanneaux du Maine;14220\n';
    const up = await upload(`${E}/artifacts`, { name: 'relances.csv', type: 'text/csv', content });
    expect(up.status).toBe(201);
    expect(up.json.data).toMatchObject({
      filename: 'relances.csv',
      content_type: 'text/csv',
      size: Buffer.byteLength(content),
      sha256: createHash('sha256').update(content).digest('hex'),
      chunk_count: 1,
    });
    const d = await bytes(`${E}/artifacts/${up.json.data.id}/download`);
    expect(d.body.toString('utf8')).toBe(content);
    expect((await call(sb, 'GET', `${E}/artifacts/${up.json.data.id}`)).json.data.id).toBe(up.json.data.id);
  });

  it('refuses an upload without a file', async () => {
    const form = new FormData();
    form.append('note', 'no file');
    const res = await fetch(`${sb.api}${E}/artifacts`, { method: 'POST', headers: { authorization: `Bearer ${sb.tokens.write}` }, body: form });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).details.fields).toHaveProperty('file');
  });

  it('deletes an artifact: it is then unknown', async () => {
    const [, csv] = (await call(sb, 'GET', `${E}/artifacts`)).json.data;
    expect((await call(sb, 'DELETE', `${E}/artifacts/${csv.id}`)).status).toBe(204);
    expect((await call(sb, 'GET', `${E}/artifacts/${csv.id}`)).status).toBe(404);
    expect((await bytes(`${E}/artifacts/${csv.id}/download`)).status).toBe(404);
  });
});

describe('external sources', () => {
  it('has the SAP export with its eight items', async () => {
    const [source] = (await call(sb, 'GET', `${E}/external-sources`)).json.data;
    expect(source).toMatchObject({ name: 'Export SAP - factures en attente', format_version: '1', item_count: 8 });
    const items = (await call(sb, 'GET', `${E}/external-sources/${source.id}/items`)).json.data;
    expect(items).toHaveLength(8);
    expect(items[0]).toMatchObject({ source_id: source.id, external_id: expect.any(String), title: expect.any(String) });
  });

  it('publishes the format of version 1 as a draft 2020-12 JSON Schema, and 404s other versions', async () => {
    const r = await call(sb, 'GET', '/sources/schema/external-source/1');
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      required: ['format_version', 'source', 'items'],
      properties: { items: { items: { required: ['external_id', 'title', 'body'] } } },
    });
    expect((await call(sb, 'GET', '/sources/schema/external-source/2')).status).toBe(404);
  });

  it('stores a conforming file with its items', async () => {
    const up = await upload(
      `${E}/external-sources`,
      { name: 'tickets.json', type: 'application/json', content: JSON.stringify(validSource()) },
      { name: 'Tickets support' },
    );
    expect(up.status).toBe(201);
    expect(up.json.data).toMatchObject({ name: 'Tickets support', system: 'Zendesk', item_count: 2, format_version: '1' });
    const items = (await call(sb, 'GET', `${E}/external-sources/${up.json.data.id}/items`)).json.data;
    expect(items.map((i: any) => i.external_id)).toEqual(['T-1', 'T-2']);
    expect(items[0].attributes).toEqual({ priority: 'high' });
  });

  it('names every mismatch of a file that does not follow the format', async () => {
    const doc: any = validSource();
    doc.format_version = '2';
    delete doc.source.system;
    delete doc.items[1].title;
    doc.items[0].external_id = 'T-2';
    doc.items.push({ external_id: 'T-3', title: 'x', body: 'y', colour: 'red' });
    const up = await upload(`${E}/external-sources`, { name: 'bad.json', type: 'application/json', content: JSON.stringify(doc) }, { name: 'Bad' });
    expect(up.status).toBe(422);
    expect(up.json.code).toBe('validation.failed');
    expect(up.json.details.fields).toEqual({
      format_version: ['must be "1"'],
      'source.system': ['required'],
      'items.1.title': ['required'],
      'items.1.external_id': ['duplicate'],
      'items.2.colour': ['unknown field'],
    });
    expect((await call(sb, 'GET', `${E}/external-sources`)).json.data).toHaveLength(1);
  });

  it('refuses a file that is not JSON', async () => {
    const up = await upload(`${E}/external-sources`, { name: 'x.json', type: 'application/json', content: '{not json' }, { name: 'X' });
    expect(up.status).toBe(422);
    expect(up.json.details.fields.file[0]).toMatch(/JSON/);
  });

  it('deletes a source and its items', async () => {
    const [source] = (await call(sb, 'GET', `${E}/external-sources`)).json.data;
    expect((await call(sb, 'DELETE', `${E}/external-sources/${source.id}`)).status).toBe(204);
    expect((await call(sb, 'GET', `${E}/external-sources/${source.id}/items`)).status).toBe(404);
  });
});

describe('chat threads', () => {
  it('lists the two threads of the engagement with their messages, most recent first', async () => {
    const r = await call(sb, 'GET', `${E}/chat/threads`);
    expect(r.status).toBe(200);
    expect(r.json.data).toHaveLength(2);
    expect(r.json.data[0].title).toBe('Duplicate payment risk');
    for (const t of r.json.data) {
      expect(t.messages.length).toBe(t.message_count);
      expect(t.messages[0].role).toBe('user');
    }
  });
});
