// Client companies and engagements (the listed operations and the assumed ones), the job polling
// reads, and the audit-chat question, answered from the engagement's transcripts.
import { refreshJob } from '../jobs.js';
import { type HandlerContext, type HandlerTable, inputOf, type Rec, validationFailed } from '../types.js';

/** create_engagement's input (tools/engagements.ts). */
type EngagementInput = {
  client_company_id: string;
  name: string;
  method_id?: string | null;
  locale?: string;
  starts_on?: string | null;
  ends_on?: string | null;
};

/** The engagement of the path, or 404: every engagement-scoped handler starts here. */
export function engagementOf(ctx: HandlerContext): Rec {
  return ctx.ws.c('engagements').must(ctx.params.engagement as string, 'engagement');
}

/** A record of `collection` that belongs to the engagement of the path, or 404. */
function scoped(ctx: HandlerContext, collection: string, id: string, what: string): Rec {
  const eng = engagementOf(ctx);
  const r = ctx.ws.c(collection).get(id);
  if (!r || r.engagement_id !== eng.id) return ctx.ws.c(collection).must('', what);
  return r;
}

const newestFirst = (a: Rec, b: Rec) => String(b.created_at).localeCompare(String(a.created_at)) || b.id.localeCompare(a.id);

function engagementView(ctx: HandlerContext, e: Rec) {
  const company = ctx.ws.c('client_companies').get(String(e.client_company_id));
  return { ...e, client_company: company ? { id: company.id, name: company.name } : null };
}

const fieldProblem = (ctx: HandlerContext, field: string, en: string, fr: string) => validationFailed({ [field]: [ctx.locale === 'fr' ? fr : en] });

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

export const engagementsHandlers: HandlerTable = {
  'GET /client-companies': (ctx) =>
    ctx.page(
      ctx.ws
        .c('client_companies')
        .all()
        .sort((a, b) => String(a.name).localeCompare(String(b.name))),
    ),

  'POST /client-companies': (ctx) => {
    const name = String(ctx.input.name).trim();
    if (ctx.ws.c('client_companies').all((c) => String(c.name).toLowerCase() === name.toLowerCase()).length > 0) {
      throw fieldProblem(ctx, 'name', 'A client company with this name already exists.', 'Une entreprise cliente porte déjà ce nom.');
    }
    const company = ctx.ws.c('client_companies').insert({
      name,
      industry: ctx.input.industry ?? null,
      country: ctx.input.country ?? null,
      website: ctx.input.website ?? null,
    });
    return { status: 201, data: company };
  },

  'GET /client-companies/{company}': (ctx) => ({ data: ctx.ws.c('client_companies').must(ctx.params.company as string, 'client company') }),

  'GET /engagements': (ctx) =>
    ctx.page(
      ctx.ws
        .c('engagements')
        .all()
        .sort(newestFirst)
        .map((e) => engagementView(ctx, e)),
    ),

  'GET /engagements/{engagement}': (ctx) => ({ data: engagementView(ctx, engagementOf(ctx)) }),

  'POST /engagements': (ctx) => {
    const i = inputOf<EngagementInput>(ctx);
    if (!ctx.ws.c('client_companies').get(i.client_company_id)) {
      throw fieldProblem(
        ctx,
        'client_company_id',
        'No client company with this id in the workspace.',
        "Aucune entreprise cliente avec cet identifiant dans l'espace de travail.",
      );
    }
    if (i.method_id && !ctx.ws.c('methods').get(i.method_id)) {
      throw fieldProblem(ctx, 'method_id', 'No method with this id in the workspace.', "Aucune méthode avec cet identifiant dans l'espace de travail.");
    }
    if (i.starts_on && i.ends_on && String(i.ends_on) < String(i.starts_on)) {
      throw fieldProblem(ctx, 'ends_on', 'The end date must not be before the start date.', 'La date de fin ne peut pas précéder la date de début.');
    }
    const e = ctx.ws.c('engagements').insert({
      client_company_id: i.client_company_id,
      name: i.name,
      method_id: i.method_id ?? null,
      locale: i.locale ?? ctx.ws.workspace.default_locale ?? 'en',
      status: 'active',
      stage: 'interim',
      starts_on: i.starts_on ?? null,
      ends_on: i.ends_on ?? null,
      owner_id: ctx.member.id,
    });
    return { status: 201, data: engagementView(ctx, e) };
  },

  'GET /engagements/{engagement}/analysis/runs/{run}': (ctx) => {
    const run = scoped(ctx, 'analysis_runs', ctx.params.run as string, 'analysis run');
    return { data: refreshJob(ctx.ws, run, ctx.now()) };
  },

  'GET /engagements/{engagement}/exports/{export}': (ctx) => {
    const ex = scoped(ctx, 'exports', ctx.params.export as string, 'export');
    return { data: refreshJob(ctx.ws, ex, ctx.now()) };
  },

  'POST /engagements/{engagement}/chat/ask': (ctx) => {
    const eng = engagementOf(ctx);
    const question = String(ctx.input.question);
    const threadId = ctx.input.thread_id as string | null | undefined;
    if (threadId) scoped(ctx, 'chat_threads', threadId, 'chat thread');
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
