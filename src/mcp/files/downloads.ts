// File answers (downloads, media, recordings): streamed to the download folder under the server's
// file name, sanitised, written to a temp file and renamed so nothing is ever half-written. Only a
// small file's head is ever held in memory (for render/file.ts to show it inline): a 100 MB recording
// goes through in stream-sized chunks, with progress.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ApiFile } from '../../api/client.js';
import { makeDirectory } from '../../fs/directories.js';

/** Bytes of a text file held to show inline: more than any response budget shows. */
const TEXT_HELD_MAX = 80_000;
const IMAGE_INLINE_MAX = 1024 * 1024; // bytes: larger images are only linked

const TEXT_TYPES = /^(text\/|application\/(json|xml|csv|x-bpmn|bpmn\+xml|[a-z.+-]*\+(json|xml)))/i;

/**
 * A file name from the server made safe for the local disk: no directory parts, no control or
 * reserved characters, no leading dots, bounded length. Falls back to `fallback` when nothing is left.
 */
export function safeFileName(name: string | undefined, fallback: string): string {
  let n = basename(String(name ?? '').replace(/\\/g, '/'));
  n = n
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]/g, '_')
    .replace(/^[.\s]+/, '')
    .trim();
  if (n.length > 180) {
    const ext = extname(n).slice(0, 16);
    n = n.slice(0, 180 - ext.length) + ext;
  }
  return n || fallback;
}

async function uniquePath(dir: string, name: string): Promise<string> {
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 0; i < 1000; i++) {
    const candidate = join(dir, i === 0 ? name : `${stem} (${i})${ext}`);
    try {
      await stat(candidate);
    } catch {
      return candidate;
    }
  }
  return join(dir, `${stem}-${randomBytes(4).toString('hex')}${ext}`);
}

interface SavedFile {
  path: string;
  name: string;
  size: number;
  contentType: string;
  /** The first bytes, kept when the file is small text or a small image. */
  head?: Buffer;
}

/** Bytes written so far and the expected total (Content-Length) when the server gave one. */
export type ByteProgress = (done: number, total: number | undefined) => void;

/** A progress report at most every 1% of the file (or every MiB when its size is unknown), and at the end. */
function throttled(report: ByteProgress, total: number | undefined): { step(n: number): void; end(n: number): void } {
  const every = total ? Math.max(64 * 1024, Math.ceil(total / 100)) : 1024 * 1024;
  let last = 0;
  return {
    step(n) {
      if (n - last >= every) {
        last = n;
        report(n, total);
      }
    },
    end(n) {
      if (n > last) report(n, total);
    },
  };
}

/** Stream `file` into `dir`; keeps the head in memory only when it may be shown inline. */
export async function saveFile(file: ApiFile, dir: string, fallbackName: string, signal?: AbortSignal, onProgress?: ByteProgress): Promise<SavedFile> {
  await makeDirectory(dir, 0o700);
  const name = safeFileName(file.filename, fallbackName);
  const target = await uniquePath(dir, name);
  const temp = join(dir, `.${basename(target)}.${randomBytes(4).toString('hex')}.part`);
  const keep = TEXT_TYPES.test(file.contentType) ? TEXT_HELD_MAX : /^image\//i.test(file.contentType) ? IMAGE_INLINE_MAX : 0;
  const chunks: Buffer[] = [];
  let kept = 0;
  let size = 0;
  let overflow = false;
  const progress = onProgress ? throttled(onProgress, file.size) : undefined;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      progress?.step(size);
      if (keep && !overflow) {
        if (kept + chunk.length <= keep) {
          chunks.push(chunk);
          kept += chunk.length;
        } else {
          overflow = true;
          chunks.length = 0; // too big to show: do not hold it
        }
      }
      cb(null, chunk);
    },
  });
  try {
    await pipeline(file.body, tap, createWriteStream(temp, { mode: 0o600 }), signal ? { signal } : {});
    await rename(temp, target);
    progress?.end(size);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  const saved: SavedFile = { path: target, name: basename(target), size, contentType: file.contentType };
  if (keep && !overflow) saved.head = Buffer.concat(chunks);
  return saved;
}
