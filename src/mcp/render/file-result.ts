// A file answer (download, media, recording) as a tool result: a sentence saying which file and where
// it was saved, a link to it, and its content inline when small: text within the response budget,
// images up to 1 MiB as image content.
import { pathToFileURL } from 'node:url';
import type { ApiFile } from '../../api/client.js';
import type { Operation } from '../../operation.js';
import { type ByteProgress, saveFile } from '../files/downloads.js';
import { cutText } from './budget.js';
import { DEFAULT_RESPONSE_BUDGET_TOKENS } from './success.js';
import { estimateTokens } from './tokens.js';
import type { ContentBlock, TextBlock, ToolResult } from './tool-result.js';

/** A file answer's `structuredContent.file`, in either mode: saved here (path), or the member's (embedded, or a link). */
interface FileFacts {
  name: string;
  content_type: string;
  size?: number;
  path?: string;
  url?: string;
  expires_at?: string;
  embedded?: boolean;
}

/**
 * A file answer's first words: which file, where it is, and whether its content follows. A client may
 * show the model no resource link, and the model acts on what it reads.
 */
function fileSaid(f: FileFacts, follows: boolean): TextBlock {
  const [type = ''] = f.content_type.split(';');
  const what = `${f.name} (${f.size !== undefined ? `${f.size} bytes, ` : ''}${type.trim()})`;
  const content = follows ? ' Its content follows.' : '';
  if (f.path) return { type: 'text', text: `Saved ${what} to ${f.path}.${content}` };
  if (f.url) {
    return {
      type: 'text',
      text: `${what} is too large to embed: GET ${f.url} with your access token for this server (Authorization: Bearer) until ${f.expires_at}; it opens for you only.${follows ? ' Its beginning follows.' : ''}`,
    };
  }
  return { type: 'text', text: `${what} is in this result.` };
}

/** A file answer: what it says of the file first, then its content (link, text, image), and the file in structuredContent. */
export function fileAnswer(file: FileFacts, content: ContentBlock[]): ToolResult {
  const follows = content.some((c) => c.type !== 'resource_link');
  return { content: [fileSaid(file, follows), ...content], structuredContent: { file } };
}

/** Save `file` to `dir` and answer with its link (and content when small). `budget` in tokens. */
export async function renderFile(
  op: Operation,
  file: ApiFile,
  dir: string,
  signal?: AbortSignal,
  progress?: (done: number, total: number, message?: string) => void,
  budget: number = DEFAULT_RESPONSE_BUDGET_TOKENS,
): Promise<ToolResult> {
  // MCP progress wants a total; an unknown size is reported as bytes so far of at least that much.
  const onProgress: ByteProgress | undefined = progress && ((done, total) => progress(done, total ?? done, `${(done / 1048576).toFixed(1)} MiB saved`));
  const saved = await saveFile(file, dir, `${op.name}-${Date.now()}`, signal, onProgress);
  const content: ToolResult['content'] = [
    {
      type: 'resource_link',
      uri: pathToFileURL(saved.path).href,
      name: saved.name,
      mimeType: saved.contentType,
      description: `${saved.size} bytes, saved to ${saved.path}`,
    },
  ];
  if (saved.head && /^image\//i.test(saved.contentType)) {
    // split() always gives at least one part: the default is never taken.
    const [mimeType = ''] = saved.contentType.split(';');
    content.push({ type: 'image', data: saved.head.toString('base64'), mimeType: mimeType.trim() });
  } else if (saved.head) {
    const t = saved.head.toString('utf8').replace(/^\uFEFF/, '');
    const shown = estimateTokens(t) > budget ? cutText(t, budget) : t;
    content.push({ type: 'text', text: shown.length < t.length ? `${shown}\n[... ${t.length - shown.length} more characters in the saved file]` : t });
  }
  return fileAnswer({ path: saved.path, name: saved.name, size: saved.size, content_type: saved.contentType }, content);
}
