// `serve --http --port 0` from source as a child process, resolved once it says where it listens;
// and a raw HTTP peer that posts what a broken client would, in either protocol era.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { type Agent, type IncomingHttpHeaders, request } from 'node:http';
import type { Era, Rpc } from '../reliability/stdio-peer.js';
import { logged } from './logged.js';
import { spawnServer } from './spawn.js';

export interface HttpChild {
  /** The MCP endpoint, http://127.0.0.1:PORT/mcp. */
  url: string;
  port: number;
  child: ChildProcessWithoutNullStreams;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** The first match of `pattern` in stderr, already written or when it comes; rejects after `ms`. */
  logged(pattern: RegExp, ms?: number): Promise<string>;
  /** Everything written to stdout so far (nothing is expected: stdout is not a channel in HTTP mode). */
  stdout(): string;
  /** SIGTERM, then the exit code (null when killed). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `entry`: a built entry script to run instead of the sources (see spawnServer). */
export async function spawnHttpServer(env: Record<string, string> = {}, args: string[] = [], entry?: string): Promise<HttpChild> {
  const child = spawnServer({ LOG_LEVEL: 'warn', ...env }, ['serve', '--http', '--port', '0', ...args], entry);
  let err = '';
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve --http did not start:\n${err}`)), 20_000);
    const look = () => {
      const m = /serving MCP over Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(err);
      if (m) {
        clearTimeout(timer);
        child.stderr.off('data', look);
        resolve(m[1] as string);
      }
    };
    child.stderr.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve --http exited with ${code}:\n${err}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    stderr: () => err,
    logged: (pattern, ms = 10_000) => logged(child, () => err, pattern, `serve --http line matching ${pattern}`, ms),
    stdout: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** An HTTP answer as it came: status, headers and the body's text. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Sent on a connection an earlier request had used (keep-alive through `agent`). */
  reusedSocket: boolean;
}

/** A raw POST with chosen headers (fetch would not let us forge Host); `agent` to choose the connection. */
export function rawPost(port: number, headers: Record<string, string>, body: string, path = '/mcp', agent?: Agent): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ...(agent ? { agent } : {}),
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, reusedSocket: req.reusedSocket }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC messages of an answer's body, whether sent as JSON or as an event stream. */
export function messagesOf(a: RawAnswer): Rpc[] {
  if (a.body.trim() === '') return [];
  if (String(a.headers['content-type']).startsWith('text/event-stream')) {
    return a.body
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .filter((d) => d !== '')
      .map((d) => JSON.parse(d) as Rpc);
  }
  const parsed = JSON.parse(a.body) as Rpc | Rpc[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** The params field a 2026 client's Mcp-Name header mirrors, per method (SEP-2243). */
const NAMED_TARGET: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * A raw MCP client over HTTP in one era, for abuse tests: posts whatever text a broken client would,
 * with the headers a client of that era sends (a 2025 client's session id; a 2026 client's
 * MCP-Protocol-Version, Mcp-Method and Mcp-Name, read from the text when it names them).
 */
export class HttpPeer {
  private constructor(
    readonly port: number,
    readonly era: Era,
    readonly sessionId: string | undefined,
    /** A 2025 client's initialize answer (the server's capabilities). */
    readonly initialized?: Rpc,
    /** The connections it posts on (Node's global agent when unset). */
    readonly agent?: Agent,
  ) {}

  /** A 2025 client initializes (and keeps the session id it is given); a 2026 one has no handshake. */
  static async open(port: number, era: Era, agent?: Agent): Promise<HttpPeer> {
    if (era === 'modern') return new HttpPeer(port, era, undefined, undefined, agent);
    const init = await rawPost(
      port,
      {},
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'abuse', version: '1' } },
      }),
      '/mcp',
      agent,
    );
    const id = init.headers['mcp-session-id'];
    if (init.status !== 200 || typeof id !== 'string') throw new Error(`initialize answered ${init.status}: ${init.body.slice(0, 300)}`);
    const peer = new HttpPeer(
      port,
      era,
      id,
      messagesOf(init).find((m) => m.id === 'init'),
      agent,
    );
    await peer.post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return peer;
  }

  /** The headers a client of this era sends with `text`. */
  headers(text: string): Record<string, string> {
    if (this.era === 'legacy') return this.sessionId ? { 'mcp-session-id': this.sessionId, 'mcp-protocol-version': '2025-11-25' } : {};
    const h: Record<string, string> = { 'mcp-protocol-version': '2026-07-28' };
    let m: unknown;
    try {
      m = JSON.parse(text);
    } catch {
      return h;
    }
    const { method, params } = (m ?? {}) as { method?: unknown; params?: Record<string, unknown> };
    if (typeof method !== 'string') return h;
    h['mcp-method'] = method;
    // Mcp-Name mirrors the body's target for the methods that have one (a client sends it when it fits a header).
    const field = Object.hasOwn(NAMED_TARGET, method) ? NAMED_TARGET[method] : undefined;
    const target = field && params !== null && typeof params === 'object' ? params[field] : undefined;
    if (typeof target === 'string' && target.length < 8_000) h['mcp-name'] = target;
    return h;
  }

  /** Posts the text as one message; the answer with the JSON-RPC messages it carries. */
  async post(text: string): Promise<RawAnswer & { messages: Rpc[] }> {
    const a = await rawPost(this.port, this.headers(text), text, '/mcp', this.agent);
    return { ...a, messages: messagesOf(a) };
  }

  /** Posts one message, as StdioPeer.send writes one (params given as the era sends them: eraParams). */
  send(msg: Record<string, unknown>): Promise<RawAnswer & { messages: Rpc[] }> {
    return this.post(JSON.stringify({ jsonrpc: '2.0', ...msg }));
  }
}
