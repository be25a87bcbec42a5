// find_operations against requests as consultants make them, in English and in French, ambiguous
// ones included. Two sets: the one the ranking was tuned on, where the operation that does the job
// must be among the first three for more than 95% of the requests; and a held-out one, written
// before tuning and never used to tune it, which says how the ranking does on requests nobody fitted
// it to. Measured when this was written: tuned 102/102 (100%); held out 22/30 in the top 3 (73%),
// 27/30 in the top 8 that find_operations shows by default (90%); the ranking before this work did
// 22/30 and 25/30 on the held-out set. Its floors below are those figures, not a goal met: a lexical
// ranking generalises to new wordings only as far as its vocabulary reaches. A request with several
// right answers lists them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack, textOf } from '../helpers/stack.js';

type Request = [query: string, expected: string | readonly string[]];

/** Tuned on: the first 48 (the earlier set), then the core intents the issue found missed and more. */
const TUNING: readonly Request[] = [
  ['show me the engagements of the workspace', 'list_engagements'],
  ['which interviews were done for this audit', 'list_interviews'],
  ['read the transcript of the session', 'get_session_transcript'],
  ['what did the finance team say about invoice re-entry', 'ask_audit_chat'],
  ['list the findings of the engagement', 'list_findings'],
  ['validate this finding', 'review_finding'],
  ['reject a proposed finding', 'review_finding'],
  ['add a new finding backed by a transcript excerpt', 'create_finding'],
  ['attach another piece of evidence to a finding', 'add_finding_evidence'],
  ['hide an evidence from the published deliverable', 'set_evidence_publishable'],
  ['which statements contradict each other', 'list_contradictions'],
  ['resolve a contradiction between two interviewees', 'resolve_contradiction'],
  ['run the analysis again on the new interviews', 'start_analysis_run'],
  ['stop the analysis run in progress', 'cancel_analysis_run'],
  ['accept all pending change proposals', 'accept_all_change_proposals'],
  ['draft the executive summary', 'generate_deliverable_document'],
  ['edit the blocks of the roadmap document', 'update_deliverable_document'],
  ['publish the final deliverable', 'publish_deliverable'],
  ['export the deliverable as a PowerPoint', 'create_export'],
  ['download the export file', 'download_export'],
  ['reply to a client comment on the deliverable', 'reply_deliverable_comment'],
  ['how much has this audit cost so far in AI', 'get_engagement_costs'],
  ['set the monthly AI budget', 'set_usage_budget'],
  ['invite a colleague to the workspace', 'invite_member'],
  ['who are the members of the workspace', 'list_members'],
  ['change the workspace logo colors', 'update_workspace_branding'],
  ['upload a procedure document to the engagement', 'upload_artifact'],
  ['listen to the recording of the interview', 'get_session_recording'],
  ['recap of a chapter of the interview', 'get_chapter_recap'],
  ['duplicate an interview method', 'duplicate_method'],
  ['liste des missions', 'list_engagements'],
  ['afficher les constats de la mission', 'list_findings'],
  ['valider plusieurs constats', 'review_finding'],
  ['ajouter un constat', 'create_finding'],
  ['supprimer un constat', 'delete_finding'],
  ['voir la transcription de l’entretien', 'get_session_transcript'],
  ['quels entretiens ont été menés', 'list_interviews'],
  ['résoudre une contradiction', 'resolve_contradiction'],
  ['lancer une nouvelle analyse', 'start_analysis_run'],
  ['rédiger la synthèse exécutive du livrable', 'generate_deliverable_document'],
  ['publier le livrable', 'publish_deliverable'],
  ['exporter le livrable en PDF', 'create_export'],
  ['combien coûte cette mission', 'get_engagement_costs'],
  ['inviter un membre dans l’espace de travail', 'invite_member'],
  ['poser une question sur la mission au chat', 'ask_audit_chat'],
  ['télécharger une pièce jointe de la mission', 'download_artifact'],
  ['les alertes de budget', 'list_usage_alerts'],
  ['créer une méthode d’entretien à partir d’un modèle', 'create_method_from_template'],
  // Added with the misses (turning down one proposed finding, producing a document again,
  // what AI has cost so far, which model serves one AI usage) and more of the three jobs.
  ['turn down this proposed finding', 'review_finding'],
  ['regenerate the roadmap document', 'generate_deliverable_document'],
  ['what has AI cost us so far this month', ['get_usage_summary', 'get_usage_dashboard']],
  ['which model is used for the interview voice', 'list_ai_profiles'],
  ['brief me on where the analysis stands', 'get_analysis_summary'],
  ['show the evidence behind this finding', ['get_finding', 'preview_evidence']],
  ['mark the finding as validated', 'review_finding'],
  ['who said the invoices are typed by hand', 'ask_audit_chat'],
  ['list proposals from the last analysis waiting for approval', 'list_change_proposals'],
  ['check the draft before publishing', 'preview_deliverable_draft'],
  ["answer the client's comment on the report", 'reply_deliverable_comment'],
  ['get the PDF of the executive summary', ['create_export', 'download_export']],
  ['is an analysis still running', ['list_analysis_runs', 'get_analysis_run']],
  ['undo a finding I added by mistake', 'delete_finding'],
  ['refuser ce constat proposé', 'review_finding'],
  ['régénérer la synthèse', 'generate_deliverable_document'],
  ['combien a coûté l’IA depuis le début du mois', ['get_usage_summary', 'get_usage_dashboard']],
  ['quel modèle est utilisé pour l’analyse', 'list_ai_profiles'],
  ['les preuves de ce constat', ['get_finding', 'preview_evidence']],
  ['où en est l’analyse de la mission', 'get_analysis_summary'],
  ['exporter la feuille de route en Word', 'create_export'],
  ['les propositions de changement en attente', 'list_change_proposals'],
  ['qui sont les personnes interviewées', 'list_interviews'],
  ['relire le résumé du chapitre', 'get_chapter_recap'],
  // The first held-out set (its misses were seen once, before tuning): tuning data since.
  ['decline the finding about duplicate payments', 'review_finding'],
  ['redo the executive summary from the latest analysis', 'generate_deliverable_document'],
  ['how much did AI spend on this engagement', 'get_engagement_costs'],
  ['which provider and model handle transcription', 'list_ai_profiles'],
  ['open issues between what two people said', 'list_contradictions'],
  ['approve the two findings backed by interviews', 'review_finding'],
  ['write all the deliverable documents', 'generate_all_documents'],
  ['send the final report to the client', 'publish_deliverable'],
  ['download the exported PowerPoint', 'download_export'],
  ['what did the controller say about approvals', 'ask_audit_chat'],
  ['give me the list of our clients', 'list_client_companies'],
  ['the interview guide topics', ['list_guide_topics', 'get_effective_guide']],
  ['raise the monthly spending limit', 'set_usage_budget'],
  ['usage records for accounting as csv', 'export_usage'],
  ['what is the current budget alert', 'list_usage_alerts'],
  ['rejeter le constat sur les pénalités de retard', 'review_finding'],
  ['refaire le document de synthèse', 'generate_deliverable_document'],
  ['combien nous coûte cette mission en IA', 'get_engagement_costs'],
  ['quel fournisseur sert la transcription', 'list_ai_profiles'],
  ['les contradictions entre les entretiens', 'list_contradictions'],
  ['valider les constats proposés', 'review_finding'],
  ['publier la version finale du livrable', 'publish_deliverable'],
  ['télécharger l’export PDF', 'download_export'],
  ['que dit la comptable sur la ressaisie des factures', 'ask_audit_chat'],
  ['lister les clients', 'list_client_companies'],
  ['changer le rôle d’un collègue', 'update_member_role'],
  ['le tableau de bord de consommation', 'get_usage_dashboard'],
  ['annuler l’invitation envoyée', 'revoke_invitation'],
  ['ajouter une preuve au constat', 'add_finding_evidence'],
  ['lire la transcription de la session de Nathalie', 'get_session_transcript'],
];

