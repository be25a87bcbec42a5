// Client companies and engagements (the listed operations and the assumed ones).

import { ENGAGEMENT_AP } from '../data/ids.js';
import { type HandlerContext, type HandlerTable, inputOf, type Rec, type SandboxArea, validationFailed } from '../types.js';

/** create_engagement's input (catalog/engagements.ts). */
type EngagementInput = {
  client_company_id: string;
  name: string;
  method_id?: string | null;
  locale?: string;
  starts_on?: string | null;
  ends_on?: string | null;
};

/** The engagement of the path, or 404: every engagement-scoped handler starts here. */
function engagementOf(ctx: HandlerContext): Rec {
  return ctx.ws.c('engagements').must(ctx.params.engagement as string, 'engagement');
}

const newestFirst = (a: Rec, b: Rec) => String(b.created_at).localeCompare(String(a.created_at)) || b.id.localeCompare(a.id);

function engagementView(ctx: HandlerContext, e: Rec) {
  const company = ctx.ws.c('client_companies').get(String(e.client_company_id));
  return { ...e, client_company: company ? { id: company.id, name: company.name } : null };
}

const fieldProblem = (ctx: HandlerContext, field: string, en: string, fr: string) => validationFailed({ [field]: [ctx.locale === 'fr' ? fr : en] });

const handlers: HandlerTable = {
  list_client_companies: (ctx) =>
    ctx.page(
      ctx.ws
        .c('client_companies')
        .all()
        .sort((a, b) => String(a.name).localeCompare(String(b.name))),
    ),

  create_client_company: (ctx) => {
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

  get_client_company: (ctx) => ({ data: ctx.ws.c('client_companies').must(ctx.params.company as string, 'client company') }),

  list_engagements: (ctx) =>
    ctx.page(
      ctx.ws
        .c('engagements')
        .all()
        .sort(newestFirst)
        .map((e) => engagementView(ctx, e)),
    ),

  get_engagement: (ctx) => ({ data: engagementView(ctx, engagementOf(ctx)) }),

  create_engagement: (ctx) => {
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
};

export const area: SandboxArea = {
  toolset: 'engagements',
  handlers,
  demo: {
    engagement: () => ENGAGEMENT_AP,
    client_company: (ws) =>
      ws
        .c('client_companies')
        .all()
        .sort((a, b) => String(a.name).localeCompare(String(b.name)))[0]?.id,
  },
};
