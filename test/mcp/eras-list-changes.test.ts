// A tool list that changes reaches every client in the way of its era: a 2025-11-25 client by
// notifications/tools/list_changed, a 2026-07-28 client on the subscriptions/listen stream it opened;
// over stdio and over HTTP. The change: a workspace whose live description comes later than the first
// tools/list waits for (LIVE_LIST_WAIT_MS), so the first listing has the catalog alone and the
// operations the description adds follow as a change. The description is held by a proxy in front of
// the sandbox until the test lets it through, so nothing depends on how fast this machine is.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog/index.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { connectHttp, connectStdio, type EraClient, type ServerHome, serverHome, startHttpServer } from '../helpers/eras.js';
import type { HttpChild } from '../helpers/spawn-http.js';

/**
 * An HTTP proxy to `target` that holds every request for the live description until `release()`;
 * `held(n)` resolves once n have come.
 */
async function descriptionGate(target: string): Promise<{ url: string; held(n: number): Promise<void>; release(): void; close(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held = 0;
  const waiters: { n: number; tell: () => void }[] = [];
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const forward = () => {
      const up = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (req.url?.split('?')[0]?.endsWith('/openapi.json')) {
      held++;
      for (const w of waiters) if (held >= w.n) w.tell();
      void released.then(forward);
    } else forward();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: (n) => (held >= n ? Promise.resolve() : new Promise((tell) => waiters.push({ n, tell }))),
    release,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let sandbox: SandboxHandle;
let gate: Awaited<ReturnType<typeof descriptionGate>>;
let home: ServerHome;
let http: HttpChild;
const clients: EraClient[] = [];
/** Each client's first listing. */
const firsts = new Map<EraClient, Tool[]>();
/**
 * 2026 clients that listen without listing on this connection: a 2026 client may hold the list from
 * its response cache (private, ttlMs) and still needs to hear that it is stale. Over stdio, then HTTP.
 */
const unlisted: EraClient[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  gate = await descriptionGate(sandbox.url);
  // Every tool, so the operations the live description adds are listed as their own tools.
  home = await serverHome(sandbox, { WORKSPACE_URL: gate.url, WORKSPACE_TOOLSETS: 'all' });
  const [server, stdioLegacy, stdioModern, stdioUnlisted] = await Promise.all([
    startHttpServer(home),
    connectStdio('legacy', home),
    connectStdio('modern', home),
    connectStdio('modern', home),
  ]);
  http = server;
  clients.push(stdioLegacy, stdioModern, await connectHttp('legacy', http), await connectHttp('modern', http));
  unlisted.push(stdioUnlisted, await connectHttp('modern', http));
  // Four servers, each asking for the description at start: all held.
  await gate.held(4);
  // The first listing of each client, while the description is held: the catalog after the bound.
  await Promise.all(clients.map(async (c) => firsts.set(c, (await c.client.listTools()).tools)));
  gate.release();
}, 60_000);
afterAll(async () => {
  for (const c of [...clients, ...unlisted]) await c.close().catch(() => {});
  await http?.stop();
  await gate?.close();
  await sandbox?.close();
  await home?.cleanup();
});

const names = (tools: readonly Tool[]) => tools.map((t) => t.name);

describe('a tool list that changes', () => {
  it('the first listing, past the bound, is the whole catalog, and the server warns that the description is late', () => {
    for (const c of clients) {
      expect(names(firsts.get(c) ?? [])).toEqual(expect.arrayContaining(catalog.map((o) => o.name)));
      expect(c.stderr()).toMatch(/live API description is slow to arrive/);
    }
  });

  for (const [i, label] of [
    'a 2025-11-25 client over stdio',
    'a 2026-07-28 client over stdio',
    'a 2025-11-25 client over HTTP',
    'a 2026-07-28 client over HTTP',
  ].entries()) {
    it(`reaches ${label}, ${label.includes('2025') ? 'by notification' : 'on its listen stream'}, with the operations the description adds`, async () => {
      const c = clients[i]!;
      const first = names(firsts.get(c) ?? []);
      const changed = await c.when(() => c.received.toolChanges.at(-1), `list change reaching ${label}`, 15_000);
      const added = names(changed).filter((n) => !first.includes(n));
      expect(added.length).toBeGreaterThan(0);
      expect(names(changed)).toEqual(expect.arrayContaining(first));
      // What the client was told is what the server now lists.
      expect(names((await c.client.listTools(undefined, { cacheMode: 'bypass' })).tools)).toEqual(names(changed));
      if (c.era === 'modern') {
        // The change came on the listen stream the client opened (stamped with its subscription id).
        const notes = (c.received.wire as Record<string, any>[]).filter((m) => m.method === 'notifications/tools/list_changed');
        expect(notes.length).toBeGreaterThan(0);
        expect(notes.every((m) => m.params?._meta?.['io.modelcontextprotocol/subscriptionId'] !== undefined)).toBe(true);
      }
    });
  }

  for (const [i, wire] of ['stdio', 'HTTP'].entries()) {
    it(`reaches a 2026-07-28 client over ${wire} listening without having listed on this connection`, async () => {
      const c = unlisted[i]!;
      const changed = await c.when(() => c.received.toolChanges.at(-1), `list change reaching the client over ${wire}`, 15_000);
      expect(names(changed)).toEqual(expect.arrayContaining(catalog.map((o) => o.name)));
      const notes = (c.received.wire as Record<string, any>[]).filter((m) => m.method === 'notifications/tools/list_changed');
      expect(notes.length).toBeGreaterThan(0);
    });
  }
});