/**
 * Held out: written before any tuning and never used to tune; only the hit rate is printed. (A first
 * held-out set, whose misses were printed once before tuning, joined the tuning set above; this one
 * replaced it, unseen.)
 */
const HELD_OUT: readonly Request[] = [
  ['bring back a rejected finding to proposed', 'review_finding'],
  ['generate the pain map again', 'generate_deliverable_document'],
  ['total AI spending of the workspace', ['get_usage_summary', 'get_usage_dashboard']],
  ['what AI model answers the audit chat', 'list_ai_profiles'],
  ['findings still waiting for review', 'list_findings'],
  ['details of one finding with its sources', 'get_finding'],
  ['settle the disagreement about invoice approval delays', 'resolve_contradiction'],
  ['what did Emma Clarke say about purchase orders', 'ask_audit_chat'],
  ['stop the interview session that is still running', 'end_session'],
  ['see the screens the participant shared', 'list_session_frames'],
  ['ready-made interview templates', 'list_method_templates'],
  ['check that an AI provider key works', 'test_ai_credential'],
  ['past versions of the deliverable sent to the client', 'list_deliverable_versions'],
  ['comments the client left on the report', 'list_deliverable_comments'],
  ['AI prices per model', 'list_ai_price_grid'],
  ['cost of each AI call', 'list_usage_entries'],
  ['remettre un constat rejeté en proposé', 'review_finding'],
  ['régénérer la feuille de route', 'generate_deliverable_document'],
  ['dépenses IA de tout l’espace ce mois-ci', ['get_usage_summary', 'get_usage_dashboard']],
  ['quel modèle répond dans le chat d’audit', 'list_ai_profiles'],
  ['les constats à relire', 'list_findings'],
  ['trancher la contradiction sur les délais d’approbation', 'resolve_contradiction'],
  ['ce qu’a dit le contrôleur de gestion sur la clôture', 'ask_audit_chat'],
  ['arrêter la session d’entretien en cours', 'end_session'],
  ['les modèles de méthode disponibles', 'list_method_templates'],
  ['tester une clé de fournisseur IA', 'test_ai_credential'],
  ['les versions publiées du livrable', 'list_deliverable_versions'],
  ['les commentaires du client sur le livrable', 'list_deliverable_comments'],
  ['tarifs des modèles d’IA', 'list_ai_price_grid'],
  ['supprimer le budget mensuel', 'delete_usage_budget'],
];

