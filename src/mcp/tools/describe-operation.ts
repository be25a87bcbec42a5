// describe_operation, a tool of the gateway (find-operations.ts): one operation in full, or one of the
// tools of this server that scripts call.
import { z } from 'zod';
import { isGenerated } from '../operations/live-openapi.js';
import { shownName } from '../operations/registry.js';
import { toolInput } from '../pipeline/extras.js';
import { DESCRIBE_RESULT, operationOutputSchema } from '../pipeline/result-schemas.js';
import { defineTool, type ToolSpec, toolDefinition } from '../pipeline/tool-spec.js';
import { toolError } from '../render/index.js';
import { isRefusal } from '../render/refusal.js';
import { NOT_IN_API } from '../scripts/script-tools.js';
import { signatureOf, toolSignature } from '../scripts/signatures.js';
import type { GatewayDeps } from './find-operations.js';

const describeInput = z.strictObject({ operation: z.string().min(1).max(100) });

export function describeOperationTool(deps: GatewayDeps): ToolSpec {
  const { pipeline, codeMode = false } = deps;
  const registry = pipeline.registry;

  /** One of the session's own tools (a workflow, block edits, an app's data tool), as a script calls it. */
  function describeTool(tool: ToolSpec) {
    const def = tool.definition;
    const scripted = !NOT_IN_API.has(tool.name);
    const info = {
      name: tool.name,
      title: def.title ?? tool.name.replace(/_/g, ' '),
      description: def.description ?? '',
      scope: tool.scope,
      annotations: def.annotations ?? {},
      signature: scripted ? toolSignature(tool.name, def.inputSchema as Record<string, unknown>, def.outputSchema as Record<string, unknown>) : '',
      input_schema: def.inputSchema,
      output_schema: def.outputSchema,
      notes: [
        scripted ? `A tool of this server: call it directly, or as api.${tool.name}(args) in a script.` : 'A tool of this server; scripts do not call it.',
      ],
    };
    return { content: [{ type: 'text' as const, text: JSON.stringify(info) }], structuredContent: info };
  }

  return defineTool({
    name: 'describe_operation',
    input: describeInput,
    quotesContent: false,
    description: codeMode
      ? "The full input schema, notes and script signature of one operation, or of a tool of this server that scripts call (run_read_script's description names them)."
      : 'The full input schema and notes of one operation found with find_operations, before calling it with call_operation, and its signature for scripts.',
    annotations: { readOnlyHint: true },
    outputSchema: DESCRIBE_RESULT,
    async run(args) {
      await registry.operations.ready();
      const { operation } = args;
      const op = registry.get(operation);
      const tool = op ? undefined : pipeline.ownTool(operation);
      if (tool) return describeTool(tool);
      if (!op) return toolError(`Unknown operation "${shownName(operation)}". Use find_operations to search by what you want to do.`, { code: 'unknown' });
      // The full schema (id patterns included): this is where the assistant reads the exact rules.
      // A generated operation shows its description's own schema (with the extras).
      const schema = isGenerated(op)
        ? (toolDefinition(op).inputSchema as Record<string, unknown>)
        : (z.toJSONSchema(toolInput(op), { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);
      delete schema.$schema;
      const shown = pipeline.shownInputSchema(op, schema);
      const notes: string[] = [];
      if (op.paginated) notes.push('Paginated: pass cursor = meta.next_cursor of the previous page; limit up to 200.');
      notes.push(...pipeline.fileNotes(op));
      if (op.annotations.destructiveHint) notes.push('Destructive: confirm with the user first.');
      if (isGenerated(op)) notes.push("Generated from the workspace's live API description: not curated; the workspace validates the arguments.");
      const refusal = registry.resolve(op.name);
      if (isRefusal(refusal)) notes.push(`Not callable in this session: ${refusal.message}`);
      const info = {
        name: op.name,
        title: op.title,
        description: op.description,
        method: op.method,
        path: op.path,
        scope: op.scope,
        area: op.toolset,
        annotations: op.annotations,
        // How a script calls it (run_read_script, run_write_script): a TypeScript declaration.
        signature: signatureOf(op),
        input_schema: shown,
        // What call_operation's structuredContent holds for it (call_operation itself can only say "an object").
        output_schema: operationOutputSchema(op),
        notes,
      };
      return { content: [{ type: 'text', text: JSON.stringify(info) }], structuredContent: info };
    },
  });
}
