// Schemas and the entry builder shared by every catalog module.
// Kept terse on purpose: every `.describe()` here is paid in tokens in every tools/list that uses it.
import { z } from 'zod';
import { type BodyKind, type HttpMethod, type Operation, pathParams, type ResponseKind, type Scope, type Toolset } from '../src/operation.js';

/** A ULID: 26 characters of Crockford base 32. The pattern also rules out `/`, `.` and `%`. */
export const ULID_PATTERN = /^[0-9A-Za-z]{26}$/;
export const id = () => z.string().regex(ULID_PATTERN, 'must be a 26-character ULID');
export const nullableId = () => id().nullable();

/** A slug-like path value (enum names, disks, versions): no slash, dot or percent can reach the URL. */
export const slug = () => z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -');

export const str = (max: number) => z.string().max(max);
export const nstr = (max: number) => z.string().max(max).nullable();

export const LOCALES = ['en', 'fr'] as const;
export const locale = () => z.enum(LOCALES);

export const cursor = () => z.string().min(1).max(512).describe('meta.next_cursor of the previous page');
export const limit = () => z.number().int().min(1).max(200).describe('page size, default 50');

// Enumerations of the spec, named once so the catalog and the sandbox agree.
export const AI_USAGES = ['voice', 'stt', 'tts', 'transcription', 'vision', 'analysis', 'chat', 'embedding', 'ocr'] as const;
export const AI_DRIVERS = ['openai', 'openai_compatible', 'mistral', 'anthropic', 'deepgram', 'elevenlabs', 'tesseract'] as const;
export const SCOPE_TYPES = ['workspace', 'method', 'engagement'] as const;
export const VOICE_ARCHITECTURES = ['realtime', 'cascade'] as const;
export const CREDENTIAL_SOURCES = ['workspace', 'platform'] as const;
export const FINDING_TYPES = [
  'irritant',
  're_entry',
  'volume',
  'duration',
  'business_rule',
  'tool',
  'key_person_dependency',
  'risk',
  'good_practice',
  'other',
] as const;
export const REVIEW_STATUSES = ['proposed', 'validated', 'rejected'] as const;
export const EVIDENCE_SOURCE_TYPES = ['transcript_segment', 'screen_frame', 'pin', 'artifact_chunk', 'external_source_item', 'recap_item'] as const;
export const CONTRADICTION_STATUSES = ['resolved', 'kept_as_finding', 'dismissed'] as const;
export const PROPOSAL_ENTITY_TYPES = ['process', 'process_step', 'process_flow', 'finding', 'opportunity'] as const;
export const ANALYSIS_MODES = ['incremental', 'full'] as const;
export const GENERATION_MODES = ['keep_edits', 'replace_all'] as const;
export const STAGES = ['interim', 'final'] as const;
export const EXPORT_KINDS = [
  'bpmn',
  'findings_csv',
  'opportunities_csv',
  'json_bundle',
  'printable',
  'document_pdf',
  'document_pptx',
  'document_docx',
  'document_csv',
  'deliverable_pdf',
] as const;
export const DOCUMENT_KINDS = [
  'coverage',
  'interim_insights',
  'methodology',
  'executive_summary',
  'roadmap',
  'process_sheets',
  'tool_landscape',
  'role_activity',
  'pain_map',
  'uncertainties',
  'verbatims',
] as const;
export const BLOCK_TYPES = ['heading', 'paragraph', 'message', 'key_figures', 'item_list', 'table', 'chart', 'process', 'quote', 'callout'] as const;
export const REF_TYPES = ['finding', 'opportunity', 'process', 'process_step', 'contradiction', 'evidence', 'tool', 'topic', 'follow_up'] as const;
export const CHARTS = ['gain_effort_matrix', 'pain_heatmap', 'coverage_bars', 'topic_coverage', 'roadmap_lanes'] as const;
export const SESSION_MODES = ['voice_screen', 'voice_only', 'text_simulation'] as const;
export const TRIAL_MODES = ['voice_only', 'voice_screen'] as const;
export const ROLES = ['admin', 'consultant'] as const;
export const TOPIC_REQUIREMENTS = ['mandatory', 'optional'] as const;
export const TOPIC_DEPTHS = ['overview', 'standard', 'deep'] as const;
export const OVERRIDE_OPERATIONS = ['modify', 'remove', 'make_optional', 'make_mandatory'] as const;
/** Guide owners. The spec does not show the values; these are the owners a guide can belong to. */
export const GUIDE_OWNER_TYPES = ['method', 'engagement'] as const;

