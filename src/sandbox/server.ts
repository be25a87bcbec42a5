// The request pipeline of /api/v1: route -> auth -> scope -> rate limit -> body -> faults ->
// validation -> handler -> answer. Every failure on the way is an error envelope; nothing a client
// sends (bad JSON, odd paths, huge bodies) may crash the process or earn a 500.

import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { catalog } from '../../catalog/index.js';
import { assumedOperations } from './assumed.js';
import { authenticate, credentialView, insufficientScope, type Principal, sessionRequired } from './auth.js';
import { FaultQueue, type FaultRecord, injectedFault, type PendingFault } from './faults.js';
import { paginate } from './pagination.js';
import { formatRetryAfter, RATE_LIMIT, RATE_WINDOW_MS, rateLimited, TokenRateWindows } from './ratelimit.js';
import { type Route, Router } from './router.js';
import type { MemoryWorkspace, WorkspaceRegistry } from './state.js';
import { ApiError, type Handler, type HandlerContext, type HandlerResult, type Locale, type SandboxOperation, type UploadedFile } from './types.js';
import { coerceStrings, compileInput, fieldError, type InputValidator, validateInput } from './validate.js';

export const API_ROOT = '/api/v1';
/** Largest request body read at all; larger ones are refused before (or while) reading. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const REQUEST_LOG_CAP = 10_000;

/**
 * Operations reserved to the web application: any token gets 403 integrations.session_required.
 * They are routes of the sandbox but not operations of the API, so neither in the catalog nor in
 * openapi.json.
 */
const SESSION_ONLY_ROUTES: ReadonlyArray<[string, string]> = [
  ['POST', '/ai/credentials'],
  ['PUT', '/ai/credentials/{credential}'],
  ['DELETE', '/ai/credentials/{credential}'],
  ['GET', '/me/tokens'],
  ['POST', '/me/tokens'],
  ['DELETE', '/me/tokens/{token}'],
  ['POST', '/me/password'],
  ['POST', '/me/two-factor'],
  ['DELETE', '/me/two-factor'],
  ['GET', '/me/passkeys'],
  ['GET', '/me/connected-apps'],
  ['GET', '/me/connected-apps/{app}'],
  ['DELETE', '/me/connected-apps/{app}'],
  ['POST', '/workspace/support-access'],
];

export interface RequestLogEntry {
  time: string;
  method: string;
  /** The raw path as sent, relative to the origin, without the query string. */
  path: string;
  template: string | null;
  workspace: string | null;
  scope: 'read' | 'write' | null;
  /** Who the request's credential belongs to, and which credential it was (its record id, never its value): null when unauthenticated. */
  member_id?: string | null;
  token_id?: string | null;
  query: Record<string, string | string[]>;
  /** Parsed JSON body, or for multipart `{fields: [...names], files: {name: {filename, size}}}`. */
  body: unknown;
  status: number;
  duration_ms: number;
  handler_ran: boolean;
  fault?: FaultRecord;
  /** The client hung up before the answer was written (a cancelled call). */
  client_closed?: boolean;
  /** When the rate limiter counted this request (epoch ms, its own clock reading; absent when the
   * limiter is off or the request was refused before it). `time` is the arrival, a moment earlier:
   * under load the two differ by more than a test counting windows can allow for. */
  counted_ms?: number;
}

interface PipelineConfig {
  timeScale: number;
  rateLimit: boolean;
  logger: (line: string) => void;
  /** The sandbox's clock (epoch ms): jobs, record stamps and the rate windows read it. */
  clock: () => number;
}

type Target = { kind: 'op'; op: SandboxOperation; validator: InputValidator; handler: Handler; uploadLimitKib?: number } | { kind: 'session_only' };

/** Every operation the sandbox serves: the catalog's (documented and curated) and the assumed ones. */
export const sandboxOperations: readonly SandboxOperation[] = [...catalog, ...assumedOperations];

