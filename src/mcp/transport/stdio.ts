// MCP over stdio: the SDK's serveStdio and StdioServerTransport, as they are, behind a line guard.
// The guard reads stdin, drops a line longer than the cap as it streams in (a client that never sends
// a newline cannot grow memory without bound), checks each message (src/mcp/transport/message-guard.ts) and
// answers a malformed one itself; the messages it passes reach the SDK's transport unchanged.
//
// The end of stdin finishes what was asked: a one-shot pipe (`printf '...' | workspace-consulting-mcp`)
// closes its end as soon as it has written, and wants every answer. The SDK's transport closes when the
// stream it reads ends, cancelling whatever is in flight; so the guard ends that stream only once every
// request it passed on has been answered (each call bounded by its own limits).
import { PassThrough, Transform, type TransformCallback } from 'node:stream';
import type { JSONRPCMessage, McpRequestContext, Server } from '@modelcontextprotocol/server';
import { type ServeStdioOptions, type StdioServerHandle, StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Logger } from '../../log.js';
import { InFlight } from './in-flight.js';
import { type ErrorAnswer, guardText } from './message-guard.js';

/**
 * The longest line read, in bytes. The largest message a client needs is an artifact upload sent
 * inline: 25 MiB as base64 is 33.4 MiB. Past the cap the line is dropped as it streams in.
 */
const MAX_LINE_BYTES = 48 * 1024 * 1024;

const NEWLINE = 0x0a;

/** Splits stdin into lines, guards each, passes the good ones on (newline-terminated). */
export class LineGuard extends Transform {
  #parts: Buffer[] = [];
  #size = 0;
  /** Inside a line over the cap: everything up to its newline is dropped. */
  #discarding = false;

  constructor(
    private readonly reply: (answer: ErrorAnswer) => void,
    private readonly logger: Logger,
    private readonly maxLineBytes = MAX_LINE_BYTES,
    /**
     * Told of each request passed on (its id and method) and each cancellation (the id it cancels);
     * `answered` resolves once every request passed on has its answer, and the guard's output ends
     * only then.
     */
    private readonly watch?: { request(id: unknown, method: string): void; cancelled(id: unknown): void; answered(): Promise<void> },
  ) {
    super();
  }

  /** stdin ended: its last line counts even without a newline; then the output ends once all is answered. */
  override _flush(done: TransformCallback): void {
    if (!this.#discarding && this.#size > 0) this.#line(Buffer.concat(this.#parts, this.#size));
    this.#parts = [];
    this.#size = 0;
    if (!this.watch) {
      done();
      return;
    }
    // The process stays until then: said, for whoever wonders why it has not exited yet.
    this.logger.debug('stdin ended: answering the calls read before it, then closing');
    void this.watch.answered().then(() => done());
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl < 0 ? chunk.length : nl;
      if (!this.#discarding) {
        if (this.#size + (end - start) > this.maxLineBytes) {
          this.#discarding = true;
          this.#parts = [];
          this.#size = 0;
        } else if (end > start) {
          this.#parts.push(chunk.subarray(start, end));
          this.#size += end - start;
        }
      }
      if (nl < 0) break;
      if (this.#discarding) {
        this.#discarding = false;
        this.logger.warn({ maxBytes: this.maxLineBytes }, 'dropped a stdin line over the size cap');
        this.reply({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: `Invalid Request: a line over ${Math.round(this.maxLineBytes / 1024 / 1024)} MiB was dropped unread.` },
        });
      } else {
        // A line that came in one chunk is read where it lies (the usual message): no copy to join.
        this.#line(this.#parts.length === 1 ? (this.#parts[0] as Buffer) : Buffer.concat(this.#parts, this.#size));
      }
      this.#parts = [];
      this.#size = 0;
      start = nl + 1;
    }
    done();
  }

  #line(bytes: Buffer): void {
    // A CRLF line's \r is cut by length: a regex on every line cost more than the check.
    const cr = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d;
    const text = bytes.toString('utf8', 0, cr ? bytes.length - 1 : bytes.length);
    if (text.trim() === '') return;
    const g = guardText(text);
    if (g.kind === 'answer') {
      this.reply(g.answer);
      return;
    }
    if (g.kind === 'drop') {
      this.logger.debug({ why: g.why }, 'dropped a malformed message');
      return;
    }
    const m = g.message;
    if (typeof m.method === 'string' && m.id !== undefined) this.watch?.request(m.id, m.method);
    if (m.method === 'notifications/cancelled') this.watch?.cancelled((m.params as { requestId?: unknown } | undefined)?.requestId);
    // The line as it came when the guard left it alone (no second serialisation of a large upload).
    this.push(`${g.changed ? JSON.stringify(g.message) : text}\n`);
  }
}