/** Upload limits of the spec, read as kilobytes (the spec does not give the unit; Laravel's `max` on files is KiB). */
export const ARTIFACT_MAX_KIB = 25600;
export const EXTERNAL_SOURCE_MAX_KIB = 10240;

export const clientInfo = () => z.strictObject({ os: nstr(64).optional(), browser: nstr(64).optional(), device_class: nstr(64).optional() }).nullable();

/** The optional facets are given as the entry carries them (see Operation for what each means). */
interface EntryInput
  extends Pick<
    Operation,
    'surface' | 'job' | 'resource' | 'linksTo' | 'upload' | 'segmentedParam' | 'askedAs' | 'example' | 'completes' | 'render' | 'consequences' | 'citesIn'
  > {
  name: string;
  title: string;
  description: string;
  method: HttpMethod;
  path: string;
  /** Defaults: GET is read, everything else write. */
  scope?: Scope;
  /**
   * Arguments besides the path parameters (query fields for GET/DELETE, body fields otherwise), as
   * a function: the zod schemas are built with the entry's input, on its first read, not at load.
   */
  fields?: () => z.ZodRawShape;
  /** Path parameters whose schema is not a ULID (slugs, enums, the media path); a function, as `fields`. */
  pathSchemas?: () => z.ZodRawShape;
  paginated?: boolean;
  reference?: boolean;
  response?: ResponseKind;
  /** Override of how non-path arguments travel; defaults from the method (multipart must be said). */
  body?: BodyKind;
  /**
   * Required for every non-GET: does the call destroy or irreversibly commit something
   * (delete, publish, reject-all, cancel)? The type makes you decide, not default.
   */
  destructive?: boolean;
  /** Talks to something outside the workspace (a test call to an AI provider). */
  openWorld?: boolean;
  /** Only the live description names it (the spec's list does not): curated here all the same. */
  undocumented?: true;
  /** Overrides the area's default (see area()): does the answer quote text people wrote? */
  quotesContent?: boolean;
}

/**
 * One entry as its area module writes it: everything but its area (the toolset) and, when the entry
 * does not say, whether it quotes workspace content (the area's default); area() completes it.
 */
type Entry = Omit<Operation, 'toolset' | 'quotesContent'> & { quotesContent?: boolean };

/**
 * Build one catalog entry. Path parameters default to ULIDs; `cursor` and `limit` are added to
 * paginated lists; annotations follow from the method and scope (readOnly on GET and read-scoped POSTs, idempotent on PUT/DELETE,
 * destructive on DELETE or when declared).
 */
