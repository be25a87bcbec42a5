// Deliverable of the Berthier audit: its draft, its documents (composed from the analysis that CONTENT
// seeds), one published interim version with client comments. Documents hold only references (ids) to
// findings, evidences, processes and opportunities: their words are read from those records when a
// document is previewed or exported, so an edited finding shows up everywhere at once.
import { DOCUMENT_KINDS } from '../../../catalog/shared.js';
import type { Rec, WorkspaceState } from '../types.js';
import { at, DRAFT_AP, ENGAGEMENT_AP, MEMBER_CLAIRE, MEMBER_MARC, VERSION_AP_1 } from './ids.js';

export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
export type Block = Record<string, unknown> & { id?: string | null; type: string };

export const DOCUMENT_TITLES: Record<DocumentKind, { fr: string; en: string }> = {
  coverage: { fr: 'Couverture des entretiens', en: 'Interview coverage' },
  interim_insights: { fr: 'Enseignements intermédiaires', en: 'Interim insights' },
  methodology: { fr: 'Méthodologie', en: 'Methodology' },
  executive_summary: { fr: 'Synthèse', en: 'Executive summary' },
  roadmap: { fr: 'Feuille de route', en: 'Roadmap' },
  process_sheets: { fr: 'Fiches processus', en: 'Process sheets' },
  tool_landscape: { fr: 'Paysage applicatif', en: 'Tool landscape' },
  role_activity: { fr: 'Activité par rôle', en: 'Activity by role' },
  pain_map: { fr: 'Cartographie des irritants', en: 'Pain map' },
  uncertainties: { fr: 'Points à confirmer', en: 'Uncertainties' },
  verbatims: { fr: 'Verbatims', en: 'Verbatims' },
};

/** The seven documents of the demo deliverable; the others exist but are left out of it. */
const INCLUDED: readonly DocumentKind[] = ['executive_summary', 'coverage', 'pain_map', 'roadmap', 'process_sheets', 'verbatims', 'methodology'];

/** Blocks a consultant wrote by hand carry this id prefix; `keep_edits` regeneration keeps them. */
export const USER_BLOCK_PREFIX = 'user-';

/** The engagement's records of a collection (every engagement-scoped record carries engagement_id). */
export const ofEngagement = (ws: WorkspaceState, collection: string, engagementId: string) => ws.c(collection).all((r) => r.engagement_id === engagementId);

/** Human label of any referenced record, whatever its area calls the field. */
export function label(r: Rec | undefined): string {
  if (!r) return '';
  return String(r.statement ?? r.title ?? r.name ?? r.topic ?? r.excerpt ?? r.id);
}

interface ComposeOptions {
  includeProposed: boolean;
  processId?: string | null;
  locale?: 'fr' | 'en';
}

/** Findings a deliverable may show: validated ones, plus proposed ones when the draft says so. */
export function publishableFindings(ws: WorkspaceState, engagementId: string, includeProposed: boolean): Rec[] {
  return ofEngagement(ws, 'findings', engagementId).filter(
    (f) => f.review_status === 'validated' || (includeProposed && (f.review_status ?? 'proposed') === 'proposed'),
  );
}

const PAIN_TYPES = new Set(['irritant', 're_entry', 'duration', 'volume', 'risk', 'key_person_dependency']);

/**
 * The generated blocks of one document, from the analysis as it stands. Block ids are stable per kind
 * and position (`gen-<kind>-<n>`), never `user-...`, so regeneration can tell them from manual edits.
 */
