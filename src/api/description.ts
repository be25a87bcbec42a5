// GET /openapi.json: the workspace's own description of its API (more operations than the spec's
// text documents), read through the API client like any request: its limiter, timeouts and typed
// errors. src/mcp/operations/live-openapi.ts turns it into operations; this is the one place that asks for it.
import type { ApiClient } from './client.js';

/** The live description; throws when the answer is not an OpenAPI document (or the client's typed errors). */
export async function readApiDescription(client: Pick<ApiClient, 'request'>): Promise<Record<string, unknown>> {
  const res = await client.request({ method: 'GET', path: '/openapi.json' });
  const doc = res.data;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc) || typeof (doc as Record<string, unknown>).paths !== 'object') {
    throw new Error('the answer is not an OpenAPI document');
  }
  return doc as Record<string, unknown>;
}
