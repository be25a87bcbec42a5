// Resources: what an assistant reads rather than acts on (an engagement, a finding with its
// evidences, a transcript, a chapter recap, a deliverable document, an export file), addressed by
// URI templates, linked from tool results, and read in full (the response budget is for tool results;
// a client reads a resource when it decides to).
import type { ReadResourceResult, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
import { catalog } from '../../../catalog/index.js';
import { BodyTooLarge, readBody } from '../../net/http-io.js';
import type { Operation, ResourceFacet } from '../../operation.js';
import { splitTemplate } from '../../path-template.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { ResourceLink } from '../render/index.js';
import { shownName } from './registry.js';

export const SCHEME = 'workspace';

/** A resource template: the catalog's resource facet and the operation that reads it. */
interface TemplateSpec extends ResourceFacet {
  op: Operation;
}

/** Every resource template, in catalog order: the operations that carry a resource facet. */
export const TEMPLATES: readonly TemplateSpec[] = catalog.flatMap((op) => (op.resource ? [{ ...op.resource, op }] : []));

function expand(template: string, vars: Record<string, string>): string {
  const { text, names } = splitTemplate(template);
  let out = text[0] as string;
  for (let i = 0; i < names.length; i++) out += encodeURIComponent(vars[names[i] as string] ?? '') + (text[i + 1] as string);
  return out;
}

/** The URI of one resource of this server, by the resource's name: `resourceUri('engagement', {engagement})`. */
export function resourceUri(name: string, vars: Record<string, string>): string {
  const spec = TEMPLATES.find((t) => t.name === name);
  if (!spec) throw new Error(`no resource template named ${name}`);
  return expand(spec.uriTemplate, vars);
}

/** The template and its variables for a URI of this server, or undefined. */
function matchUri(uri: string): { spec: TemplateSpec; vars: Record<string, string> } | undefined {
  for (const spec of TEMPLATES) {
    const names: string[] = [];
    const pattern = spec.uriTemplate.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{([A-Za-z_]+)\\?\}/g, (_, k: string) => {
      names.push(k);
      return '([^/?#]+)';
    });
    const m = new RegExp(`^${pattern}$`).exec(uri);
    if (!m) continue;
    const vars: Record<string, string> = {};
    names.forEach((n, i) => {
      vars[n] = decodeURIComponent(m[i + 1] ?? '');
    });
    return { spec, vars };
  }
  return undefined;
}

