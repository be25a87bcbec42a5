// Sources: uploaded artifacts and external source files. Also home of the lookups every content
// handler shares: the engagement-scoped record, and the record an evidence source type names.

import { ENGAGEMENT_AP } from '../data/ids.js';
import { chunkText, seedSources, storeArtifact } from '../data/sources.js';
import { type HandlerContext, type HandlerTable, notFound, type Rec, type SandboxArea, validationFailed, type WorkspaceState } from '../types.js';

// ------------------------------------------------------------------------------ shared lookups

/** The engagement of the path, or 404: every engagement-scoped route starts here. */
export function engagementOf(ctx: HandlerContext): Rec {
  return ctx.ws.c('engagements').must(String(ctx.params.engagement), 'engagement');
}

/**
 * A record of `collection` that belongs to `engagementId`, or 404. An id of another engagement
 * answers exactly like an unknown one, so ids never leak across engagements.
 */
export function scoped(ws: WorkspaceState, collection: string, id: string, engagementId: string, what: string): Rec {
  const rec = ws.c(collection).get(id);
  if (!rec || rec.engagement_id !== engagementId) throw notFound(what);
  return rec;
}

/** The record an evidence or interview source names, with the text an excerpt is taken from. */
interface EvidenceSource {
  type: string;
  record: Rec;
  text: string;
  engagement_id: string;
  interview_id: string | null;
  session_id: string | null;
}

const SOURCE_COLLECTIONS: Record<string, { collection: string; text: (r: Rec) => unknown }> = {
  transcript_segment: { collection: 'transcript_segments', text: (r) => r.text },
  screen_frame: { collection: 'frames', text: (r) => r.caption },
  pin: { collection: 'pins', text: (r) => [r.label, r.note].filter(Boolean).join(' - ') },
  artifact_chunk: { collection: 'artifact_chunks', text: (r) => r.text },
  external_source_item: { collection: 'external_source_items', text: (r) => `${String(r.title)}\n${String(r.body)}` },
};

/** Find a source by evidence source type and id inside one engagement; undefined when absent. */
export function findEvidenceSource(ws: WorkspaceState, engagementId: string, type: string, id: string): EvidenceSource | undefined {
  if (type === 'recap_item') {
    // Recap items live inside their recap, as the recap resource shows them.
    for (const recap of ws.c('recaps').all((r) => r.engagement_id === engagementId)) {
      const item = (recap.items as Rec[]).find((i) => i.id === id);
      if (item) {
        return {
          type,
          record: { ...item, recap_id: recap.id, chapter_id: recap.chapter_id, interview_id: recap.interview_id },
          text: String(item.text),
          engagement_id: engagementId,
          interview_id: String(recap.interview_id),
          session_id: (recap.session_id as string | undefined) ?? null,
        };
      }
    }
    return undefined;
  }
  const spec = SOURCE_COLLECTIONS[type];
  const record = spec ? ws.c(spec.collection).get(id) : undefined;
  if (!spec || !record || record.engagement_id !== engagementId) return undefined;
  let interviewId = (record.interview_id as string | undefined) ?? null;
  const sessionId = (record.session_id as string | undefined) ?? null;
  if (!interviewId && sessionId) interviewId = (ws.c('sessions').get(sessionId)?.interview_id as string | undefined) ?? null;
  return { type, record, text: String(spec.text(record) ?? ''), engagement_id: engagementId, interview_id: interviewId, session_id: sessionId };
}

// ------------------------------------------------------------------------------ artifacts

/** An artifact as the API shows it: never its bytes. */
export function publicArtifact(a: Rec): Rec {
  const { content: _content, ...rest } = a;
  return rest as Rec;
}

/** Text worth chunking for evidences; binary documents are stored without chunks. */
function isText(contentType: string, filename: string): boolean {
  return /^text\/|json|csv|xml/.test(contentType) || /\.(txt|csv|md|json|xml)$/i.test(filename);
}

// ------------------------------------------------------------------------------ external sources

const FORMAT_VERSIONS = ['1'] as const;

