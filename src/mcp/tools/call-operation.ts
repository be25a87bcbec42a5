// call_operation, a tool of the gateway (find-operations.ts): runs one operation exactly as its own
// tool would (the pipeline's same validation, limiter, read-only and consent checks, results, budget).
import { z } from 'zod';
import { shownName } from '../operations/registry.js';
import { readCallOperation } from '../pipeline/arguments.js';
import { RECORD_RESULT } from '../pipeline/result-schemas.js';
import { defineTool, type ToolSpec } from '../pipeline/tool-spec.js';
import { toolError } from '../render/index.js';
import { isRefusal, refusalResult } from '../render/refusal.js';
import type { GatewayDeps } from './find-operations.js';

const callInput = z.strictObject({
  operation: z.string().min(1).max(100).describe('name from find_operations'),
  arguments: z.record(z.string(), z.unknown()).optional().describe('as describe_operation shows; list operations also take fields: [names]'),
});

export function callOperationTool(deps: Pick<GatewayDeps, 'pipeline'>): ToolSpec {
  const { pipeline } = deps;
  const registry = pipeline.registry;
  const writes = registry.writesAllowed();

  return defineTool({
    name: 'call_operation',
    input: callInput,
    // The operation it runs decides: the pipeline marks its result when that operation quotes.
    quotesContent: false,
    // The operation's arguments under `arguments`, or beside `operation` when `arguments` is absent.
    read: (raw) => readCallOperation(callInput, raw, 'call_operation'),
    description: writes
      ? 'Run any operation by name (from find_operations) with its arguments, validated as its own tool would be. Operations marked destructive delete or irreversibly commit: confirm with the user first.'
      : 'Run any read operation by name (from find_operations) with its arguments. This session is read-only: operations that change data are refused.',
    // Under read-only mode or read consent it can only read (a 'read' tool), and says so.
    annotations: { readOnlyHint: !writes, destructiveHint: writes, idempotentHint: !writes, openWorldHint: writes },
    // Whatever the operation's own tool answers (its outputSchema, which describe_operation shows as
    // output_schema): every one of them is an object.
    outputSchema: RECORD_RESULT,
    async run(args, ctx) {
      const { operation, arguments: inner } = args;
      if (!registry.get(operation)) await registry.operations.ready();
      const resolved = registry.resolve(operation);
      if (isRefusal(resolved)) {
        if (resolved.code !== 'unknown') return refusalResult(resolved);
        return toolError(`Unknown operation "${shownName(operation)}". Use find_operations to search by what you want to do.`, { code: 'unknown' });
      }
      // Steps 2 to 4 for the operation's own tool: its validation, run and rendering.
      return pipeline.callTool(pipeline.operationTool(resolved), inner ?? {}, { ...ctx, via: { kind: 'gateway', operation: resolved.name } });
    },
  });
}
