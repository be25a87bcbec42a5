// Helpers for the sandbox tests that speak raw HTTP: requests with any Host header and body.
import { request } from 'undici';
import type { SandboxHandle } from '../../src/sandbox/index.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export interface CallOptions {
  token?: string | null;
  host?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  locale?: 'en' | 'fr';
}

/** A request to the sandbox (path relative to /api/v1), always sent to 127.0.0.1 with `host` as Host. */
export async function call(sb: SandboxHandle, method: string, path: string, o: CallOptions = {}): Promise<Answer> {
  const port = new URL(sb.url).port;
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token !== null) headers.authorization = `Bearer ${o.token ?? sb.tokens.write}`;
  if (o.host) headers.host = `${o.host}:${port}`;
  if (o.locale) headers['accept-language'] = o.locale;
  let body: string | Buffer | undefined = o.rawBody;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(`http://127.0.0.1:${port}/api/v1${path}`, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}
