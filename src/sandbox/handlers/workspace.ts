// The current member, workspace settings and branding, members, invitations and workspace enums.

import { seedWorkspace } from '../data/workspace.js';
import { ApiError, conflict, type HandlerContext, type HandlerTable, type Rec, type SandboxArea } from '../types.js';

/** A member as the API shows it (no internal fields). */
function memberView(m: Rec) {
  return { id: m.id, name: m.name, email: m.email, role: m.role, locale: m.locale, status: m.status, created_at: m.created_at, updated_at: m.updated_at };
}

function workspaceView(ws: HandlerContext['ws']) {
  const w = ws.workspace;
  return {
    id: w.id,
    slug: ws.slug,
    name: w.name,
    display_name: w.display_name,
    status: w.status,
    locales: w.locales,
    default_locale: w.default_locale,
    retention_raw_days: w.retention_raw_days,
    retention_deliverable_days: w.retention_deliverable_days,
    settings: w.settings,
    branding: w.branding,
    created_at: w.created_at,
    updated_at: w.updated_at,
  };
}

function activeAdmins(ctx: HandlerContext): Rec[] {
  return ctx.ws.c('members').all((m) => m.role === 'admin' && m.status === 'active');
}

const lastAdmin = () =>
  conflict('workspace.last_admin', {
    en: 'The workspace must keep at least one admin.',
    fr: "L'espace de travail doit garder au moins un administrateur.",
  });

const adminOnly = () =>
  new ApiError(403, 'auth.role_forbidden', {
    en: 'Only an admin of the workspace may do this.',
    fr: "Seul un administrateur de l'espace de travail peut faire cela.",
  });

/** Workspace administration is reserved to admins (the role, not the token scope). */
function requireAdmin(ctx: HandlerContext): void {
  if (ctx.member.role !== 'admin') throw adminOnly();
}

const ROLES = [
  { value: 'admin', label: { en: 'Admin', fr: 'Administrateur' } },
  { value: 'consultant', label: { en: 'Consultant', fr: 'Consultant' } },
];
const STATUSES = [
  { value: 'active', label: { en: 'Active', fr: 'Actif' } },
  { value: 'suspended', label: { en: 'Suspended', fr: 'Suspendu' } },
  { value: 'archived', label: { en: 'Archived', fr: 'Archivé' } },
];