export function op(e: EntryInput & ({ method: 'GET' } | { method: Exclude<HttpMethod, 'GET'>; destructive: boolean })): Entry {
  const paginated = e.paginated ?? false;
  const isGet = e.method === 'GET';
  const reads = isGet || e.scope === 'read';
  const hasFields = e.fields !== undefined;
  const body: BodyKind = e.body ?? (isGet || e.method === 'DELETE' ? 'query' : hasFields ? 'json' : 'none');
  const entry = {
    name: e.name,
    title: e.title,
    description: e.description,
    method: e.method,
    path: e.path,
    scope: e.scope ?? (isGet ? 'read' : 'write'),
    body,
    response: e.response ?? 'json',
    paginated,
    reference: e.reference ?? false,
    documented: !e.undocumented,
    // Else the area's default, by area().
    ...(e.quotesContent !== undefined ? { quotesContent: e.quotesContent } : {}),
    ...(e.surface ? { surface: e.surface } : {}),
    ...(e.job ? { job: e.job } : {}),
    ...(e.resource ? { resource: e.resource } : {}),
    ...(e.linksTo ? { linksTo: e.linksTo } : {}),
    ...(e.upload ? { upload: e.upload } : {}),
    ...(e.segmentedParam ? { segmentedParam: e.segmentedParam } : {}),
    ...(e.askedAs ? { askedAs: e.askedAs } : {}),
    ...(e.example ? { example: e.example } : {}),
    ...(e.render ? { render: e.render } : {}),
    ...(e.completes ? { completes: e.completes } : {}),
    ...(e.consequences ? { consequences: e.consequences } : {}),
    ...(e.citesIn ? { citesIn: e.citesIn } : {}),
    annotations: {
      // A read-scoped POST (asking the audit chat) changes nothing, like a GET.
      readOnlyHint: reads,
      destructiveHint: reads ? false : e.method === 'DELETE' ? true : Boolean(e.destructive),
      idempotentHint: reads || e.method === 'PUT' || e.method === 'DELETE',
      openWorldHint: e.openWorld ?? false,
    },
  };
  return withLazyInput(entry, () => {
    const shape: Record<string, z.core.$ZodType> = {};
    const pathSchemas = e.pathSchemas?.();
    for (const p of pathParams(e.path)) shape[p] = pathSchemas?.[p] ?? id();
    Object.assign(shape, e.fields?.());
    if (paginated) Object.assign(shape, { cursor: cursor().optional(), limit: limit().optional() });
    return z.strictObject(shape);
  });
}

/**
 * The entry with its `input` built on first read, then held as a plain value: tools/list shows the
 * schemas the build converted (src/mcp/pipeline/built-schemas.ts), so a session that lists every tool and
 * calls one builds the zod object of one entry, not of every one.
 */
function withLazyInput<T extends object>(entry: T, build: () => z.ZodObject): T & { input: z.ZodObject } {
  return Object.defineProperty(entry, 'input', {
    enumerable: true,
    configurable: true,
    get(this: T) {
      const input = build();
      Object.defineProperty(this, 'input', { value: input, enumerable: true });
      return input;
    },
  }) as T & { input: z.ZodObject };
}

interface AreaDefaults {
  /**
   * The area's answers quote what people wrote (interviewees, client documents, members in chat, the
   * workspace AI): its JSON results carry the workspace-content note unless an entry says otherwise.
   */
  quotesContent?: boolean;
}

/**
 * Complete a module's entries with their toolset and the area's defaults: one module is one API area.
 * Whether a result quotes workspace content is decided here, once (the entry's word, else the area's,
 * and only for JSON answers: a file is not shown as text): the pipeline, scripts and rendering read it.
 */
export function area(toolset: Toolset, entries: Entry[], defaults: AreaDefaults = {}): Operation[] {
  // Completed in place, not copied: a copy would read (and so build) the entry's lazy input.
  return entries.map((e) =>
    Object.assign(e, {
      toolset,
      quotesContent: (e.quotesContent ?? Boolean(defaults.quotesContent)) && e.response === 'json',
    }),
  );
}

/**
 * What is wrong with a catalog's references between entries: a name used twice, a job facet naming
 * an operation the catalog does not hold. Checked when the catalog loads (catalog/index.ts).
 */
export function catalogProblems(ops: readonly Operation[]): string[] {
  const names = new Set<string>();
  const problems: string[] = [];
  for (const o of ops) {
    if (names.has(o.name)) problems.push(`${o.name}: the name is used twice`);
    names.add(o.name);
  }
  for (const o of ops) {
    const job = o.job;
    if (!job) continue;
    const refs = [
      ...job.reads.map((r, i) => [`job.reads[${i}]`, r.operation]),
      ['job.cancel', job.cancel?.operation],
      ['job.download', job.download?.operation],
    ];
    for (const [where, name] of refs) {
      if (name !== undefined && !names.has(name)) problems.push(`${o.name}: ${where} names ${name}, which is not a catalog operation`);
    }
  }
  return problems;
}
