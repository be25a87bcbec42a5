// The HTTP client of one workspace: one keep-alive node:http Agent, the member's rate limiter, retries
// that never duplicate a write (decided in src/api/retry.ts), per-attempt timeouts, the caller's
// cancellation, and a cache for reference reads. It knows nothing of MCP: the MCP layer hands it
// calls and reads typed errors.
import { createHash } from 'node:crypto';
import type * as Http from 'node:http';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { type HttpMethod, type Operation, pathParams } from '../operation.js';
import { ResponseCache } from './cache.js';
import { decodeError, decodeSuccess, dispositionFilename, rateLimitHeaders } from './decode.js';
import { publishAnswer } from './diagnostics.js';
import { abortError, NetworkError, OutcomeUnknownError, RateLimitWaitTooLongError, RequestTimeoutError, WorkspaceApiError } from './errors.js';
import type { RateLimiter } from './limiter.js';
import { loopbackLookup, parseApiRoot } from './lookup.js';
import { buildPath } from './path.js';
import { appendQuery } from './query.js';
import { decideRetry, isNetworkFailure, isTimeout, type Outcome, parseRetryAfter, sleep, wasNotSent } from './retry.js';

interface RetryOptions {
  /** 429 answers waited out before giving up. Default 5: processes sharing a token can draw several in a row. */
  max429Retries?: number;
  /** A Retry-After above this fails at once instead of blocking the tool call. Default 120. */
  maxRetryAfterSeconds?: number;
  /**
   * The longest one call waits for the rate budget in all (its turn in the window, and any
   * Retry-After): a call that would wait longer fails at once with BudgetWaitTooLongError (nothing
   * sent) or RateLimitWaitTooLongError (after a 429), saying when to try again. Default 30 s.
   */
  maxBudgetWaitMs?: number;
  /**
   * The same bound for a call whose caller hears of its wait (ApiCall.onRateWait: an MCP request
   * with a progress token, kept alive by progress while it waits). Default 5 minutes.
   */
  maxBudgetWaitWithProgressMs?: number;
  /** Retries after a network failure or a 502/503/504 (idempotent methods only). Default 2. */
  maxNetworkRetries?: number;
  /** First backoff step; doubles each retry, with jitter. Default 250 ms. */
  backoffBaseMs?: number;
}

export interface ApiClientOptions {
  /** Workspace origin + '/api/v1'. https, except on loopback. */
  baseUrl: string;
  /** Asked before every attempt, so a refreshed OAuth token is picked up. */
  token: () => string | Promise<string>;
  /** Called once on a 401; true means the token was refreshed and the call is tried once more. */
  onUnauthorized?: () => Promise<boolean>;
  locale?: 'en' | 'fr';
  /** Per attempt (time to the answer's headers, then between body chunks), to about 1 s. Default 30 s. */
  timeoutMs?: number;
  /** The member's rate budget: every client of one member's token draws on the member's limiter. */
  limiter: RateLimiter;
  cache?: ResponseCache;
  logger?: Logger;
  userAgent?: string;
  retry?: RetryOptions;
}

export interface MultipartBody {
  fields?: Record<string, string>;
  files?: Record<string, { blob: Blob; filename: string }>;
}

interface ApiCall {
  method: HttpMethod;
  /** Template, e.g. '/engagements/{engagement}/findings'. */
  path: string;
  pathParams?: Record<string, string>;
  /** undefined/null dropped; arrays repeated; objects JSON-encoded; booleans 1/0. */
  query?: Record<string, unknown>;
  json?: unknown;
  multipart?: MultipartBody;
  response?: 'json' | 'file';
  /** Reference read: served from the cache while fresh. GET only. */
  cacheable?: boolean;
  /** The one path parameter that may hold slashes (the operation's segmentedParam facet). */
  segmentedParam?: string;
  /** The MCP request's cancellation: aborts the HTTP request and any wait. */
  signal?: AbortSignal;
  /**
   * Called when the request must wait for the rate budget (its turn in the window, or a 429's
   * Retry-After), with an estimate of the wait in ms, then again every few seconds while it waits
   * (RateLimiter's `waitReportMs`): what an MCP server turns into progress notifications, so a
   * client's request timeout does not run out on a call that is only queued.
   */
  onRateWait?: (waitMs: number) => void;
  /** The longest this call may wait for the budget, when the caller's own limit is shorter (a script's time). */
  maxBudgetWaitMs?: number;
  /** A job's poll: it draws on the polls' share of the budget (RateLimiter's POLL_SHARE). */
  poll?: boolean;
}

