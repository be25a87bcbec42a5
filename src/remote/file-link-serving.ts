// GET <public>/files/<id>: a member opens the link to one of their files (src/mcp/files/file-links.ts). The
// front has authenticated the request; here the link must be alive and this member's, and the
// operation still one their session may run. The file is then fetched from the workspace through the
// session's pipeline, with the member's own token and rate budget, and streamed through, never held
// whole nor written to disk.
// Whatever is wrong (unknown, expired, another member's, no longer permitted) answers the same 404.
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { WorkspaceApiError } from '../api/errors.js';
import type { FileLinks } from '../mcp/files/file-links.js';
import { InvocationRefused } from '../mcp/pipeline/invocation-refused.js';
import { isRefusal } from '../mcp/render/refusal.js';
import type { Session } from '../mcp/server/session.js';
import { sendJson } from '../net/http-io.js';
import type { RemotePrincipal } from './principal.js';

const notFound = (res: ServerResponse) => sendJson(res, 404, { error: 'not_found', error_description: 'No such file link.' });

/** A Content-Disposition naming the file, in ASCII and in UTF-8 (RFC 6266). */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export async function serveFileLink(
  links: FileLinks,
  sessionOf: (principal: RemotePrincipal) => Session,
  res: ServerResponse,
  principal: RemotePrincipal,
  id: string,
): Promise<void> {
  const record = await links.open(id, principal.memberKey);
  if (!record) return notFound(res);
  const session = sessionOf(principal);
  if (!session.registry.get(record.op)) await session.registry.operations.ready();
  const op = session.registry.resolve(record.op);
  if (isRefusal(op) || op.response !== 'file') return notFound(res);
  // The member closing the connection stops the workspace request too.
  const stop = new AbortController();
  res.once('close', () => stop.abort());
  let answer: Awaited<ReturnType<Session['pipeline']['invoke']>>;
  try {
    // Through the session's pipeline, like a tool call: its policy, the arguments checked again, the
    // member's rate budget.
    answer = await session.pipeline.invoke(op.name, record.args, { signal: stop.signal });
  } catch (err) {
    if (stop.signal.aborted) return;
    if (err instanceof InvocationRefused) return notFound(res);
    if (err instanceof WorkspaceApiError && (err.status === 404 || err.status === 410)) return notFound(res);
    const status = err instanceof WorkspaceApiError && err.status === 429 ? 503 : 502;
    return sendJson(
      res,
      status,
      { error: 'upstream_error', error_description: 'The workspace did not give the file: try again shortly.' },
      status === 503 ? { 'Retry-After': '5' } : {},
    );
  }
  const file = answer.file;
  if (!file) return sendJson(res, 502, { error: 'upstream_error', error_description: 'The workspace answered without a file.' });
  res.writeHead(200, {
    'Content-Type': file.contentType,
    'Content-Disposition': attachment(record.name),
    ...(file.size !== undefined ? { 'Content-Length': String(file.size) } : {}),
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
    // The public origin also serves the sign-in pages: a file (an uploaded HTML page, say) is never
    // a page of it, even if something ever renders it in place of downloading it.
    'Content-Security-Policy': "sandbox; default-src 'none'",
  });
  await pipeline(file.body, res).catch(() => res.destroy());
}