const FRENCH = /[àâçéèêëîïôûùüÿœ’]|\b(les?|la|des|une?|du|de|au)\b/i;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { WORKSPACE_TOOLSETS: 'default' } });
});
afterAll(async () => {
  await stack.close();
});

async function top(query: string, limit: number): Promise<string[]> {
  const r = await stack.call('find_operations', { query, limit });
  return (r.structuredContent as { operations: { name: string }[] }).operations.map((o) => o.name);
}

async function hitRate(set: readonly Request[], label: string, showMisses = true, limit = 3): Promise<number> {
  const misses: string[] = [];
  for (const [query, expected] of set) {
    const found = await top(query, limit);
    const right = typeof expected === 'string' ? [expected] : expected;
    if (!found.some((f) => right.includes(f))) misses.push(`${query} -> expected ${right.join(' or ')}, got ${found.join(', ')}`);
  }
  const rate = (set.length - misses.length) / set.length;
  const shown = showMisses && misses.length ? `; misses:\n${misses.join('\n')}` : '';
  process.stderr.write(`retrieval, ${label}: ${set.length - misses.length}/${set.length} in the top ${limit} (${(rate * 100).toFixed(1)}%)${shown}\n`);
  return rate;
}

describe('find_operations retrieval', () => {
  it('has at least 80 requests to tune on and a quarter as many held out, in English and in French', () => {
    const all = [...TUNING, ...HELD_OUT];
    expect(all.length).toBeGreaterThanOrEqual(80);
    expect(all.filter(([q]) => FRENCH.test(q)).length).toBeGreaterThanOrEqual(30);
    expect(all.filter(([q]) => !FRENCH.test(q)).length).toBeGreaterThanOrEqual(30);
    expect(TUNING.length).toBeGreaterThanOrEqual(80);
    expect(HELD_OUT.length).toBeGreaterThanOrEqual(TUNING.length / 4);
    expect(new Set(all.map(([q]) => q)).size).toBe(all.length);
  });

  it('finds the right operation in the top 3 for more than 95% of the requests it was tuned on', async () => {
    expect(await hitRate(TUNING, 'tuning set')).toBeGreaterThan(0.95);
  });

  it('shows each match with its one-line purpose and the arguments it needs, with their values when few', async () => {
    const r = await stack.call('find_operations', { query: 'turn down this proposed finding', limit: 3 });
    const lines = textOf(r).split('\n');
    expect(lines[0]).toBe(
      "review_finding: Set a finding's review status: validated, rejected, or back to proposed. Needs engagement, finding, review_status (proposed|validated|rejected). [write]",
    );
    for (const line of lines) expect(line).toMatch(/^\w+: [^\n]+[.!?] Needs [^\n]+\. \[(read|write)[^\]]*\]$/);
    const first = (r.structuredContent as { operations: { purpose: string; required: string[] }[] }).operations[0]!;
    expect(first).toMatchObject({
      purpose: "Set a finding's review status: validated, rejected, or back to proposed.",
      required: ['engagement', 'finding', 'review_status'],
    });
  });

  it('does on held-out requests at least as well as when it was measured: 70% in the top 3, 85% in the top 8', async () => {
    // Its misses are not printed: whoever tunes the ranking must not tune it on them.
    expect(await hitRate(HELD_OUT, 'held-out set', false)).toBeGreaterThanOrEqual(0.7);
    expect(await hitRate(HELD_OUT, 'held-out set', false, 8)).toBeGreaterThanOrEqual(0.85);
  });
});
