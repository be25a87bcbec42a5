// Who called an operation's tool: the assistant directly (its own tool), the gateway's call_operation,
// or a code-mode script's `api`. Typed, not a free string matched by prefix: the continuation hints
// ("call ... again") and the logs read it.

export type CallOrigin =
  /** The operation's own tool, called by the assistant. */
  | { kind: 'direct' }
  /** call_operation, running the operation by name. */
  | { kind: 'gateway'; operation: string }
  /** A script's `api.<operation>(...)` call, inside run_read_script or run_write_script. */
  | { kind: 'script'; tool: string; operation: string };

/** How the call reads in hints and logs: the tool the assistant called, and through it which operation. */
export function originLabel(origin: CallOrigin | undefined, operation: string): string {
  if (!origin || origin.kind === 'direct') return operation;
  if (origin.kind === 'gateway') return `call_operation (operation "${origin.operation}")`;
  return `${origin.tool} (api.${origin.operation})`;
}
