// The workspace's live /openapi.json is the authority for what exists (docs/architecture.md, The live description): operations it
// describes that the catalog lacks (engagement listing, the audit chat question, ...) become
// callable, with their input schema taken from the description and marked as generated.
// Fetched once per start at most; kept with its version for a day, on disk for the next start. A
// failed fetch never fails the start: the catalog alone is served, with a warning.
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ARTIFACT_MAX_KIB, ULID_PATTERN } from '../../../catalog/shared.js';
import { uploadFile } from '../../../catalog/sources.js';
import type { ApiClient } from '../../api/client.js';
import { readApiDescription } from '../../api/description.js';
import { makeDirectory } from '../../fs/directories.js';
import type { Logger } from '../../log.js';
import { type HttpMethod, type Operation, pathParams, TOOLSETS, type Toolset } from '../../operation.js';

type Json = Record<string, unknown>;

/** An operation built from the live description: its shown schema is the description's own. */
type GeneratedOperation = Operation & { generated: true; shownInput: Json };

export function isGenerated(op: Operation): op is GeneratedOperation {
  return (op as Partial<GeneratedOperation>).generated === true;
}

export const LIVE_MAX_AGE_MS = 24 * 60 * 60 * 1000;

interface CacheFile {
  origin: string;
  version: string;
  fetched_at: number;
  document: Json;
}

interface LiveDescription {
  version: string;
  fetchedAt: number;
  source: 'network' | 'disk' | 'memory';
  document: Json;
}

interface LoadOptions {
  client: ApiClient;
  /** Workspace origin: keys the caches, so two workspaces never share a description. Unknown: no caching. */
  origin?: string;
  /** Where to keep the description between starts; undefined: memory only. */
  cacheDir?: string;
  logger: Logger;
  now?: () => number;
  maxAgeMs?: number;
}

// One description per origin per process: several sessions of one process fetch it once.
const memory = new Map<string, LiveDescription>();

function cachePath(dir: string, origin: string): string {
  return join(dir, `openapi-${createHash('sha256').update(origin).digest('hex').slice(0, 16)}.json`);
}

async function readCache(file: string, origin: string): Promise<CacheFile | undefined> {
  try {
    const c = JSON.parse(await readFile(file, 'utf8')) as Partial<CacheFile>;
    if (c.origin !== origin || typeof c.fetched_at !== 'number' || !c.document || typeof c.document !== 'object') return undefined;
    return c as CacheFile;
  } catch {
    return undefined;
  }
}

async function writeCache(file: string, c: CacheFile): Promise<void> {
  await makeDirectory(join(file, '..'), 0o700);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(c), { mode: 0o600 });
  await rename(temp, file);
}

/** The live description: from memory, from disk while fresh, else fetched (a stale copy beats none). */
export async function loadLiveDescription(opts: LoadOptions): Promise<LiveDescription | undefined> {
  const now = opts.now ?? Date.now;
  const maxAge = opts.maxAgeMs ?? LIVE_MAX_AGE_MS;
  const origin = opts.origin;
  const mem = origin ? memory.get(origin) : undefined;
  if (mem && now() - mem.fetchedAt < maxAge) return { ...mem, source: 'memory' };
  const file = opts.cacheDir && origin ? cachePath(opts.cacheDir, origin) : undefined;
  const disk = file && origin ? await readCache(file, origin) : undefined;
  if (disk && now() - disk.fetched_at < maxAge) {
    const d: LiveDescription = { version: disk.version, fetchedAt: disk.fetched_at, source: 'disk', document: disk.document };
    if (origin) memory.set(origin, d);
    return d;
  }
  try {
    const doc = await readApiDescription(opts.client);
    const info = doc.info as Json | undefined;
    const d: LiveDescription = { version: String(info?.version ?? 'unknown'), fetchedAt: now(), source: 'network', document: doc };
    if (origin) memory.set(origin, d);
    if (file && origin)
      await writeCache(file, { origin, version: d.version, fetched_at: d.fetchedAt, document: d.document }).catch((err: unknown) =>
        opts.logger.warn({ err: String(err) }, 'could not keep the API description on disk; it will be fetched again next start'),
      );
    return d;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    if (disk) {
      opts.logger.warn({ err: why, version: disk.version }, 'could not refresh the live API description; using the copy from the last start');
      return { version: disk.version, fetchedAt: disk.fetched_at, source: 'disk', document: disk.document };
    }
    opts.logger.warn({ err: why }, 'could not read the live API description: serving the documented operations only');
    return undefined;
  }
}

