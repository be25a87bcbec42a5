// The export file writers on their own: content that tries to break each format still gives a valid file.
import { crc32, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bpmn } from '../../src/sandbox/files/bpmn.js';
import { csv } from '../../src/sandbox/files/csv.js';
import { html } from '../../src/sandbox/files/html.js';
import { docx, pptx } from '../../src/sandbox/files/ooxml.js';
import type { Rendered } from '../../src/sandbox/files/page.js';
import { pdf } from '../../src/sandbox/files/pdf.js';
import { zip } from '../../src/sandbox/files/zip.js';
import { checkPdfXref, parseCsv, xmlElements, zipNames } from './helpers.js';

const tricky = 'Factures « bloquées » : 3 < 5 & "urgent", (voir \\ SAP) — coût 12 000 €\nligne 2';

const doc: Rendered = {
  title: 'Synthèse (Berthier)',
  pages: [
    {
      title: 'Résumé',
      paragraphs: [
        { style: 'heading', text: tricky },
        { style: 'bullet', text: tricky },
        { style: 'quote', text: 'On ressaisit tout.' },
      ],
    },
    { title: 'Long', paragraphs: Array.from({ length: 120 }, (_, i) => ({ style: 'text' as const, text: `Ligne ${i} ${'mot '.repeat(30)}` })) },
  ],
};

/** The stored bytes of one ZIP entry, inflated, found through its local header. */
function entry(zipBuf: Buffer, name: string): Buffer {
  let at = 0;
  while (zipBuf.readUInt32LE(at) === 0x04034b50) {
    const size = zipBuf.readUInt32LE(at + 18);
    const nameLen = zipBuf.readUInt16LE(at + 26);
    const extra = zipBuf.readUInt16LE(at + 28);
    const entryName = zipBuf.subarray(at + 30, at + 30 + nameLen).toString('utf8');
    const data = zipBuf.subarray(at + 30 + nameLen + extra, at + 30 + nameLen + extra + size);
    if (entryName === name) return inflateRawSync(data);
    at += 30 + nameLen + extra + size;
  }
  throw new Error(`${name} not in zip`);
}

describe('CSV', () => {
  it('round-trips commas, quotes, line breaks and accents, behind a BOM', () => {
    const out = csv(
      ['a', 'b', 'c'],
      [
        [tricky, null, 42],
        [{ k: 'v' }, 'é', ''],
      ],
    );
    expect([...out.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parseCsv(out.toString('utf8').slice(1));
    expect(rows).toEqual([
      ['a', 'b', 'c'],
      [tricky, '', '42'],
      ['{"k":"v"}', 'é', ''],
    ]);
  });
});

describe('ZIP', () => {
  it('stores entries that inflate back to their content with the recorded CRC', () => {
    const z = zip([
      { name: 'a.txt', content: 'bonjour '.repeat(50) },
      { name: 'dossier/é.xml', content: Buffer.from('<x/>') },
    ]);
    expect(zipNames(z)).toEqual(['a.txt', 'dossier/é.xml']);
    const a = entry(z, 'a.txt');
    expect(a.toString()).toBe('bonjour '.repeat(50));
    expect(z.readUInt32LE(14)).toBe(crc32(a));
  });
});

describe('OOXML', () => {
  it('docx: the document part is well-formed XML holding the text', () => {
    const z = docx(doc);
    expect(zipNames(z)).toEqual(['[Content_Types].xml', '_rels/.rels', 'docProps/core.xml', 'word/document.xml']);
    const xml = entry(z, 'word/document.xml').toString('utf8');
    expect(xmlElements(xml)[0]).toBe('w:document');
    expect(xml).toContain('3 &lt; 5 &amp; &quot;urgent&quot;');
    for (const part of ['[Content_Types].xml', '_rels/.rels', 'docProps/core.xml']) xmlElements(entry(z, part).toString('utf8'));
  });

  it('pptx: every part is well-formed, with a slide per page and more for long pages', () => {
    const z = pptx(doc);
    const names = zipNames(z);
    for (const n of names) xmlElements(entry(z, n).toString('utf8'));
    const slides = names.filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n));
    expect(slides.length).toBeGreaterThan(2);
    const types = entry(z, '[Content_Types].xml').toString('utf8');
    for (const s of slides) expect(types).toContain(`PartName="/${s}"`);
  });
});

describe('PDF', () => {
  it('is PDF 1.4 with consistent xref offsets, escaped strings and overflow pages', () => {
    const out = pdf(doc);
    const text = out.toString('latin1');
    expect(text.startsWith('%PDF-1.4\n')).toBe(true);
    expect(checkPdfXref(out)).toBeGreaterThan(6);
    expect(text.match(/\/Type \/Page /g)!.length).toBeGreaterThan(2);
    expect(text).toContain('\\(voir \\\\ SAP\\)');
    // WinAnsi: é is byte 0xE9, € is 0x80.
    expect(out.includes(Buffer.from([0x52, 0xe9, 0x73, 0x75, 0x6d, 0xe9]))).toBe(true);
    expect(out.includes(Buffer.from([0x80]))).toBe(true);
    for (const m of text.matchAll(/<< \/Length (\d+) >>\nstream\n/g)) {
      const start = m.index + m[0].length;
      expect(text.slice(start + Number(m[1]), start + Number(m[1]) + 10)).toBe('\nendstream');
    }
  });
});

describe('BPMN and HTML', () => {
  it('BPMN escapes names and links every node in sequence', () => {
    const xml = bpmn({ id: 'P1', name: 'Factures <fournisseurs> & "paiement"' }, [
      { id: 'S1', name: 'Réception & tri', actor: 'Comptable' },
      { id: 'S2', name: 'Saisie "MIRO"' },
    ]).toString('utf8');
    const names = xmlElements(xml);
    expect(names.filter((n) => n === 'bpmn:sequenceFlow')).toHaveLength(3);
    expect(xml).toContain('sourceRef="StartEvent_1" targetRef="Task_S1"');
    expect(xml).toContain('sourceRef="Task_S2" targetRef="EndEvent_1"');
    expect(names.filter((n) => n === 'bpmndi:BPMNShape')).toHaveLength(4);
  });

  it('HTML is a complete page with escaped text', () => {
    const page = html(doc).toString('utf8');
    expect(page.startsWith('<!DOCTYPE html>\n<html lang="fr">')).toBe(true);
    expect(page).toContain('<title>Synthèse (Berthier)</title>');
    expect(page).toContain('3 &lt; 5 &amp;');
    xmlElements(page.replace(/<meta[^>]*>/g, ''));
  });
});
