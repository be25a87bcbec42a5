// Clients of both protocol eras on both transports, against the server as a client starts it: over
// stdio, `node --import tsx src/cli.ts serve` spawned by the v2 client's StdioClientTransport (one
// process per connection, as stdio is); over HTTP, one `serve --http` child that every HTTP client
// of a test file shares. The workspace is a sandbox the test starts (its request log shows what
// reached the API). Each client records what the server sent it outside answers: progress, log lines,
// list changes.
import { join } from 'node:path';
import { Client, type ClientOptions, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { JSONRPCMessage, LoggingMessageNotification, Tool } from '@modelcontextprotocol/server';
import { ROOT } from './spawn.js';
import { type HttpChild, spawnHttpServer } from './spawn-http.js';
import { type Era, negotiation } from './stack.js';
import type { ServerHome } from './stdio-server.js';

export type { Era } from './stack.js';
export type Wire = 'stdio' | 'http';

export const ERAS: readonly Era[] = ['legacy', 'modern'];
export const WIRES: readonly Wire[] = ['stdio', 'http'];

export { type ServerHome, serverHome } from './stdio-server.js';

/** What a client received besides answers. */
export interface Received {
  /** Log lines (notifications/message), in order. */
  logs: LoggingMessageNotification['params'][];
  /** Tool lists fetched after a list change the client heard of (each one a change). */
  toolChanges: Tool[][];
  /**
   * Every message from the server in the order the transport handed them over, before the client
   * dispatches them: what the server sent, whatever the client does with it afterwards (the v2 client
   * drops a progress notification read in the same chunk as its answer: https://github.com/modelcontextprotocol/typescript-sdk/issues/2580).
   */
  wire: JSONRPCMessage[];
}

export interface EraClient {
  client: Client;
  era: Era;
  wire: Wire;
  received: Received;
  /** Everything the server wrote to stderr (stdio; for HTTP the shared child's). */
  stderr(): string;
  /**
   * Resolves with what `read` returns once it is not undefined: read now, then again at each message
   * the server sends this client, each list change or log line it records, and each write to the
   * server's stderr. Rejects after `ms`, naming `what`.
   */
  when<T>(read: () => T | undefined, what: string, ms?: number): Promise<T>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** The client's options besides its era (capabilities...). */
  options?: ClientOptions;
  /** Called before connecting (request handlers: roots/list...). */
  setup?(client: Client): void;
}

/** Waiters on what a client received: `changed()` reads each again. */
interface Watch {
  changed(): void;
  when: EraClient['when'];
}

function watch(): Watch {
  const checks = new Set<() => void>();
  return {
    changed: () => {
      for (const check of checks) check();
    },
    when: (read, what, ms = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const value = read();
          if (value === undefined) return;
          done();
          resolve(value);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${what} within ${ms} ms`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          checks.delete(check);
        };
        checks.add(check);
        check();
      }),
  };
}

function newClient(era: Era, wire: Wire, opts: ConnectOptions): { client: Client; received: Received; watch: Watch } {
  const received: Received = { logs: [], toolChanges: [], wire: [] };
  const w = watch();
  const client = new Client(
    { name: `eras-${wire}-${era}`, version: '1.0.0' },
    {
      ...opts.options,
      versionNegotiation: negotiation(era),
      // Heard by notification on a 2025 connection, on the listen stream the client opens on a 2026 one.
      listChanged: {
        tools: {
          debounceMs: 0,
          onChanged: (err, tools) => {
            if (err || !tools) return;
            received.toolChanges.push(tools);
            w.changed();
          },
        },
        ...opts.options?.listChanged,
      },
    },
  );
  client.setNotificationHandler('notifications/message', (n) => {
    received.logs.push(n.params);
    w.changed();
  });
  opts.setup?.(client);
  return { client, received, watch: w };
}

/** A 2026 client hears of list changes only on its listen stream: connect has opened it (or failed). */
async function listening(client: Client, era: Era): Promise<void> {
  if (era !== 'modern' || client.autoOpenedSubscription) return;
  await client.close();
  throw new Error('the 2026-07-28 client opened no subscriptions/listen stream');
}

/** Records each message the transport delivers, then hands it to the client as before. */
function tap(transport: Transport, received: Received, w: Watch): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('the client did not take the transport messages');
  transport.onmessage = (message, extra) => {
    received.wire.push(message);
    deliver.call(transport, message, extra);
    w.changed();
  };
}

/** A client of `era` on a server spawned for it over stdio. */
export async function connectStdio(era: Era, home: ServerHome, opts: ConnectOptions = {}): Promise<EraClient> {
  const { client, received, watch: w } = newClient(era, 'stdio', opts);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'serve'],
    cwd: ROOT,
    env: home.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
    w.changed();
  });
  await client.connect(transport);
  await listening(client, era);
  tap(transport, received, w);
  return { client, era, wire: 'stdio', received, stderr: () => stderr, when: w.when, close: () => client.close() };
}

/** A client of `era` on a running `serve --http` child. */
export async function connectHttp(era: Era, server: HttpChild, opts: ConnectOptions = {}): Promise<EraClient> {
  const { client, received, watch: w } = newClient(era, 'http', opts);
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  await client.connect(transport);
  await listening(client, era);
  tap(transport, received, w);
  server.child.stderr.on('data', w.changed);
  return {
    client,
    era,
    wire: 'http',
    received,
    stderr: () => server.stderr(),
    when: w.when,
    close: async () => {
      server.child.stderr.off('data', w.changed);
      await client.close();
    },
  };
}

/** `serve --http` on this sandbox (a scratch HOME of its own). */
export async function startHttpServer(home: ServerHome): Promise<HttpChild> {
  return spawnHttpServer(home.env);
}
