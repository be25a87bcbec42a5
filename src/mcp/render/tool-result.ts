// What a rendered tool result is: structurally a CallToolResult of the MCP SDK, narrowed to the
// blocks this server writes, so these modules depend on no SDK. Type aliases, not interfaces: the
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
};
