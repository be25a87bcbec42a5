// Chat: the audit chat of an engagement. Only thread listing is documented.
import { area, op } from './shared.js';

export const chat = area('chat', [
  op({
    name: 'list_chat_threads',
    title: 'List chat threads',
    description: 'Audit chat threads of an engagement. Use to find a conversation a consultant had about the audit.',
    method: 'GET',
    path: '/engagements/{engagement}/chat/threads',
    paginated: true,
  }),
]);
