// The one shape that drives a tool, its validation, its request, the sandbox route and the docs.
// catalog/ may import this module (types and tiny pure helpers only): keep it free of runtime deps.
import type { z } from 'zod';
import { splitTemplate } from './path-template.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Scope = 'read' | 'write';

/** API areas (the spec's tags, lower-cased). A toolset is the set of operations of one area. */
export const TOOLSETS = [
  'ai',
  'engagements',
  'methods',
  'analysis',
  'interviews',
  'sources',
  'deliverables',
  'chat',
  'usage',
  'workspace',
  'privacy',
  'integrations',
] as const;
export type Toolset = (typeof TOOLSETS)[number];

/**
 * All four MCP hints, decided for every operation (the spec's defaults, destructive and open world,
 * are wrong for reads). Listed tools state each once: see listedAnnotations in src/mcp/pipeline/tool-spec.ts.
 */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * How the non-path arguments travel.
 * - `query`: GET and DELETE; every non-path argument becomes a query parameter.
 * - `json`: POST, PUT, PATCH; every non-path argument goes into a JSON object body.
 * - `multipart`: uploads; the `file` argument is the file part, the others are form fields.
 * - `none`: the operation takes no body (an action such as cancel or accept).
 */
export type BodyKind = 'query' | 'json' | 'multipart' | 'none';

/**
 * What a successful answer carries.
 * - `json`: the `{data, meta}` envelope.
 * - `file`: raw content (a download, media, a recording stream); not an envelope.
 */
export type ResponseKind = 'json' | 'file';

export interface Operation {
  /** Stable snake_case tool name, verb_noun: `list_findings`, `review_finding`. */
  name: string;
  /** Short human title, sentence case: `List findings`. */
  title: string;
  /** For the assistant: what it does, when to use it, what it returns, key constraints. 1-3 sentences. */
  description: string;
  method: HttpMethod;
  /** Path template relative to /api/v1, exactly as written in the spec. */
  path: string;
  scope: Scope;
  toolset: Toolset;
  /**
   * Every argument of the tool, flat: the path parameters (named as in the template), then query or
   * body fields. A strict object: unknown keys are refused, not silently dropped.
   */
  input: z.ZodObject;
  body: BodyKind;
  response: ResponseKind;
  /** Paginated list: the input carries `cursor` and `limit`, the answer `meta.next_cursor`. */
  paginated: boolean;
  /** Reference data that rarely changes (enums, catalogs): cached by the client with a TTL. */
  reference: boolean;
  annotations: ToolAnnotations;

  // Facets: everything else the server knows about an operation lives here, on its entry. Nothing is
  // keyed by method and path elsewhere: the sandbox finds an operation's handler by its name
  // (src/sandbox/handlers/<area>.ts), and refuses to start when handlers and entries do not match.

  /** Named by the spec's list (false: only the live description shows it; curated here all the same). */
  documented: boolean;
  /** Its JSON answers quote text people wrote (transcripts, documents, chat): results carry the content note. False for file answers. */
  quotesContent: boolean;
  /** Shown as its own tool on the default surface, for this job of the three the surface serves. */
  surface?: SurfaceJob;
  /** It starts a long-running job that a tool call can follow to its end. */
  job?: JobFacet;
  /** The resource an assistant reads through this GET (resources/read), by URI template. */
  resource?: ResourceFacet;
  /** The resource (by name) a result of this operation links to, filled from its arguments and answer. */
  linksTo?: string;
  /** Uploads: the largest file accepted and the format its content must have. */
  upload?: UploadFacet;
  /**
   * A path parameter that names a stored file and may hold slashes (the media `{path}`): each of its
   * segments is percent-encoded and the slashes kept; empty, `.` and `..` segments are refused.
   */
  segmentedParam?: string;
  /**
   * What people call the operation when they ask for it, in English and in French: the trade's words,
   * synonyms and task phrasings ("the client's remarks on the report", "les remarques du client").
   * find_operations matches requests against them as it does the name and title. Every catalog entry
   * has both languages; an operation generated from the live description has none.
   */
  askedAs?: AskedAs;
  /**
   * Arguments that call it on the sandbox's demo data, for the tests that call every operation
   * (test/catalog/every-operation.test.ts, test/mcp/read-results.test.ts): `$demo.<kind>` is a demo id
   * (or value) that an area of the sandbox names (the `demo` of src/sandbox/handlers/<area>.ts:
   * `$demo.finding`, `$demo.evidence`, `$demo.media_path`...); anything else is sent as written. An
   * entry whose arguments can only come from earlier calls (ids created on the way) is called by
   * hand there; one that needs no argument is called with none.
   */
  example?: Record<string, unknown>;
  /**
   * How its records read in the concise text (structuredContent keeps them whole): fields shown though
   * the generic rules would leave them out, objects shown as columns. A comment's `created_at` is when
   * it was said, not an audit stamp; its `author: {id, name}` reads as `author.id|author.name`.
   */
  render?: RenderFacet;
  /**
   * This list completes the argument (prompt argument or resource template variable) of this name in
   * completion/complete: its records matched on their id and on `label`, which is what a person
   * types. Its path parameters come from the completion's context; without them it offers nothing.
   */
  completes?: { argument: string; label: string };
  /**
   * What a destructive operation's arguments make of a call beyond its purpose (a final stage, a
   * document's edits replaced): named in the question that asks the user to confirm the call
   * (src/mcp/pipeline/confirmation.ts), each when its arguments are the call's.
   */
  consequences?: readonly Consequence[];
  /**
   * The body field holding document blocks (a whole-document update): what they cite that the document
   * did not already (refs, an item list's ids, a quote's evidence, a process) must be of the path's
   * engagement, checked before the request on every path (docs/architecture.md, Cited ids).
   */
  citesIn?: string;
}