export function resourceTemplates(): ResourceTemplateType[] {
  return TEMPLATES.map((t) => ({ uriTemplate: t.uriTemplate, name: t.name, title: t.title, description: t.description, mimeType: t.mimeType }));
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** How many records of a list answer get a link each. */
const MAX_LIST_LINKS = 10;

/**
 * Links from a tool result to the resources it touched, so a client can open them in full: the
 * resource the operation reads (its resource facet) or the one it names (linksTo), its variables
 * filled from the call's arguments and, for the one the arguments lack, the id of the record
 * answered (of each record, for a list).
 */
export function linksFor(op: Operation, args: Record<string, unknown>, data: unknown): ResourceLink[] {
  const spec = op.resource ? TEMPLATES.find((t) => t.op === op) : op.linksTo ? TEMPLATES.find((t) => t.name === op.linksTo) : undefined;
  if (!spec) return [];
  const { names } = splitTemplate(spec.uriTemplate);
  const link = (rec: Record<string, unknown>): ResourceLink[] => {
    const vars: Record<string, string> = {};
    const missing: string[] = [];
    for (const n of names) {
      const v = str(args[n]);
      if (v) vars[n] = v;
      else missing.push(n);
    }
    // At most one variable can come from the record: its own id.
    if (missing.length > 1) return [];
    if (missing.length === 1) {
      const id = str(rec.id);
      if (!id) return [];
      vars[missing[0] as string] = id;
    }
    const label = str(rec.name) ?? str(rec.title) ?? `${spec.name.replace(/_/g, ' ')} ${names.map((n) => vars[n]).join(' ')}`;
    return [{ type: 'resource_link', uri: expand(spec.uriTemplate, vars), name: label, mimeType: spec.mimeType }];
  };
  if (Array.isArray(data)) return data.slice(0, MAX_LIST_LINKS).flatMap((r) => (isRecord(r) ? link(r) : []));
  return link(isRecord(data) ? data : {});
}

const FILE_MAX_BYTES = 10 * 1024 * 1024;
const TEXTUAL = /^(text\/|application\/(json|xml|csv|[a-z.+-]*\+(json|xml)))/i;

export class ResourceError extends Error {
  constructor(
    message: string,
    /** No such resource (answered as the protocol's resource-not-found), rather than one that cannot be read. */
    readonly notFound: boolean,
  ) {
    super(message);
  }
}

/** Resources read through the pipeline: the session's policy, the operation's validation, the token's limiter. */
interface ResourceDeps {
  pipeline: Pipeline;
}

/**
 * The operation's answer through the pipeline. URI variables it refuses (an id that is not a ULID)
 * send nothing: the pipeline throws InvocationRefused, which resources/read answers as invalid params.
 */
function readThrough(deps: ResourceDeps, op: Operation, args: Record<string, unknown>, signal: AbortSignal) {
  return deps.pipeline.invoke(op.name, args, { signal });
}

/** The file's bytes, refused past `max` (the rest is not read: the stream is destroyed). */
async function readFile(body: NodeJS.ReadableStream, max: number): Promise<Buffer> {
  try {
    return await readBody(body as NodeJS.ReadableStream & AsyncIterable<Buffer>, max);
  } catch (e) {
    if (!(e instanceof BodyTooLarge)) throw e;
    (body as unknown as { destroy?: () => void }).destroy?.();
    throw new ResourceError(`The file is larger than ${max / 1024 / 1024} MB: download it with download_export instead.`, false);
  }
}

export async function readResource(deps: ResourceDeps, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
  const m = matchUri(uri);
  if (!m) throw new ResourceError(`Unknown resource ${shownName(uri, 200)}: see resources/templates/list.`, true);
  const registry = deps.pipeline.registry;
  await registry.operations.ready();
  const op = registry.callable().find((o) => o === m.spec.op);
  if (!op) throw new ResourceError(`This workspace does not offer ${m.spec.title.toLowerCase()} resources.`, true);
  const res = await readThrough(deps, op, m.vars, signal);
  if (res.file) {
    const buf = await readFile(res.file.body, FILE_MAX_BYTES);
    const mimeType = res.file.contentType.split(';')[0]?.trim() || 'application/octet-stream';
    if (TEXTUAL.test(mimeType)) return { contents: [{ uri, mimeType, text: buf.toString('utf8') }] };
    return { contents: [{ uri, mimeType, blob: buf.toString('base64') }] };
  }
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(res.data ?? null) }] };
}

/** resources/list: the engagements of the workspace (first page), each as its resource. */
export async function listResources(deps: ResourceDeps, signal: AbortSignal): Promise<Resource[]> {
  const registry = deps.pipeline.registry;
  await registry.operations.ready();
  const op = registry.callable().find((o) => o.linksTo === 'engagement' && o.paginated);
  if (!op) return [];
  const res = await readThrough(deps, op, { limit: 100 }, signal);
  const items = Array.isArray(res.data) ? (res.data as Record<string, unknown>[]) : [];
  return items
    .filter((e) => typeof e.id === 'string')
    .map((e) => ({
      uri: resourceUri('engagement', { engagement: e.id as string }),
      name: String(e.name ?? e.id),
      title: String(e.name ?? e.id),
      mimeType: 'application/json',
      ...(typeof e.status === 'string' ? { description: `Engagement (${e.status})` } : { description: 'Engagement' }),
    }));
}
