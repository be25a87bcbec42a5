// Slow and idle connections: with Node's defaults (60 s for headers, 300 s for a request, no cap on
// connections), 200 clients sending one byte per second would all stay connected and starve the
// server. So `serve --http` bounds them (src/serve/local-http.ts boundConnections): headers within 10 s, a whole request
// within 30 s, at most 256 connections. Against the real child: slow clients are dropped with 408
// at the header timeout while a normal client is served; connections past the cap are closed at once
// while a connection already served keeps being served, and the cap frees as connections go.

import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { type HttpChild, HttpPeer, spawnHttpServer } from '../helpers/spawn-http.js';

/** src/serve/local-http.ts: the connection cap and the header timeout of `serve --http`. */
const MAX_CONNECTIONS = 256;
const HEADERS_TIMEOUT_MS = 10_000;
/** What Node gives a client for its headers when left at its default (the defect). */
const NODE_DEFAULT_HEADERS_TIMEOUT_MS = 60_000;

/** `settles`, or a rejection naming `what` once `ms` have passed without it. */
function within<T>(settles: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([settles, late]).finally(() => clearTimeout(timer));
}

let sandbox: SandboxHandle;
/** One server per test: the cap counts every connection, so no other test's may linger in it. */
let slowServer: HttpChild;
let capServer: HttpChild;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  const env = { WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read };
  [slowServer, capServer] = await Promise.all([spawnHttpServer(env), spawnHttpServer(env)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([slowServer?.stop(), capServer?.stop()]);
  await sandbox?.close();
});

/** A raw TCP connection to the server and what became of it. */
interface Conn {
  socket: Socket;
  /** Bytes the server sent. */
  received: string;
  /** When the server ended it (undefined while open). */
  closedAt?: number;
  openedAt: number;
  /** Settles once the connection is closed. */
  closed: Promise<void>;
}

function open(port: number): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const conn = { socket, received: '', openedAt: 0 } as Conn;
    conn.closed = new Promise((done) =>
      socket.on('close', () => {
        conn.closedAt = Date.now();
        done();
      }),
    );
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (conn.received += d));
    // A connection the server refuses may be reset: that is its answer, not the test's failure.
    socket.on('error', () => {});
    socket.once('connect', () => {
      conn.openedAt = Date.now();
      resolve(conn);
    });
    socket.once('error', reject);
  });
}

/** Whether the server answers a request on a new connection (it closes one past its cap unanswered). */
async function answersNewConnection(port: number): Promise<boolean> {
  const c = await open(port);
  c.socket.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
  await c.closed;
  return c.received !== '';
}

async function callOnce(url: string): Promise<CallToolResult> {
  const client = new Client({ name: 'slow-clients-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return (await client.callTool({ name: 'get_workspace', arguments: {} })) as CallToolResult;
  } finally {
    await client.close();
  }
}

describe('serve --http bounds slow and idle connections', () => {
  it('200 clients sending one byte per second are dropped at the header timeout (408), and a normal client is served meanwhile', {
    timeout: 90_000,
  }, async () => {
    const slow = await Promise.all(Array.from({ length: 200 }, () => open(slowServer.port)));
    const line = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${slowServer.port}\r\n`;
    let sent = 0;
    const drip = setInterval(() => {
      const byte = line[sent++ % line.length] as string;
      for (const c of slow) if (c.closedAt === undefined) c.socket.write(byte);
    }, 1_000);
    try {
      // All 200 are connected and dripping: a normal client still gets its answer.
      const result = await callOnce(slowServer.url);
      expect(result.structuredContent).toMatchObject({ slug: 'atelier' });
      expect(slow.filter((c) => c.closedAt !== undefined)).toHaveLength(0);
      // Each slow client is then dropped by the server, long before Node's default of 60 s: a server
      // that kept that default would still hold them all when this wait gives up, half-way to it.
      await within(Promise.all(slow.map((c) => c.closed)), NODE_DEFAULT_HEADERS_TIMEOUT_MS / 2, 'drop of every slow client');
      for (const c of slow) {
        // Answered 408, Node's answer to headers that timed out; and not before their timeout (a
        // floor the server's clock keeps: a busy machine only adds to it; its check runs once a second).
        expect(c.received).toMatch(/^HTTP\/1\.1 408 /);
        expect((c.closedAt as number) - c.openedAt).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 1_000);
      }
      // And nothing of them is left holding the slowServer.
      expect((await callOnce(slowServer.url)).structuredContent).toMatchObject({ slug: 'atelier' });
    } finally {
      clearInterval(drip);
      for (const c of slow) c.socket.destroy();
    }
  });

  it('connections past the cap are closed at once, a connection already served keeps being served, and the cap frees as they go', {
    timeout: 60_000,
  }, async () => {
    // A client served on one keep-alive connection: its session and the connection it uses.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const served = await HttpPeer.open(capServer.port, 'legacy', agent);
    const extra = 40;
    const conns = await Promise.all(Array.from({ length: MAX_CONNECTIONS - 1 + extra }, () => open(capServer.port)));
    try {
      // Each asks for something; a connection the server took answers it, one past the cap is closed unanswered.
      for (const c of conns) c.socket.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${capServer.port}\r\n\r\n`);
      const outcome = await Promise.all(
        conns.map(
          (c) =>
            new Promise<'answered' | 'refused'>((resolve) => {
              // Any byte from the server is its answer's start; a refused connection gets none.
              const settle = () => resolve(c.received !== '' ? 'answered' : 'refused');
              if (c.received !== '' || c.closedAt !== undefined) return settle();
              c.socket.once('data', settle);
              c.socket.once('close', settle);
            }),
        ),
      );
      expect(outcome.filter((o) => o === 'answered')).toHaveLength(MAX_CONNECTIONS - 1);
      expect(outcome.filter((o) => o === 'refused')).toHaveLength(extra);
      // The client served before is served again, on the connection it had.
      const listed = await served.send({ id: 'again', method: 'tools/list', params: {} });
      expect(listed.reusedSocket).toBe(true);
      expect(listed.status).toBe(200);
      const again = listed.messages.find((m) => m.id === 'again');
      expect(again, 'no answer to the second tools/list').toBeDefined();
      expect((again!.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
      // Once those connections go, new clients are taken again (as soon as the server has seen them go).
      for (const c of conns) c.socket.destroy();
      await Promise.all(conns.map((c) => c.closed));
      for (let tries = 0; !(await answersNewConnection(capServer.port)); tries++) expect(tries, 'the cap never freed').toBeLessThan(100);
      expect((await callOnce(capServer.url)).structuredContent).toMatchObject({ slug: 'atelier' });
    } finally {
      for (const c of conns) c.socket.destroy();
      agent.destroy();
    }
  });
});
