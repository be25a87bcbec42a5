// Upload arguments to multipart parts. A `path` is read only inside the client's declared roots or
// the configured upload folders, checked for size before anything is sent, and streamed from disk
// (fs.openAsBlob) rather than read into memory. In remote mode the server's disk is not the
// member's: client roots are never asked, only the folders the operator opened
// (WORKSPACE_REMOTE_UPLOAD_DIRS, none by default) may be named, and a path outside them is refused
// before the disk is touched, so a member cannot even learn which files exist. The content is
// checked against the type it claims (a "PDF" must start like one), and an external source against the workspace's own format schema,
// so a file the workspace would refuse is refused here, naming every mismatch, with nothing sent.
import { openAsBlob } from 'node:fs';
import { open, readFile, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import type { MultipartBody } from '../../api/client.js';
import { InvalidArgumentError, WorkspaceApiError } from '../../api/errors.js';
import { type Operation, pathParams } from '../../operation.js';

/** What an upload may ask the workspace before it is sent. */
export interface UploadChecks {
  /** The JSON Schema of the external-source format `version`, or undefined when it cannot be asked. */
  externalSourceSchema?(version: string, signal?: AbortSignal): Promise<unknown>;
}

interface UploadArg {
  path?: string;
  text?: string;
  base64?: string;
  filename?: string;
  content_type?: string;
}

const BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  csv: 'text/csv',
  json: 'application/json',
  txt: 'text/plain',
  md: 'text/markdown',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xml: 'application/xml',
  bpmn: 'application/xml',
};

function guessType(name: string, fallback: string): string {
  const ext = name.split('.').pop()?.toLowerCase() ?? '';
  return BY_EXTENSION[ext] ?? fallback;
}

/** Leading bytes of the binary types whose claim can be checked. */
const SIGNATURES: Array<{ type: RegExp; magic: Buffer; what: string }> = [
  { type: /^application\/pdf$/i, magic: Buffer.from('%PDF-'), what: 'a PDF (%PDF-)' },
  { type: /^image\/png$/i, magic: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), what: 'a PNG' },
  { type: /^image\/jpe?g$/i, magic: Buffer.from([0xff, 0xd8, 0xff]), what: 'a JPEG' },
  { type: /^application\/(vnd\.openxmlformats-officedocument\.|zip$)/i, magic: Buffer.from('PK\x03\x04', 'latin1'), what: 'an Office/ZIP package (PK)' },
];

/** Refuse content that is not what its type says: the workspace would store a file nobody can open. */
function checkContentType(field: string, contentType: string, head: Buffer): void {
  // split() always gives at least one part: the default is never taken.
  const [type = ''] = contentType.split(';');
  const base = type.trim();
  const sig = SIGNATURES.find((s) => s.type.test(base));
  if (sig && !head.subarray(0, sig.magic.length).equals(sig.magic)) {
    throw new InvalidArgumentError(
      field,
      `the content is declared ${base} but is not ${sig.what}; give the right content_type (or filename extension) or the right file`,
    );
  }
  if (/^(text\/|application\/(json|xml|csv))/i.test(base) && head.includes(0)) {
    throw new InvalidArgumentError(field, `the content is declared ${base} but holds binary data (NUL bytes); give the right content_type`);
  }
}

async function headOf(path: string, n = 16): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

const validators = new Map<string, z.ZodType>();

/** The mismatches of `doc` against a JSON Schema, one line per field (dotted path). */
function schemaMismatches(schema: unknown, doc: unknown): string[] {
  const key = JSON.stringify(schema);
  let v = validators.get(key);
  if (!v) {
    v = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    validators.set(key, v);
  }
  const r = v.safeParse(doc);
  if (r.success) return [];
  return r.error.issues.map((i) => {
    const at = i.path.map(String).join('.');
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => `${at ? `${at}.` : ''}${k}: unknown field`).join('\n- ');
    return `${at || '(file)'}: ${i.message}`;
  });
}