/** One effect of a destructive call that its arguments select. */
export interface Consequence {
  /** Arguments and the value each must have (`null`: the argument left out). */
  when: Readonly<Record<string, string | boolean | null>>;
  /** What the user reads, one sentence naming the argument. */
  says: string;
}

export interface RenderFacet {
  /** Field names (at any depth) the concise form shows even where its rules leave them out. */
  keep?: readonly string[];
  /** Fields holding one object, shown as its fields side by side, named `field.sub` as `fields` names them. */
  flatten?: readonly string[];
}

interface AskedAs {
  en: readonly string[];
  fr: readonly string[];
}

/** The three jobs the default surface serves (docs/architecture.md, What it is). */
export const SURFACE_JOBS = ['brief', 'review', 'draft'] as const;
type SurfaceJob = (typeof SURFACE_JOBS)[number];

/**
 * A reference to a value when a job is read, cancelled or downloaded: `$id` is the job's id,
 * `$args.NAME` an argument of the call that started it, `$job.NAME` a field of the job record (one
 * level, `.0` for an array's first item); `a|b` takes the first that is present; anything else is a
 * literal.
 */
export type JobValue = string | number;

/**
 * A sibling operation a job is read, cancelled or downloaded with: by its catalog name, checked when
 * the catalog loads (catalog/index.ts), so a facet naming an operation that does not exist fails at start.
 */
interface JobEndpoint {
  operation: string;
  args: Record<string, JobValue>;
}

export interface JobRead extends JobEndpoint {
  /** Where the job is in the read's answer: the answer itself, an item of a list, or a field. */
  pick: 'self' | 'list' | { field: string };
}

export interface JobFacet {
  /** Words for the assistant: "analysis run", "export". */
  label: string;
  /** The field of the start answer holding the job record; unset: the answer is the job. */
  in?: string;
  /** Reads of the job's state in order of preference; one is used only when the workspace has it. */
  reads: JobRead[];
  /** The job can be stopped on the server. */
  cancel?: JobEndpoint;
  /** What a succeeded job produced, fetched as a file in the same call. */
  download?: JobEndpoint;
}

export interface ResourceFacet {
  /** Short name of the resource kind: `finding`. */
  name: string;
  title: string;
  /** URI template; its variables are the operation's path parameters. */
  uriTemplate: string;
  description: string;
  mimeType: string;
}

interface UploadFacet {
  /** The largest file accepted, in KiB (checked before sending, for paths too). */
  maxKib: number;
  /** The content is checked against the workspace's external-source format before sending. */
  format?: 'external-source';
}

/** Names of the `{param}`s of a path template, in order (split once by src/path-template.ts: it runs on every call's hot path). */
export function pathParams(template: string): readonly string[] {
  return splitTemplate(template).names;
}

/** The key of the `_meta` entry every catalog tool carries (docs/architecture.md, Contracts other programs rely on). */
export const OPERATION_META_KEY = 'workspace-consulting/operation';

export function operationMeta(op: Pick<Operation, 'method' | 'path' | 'scope'>) {
  return { method: op.method, path: op.path, scope: op.scope };
}

/**
 * The words find_operations reads requests with that no single entry owns (catalog/vocabulary.ts); an
 * entry's own words are its askedAs facet.
 */
export interface SearchVocabulary {
  /** Words that say nothing about which operation is meant. */
  stopWords: { en: string; fr: string };
  /** A request's word (any form, English or French) mapped to the catalog's words it means. */
  words: Readonly<Record<string, string>>;
  /** Expressions of several words rewritten before the words are read: [RegExp source, replacement]. */
  phrases: ReadonlyArray<readonly [string, string]>;
  /**
   * What the API reserves to its web application and refuses to tokens, each as the phrases it is
   * asked as in both languages: a request for one has no operation, whatever words it shares with one.
   */
  reserved?: ReadonlyArray<{ readonly en: readonly string[]; readonly fr: readonly string[] }>;
}

/** What the API's specification says about each area and each operation it documents (catalog/spec-prose.ts, generated). */
export interface SpecProse {
  /** Each area's purpose, by toolset. */
  areas: Readonly<Record<string, string>>;
  /** The endpoint's section and payload, and for a write the fields of the resource its body takes, by operation name. */
  operations: Readonly<Record<string, string>>;
}

/** What an operation is for, in one line: the first sentence of its description. */
export function purposeOf(op: Pick<Operation, 'description'>): string {
  // split() always gives at least one part: the default is never taken.
  const [first = ''] = op.description.split(/(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)\s+/);
  return first.replace(/\s+\(generated\)$/, '');
}
