// How to make one call, as the assistant would write it: by the listed tool's name, or through the
// gateway's call_operation when the operation has no tool of its own in this session.

export interface CallHint {
  tool: string;
  arguments: Record<string, unknown>;
}

export function callHint(operation: string, args: Record<string, unknown>, listed: boolean): CallHint {
  return listed ? { tool: operation, arguments: args } : { tool: 'call_operation', arguments: { operation, arguments: args } };
}

export function hintText(h: CallHint): string {
  return `call ${h.tool} with ${JSON.stringify(h.arguments)}`;
}

/** The same call with more arguments (inside `arguments` when it goes through call_operation). */
export function withArguments(h: CallHint, extra: Record<string, unknown>): CallHint {
  if (h.tool !== 'call_operation') return { tool: h.tool, arguments: { ...h.arguments, ...extra } };
  const inner = (h.arguments.arguments ?? {}) as Record<string, unknown>;
  return { tool: h.tool, arguments: { ...h.arguments, arguments: { ...inner, ...extra } } };
}
