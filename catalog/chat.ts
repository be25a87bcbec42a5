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
      example: { engagement: '$demo.engagement', question: 'Que dit le service comptable de la double saisie des factures ?' },
      askedAs: {
        en: [
          'what did people say about',
          'ask a question about the interviews',
          'search what interviewees said',
          'has this come up in interviews',
          'ask the material a question',
        ],
        fr: [
          'qu’ont dit les gens sur',
          'poser une question sur les entretiens',
          'chercher ce qu’ont dit les interviewés',
          'quelqu’un a-t-il parlé de',
          'interroger la matière',
        ],
      },
      // The spec: a read token may ask the audit chat a question.
      scope: 'read',
      destructive: false,
      undocumented: true,
      surface: 'brief',
      fields: () => ({ question: z.string().min(1).max(2000), thread_id: nullableId().optional() }),
    }),
    op({
      name: 'list_chat_threads',
      title: 'List chat threads',
      description: 'Audit chat threads of an engagement. Use to find a conversation a consultant had about the audit.',
      method: 'GET',
      path: '/engagements/{engagement}/chat/threads',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: ['earlier chat conversations', 'past questions to the audit chat', 'an earlier conversation with the assistant'],
        fr: ['anciennes conversations du chat', 'questions posées au chat', 'historique des échanges avec le chat'],
      },
      paginated: true,
    }),
  ],
  // Transcripts, documents, findings and chat quote what interviewees, clients and members wrote.
  { quotesContent: true },
);
