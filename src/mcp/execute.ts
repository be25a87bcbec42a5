// Running one operation for a tool call: the same path for a direct tool, a surface tool and
// call_operation, so validation, the rate limiter, retries, downloads and the response budget behave
// identically however the operation is reached.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiClient } from '../api/client.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Operation } from '../operation.js';
import { renderFile } from './files.js';
import { renderError, renderSuccess, toolError, type ResourceLink } from './results.js';
import { toMultipart } from './uploads.js';
import { validateArguments } from './validation.js';

export interface ExecuteDeps {
  config: Config;
  client: ApiClient;
  logger: Logger;
  allowedUploadDirs: () => Promise<string[]>;
  /** Resource links for a result (src/mcp/resources.ts), given the operation, its arguments and data. */
  linksFor?: (op: Operation, args: Record<string, unknown>, data: unknown) => ResourceLink[];
}

export interface RunOptions {
  signal: AbortSignal;
  /** The tool the assistant called, for hints ("call X again with ..."). */
  via?: string;
}

/**
 * `fields` is not an API parameter: it is taken off before validation (the operation's schema is
 * strict) and applied to the answer. Accepted by every operation that answers JSON.
 */
function splitFields(op: Operation, raw: unknown): { args: unknown; fields?: string[]; error?: string } {
  if (op.response !== 'json' || raw === null || typeof raw !== 'object' || Array.isArray(raw) || !('fields' in raw)) return { args: raw };
  if ('fields' in op.input.shape) return { args: raw };
  const { fields, ...rest } = raw as Record<string, unknown>;
  if (fields === undefined) return { args: rest };
  if (!Array.isArray(fields) || !fields.every((f) => typeof f === 'string' && f.length > 0)) {
    return { args: rest, error: `Invalid arguments for ${op.name}; nothing was sent.\n- fields: expected an array of field names, e.g. ["id","statement"]` };
  }
  return { args: rest, fields: fields as string[] };
}

export function createExecutor(deps: ExecuteDeps) {
  const { config, client, logger } = deps;
  return async function runOperation(op: Operation, raw: unknown, opts: RunOptions): Promise<CallToolResult> {
    const split = splitFields(op, raw);
    if (split.error) return toolError(split.error, { error: { code: 'invalid_arguments', fields: { fields: 'expected an array of field names' } } });
    const checked = validateArguments(op, split.args);
    if (!checked.ok) return toolError(checked.message, { error: { code: 'invalid_arguments', fields: checked.fields } });
    const started = performance.now();
    try {
      const multipart = op.body === 'multipart' ? await toMultipart(op, checked.args, await deps.allowedUploadDirs()) : undefined;
      const res = await client.callOperation(op, checked.args, { signal: opts.signal, ...(multipart ? { multipart } : {}) });
      logger.debug({ tool: opts.via ?? op.name, op: op.name, status: res.status, ms: Math.round(performance.now() - started), cached: res.fromCache }, 'tool call');
      if (res.file) return await renderFile(op, res.file, config.downloadDir, opts.signal);
      const links = deps.linksFor?.(op, checked.args, res.data) ?? [];
      return renderSuccess(op, res, {
        budget: config.responseBudget,
        ...(split.fields ? { fields: split.fields } : {}),
        via: opts.via ?? op.name,
        links,
      });
    } catch (err) {
      if (opts.signal.aborted) throw err; // cancelled: the SDK sends no answer for a cancelled request
      logger.info({ tool: opts.via ?? op.name, op: op.name, err: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }, 'tool call failed');
      return renderError(op, err);
    }
  };
}

export type RunOperation = ReturnType<typeof createExecutor>;