const handlers: HandlerTable = {
  get_current_member: (ctx) => ({
    data: {
      ...memberView(ctx.member),
      workspace: { id: ctx.ws.workspace.id, slug: ctx.ws.slug, name: ctx.ws.workspace.display_name },
      token: ctx.credential,
    },
  }),

  update_current_member: (ctx) => {
    const patch: Record<string, unknown> = {};
    if (ctx.input.name !== undefined) patch.name = ctx.input.name;
    if (ctx.input.locale !== undefined) patch.locale = ctx.input.locale;
    return { data: memberView(ctx.ws.c('members').update(ctx.member.id, patch)) };
  },

  get_workspace: (ctx) => ({ data: workspaceView(ctx.ws) }),

  update_workspace: (ctx) => {
    requireAdmin(ctx);
    const w = ctx.ws.workspace;
    const { settings, ...rest } = ctx.input as Record<string, unknown> & { settings?: Record<string, unknown> };
    const locales = (rest.locales as string[] | undefined) ?? (w.locales as string[]);
    const defaultLocale = (rest.default_locale as string | undefined) ?? (w.default_locale as string);
    if (!locales.includes(defaultLocale)) {
      throw new ApiError(
        422,
        'validation.failed',
        { en: 'The given data was invalid.', fr: 'Les données fournies sont invalides.' },
        {
          fields: {
            default_locale: [ctx.locale === 'fr' ? 'La langue par défaut doit faire partie des langues.' : 'The default locale must be one of the locales.'],
          },
        },
      );
    }
    Object.assign(w, rest);
    if (settings) w.settings = { ...(w.settings as Record<string, unknown>), ...settings };
    w.updated_at = ctx.now().toISOString();
    return { data: workspaceView(ctx.ws) };
  },

  update_workspace_branding: (ctx) => {
    requireAdmin(ctx);
    const w = ctx.ws.workspace;
    w.branding = { ...(w.branding as Record<string, unknown>), ...ctx.input };
    w.updated_at = ctx.now().toISOString();
    return { data: w.branding };
  },

  delete_workspace_logo: (ctx) => {
    requireAdmin(ctx);
    const w = ctx.ws.workspace;
    w.branding = { ...(w.branding as Record<string, unknown>), logo_url: null };
    w.updated_at = ctx.now().toISOString();
    return { status: 204 };
  },

  get_workspace_dashboard: (ctx) => {
    const c = (name: string, f?: (r: Rec) => boolean) => ctx.ws.c(name).all(f).length;
    const engagements = ctx.ws.c('engagements').all();
    return {
      data: {
        workspace: { id: ctx.ws.workspace.id, name: ctx.ws.workspace.display_name },
        members: c('members', (m) => m.status === 'active'),
        pending_invitations: c('invitations', (i) => i.status === 'pending'),
        client_companies: c('client_companies'),
        engagements: { total: engagements.length, active: engagements.filter((e) => e.status === 'active').length },
        interviews: c('interviews'),
        findings: {
          total: c('findings'),
          proposed: c('findings', (f) => f.review_status === 'proposed'),
          validated: c('findings', (f) => f.review_status === 'validated'),
          rejected: c('findings', (f) => f.review_status === 'rejected'),
        },
        open_contradictions: c('contradictions', (x) => x.status === 'open' || x.status === undefined),
        recent_engagements: engagements
          .slice()
          .sort((a, b) => String(b.updated_at).localeCompare(String(a.updated_at)))
          .slice(0, 5)
          .map((e) => ({ id: e.id, name: e.name, status: e.status, stage: e.stage, updated_at: e.updated_at })),
      },
    };
  },

  list_invitations: (ctx) => ctx.page(ctx.ws.c('invitations').all((i) => i.status === 'pending')),

  invite_member: (ctx) => {
    requireAdmin(ctx);
    const email = String(ctx.input.email).toLowerCase();
    if (ctx.ws.c('members').all((m) => String(m.email).toLowerCase() === email && m.status === 'active').length > 0) {
      throw conflict('invitation.already_member', { en: 'This person is already a member.', fr: 'Cette personne est déjà membre.' });
    }
    if (ctx.ws.c('invitations').all((i) => String(i.email).toLowerCase() === email && i.status === 'pending').length > 0) {
      throw conflict('invitation.already_pending', {
        en: 'An invitation is already pending for this e-mail.',
        fr: 'Une invitation est déjà en attente pour cet e-mail.',
      });
    }
    const inv = ctx.ws.c('invitations').insert({
      email,
      role: ctx.input.role,
      status: 'pending',
      invited_by: ctx.member.id,
      expires_at: new Date(ctx.now().getTime() + 7 * 86_400_000).toISOString(),
    });
    return { status: 201, data: inv };
  },

  revoke_invitation: (ctx) => {
    requireAdmin(ctx);
    const inv = ctx.ws.c('invitations').must(ctx.params.invitation as string, 'invitation');
    ctx.ws.c('invitations').remove(inv.id);
    return { status: 204 };
  },

  list_members: (ctx) =>
    ctx.page(
      ctx.ws
        .c('members')
        .all((m) => m.status === 'active')
        .map(memberView),
    ),

  update_member_role: (ctx) => {
    requireAdmin(ctx);
    const members = ctx.ws.c('members');
    const m = members.must(ctx.params.member as string, 'member');
    if (m.status !== 'active') throw members.must('', 'member');
    if (m.role === 'admin' && ctx.input.role !== 'admin' && activeAdmins(ctx).length <= 1) throw lastAdmin();
    return { data: memberView(members.update(m.id, { role: ctx.input.role })) };
  },

  remove_member: (ctx) => {
    requireAdmin(ctx);
    const members = ctx.ws.c('members');
    const m = members.must(ctx.params.member as string, 'member');
    if (m.status !== 'active') throw members.must('', 'member');
    if (m.role === 'admin' && activeAdmins(ctx).length <= 1) throw lastAdmin();
    // Kept as a removed record so its tokens stop working at once (auth checks the member's status).
    members.update(m.id, { status: 'removed' });
    return { status: 204 };
  },

  list_member_roles: (ctx) => ctx.page(ROLES.map((r) => ({ value: r.value, label: r.label[ctx.locale] }))),
  list_workspace_statuses: (ctx) => ctx.page(STATUSES.map((r) => ({ value: r.value, label: r.label[ctx.locale] }))),
};

export const area: SandboxArea = {
  toolset: 'workspace',
  handlers,
  seeds: [seedWorkspace],
  demo: {
    member: (ws) => ws.c('members').all((m) => m.role === 'consultant')[0]?.id,
  },
};
