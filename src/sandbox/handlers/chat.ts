// Chat: the audit chat threads of an engagement, with their messages (only listing is documented), and
// the audit-chat question, answered from the engagement's transcripts.
import type { HandlerTable, SandboxArea } from '../types.js';
import { engagementOf, scoped } from './sources.js';

const WORD = /[\p{L}\p{N}]+/gu;
/** Short, frequent words carry no meaning for matching (both languages of the demo). */
const STOP = new Set(
  'the a an and or of to in on for is are was were be what who how why when which that this with by at from do does did it as not le la les un une des du de et ou en au aux est sont qui que quoi pour par sur dans avec ce cette ces il elle ils on pas ne se sa son ses leur quel quelle quels quelles comment pourquoi'.split(
    ' ',
  ),
);

function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').matchAll(WORD)) {
    const w = m[0];
    if (w.length > 1 && !STOP.has(w)) out.add(w);
  }
  return out;
}

const handlers: HandlerTable = {
  list_chat_threads: (ctx) => {
    const e = engagementOf(ctx);
    // Most recently active first, as the web application lists conversations.
    const threads = ctx.ws
      .c('chat_threads')
      .all((t) => t.engagement_id === e.id)
      .sort((a, b) => String(b.last_message_at ?? b.created_at).localeCompare(String(a.last_message_at ?? a.created_at)));
    return ctx.page(threads);
  },

  ask_audit_chat: (ctx) => {
    const eng = engagementOf(ctx);
    const question = String(ctx.input.question);
    const threadId = ctx.input.thread_id as string | null | undefined;
    if (threadId) scoped(ctx.ws, 'chat_threads', threadId, eng.id, 'chat thread');
    const q = words(question);
    // The three passages sharing the most words with the question; ties go to the earlier passage.
    const ranked = ctx.ws
      .c('transcript_segments')
      .all((s) => s.engagement_id === eng.id)
      .map((s) => {
        let score = 0;
        for (const w of words(String(s.text))) if (q.has(w)) score++;
        return { s, score };
      })
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, 3);
    const fr = ctx.locale === 'fr';
    const citations = ranked.map(({ s }) => ({
      source_type: 'transcript_segment',
      source_id: s.id,
      excerpt: String(s.text).length > 300 ? `${String(s.text).slice(0, 297)}...` : String(s.text),
      interview_id: s.interview_id ?? null,
      speaker_name: s.speaker_name ?? null,
    }));
    const answer =
      citations.length === 0
        ? fr
          ? "Je n'ai trouvé aucun passage des entretiens qui réponde à cette question."
          : 'No interview passage answers this question.'
        : `${fr ? 'Selon les entretiens' : 'According to the interviews'}: ${citations.map((c, i) => `[${i + 1}] ${c.speaker_name ?? ''}: « ${c.excerpt} »`).join(' ')}`;
    // A read token may ask (the spec: nothing is changed), so the question is not stored in the thread.
    return { data: { answer, citations, thread_id: threadId ?? null } };
  },
};

export const area: SandboxArea = {
  toolset: 'chat',
  handlers,
};
