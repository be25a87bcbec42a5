// Chat: the audit chat threads of an engagement, with their messages (only listing is documented).
import type { HandlerTable } from '../types.js';
import { engagementOf } from './sources.js';

export const chatHandlers: HandlerTable = {
  'GET /engagements/{engagement}/chat/threads': (ctx) => {
    const e = engagementOf(ctx);
    // Most recently active first, as the web application lists conversations.
    const threads = ctx.ws
      .c('chat_threads')
      .all((t) => t.engagement_id === e.id)
      .sort((a, b) => String(b.last_message_at ?? b.created_at).localeCompare(String(a.last_message_at ?? a.created_at)));
    return ctx.page(threads);
  },
};
