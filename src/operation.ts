// The one shape that drives a tool, its validation, its request, the sandbox route and the docs.
// tools/ may import this module (types and tiny pure helpers only): keep it free of runtime deps.
import type { z } from 'zod';

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
 * are wrong for reads). Listed tools state each once: see listedAnnotations in src/mcp/tools.ts.
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
  /** Uploads: the largest file accepted, in KiB (checked before sending, for paths too). */
  maxUploadKib?: number;
}

const paramsByTemplate = new Map<string, readonly string[]>();

/** Names of the `{param}`s of a path template, in order. Memoised: it runs on every call's hot path. */
export function pathParams(template: string): readonly string[] {
  let names = paramsByTemplate.get(template);
  if (names === undefined) {
    names = [...template.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1] as string);
    paramsByTemplate.set(template, names);
  }
  return names;
}

/** The key of the `_meta` entry every catalog tool carries (DESIGN.md contract). */
export const OPERATION_META_KEY = 'workspace-consulting/operation';

export function operationMeta(op: Pick<Operation, 'method' | 'path' | 'scope'>) {
  return { method: op.method, path: op.path, scope: op.scope };
}
