// What the analysis made of the material: the AP process map, findings with the evidences that back
// them, contradictions between what people said, the proposals of the last run, and the audit chat.
// Every evidence cites a real source record, and its excerpt is checked against the source's text
// while seeding, so a wording change in the interviews cannot leave a finding quoting nothing.
import type { Rec, WorkspaceState } from '../types.js';
import {
  at,
  ENGAGEMENT_AP,
  INTERVIEW_AP_CLERK,
  INTERVIEW_BUYER,
  INTERVIEW_CONTROLLER,
  MEMBER_CLAIRE,
  MEMBER_MARC,
  SESSION_AP_CLERK,
  SESSION_BUYER,
  SESSION_CONTROLLER,
} from './ids.js';
import { segmentAt } from './interviews.js';

/** Where an evidence points, in seed terms: resolved to a record id while seeding. */
type SeedRef =
  | { seg: [session: string, position: number]; excerpt: string }
  | { recap: [interview: string, chapter: number, item: number]; excerpt: string }
  | { chunk: [filename: string, position: number]; excerpt: string }
  | { frame: [session: string, position: number]; excerpt: string }
  | { pin: [session: string, index: number]; excerpt: string }
  | { item: [externalId: string]; excerpt: string };

const S1 = SESSION_AP_CLERK;
const S2 = SESSION_CONTROLLER;
const S3 = SESSION_BUYER;
const PROCEDURE = 'Procédure de traitement des factures fournisseurs v3.pdf';

/** The source record a seed reference names, its evidence type, and the text its excerpt comes from. */
function resolveRef(ws: WorkspaceState, ref: SeedRef): { source_type: string; source: Rec; text: string } {
  if ('seg' in ref) {
    const source = segmentAt(ws, ...ref.seg);
    return { source_type: 'transcript_segment', source, text: String(source.text) };
  }
  if ('recap' in ref) {
    const [interview, chapterPos, itemIdx] = ref.recap;
    const chapter = ws.c('chapters').all((c) => c.interview_id === interview && c.position === chapterPos)[0];
    const recap = ws.c('recaps').all((r) => r.chapter_id === chapter?.id)[0];
    const item = (recap?.items as Rec[] | undefined)?.[itemIdx];
    if (!item) throw new Error(`seed: no recap item ${ref.recap.join('/')}`);
    return { source_type: 'recap_item', source: item, text: String(item.text) };
  }
  if ('chunk' in ref) {
    const artifact = ws.c('artifacts').all((a) => a.filename === ref.chunk[0])[0];
    const source = ws.c('artifact_chunks').all((c) => c.artifact_id === artifact?.id && c.position === ref.chunk[1])[0];
    if (!source) throw new Error(`seed: no chunk ${ref.chunk.join('/')}`);
    return { source_type: 'artifact_chunk', source, text: String(source.text) };
  }
  if ('frame' in ref) {
    const source = ws.c('frames').all((f) => f.session_id === ref.frame[0] && f.position === ref.frame[1])[0];
    if (!source) throw new Error(`seed: no frame ${ref.frame.join('/')}`);
    return { source_type: 'screen_frame', source, text: String(source.caption) };
  }
  if ('pin' in ref) {
    const source = ws.c('pins').all((p) => p.session_id === ref.pin[0])[ref.pin[1]];
    if (!source) throw new Error(`seed: no pin ${ref.pin.join('/')}`);
    return { source_type: 'pin', source, text: String(source.label) };
  }
  const source = ws.c('external_source_items').all((i) => i.external_id === ref.item[0])[0];
  if (!source) throw new Error(`seed: no external item ${ref.item[0]}`);
  return { source_type: 'external_source_item', source, text: String(source.body) };
}

