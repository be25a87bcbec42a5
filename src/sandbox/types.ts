// Contracts inside the sandbox: the request pipeline (server.ts) calls handlers (handlers/*.ts) that
// read and change a workspace's in-memory state (state.ts, seeded by data/*.ts).
import type { Readable } from 'node:stream';
import type { Operation, Toolset } from '../operation.js';

export type Locale = 'en' | 'fr';
export type Localized = { en: string; fr: string };

/** An error answer: `{code, message, details}` with the message in the caller's locale. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly text: Localized,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(text.en);
  }
}

export const notFound = (what = 'resource') =>
  new ApiError(404, 'resource.not_found', {
    en: `The requested ${what} was not found.`,
    fr: `La ressource demandée (${what}) est introuvable.`,
  });

/** 422 validation.failed; `fields` maps a dotted field path to its messages. */
export const validationFailed = (fields: Record<string, string[]>) =>
  new ApiError(422, 'validation.failed', { en: 'The given data was invalid.', fr: 'Les données fournies sont invalides.' }, { fields });

export const conflict = (code: string, text: Localized, details: Record<string, unknown> = {}) => new ApiError(409, code, text, details);

/** A record of a collection. Every record has a ULID id and timestamps, plus any fields. */
export interface Rec {
  id: string;
  created_at?: string;
  updated_at?: string;
  [field: string]: unknown;
}

/** A file answer (download, media, recording). `body` may be a stream for large content. */
export interface FileBody {
  contentType: string;
  filename?: string;
  body: Buffer | string | (() => Readable);
  /** Length in bytes when known (streams): sent as Content-Length. */
  size?: number;
}

export type HandlerResult = { status?: number; data: unknown; meta?: Record<string, unknown> } | { status?: number; file: FileBody } | { status: 204 };

export interface UploadedFile {
  filename: string;
  contentType: string;
  size: number;
  content: Buffer;
}

export interface HandlerContext {
  ws: WorkspaceState;
  op: SandboxOperation;
  /** Path parameters, already percent-decoded. */
  params: Record<string, string>;
  /** Validated query (GET, DELETE) or JSON/multipart fields (others). */
  input: Record<string, unknown>;
  files: Record<string, UploadedFile>;
  member: Rec;
  /** What authenticated the request: a personal token or an OAuth grant, with its scope. */
  credential: { kind: 'personal' | 'oauth'; scope: 'read' | 'write'; name?: string; last_four?: string; expires_at?: string | null };
  locale: Locale;
  /** The sandbox clock (real time unless the sandbox was given a clock; jobs scale their durations by the time scale). */
  now(): Date;
  /** Durations in ms scaled by the time scale: `scaled(60_000)` is one minute of sandbox time. */
  scaled(ms: number): number;
  /** Paginate `items` with the request's `cursor` and `limit`: returns the envelope result. */
  page(items: unknown[]): HandlerResult;
}

export type Handler = (ctx: HandlerContext) => HandlerResult | Promise<HandlerResult>;

/**
 * `ctx.input` as its operation declares it. The server validated it against that operation's schema
 * in the catalog (validateInput) before the handler ran, so T, naming the fields the handler reads
 * with the types the catalog gives them, holds.
 */
export function inputOf<T extends object>(ctx: HandlerContext): T {
  return ctx.input as T;
}

/** Handlers keyed by the catalog name of the operation each answers (`list_findings`). */
export type HandlerTable = Record<string, Handler>;

/** Inserts demo records into the main demo workspace. */
type Seed = (ws: WorkspaceState) => void;

/**
 * One area of the API in the sandbox, declared in its one file (handlers/<area>.ts): the handlers of
 * the area's operations by catalog name, the demo records they answer from, and the demo ids the
 * catalog's `example` facet names. handlers/index.ts checks at load that the handlers and the
 * operations match one to one.
 */
export interface SandboxArea {
  toolset: Toolset;
  handlers: HandlerTable;
  /** The area's demo records, inserted in this order. */
  seeds?: readonly Seed[];
  /** Areas whose records the seeds look up (they are seeded first); ids do not depend on this order. */
  after?: readonly Toolset[];
  /**
   * `$demo.<kind>` of the catalog's example facet: the value (an id, mostly) each kind names, read from
   * the freshly seeded workspace. A kind is named once across areas.
   */
  demo?: Readonly<Record<string, (ws: WorkspaceState) => string | undefined>>;
}

/** An operation the sandbox serves: the catalog's, or one the spec names without listing. */
export interface SandboxOperation extends Operation {
  /** Not in the curated catalog: marked `x-sandbox-assumed: true` in openapi.json. */
  assumed?: boolean;
}

export interface Collection<T extends Rec = Rec> {
  readonly name: string;
  get(id: string): T | undefined;
  /** The record or a 404 ApiError. */
  must(id: string, what?: string): T;
  all(filter?: (r: T) => boolean): T[];
  insert(r: Omit<T, 'id' | 'created_at' | 'updated_at'> & Partial<Rec>): T;
  update(id: string, patch: Partial<T>): T;
  remove(id: string): boolean;
}

export interface WorkspaceState {
  slug: string;
  /** Host names this workspace answers on (the first is its canonical one). */
  hosts: string[];
  /** Workspace settings (the /workspace resource). */
  workspace: Rec;
  /** Named collections: `ws.c('findings')`. Created on first use. */
  c<T extends Rec = Rec>(name: string): Collection<T>;
  /**
   * A new ULID, monotonic. While seeding it derives from `key` (required then: what the id is for,
   * unique among the workspace's seeded ids), so demo ids do not depend on seeding order.
   */
  newId(key?: string): string;
  /** Counters of the workspace (rate-limit refusals are counted here and shown in usage). */
  counters: Record<string, number>;
}
