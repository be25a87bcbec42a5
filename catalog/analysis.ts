// Analysis: the runs that read an engagement's material, the changes they propose, the contradictions
// they raise, and the findings (with their evidences) the consultant reviews.
import { z } from 'zod';
import {
  ANALYSIS_MODES,
  area,
  CONTRADICTION_STATUSES,
  EVIDENCE_SOURCE_TYPES,
  FINDING_TYPES,
  id,
  nstr,
  nullableId,
  op,
  PROPOSAL_ENTITY_TYPES,
  REVIEW_STATUSES,
  slug,
  str,
} from './shared.js';

/** Evidence input: one source item that backs a finding. Used on its own and inside a new finding. */
const evidenceFields = () => ({
  source_type: z.enum(EVIDENCE_SOURCE_TYPES),
  source_id: id(),
  locator: z.record(z.string(), z.unknown()).nullable().optional(),
  excerpt: nstr(1000).optional(),
});

/**
 * The writable fields of a finding, all optional (the update shape). review_status is left out: the
 * spec sets it through the review operation only. Required strings are min 1 because the API is a
 * Laravel one, whose `required` refuses an empty string.
 */
const findingFields = () => ({
  type: z.enum(FINDING_TYPES).optional(),
  statement: str(1000).min(1).optional(),
  details: nstr(4000).optional(),
  quantity: z.record(z.string(), z.unknown()).nullable().optional(),
  process_id: nullableId().optional(),
  step_id: nullableId().optional(),
  deliverable_category: nstr(64).optional(),
});

/** Body of the bulk accept and reject: both narrow the batch, neither is required. */
const bulkProposalFields = () => ({
  entity_type: z.enum(PROPOSAL_ENTITY_TYPES).optional(),
  analysis_run_id: nullableId().optional(),
});

