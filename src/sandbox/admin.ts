// The sandbox's own control surface (outside /api/v1): inject faults, read the request log, make jobs
// fail, revoke a token, re-seed. Offered in process on the handle, and over HTTP under /__sandbox/
// when the sandbox was started with an admin token.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkFaultSpec, type FaultSpec } from './faults.js';
import { FAIL_NEXT_JOBS } from './jobs.js';
import type { RequestLogEntry, SandboxPipeline } from './server.js';
import type { WorkspaceRegistry } from './state.js';

export interface SandboxAdmin {
  /** Queue a fault for the next `count` matching requests. */
  fault(spec: FaultSpec): void;
  clearFaults(): void;
  requests(): RequestLogEntry[];
  clearRequests(): void;
  /** The next `count` jobs started in `workspace` fail. */
  failNextJobs(workspace: string, count: number): void;
  /** Revoke a token by value, in whichever workspace holds it; false when unknown. */
  revokeToken(token: string): boolean;
  /** Drop every change: re-seed all workspaces, clear faults, rate windows and the request log. */
  reset(): void;
}

export function createAdmin(pipeline: SandboxPipeline, registry: WorkspaceRegistry): SandboxAdmin {
  return {
    fault: (spec) => pipeline.faults.add(checkFaultSpec(spec)),
    clearFaults: () => pipeline.faults.clear(),
    requests: () => pipeline.requests(),
    clearRequests: () => pipeline.clearRequests(),
    failNextJobs(workspace, count) {
      const ws = registry.bySlug(workspace);
      if (!ws) throw new TypeError(`unknown workspace ${workspace}`);
      if (!Number.isInteger(count) || count < 0) throw new TypeError('count must be an integer >= 0');
      ws.counters[FAIL_NEXT_JOBS] = count;
    },
    revokeToken(token) {
      for (const ws of registry.all()) {
        const t = ws.c('tokens').find((r) => r.value === token);
        if (t) {
          t.revoked_at ??= new Date().toISOString();
          return true;
        }
      }
      return false;
    },
    reset() {
      registry.reset();
      pipeline.faults.clear();
      pipeline.limiter.clear();
      pipeline.clearRequests();
    },
  };
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (status === 204) {
    res.writeHead(204).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

const problem = (code: string, message: string) => ({ code, message, details: {} });

// The sandbox keeps its own copy of this (src/net/http-io.ts is the server's): it emulates the workspace and imports nothing of the server.
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > 1024 * 1024) throw new TypeError('body too large');
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Answer a request under /__sandbox/. Without an admin token configured the whole area is 404. */
export async function handleAdmin(req: IncomingMessage, res: ServerResponse, path: string, adminToken: string | undefined, admin: SandboxAdmin): Promise<void> {
  if (!adminToken) return send(res, 404, problem('route.not_found', 'Not found.'));
  const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!auth || !sameSecret(auth[1] as string, adminToken)) {
    return send(res, 401, problem('auth.unauthenticated', 'The admin endpoint needs "Authorization: Bearer <admin token>".'));
  }
  const route = `${req.method ?? 'GET'} ${path}`;
  try {
    switch (route) {
      case 'POST /__sandbox/faults':
        admin.fault((await readJson(req)) as FaultSpec);
        return send(res, 201, { data: { queued: true } });
      case 'DELETE /__sandbox/faults':
        admin.clearFaults();
        return send(res, 204);
      case 'GET /__sandbox/requests':
        return send(res, 200, { data: admin.requests() });
      case 'DELETE /__sandbox/requests':
        admin.clearRequests();
        return send(res, 204);
      case 'POST /__sandbox/jobs/fail-next': {
        const b = (await readJson(req)) as { workspace?: unknown; count?: unknown };
        admin.failNextJobs(String(b.workspace ?? 'atelier'), Number(b.count ?? 1));
        return send(res, 200, { data: { workspace: b.workspace ?? 'atelier', fail_next_jobs: Number(b.count ?? 1) } });
      }
      case 'POST /__sandbox/tokens/revoke': {
        const b = (await readJson(req)) as { token?: unknown };
        if (!admin.revokeToken(String(b.token ?? ''))) return send(res, 404, problem('resource.not_found', 'No such token.'));
        return send(res, 200, { data: { revoked: true } });
      }
      case 'POST /__sandbox/reset':
        admin.reset();
        return send(res, 200, { data: { reset: true } });
      default:
        return send(res, 404, problem('route.not_found', `No admin operation at ${route}.`));
    }
  } catch (e) {
    return send(res, 422, problem('validation.failed', e instanceof Error ? e.message : String(e)));
  }
}