/** Insert the evidences of a finding; refuses (at seed time) an excerpt its source does not contain. */
function seedEvidences(ws: WorkspaceState, finding: Rec, refs: SeedRef[], when: string): void {
  for (const ref of refs) {
    const { source_type, source, text } = resolveRef(ws, ref);
    if (!text.includes(ref.excerpt)) throw new Error(`seed: excerpt "${ref.excerpt}" not in its ${source_type}`);
    ws.c('evidences').insert({
      engagement_id: finding.engagement_id,
      finding_id: finding.id,
      source_type,
      source_id: source.id,
      interview_id: source.interview_id ?? null,
      locator: 'start_ms' in source ? { start_ms: source.start_ms, end_ms: source.end_ms } : null,
      excerpt: ref.excerpt,
      is_publishable: true,
      created_at: when,
      updated_at: when,
    });
  }
}

interface FindingSeed {
  key: string;
  type: string;
  statement: string;
  details?: string;
  quantity?: Record<string, unknown>;
  step?: string;
  category: string;
  status?: 'validated' | 'rejected';
  refs: SeedRef[];
}

const FINDINGS: FindingSeed[] = [
  {
    key: 'reentry',
    type: 're_entry',
    step: 'saisie',
    category: 'irritants',
    statement: 'Les factures reçues en PDF sont ressaisies manuellement dans SAP, sans lecture automatique.',
    details: 'Numéro, date, montants HT et TVA, fournisseur et lignes de commande sont tapés à la main (transaction MIRO).',
    status: 'validated',
    refs: [
      { seg: [S1, 4], excerpt: 'Je la ressaisis à la main dans SAP' },
      { chunk: [PROCEDURE, 2], excerpt: 'toute facture est saisie dans SAP (transaction MIRO)' },
    ],
  },
  {
    key: 'volume',
    type: 'volume',
    step: 'reception',
    category: 'volumes',
    statement: 'Environ 1 800 factures fournisseurs par mois, dont 20 % encore reçues en papier.',
    quantity: { value: 1800, unit: 'invoices_per_month', paper_share: 0.2 },
    status: 'validated',
    refs: [{ seg: [S1, 2], excerpt: 'environ 1 800 par mois' }],
  },
  {
    key: 'entry_time',
    type: 'duration',
    step: 'saisie',
    category: 'volumes',
    statement: "La ressaisie prend 4 à 6 minutes par facture simple, soit environ deux jours par semaine pour l'équipe.",
    quantity: { min: 4, max: 6, unit: 'minutes_per_invoice' },
    refs: [
      { seg: [S1, 6], excerpt: 'Entre quatre et six minutes pour une facture simple' },
      { recap: [INTERVIEW_AP_CLERK, 1, 2], excerpt: 'deux jours par semaine' },
    ],
  },
  {
    key: 'no_po',
    type: 'irritant',
    step: 'rapprochement',
    category: 'irritants',
    statement: "Près d'une facture sur trois arrive sans bon de commande : les achats indirects sont commandés par téléphone.",
    status: 'validated',
    refs: [
      { seg: [S1, 8], excerpt: "Près d'une facture sur trois arrive sans bon de commande" },
      { seg: [S3, 4], excerpt: 'No purchase order is raised' },
    ],
  },
  {
    key: 'tolerance',
    type: 'business_rule',
    step: 'rapprochement',
    category: 'rules',
    statement: 'Tolérance de prix au rapprochement : 2 % ou 50 euros ; au-delà, la facture est bloquée pour paiement.',
    refs: [{ chunk: [PROCEDURE, 3], excerpt: 'Tolérance de prix : 2 % ou 50 euros' }],
  },
  {
    key: 'three_way',
    type: 'irritant',
    step: 'rapprochement',
    category: 'irritants',
    statement: 'Le rapprochement à trois voies bloque souvent, faute de réception saisie par le magasin ou sur écart de quantité.',
    refs: [
      { seg: [S1, 10], excerpt: 'Le rapprochement à trois voies bloque souvent' },
      { item: ['5105602011'], excerpt: 'Aucune entrée de marchandises enregistrée.' },
    ],
  },
  {
    key: 'sylvie',
    type: 'key_person_dependency',
    step: 'rapprochement',
    category: 'risks',
    statement: 'Le suivi des factures bloquées repose sur un tracker Excel que seule Sylvie Garnier, responsable comptabilité fournisseurs, maîtrise.',
    refs: [
      { seg: [S1, 12], excerpt: "il n'y a qu'elle qui le comprend vraiment" },
      { seg: [S3, 12], excerpt: 'When Sylvie is away, nobody knows which blocked invoices are waiting for us' },
    ],
  },
  {
    key: 'tracker',
    type: 'tool',
    step: 'rapprochement',
    category: 'tools',
    statement: 'Un tracker Excel des factures bloquées (macros, onglets cachés) est tenu en parallèle de SAP.',
    refs: [
      { seg: [S1, 12], excerpt: 'Il y a des macros et des onglets cachés' },
      { frame: [S1, 3], excerpt: 'Tracker Excel des factures bloquées' },
    ],
  },
  {
    key: 'approval_2d',
    type: 'duration',
    step: 'approbation',
    category: 'delays',
    statement: "L'approbation des factures hors commande se fait par e-mail et revient en deux jours selon la comptabilité.",
    refs: [{ seg: [S1, 14], excerpt: 'En général la validation revient en deux jours' }],
  },
  {
    key: 'approval_10d',
    type: 'duration',
    step: 'approbation',
    category: 'delays',
    statement: 'La validation des factures hors commande prend souvent dix jours selon le contrôle de gestion.',
    quantity: { value: 10, unit: 'days' },
    refs: [
      { seg: [S2, 4], excerpt: 'il se passe souvent dix jours' },
      { recap: [INTERVIEW_CONTROLLER, 1, 1], excerpt: 'Délai de validation souvent de dix jours' },
    ],
  },
  {
    key: 'duplicate',
    type: 'risk',
    step: 'paiement',
    category: 'risks',
    statement: "Un paiement en double de 48 000 euros a eu lieu l'an dernier : la facture était arrivée en PDF puis par courrier.",
    quantity: { value: 48000, unit: 'EUR' },
    status: 'validated',
    refs: [
      { seg: [S1, 16], excerpt: 'nous avons payé deux fois une facture de 48 000 euros' },
      { pin: [S1, 2], excerpt: 'Paiement en double' },
    ],
  },
  {
    key: 'close',
    type: 'irritant',
    step: 'cloture',
    category: 'irritants',
    statement: 'La clôture mensuelle impose de tout saisir avant le troisième jour ouvré, au prix d’heures supplémentaires.',
    refs: [{ seg: [S1, 18], excerpt: 'il faut tout saisir avant le troisième jour ouvré' }],
  },
  {
    key: 'penalties',
    type: 'risk',
    step: 'paiement',
    category: 'risks',
    statement: 'Environ 35 000 euros de pénalités et indemnités de retard par an, et des escomptes perdus.',
    quantity: { value: 35000, unit: 'EUR_per_year' },
    status: 'validated',
    refs: [{ seg: [S2, 6], excerpt: "Nous avons payé environ 35 000 euros d'indemnités et de pénalités l'an dernier" }],
  },
  {
    key: 'vendor_master',
    type: 'irritant',
    category: 'master_data',
    statement: 'Le référentiel fournisseurs SAP contient des doublons et n’a pas de propriétaire.',
    refs: [
      { seg: [S2, 8], excerpt: 'il y a des doublons' },
      { seg: [S3, 8], excerpt: "There's no check for duplicates" },
    ],
  },
  {
    key: 'bank_details',
    type: 'risk',
    category: 'risks',
    statement: 'Les changements de RIB demandés par e-mail sont saisis sans contre-appel, contrairement à la procédure.',
    details: 'Exposition directe à la fraude au faux fournisseur.',
    refs: [
      { seg: [S2, 10], excerpt: 'sans contre-appel au fournisseur' },
      { chunk: [PROCEDURE, 5], excerpt: 'toute modification de RIB doit être confirmée par contre-appel' },
    ],
  },
  {
    key: 'provisions',
    type: 're_entry',
    step: 'cloture',
    category: 'irritants',
    statement: 'Les provisions de clôture sont calculées à la main à partir d’extractions SAP croisées avec le tracker Excel.',
    quantity: { value: 1, unit: 'day_per_month' },
    refs: [{ seg: [S2, 12], excerpt: 'je calcule les provisions à la main' }],
  },
  {
    key: 'no_kpi',
    type: 'irritant',
    category: 'steering',
    statement: "Aucun indicateur n'est suivi : ni délai de paiement réel, ni taux de factures sans commande.",
    refs: [{ seg: [S2, 14], excerpt: 'On ne mesure ni le délai de paiement réel' }],
  },
  {
    key: 'prices',
    type: 'irritant',
    step: 'rapprochement',
    category: 'master_data',
    statement: 'Les écarts de prix viennent de prix contractuels tenus dans Excel et non dans les fiches info-achat SAP.',
    refs: [
      { seg: [S3, 10], excerpt: 'contract prices are updated in our Excel price list but not in SAP info records' },
      { item: ['5105602093'], excerpt: 'Prix contractuel mis à jour dans Excel, pas dans SAP.' },
    ],
  },
  {
    key: 'supplier_review',
    type: 'good_practice',
    category: 'good_practices',
    statement: 'La revue mensuelle avec les vingt premiers fournisseurs règle les litiges avant les pénalités.',
    status: 'validated',
    refs: [{ seg: [S3, 14], excerpt: 'The monthly supplier review with the top twenty suppliers is genuinely useful' }],
  },
  {
    key: 'indirect',
    type: 'volume',
    category: 'volumes',
    statement: 'Les achats indirects représentent environ un tiers des factures en nombre mais 12 % de la dépense.',
    quantity: { share_by_count: 0.33, share_by_value: 0.12 },
    refs: [
      { seg: [S3, 6], excerpt: 'Roughly a third of invoices by count' },
      { recap: [INTERVIEW_BUYER, 1, 2], excerpt: 'twelve percent by value' },
    ],
  },
  {
    key: 'bulk_receipts',
    type: 'irritant',
    step: 'cloture',
    category: 'irritants',
    statement: 'Les réceptions sont saisies en masse le dernier jour du mois, au détriment de leur exactitude.',
    refs: [{ seg: [S3, 16], excerpt: 'We end up posting receipts in bulk on the last day' }],
  },
  {
    key: 'mrp_offline',
    type: 'tool',
    category: 'tools',
    statement: 'Les commandes de matières premières sont passées hors SAP.',
    details: 'Rejeté : les commandes de production sont générées par le calcul des besoins dans SAP.',
    status: 'rejected',
    refs: [{ seg: [S3, 2], excerpt: 'we raise purchase orders in SAP from the MRP run' }],
  },
];