export const analysis = area(
  'analysis',
  [
    op({
      name: 'list_analysis_enum_values',
      title: 'List analysis enum values',
      description: 'Allowed values of one analysis enumeration, by its name.',
      method: 'GET',
      path: '/analysis/enums/{name}',
      example: { name: 'finding-types' },
      askedAs: {
        en: ['allowed values of analysis fields', 'finding types', 'what values an analysis field can take', 'allowed categories of a finding'],
        fr: ['valeurs possibles de l’analyse', 'types de constats', 'quelles valeurs peut prendre un champ de l’analyse', 'catégories de constats possibles'],
      },
      pathSchemas: () => ({ name: slug() }),
      paginated: true,
      reference: true,
    }),
    op({
      name: 'list_analysis_runs',
      title: 'List analysis runs',
      description: 'Analysis runs of an engagement (incremental or full), with their state.',
      method: 'GET',
      path: '/engagements/{engagement}/analysis/runs',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: ['analysis history', 'is the analysis still going', 'past analysis jobs', 'earlier runs and their outcome'],
        fr: ['historique des analyses', 'l’analyse est-elle terminée', 'analyses lancées', 'analyses déjà faites sur la mission'],
      },
      paginated: true,
    }),
    op({
      name: 'get_analysis_run',
      title: 'Get analysis run',
      description: 'One analysis run with its status and progress: check on a run started earlier.',
      method: 'GET',
      path: '/engagements/{engagement}/analysis/runs/{run}',
      example: { engagement: '$demo.engagement', run: '$demo.analysis_run' },
      askedAs: {
        en: ['progress of the analysis', 'is the run finished', 'has the analysis finished'],
        fr: ['avancement de l’analyse', 'l’analyse a-t-elle fini', 'l’analyse est-elle finie'],
      },
      // Named by the spec (runs can be cancelled), documented by the live description.
      undocumented: true,
      // Not on the default surface: start_analysis_run follows the run; a later check goes through call_operation.
    }),
    op({
      name: 'start_analysis_run',
      title: 'Start analysis run',
      description: 'Analyse the engagement in the background: incremental covers new material, full redoes everything. Output arrives as change proposals.',
      method: 'POST',
      path: '/engagements/{engagement}/analysis/runs',
      askedAs: {
        en: [
          'analyse the new interviews',
          'rerun the analysis',
          'process the material',
          'refresh the analysis',
          'analyse everything again from scratch',
          'take the new material into account',
        ],
        fr: [
          'analyser les nouveaux entretiens',
          'relancer l’analyse',
          'traiter la matière',
          'mettre à jour l’analyse',
          'tout réanalyser depuis le début',
          'prendre en compte les nouveaux éléments',
        ],
      },
      // Creates a job and proposals to review; nothing existing is changed until a proposal is accepted.
      destructive: false,
      fields: () => ({ mode: z.enum(ANALYSIS_MODES) }),
      surface: 'review',
      job: {
        label: 'analysis run',
        reads: [
          { operation: 'get_analysis_run', args: { engagement: '$args.engagement', run: '$id' }, pick: 'self' },
          // Runs are listed newest first, so a run just started is on the first page.
          { operation: 'list_analysis_runs', args: { engagement: '$args.engagement', limit: 50 }, pick: 'list' },
        ],
        cancel: { operation: 'cancel_analysis_run', args: { engagement: '$args.engagement', run: '$id' } },
      },
    }),
    op({
      name: 'cancel_analysis_run',
      title: 'Cancel analysis run',
      description: 'Stop a queued or running analysis run. It cannot be resumed; start a new run instead.',
      method: 'POST',
      path: '/engagements/{engagement}/analysis/runs/{run}/cancel',
      askedAs: {
        en: ['stop the analysis', 'abort the running analysis', 'halt the analysis', 'abort a queued run'],
        fr: ['arrêter l’analyse', 'interrompre l’analyse en cours', 'interrompre l’analyse', 'annuler une analyse en file d’attente'],
      },
      destructive: true,
    }),
    op({
      name: 'get_analysis_summary',
      title: 'Get analysis summary',
      description: 'Where the analysis of an engagement stands. A good first call before reviewing findings or proposals.',
      method: 'GET',
      path: '/engagements/{engagement}/analysis/summary',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: [
          'where the analysis stands',
          'state of the analysis',
          'overview of findings and processes',
          'what remains to review',
          'before drafting, where do we stand',
        ],
        fr: ['où en est l’analyse', 'état de l’analyse', 'bilan de l’analyse', 'ce qu’il reste à revoir', 'avant de rédiger, où en est-on'],
      },
    }),
    op({
      name: 'list_change_proposals',
      title: 'List change proposals',
      description: 'Changes the analysis proposes to processes, steps, flows, findings and opportunities, awaiting accept or reject.',
      method: 'GET',
      path: '/engagements/{engagement}/change-proposals',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: [
          'changes the AI suggests',
          'proposals waiting for approval',
          'what the analysis wants to change',
          'suggestions from the last analysis',
          'what the AI wants to add to the processes',
        ],
        fr: [
          'changements proposés par l’IA',
          'propositions à valider',
          'ce que l’analyse veut modifier',
          'suggestions de la dernière analyse',
          'ce que l’IA veut ajouter aux processus',
        ],
      },
      paginated: true,
    }),
    op({
      name: 'accept_all_change_proposals',
      title: 'Accept all change proposals',
      description: "Apply every pending change proposal at once, optionally only one entity type or one run's. Irreversible.",
      method: 'POST',
      path: '/engagements/{engagement}/change-proposals/accept-all',
      askedAs: {
        en: ['approve every suggested change', 'apply all proposals', 'take every suggestion of the run'],
        fr: ['accepter toutes les propositions', 'appliquer tous les changements proposés', 'prendre toutes les suggestions'],
      },
      destructive: true,
      fields: bulkProposalFields,
      consequences: [
        {
          when: { entity_type: null, analysis_run_id: null },
          says: 'No entity_type or analysis_run_id: every pending change proposal of the engagement is applied.',
        },
      ],
    }),
    op({
      name: 'reject_all_change_proposals',
      title: 'Reject all change proposals',
      description: "Discard every pending change proposal at once, optionally only one entity type or one run's. Irreversible.",
      method: 'POST',
      path: '/engagements/{engagement}/change-proposals/reject-all',
      askedAs: {
        en: ['discard all suggested changes', 'refuse every proposal', 'ignore all the suggestions', 'throw out what the run suggested'],
        fr: [
          'rejeter toutes les propositions',
          'ignorer tous les changements proposés',
          'ignorer toutes les suggestions',
          'écarter tout ce que l’analyse propose',
        ],
      },
      destructive: true,
      fields: bulkProposalFields,
      consequences: [
        {
          when: { entity_type: null, analysis_run_id: null },
          says: 'No entity_type or analysis_run_id: every pending change proposal of the engagement is discarded.',
        },
      ],
    }),
    op({
      name: 'accept_change_proposal',
      title: 'Accept change proposal',
      description: "Apply one change proposal to the engagement's processes, findings or opportunities.",
      method: 'POST',
      path: '/engagements/{engagement}/change-proposals/{proposal}/accept',
      askedAs: {
        en: ['apply one suggested change', 'approve a proposal', 'take this one suggestion'],
        fr: ['accepter une proposition', 'appliquer un changement proposé', 'retenir cette suggestion'],
      },
      // One reviewed change whose result stays editable, unlike the bulk accept that applies unseen ones.
      destructive: false,
    }),
    op({
      name: 'reject_change_proposal',
      title: 'Reject change proposal',
      description: 'Discard one change proposal without applying it. Irreversible.',
      method: 'POST',
      path: '/engagements/{engagement}/change-proposals/{proposal}/reject',
      askedAs: {
        en: ['discard one suggested change', 'refuse a proposal', 'drop this one suggestion'],
        fr: ['rejeter une proposition', 'refuser un changement proposé', 'écarter cette suggestion'],
      },
      destructive: true,
    }),
    op({
      name: 'list_contradictions',
      title: 'List contradictions',
      description: 'Contradictions the analysis found between interviews or sources, to settle with resolve_contradiction.',
      method: 'GET',
      path: '/engagements/{engagement}/contradictions',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: [
          'where interviewees disagree',
          'conflicting statements',
          'inconsistencies between sources',
          'where accounts differ',
          'statements that do not match',
        ],
        fr: [
          'où les interviewés ne sont pas d’accord',
          'déclarations contradictoires',
          'incohérences entre les sources',
          'points où les versions divergent',
          'témoignages qui ne concordent pas',
        ],
      },
      paginated: true,
      surface: 'review',
    }),
    op({
      name: 'resolve_contradiction',
      title: 'Resolve contradiction',
      description: 'Settle a contradiction as resolved, kept_as_finding or dismissed, with an optional note and the finding that settles it.',
      method: 'POST',
      path: '/engagements/{engagement}/contradictions/{contradiction}/resolve',
      example: {
        engagement: '$demo.engagement',
        contradiction: '$demo.contradiction',
        status: 'dismissed',
        resolution_note: 'Délais confirmés par le contrôleur',
      },
      askedAs: {
        en: [
          'settle a disagreement',
          'close a contradiction',
          'decide who is right',
          'dismiss a disagreement as a misunderstanding',
          'turn a disagreement into a finding',
        ],
        fr: ['trancher un désaccord', 'régler une contradiction', 'décider qui a raison', 'classer un désaccord', 'garder un désaccord comme constat'],
      },
      // The status can be set again by another resolve call.
      destructive: false,
      fields: () => ({
        status: z.enum(CONTRADICTION_STATUSES),
        resolution_note: nstr(2000).optional(),
        resolved_finding_id: nullableId().optional(),
      }),
      surface: 'review',
    }),
    op({
      name: 'set_evidence_publishable',
      title: 'Set evidence publishable',
      description: 'Allow or forbid an evidence to appear in deliverables.',
      method: 'PATCH',
      path: '/engagements/{engagement}/evidences/{evidence}',
      example: { engagement: '$demo.engagement', evidence: '$demo.evidence', is_publishable: false },
      askedAs: {
        en: [
          'hide a quote from the deliverable',
          'keep an excerpt confidential',
          'allow an evidence in the report',
          'keep a quote out of the client’s copy',
          'a quote must not appear in the report',
        ],
        fr: [
          'masquer une citation du livrable',
          'garder un extrait confidentiel',
          'autoriser une preuve dans le rapport',
          'garder une citation hors de la version client',
          'cette citation ne doit pas figurer dans le rapport',
        ],
      },
      destructive: false,
      fields: () => ({ is_publishable: z.boolean() }),
    }),
    op({
      name: 'preview_evidence',
      title: 'Preview evidence',
      description: 'The source material an evidence points to (transcript excerpt, frame, document passage), to check a finding.',
      method: 'GET',
      path: '/engagements/{engagement}/evidences/{evidence}/preview',
      example: { engagement: '$demo.engagement', evidence: '$demo.evidence' },
      askedAs: {
        en: [
          'see the source behind a finding',
          'the excerpt a finding rests on',
          'where a conclusion comes from',
          'the passage behind a quote',
          'check what a finding rests on',
        ],
        fr: [
          'voir la source d’un constat',
          'l’extrait sur lequel repose un constat',
          'd’où vient une conclusion',
          'le passage derrière une citation',
          'vérifier sur quoi repose un constat',
        ],
      },
    }),
    op({
      name: 'list_findings',
      title: 'List findings',
      description: 'Findings of an engagement: typed statements drawn from the material, each with a review status.',
      method: 'GET',
      path: '/engagements/{engagement}/findings',
      example: { engagement: '$demo.engagement', limit: 5 },
      completes: { argument: 'finding', label: 'statement' },
      askedAs: {
        en: [
          'what we found',
          'key findings',
          'pain points identified',
          'observations of the audit',
          'what we concluded',
          'key insights so far',
          'findings to cite in the report',
          'pain points raised by interviewees',
        ],
        fr: [
          'nos constats',
          'points clés relevés',
          'irritants identifiés',
          'observations de l’audit',
          'ce qu’on a conclu',
          'les enseignements clés',
          'constats à citer dans le rapport',
          'irritants remontés par les interviewés',
        ],
      },
      paginated: true,
      surface: 'review',
    }),
    op({
      name: 'create_finding',
      title: 'Create finding',
      description: 'Record a finding, optionally backed by evidences (source items such as transcript segments or pins).',
      method: 'POST',
      path: '/engagements/{engagement}/findings',
      askedAs: {
        en: [
          'record a new finding',
          'note a pain point',
          'log an observation',
          'add a conclusion of our own',
          'capture a risk we observed',
          'write down a new pain point',
        ],
        fr: [
          'noter un constat',
          'enregistrer un irritant',
          'consigner une observation',
          'ajouter une conclusion',
          'consigner une dépendance à une personne',
          'noter un nouvel irritant',
        ],
      },
      destructive: false,
      fields: () => ({
        ...findingFields(),
        type: z.enum(FINDING_TYPES),
        statement: str(1000).min(1),
        evidences: z.array(z.strictObject(evidenceFields())).optional(),
      }),
      // Not on the default surface: the review job judges and rewords what the analysis proposes; a
      // finding written by hand needs evidence source ids from transcripts, a several-step job for a
      // script (run_write_script) or call_operation, and its schema is the dearest of the direct tools.
      linksTo: 'finding',
    }),
    op({
      name: 'get_finding',
      title: 'Get finding',
      description: 'One finding with its fields and review status.',
      method: 'GET',
      path: '/engagements/{engagement}/findings/{finding}',
      askedAs: {
        en: ['details of a finding', 'one finding and its status', 'the evidence and status of one finding'],
        fr: ['détail d’un constat', 'un constat et son statut', 'les preuves et le statut d’un constat'],
      },
      surface: 'review',
      resource: {
        name: 'finding',
        title: 'Finding with its evidences',
        uriTemplate: 'workspace://engagements/{engagement}/findings/{finding}',
        description: 'One finding with its evidences (transcript excerpts, frames, artifacts).',
        mimeType: 'application/json',
      },
    }),
    op({
      name: 'update_finding',
      title: 'Update finding',
      description: 'Edit a finding; only the fields given change. Evidences go through add/remove_finding_evidence, the status through review_finding.',
      method: 'PATCH',
      path: '/engagements/{engagement}/findings/{finding}',
      askedAs: {
        en: [
          'edit a finding',
          'rephrase a finding',
          'change the wording of a finding',
          'fix the severity of a finding',
          'correct the statement of a finding',
          'link a finding to a process step',
        ],
        fr: [
          'modifier un constat',
          'reformuler un constat',
          'corriger la gravité d’un constat',
          'corriger l’énoncé d’un constat',
          'rattacher un constat à une étape du processus',
        ],
      },
      destructive: false,
      fields: findingFields,
      surface: 'review',
      linksTo: 'finding',
    }),
    op({
      name: 'delete_finding',
      title: 'Delete finding',
      description: 'Delete a finding for good. Rejecting it with review_finding keeps a trace instead.',
      method: 'DELETE',
      path: '/engagements/{engagement}/findings/{finding}',
      askedAs: {
        en: ['remove a finding', 'erase a finding permanently', 'delete a finding completely', 'a duplicate finding to get rid of'],
        fr: ['supprimer un constat', 'effacer définitivement un constat', 'effacer un constat inutile'],
      },
      destructive: true,
    }),
    op({
      name: 'add_finding_evidence',
      title: 'Add finding evidence',
      description: 'Back a finding with one more evidence: a source item (transcript segment, frame, pin...) and an optional excerpt.',
      method: 'POST',
      path: '/engagements/{engagement}/findings/{finding}/evidences',
      askedAs: {
        en: [
          'back a finding with a quote',
          'link a source to a finding',
          'add proof',
          'support a finding with a pin or a frame',
          'attach another source to a finding',
        ],
        fr: [
          'appuyer un constat par une citation',
          'lier une source à un constat',
          'ajouter une preuve',
          'étayer un constat par un repère',
          'rattacher une autre source à un constat',
        ],
      },
      destructive: false,
      fields: evidenceFields,
    }),
    op({
      name: 'remove_finding_evidence',
      title: 'Remove finding evidence',
      description: 'Detach one evidence from a finding.',
      method: 'DELETE',
      path: '/engagements/{engagement}/findings/{finding}/evidences/{evidence}',
      askedAs: {
        en: ['unlink a source from a finding', 'detach a quote', 'a quote that does not support the finding'],
        fr: ['retirer une preuve d’un constat', 'détacher une citation', 'dissocier une preuve'],
      },
      destructive: true,
    }),
    op({
      name: 'review_finding',
      title: 'Review finding',
      description: "Set a finding's review status: validated, rejected, or back to proposed. It can be reviewed again later.",
      method: 'POST',
      path: '/engagements/{engagement}/findings/{finding}/review',
      example: { engagement: '$demo.engagement', finding: '$demo.proposed_finding', review_status: 'validated' },
      askedAs: {
        en: [
          'approve a finding',
          'reject a finding',
          'validate or dismiss a finding',
          'accept a proposed finding',
          'sign off a conclusion',
          'turn down a proposed finding',
          'this finding is fine, validate it',
        ],
        fr: [
          'valider un constat',
          'rejeter un constat',
          'approuver ou refuser un constat',
          'remettre un constat à revoir',
          'valider une conclusion',
          'ce constat est faux, le rejeter',
          'ce constat tient, le valider',
        ],
      },
      destructive: false,
      fields: () => ({ review_status: z.enum(REVIEW_STATUSES) }),
    }),
  ],
  // Transcripts, documents, findings and chat quote what interviewees, clients and members wrote.
  { quotesContent: true },
);
