// Kept for callers of the earlier name: arguments are read and validated by src/mcp/arguments.ts
// (values read as clients send them, then the strict schema; one refusal builder for every tool).
import type { Operation } from '../operation.js';
import { readArguments, type ReadResult } from './arguments.js';

export type Validated = ReadResult<Record<string, unknown>>;

/** An operation's own arguments (without the MCP layer's fields, wait, cancel_on_abort), read and validated. */
export function validateArguments(op: Operation, raw: unknown): Validated {
  return readArguments(op.input, raw, op.name);
}
