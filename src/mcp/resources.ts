// Resources: what an assistant reads rather than acts on (an engagement, a finding with its
// evidences, a transcript, a chapter recap, a deliverable document, an export file), addressed by
// URI templates, linked from tool results, and read in full (the response budget is for tool results;
// a client reads a resource when it decides to).
import type { ReadResourceResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { ApiClient } from '../api/client.js';
import type { Operation } from '../operation.js';
import type { ToolRegistry } from './registry.js';
import type { ResourceLink } from './render/index.js';

export const SCHEME = 'workspace';

export interface TemplateSpec {
  name: string;
  title: string;
  uriTemplate: string;
  description: string;
  mimeType: string;
  /** The operation that reads it, by method and path. */
  method: 'GET';
  path: string;
}

export const TEMPLATES: readonly TemplateSpec[] = [
  { name: 'engagement', title: 'Engagement', uriTemplate: `${SCHEME}://engagements/{engagement}`, description: 'One engagement: client, method, dates, status.', mimeType: 'application/json', method: 'GET', path: '/engagements/{engagement}' },
  { name: 'finding', title: 'Finding with its evidences', uriTemplate: `${SCHEME}://engagements/{engagement}/findings/{finding}`, description: 'One finding with its evidences (transcript excerpts, frames, artifacts).', mimeType: 'application/json', method: 'GET', path: '/engagements/{engagement}/findings/{finding}' },
  { name: 'transcript', title: 'Session transcript', uriTemplate: `${SCHEME}://sessions/{session}/transcript`, description: 'The full transcript of an interview session.', mimeType: 'application/json', method: 'GET', path: '/sessions/{session}/transcript' },
  { name: 'chapter_recap', title: 'Chapter recap', uriTemplate: `${SCHEME}://interviews/{interview}/chapters/{chapter}/recap`, description: 'The recap of one chapter of an interview.', mimeType: 'application/json', method: 'GET', path: '/interviews/{interview}/chapters/{chapter}/recap' },
  { name: 'deliverable_document', title: 'Deliverable document', uriTemplate: `${SCHEME}://engagements/{engagement}/documents/{kind}`, description: 'One document of the deliverable (executive summary, roadmap, ...) with its blocks.', mimeType: 'application/json', method: 'GET', path: '/engagements/{engagement}/deliverable/documents/{kind}' },
  { name: 'export_file', title: 'Export file', uriTemplate: `${SCHEME}://engagements/{engagement}/exports/{export}/file`, description: 'The file of a finished export (PDF, DOCX, PPTX, CSV, BPMN, JSON).', mimeType: 'application/octet-stream', method: 'GET', path: '/engagements/{engagement}/exports/{export}/download' },
];

const VAR = /\{([A-Za-z_]+)\}/g;

export function expand(template: string, vars: Record<string, string>): string {
  return template.replace(VAR, (_, k: string) => encodeURIComponent(vars[k] ?? ''));
}

/** The template and its variables for a URI of this server, or undefined. */
export function matchUri(uri: string): { spec: TemplateSpec; vars: Record<string, string> } | undefined {
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

export function resourceTemplates(): ResourceTemplate[] {
  return TEMPLATES.map((t) => ({ uriTemplate: t.uriTemplate, name: t.name, title: t.title, description: t.description, mimeType: t.mimeType }));
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** Links from a tool result to the resources it touched, so a client can open them in full. */
export function linksFor(op: Operation, args: Record<string, unknown>, data: unknown): ResourceLink[] {
  const rec = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  const link = (name: string, vars: Record<string, string | undefined>, label: string): ResourceLink[] => {
    const spec = TEMPLATES.find((t) => t.name === name);
    if (!spec || Object.values(vars).some((v) => !v)) return [];
    return [{ type: 'resource_link', uri: expand(spec.uriTemplate, vars as Record<string, string>), name: label, mimeType: spec.mimeType }];
  };
  const engagement = str(args.engagement);
  switch (`${op.method} ${op.path}`) {
    case 'GET /engagements':
      return (Array.isArray(data) ? data : []).slice(0, 10).flatMap((e: Record<string, unknown>) => link('engagement', { engagement: str(e.id) }, String(e.name ?? e.id)));
    case 'GET /engagements/{engagement}':
      return link('engagement', { engagement }, String(rec.name ?? `engagement ${engagement}`));
    case 'GET /engagements/{engagement}/findings/{finding}':
    case 'PATCH /engagements/{engagement}/findings/{finding}':
    case 'POST /engagements/{engagement}/findings':
      return link('finding', { engagement, finding: str(args.finding) ?? str(rec.id) }, `finding ${str(args.finding) ?? str(rec.id)}`);
    case 'GET /sessions/{session}/transcript':
      return link('transcript', { session: str(args.session) }, `transcript of session ${String(args.session)}`);
    case 'GET /interviews/{interview}/chapters/{chapter}/recap':
      return link('chapter_recap', { interview: str(args.interview), chapter: str(args.chapter) }, `recap of chapter ${String(args.chapter)}`);
    case 'GET /engagements/{engagement}/deliverable/documents/{kind}':
    case 'PATCH /engagements/{engagement}/deliverable/documents/{kind}':
    case 'POST /engagements/{engagement}/deliverable/documents/{kind}/generate':
      return link('deliverable_document', { engagement, kind: str(args.kind) }, `${String(args.kind)} document`);
    case 'POST /engagements/{engagement}/exports':
      return link('export_file', { engagement, export: str(rec.id) }, `export ${String(rec.id)} (readable once finished)`);
    default:
      return [];
  }
}

const FILE_MAX_BYTES = 10 * 1024 * 1024;
const TEXTUAL = /^(text\/|application\/(json|xml|csv|[a-z.+-]*\+(json|xml)))/i;

export class ResourceError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

export interface ResourceDeps {
  registry: ToolRegistry;
  client: ApiClient;
  ready: () => Promise<void>;
}

async function readBody(body: NodeJS.ReadableStream, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > max) {
      (body as unknown as { destroy?: () => void }).destroy?.();
      throw new ResourceError(`The file is larger than ${max / 1024 / 1024} MB: download it with download_export instead.`, -32602);
    }
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

export async function readResource(deps: ResourceDeps, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
  const m = matchUri(uri);
  if (!m) throw new ResourceError(`Unknown resource ${uri}: see resources/templates/list.`, -32002);
  await deps.ready();
  const op = deps.registry.callable().find((o) => o.method === m.spec.method && o.path === m.spec.path);
  if (!op) throw new ResourceError(`This workspace does not offer ${m.spec.title.toLowerCase()} resources.`, -32002);
  const res = await deps.client.callOperation(op, m.vars, { signal });
  if (res.file) {
    const buf = await readBody(res.file.body, FILE_MAX_BYTES);
    const mimeType = res.file.contentType.split(';')[0]?.trim() || 'application/octet-stream';
    if (TEXTUAL.test(mimeType)) return { contents: [{ uri, mimeType, text: buf.toString('utf8') }] };
    return { contents: [{ uri, mimeType, blob: buf.toString('base64') }] };
  }
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(res.data ?? null) }] };
}

/** resources/list: the engagements of the workspace (first page), each as its resource. */
export async function listResources(deps: ResourceDeps, signal: AbortSignal): Promise<Resource[]> {
  await deps.ready();
  const op = deps.registry.callable().find((o) => o.method === 'GET' && o.path === '/engagements');
  if (!op) return [];
  const res = await deps.client.callOperation(op, { limit: 100 }, { signal });
  const items = Array.isArray(res.data) ? (res.data as Record<string, unknown>[]) : [];
  return items
    .filter((e) => typeof e.id === 'string')
    .map((e) => ({
      uri: expand(TEMPLATES[0]!.uriTemplate, { engagement: e.id as string }),
      name: String(e.name ?? e.id),
      title: String(e.name ?? e.id),
      mimeType: 'application/json',
      ...(typeof e.status === 'string' ? { description: `Engagement (${e.status})` } : { description: 'Engagement' }),
    }));
}
