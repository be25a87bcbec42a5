// completion/complete: the values of a prompt's or a resource template's argument, read through the
// session's pipeline.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { TEMPLATES } from '../../operations/resources.js';
import { complete } from '../completions.js';
import { PROMPTS } from '../prompts.js';
import type { HandlerContext } from './context.js';
import { resourceDeps } from './resources.js';

export function registerCompletion({ server, current }: HandlerContext): void {
  server.setRequestHandler('completion/complete', async (req, ctx) => {
    const ref = req.params.ref;
    if (ref.type === 'ref/prompt' && !PROMPTS.some((p) => p.name === ref.name)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt "${ref.name.slice(0, 80)}".`);
    }
    if (ref.type === 'ref/resource' && !TEMPLATES.some((t) => t.uriTemplate === ref.uri)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource template "${ref.uri.slice(0, 200)}".`);
    }
    const completion = await complete(await resourceDeps(current, ctx), req.params.argument, req.params.context?.arguments ?? {});
    return { completion };
  });
}
