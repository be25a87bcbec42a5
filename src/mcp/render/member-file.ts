// A file answer on a shared (remote) server, where nothing goes to the replica's disk: a small file
// comes back inside the tool result (an embedded resource, or image content the model can see), a
// larger one as a link on the public URL that only the member who asked can open, for a short while,
// streamed from the workspace when opened (src/mcp/files/file-links.ts). The server's paths never appear.
import type { Readable } from 'node:stream';
import type { ApiFile } from '../../api/client.js';
import type { Operation } from '../../operation.js';
import { safeFileName } from '../files/downloads.js';
import type { MemberFileLinks } from '../files/file-links.js';
import { SCHEME } from '../operations/resources.js';
import { cutText } from './budget.js';
import { fileAnswer } from './file-result.js';
import { DEFAULT_RESPONSE_BUDGET_TOKENS } from './success.js';
import { estimateTokens } from './tokens.js';
import type { ContentBlock, ToolResult } from './tool-result.js';

/**
 * Largest file embedded in the result: the size the local mode already shows images inline up to.
 * Its base64 is about 1.4 MB of JSON-RPC; beyond that a result weighs on every client that keeps the
 * conversation, and a link costs the member one more request only when they open it.
 */
export const EMBED_MAX_BYTES = 1024 * 1024;
/** Bytes of a large text file read to show its beginning beside the link (as the local mode does). */
const TEXT_PREVIEW_MAX = 80_000;

const TEXT_TYPES = /^(text\/|application\/(json|xml|csv|x-bpmn|bpmn\+xml|[a-z.+-]*\+(json|xml)))/i;

/** Up to `limit` bytes of the body; the rest is not read (the stream is destroyed, freeing the connection). */
async function readUpTo(body: Readable, limit: number): Promise<{ bytes: Buffer; whole: boolean }> {
  const chunks: Buffer[] = [];
  let n = 0;
  if (limit <= 0) {
    body.destroy();
    return { bytes: Buffer.alloc(0), whole: false };
  }
  for await (const chunk of body) {
    const c = chunk as Buffer;
    chunks.push(c);
    n += c.length;
    // Leaving the loop destroys the stream: nothing more is read from the workspace.
    if (n > limit) return { bytes: Buffer.concat(chunks).subarray(0, limit), whole: false };
  }
  return { bytes: Buffer.concat(chunks), whole: true };
}

/** Answer `file` (from `op` called with `args`) to the member: embedded when small, else a link for them only. */
export async function renderMemberFile(
  op: Operation,
  args: Record<string, unknown>,
  file: ApiFile,
  links: MemberFileLinks,
  budget: number = DEFAULT_RESPONSE_BUDGET_TOKENS,
): Promise<ToolResult> {
  const name = safeFileName(file.filename, `${op.name}.bin`);
  // split() always gives at least one part: the default is never taken.
  const [bare = ''] = file.contentType.split(';');
  const mimeType = bare.trim() || 'application/octet-stream';
  const text = TEXT_TYPES.test(mimeType);
  const tooBig = file.size !== undefined && file.size > EMBED_MAX_BYTES;
  const { bytes, whole } = await readUpTo(file.body, tooBig ? (text ? TEXT_PREVIEW_MAX : 0) : EMBED_MAX_BYTES);
  const uri = `${SCHEME}://files/${encodeURIComponent(op.name)}/${encodeURIComponent(name)}`;
  const described = { name, content_type: file.contentType };

  if (whole) {
    const size = bytes.length;
    if (/^image\//i.test(mimeType)) {
      return fileAnswer({ ...described, size, embedded: true }, [{ type: 'image', data: bytes.toString('base64'), mimeType }]);
    }
    if (!text) {
      return fileAnswer({ ...described, size, embedded: true }, [{ type: 'resource', resource: { uri, mimeType, blob: bytes.toString('base64') } }]);
    }
    const t = bytes.toString('utf8').replace(/^\uFEFF/, '');
    if (estimateTokens(t) <= budget) {
      return fileAnswer({ ...described, size, embedded: true }, [{ type: 'resource', resource: { uri, mimeType, text: t } }]);
    }
  }

  // Too large to embed: a link on the public URL, opened with the member's own access token.
  const size = whole ? bytes.length : file.size;
  const link = await links.issue({ op: op.name, args, name, contentType: file.contentType, ...(size !== undefined ? { size } : {}) });
  const expires = new Date(link.expiresAt).toISOString();
  const content: ContentBlock[] = [
    {
      type: 'resource_link',
      uri: link.url,
      name,
      mimeType,
      description: `${size !== undefined ? `${size} bytes; ` : ''}too large to embed: GET it with your access token for this server (Authorization: Bearer) until ${expires}; it opens for you only.`,
    },
  ];
  if (text && bytes.length) {
    const t = bytes.toString('utf8').replace(/^\uFEFF/, '');
    const shown = estimateTokens(t) > budget ? cutText(t, budget) : t;
    content.push({ type: 'text', text: whole && shown.length === t.length ? t : `${shown}\n[... the rest is in the file at the link]` });
  }
  return fileAnswer({ ...described, ...(size !== undefined ? { size } : {}), url: link.url, expires_at: expires }, content);
}