const STEPS: [key: string, name: string, actor: string, tool: string][] = [
  ['reception', 'Réception des factures', 'Accueil / comptable fournisseurs', 'Boîte e-mail, courrier'],
  ['saisie', 'Saisie dans SAP', 'Comptable fournisseurs', 'SAP (MIRO)'],
  ['rapprochement', 'Rapprochement à trois voies', 'Comptable fournisseurs', 'SAP, tracker Excel'],
  ['approbation', 'Approbation hors commande', 'Responsable budgétaire, contrôle de gestion', 'E-mail'],
  ['paiement', 'Paiement', 'Trésorerie', 'SAP (F110)'],
  ['cloture', 'Clôture mensuelle', 'Contrôle de gestion', 'Excel'],
];

/** Findings a new analysis run proposes in the demo engagement, taken in turn run after run. */
const RUN_FINDINGS: Omit<FindingSeed, 'key' | 'status' | 'step'>[] = [
  {
    type: 'irritant',
    category: 'irritants',
    statement: 'Les demandes d’approbation arrivent par e-mail sans contexte, mélangées au reste du courrier.',
    refs: [{ seg: [S2, 4], excerpt: 'Elles arrivent par e-mail, sans contexte' }],
  },
  {
    type: 'business_rule',
    category: 'rules',
    statement: 'Les factures hors commande au-dessus de 5 000 euros sont validées en second niveau par le contrôle de gestion.',
    refs: [
      { seg: [S2, 2], excerpt: 'je valide les factures hors commande au-dessus de 5 000 euros' },
      { chunk: [PROCEDURE, 4], excerpt: 'au-dessus de 5 000 euros, le contrôle de gestion valide en second niveau' },
    ],
  },
  {
    type: 'tool',
    category: 'tools',
    statement: 'La création des fournisseurs passe par un formulaire Excel envoyé par e-mail.',
    refs: [{ seg: [S3, 8], excerpt: 'We have a supplier creation form in Excel' }],
  },
  {
    type: 'risk',
    category: 'risks',
    statement: 'Les factures bloquées en attente des achats restent sans relance en l’absence de Sylvie Garnier.',
    refs: [{ seg: [S3, 12], excerpt: 'so things just sit there' }],
  },
];