export interface ApiFile {
  contentType: string;
  filename?: string;
  size?: number;
  /** The caller must consume or destroy it: it holds the connection. */
  body: Readable;
}

export interface ApiResponse {
  status: number;
  data?: unknown;
  meta?: Record<string, unknown>;
  file?: ApiFile;
  headers: Record<string, string | string[] | undefined>;
  fromCache: boolean;
  /** 429 answers waited out. */
  rateLimitRetries: number;
  /** Requests sent (0 when served from the cache). */
  attempts: number;
  /**
   * A DELETE whose earlier attempt may have been applied (its answer was lost, or came back 502-504)
   * was answered 404 or 410 when sent again: the resource is gone, most likely deleted by that
   * attempt. A success, rendered as "deleted (it was already gone when checked again)"; `status` is
   * the retry's own.
   */
  alreadyGone?: true;
}

type Headers = Record<string, string | string[] | undefined>;
type Envelope = ReturnType<typeof decodeSuccess>;

/** One attempt's answer: a read body (envelopes, errors) or a file stream left to the caller. */
type Answer = { status: number; headers: Headers; text: string; file?: undefined } | { status: number; headers: Headers; text?: undefined; file: ApiFile };

const DEFAULT_USER_AGENT = `workspace-consulting-mcp (node ${process.version})`;
/**
 * How long a kept-alive connection may sit idle here before this side closes it: below the keep-alive
 * timeout of common servers (Node's, the sandbox's: 5 s), so a connection is not reused just as the
 * server closes it. (A server's Keep-Alive hint, when sent, shortens it further: node:http's Agent.)
 */
const IDLE_CONNECTION_MS = 4_000;

// node:http and node:https rather than the undici package: importing undici loads a hundred modules
// and holds more resident memory before the first request, while node:http is part of Node's own
// startup snapshot (bench/run.ts's breakdown measures both). require(), not `import`: the ESM facade of
// node:http reads every export, which loads Node's bundled undici (decode.ts says the same).
const requireBuiltin = createRequire(import.meta.url);
const http = requireBuiltin('node:http') as typeof Http;
type Https = typeof import('node:https');
let https: Https | undefined;

/** node:https (with TLS), loaded by the first client of an https workspace: a loopback one never needs it. */
function httpsModule(): Https {
  https ??= requireBuiltin('node:https') as Https;
  return https;
}

/** An idle connection that times out: the same `code` shape as a socket error, read by retry.ts. */
function timeoutError(phase: 'headers' | 'body', ms: number): Error {
  return Object.assign(new Error(`no ${phase} within ${ms} ms`), { code: phase === 'headers' ? 'HEADERS_TIMEOUT' : 'BODY_TIMEOUT' });
}

export class ApiClient {
  readonly #origin: string;
  readonly #basePath: string;
  readonly #agent: Http.Agent;
  readonly #transport: typeof http | Https;
  readonly #token: () => string | Promise<string>;
  readonly #onUnauthorized: (() => Promise<boolean>) | undefined;
  readonly #locale: string;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #cache: ResponseCache;
  readonly #log: Logger | undefined;
  readonly #retry: { max429Retries: number; maxRetryAfterSeconds: number; maxNetworkRetries: number; backoffBaseMs: number };
  readonly #maxBudgetWaitMs: number;
  readonly #maxBudgetWaitWithProgressMs: number;
  /** Where requests go, as node:http takes it (read once: a URL's getters and a regex per request add up). */
  readonly #target: { protocol: string; hostname: string; port?: string };
  readonly #limiter: RateLimiter;
  // The token's fingerprint, recomputed only when the provider hands out a new token.
  #lastToken = '';
  #lastFingerprint = '';

