// The demo engagement's executive summary as the tests of writes of blocks meet it, and another writer
// beside the server: the workspace API itself, over HTTP, with a token of its own.
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';

export type Block = Record<string, unknown> & { id?: string };
export type Doc = { updated_at: string; blocks: Block[] };

export const KIND = 'executive_summary';
export const DOC_PATH = `/engagements/${ENGAGEMENT_AP}/deliverable/documents/${KIND}`;
export const DOC_TEMPLATE = '/engagements/{engagement}/deliverable/documents/{kind}';

/** Requests to the sandbox's API (the sandbox a test started, once it has). */
export function workspaceApi(sandbox: () => SandboxHandle) {
  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${sandbox().api}${path}`, {
      method,
      headers: { authorization: `Bearer ${sandbox().tokens.write}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: res.status === 204 ? null : await res.json() };
  };
  return {
    api,
    /** The document as stored. */
    read: async (): Promise<Doc> => (await api('GET', DOC_PATH)).json.data,
    /** The writes of the document that reached the sandbox. */
    writes: () =>
      sandbox()
        .requests()
        .filter((r) => r.method === 'PATCH' && r.template === DOC_TEMPLATE),
  };
}
