// The redirect target of a native app (RFC 8252 7.3): an HTTP listener on 127.0.0.1, on a port the
// system picks, that takes the first request to /callback and shows the member how it ended.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeHtml as esc, sendHtml } from '../net/http-io.js';

const CALLBACK_PATH = '/callback';

export interface Callback {
  /** The redirect's query parameters (code or error, state, iss). */
  params: URLSearchParams;
  /** Show the member the outcome in the browser tab. */
  reply(ok: boolean, message: string): void;
}

interface LoopbackListener {
  redirectUri: string;
  /** The first callback; rejects after `timeoutMs` or when closed. */
  callback: Promise<Callback>;
  close(): Promise<void>;
}

function html(res: ServerResponse, status: number, title: string, message: string): void {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:30rem;margin:3rem auto"><h1>${esc(title)}</h1><p>${esc(message)}</p></body></html>`;
  sendHtml(res, status, body);
}

export async function startLoopbackListener(timeoutMs = 5 * 60_000): Promise<LoopbackListener> {
  let settled = false;
  let resolve!: (c: Callback) => void;
  let reject!: (e: Error) => void;
  const callback = new Promise<Callback>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be awaiting yet when the timer fires; the rejection is still delivered to who awaits.
  callback.catch(() => {});

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      html(res, 404, 'Not found', 'This address only receives the sign-in answer.');
      return;
    }
    if (settled) {
      html(res, 409, 'Already handled', 'This sign-in already received its answer; you can close this tab.');
      return;
    }
    settled = true;
    clearTimeout(timer);
    resolve({
      params: url.searchParams,
      reply(ok, message) {
        html(res, ok ? 200 : 400, ok ? 'Signed in' : 'Sign-in failed', message);
      },
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', fail);
      ok();
    });
  });
  const timer = setTimeout(() => {
    if (settled) return;
    settled = true;
    reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`));
  }, timeoutMs);
  timer.unref();

  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    callback,
    close() {
      clearTimeout(timer);
      if (!settled) {
        settled = true;
        reject(new Error('the sign-in was cancelled'));
      }
      return new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  };
}