/** Forget the in-process copies (tests). */
export function forgetLiveDescriptions(): void {
  memory.clear();
}

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Local `$ref`s resolved (bounded depth: a cyclic description cannot loop). */
function deref(doc: Json, node: unknown, depth = 0): unknown {
  if (depth > 12) return {};
  if (Array.isArray(node)) return node.map((n) => deref(doc, n, depth + 1));
  if (!isObject(node)) return node;
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
    let target: unknown = doc;
    for (const part of node.$ref.slice(2).split('/')) target = isObject(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    return deref(doc, target ?? {}, depth + 1);
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = deref(doc, v, depth + 1);
  return out;
}

function snake(s: string): string {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

function zodOf(schema: unknown): z.ZodType {
  if (!isObject(schema) || Object.keys(schema).length === 0) return z.unknown();
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodType;
  } catch {
    return z.unknown();
  }
}

/** A described pattern as a RegExp; undefined when it is not one JavaScript can use. */
function regExpOf(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

// A path parameter can never carry a separator or a dot segment, whatever the description says.
const pathValue = () => z.string().regex(/^[A-Za-z0-9_~-][A-Za-z0-9_.~-]{0,127}$/, 'must be an id or name (letters, digits, _ - . ~)');

/** One operation of the description as a catalog-shaped Operation; undefined when it cannot be called. */
function toOperation(
  doc: Json,
  path: string,
  method: HttpMethod,
  raw: Json,
  taken: Set<string>,
  quotingAreas: ReadonlySet<Toolset> = new Set(),
): GeneratedOperation | undefined {
  const o = deref(doc, raw) as Json;
  const params = (Array.isArray(o.parameters) ? o.parameters : []).filter(isObject);
  const shape: Record<string, z.ZodType> = {};
  const props: Json = {};
  const required: string[] = [];
  for (const p of pathParams(path)) {
    // The description's own pattern (an id's, say) is shown and enforced too, on top of the
    // separator-free rule every path value keeps.
    const described = params.find((x) => x.in === 'path' && x.name === p);
    const pattern = described && isObject(described.schema) && typeof described.schema.pattern === 'string' ? described.schema.pattern : undefined;
    const re = pattern === undefined ? undefined : regExpOf(pattern);
    if (pattern !== undefined && re) {
      shape[p] = pathValue().regex(re, pattern === ULID_PATTERN.source ? 'must be a 26-character ULID' : `must match ${pattern.slice(0, 80)}`);
      props[p] = { type: 'string', pattern };
    } else {
      shape[p] = pathValue();
      props[p] = { type: 'string' };
    }
    required.push(p);
  }
  let hasQuery = false;
  for (const p of params) {
    if (p.in !== 'query' || typeof p.name !== 'string') continue;
    hasQuery = true;
    const s = isObject(p.schema) ? p.schema : {};
    const zs = zodOf(s);
    shape[p.name] = p.required === true ? zs : zs.optional();
    props[p.name] = typeof p.description === 'string' && !('description' in s) ? { ...s, description: p.description } : s;
    if (p.required === true) required.push(p.name);
  }
  let body: Operation['body'] = method === 'GET' || method === 'DELETE' ? 'query' : 'none';
  const content = isObject(o.requestBody) && isObject(o.requestBody.content) ? o.requestBody.content : undefined;
  const json = content && isObject(content['application/json']) ? (content['application/json'] as Json).schema : undefined;
  const multipart = content && isObject(content['multipart/form-data']) ? (content['multipart/form-data'] as Json).schema : undefined;
  const bodySchema = isObject(json) ? json : isObject(multipart) ? multipart : undefined;
  if (bodySchema) {
    if (method === 'GET' || method === 'DELETE') return undefined; // a body on a read: not callable as described
    body = isObject(json) ? 'json' : 'multipart';
    const bprops = isObject(bodySchema.properties) ? bodySchema.properties : {};
    const breq = new Set(Array.isArray(bodySchema.required) ? (bodySchema.required as string[]) : []);
    for (const [k, s] of Object.entries(bprops)) {
      const isFile = body === 'multipart' && isObject(s) && s.format === 'binary';
      const zs = isFile ? uploadFile(ARTIFACT_MAX_KIB) : zodOf(s);
      shape[k] = breq.has(k) ? zs : zs.optional();
      props[k] = isFile ? { type: 'object', description: 'the file: {path} inside an allowed folder, or {text} or {base64} with filename' } : s;
      if (breq.has(k)) required.push(k);
    }
  } else if (hasQuery && method !== 'GET' && method !== 'DELETE') {
    return undefined; // query parameters on a write: the catalog's request shape cannot carry them
  }
  const scope = o['x-scope'] === 'read' || o['x-scope'] === 'write' ? o['x-scope'] : method === 'GET' ? 'read' : 'write';
  const tag = Array.isArray(o.tags) && typeof o.tags[0] === 'string' ? o.tags[0].toLowerCase() : '';
  const toolset: Toolset = (TOOLSETS as readonly string[]).includes(tag) ? (tag as Toolset) : 'integrations';
  let name = snake(typeof o.operationId === 'string' && o.operationId ? o.operationId : `${method}_${path}`);
  if (!name || taken.has(name)) name = `${name || snake(`${method}_${path}`)}_live`;
  if (taken.has(name)) return undefined;
  const ok = (o.responses && isObject(o.responses) ? Object.entries(o.responses) : []).find(([code]) => /^2/.test(code))?.[1];
  const okContent = isObject(ok) && isObject(ok.content) ? Object.keys(ok.content) : ['application/json'];
  const response: Operation['response'] = okContent.length === 0 || okContent.some((t) => /json/.test(t)) ? 'json' : 'file';
  const paginated = 'cursor' in shape && 'limit' in shape;
  const summary = typeof o.summary === 'string' ? o.summary : '';
  const text = (typeof o.description === 'string' && o.description) || summary || `${method} ${path}`;
  const shownInput: Json = { type: 'object', properties: props, ...(required.length ? { required } : {}) };
  return {
    name,
    title: summary || name.replace(/_/g, ' '),
    description: `${text} (generated)`,
    method,
    path,
    scope,
    toolset,
    input: z.strictObject(shape),
    body,
    response,
    paginated,
    reference: false,
    documented: false,
    // An area whose curated answers quote what people wrote quotes it in its other answers too.
    quotesContent: response === 'json' && quotingAreas.has(toolset),
    ...(body === 'multipart' ? { upload: { maxKib: ARTIFACT_MAX_KIB } } : {}),
    annotations: {
      readOnlyHint: scope === 'read',
      destructiveHint: method === 'DELETE',
      idempotentHint: method === 'GET' || method === 'PUT' || method === 'DELETE',
      openWorldHint: false,
    },
    generated: true,
    shownInput,
  };
}

/** Operations of the description whose method and path the catalog does not have. */
export function liveOperations(doc: Json, known: readonly Operation[]): GeneratedOperation[] {
  const have = new Set(known.map((o) => `${o.method} ${o.path}`));
  const taken = new Set(known.map((o) => o.name));
  const quoting = new Set(known.filter((o) => o.quotesContent).map((o) => o.toolset));
  const out: GeneratedOperation[] = [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item) || !path.startsWith('/')) continue;
    for (const method of METHODS) {
      const raw = item[method.toLowerCase()];
      if (!isObject(raw) || have.has(`${method} ${path}`)) continue;
      const op = toOperation(doc, path, method, raw, taken, quoting);
      if (op) {
        taken.add(op.name);
        out.push(op);
      }
    }
  }
  return out;
}
