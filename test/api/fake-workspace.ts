// A workspace stand-in for client tests: a real node:http server on 127.0.0.1:0 that records every
// request it receives (with its arrival time) and answers with the handler the test gives it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  method: string;
  /** The raw request target, exactly as sent (not decoded or normalised). */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
}

export type Handler = (hit: Hit, res: ServerResponse, req: IncomingMessage) => void | Promise<void>;

export interface FakeWorkspace {
  origin: string;
  port: number;
  /** API root: origin + '/api/v1'. */
  api: string;
  hits: Hit[];
  /** Requests whose socket closed before an answer was sent. */
  aborted: Hit[];
  /** Resolves once `check` holds, read again on each request and each hang-up; rejects after `ms`. */
  when(check: () => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function fakeWorkspace(handler: Handler): Promise<FakeWorkspace> {
  const hits: Hit[] = [];
  const aborted: Hit[] = [];
  const changed = new Set<() => void>();
  const tell = () => {
    for (const f of changed) f();
  };
  const server = createServer((req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit: Hit = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at,
      };
      hits.push(hit);
      tell();
      res.on('close', () => {
        if (!res.writableFinished) {
          aborted.push(hit);
          tell();
        }
      });
      void Promise.resolve(handler(hit, res, req)).catch((err: unknown) => {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    api: `${origin}/api/v1`,
    hits,
    aborted,
    when: (check, ms = 5_000) =>
      new Promise<void>((resolve, reject) => {
        if (check()) return resolve();
        const timer = setTimeout(() => {
          changed.delete(read);
          reject(new Error(`the fake workspace did not reach the state awaited within ${ms} ms`));
        }, ms);
        const read = () => {
          if (!check()) return;
          clearTimeout(timer);
          changed.delete(read);
          resolve();
        };
        changed.add(read);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
