// Chat: the audit chat of an engagement. Only thread listing is documented; asking a question is
// named by the spec (a read token may ask) and documented by the live description.
import { z } from 'zod';
import { area, nullableId, op } from './shared.js';

export const chat = area(
  'chat',
  [
    op({
      name: 'ask_audit_chat',
      title: 'Ask the audit chat',
      description: 'Ask a question about an engagement; the answer cites the transcript passages it rests on. Changes nothing.',
      method: 'POST',
      path: '/engagements/{engagement}/chat/ask',
      // The spec: a read token may ask the audit chat a question.
      scope: 'read',
      destructive: false,
      undocumented: true,
      surface: 'brief',
      fields: { question: z.string().min(1).max(2000), thread_id: nullableId().optional() },
    }),
    op({
      name: 'list_chat_threads',
      title: 'List chat threads',
      description: 'Audit chat threads of an engagement. Use to find a conversation a consultant had about the audit.',
      method: 'GET',
      path: '/engagements/{engagement}/chat/threads',
      paginated: true,
    }),
  ],
  // Transcripts, documents, findings and chat quote what interviewees, clients and members wrote.
  { quotesContent: true },
);