interface StdioServing {
  handle: StdioServerHandle;
  /** The server pinned to the connection, once the client's first message built it. */
  server(): Server | undefined;
  /** Requests received and not yet answered on stdout. */
  inFlight: InFlight;
  /** Resolves once stdin has ended and every request read from it is answered (the transport then closes). */
  inputDone: Promise<void>;
}

interface ServeOnStdioOptions extends Pick<ServeStdioOptions, 'onerror'> {
  logger: Logger;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  maxLineBytes?: number;
}

/** Serves the factory on stdio, both eras, behind the line guard. */
export function serveOnStdio(factory: (ctx: McpRequestContext) => Promise<Server>, opts: ServeOnStdioOptions): StdioServing {
  const stdin = opts.stdin ?? process.stdin;
  // Everything written goes through one stream of ours, piped to stdout: the SDK's transport waits for
  // 'drain' once per message held behind a full pipe, so a burst of answers to a client slow to read
  // holds one listener each until the pipe drains (bounded by the requests in flight, not a leak).
  // Text in, text out: what is written here is JSON text, and a stream that turned each answer into
  // a Buffer on its way to stdout (then written as bytes) paid a copy of every answer.
  const stdout = new PassThrough({ decodeStrings: false, encoding: 'utf8' });
  stdout.setMaxListeners(0);
  const out = opts.stdout ?? process.stdout;
  stdout.pipe(out);
  // A client gone for good stops reading (EPIPE): nothing more can reach it, and an answer still being
  // made must neither crash the process nor wait for a reader forever. From then on what is written
  // flows to nowhere, so the calls in flight end and the end of the input ends the process.
  out.on('error', (err: Error) => {
    opts.logger.debug({ err: err.message }, 'stdout closed by the client: answers are dropped');
    stdout.unpipe(out);
    stdout.resume();
  });
  const reply = (a: ErrorAnswer) => {
    stdout.write(`${JSON.stringify(a)}\n`);
  };
  // A request counts from its line until its answer is written (a cancelled one gets none). A 2026
  // listen stream is no call: it is answered when the connection closes, so it is never waited for.
  // A client that reuses an id in flight gets two answers: each ends one count, the oldest first.
  const inFlight = new InFlight();
  const pending = new Map<unknown, (() => void)[]>();
  const settle = (id: unknown) => {
    const ends = pending.get(id);
    ends?.shift()?.();
    if (ends?.length === 0) pending.delete(id);
  };
  const begin = (id: unknown, method: string) => {
    if (method === 'subscriptions/listen') return;
    const ends = pending.get(id) ?? [];
    ends.push(inFlight.begin());
    pending.set(id, ends);
  };
  const guard = new LineGuard(reply, opts.logger, opts.maxLineBytes, {
    request: begin,
    cancelled: settle,
    answered: () => inFlight.idle(),
  });
  stdin.pipe(guard);
  // A stdin destroyed without an end (the pipe does not end the guard then) ends the input all the same.
  stdin.once('close', () => {
    if (!guard.writableEnded) guard.end();
  });
  const inputDone = new Promise<void>((resolve) => guard.once('end', resolve));
  // The SDK's transport reads only guarded lines, from the guard itself (a stream more between them
  // cost each message a write and a read); its own cap sits above ours so it never trips.
  const transport = new StdioServerTransport(guard, stdout, {
    maxBufferSize: (opts.maxLineBytes ?? MAX_LINE_BYTES) + 1024 * 1024,
  });
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    try {
      return await send(message);
    } finally {
      const m = message as { id?: unknown; method?: unknown };
      if (m.method === undefined && m.id !== undefined) settle(m.id);
    }
  };
  let pinned: Server | undefined;
  const handle = serveStdio(
    async (ctx) => {
      pinned = await factory(ctx);
      return pinned;
    },
    { transport, ...(opts.onerror ? { onerror: opts.onerror } : {}) },
  );
  return { handle, server: () => pinned, inFlight, inputDone };
}