/** An external source is checked against the format version it names, as the workspace publishes it. */
async function checkExternalSource(content: Buffer | string, checks: UploadChecks | undefined, signal: AbortSignal | undefined): Promise<void> {
  let doc: unknown;
  try {
    doc = JSON.parse(typeof content === 'string' ? content : content.toString('utf8'));
  } catch (err) {
    throw new InvalidArgumentError('file', `an external source must be a JSON file: ${(err as Error).message}`);
  }
  if (!checks?.externalSourceSchema) return;
  const fv = doc !== null && typeof doc === 'object' ? (doc as Record<string, unknown>).format_version : undefined;
  const version = typeof fv === 'string' || typeof fv === 'number' ? String(fv) : '1';
  let schema: unknown;
  try {
    schema = await checks.externalSourceSchema(version, signal);
  } catch (err) {
    if (err instanceof WorkspaceApiError && err.status === 404) {
      throw new InvalidArgumentError(
        'file',
        `format_version ${JSON.stringify(version)} is not a format this workspace knows (GET /sources/schema/external-source/${version} answered 404)`,
      );
    }
    // The workspace validates the upload anyway: a schema we could not fetch only loses the early check.
    return;
  }
  if (!schema || typeof schema !== 'object') return;
  const lines = schemaMismatches(schema, doc);
  if (lines.length) {
    throw new InvalidArgumentError(
      'file',
      `does not match the external-source format ${version} (get_external_source_schema shows it):\n- ${lines.join('\n- ')}`,
    );
  }
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}

/** Where an upload's `path` may point: the folders, and whether they are the server's in a shared (remote) deployment. */
interface UploadFolders {
  dirs: readonly string[];
  /** Remote mode: the folders are the server's (WORKSPACE_REMOTE_UPLOAD_DIRS), shared by every member. */
  remote?: boolean;
}

/** What to send instead of a path the server will not read: the content, with its name and type. */
function sendContentInstead(maxBytes: number): string {
  return `send the file's content instead: file.base64 (its bytes in base64; or file.text for a text file) with file.filename and file.content_type, at most ${maxBytes / 1024} KiB`;
}

/** Resolve a local path against the allowed folders; the reason is returned when it is refused. */
export async function checkUploadPath(path: string, allowed: readonly string[] | UploadFolders, maxBytes: number): Promise<{ real: string; size: number }> {
  const folders: UploadFolders = Array.isArray(allowed) ? { dirs: allowed } : (allowed as UploadFolders);
  const shown = JSON.stringify(path.slice(0, 300));
  if (folders.remote && folders.dirs.length === 0) {
    // Nothing of the replica's disk is open to members: refused without touching it.
    throw new InvalidArgumentError(
      'file.path',
      `got the path ${shown}, but this server is shared and reads no files of its own (a path or a client root names a file on your machine, not on the server); ${sendContentInstead(maxBytes)}`,
    );
  }
  if (!isAbsolute(path)) throw new InvalidArgumentError('file.path', `give an absolute path (got ${shown})`);
  const roots: string[] = [];
  for (const a of folders.dirs) {
    try {
      roots.push(await realpath(a));
    } catch {
      // a declared root that does not exist allows nothing
    }
  }
  const instead = folders.remote
    ? `use a file in one of them or ${sendContentInstead(maxBytes)}`
    : 'copy the file into one of them or pass its content as text or base64';
  const outside = () =>
    new InvalidArgumentError(
      'file.path',
      roots.length
        ? `${path} is outside the folders this server may read (${roots.join(', ')}); ${instead}`
        : folders.remote
          ? `got the path ${shown}, but none of the folders this server may read exists; ${sendContentInstead(maxBytes)}`
          : 'no folder is open to uploads: WORKSPACE_UPLOAD_DIRS is unset and the client offers no roots (only 2025-11-25 clients can); set WORKSPACE_UPLOAD_DIRS to the folders files may be uploaded from, or pass the content as text or base64 instead',
    );
  // The path as written must already name a place inside a folder (given or resolved): a path
  // elsewhere is refused before the disk is asked about it, so a refusal never tells whether it exists.
  const lexical = resolve(path);
  if (!roots.length || ![...roots, ...folders.dirs].some((r) => isInside(lexical, r))) throw outside();
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new InvalidArgumentError('file.path', `no such file: ${path}`);
  }
  // Symlinks are resolved first, so a link inside a root cannot point outside it.
  if (!roots.some((r) => isInside(real, r))) throw outside();
  const st = await stat(real);
  if (!st.isFile()) throw new InvalidArgumentError('file.path', `${path} is not a regular file`);
  if (st.size > maxBytes) throw new InvalidArgumentError('file.path', `${path} is ${st.size} bytes, over the ${maxBytes / 1024} KiB limit of this upload`);
  return { real, size: st.size };
}

