// Every export kind and every document kind, requested, followed and downloaded by one create_export
// call against the sandbox over HTTP; each file is then opened as its format.
import { readFile } from 'node:fs/promises';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_KINDS, EXPORT_KINDS } from '../../../../catalog/shared.js';
import { ENGAGEMENT_AP } from '../../../../src/sandbox/data/ids.js';
import { assertWellFormedXml, parseCsv, pdfPages, zipEntries } from '../../../helpers/formats.js';
import { type Stack, startStack, textOf } from '../../../helpers/stack.js';

type Json = Record<string, any>;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    sandbox: { timeScale: 0.01 },
    env: { WORKSPACE_RATE_LIMIT: '120/0.6', WORKSPACE_JOB_WAIT_SECONDS: '20' },
  });
});
afterAll(() => stack.close());

async function exportFile(args: Json): Promise<{ result: CallToolResult; file: Json; bytes: Buffer }> {
  const result = await stack.call('create_export', { engagement: ENGAGEMENT_AP, ...args });
  expect(result.isError, textOf(result)).toBeFalsy();
  const s = result.structuredContent as Json;
  expect(s.state).toBe('succeeded');
  const file = s.file as Json;
  expect(file.path.startsWith(stack.config.downloadDir)).toBe(true);
  const bytes = await readFile(file.path);
  expect(bytes.length).toBe(file.size);
  // The answer links the saved file, and its text says where it is: a client may show no link.
  expect(result.content.some((c) => c.type === 'resource_link' && c.uri.startsWith('file://'))).toBe(true);
  const said = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  expect(said).toMatch(/^The export \S+ succeeded/);
  expect(said).toContain(`Saved ${file.name} (${file.size} bytes, ${String(file.content_type).split(';')[0]}) to ${file.path}.`);
  return { result, file, bytes };
}

/** An OOXML package: its main part present, and every XML part inside well-formed. */
function officePackage(bytes: Buffer, main: string): void {
  const entries = zipEntries(bytes);
  expect([...entries.keys()]).toEqual(expect.arrayContaining(['[Content_Types].xml', main]));
  for (const [name, content] of entries) if (/\.(xml|rels)$/.test(name)) assertWellFormedXml(content.toString('utf8'));
}

/** What each export kind is checked for once opened. */
const CHECKS: Record<string, (bytes: Buffer, file: Json) => void> = {
  bpmn: (b) => {
    const { root, elements } = assertWellFormedXml(b.toString('utf8'));
    expect(root).toMatch(/(^|:)definitions$/);
    expect(elements).toBeGreaterThan(3);
  },
  findings_csv: (b) => {
    const rows = parseCsv(b.toString('utf8'));
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((r) => r.length === rows[0]!.length)).toBe(true);
  },
  opportunities_csv: (b) => {
    const rows = parseCsv(b.toString('utf8'));
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((r) => r.length === rows[0]!.length)).toBe(true);
  },
  json_bundle: (b) => {
    const doc = JSON.parse(b.toString('utf8')) as Json;
    expect(typeof doc).toBe('object');
    expect(JSON.stringify(doc)).toContain(ENGAGEMENT_AP);
  },
  printable: (b) => {
    const html = b.toString('utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    expect(html).toMatch(/<\/html>\s*$/);
  },
  document_pdf: (b) => expect(pdfPages(b)).toBeGreaterThanOrEqual(1),
  deliverable_pdf: (b) => expect(pdfPages(b)).toBeGreaterThanOrEqual(1),
  document_docx: (b) => officePackage(b, 'word/document.xml'),
  document_pptx: (b) => officePackage(b, 'ppt/presentation.xml'),
  document_csv: (b) => {
    const rows = parseCsv(b.toString('utf8'));
    expect(rows.length).toBeGreaterThanOrEqual(1);
  },
};

describe('create_export: one call requests, follows and downloads', () => {
  it('has a check for every export kind of the spec', () => {
    expect(Object.keys(CHECKS).sort()).toEqual([...EXPORT_KINDS].sort());
  });

  it.each([...EXPORT_KINDS])('%s: the file opens as its format', async (kind) => {
    const args: Json = { kind };
    if (kind.startsWith('document_')) args.document_kind = 'executive_summary';
    const { bytes, file } = await exportFile(args);
    CHECKS[kind]!(bytes, file);
  });

  it.each([...DOCUMENT_KINDS])('document kind %s exports as a PDF with pages', async (documentKind) => {
    const { bytes, file } = await exportFile({ kind: 'document_pdf', document_kind: documentKind });
    // An earlier test may have saved the same name: the download never overwrites, it numbers.
    expect(file.name).toMatch(new RegExp(`${documentKind}( \\(\\d+\\))?\\.pdf$`));
    expect(pdfPages(bytes)).toBeGreaterThanOrEqual(1);
  });

  it('small text files are also shown inline', async () => {
    const { result, bytes } = await exportFile({ kind: 'findings_csv' });
    const inline = result.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);
    expect(inline.some((t) => t === bytes.toString('utf8').replace(/^\uFEFF/, ''))).toBe(true);
  });
});