/**
 * A new finding as the workspace stores it, whoever makes it (the seed, a run, the API): the
 * finding's own fields, unreviewed, then `extra` (origin, run, review, times) over them.
 */
export function findingRecord(engagementId: string, fields: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    engagement_id: engagementId,
    type: fields.type,
    statement: fields.statement,
    details: fields.details ?? null,
    quantity: fields.quantity ?? null,
    process_id: fields.process_id ?? null,
    step_id: fields.step_id ?? null,
    deliverable_category: fields.deliverable_category ?? null,
    review_status: 'proposed',
    reviewed_at: null,
    reviewed_by: null,
    ...extra,
  };
}

function insertFinding(
  ws: WorkspaceState,
  f: Omit<FindingSeed, 'key'>,
  stepIds: Record<string, string>,
  processId: string,
  runId: string | null,
  when: string,
): Rec {
  const fields = {
    type: f.type,
    statement: f.statement,
    details: f.details,
    quantity: f.quantity,
    process_id: f.step ? processId : null,
    step_id: f.step ? stepIds[f.step] : null,
    deliverable_category: f.category,
  };
  const finding = ws.c('findings').insert(
    findingRecord(ENGAGEMENT_AP, fields, {
      review_status: f.status ?? 'proposed',
      reviewed_at: f.status ? at(6, 3) : null,
      reviewed_by: f.status ? MEMBER_CLAIRE : null,
      origin: runId ? 'analysis' : 'manual',
      analysis_run_id: runId,
      created_at: when,
      updated_at: f.status ? at(6, 3) : when,
    }),
  );
  seedEvidences(ws, finding, f.refs, when);
  return finding;
}

