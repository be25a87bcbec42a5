// A tool result as its reviewed snapshot holds it (test/mcp/result-snapshots): its structuredContent,
// the source of truth, and its content, the view the model reads, with what differs from run to run
// replaced by a placeholder: the time of the run (records created or changed during the test), ids
// minted during it (ULIDs carry their creation time), and where files were saved. Everything else is
// the sandbox's deterministic demo data, so a change to what a tool answers shows up as a diff.
import { createHash } from 'node:crypto';
import { decodeTime } from 'ulid';
import { expect } from 'vitest';

const ULID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;
const ISO = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})\b/g;
/** A value within this of the run's clock was made during the run, not seeded. */
const RUN_WINDOW_MS = 2 * 86_400_000;

/** When a ULID was minted; NaN for 26 capitals that are no ULID (a time past the last one a ULID holds). */
function ulidTime(id: string): number {
  try {
    return decodeTime(id);
  } catch {
    return Number.NaN;
  }
}

const ofThisRun = (ms: number) => Math.abs(ms - Date.now()) < RUN_WINDOW_MS;

export interface SnapshotScrub {
  /** Folders files are saved to: shown as `<downloads>`. */
  folders?: readonly string[];
}

/** The result with what changes from run to run replaced; new ids numbered in order of appearance. */
export function scrubResult(result: unknown, scrub: SnapshotScrub = {}): unknown {
  const ids = new Map<string, string>();
  const text = (s: string): string => {
    let out = s;
    for (const folder of scrub.folders ?? []) {
      out = out.split(`file://${encodeURI(folder)}`).join('file://<downloads>');
      out = out.split(folder).join('<downloads>');
    }
    // Saved files are named after their operation and the time they were saved.
    out = out.replace(/(<downloads>\/[\w-]+?)-\d{13}(?=[./\s"]|$)/g, '$1-<time>');
    out = out.replace(ISO, (t) => (ofThisRun(Date.parse(t)) ? '<time of the run>' : t));
    return out.replace(ULID, (id) => {
      if (!ofThisRun(ulidTime(id))) return id;
      let name = ids.get(id);
      if (!name) {
        name = `<new id ${ids.size + 1}>`;
        ids.set(id, name);
      }
      return name;
    });
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    // An image inline: its size and digest stand for its bytes (the demo's images are deterministic).
    if (v && typeof v === 'object' && (v as { type?: unknown }).type === 'image' && typeof (v as { data?: unknown }).data === 'string') {
      const data = (v as { data: string }).data;
      return { ...v, data: `<${Buffer.from(data, 'base64').length} bytes, sha256 ${createHash('sha256').update(data).digest('hex').slice(0, 16)}>` };
    }
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(result);
}

/** Compare a tool's result with its reviewed snapshot (`npm run snapshots` rewrites them). */
export async function expectResultSnapshot(
  name: string,
  result: { structuredContent?: unknown; content?: unknown; isError?: unknown },
  scrub: SnapshotScrub = {},
) {
  const kept = {
    ...(result.isError ? { isError: true } : {}),
    structuredContent: result.structuredContent ?? null,
    content: result.content ?? [],
  };
  await expect(`${JSON.stringify(scrubResult(kept, scrub), null, 2)}\n`, name).toMatchFileSnapshot(
    new URL(`../mcp/result-snapshots/${name}.json`, import.meta.url).pathname,
  );
}