function externalSourceSchema(version: string): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    // A URN, not the workspace URL: the format is the same on every workspace host.
    $id: `urn:workspace-consulting:external-source:${version}`,
    title: `External source file, format version ${version}`,
    description:
      'A JSON file of items taken from another system (ERP extraction, ticketing export...). Each item becomes an external source item that evidences can cite.',
    type: 'object',
    required: ['format_version', 'source', 'items'],
    additionalProperties: false,
    properties: {
      format_version: { const: version },
      source: {
        type: 'object',
        required: ['name', 'system'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 255 },
          system: { type: 'string', minLength: 1, maxLength: 255 },
          exported_at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
      items: {
        type: 'array',
        minItems: 1,
        maxItems: 10000,
        items: {
          type: 'object',
          required: ['external_id', 'title', 'body'],
          additionalProperties: false,
          properties: {
            external_id: { type: 'string', minLength: 1, maxLength: 255, description: 'Unique within the file.' },
            title: { type: 'string', minLength: 1, maxLength: 500 },
            body: { type: 'string', maxLength: 20000 },
            occurred_at: { type: ['string', 'null'], pattern: '^\\d{4}-\\d{2}-\\d{2}(T.+)?$', description: 'ISO 8601 date or date-time.' },
            attributes: { type: 'object', description: 'Free key-value data of the item.' },
          },
        },
      },
    },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Check a parsed file against format 1 (the schema above, hand-checked: the same rules, with the
 * failing field paths the 422 names). Returns the mismatches, empty when the file conforms.
 */
function externalSourceMismatches(doc: unknown): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (path: string, msg: string) => {
    errors[path] ??= [];
    errors[path].push(msg);
  };
  const str = (v: unknown, path: string, max: number, required: boolean, min = 0) => {
    if (v === undefined) return required ? add(path, 'required') : undefined;
    if (typeof v !== 'string') return add(path, 'must be a string');
    if (v.length < min) add(path, min === 1 ? 'must not be empty' : `at least ${min} characters`);
    if (v.length > max) add(path, `at most ${max} characters`);
  };
  const extra = (o: Record<string, unknown>, allowed: string[], path: string) => {
    for (const k of Object.keys(o)) if (!allowed.includes(k)) add(path ? `${path}.${k}` : k, 'unknown field');
  };
  if (!isObject(doc)) {
    add('file', 'must be a JSON object');
    return errors;
  }
  extra(doc, ['format_version', 'source', 'items'], '');
  if (doc.format_version === undefined) add('format_version', 'required');
  else if (doc.format_version !== '1') add('format_version', 'must be "1"');
  if (doc.source === undefined) add('source', 'required');
  else if (!isObject(doc.source)) add('source', 'must be an object');
  else {
    extra(doc.source, ['name', 'system', 'exported_at'], 'source');
    str(doc.source.name, 'source.name', 255, true, 1);
    str(doc.source.system, 'source.system', 255, true, 1);
    if (doc.source.exported_at !== undefined && doc.source.exported_at !== null) str(doc.source.exported_at, 'source.exported_at', 64, false);
  }
  if (doc.items === undefined) add('items', 'required');
  else if (!Array.isArray(doc.items)) add('items', 'must be an array');
  else {
    if (doc.items.length === 0) add('items', 'at least 1 item');
    if (doc.items.length > 10000) add('items', 'at most 10000 items');
    const seen = new Set<string>();
    doc.items.forEach((item: unknown, i: number) => {
      const p = `items.${i}`;
      if (!isObject(item)) {
        add(p, 'must be an object');
        return;
      }
      extra(item, ['external_id', 'title', 'body', 'occurred_at', 'attributes'], p);
      str(item.external_id, `${p}.external_id`, 255, true, 1);
      if (typeof item.external_id === 'string') {
        if (seen.has(item.external_id)) add(`${p}.external_id`, 'duplicate');
        seen.add(item.external_id);
      }
      str(item.title, `${p}.title`, 500, true, 1);
      str(item.body, `${p}.body`, 20000, true);
      if (item.occurred_at !== undefined && item.occurred_at !== null) {
        if (typeof item.occurred_at !== 'string' || !/^\d{4}-\d{2}-\d{2}(T.+)?$/.test(item.occurred_at)) {
          add(`${p}.occurred_at`, 'must be an ISO 8601 date or date-time');
        }
      }
      if (item.attributes !== undefined && !isObject(item.attributes)) add(`${p}.attributes`, 'must be an object');
    });
  }
  return errors;
}

// ------------------------------------------------------------------------------ handlers