/** Output of a successful run in the demo engagement: two findings and two proposals. */
export function demoRunOutput(ws: WorkspaceState, run: Rec, turn: number, when: string): { findings: number; proposals: number } {
  const process = ws.c('processes').all((p) => p.engagement_id === ENGAGEMENT_AP)[0];
  for (let i = 0; i < 2; i++) {
    const f = RUN_FINDINGS[(turn * 2 + i) % RUN_FINDINGS.length] as (typeof RUN_FINDINGS)[number];
    insertFinding(ws, f, {}, String(process?.id ?? ''), run.id, when);
  }
  ws.c('change_proposals').insert({
    engagement_id: ENGAGEMENT_AP,
    analysis_run_id: run.id,
    entity_type: 'opportunity',
    action: 'create',
    target_id: null,
    summary: 'Créer une opportunité : relances automatiques des approbateurs en retard',
    payload: {
      title: 'Relances automatiques des approbateurs',
      description: 'Relancer automatiquement à J+2 puis J+4 les approbateurs des factures hors commande.',
      gain: 'medium',
      effort: 'low',
      horizon: 'quick_win',
    },
    status: 'pending',
    decided_at: null,
    decided_by: null,
    created_at: when,
    updated_at: when,
  });
  ws.c('change_proposals').insert({
    engagement_id: ENGAGEMENT_AP,
    analysis_run_id: run.id,
    entity_type: 'process',
    action: 'update',
    target_id: process?.id ?? null,
    summary: 'Préciser la description du processus : part des factures sans commande',
    payload: { description: 'De la réception de la facture fournisseur à son paiement ; environ un tiers des factures arrivent sans commande.' },
    status: 'pending',
    decided_at: null,
    decided_by: null,
    created_at: when,
    updated_at: when,
  });
  return { findings: 2, proposals: 2 };
}

