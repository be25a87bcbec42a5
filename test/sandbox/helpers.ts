// Helpers of the sandbox handler tests: requests over real HTTP that keep binary bodies, and small
// readers for the export formats (RFC 4180 CSV, XML balance, ZIP directory, PDF xref).
import { request } from 'undici';
import type { SandboxHandle } from '../../src/sandbox/index.js';

export const ENGAGEMENT = '01M1D4MS5080000000GGT70VZH';
export const METHOD = '01M1D4T8Y0V0000000GG4G47GN';
export const VERSION_1 = '01M1D58XP03000001PFT56N701';
export const CLIENT = '01M1D4JYJ0Q00040GRWYN74ED1';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json: any;
}

/** A request to the sandbox (path relative to /api/v1); `host` picks the workspace by Host header. */
export async function api(
  sb: SandboxHandle,
  method: string,
  path: string,
  opts: { body?: unknown; token?: string; host?: string; locale?: 'en' | 'fr' } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${opts.token ?? sb.tokens.write}` };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.locale) headers['accept-language'] = opts.locale;
  if (opts.host) headers.host = `${opts.host}:${new URL(sb.url).port}`;
  const res = await request(`${sb.api}${path}`, {
    method: method as 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  let json: any;
  if (String(res.headers['content-type'] ?? '').startsWith('application/json') && body.length) json = JSON.parse(body.toString('utf8'));
  return { status: res.statusCode, headers: res.headers, body, json };
}

/** RFC 4180: quoted fields may hold commas, CRLF and doubled quotes. Returns rows of fields. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else if (c === '\n') throw new Error(`bare LF at ${i}: RFC 4180 lines end with CRLF`);
    else field += c;
  }
  if (quoted) throw new Error('unterminated quoted field');
  if (field || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Checks that every XML element is closed in order; returns the element names seen. */
export function xmlElements(xml: string): string[] {
  const body = xml.replace(/^<\?xml[^>]*\?>/, '');
  const stack: string[] = [];
  const seen: string[] = [];
  for (const m of body.matchAll(/<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*"[^"]*")*)\s*(\/?)>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/g)) {
    const [, closing, name, , selfClosing] = m;
    if (!name) continue;
    if (closing) {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open}>`);
    } else {
      seen.push(name);
      if (!selfClosing) stack.push(name);
    }
  }
  if (stack.length) throw new Error(`unclosed: ${stack.join(', ')}`);
  // A stray '<' not matched as a tag means malformed markup.
  const tags = body.match(/</g)?.length ?? 0;
  const matched = [...body.matchAll(/<\/?[A-Za-z_][\w:.-]*(?:\s+[\w:.-]+\s*=\s*"[^"]*")*\s*\/?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/g)].length;
  if (tags !== matched) throw new Error(`${tags - matched} malformed tag(s)`);
  return seen;
}

/** Names in a ZIP's central directory, read from the end-of-central-directory record. */
export function zipNames(zip: Buffer): string[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('no end of central directory');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const nameLen = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    names.push(zip.subarray(at + 46, at + 46 + nameLen).toString('utf8'));
    at += 46 + nameLen + extra + comment;
  }
  return names;
}

/** Every xref offset of a PDF points at the object it names. Returns the number of objects. */
export function checkPdfXref(pdf: Buffer): number {
  const text = pdf.toString('latin1');
  const start = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1]);
  if (text.slice(start, start + 4) !== 'xref') throw new Error('startxref does not point at xref');
  const lines = text.slice(start).split('\n');
  const count = Number(lines[1]?.split(' ')[1]);
  for (let n = 1; n < count; n++) {
    const offset = Number(lines[2 + n]?.slice(0, 10));
    if (!text.startsWith(`${n} 0 obj`, offset)) throw new Error(`object ${n} is not at offset ${offset}`);
  }
  return count - 1;
}
