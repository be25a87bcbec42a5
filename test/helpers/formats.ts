// Small, strict readers for the files exports produce, so a test opens each file as its format
// rather than trusting its name: RFC 4180 CSV, well-formed XML, the skeleton of a PDF, a ZIP package.
import { inflateRawSync } from 'node:zlib';

/** RFC 4180: quoted fields with doubled quotes, CRLF or LF records; throws on a malformed quote. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  const s = text.replace(/^\uFEFF/, '');
  while (i < s.length) {
    const c = s[i]!;
    if (quoted) {
      if (c === '"' && s[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') {
        quoted = false;
        i++;
        if (i < s.length && !',\r\n'.includes(s[i]!)) throw new Error(`CSV: text after a closing quote at ${i}`);
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"') {
      if (field !== '') throw new Error(`CSV: quote inside an unquoted field at ${i}`);
      quoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && s[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
    i++;
  }
  if (quoted) throw new Error('CSV: unterminated quoted field');
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Throws unless `xml` is well-formed: one root, every tag closed in order, attributes quoted once each. */
export function assertWellFormedXml(xml: string): { root: string; elements: number } {
  const tags: string[] = [];
  let root = '';
  let elements = 0;
  let rootClosed = false;
  const re =
    /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[[\s\S]*?\]\]>|<!DOCTYPE[^>]*>|<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[A-Za-z_][\w:.-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/g;
  let last = 0;
  for (const m of xml.matchAll(re)) {
    const between = xml.slice(last, m.index);
    if (/[<]/.test(between)) throw new Error(`XML: malformed markup near ${JSON.stringify(between.slice(between.indexOf('<'), between.indexOf('<') + 40))}`);
    if (/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(between)) throw new Error('XML: bare & in text');
    if (rootClosed && between.trim()) throw new Error('XML: text after the root element');
    last = m.index + m[0].length;
    const [, closing, name, attrs, selfClosing] = m;
    if (!name) continue; // comment, declaration, CDATA
    if (closing) {
      const open = tags.pop();
      if (open !== name) throw new Error(`XML: </${name}> closes <${open ?? 'nothing'}>`);
      if (tags.length === 0) rootClosed = true;
      continue;
    }
    if (rootClosed) throw new Error('XML: a second root element');
    elements++;
    const names = [...(attrs ?? '').matchAll(/([A-Za-z_][\w:.-]*)\s*=/g)].map((a) => a[1]);
    if (new Set(names).size !== names.length) throw new Error(`XML: repeated attribute on <${name}>`);
    if (!root) root = name;
    if (selfClosing) {
      if (tags.length === 0) rootClosed = true;
    } else tags.push(name);
  }
  if (/[<]/.test(xml.slice(last))) throw new Error('XML: malformed markup at the end');
  if (tags.length) throw new Error(`XML: <${tags.at(-1)}> never closed`);
  if (!root) throw new Error('XML: no root element');
  return { root, elements };
}

/** The page count of a PDF, after checking its header and trailer. */
export function pdfPages(bytes: Buffer): number {
  if (!bytes.subarray(0, 5).equals(Buffer.from('%PDF-'))) throw new Error('PDF: does not start with %PDF-');
  const text = bytes.toString('latin1');
  if (!/%%EOF\s*$/.test(text)) throw new Error('PDF: no %%EOF trailer');
  if (!/\bxref\b|\/XRef\b/.test(text)) throw new Error('PDF: no cross-reference table');
  return (text.match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
}

/** The entries of a ZIP archive, read from its central directory, each inflated. */
export function zipEntries(bytes: Buffer): Map<string, Buffer> {
  if (!bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) throw new Error('ZIP: no local file header');
  const eocd = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('ZIP: no end of central directory');
  const count = bytes.readUInt16LE(eocd + 10);
  let at = bytes.readUInt32LE(eocd + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (bytes.readUInt32LE(at) !== 0x02014b50) throw new Error('ZIP: broken central directory');
    const method = bytes.readUInt16LE(at + 10);
    const size = bytes.readUInt32LE(at + 20);
    const nameLen = bytes.readUInt16LE(at + 28);
    const extra = bytes.readUInt16LE(at + 30);
    const comment = bytes.readUInt16LE(at + 32);
    const local = bytes.readUInt32LE(at + 42);
    const name = bytes.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    if (bytes.readUInt32LE(local) !== 0x04034b50) throw new Error(`ZIP: no local header for ${name}`);
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const raw = bytes.subarray(start, start + size);
    entries.set(name, method === 8 ? inflateRawSync(raw) : raw);
    at += 46 + nameLen + extra + comment;
  }
  return entries;
}
