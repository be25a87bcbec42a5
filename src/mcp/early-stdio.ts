// A stdio transport that starts answering before the MCP server exists. A client's first exchange is
// `initialize` then `tools/list`; both answers are known at build time (tool-list-cache.ts), while
// the server behind them needs the SDK, zod and the 141 catalog schemas, most of the startup cost.
// So this reads stdin at once, answers those two from the cache, holds every other message, and
// hands over when the SDK server connects: the held messages are replayed in order, `initialize`
// included (so the server learns the client's capabilities), and the server's second answer to
// that replayed `initialize` is swallowed. Node built-ins and types only, on purpose.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js';

export interface EarlyAnswers {
  /** The result of `initialize` for these request params. */
  initialize(params: unknown): Record<string, unknown>;
  tools: Tool[];
}

/**
 * The longest line read, in characters. The largest message a client needs is an artifact upload
 * sent inline: 25 MiB as base64 is 33.4 MiB. Past the cap the line is dropped as it streams in, so
 * a client that never sends a newline cannot grow the buffer until memory runs out.
 */
export const MAX_LINE_CHARS = 48 * 1024 * 1024;

export interface EarlyStdioOptions {
  /** Without answers (no cache for this policy), everything waits for the server. */
  early?: EarlyAnswers | undefined;
  /** Default MAX_LINE_CHARS. */
  maxLineChars?: number;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/** The id the replayed `initialize` carries: a string no client would pick, never written out. */
const REPLAY_ID = 'early-stdio:replayed-initialize';

type Message = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: Record<string, unknown> };

