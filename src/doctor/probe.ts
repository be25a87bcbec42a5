// The doctor's own HTTP reads: plain GETs that report what came back (status, type, headers, body)
// instead of the API client's retries and typed errors, because a diagnosis wants to see the raw
// answer, an HTML page or a refused connection included. *.localhost names resolve to loopback as
// they do for the API client.
import { Agent, request } from 'undici';
import { loopbackLookup } from '../api/lookup.js';

export interface Answer {
  status: number;
  contentType: string;
  headers: Record<string, string>;
  body: string;
  /** Local clock when the answer's headers arrived, and when the request left (epoch ms). */
  sentAt: number;
  receivedAt: number;
}

/** Why nothing usable came back: the connection's error code when there is one. */
export class Unreachable extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class DoctorHttp {
  readonly #agent = new Agent({ connect: { lookup: loopbackLookup, timeout: 5_000 }, headersTimeout: 10_000, bodyTimeout: 10_000 });

  constructor(readonly locale: 'en' | 'fr') {}

  async get(url: string, token?: string): Promise<Answer> {
    const sentAt = Date.now();
    try {
      const res = await request(url, {
        method: 'GET',
        dispatcher: this.#agent,
        // Redirects are not followed (undici's default): a redirect is itself a finding.
        headers: { accept: 'application/json', 'accept-language': this.locale, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
      const receivedAt = Date.now();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
      // A diagnosis needs the start of a body, never megabytes of it.
      const body = (await res.body.text()).slice(0, 2_000_000);
      return { status: res.statusCode, contentType: headers['content-type'] ?? '(no content type)', headers, body, sentAt, receivedAt };
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
      const code = e.code ?? e.cause?.code ?? 'ERROR';
      throw new Unreachable(code, `${code}${e.message && !e.message.includes(code) ? `: ${e.message}` : ''}`);
    }
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

export const isJson = (a: Answer) => /\bjson\b/i.test(a.contentType);
export const isHtml = (a: Answer) => /text\/html|application\/xhtml/i.test(a.contentType) || /^\s*<(!doctype|html)/i.test(a.body);

export function parseJson(a: Answer): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(a.body) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