export function composeBlocks(ws: WorkspaceState, engagementId: string, kind: DocumentKind, opts: ComposeOptions): Block[] {
  const fr = (opts.locale ?? 'fr') === 'fr';
  const findings = publishableFindings(ws, engagementId, opts.includeProposed);
  const evidences = ofEngagement(ws, 'evidences', engagementId).filter((e) => e.is_publishable !== false && findings.some((f) => f.id === e.finding_id));
  const processes = ofEngagement(ws, 'processes', engagementId).filter((p) => !opts.processId || p.id === opts.processId);
  const opportunities = ofEngagement(ws, 'opportunities', engagementId);
  const interviews = ofEngagement(ws, 'interviews', engagementId);
  const contradictions = ofEngagement(ws, 'contradictions', engagementId);
  const byType = (types: Set<string>) => findings.filter((f) => types.has(String(f.type)));
  const ids = (rs: Rec[]) => rs.slice(0, 50).map((r) => r.id);
  // A chart block carries the figures it is drawn from in `options` (as a table block carries its
  // rows), named by `data_ref`: the API has no read of opportunities or process steps of its own.
  const opportunityPoints = () => ({
    items: opportunities.slice(0, 50).map((o) => ({ id: o.id, title: label(o), gain: o.gain, effort: o.effort, horizon: o.horizon })),
  });
  const stepsOf = (processId: unknown) =>
    ws
      .c('process_steps')
      .all((s) => s.process_id === processId)
      .sort((x, y) => Number(x.position ?? 0) - Number(y.position ?? 0))
      .slice(0, 50)
      .map((s) => ({ id: s.id, name: label(s) }));

  const blocks: Omit<Block, 'id'>[] = [{ type: 'heading', level: 1, text: DOCUMENT_TITLES[kind][fr ? 'fr' : 'en'] }];
  switch (kind) {
    case 'executive_summary': {
      blocks.push(
        {
          type: 'paragraph',
          text: fr
            ? `Le processus fournisseurs de Maison Berthier repose sur des ressaisies manuelles et une forte dépendance à la responsable comptabilité fournisseurs. ${findings.length} constats sont retenus à ce stade.`
            : `Maison Berthier's procure-to-pay process relies on manual re-entry and on one key person in accounts payable. ${findings.length} findings are retained so far.`,
        },
        {
          type: 'key_figures',
          title: fr ? 'Chiffres clés' : 'Key figures',
          items: [
            `${interviews.length} ${fr ? 'entretiens' : 'interviews'}`,
            `${findings.length} ${fr ? 'constats' : 'findings'}`,
            `${processes.length} ${fr ? 'processus cartographiés' : 'processes mapped'}`,
            `${opportunities.length} ${fr ? "pistes d'amélioration" : 'improvement opportunities'}`,
          ],
        },
        { type: 'item_list', title: fr ? 'Constats principaux' : 'Main findings', item_type: 'finding', ids: ids(findings.slice(0, 8)), display: 'compact' },
      );
      const kpd = byType(new Set(['key_person_dependency', 'risk']))[0];
      blocks.push({
        type: 'callout',
        tone: 'caution',
        text: kpd ? label(kpd) : fr ? 'Clôture mensuelle sous tension.' : 'Month-end close under pressure.',
        refs: kpd ? [{ type: 'finding', id: kpd.id }] : [],
      });
      if (evidences[0]) blocks.push({ type: 'quote', evidence_id: evidences[0].id, text: String(evidences[0].excerpt ?? '') });
      break;
    }
    case 'coverage':
      blocks.push(
        { type: 'chart', chart: 'coverage_bars', data_ref: 'interviews', title: fr ? 'Entretiens par service' : 'Interviews by department' },
        { type: 'chart', chart: 'topic_coverage', data_ref: 'findings', title: fr ? 'Constats par thème' : 'Findings by topic' },
        {
          type: 'table',
          title: fr ? 'Entretiens menés' : 'Interviews conducted',
          data_ref: 'interviews',
          options: {
            columns: fr ? ['Rôle', 'Service', 'Statut'] : ['Role', 'Department', 'Status'],
            rows: interviews.map((i) => [String(i.interviewee_role ?? ''), String(i.department ?? ''), String(i.status ?? '')]),
          },
        },
      );
      break;
    case 'pain_map':
      blocks.push(
        {
          type: 'chart',
          chart: 'pain_heatmap',
          data_ref: 'findings',
          title: fr ? 'Irritants par étape' : 'Pain points by step',
          options: { steps: processes.flatMap((p) => stepsOf(p.id)).slice(0, 50) },
        },
        { type: 'item_list', item_type: 'finding', ids: ids(byType(PAIN_TYPES)), display: 'full' },
      );
      break;
    case 'roadmap':
      blocks.push(
        { type: 'chart', chart: 'roadmap_lanes', data_ref: 'opportunities', title: fr ? 'Feuille de route' : 'Roadmap', options: opportunityPoints() },
        { type: 'chart', chart: 'gain_effort_matrix', data_ref: 'opportunities', title: fr ? 'Gain / effort' : 'Gain / effort', options: opportunityPoints() },
        { type: 'item_list', item_type: 'opportunity', ids: ids(opportunities), display: 'full' },
      );
      break;
    case 'process_sheets':
      for (const p of processes) {
        const steps = ws.c('process_steps').all((s) => s.process_id === p.id);
        blocks.push(
          { type: 'heading', level: 2, text: label(p) },
          { type: 'process', process_id: p.id, show_map: true, title: label(p), options: { steps: stepsOf(p.id) } },
          { type: 'item_list', item_type: 'process_step', ids: ids(steps), display: 'compact' },
          { type: 'item_list', item_type: 'finding', ids: ids(findings.filter((f) => f.process_id === p.id)), display: 'compact' },
        );
      }
      break;
    case 'verbatims':
      for (const e of evidences.slice(0, 12)) blocks.push({ type: 'quote', evidence_id: e.id, text: String(e.excerpt ?? '') });
      break;
    case 'methodology':
      blocks.push(
        {
          type: 'paragraph',
          text: fr
            ? "Entretiens semi-directifs menés avec l'assistant d'entretien, guide « Audit achats-fournisseurs (P2P) », complétés par l'analyse des exports SAP et des fichiers Excel de suivi."
            : 'Semi-structured interviews run with the interview assistant on the "Procure-to-pay audit" guide, completed by the analysis of SAP exports and Excel tracking files.',
        },
        {
          type: 'callout',
          tone: 'info',
          text: fr ? 'Les verbatims sont attribués par rôle, jamais par nom.' : 'Verbatims are attributed by role, never by name.',
        },
      );
      break;
    case 'tool_landscape':
      blocks.push({ type: 'item_list', item_type: 'finding', ids: ids(byType(new Set(['tool']))), display: 'full' });
      break;
    case 'uncertainties':
      blocks.push({ type: 'item_list', item_type: 'contradiction', ids: ids(contradictions), display: 'full' });
      break;
    case 'interim_insights':
      blocks.push({ type: 'message', text: fr ? 'Premiers enseignements, à confirmer.' : 'First insights, to be confirmed.' });
      blocks.push({ type: 'item_list', item_type: 'finding', ids: ids(findings.slice(0, 10)), display: 'compact' });
      break;
    case 'role_activity':
      blocks.push({
        type: 'table',
        title: fr ? 'Rôles interrogés' : 'Roles interviewed',
        data_ref: 'interviews',
        options: {
          columns: [fr ? 'Rôle' : 'Role', fr ? 'Service' : 'Department'],
          rows: interviews.map((i) => [String(i.interviewee_role ?? ''), String(i.department ?? '')]),
        },
      });
      break;
  }
  return blocks.map((b, n) => ({ id: `gen-${kind}-${n + 1}`, ...b }) as Block);
}