  constructor(opts: ApiClientOptions) {
    const root = parseApiRoot(opts.baseUrl);
    this.#origin = root.origin;
    this.#basePath = root.basePath;
    this.#token = opts.token;
    this.#onUnauthorized = opts.onUnauthorized;
    this.#locale = opts.locale ?? 'en';
    this.#userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.#limiter = opts.limiter;
    this.#cache = opts.cache ?? new ResponseCache();
    this.#log = opts.logger;
    this.#retry = {
      max429Retries: opts.retry?.max429Retries ?? 5,
      maxRetryAfterSeconds: opts.retry?.maxRetryAfterSeconds ?? 120,
      maxNetworkRetries: opts.retry?.maxNetworkRetries ?? 2,
      backoffBaseMs: opts.retry?.backoffBaseMs ?? 250,
    };
    this.#maxBudgetWaitMs = opts.retry?.maxBudgetWaitMs ?? 30_000;
    this.#maxBudgetWaitWithProgressMs = opts.retry?.maxBudgetWaitWithProgressMs ?? 300_000;
    this.#transport = root.origin.startsWith('https:') ? httpsModule() : http;
    this.#agent = new this.#transport.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS });
    const host = new URL(root.origin);
    this.#target = { protocol: host.protocol, hostname: host.hostname.replace(/^\[|\]$/g, ''), ...(host.port ? { port: host.port } : {}) };
  }

  async request(call: ApiCall): Promise<ApiResponse> {
    const { method, signal } = call;
    // Built before anything else: a bad path parameter stops the call without spending a request.
    const path = this.#basePath + appendQuery(buildPath(call.path, call.pathParams ?? {}, call.segmentedParam), call.query);
    const body = await encodeBody(call);
    const cacheable = call.cacheable === true && method === 'GET';
    const limiter = this.#limiter;
    const retries = { network: 0, rateLimit: 0, stale: 0 };
    let attempts = 0;
    let refreshed = false;
    // An attempt may have reached the workspace and been applied, but its answer did not reach us
    // whole: a retry of an idempotent call then meets the state that attempt left.
    let mayHaveApplied = false;
    // What this call has spent waiting for the rate budget, against its bound: longer when its
    // client hears of the wait (progress keeps its request alive), never past the caller's own.
    let budgetWaitedMs = 0;
    const boundMs = Math.min(call.onRateWait ? this.#maxBudgetWaitWithProgressMs : this.#maxBudgetWaitMs, call.maxBudgetWaitMs ?? Infinity);

    for (;;) {
      if (signal?.aborted) throw abortError(signal);
      const token = await this.#token();
      const fingerprint = this.#fingerprint(token);
      const cacheKey = cacheable ? ResponseCache.key(fingerprint, method, this.#origin + path) : '';
      if (cacheable) {
        const hit = this.#cache.get(cacheKey);
        if (hit !== undefined) return { ...hit, fromCache: true, rateLimitRetries: retries.rateLimit, attempts };
      }
      // The server asked this token to stay away longer than a tool call may block: say so at once
      // rather than queue behind the pause.
      const pausedMs = limiter.pausedForMs();
      if (pausedMs > this.#retry.maxRetryAfterSeconds * 1000) throw new RateLimitWaitTooLongError(Math.ceil(pausedMs / 1000), this.#retry.maxRetryAfterSeconds);

      const queuedAt = Date.now();
      const tried = await this.#attempt(call, path, token, body, Math.max(0, boundMs - budgetWaitedMs), () => {
        attempts++;
        budgetWaitedMs += Date.now() - queuedAt;
      });
      const { outcome, error, envelope } = this.#read(call, path, tried);
      const decision = decideRetry(
        { method, outcome, retries, refreshed, mayHaveApplied, budgetLeftMs: boundMs - budgetWaitedMs, jitter: Math.random() },
        { ...this.#retry, canRefresh: this.#onUnauthorized !== undefined },
      );
      if (error instanceof WorkspaceApiError) error.rateLimitRetries = retries.rateLimit;
      switch (decision.action) {
        case 'return': {
          const { status, headers, file } = (tried as { answer: Answer }).answer;
          if (file !== undefined) return { status, headers, file, fromCache: false, rateLimitRetries: retries.rateLimit, attempts };
          if (cacheable && status === 200) this.#cache.set(cacheKey, { status, headers, ...envelope });
          else if (method !== 'GET') this.#cache.invalidate(fingerprint, this.#origin + areaPrefix(path, this.#basePath));
          return { status, headers, ...envelope, fromCache: false, rateLimitRetries: retries.rateLimit, attempts };
        }
        case 'retry': {
          retries[decision.kind]++;
          mayHaveApplied = decision.mayHaveApplied;
          const why = describeRetry(outcome, error);
          this.#log?.warn({ method, path, ...why.fields, retry: retries[decision.kind], waitMs: decision.waitMs }, why.message);
          if (decision.kind === 'rateLimit') {
            budgetWaitedMs += decision.waitMs;
            await this.#wait(decision.waitMs, signal, call.onRateWait, limiter.waitReportMs);
          } else await this.#wait(decision.waitMs, signal);
          continue;
        }
        case 'refresh':
          refreshed = true;
          if (await this.#onUnauthorized?.()) {
            this.#log?.info({ method, path }, 'token refreshed after 401, retrying once');
            continue;
          }
          throw error;
        case 'already-gone': {
          const { status, headers } = (tried as { answer: Answer }).answer;
          this.#cache.invalidate(fingerprint, this.#origin + areaPrefix(path, this.#basePath));
          this.#log?.info({ method, path, status, attempts }, 'DELETE retried after a lost answer found the resource gone');
          return { status, headers, fromCache: false, rateLimitRetries: retries.rateLimit, attempts, alreadyGone: true };
        }
        case 'outcome-unknown':
          throw new OutcomeUnknownError(method, path, error);
        case 'wait-too-long':
          throw new RateLimitWaitTooLongError(decision.retryAfterSeconds, decision.capSeconds);
        case 'fail':
          if (outcome.kind === 'no-answer' && !outcome.timedOut) {
            throw new NetworkError(`Could not reach the workspace at ${this.#origin} (${describe(error)}).`, { cause: error });
          }
          throw error;
      }
    }
  }

  /**
   * What an attempt came to, for the retry decision: its outcome, the error the call fails with if
   * it is not tried again, and a success's decoded body.
   */
  #read(call: ApiCall, path: string, tried: { answer: Answer } | { failed: unknown }): { outcome: Outcome; error?: unknown; envelope?: Envelope } {
    if ('failed' in tried) {
      const timedOut = isTimeout(tried.failed);
      const error = timedOut ? new RequestTimeoutError(call.method, path, this.#timeoutMs) : tried.failed;
      return { outcome: { kind: 'no-answer', notSent: wasNotSent(tried.failed), stale: !timedOut && isStale(tried.failed), timedOut }, error };
    }
    const { status, headers, text } = tried.answer;
    publishAnswer({ method: call.method, path: call.path, ids: call.pathParams ?? {}, status });
    const retryAfterSeconds = parseRetryAfter(headers['retry-after']);
    const outcome: Outcome = { kind: 'answer', status, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
    if (status < 200 || status >= 300) return { outcome, error: decodeError(status, headers, text ?? '') };
    if (text === undefined) return { outcome };
    try {
      return { outcome, envelope: decodeSuccess(status, headers, text) };
    } catch (err) {
      // A success whose body arrived cut or garbled.
      return { outcome: { ...outcome, unreadable: true }, error: err };
    }
  }

  /**
   * One attempt through the rate budget: the answer, or the network failure it met. Rejects with the
   * limiter's own refusals (nothing sent) and the caller's cancellation.
   */
  async #attempt(
    call: ApiCall,
    path: string,
    token: string,
    body: EncodedBody,
    maxWaitMs: number,
    onSend: () => void,
  ): Promise<{ answer: Answer } | { failed: unknown }> {
    const { signal } = call;
    try {
      const answer = await this.#limiter.schedule(
        () => {
          onSend();
          return this.#send(call.method, path, token, body, call.response ?? 'json', signal);
        },
        {
          ...(signal ? { signal } : {}),
          ...(call.onRateWait ? { onWait: call.onRateWait } : {}),
          ...(call.poll ? { poll: true } : {}),
          maxWaitMs,
          refused: (a) => a.status === 429,
          // Learnt before the next request is admitted: how much of the budget is left, or how long
          // the server asks every participant to stay away.
          observation: (a) =>
            a.status === 429
              ? { ...rateLimitHeaders(a.headers), retryAfterSeconds: parseRetryAfter(a.headers['retry-after']) ?? 1 }
              : (rateLimitHeaders(a.headers) ?? {}),
        },
      );
      return { answer };
    } catch (err) {
      if (signal?.aborted) throw abortError(signal);
      // An answer of ours before sending (the limiter's "briefly unavailable") carries a code too,
      // but is no network condition: a write refused so was never sent.
      if (err instanceof WorkspaceApiError || !isNetworkFailure(err)) throw err;
      return { failed: err };
    }
  }

  /** Split flat tool arguments into path, query and body as the operation says, then call it. */
  callOperation(
    op: Operation,
    args: Record<string, unknown>,
    opts?: { signal?: AbortSignal; multipart?: MultipartBody; onRateWait?: (waitMs: number) => void; maxBudgetWaitMs?: number; poll?: boolean },
  ): Promise<ApiResponse> {
    const names = pathParams(op.path);
    const params: Record<string, string> = {};
    let rest: Record<string, unknown> | undefined;
    for (const key in args) {
      const value = args[key];
      if (names.includes(key)) {
        if (value !== undefined && value !== null) params[key] = String(value);
      } else {
        rest ??= {};
        rest[key] = value;
      }
    }
    const call: ApiCall = {
      method: op.method,
      path: op.path,
      pathParams: params,
      response: op.response,
      cacheable: op.reference && op.method === 'GET',
      ...(op.segmentedParam ? { segmentedParam: op.segmentedParam } : {}),
    };
    if (opts?.signal !== undefined) call.signal = opts.signal;
    if (opts?.onRateWait !== undefined) call.onRateWait = opts.onRateWait;
    if (opts?.maxBudgetWaitMs !== undefined) call.maxBudgetWaitMs = opts.maxBudgetWaitMs;
    if (opts?.poll) call.poll = true;
    switch (op.body) {
      case 'query':
        if (rest !== undefined) call.query = rest;
        break;
      case 'json':
        call.json = rest ?? {};
        break;
      case 'multipart':
        call.multipart = multipartOf(rest, opts?.multipart);
        break;
      case 'none':
        break;
    }
    return this.request(call);
  }

  /** The member's rate budget this client draws on. */
  get limiter(): RateLimiter {
    return this.#limiter;
  }

  /** Close the keep-alive connections. */
  async close(): Promise<void> {
    this.#agent.destroy();
  }

  #send(method: HttpMethod, path: string, token: string, body: EncodedBody, response: 'json' | 'file', signal: AbortSignal | undefined): Promise<Answer> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      // Laravel renders errors as JSON only when JSON comes first, downloads included.
      accept: response === 'file' ? 'application/json, */*;q=0.8' : 'application/json',
      'accept-language': this.#locale,
      'user-agent': this.#userAgent,
    };
    if (body.contentType !== undefined) headers['content-type'] = body.contentType;
    if (body.payload !== undefined) headers['content-length'] = String(body.payload.byteLength);
    return this.#exchange(method, path, headers, body.payload, signal, response);
  }

  /**
   * One request: resolves with the answer, its text read whole, or for a file answered (`response`
   * 'file', a success) once its headers arrived, the body left to the caller to stream. Rejects on a
   * network failure, an idle connection (no headers, or no body data, for timeoutMs: the socket's
   * idle timeout covers both phases) or the caller's cancellation.
   */
  #exchange(
    method: HttpMethod,
    path: string,
    headers: Record<string, string>,
    payload: Buffer | undefined,
    signal: AbortSignal | undefined,
    response: 'json' | 'file',
  ): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const req = this.#transport.request({
        ...this.#target,
        path,
        method,
        headers,
        agent: this.#agent,
        lookup: loopbackLookup,
        timeout: this.#timeoutMs,
      });
      if (signal) {
        // The caller's cancellation destroys the request, and with it an answer's body still coming,
        // as node:http's own `signal` option does, for less: that option follows the request with a
        // dozen end-of-stream listeners to know when to drop its own, on every call.
        const onAbort = () => req.destroy(abortError(signal));
        if (signal.aborted) onAbort();
        else {
          signal.addEventListener('abort', onAbort, { once: true });
          req.once('close', () => signal.removeEventListener('abort', onAbort));
        }
      }
      let answered: Http.IncomingMessage | undefined;
      req.on('timeout', () => {
        // Once answered, the body's reader (here or the caller's file stream) must see the timeout too.
        const err = timeoutError(answered ? 'body' : 'headers', this.#timeoutMs);
        answered?.destroy(err);
        req.destroy(err);
      });
      // A reused connection that fails before any byte of the answer: the server closed it as it was reused.
      req.on('error', (err) => reject(req.reusedSocket && answered === undefined ? Object.assign(err, { staleConnection: true }) : err));
      req.on('response', (res) => {
        answered = res;
        const status = res.statusCode ?? 0;
        const resHeaders = res.headers as Headers;
        if (response === 'file' && status >= 200 && status < 300) {
          resolve({ status, headers: resHeaders, file: fileOf(res, resHeaders) });
        } else if (status === 204) {
          res.resume();
          resolve({ status, headers: resHeaders, text: '' });
        } else {
          // Read from this turn on: the body that came with the headers is handed over as it is
          // parsed, where a reader a few promise turns later found it buffered and read it again.
          readText(res).then((text) => resolve({ status, headers: resHeaders, text }), reject);
        }
      });
      req.end(payload);
    });
  }

  /**
   * A wait that the caller's cancellation cuts short, rejecting with an AbortError. With `report`,
   * the time left is told at once and then every `everyMs` (a rate wait the caller shows as progress).
   */
  async #wait(ms: number, signal: AbortSignal | undefined, report?: (waitMs: number) => void, everyMs = 5_000): Promise<void> {
    const until = Date.now() + ms;
    let timer: NodeJS.Timeout | undefined;
    if (report) {
      const tell = (left: number) => {
        try {
          report(left);
        } catch {
          // a report that fails must not end the wait: the caller's signal does that
        }
      };
      tell(ms);
      timer = setInterval(() => tell(Math.max(0, until - Date.now())), everyMs);
      timer.unref();
    }
    try {
      await sleep(ms, signal);
    } catch (err) {
      if (signal?.aborted) throw abortError(signal);
      throw err;
    } finally {
      clearInterval(timer);
    }
  }

  #fingerprint(token: string): string {
    if (token !== this.#lastToken) {
      this.#lastToken = token;
      this.#lastFingerprint = tokenFingerprint(token);
    }
    return this.#lastFingerprint;
  }
}

