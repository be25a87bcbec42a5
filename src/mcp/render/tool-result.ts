// What a rendered tool result is: structurally a CallToolResult of the MCP SDK, narrowed to the
// blocks this server writes, so these modules depend on no SDK; and the one shape of an error result. Type aliases, not interfaces: the
// SDK's result types carry an index signature, which only an alias meets.
export type TextBlock = {
  type: 'text';
  text: string;
  annotations?: { audience?: ('user' | 'assistant')[] };
};

type ImageBlock = {
  type: 'image';
  data: string;
  mimeType: string;
};

export type ResourceLink = {
  type: 'resource_link';
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
};

/** A file's content carried in the result itself (a small download on a shared server). */
type EmbeddedResource = {
  type: 'resource';
  resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };
};

export type ContentBlock = TextBlock | ImageBlock | ResourceLink | EmbeddedResource;

export type ToolResult = {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};

/**
 * Where an error result carries its machine-readable part, `{code, ...}` (docs/architecture.md,
 * Result contract): in the result's `_meta`, which no client validates, rather than in
 * structuredContent, which clients check against the tool's outputSchema (the v1 SDK's client even on
 * an error, and it throws on a mismatch: the model would never read the text).
 */
export const ERROR_META_KEY = 'workspace-consulting/error';

/** An error's machine-readable part: its code first, then what the code says it carries. */
type ToolErrorDetail = { code: string } & Record<string, unknown>;

/** An error result: the text the model reads (what happened, what to send instead) and its code. */
export function toolError(message: string, error: ToolErrorDetail): ToolResult & { isError: true } {
  return { isError: true, content: [{ type: 'text', text: message }], _meta: { [ERROR_META_KEY]: error } };
}

/** The machine-readable part of an error result (undefined for a result that is not one). */
export function errorDetail(result: { isError?: boolean; _meta?: Record<string, unknown> | undefined }): ToolErrorDetail | undefined {
  const e = result.isError ? result._meta?.[ERROR_META_KEY] : undefined;
  return e && typeof e === 'object' && typeof (e as ToolErrorDetail).code === 'string' ? (e as ToolErrorDetail) : undefined;
}
