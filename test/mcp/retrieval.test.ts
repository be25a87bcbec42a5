// find_operations against requests a consultant would actually make, in English and in French: the
// operation that does the job must be among the first three for at least 90% of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../helpers/stack.js';

type Request = [query: string, expected: string];

const ENGLISH: readonly Request[] = [
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
];

const FRENCH: readonly Request[] = [
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
];

const REQUESTS = [...ENGLISH, ...FRENCH];

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { WORKSPACE_TOOLSETS: 'default' } });
});
afterAll(async () => {
  await stack.close();
});

async function top3(query: string): Promise<string[]> {
  const r = await stack.call('find_operations', { query, limit: 3 });
  return (r.structuredContent as { operations: { name: string }[] }).operations.map((o) => o.name);
}

describe('find_operations retrieval', () => {
  it('has at least 40 requests, in English and in French', () => {
    expect(REQUESTS.length).toBeGreaterThanOrEqual(40);
    expect(ENGLISH.length).toBeGreaterThanOrEqual(15);
    expect(FRENCH.length).toBeGreaterThanOrEqual(15);
  });

  it('finds the right operation in the top 3 for at least 90% of them', async () => {
    const misses: string[] = [];
    for (const [query, expected] of REQUESTS) {
      const found = await top3(query);
      if (!found.includes(expected)) misses.push(`${query} -> expected ${expected}, got ${found.join(', ')}`);
    }
    const hitRate = (REQUESTS.length - misses.length) / REQUESTS.length;
    if (misses.length) process.stderr.write(`retrieval misses (${misses.length}):\n${misses.join('\n')}\n`);
    expect(hitRate, misses.join('\n')).toBeGreaterThanOrEqual(0.9);
  });
});