const handlers: HandlerTable = {
  list_artifacts: (ctx) => {
    const e = engagementOf(ctx);
    return ctx.page(
      ctx.ws
        .c('artifacts')
        .all((a) => a.engagement_id === e.id)
        .map(publicArtifact),
    );
  },

  upload_artifact: (ctx) => {
    const e = engagementOf(ctx);
    const file = ctx.files.file;
    if (!file) throw validationFailed({ file: ['required'] });
    const text = isText(file.contentType, file.filename) ? file.content.toString('utf8') : '';
    const artifact = storeArtifact(
      ctx.ws,
      {
        engagement_id: e.id,
        session_id: null,
        filename: file.filename,
        content_type: file.contentType || 'application/octet-stream',
        content: file.content,
        uploaded_by: ctx.member.id,
      },
      text ? chunkText(text) : [],
    );
    return { status: 201, data: publicArtifact(artifact) };
  },

  get_artifact: (ctx) => {
    const e = engagementOf(ctx);
    return { data: publicArtifact(scoped(ctx.ws, 'artifacts', String(ctx.params.artifact), e.id, 'artifact')) };
  },

  delete_artifact: (ctx) => {
    const e = engagementOf(ctx);
    const a = scoped(ctx.ws, 'artifacts', String(ctx.params.artifact), e.id, 'artifact');
    const chunks = ctx.ws.c('artifact_chunks');
    for (const c of chunks.all((c) => c.artifact_id === a.id)) chunks.remove(c.id);
    ctx.ws.c('artifacts').remove(a.id);
    return { status: 204 };
  },

  download_artifact: (ctx) => {
    const e = engagementOf(ctx);
    const a = scoped(ctx.ws, 'artifacts', String(ctx.params.artifact), e.id, 'artifact');
    const content = a.content as Buffer;
    return { file: { contentType: String(a.content_type), filename: String(a.filename), body: content, size: content.length } };
  },

  list_external_sources: (ctx) => {
    const e = engagementOf(ctx);
    return ctx.page(ctx.ws.c('external_sources').all((s) => s.engagement_id === e.id));
  },

  upload_external_source: (ctx) => {
    const e = engagementOf(ctx);
    const file = ctx.files.file;
    if (!file) throw validationFailed({ file: ['required'] });
    let doc: unknown;
    try {
      doc = JSON.parse(file.content.toString('utf8'));
    } catch (err) {
      throw validationFailed({ file: [`must be a JSON file (${(err as Error).message})`] });
    }
    const mismatches = externalSourceMismatches(doc);
    if (Object.keys(mismatches).length > 0) throw validationFailed(mismatches);
    const d = doc as { format_version: string; source: { name: string; system: string; exported_at?: string | null }; items: Rec[] };
    const source = ctx.ws.c('external_sources').insert({
      engagement_id: e.id,
      name: String(ctx.input.name ?? d.source.name),
      format_version: d.format_version,
      system: d.source.system,
      exported_at: d.source.exported_at ?? null,
      filename: file.filename,
      item_count: d.items.length,
      uploaded_by: ctx.member.id,
    });
    for (const [i, item] of d.items.entries()) {
      ctx.ws.c('external_source_items').insert({
        engagement_id: e.id,
        source_id: source.id,
        position: i + 1,
        external_id: item.external_id,
        title: item.title,
        body: item.body,
        occurred_at: item.occurred_at ?? null,
        attributes: item.attributes ?? {},
      });
    }
    return { status: 201, data: source };
  },

  delete_external_source: (ctx) => {
    const e = engagementOf(ctx);
    const s = scoped(ctx.ws, 'external_sources', String(ctx.params.source), e.id, 'external source');
    const items = ctx.ws.c('external_source_items');
    for (const i of items.all((i) => i.source_id === s.id)) items.remove(i.id);
    ctx.ws.c('external_sources').remove(s.id);
    return { status: 204 };
  },

  list_external_source_items: (ctx) => {
    const e = engagementOf(ctx);
    const s = scoped(ctx.ws, 'external_sources', String(ctx.params.source), e.id, 'external source');
    return ctx.page(ctx.ws.c('external_source_items').all((i) => i.source_id === s.id));
  },

  get_external_source_schema: (ctx) => {
    const version = String(ctx.params.version);
    if (!(FORMAT_VERSIONS as readonly string[]).includes(version)) throw notFound('external source format version');
    return { data: externalSourceSchema(version) };
  },
};

export const area: SandboxArea = {
  toolset: 'sources',
  handlers,
  seeds: [seedSources],
  demo: {
    artifact: (ws) => ws.c('artifacts').all((a) => a.engagement_id === ENGAGEMENT_AP)[0]?.id,
    external_source: (ws) => ws.c('external_sources').all((s) => s.engagement_id === ENGAGEMENT_AP)[0]?.id,
  },
};