export function seedAnalysis(ws: WorkspaceState): void {
  const process = ws.c('processes').insert({
    engagement_id: ENGAGEMENT_AP,
    name: 'Traitement des factures fournisseurs',
    description: 'De la réception de la facture fournisseur à son paiement et à la clôture mensuelle.',
    owner_role: 'Responsable comptabilité fournisseurs',
    status: 'validated',
    created_at: at(4, 9),
    updated_at: at(4, 9),
  });
  const stepIds: Record<string, string> = {};
  STEPS.forEach(([key, name, actor, tool], i) => {
    stepIds[key] = ws.c('process_steps').insert({
      engagement_id: ENGAGEMENT_AP,
      process_id: process.id,
      position: i + 1,
      name,
      actor_role: actor,
      tool,
      created_at: at(4, 9),
      updated_at: at(4, 9),
    }).id;
  });
  const vendorProcess = ws.c('processes').insert({
    engagement_id: ENGAGEMENT_AP,
    name: 'Gestion du référentiel fournisseurs',
    description: 'Création des fournisseurs et modification de leurs coordonnées bancaires.',
    owner_role: null,
    status: 'proposed',
    created_at: at(5, 10),
    updated_at: at(5, 10),
  });
  for (const [i, name] of ['Demande de création (formulaire Excel)', 'Création dans SAP', 'Modification des coordonnées bancaires'].entries()) {
    ws.c('process_steps').insert({
      engagement_id: ENGAGEMENT_AP,
      process_id: vendorProcess.id,
      position: i + 1,
      name,
      actor_role: i === 0 ? 'Achats' : 'Comptable fournisseurs',
      tool: i === 0 ? 'Excel, e-mail' : 'SAP (XK02)',
      created_at: at(5, 10),
      updated_at: at(5, 10),
    });
  }

  // Run history: a full run, an incremental one that failed, and the incremental one that followed it.
  const runFull = ws.c('analysis_runs').insert({
    engagement_id: ENGAGEMENT_AP,
    mode: 'full',
    status: 'succeeded',
    progress: 100,
    requested_by: MEMBER_CLAIRE,
    started_at: at(4, 8),
    finished_at: at(4, 8.07),
    error: null,
    stats: { findings_proposed: 16, change_proposals: 9 },
    created_at: at(4, 8),
    updated_at: at(4, 8.07),
  });
  ws.c('analysis_runs').insert({
    engagement_id: ENGAGEMENT_AP,
    mode: 'incremental',
    status: 'failed',
    progress: 40,
    requested_by: MEMBER_MARC,
    started_at: at(5, 9),
    finished_at: at(5, 9.03),
    error: { code: 'analysis.provider_timeout', message: 'The analysis provider did not answer in time.' },
    stats: null,
    created_at: at(5, 9),
    updated_at: at(5, 9.03),
  });
  const runLast = ws.c('analysis_runs').insert({
    engagement_id: ENGAGEMENT_AP,
    mode: 'incremental',
    status: 'succeeded',
    progress: 100,
    requested_by: MEMBER_MARC,
    started_at: at(5, 10),
    finished_at: at(5, 10.05),
    error: null,
    stats: { findings_proposed: 6, change_proposals: 6 },
    created_at: at(5, 10),
    updated_at: at(5, 10.05),
  });

  const byKey: Record<string, Rec> = {};
  FINDINGS.forEach((f, i) => {
    const runId = i < 16 ? runFull.id : runLast.id;
    byKey[f.key] = insertFinding(ws, f, stepIds, process.id, runId, i < 16 ? at(4, 8.07) : at(5, 10.05));
  });
  const fid = (key: string) => (byKey[key] as Rec).id;

  ws.c('contradictions').insert({
    engagement_id: ENGAGEMENT_AP,
    topic: "Délai d'approbation des factures hors commande",
    statement_a: 'Nathalie Roux (comptabilité) : la validation revient en général en deux jours.',
    statement_b: 'Julien Moreau (contrôle de gestion) : il se passe souvent dix jours entre la demande et la réponse.',
    source_ids: [segmentAt(ws, S1, 14).id, segmentAt(ws, S2, 4).id],
    finding_ids: [fid('approval_2d'), fid('approval_10d')],
    analysis_run_id: runFull.id,
    status: 'open',
    resolution_note: null,
    resolved_finding_id: null,
    resolved_at: null,
    resolved_by: null,
    created_at: at(4, 8.07),
    updated_at: at(4, 8.07),
  });
  ws.c('contradictions').insert({
    engagement_id: ENGAGEMENT_AP,
    topic: 'Contre-appel lors des changements de coordonnées bancaires',
    statement_a: 'Procédure v3 : toute modification de RIB doit être confirmée par contre-appel au fournisseur.',
    statement_b: 'Julien Moreau : un changement de RIB demandé par e-mail est saisi directement, sans contre-appel.',
    source_ids: [segmentAt(ws, S2, 10).id],
    finding_ids: [fid('bank_details')],
    analysis_run_id: runLast.id,
    status: 'open',
    resolution_note: null,
    resolved_finding_id: null,
    resolved_at: null,
    resolved_by: null,
    created_at: at(5, 10.05),
    updated_at: at(5, 10.05),
  });

  const opportunities: [string, string, string, string, string, string[]][] = [
    [
      'Circuit de validation des factures dans SAP',
      'Workflow d’approbation avec seuils, délégations et relances, à la place des e-mails.',
      'high',
      'medium',
      'mid_term',
      ['approval_2d', 'approval_10d', 'penalties'],
    ],
    [
      'Contre-appel systématique pour les changements de RIB',
      'Appliquer la procédure : contre-appel au numéro connu et double validation dans SAP.',
      'high',
      'low',
      'quick_win',
      ['bank_details'],
    ],
    [
      'Reprendre le tracker des factures bloquées dans un outil partagé',
      'Documenter le tracker de Sylvie Garnier puis le remplacer par le suivi des blocages SAP.',
      'medium',
      'medium',
      'quick_win',
      ['sylvie', 'tracker'],
    ],
  ];
  for (const [title, description, gain, effort, horizon, keys] of opportunities) {
    ws.c('opportunities').insert({
      engagement_id: ENGAGEMENT_AP,
      title,
      description,
      gain,
      effort,
      horizon,
      status: 'validated',
      finding_ids: keys.map(fid),
      created_at: at(5, 11),
      updated_at: at(5, 11),
    });
  }

  // The first run's proposals were accepted (the process map above); the last run's wait for review.
  const proposal = (
    run: Rec,
    entity_type: string,
    action: string,
    target_id: string | null,
    summary: string,
    payload: Record<string, unknown>,
    status = 'pending',
  ) =>
    ws.c('change_proposals').insert({
      engagement_id: ENGAGEMENT_AP,
      analysis_run_id: run.id,
      entity_type,
      action,
      target_id,
      summary,
      payload,
      status,
      decided_at: status === 'pending' ? null : at(4, 10),
      decided_by: status === 'pending' ? null : MEMBER_CLAIRE,
      created_at: run.finished_at as string,
      updated_at: status === 'pending' ? (run.finished_at as string) : at(4, 10),
    });
  proposal(runFull, 'process', 'create', process.id, 'Créer le processus « Traitement des factures fournisseurs »', { name: process.name }, 'accepted');
  proposal(
    runFull,
    'process_step',
    'create',
    stepIds.rapprochement ?? null,
    'Ajouter l’étape « Rapprochement à trois voies »',
    { name: 'Rapprochement à trois voies' },
    'accepted',
  );
  proposal(
    runFull,
    'opportunity',
    'create',
    null,
    'Créer une opportunité : numérisation du courrier fournisseurs',
    { title: 'Numérisation du courrier' },
    'rejected',
  );

  proposal(runLast, 'process_step', 'create', null, 'Ajouter l’étape « Contrôle des doublons avant paiement »', {
    process_id: process.id,
    position: 5,
    name: 'Contrôle des doublons avant paiement',
    actor_role: 'Comptable fournisseurs',
    tool: 'SAP',
  });
  proposal(runLast, 'process_step', 'update', stepIds.approbation ?? null, 'Préciser l’outil de l’étape « Approbation hors commande »', {
    tool: 'E-mail (Outlook), sans trace dans SAP',
  });
  proposal(runLast, 'finding', 'create', null, 'Nouveau constat : factures PDF et papier non rapprochées avant saisie', {
    type: 'risk',
    statement: 'Les factures reçues en PDF et par courrier ne sont pas rapprochées avant saisie, ce qui permet les doublons.',
    deliverable_category: 'risks',
    evidences: [{ source_type: 'transcript_segment', source_id: segmentAt(ws, S1, 16).id, excerpt: 'une fois en PDF et une fois par courrier' }],
  });
  proposal(runLast, 'finding', 'update', fid('close'), 'Compléter le constat sur la clôture : provisions sur factures bloquées', {
    details: 'Des provisions sont passées sur les factures bloquées faute de pouvoir les traiter avant le troisième jour ouvré.',
  });
  proposal(runLast, 'opportunity', 'create', null, 'Créer une opportunité : dématérialisation des factures entrantes', {
    title: 'Dématérialiser la réception des factures',
    description: 'Lecture automatique (OCR) des factures PDF et intégration dans SAP.',
    gain: 'high',
    effort: 'high',
    horizon: 'long_term',
    finding_ids: [fid('reentry'), fid('entry_time')],
  });
  proposal(runLast, 'process_flow', 'create', null, 'Ajouter le flux « Rapprochement → Approbation » pour les factures sans commande', {
    process_id: process.id,
    from_step_id: stepIds.rapprochement,
    to_step_id: stepIds.approbation,
    condition: 'Facture sans bon de commande',
  });

  seedChat(ws, fid);
}