const err = (status: number, code: string, en: string, fr: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  new ApiError(status, code, { en, fr }, details, headers);

function localeOf(header: string | string[] | undefined): Locale {
  const h = Array.isArray(header) ? header.join(',') : header;
  if (!h) return 'en';
  let best: Locale = 'en';
  let bestQ = -1;
  for (const part of h.split(',')) {
    const [tag = '', ...ps] = part.trim().toLowerCase().split(';');
    const lang = tag.split('-')[0];
    if (lang !== 'en' && lang !== 'fr') continue;
    const qp = ps.find((p) => p.trim().startsWith('q='));
    const q = qp ? Number(qp.trim().slice(2)) : 1;
    if (Number.isFinite(q) && q > bestQ) {
      best = lang;
      bestQ = q;
    }
  }
  return best;
}

/** Host header -> host name without port, lower-cased (`[::1]:8080` -> `[::1]`). */
export function hostName(host: string | undefined): string {
  if (!host) return '';
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end > 0 ? h.slice(0, end + 1) : h;
  }
  const colon = h.indexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

interface Exchange {
  entry: RequestLogEntry;
  locale: Locale;
  headers: Record<string, string>;
  started: number;
  /** Settles when the client closes the request before its answer is written. */
  hungUp: Promise<void>;
}

/** The sandbox's request handling (route, rate window, faults, log): not the MCP server's call pipeline. */
export class SandboxPipeline {
  readonly router = new Router<Target>();
  readonly faults = new FaultQueue();
  readonly limiter: TokenRateWindows;
  private log: RequestLogEntry[] = [];
  /** Who waits for a request to be logged (waitForRequest). */
  private readonly logWaiters = new Set<(e: RequestLogEntry) => void>();
  /** Answers are written after a fault's delay; closing the sandbox cancels them. */
  readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    readonly registry: WorkspaceRegistry,
    readonly config: PipelineConfig,
    handlers: ReadonlyMap<string, Handler>,
  ) {
    this.limiter = new TokenRateWindows(RATE_WINDOW_MS * config.timeScale);
    for (const op of sandboxOperations) {
      const handler = handlers.get(op.name);
      // handlers/index.ts refuses a catalog without its handlers at load; a pipeline given another set is checked too.
      if (!handler) throw new Error(`${op.name} has no handler: add one to src/sandbox/handlers/${op.toolset}.ts`);
      // The spec's upload limits, read as KiB, are the catalog's upload facet.
      const limit = op.body === 'multipart' ? op.upload?.maxKib : undefined;
      this.router.add(
        op.method,
        op.path,
        { kind: 'op', op, validator: compileInput(op), handler, ...(limit !== undefined ? { uploadLimitKib: limit } : {}) },
        op.segmentedParam,
      );
    }
    for (const [m, p] of SESSION_ONLY_ROUTES) this.router.add(m, p, { kind: 'session_only' });
  }

  requests(): RequestLogEntry[] {
    return [...this.log];
  }

  clearRequests(): void {
    this.log = [];
  }

  private record(e: RequestLogEntry): void {
    this.log.push(e);
    if (this.log.length > REQUEST_LOG_CAP) this.log.splice(0, this.log.length - REQUEST_LOG_CAP);
    for (const w of this.logWaiters) w(e);
  }

  /**
   * The first logged request `match` accepts: one already in the log, or the next one logged (a
   * request is logged once answered). Rejects after `timeoutMs`, naming `what`. A test awaits the
   * request instead of reading the log again and again.
   */
  waitForRequest(match: (e: RequestLogEntry) => boolean, timeoutMs = 10_000, what = 'a matching request'): Promise<RequestLogEntry> {
    const already = this.log.find(match);
    if (already) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      const waiter = (e: RequestLogEntry) => {
        if (!match(e)) return;
        clearTimeout(timer);
        this.logWaiters.delete(waiter);
        resolve(e);
      };
      const timer = setTimeout(() => {
        this.logWaiters.delete(waiter);
        reject(new Error(`the sandbox logged no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      // A bound on a wait, not a reason to keep the process alive.
      timer.unref();
      this.logWaiters.add(waiter);
    });
  }

  /** Entry point for requests under /api/v1 (the server routes /__sandbox elsewhere). */
  async handle(req: IncomingMessage, res: ServerResponse, ws: MemoryWorkspace, rawPath: string, rawQuery: string): Promise<void> {
    const locale = localeOf(req.headers['accept-language']);
    const method = (req.method ?? 'GET').toUpperCase();
    let hangUp = () => {};
    const x: Exchange = {
      locale,
      headers: {},
      started: performance.now(),
      entry: {
        time: new Date().toISOString(),
        method,
        path: API_ROOT + rawPath,
        template: null,
        workspace: ws.slug,
        scope: null,
        query: {},
        body: undefined,
        status: 0,
        duration_ms: 0,
        handler_ran: false,
      },
      hungUp: new Promise((resolve) => (hangUp = resolve)),
    };
    // A client that gives up (a cancelled tool call) closes the socket before the answer is written.
    res.on('close', () => {
      if (res.writableFinished) return;
      x.entry.client_closed = true;
      hangUp();
    });
    try {
      const query = new URLSearchParams(rawQuery);
      for (const [k, v] of query) {
        const prev = x.entry.query[k];
        x.entry.query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
      }
      await this.run(req, res, ws, method, rawPath, query, x);
    } catch (e) {
      this.sendError(res, e, x);
    }
  }

  private async run(
    req: IncomingMessage,
    res: ServerResponse,
    ws: MemoryWorkspace,
    method: string,
    rawPath: string,
    query: URLSearchParams,
    x: Exchange,
  ): Promise<void> {
    const m = this.router.match(method, rawPath || '/');
    if (m.kind === 'bad_path') {
      throw err(
        400,
        'request.malformed_path',
        'The request path is not valid percent-encoding.',
        "Le chemin de la requête n'est pas un encodage pour cent valide.",
      );
    }
    if (m.kind === 'not_found') {
      throw err(404, 'route.not_found', `No API operation at ${method} ${rawPath}.`, `Aucune opération de l'API pour ${method} ${rawPath}.`);
    }
    if (m.kind === 'method_not_allowed') {
      throw err(
        405,
        'route.method_not_allowed',
        `Method ${method} is not allowed here; allowed: ${m.allowed.join(', ')}.`,
        `La méthode ${method} n'est pas permise ici ; permises : ${m.allowed.join(', ')}.`,
        { allowed: m.allowed },
        { Allow: m.allowed.join(', ') },
      );
    }
    const route: Route<Target> = m.route;
    x.entry.template = route.template;

    let principal: Principal;
    try {
      principal = authenticate(ws, req.headers.authorization, Date.now());
    } catch (e) {
      // RFC 9728: a 401 points clients at the protected resource metadata, where OAuth starts.
      const host = String(req.headers.host ?? '').toLowerCase();
      if (e instanceof ApiError && e.status === 401 && /^[a-z0-9.\-[\]:]{1,255}$/.test(host)) {
        const metadata = `http://${host}/.well-known/oauth-protected-resource`;
        e.headers['WWW-Authenticate'] = `Bearer realm="workspace-api", resource_metadata="${metadata}"`;
      }
      throw e;
    }
    x.entry.scope = principal.scope;
    x.entry.member_id = String(principal.member.id);
    x.entry.token_id = String(principal.token.id);
    const target = route.target;
    if (target.kind === 'session_only') throw sessionRequired();
    if (target.op.scope === 'write' && principal.scope !== 'write') throw insufficientScope();

    if (this.config.rateLimit) {
      const now = this.config.clock();
      x.entry.counted_ms = now;
      const d = this.limiter.take(`${ws.slug}:${principal.token.id}`, now);
      x.headers['X-RateLimit-Limit'] = String(RATE_LIMIT);
      x.headers['X-RateLimit-Remaining'] = String(d.remaining);
      if (!d.allowed) {
        ws.counters.rate_limited = (ws.counters.rate_limited ?? 0) + 1;
        throw rateLimited(RATE_LIMIT, formatRetryAfter(d.retryAfterS, this.config.timeScale));
      }
    }

    const { op, validator } = target;
    let raw: Record<string, unknown> = {};
    let files: Record<string, UploadedFile> = {};
    if (op.body === 'query' || method === 'GET' || method === 'HEAD') {
      raw = coerceStrings(validator, query);
    } else if (op.body === 'multipart') {
      const parsed = await readMultipart(req, validator, target.uploadLimitKib ?? MAX_BODY_BYTES / 1024, x.locale);
      raw = parsed.fields;
      files = parsed.files;
      x.entry.body = {
        fields: Object.keys(parsed.fields),
        files: Object.fromEntries(Object.entries(files).map(([k, f]) => [k, { filename: f.filename, size: f.size }])),
      };
    } else {
      raw = await readJson(req);
      x.entry.body = raw;
    }

    const fault = this.faults.take({ method, template: route.template, rawPath, workspace: ws.slug });
    if (fault?.before) await fault.before({ hungUp: x.hungUp });
    if (fault?.delay_ms) await this.sleep(fault.delay_ms);
    if (fault && !fault.after_handler && (fault.status !== undefined || fault.reset || fault.broken_body)) {
      this.applyFault(res, fault, undefined, x);
      return;
    }

    const input = validateInput(validator, raw, x.locale);
    const listKey = `${op.name}:${Object.values(m.params).join('/')}`;
    const ctx: HandlerContext = {
      ws,
      op,
      params: m.params,
      input,
      files,
      member: principal.member,
      credential: credentialView(principal),
      locale: x.locale,
      now: () => new Date(this.config.clock()),
      scaled: (ms) => ms * this.config.timeScale,
      page: (items) => paginate(items, listKey, input, x.locale),
    };
    let result: HandlerResult;
    try {
      result = await target.handler(ctx);
    } finally {
      x.entry.handler_ran = true;
    }
    if (fault?.after_handler && (fault.status !== undefined || fault.reset || fault.broken_body)) {
      this.applyFault(res, fault, result, x);
      return;
    }
    if (fault) x.entry.fault = faultRecord(fault);
    this.sendResult(req, res, op, result, x);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }

  private applyFault(res: ServerResponse, fault: PendingFault, result: HandlerResult | undefined, x: Exchange): void {
    x.entry.fault = faultRecord(fault);
    if (fault.reset) {
      x.entry.status = 0;
      this.finish(x);
      res.socket?.destroy();
      return;
    }
    if (fault.broken_body) {
      const status = fault.status ?? (result && 'data' in result ? (result.status ?? 200) : 502);
      const full =
        result && 'data' in result
          ? JSON.stringify(result.meta ? { data: result.data, meta: result.meta } : { data: result.data })
          : JSON.stringify(envelope(injectedFault(status), x.locale));
      const cut = full.slice(0, Math.max(1, Math.floor(full.length / 2)));
      this.write(res, status, { ...x.headers, 'Content-Type': 'application/json; charset=utf-8' }, cut, x);
      return;
    }
    this.sendError(res, injectedFault(fault.status as number, fault.retry_after), x);
  }

  private sendResult(req: IncomingMessage, res: ServerResponse, op: SandboxOperation, result: HandlerResult, x: Exchange): void {
    if ('file' in result) {
      const f = result.file;
      const headers: Record<string, string> = { ...x.headers, 'Content-Type': f.contentType };
      if (f.filename)
        headers['Content-Disposition'] = `attachment; filename="${f.filename.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(f.filename)}`;
      if (typeof f.body === 'function') {
        if (f.size !== undefined) headers['Content-Length'] = String(f.size);
        res.writeHead(result.status ?? 200, headers);
        x.entry.status = result.status ?? 200;
        const stream = f.body();
        stream.on('error', () => res.destroy());
        res.on('close', () => stream.destroy());
        stream.pipe(res);
        this.finish(x);
        return;
      }
      // openapi.json is large and stable: an ETag lets clients revalidate it for free.
      if (op.name === 'get_openapi_description') {
        const etag = `"${createHash('sha1').update(f.body).digest('base64url')}"`;
        headers.ETag = etag;
        if (req.headers['if-none-match'] === etag) {
          delete headers['Content-Type'];
          this.write(res, 304, headers, '', x);
          return;
        }
      }
      this.write(res, result.status ?? 200, headers, f.body, x);
      return;
    }
    if (!('data' in result)) {
      this.write(res, 204, x.headers, '', x);
      return;
    }
    const body = JSON.stringify(result.meta ? { data: result.data, meta: result.meta } : { data: result.data });
    this.write(res, result.status ?? 200, { ...x.headers, 'Content-Type': 'application/json; charset=utf-8' }, body, x);
  }

  sendError(res: ServerResponse, e: unknown, x: Exchange): void {
    let error: ApiError;
    if (e instanceof ApiError) error = e;
    else {
      this.config.logger(`sandbox: internal error on ${x.entry.method} ${x.entry.path}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      error = err(500, 'sandbox.internal_error', 'The sandbox failed to answer this request.', "Le bac à sable n'a pas pu répondre à cette requête.");
    }
    const headers: Record<string, string> = { ...x.headers, ...error.headers, 'Content-Type': 'application/json; charset=utf-8' };
    if (error.status === 413) headers.Connection = 'close';
    this.write(res, error.status, headers, JSON.stringify(envelope(error, x.locale)), x);
  }

  private write(res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer, x: Exchange): void {
    x.entry.status = status;
    this.finish(x);
    if (res.headersSent || res.destroyed) return;
    const buf = typeof body === 'string' ? Buffer.from(body) : body;
    if (status !== 204 && status !== 304) headers['Content-Length'] = String(buf.length);
    res.writeHead(status, headers);
    res.end(status === 204 || status === 304 ? undefined : buf);
  }

  private finish(x: Exchange): void {
    x.entry.duration_ms = Math.round((performance.now() - x.started) * 1000) / 1000;
    this.record(x.entry);
  }
}

function faultRecord(f: PendingFault): FaultRecord {
  return {
    ...(f.status !== undefined ? { status: f.status } : {}),
    ...(f.delay_ms !== undefined ? { delay_ms: f.delay_ms } : {}),
    ...(f.reset ? { reset: true } : {}),
    ...(f.broken_body ? { broken_body: true } : {}),
    after_handler: Boolean(f.after_handler),
  };
}

export function envelope(e: ApiError, locale: Locale) {
  return { code: e.code, message: e.text[locale], details: e.details };
}

const tooLarge = (limitBytes: number) =>
  err(413, 'request.too_large', `The request body is larger than ${limitBytes} bytes.`, `Le corps de la requête dépasse ${limitBytes} octets.`, {
    max_bytes: limitBytes,
  });

// The sandbox keeps its own copy of this (src/net/http-io.ts is the server's): it emulates the workspace and imports nothing of the server.
/** Read the whole body, refusing (and no longer reading) anything past `limit` bytes. */
async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.pause();
    throw tooLarge(limit);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(c);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = () => {
      cleanup();
      reject(err(400, 'request.aborted', 'The request body could not be read.', "Le corps de la requête n'a pas pu être lu."));
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function mediaType(req: IncomingMessage): string {
  // split() always gives at least one part: the default is never taken.
  const [type = ''] = (req.headers['content-type'] ?? '').split(';');
  return type.trim().toLowerCase();
}

const unsupported = (expected: string) =>
  err(415, 'request.unsupported_media_type', `Send the body as ${expected}.`, `Envoyez le corps au format ${expected}.`, { expected });

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return {};
  const type = mediaType(req);
  const isJson = type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
  if (!isJson) throw unsupported('application/json');
  const buf = await readBody(req);
  if (buf.length === 0) return {};
  try {
    return JSON.parse(buf.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw err(400, 'request.malformed_json', 'The request body is not valid JSON.', "Le corps de la requête n'est pas un JSON valide.");
  }
}

async function readMultipart(
  req: IncomingMessage,
  v: InputValidator,
  fileLimitKib: number,
  locale: Locale,
): Promise<{ fields: Record<string, unknown>; files: Record<string, UploadedFile> }> {
  const type = mediaType(req);
  if (type !== 'multipart/form-data') throw unsupported('multipart/form-data');
  const buf = await readBody(req);
  let form: FormData;
  try {
    form = await new Response(buf, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
  } catch {
    throw err(400, 'request.malformed_multipart', 'The multipart body could not be parsed.', "Le corps multipart n'a pas pu être analysé.");
  }
  const strings: Array<[string, string]> = [];
  const files: Record<string, UploadedFile> = {};
  for (const [k, val] of form) {
    if (typeof val === 'string') {
      strings.push([k, val]);
      continue;
    }
    if (!v.fileFields.includes(k)) continue;
    if (val.size > fileLimitKib * 1024) {
      throw fieldError(k, locale, {
        en: `The ${k} may not be greater than ${fileLimitKib} kilobytes.`,
        fr: `Le fichier ${k} ne doit pas dépasser ${fileLimitKib} kilo-octets.`,
      });
    }
    files[k] = {
      filename: val.name || k,
      contentType: val.type || 'application/octet-stream',
      size: val.size,
      content: Buffer.from(await val.arrayBuffer()),
    };
  }
  for (const f of v.fileFields) {
    if (!files[f]) {
      throw fieldError(f, locale, { en: `The ${f} field is required and must be a file.`, fr: `Le champ ${f} est obligatoire et doit être un fichier.` });
    }
  }
  return { fields: coerceStrings(v, strings), files };
}