/** A short, non-reversible name for a token: keys caches and limiters without holding the secret. */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

interface EncodedBody {
  payload?: Buffer;
  contentType?: string;
}

const NO_BODY: EncodedBody = {};

// Encoded once per call: retries resend the same bytes.
async function encodeBody(call: ApiCall): Promise<EncodedBody> {
  if (call.multipart !== undefined) {
    const form = new FormData();
    for (const [name, value] of Object.entries(call.multipart.fields ?? {})) form.append(name, value);
    for (const [name, file] of Object.entries(call.multipart.files ?? {})) form.append(name, file.blob, file.filename);
    // The platform's own multipart encoder (the Response of the global fetch): it writes the boundary
    // and says it in the content type. Only uploads load it.
    const encoded = new Response(form);
    const contentType = encoded.headers.get('content-type') ?? undefined;
    return { payload: Buffer.from(await encoded.arrayBuffer()), ...(contentType ? { contentType } : {}) };
  }
  if (call.json !== undefined) return { payload: Buffer.from(JSON.stringify(call.json)), contentType: 'application/json' };
  return NO_BODY;
}

/** A file answer's body, streamed by the caller, with what its headers say of it. */
function fileOf(res: Http.IncomingMessage, headers: Headers): ApiFile {
  const contentType = firstHeader(headers, 'content-type') ?? 'application/octet-stream';
  const file: ApiFile = { contentType, body: res };
  const filename = dispositionFilename(headers);
  if (filename !== undefined) file.filename = filename;
  const length = Number(firstHeader(headers, 'content-length'));
  if (Number.isFinite(length) && length >= 0) file.size = length;
  return file;
}

