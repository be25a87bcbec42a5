// A small valid PDF 1.4 writer: one page (or more, when text overflows) per Page, Helvetica text in
// WinAnsi encoding, and a cross-reference table whose offsets are counted in bytes of the output.
import type { Page, Rendered } from './page.js';

const PAGE_W = 595; // A4 in points
const PAGE_H = 842;
const MARGIN = 56;
const LINE = 14;
const WRAP = 92; // characters per line at 10 pt Helvetica over the text width, roughly
const LINES_PER_PAGE = Math.floor((PAGE_H - 2 * MARGIN - 30) / LINE);

// Characters outside Latin-1 that WinAnsi still holds (typographic quotes, dashes, euro, ellipsis).
const WIN_ANSI: Record<string, number> = {
  '€': 0x80,
  '‚': 0x82,
  '„': 0x84,
  '…': 0x85,
  '‘': 0x91,
  '’': 0x92,
  '“': 0x93,
  '”': 0x94,
  '•': 0x95,
  '–': 0x96,
  '—': 0x97,
  œ: 0x9c,
  Œ: 0x8c,
};

/** A PDF literal string: WinAnsi bytes, with (, ) and \ escaped and non-encodable characters as '?'. */
function pdfString(text: string): string {
  let out = '';
  for (const ch of text.replace(/\u00a0|\u202f/g, ' ')) {
    const code = ch.codePointAt(0) ?? 63;
    const byte = WIN_ANSI[ch] ?? (code >= 0x20 && code <= 0xff && !(code >= 0x7f && code < 0xa0) ? code : 63);
    const c = String.fromCharCode(byte);
    out += c === '(' || c === ')' || c === '\\' ? `\\${c}` : c;
  }
  return `(${out})`;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const para of text.split(/\r?\n/)) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = '';
      }
      line = line ? `${line} ${word}` : word.length > width ? word.slice(0, width) : word;
    }
    lines.push(line);
  }
  return lines;
}

interface Line {
  font: 'F1' | 'F2';
  size: number;
  indent: number;
  text: string;
}

function layout(page: Page): Line[][] {
  const lines: Line[] = [];
  for (const p of page.paragraphs) {
    if (p.style === 'heading') {
      lines.push({ font: 'F2', size: 12, indent: 0, text: '' });
      for (const t of wrap(p.text, WRAP - 10)) lines.push({ font: 'F2', size: 12, indent: 0, text: t });
    } else {
      const prefix = p.style === 'bullet' ? '- ' : p.style === 'quote' ? '« ' : '';
      const suffix = p.style === 'quote' ? ' »' : '';
      const wrapped = wrap(prefix + p.text + suffix, WRAP - 4);
      for (const [i, t] of wrapped.entries()) lines.push({ font: 'F1', size: 10, indent: i > 0 && prefix ? 12 : 0, text: t });
    }
  }
  const chunks: Line[][] = [];
  for (let i = 0; i < lines.length; i += LINES_PER_PAGE) chunks.push(lines.slice(i, i + LINES_PER_PAGE));
  return chunks.length ? chunks : [[]];
}

function contentStream(title: string, lines: Line[]): string {
  const ops = ['BT', `/F2 16 Tf`, `${MARGIN} ${PAGE_H - MARGIN} Td`, `${pdfString(title)} Tj`, 'ET'];
  let y = PAGE_H - MARGIN - 30;
  for (const l of lines) {
    if (l.text) ops.push('BT', `/${l.font} ${l.size} Tf`, `${MARGIN + l.indent} ${y} Td`, `${pdfString(l.text)} Tj`, 'ET');
    y -= LINE;
  }
  return ops.join('\n');
}

export function pdf(doc: Rendered): Buffer {
  // Object numbers: 1 catalog, 2 pages, 3 regular font, 4 bold font, 5 info, then page/content pairs.
  const pages: { title: string; lines: Line[] }[] = [];
  for (const p of doc.pages.length ? doc.pages : [{ title: doc.title, paragraphs: [] }]) {
    for (const [i, lines] of layout(p).entries()) pages.push({ title: i === 0 ? p.title : `${p.title} (suite)`, lines });
  }
  const objects: string[] = [];
  const kids = pages.map((_, i) => `${6 + 2 * i} 0 R`).join(' ');
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  objects.push(`<< /Title ${pdfString(doc.title)} /Producer (Workspace Consulting sandbox) >>`);
  pages.forEach((p, i) => {
    const stream = contentStream(p.title, p.lines);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_W} ${PAGE_H}] ` + `/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${7 + 2 * i} 0 R >>`,
    );
    objects.push(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
  });

  // Everything is built as latin1 text so string length equals byte length for the xref offsets.
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 5 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
