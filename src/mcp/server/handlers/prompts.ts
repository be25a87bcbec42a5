// prompts/list and prompts/get: the server's prompts, the same for every member.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { getPrompt, listPrompts, PromptError } from '../prompts.js';
import type { HandlerContext } from './context.js';

export function registerPrompts({ server }: HandlerContext): void {
  server.setRequestHandler('prompts/list', () => ({ prompts: listPrompts() }));
  server.setRequestHandler('prompts/get', (req) => {
    try {
      return getPrompt(req.params.name, req.params.arguments ?? {});
    } catch (err) {
      if (err instanceof PromptError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
      throw err;
    }
  });
}
