// Upload arguments to multipart parts. A `path` is read only inside the client's declared roots or
// the configured upload folders, checked for size before anything is sent, and streamed from disk
// (fs.openAsBlob) rather than read into memory.
import { openAsBlob } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, relative, sep } from 'node:path';
import type { MultipartBody } from '../api/client.js';
import { InvalidArgumentError } from '../api/errors.js';
import { pathParams, type Operation } from '../operation.js';

export interface UploadArg {
  path?: string;
  text?: string;
  base64?: string;
  filename?: string;
  content_type?: string;
}

const BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf', csv: 'text/csv', json: 'application/json', txt: 'text/plain', md: 'text/markdown',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', xml: 'application/xml', bpmn: 'application/xml',
};

function guessType(name: string, fallback: string): string {
  const ext = name.split('.').pop()?.toLowerCase() ?? '';
  return BY_EXTENSION[ext] ?? fallback;
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}

/** Resolve a local path against the allowed folders; the reason is returned when it is refused. */
export async function checkUploadPath(path: string, allowed: string[], maxBytes: number): Promise<{ real: string; size: number }> {
  if (!isAbsolute(path)) throw new InvalidArgumentError('file.path', `give an absolute path (got ${JSON.stringify(path)})`);
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new InvalidArgumentError('file.path', `no such file: ${path}`);
  }
  const roots: string[] = [];
  for (const a of allowed) {
    try {
      roots.push(await realpath(a));
    } catch {
      // a declared root that does not exist allows nothing
    }
  }
  // Symlinks are resolved first, so a link inside a root cannot point outside it.
  if (!roots.some((r) => isInside(real, r))) {
    throw new InvalidArgumentError(
      'file.path',
      roots.length
        ? `${path} is outside the folders this server may read (${roots.join(', ')}); copy the file into one of them or pass its content as text or base64`
        : 'no folder is open to uploads: the client declared no roots and WORKSPACE_UPLOAD_DIRS is unset; pass the content as text or base64 instead',
    );
  }
  const st = await stat(real);
  if (!st.isFile()) throw new InvalidArgumentError('file.path', `${path} is not a regular file`);
  if (st.size > maxBytes) throw new InvalidArgumentError('file.path', `${path} is ${st.size} bytes, over the ${maxBytes / 1024} KiB limit of this upload`);
  return { real, size: st.size };
}

/** Build the multipart body of an upload operation from its validated arguments. */
export async function toMultipart(op: Operation, args: Record<string, unknown>, allowedDirs: string[]): Promise<MultipartBody> {
  const fields: Record<string, string> = {};
  const files: NonNullable<MultipartBody['files']> = {};
  const maxBytes = (op.maxUploadKib ?? 25600) * 1024;
  const inPath = new Set(pathParams(op.path));
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null || inPath.has(key)) continue;
    if (key !== 'file') {
      fields[key] = typeof value === 'string' ? value : JSON.stringify(value);
      continue;
    }
    const f = value as UploadArg;
    if (f.path !== undefined) {
      const { real } = await checkUploadPath(f.path, allowedDirs, maxBytes);
      const filename = f.filename ?? basename(real);
      const type = f.content_type ?? guessType(filename, 'application/octet-stream');
      files[key] = { blob: await openAsBlob(real, { type }), filename };
    } else if (f.text !== undefined) {
      const filename = f.filename ?? 'upload.txt';
      files[key] = { blob: new Blob([f.text], { type: f.content_type ?? guessType(filename, 'text/plain') }), filename };
    } else if (f.base64 !== undefined) {
      const bytes = Buffer.from(f.base64.replace(/\s+/g, ''), 'base64');
      if (bytes.length > maxBytes) throw new InvalidArgumentError('file.base64', `${bytes.length} bytes, over the ${maxBytes / 1024} KiB limit`);
      const filename = f.filename ?? 'upload.bin';
      files[key] = { blob: new Blob([bytes], { type: f.content_type ?? guessType(filename, 'application/octet-stream') }), filename };
    }
  }
  return { fields, files };
}
