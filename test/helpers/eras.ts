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
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** The client's options besides its era (capabilities...). */
  options?: ClientOptions;
  /** Called before connecting (request handlers: roots/list...). */
  setup?(client: Client): void;
}

function newClient(era: Era, wire: Wire, opts: ConnectOptions): { client: Client; received: Received } {
  const received: Received = { logs: [], toolChanges: [], wire: [] };
  const client = new Client(
    { name: `eras-${wire}-${era}`, version: '1.0.0' },
    {
      ...opts.options,
      versionNegotiation: negotiation(era),
      // Heard by notification on a 2025 connection, on the listen stream the client opens on a 2026 one.
      listChanged: {
        tools: { debounceMs: 0, onChanged: (err, tools) => void (!err && tools && received.toolChanges.push(tools)) },
        ...opts.options?.listChanged,
      },
    },
  );
  client.setNotificationHandler('notifications/message', (n) => void received.logs.push(n.params));
  opts.setup?.(client);
  return { client, received };
}

/** A 2026 client hears of list changes only on its listen stream: connect has opened it (or failed). */
async function listening(client: Client, era: Era): Promise<void> {
  if (era !== 'modern' || client.autoOpenedSubscription) return;
  await client.close();
  throw new Error('the 2026-07-28 client opened no subscriptions/listen stream');
}

/** Records each message the transport delivers, then hands it to the client as before. */
function tap(transport: Transport, received: Received): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('the client did not take the transport messages');
  transport.onmessage = (message, extra) => {
    received.wire.push(message);
    deliver.call(transport, message, extra);
  };
}

/** A client of `era` on a server spawned for it over stdio. */
export async function connectStdio(era: Era, home: ServerHome, opts: ConnectOptions = {}): Promise<EraClient> {
  const { client, received } = newClient(era, 'stdio', opts);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'serve'],
    cwd: ROOT,
    env: home.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  await client.connect(transport);
  await listening(client, era);
  tap(transport, received);
  return { client, era, wire: 'stdio', received, stderr: () => stderr, close: () => client.close() };
}

/** A client of `era` on a running `serve --http` child. */
export async function connectHttp(era: Era, server: HttpChild, opts: ConnectOptions = {}): Promise<EraClient> {
  const { client, received } = newClient(era, 'http', opts);
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  await client.connect(transport);
  await listening(client, era);
  tap(transport, received);
  return { client, era, wire: 'http', received, stderr: () => server.stderr(), close: () => client.close() };
}

/** `serve --http` on this sandbox (a scratch HOME of its own). */
export async function startHttpServer(home: ServerHome): Promise<HttpChild> {
  return spawnHttpServer(home.env);
}

/** Waits for `f` to answer something other than undefined (polling, bounded). */
export async function until<T>(f: () => T | undefined | Promise<T | undefined>, ms = 10_000, what = 'the condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