export class EarlyStdioTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;

  private readonly stdin: NodeJS.ReadableStream;
  private readonly stdout: NodeJS.WritableStream;
  private readonly early: EarlyAnswers | undefined;
  private buffer = '';
  /** Inside a line over the cap: everything up to its newline is dropped. */
  private discarding = false;
  private readonly maxLineChars: number;
  private held: Message[] = [];
  private heldErrors: Error[] = [];
  private attached = false;
  private closed = false;
  private initializeAnswered = false;
  /** Once a request waits for the server, later ones wait behind it: answers keep their order. */
  private requestHeld = false;
  private toolsListed = false;
  private wantServer!: () => void;

  /**
   * Resolves when the real server is needed: a message arrived that only it can answer, or the
   * first tools/list was answered from the cache (the client is now busy reading it: the right
   * moment to load the rest), or there are no early answers at all.
   */
  readonly serverWanted: Promise<void>;

  constructor(opts: EarlyStdioOptions = {}) {
    this.stdin = opts.stdin ?? process.stdin;
    this.stdout = opts.stdout ?? process.stdout;
    this.early = opts.early;
    this.maxLineChars = opts.maxLineChars ?? MAX_LINE_CHARS;
    this.serverWanted = new Promise((resolve) => (this.wantServer = resolve));
    if (!this.early) this.wantServer();
  }

  /** The client holds a tools/list answered here: a server that later learns more tools must say list_changed. */
  get listedEarly(): boolean {
    return this.toolsListed;
  }

  /** Start reading stdin now, before any server is connected. */
  listen(): void {
    this.stdin.setEncoding('utf8');
    this.stdin.on('data', this.ondata);
    this.stdin.on('error', this.onstreamerror);
    this.stdin.on('end', this.onend);
  }

  /** Called by the SDK server's connect(): replay what was held, then pass messages straight on. */
  async start(): Promise<void> {
    this.attached = true;
    for (const err of this.heldErrors.splice(0)) this.onerror?.(err);
    for (const msg of this.held.splice(0)) this.deliver(msg);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && message.id === REPLAY_ID) return;
    await this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.ondata);
    this.stdin.off('error', this.onstreamerror);
    this.stdin.off('end', this.onend);
    this.stdin.pause();
    this.onclose?.();
  }

  private readonly ondata = (chunk: string | Buffer) => {
    let text = String(chunk);
    if (this.discarding) {
      const end = text.indexOf('\n');
      if (end < 0) return;
      this.discarding = false;
      text = text.slice(end + 1);
    }
    // Only the new chunk can hold the next newline: a 10 MB line read in 64 KB chunks is scanned once.
    if (!text.includes('\n')) {
      this.buffer += text;
      if (this.buffer.length > this.maxLineChars) this.dropLongLine();
      return;
    }
    this.buffer += text;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (line.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (err) {
        // JSON-RPC 2.0 section 5: a parse error is answered, with a null id since none could be read.
        this.reportError(err instanceof Error ? err : new Error(String(err)));
        void this.write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: each line must be one JSON-RPC message' } });
        continue;
      }
      const invalid = invalidMessage(parsed);
      if (invalid !== undefined) {
        // Valid JSON that is no JSON-RPC message (null, a number, a batch array, a missing method):
        // answered as an Invalid Request instead of reaching code that expects a message object.
        this.reportError(new Error(`Invalid JSON-RPC message: ${invalid}`));
        void this.write({ jsonrpc: '2.0', id: idOf(parsed), error: { code: -32600, message: `Invalid Request: ${invalid}` } });
        continue;
      }
      const msg = parsed as Message;
      if (this.attached) this.deliver(msg);
      else this.beforeServer(msg);
    }
    if (this.buffer.length > this.maxLineChars) this.dropLongLine();
  };

  /** The unfinished line is over the cap: free it, say so (its id is unread: null), skip to its end. */
  private dropLongLine(): void {
    this.buffer = '';
    this.discarding = true;
    const mib = this.maxLineChars / (1024 * 1024);
    const limit = mib >= 1 ? `${Math.round(mib)} MiB` : `${this.maxLineChars} characters`;
    this.reportError(new Error(`A stdin line over ${limit} was dropped`));
    void this.write({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `Invalid Request: a message over ${limit} was dropped unread. Send large files by path (a folder the client shares as a root, or WORKSPACE_UPLOAD_DIRS).` },
    });
  }

  private readonly onstreamerror = (err: Error) => this.reportError(err);
  private readonly onend = () => void this.close();

  private beforeServer(msg: Message): void {
    const early = this.requestHeld ? undefined : this.early;
    if (early && msg.method === 'initialize' && msg.id !== undefined) {
      void this.write({ jsonrpc: '2.0', id: msg.id, result: early.initialize(msg.params) });
      this.initializeAnswered = true;
      this.held.push({ ...msg, id: REPLAY_ID });
      return;
    }
    if (early && this.initializeAnswered && msg.method === 'tools/list' && msg.id !== undefined && msg.params?.cursor === undefined) {
      this.toolsListed = true;
      void this.write({ jsonrpc: '2.0', id: msg.id, result: { tools: early.tools } }).then(() => setImmediate(this.wantServer));
      return;
    }
    if (early && msg.method === 'ping' && msg.id !== undefined) {
      void this.write({ jsonrpc: '2.0', id: msg.id, result: {} });
      return;
    }
    this.held.push(msg);
    // Notifications (initialized, cancelled) can wait; a request needs the server now.
    if (msg.id !== undefined) {
      this.requestHeld = true;
      this.wantServer();
    }
  }

  private deliver(msg: Message): void {
    this.onmessage?.(msg as JSONRPCMessage);
  }

  private reportError(err: Error): void {
    if (this.attached) this.onerror?.(err);
    else this.heldErrors.push(err);
  }

  /** One wait for 'drain' shared by every write behind a full pipe: a listener each would pile up. */
  private drained: Promise<void> | undefined;

  private write(message: unknown): Promise<void> {
    if (this.stdout.write(`${JSON.stringify(message)}\n`)) return Promise.resolve();
    this.drained ??= new Promise((resolve) =>
      this.stdout.once('drain', () => {
        this.drained = undefined;
        resolve();
      }),
    );
    return this.drained;
  }
}

/** Why a parsed line is not a JSON-RPC 2.0 request, notification or response; undefined when it is one. */
function invalidMessage(x: unknown): string | undefined {
  if (x === null || typeof x !== 'object') return `expected an object, got ${x === null ? 'null' : typeof x}`;
  if (Array.isArray(x)) return 'batches are not supported: send one message per line';
  const m = x as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  const hasId = 'id' in m;
  if (hasId && !(typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id)))) return 'id must be a string or a number';
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method === '') return 'method must be a non-empty string';
    if ('params' in m && (m.params === null || typeof m.params !== 'object')) return 'params must be an object or an array';
    return undefined;
  }
  if (hasId && ('result' in m || ('error' in m && m.error !== null && typeof m.error === 'object'))) return undefined;
  return 'a message needs a method (request, notification) or an id with a result or an error (response)';
}

/** The id of an invalid request when it can be read, else null (JSON-RPC 2.0 section 5). */
function idOf(x: unknown): string | number | null {
  const id = x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as { id?: unknown }).id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}