/** A whole answer body as text; a connection lost half-way rejects (a network failure, retried as one). */
function readText(res: Http.IncomingMessage): Promise<string> {
  // Events, not `for await`: the async iterator costs more CPU per request on this path, which every
  // answer takes.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    // A connection that closes mid-answer without an error event still ends the wait, as a lost one.
    res.on('close', () => {
      if (!res.complete) reject(Object.assign(new Error('the connection closed before the answer ended'), { code: 'ECONNRESET' }));
    });
  });
}

function multipartOf(rest: Record<string, unknown> | undefined, given: MultipartBody | undefined): MultipartBody {
  const files = given?.files ?? {};
  const fields: Record<string, string> = {};
  for (const key in rest) {
    const value = rest[key];
    if (value === undefined || value === null || key in files) continue;
    fields[key] =
      typeof value === 'string' ? value : typeof value === 'boolean' ? (value ? '1' : '0') : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  Object.assign(fields, given?.fields);
  return { fields, files };
}

/** '/api/v1/ai/profiles/X' -> '/api/v1/ai': the area whose cached reads a write may have changed. */
function areaPrefix(path: string, basePath: string): string {
  const rest = path.slice(basePath.length);
  const end = rest.slice(1).search(/[/?]/);
  return basePath + (end === -1 ? rest : rest.slice(0, end + 1));
}

function firstHeader(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `${typeof code === 'string' ? `${code} ` : ''}${err.message}${cause}`;
  }
  return String(err);
}

/** A failure of a reused kept-alive connection before any byte of the answer (#exchange). */
function isStale(err: unknown): boolean {
  return (err as { staleConnection?: unknown } | null)?.staleConnection === true;
}

/** What the log says of a retry: why, and the figure that tells it. */
function describeRetry(outcome: Outcome, error: unknown): { message: string; fields: Record<string, unknown> } {
  if (outcome.kind === 'no-answer') {
    return {
      message: outcome.stale ? 'a kept-alive connection closed as it was reused, sending again' : 'workspace unreachable, retrying',
      fields: { error: describe(error) },
    };
  }
  if (outcome.status === 429) return { message: 'rate limited by the workspace, waiting', fields: { retryAfterSeconds: outcome.retryAfterSeconds ?? 1 } };
  return { message: outcome.unreadable ? 'unreadable answer, retrying' : 'workspace unavailable, retrying', fields: { status: outcome.status } };
}