function seedChat(ws: WorkspaceState, fid: (key: string) => string): void {
  const thread = (title: string, by: string, when: number, messages: [role: 'user' | 'assistant', content: string, refs?: string[]][]) => {
    const msgs = messages.map(([role, content, refs], i) => ({
      id: ws.newId(`chat_message\n${title}\n${i}`),
      role,
      content,
      finding_ids: refs ?? [],
      created_at: at(when, i * 0.02),
    }));
    ws.c('chat_threads').insert({
      engagement_id: ENGAGEMENT_AP,
      title,
      created_by: by,
      messages: msgs,
      message_count: msgs.length,
      last_message_at: msgs[msgs.length - 1]?.created_at ?? null,
      created_at: at(when),
      updated_at: msgs[msgs.length - 1]?.created_at ?? at(when),
    });
  };
  thread('Délais de validation et pénalités', MEMBER_CLAIRE, 6, [
    ['user', 'Quel est le lien entre les délais de validation et les pénalités de retard ?'],
    [
      'assistant',
      'Le contrôle de gestion évoque des validations qui prennent souvent dix jours et environ 35 000 euros de pénalités par an ; la comptabilité parle plutôt de deux jours. Les deux constats sont en contradiction ouverte.',
      [fid('approval_10d'), fid('penalties'), fid('approval_2d')],
    ],
    ['user', 'Que faudrait-il vérifier pour trancher ?'],
    [
      'assistant',
      "Les dates d'envoi et de réponse des e-mails d'approbation sur un échantillon, et les dates de paiement de l'extraction SAP des factures en attente.",
    ],
  ]);
  thread('Duplicate payment risk', MEMBER_MARC, 7, [
    ['user', 'Which findings relate to the risk of paying an invoice twice?'],
    [
      'assistant',
      'The 48,000 euro duplicate payment (PDF and paper copies of the same invoice), the duplicates in the vendor master, and the bank detail changes made without a call-back.',
      [fid('duplicate'), fid('vendor_master'), fid('bank_details')],
    ],
  ]);
}