/** What a new engagement's draft starts with (the seeded draft adds its texts on top); fresh each time. */
const draftDefaults = () => ({
  introduction: null,
  recommendations: null,
  suggested_recommendations: null,
  attribution: 'by_role',
  named_interview_ids: [] as string[],
  include_proposed: false,
  stage: 'interim',
  auto_refresh_interim: true,
});

/** The draft of an engagement; engagements other than the demo one get an empty one on first read. */
export function draftOf(ws: WorkspaceState, engagementId: string): Rec {
  const existing = ws.c('deliverable_drafts').all((d) => d.engagement_id === engagementId)[0];
  if (existing) return existing;
  return ws.c('deliverable_drafts').insert({ engagement_id: engagementId, ...draftDefaults() });
}

/** The document of one kind; created empty (not included) on first read for a new engagement. */
export function documentOf(ws: WorkspaceState, engagementId: string, kind: DocumentKind): Rec {
  const existing = ws.c('deliverable_documents').all((d) => d.engagement_id === engagementId && d.kind === kind)[0];
  if (existing) return existing;
  return ws.c('deliverable_documents').insert({
    engagement_id: engagementId,
    kind,
    title: DOCUMENT_TITLES[kind].fr,
    included: false,
    parameters: {},
    blocks: [],
    generated_at: null,
  });
}

