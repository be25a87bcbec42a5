// Workspace settings, members, tokens, invitations, the client company and the engagement of each demo
// workspace. Token values are fixed so the README and the tests can name them.
import { createHash } from 'node:crypto';
import type { WorkspaceState } from '../types.js';
import {
  at,
  CLIENT_BERTHIER,
  CLIENT_GLOBEX,
  ENGAGEMENT_AP,
  ENGAGEMENT_GLOBEX,
  MEMBER_CLAIRE,
  MEMBER_GLOBEX_ADMIN,
  MEMBER_MARC,
  MEMBER_SOPHIE,
  METHOD_P2P,
} from './ids.js';

type TokenKind = 'read' | 'write' | 'revoked' | 'expired';

/**
 * The personal token of a demo workspace: `pat_` and 40 characters derived from the workspace and
 * the kind, so the same values come back on every start and in every checkout.
 */
export function demoToken(slug: string, kind: TokenKind): string {
  return `pat_${createHash('sha256').update(`workspace-consulting-sandbox:${slug}:${kind}`).digest('hex').slice(0, 40)}`;
}

function seedTokens(ws: WorkspaceState, memberId: string): void {
  const tokens = ws.c('tokens');
  const make = (kind: TokenKind, scope: 'read' | 'write', extra: Record<string, unknown>) => {
    const value = demoToken(ws.slug, kind);
    tokens.insert({
      member_id: memberId,
      name: `Sandbox ${kind}`,
      scope,
      value,
      last_four: value.slice(-4),
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
      created_at: at(-30),
      ...extra,
    });
  };
  make('read', 'read', {});
  make('write', 'write', {});
  make('revoked', 'write', { revoked_at: at(-2) });
  make('expired', 'write', { created_at: at(-120), expires_at: at(-30) });
}

function workspaceSettings(name: string, displayName: string, defaultLocale: 'en' | 'fr') {
  return {
    name,
    display_name: displayName,
    status: 'active',
    locales: ['fr', 'en'],
    default_locale: defaultLocale,
    retention_raw_days: 365,
    retention_deliverable_days: 1825,
    settings: { require_2fa_for_consultants: true, participant_email_code_default: true, platform_keys_allowed: false },
    branding: { primary_color: '#1F3A5F', accent_color: '#C8963E', email_sender_name: displayName, logo_url: null },
  };
}

/** Atelier Conseil: the consulting firm running the Maison Berthier accounts-payable audit. */
export function seedWorkspace(ws: WorkspaceState): void {
  Object.assign(ws.workspace, workspaceSettings('atelier', 'Atelier Conseil', 'fr'), { created_at: at(-400), updated_at: at(-10) });

  const members = ws.c('members');
  members.insert({
    id: MEMBER_CLAIRE,
    name: 'Claire Dubois',
    email: 'claire.dubois@atelier-conseil.fr',
    role: 'admin',
    locale: 'fr',
    status: 'active',
    created_at: at(-400),
  });
  members.insert({
    id: MEMBER_MARC,
    name: 'Marc Lefèvre',
    email: 'marc.lefevre@atelier-conseil.fr',
    role: 'consultant',
    locale: 'fr',
    status: 'active',
    created_at: at(-200),
  });
  members.insert({
    id: MEMBER_SOPHIE,
    name: 'Sophie Martin',
    email: 'sophie.martin@atelier-conseil.fr',
    role: 'consultant',
    locale: 'en',
    status: 'active',
    created_at: at(-90),
  });
  seedTokens(ws, MEMBER_CLAIRE);

  const invitations = ws.c('invitations');
  invitations.insert({ email: 'julien.moreau@atelier-conseil.fr', role: 'consultant', status: 'pending', expires_at: at(12), created_at: at(5) });
  invitations.insert({ email: 'a.bernard@atelier-conseil.fr', role: 'admin', status: 'pending', expires_at: at(9), created_at: at(2) });

  ws.c('client_companies').insert({
    id: CLIENT_BERTHIER,
    name: 'Maison Berthier SA',
    industry: 'Fabrication de meubles',
    country: 'FR',
    website: 'https://www.maison-berthier.fr',
    created_at: at(-20),
  });
  ws.c('engagements').insert({
    id: ENGAGEMENT_AP,
    client_company_id: CLIENT_BERTHIER,
    name: 'Audit du processus fournisseurs (P2P)',
    description:
      "Diagnostic du processus achats-fournisseurs (procure-to-pay) : saisie des factures, rapprochement à trois voies, circuits d'approbation, paiements et clôture mensuelle.",
    method_id: METHOD_P2P,
    locale: 'fr',
    status: 'active',
    stage: 'interim',
    starts_on: '2026-09-14',
    ends_on: '2026-11-27',
    owner_id: MEMBER_CLAIRE,
    created_at: at(-14),
  });
}

/** Globex Advisory: a second, smaller workspace, so cross-workspace ids can be shown to answer 404. */
export function seedGlobex(ws: WorkspaceState): void {
  Object.assign(ws.workspace, workspaceSettings('globex', 'Globex Advisory', 'en'), { created_at: at(-300), updated_at: at(-30) });
  ws.c('members').insert({
    id: MEMBER_GLOBEX_ADMIN,
    name: 'Hank Scorpio',
    email: 'hank@globex.example',
    role: 'admin',
    locale: 'en',
    status: 'active',
    created_at: at(-300),
  });
  seedTokens(ws, MEMBER_GLOBEX_ADMIN);
  ws.c('client_companies').insert({
    id: CLIENT_GLOBEX,
    name: 'Cypress Creek Logistics',
    industry: 'Logistics',
    country: 'US',
    website: 'https://cypress-creek.example',
    created_at: at(-60),
  });
  ws.c('engagements').insert({
    id: ENGAGEMENT_GLOBEX,
    client_company_id: CLIENT_GLOBEX,
    name: 'Order-to-cash assessment',
    method_id: null,
    locale: 'en',
    status: 'active',
    stage: 'interim',
    starts_on: '2026-08-03',
    ends_on: '2026-10-30',
    owner_id: MEMBER_GLOBEX_ADMIN,
    created_at: at(-45),
  });
  const findings = ws.c('findings');
  const base = {
    engagement_id: ENGAGEMENT_GLOBEX,
    details: null,
    quantity: null,
    process_id: null,
    step_id: null,
    deliverable_category: null,
    reviewed_at: null,
    reviewed_by: null,
  };
  findings.insert({
    ...base,
    type: 're_entry',
    statement: 'Sales orders are keyed twice: once in the CRM, once in the ERP.',
    review_status: 'proposed',
    created_at: at(-20),
  });
  findings.insert({
    ...base,
    type: 'duration',
    statement: 'Credit checks take two days on average for new customers.',
    review_status: 'validated',
    reviewed_at: at(-10),
    reviewed_by: MEMBER_GLOBEX_ADMIN,
    created_at: at(-19),
  });
  findings.insert({
    ...base,
    type: 'risk',
    statement: 'Invoices above 50k USD are released without a second approval.',
    review_status: 'proposed',
    created_at: at(-18),
  });
}