/** Build the multipart body of an upload operation from its validated arguments, checked before any request. */
export async function toMultipart(
  op: Operation,
  args: Record<string, unknown>,
  folders: readonly string[] | UploadFolders,
  checks?: UploadChecks,
  signal?: AbortSignal,
): Promise<MultipartBody> {
  const external = op.upload?.format === 'external-source';
  const fields: Record<string, string> = {};
  const files: NonNullable<MultipartBody['files']> = {};
  const maxBytes = (op.upload?.maxKib ?? 25600) * 1024;
  const inPath = new Set(pathParams(op.path));
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null || inPath.has(key)) continue;
    if (key !== 'file') {
      fields[key] = typeof value === 'string' ? value : JSON.stringify(value);
      continue;
    }
    const f = value as UploadArg;
    if (f.path !== undefined) {
      const { real } = await checkUploadPath(f.path, folders, maxBytes);
      const filename = f.filename ?? basename(real);
      const type = f.content_type ?? guessType(filename, external ? 'application/json' : 'application/octet-stream');
      checkContentType('file.path', type, await headOf(real));
      // Read once for the format check (at most the 10 MiB limit); the upload itself streams from disk.
      if (external) await checkExternalSource(await readFile(real), checks, signal);
      files[key] = { blob: await openAsBlob(real, { type }), filename };
    } else if (f.text !== undefined) {
      const filename = f.filename ?? (external ? 'source.json' : 'upload.txt');
      const type = f.content_type ?? guessType(filename, external ? 'application/json' : 'text/plain');
      checkContentType('file.text', type, Buffer.from(f.text.slice(0, 16)));
      if (external) await checkExternalSource(f.text, checks, signal);
      files[key] = { blob: new Blob([f.text], { type }), filename };
    } else if (f.base64 !== undefined) {
      const bytes = Buffer.from(f.base64.replace(/\s+/g, ''), 'base64');
      if (bytes.length > maxBytes) throw new InvalidArgumentError('file.base64', `${bytes.length} bytes, over the ${maxBytes / 1024} KiB limit`);
      const filename = f.filename ?? (external ? 'source.json' : 'upload.bin');
      const type = f.content_type ?? guessType(filename, external ? 'application/json' : 'application/octet-stream');
      checkContentType('file.base64', type, bytes.subarray(0, 16));
      if (external) await checkExternalSource(bytes, checks, signal);
      files[key] = { blob: new Blob([bytes], { type }), filename };
    }
  }
  return { fields, files };
}

/**
 * Bytes of a JSON-RPC request carrying a file of `maxKib` as base64 (4 characters per 3 bytes) with
 * room for the rest of the message: on a shared server content is the way files arrive, so a request
 * must be able to hold the largest file the API takes.
 */
export function messageBytesForUpload(maxKib: number): number {
  return Math.ceil((maxKib * 1024) / 3) * 4 + 64 * 1024;
}

/** What an upload's `file` accepts on a shared (remote) server, in words for the model. */
export function remoteUploadWords(maxKib: number, dirs: readonly string[]): string {
  const content = `the file's content: base64 (its bytes; or text for a text file) with filename and content_type, at most ${maxKib} KiB`;
  return dirs.length
    ? `${content}; or path, only to a file inside ${dirs.join(', ')} on the server (files on your machine must be sent as content)`
    : `${content}. This server is shared: it reads no files, so path is not accepted`;
}

/** An upload's input schema on a shared (remote) server: `file` says what it takes, without `path` unless folders are open. */
export function remoteUploadSchema<S extends object>(schema: S, maxKib: number, dirs: readonly string[]): S {
  const props = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  const file = props.file as { properties?: Record<string, unknown> } | undefined;
  if (!file) return schema;
  const { path: _path, ...contentOnly } = file.properties ?? {};
  return {
    ...schema,
    properties: { ...props, file: { ...file, properties: dirs.length ? file.properties : contentOnly, description: remoteUploadWords(maxKib, dirs) } },
  };
}

/** An upload tool's definition on a shared (remote) server: its description and `file` schema say content is sent in the call. */
export function remoteUploadDefinition<T extends { description?: string; inputSchema: object }>(def: T, maxKib: number, dirs: readonly string[]): T {
  return {
    ...def,
    description:
      `${def.description ?? ''} Send the file's content in the call (file.base64, or file.text for text, with file.filename and file.content_type).`.trim(),
    inputSchema: remoteUploadSchema(def.inputSchema, maxKib, dirs),
  };
}