export function seedDeliverables(ws: WorkspaceState): void {
  const draft = ws.c('deliverable_drafts').insert({
    id: DRAFT_AP,
    engagement_id: ENGAGEMENT_AP,
    ...draftDefaults(),
    introduction:
      "Maison Berthier SA nous a confié l'audit de son processus achats-fournisseurs (procure-to-pay), de la commande au paiement. Ce livrable intermédiaire présente les constats issus de douze entretiens et de l'analyse des données SAP.",
    recommendations:
      "1. Supprimer la ressaisie des factures par la dématérialisation (OCR + rapprochement automatique).\n2. Fiabiliser le référentiel fournisseurs (contrôle des RIB, dédoublonnage).\n3. Mettre en place un circuit d'approbation avec délégation pour réduire les délais.\n4. Documenter et partager les tâches de la responsable comptabilité fournisseurs.",
    created_at: at(10),
    updated_at: at(24, 3),
  });

  const docs: Rec[] = [];
  DOCUMENT_KINDS.forEach((kind, i) => {
    const included = INCLUDED.includes(kind);
    docs.push(
      ws.c('deliverable_documents').insert({
        engagement_id: ENGAGEMENT_AP,
        kind,
        title: DOCUMENT_TITLES[kind].fr,
        included,
        parameters: kind === 'verbatims' ? { max_quotes: 12 } : {},
        blocks: composeBlocks(ws, ENGAGEMENT_AP, kind, { includeProposed: Boolean(draft.include_proposed) }),
        generated_at: at(20, 9),
        created_at: at(10),
        updated_at: at(22, 10 + (i % 8)),
      }),
    );
  });
  // A consultant's own note on the summary: the kind of block keep_edits regeneration must keep.
  const summary = docs.find((d) => d.kind === 'executive_summary');
  if (summary) {
    (summary.blocks as Block[]).push({
      id: `${USER_BLOCK_PREFIX}note-cloture`,
      type: 'callout',
      tone: 'info',
      text: 'Point à aborder au comité de pilotage : la clôture de fin de mois dépend des relances manuelles du contrôleur de gestion.',
    });
  }

  ws.c('deliverable_versions').insert({
    id: VERSION_AP_1,
    engagement_id: ENGAGEMENT_AP,
    number: 1,
    stage: 'interim',
    changelog: 'Première version intermédiaire, après les entretiens comptabilité fournisseurs et achats.',
    published_at: at(23, 16),
    published_by: MEMBER_CLAIRE,
    snapshot: snapshotOf(draft, docs, 'interim'),
    created_at: at(23, 16),
    updated_at: at(23, 16),
  });

  const comments = ws.c('deliverable_comments');
  comments.insert({
    engagement_id: ENGAGEMENT_AP,
    version_id: VERSION_AP_1,
    document_kind: 'executive_summary',
    author_name: 'Hélène Roussel (DAF, Maison Berthier)',
    body: 'Le chiffre de 14 % de factures ressaisies nous semble élevé : sur quelle période est-il calculé ?',
    status: 'open',
    replies: [
      {
        id: ws.newId('deliverable_comment_reply\nexecutive_summary\nClaire Dubois'),
        author_name: 'Claire Dubois',
        member_id: MEMBER_CLAIRE,
        body: 'Sur les factures de juin à août, extraction SAP. Nous préciserons la période dans la version finale.',
        created_at: at(24, 9),
      },
    ],
    created_at: at(24, 8),
  });
  comments.insert({
    engagement_id: ENGAGEMENT_AP,
    version_id: VERSION_AP_1,
    document_kind: 'roadmap',
    author_name: 'Julien Marchand (Head of Procurement)',
    body: 'Could the supplier master data clean-up start before the e-invoicing project? It does not need the new tool.',
    status: 'open',
    replies: [
      {
        id: ws.newId('deliverable_comment_reply\nroadmap\nMarc Lefèvre'),
        author_name: 'Marc Lefèvre',
        member_id: MEMBER_MARC,
        body: 'Yes, we will move it to the first lane of the roadmap.',
        created_at: at(24, 14),
      },
    ],
    created_at: at(24, 11),
  });
  comments.insert({
    engagement_id: ENGAGEMENT_AP,
    version_id: VERSION_AP_1,
    document_kind: 'verbatims',
    author_name: 'Hélène Roussel (DAF, Maison Berthier)',
    body: "Merci d'anonymiser la citation sur les doublons de paiement.",
    status: 'closed',
    closed_at: at(24, 17),
    closed_by: MEMBER_CLAIRE,
    replies: [],
    created_at: at(24, 7),
  });
}

/** What a published version freezes: the draft's texts and its included documents as they are. */
export function snapshotOf(draft: Rec, docs: Rec[], stage: string): Record<string, unknown> {
  return {
    stage,
    introduction: draft.introduction ?? null,
    recommendations: draft.recommendations ?? null,
    attribution: draft.attribution,
    documents: docs
      .filter((d) => d.included)
      .map((d) => structuredClone({ kind: d.kind, title: d.title, parameters: d.parameters, blocks: d.blocks, updated_at: d.updated_at })),
  };
}
