// Deliverables: the draft, its documents made of blocks, published versions with their comments, and
// the exports (files) of an engagement.
import { z } from 'zod';
import { area, BLOCK_TYPES, CHARTS, DOCUMENT_KINDS, EXPORT_KINDS, GENERATION_MODES, id, nstr, nullableId, op, REF_TYPES, STAGES, str } from './shared.js';

/** Most a block may list: refs, items and ids alike (the spec's limits table). */
const PER_BLOCK = 50;

/** A block's fields as the spec lists them; `ref` is how one of its refs is checked. */
const blockShape = (ref: z.ZodObject) => ({
  id: nstr(64).optional(),
  type: z.enum(BLOCK_TYPES),
  level: z.number().int().nullable().optional(),
  text: nstr(5000).optional(),
  title: nstr(200).optional(),
  refs: z.array(ref).max(PER_BLOCK).optional(),
  data_ref: nstr(64).optional(),
  items: z.array(z.string()).max(PER_BLOCK).optional(),
  item_type: z.enum(REF_TYPES).optional(),
  ids: z.array(z.string()).max(PER_BLOCK).optional(),
  display: z.enum(['compact', 'full']).optional(),
  options: z.record(z.string(), z.unknown()).nullable().optional(),
  chart: z.enum(CHARTS).optional(),
  process_id: nstr(64).optional(),
  show_map: z.boolean().optional(),
  evidence_id: nstr(64).optional(),
  theme: nstr(64).optional(),
  tone: z.enum(['info', 'caution']).optional(),
});

const refShape = () => ({ type: z.enum(REF_TYPES), id: str(64).min(1) });

let strictBlock: z.ZodObject | undefined;

/**
 * One block as a model writes it. Only `type` is required: which other fields a type uses is not
 * given by the spec, so every field is allowed on every type and the API judges the combination.
 * Strict: a field the spec does not list is refused by name (a typo, not data). Built on first use,
 * like an entry's input.
 */
export function block(): z.ZodObject {
  strictBlock ??= z.strictObject(blockShape(z.strictObject(refShape())));
  return strictBlock;
}

let updatedBlock: z.ZodType | undefined;

/**
 * A block of a whole-document update. The API may answer blocks with fields the spec does not list,
 * and a document read and sent back must stay that document: so the spec's fields are validated,
 * others allowed, and the block is sent exactly as given, key order included (a parsed copy would
 * put the fields in the schema's order: the same JSON meaning, not the same bytes). The one change
 * is the arguments rule, null meaning absent: a null where the spec allows none is left out. Shown
 * to the model as `block`, what it should write. Built on first use: its shown form is a conversion
 * of `block` to JSON Schema, the dearest thing the catalog would otherwise do when it loads.
 */
export function documentBlock(): z.ZodType {
  updatedBlock ??= buildDocumentBlock();
  return updatedBlock;
}

function buildDocumentBlock(): z.ZodType {
  /** A block as a document holds it: the spec's fields checked, any others allowed. */
  const heldBlock = z.looseObject(blockShape(z.looseObject(refShape())));
  const heldFields = heldBlock.shape as Record<string, z.ZodType>;
  return z
    .unknown()
    .transform((given, ctx) => {
      let sent = given;
      if (given !== null && typeof given === 'object' && !Array.isArray(given)) {
        const kept: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(given)) {
          if (v === null && heldFields[k] && !heldFields[k].safeParse(null).success) continue;
          kept[k] = v;
        }
        sent = kept;
      }
      const checked = heldBlock.safeParse(sent);
      if (!checked.success) {
        for (const issue of checked.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message, input: given });
        return z.NEVER;
      }
      return sent as z.infer<typeof heldBlock>;
    })
    .meta(z.toJSONSchema(block(), { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);
}

const documentKind = () => ({ kind: z.enum(DOCUMENT_KINDS) });

export const deliverables = area(
  'deliverables',
  [
    op({
      name: 'list_deliverable_documents',
      title: 'List deliverable documents',
      description: "Documents of the engagement's deliverable (executive summary, roadmap, pain map...) and whether each is included.",
      method: 'GET',
      path: '/engagements/{engagement}/deliverable/documents',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: ['sections of the report', 'documents in the deliverable', 'which parts the report includes'],
        fr: ['parties du rapport', 'documents du livrable', 'quelles parties le rapport contient'],
      },
      paginated: true,
      // Not on the default surface: the kinds are an enum of every document tool; call_operation lists them.
    }),
    op({
      name: 'generate_all_documents',
      title: 'Generate all documents',
      description: 'Generate every document of the deliverable from the analysis, in the background; ai: true lets the AI write the text.',
      method: 'POST',
      path: '/engagements/{engagement}/deliverable/documents/generate-all',
      askedAs: {
        en: ['write the whole report', 'produce every document at once', 'have the AI draft the whole deliverable'],
        fr: ['rédiger tout le rapport', 'produire tous les documents d’un coup', 'faire rédiger tout le livrable par l’IA'],
      },
      // The spec gives no keep-edits mode here, so a regeneration may overwrite edited documents.
      destructive: true,
      fields: () => ({ ai: z.boolean().optional() }),
      job: {
        label: 'generation of all documents',
        // Every document the job covers shows it; the first is read (one request instead of the list).
        reads: [
          {
            operation: 'get_deliverable_document',
            args: { engagement: '$args.engagement', kind: '$job.kinds.0|executive_summary' },
            pick: { field: 'generation' },
          },
        ],
      },
    }),
    op({
      name: 'get_deliverable_document',
      title: 'Get deliverable document',
      description: 'One deliverable document with its blocks and the updated_at that update_deliverable_document needs.',
      method: 'GET',
      path: '/engagements/{engagement}/deliverable/documents/{kind}',
      example: { engagement: '$demo.engagement', kind: 'executive_summary' },
      askedAs: {
        en: [
          'read a section of the report',
          'content of the executive summary',
          'the blocks of a section before editing it',
          'a section as it stands',
          'the client’s tools landscape',
          'the map of pain points',
          'open questions and uncertainties',
          'verbatims chosen for the report',
          'the roles and activities document',
        ],
        fr: [
          'lire une partie du rapport',
          'contenu de la synthèse',
          'les blocs d’une partie avant de la modifier',
          'une partie telle qu’elle est',
          'cartographie des outils du client',
          'carte des irritants',
          'points d’incertitude',
          'verbatims retenus',
          'document des rôles et activités',
        ],
      },
      pathSchemas: documentKind,
      resource: {
        name: 'deliverable_document',
        title: 'Deliverable document',
        uriTemplate: 'workspace://engagements/{engagement}/documents/{kind}',
        description: 'One document of the deliverable (executive summary, roadmap, ...) with its blocks.',
        mimeType: 'application/json',
      },
    }),
    op({
      name: 'update_deliverable_document',
      title: 'Update deliverable document',
      description:
        'Edit a document: include or exclude it, set its parameters, or replace its blocks (cited ids must be of the engagement). Echo updated_at from get_deliverable_document; a stale one is refused.',
      method: 'PATCH',
      path: '/engagements/{engagement}/deliverable/documents/{kind}',
      askedAs: {
        en: [
          'edit a section of the report',
          'rewrite a paragraph',
          'leave a document out of the report',
          'drop a section from the report',
          'include a document in the deliverable',
          'a chart of gains against effort',
          'a heat map of pain points',
          'add a callout or a quote block',
        ],
        fr: [
          'modifier une partie du rapport',
          'retoucher un paragraphe',
          'exclure un document du rapport',
          'retirer une partie du rapport',
          'inclure un document dans le livrable',
          'matrice gains et efforts',
          'carte de chaleur des irritants',
          'ajouter un encadré ou une citation',
        ],
      },
      pathSchemas: documentKind,
      // An edit guarded by the concurrency token; the document can be edited or regenerated again.
      destructive: false,
      fields: () => ({
        updated_at: str(64).min(1),
        included: z.boolean().optional(),
        parameters: z.record(z.string(), z.unknown()).optional(),
        blocks: z.array(documentBlock()).max(200).optional(),
      }),
      // Not on the default surface: edit_document_blocks changes blocks without re-sending the document;
      // included and parameters go through call_operation.
      linksTo: 'deliverable_document',
      citesIn: 'blocks',
    }),
    op({
      name: 'generate_deliverable_document',
      title: 'Generate deliverable document',
      description: '(Re)generate one document in the background. mode keep_edits preserves manual edits; replace_all discards them.',
      method: 'POST',
      path: '/engagements/{engagement}/deliverable/documents/{kind}/generate',
      askedAs: {
        en: [
          'write the executive summary',
          'produce the roadmap',
          'regenerate a section of the report',
          'update a document without losing manual changes',
          'start a section over from the findings',
        ],
        fr: [
          'rédiger la synthèse',
          'produire la feuille de route',
          'régénérer une partie du rapport',
          'mettre à jour un document sans perdre mes retouches',
          'actualiser une partie depuis l’analyse',
        ],
      },
      pathSchemas: documentKind,
      // replace_all throws away the consultant's edits.
      destructive: true,
      fields: () => ({
        mode: z.enum(GENERATION_MODES).optional(),
        process_id: nullableId().optional(),
        ai: z.boolean().optional(),
      }),
      consequences: [
        { when: { mode: 'replace_all' }, says: "mode: replace_all. The document's manual edits are discarded and replaced by the generated text." },
      ],
      surface: 'draft',
      linksTo: 'deliverable_document',
      job: {
        label: 'document generation',
        reads: [
          {
            operation: 'get_deliverable_document',
            args: { engagement: '$args.engagement', kind: '$args.kind' },
            pick: { field: 'generation' },
          },
        ],
      },
    }),
    op({
      name: 'get_deliverable_draft',
      title: 'Get deliverable draft',
      description: 'The working draft of the deliverable: introduction, recommendations, attribution, stage.',
      method: 'GET',
      path: '/engagements/{engagement}/deliverable/draft',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: ['the report in progress', 'working version of the deliverable', 'the draft’s introduction as it stands'],
        fr: ['le rapport en cours', 'version de travail du livrable', 'l’introduction du brouillon telle qu’elle est'],
      },
    }),
    op({
      name: 'update_deliverable_draft',
      title: 'Update deliverable draft',
      description: 'Edit the draft; only the fields given change. attribution: quote interviewees by role, or by name for named_interview_ids.',
      method: 'PATCH',
      path: '/engagements/{engagement}/deliverable/draft',
      askedAs: {
        en: [
          'edit the introduction',
          'change the recommendations of the draft',
          'anonymise the people quoted',
          'set the opening text of the deliverable',
          'quote people by name or by role',
          'include findings still proposed',
          'refresh the interim version automatically',
        ],
        fr: [
          'modifier l’introduction',
          'changer les recommandations du brouillon',
          'citer les interviewés par leur fonction',
          'écrire l’introduction',
          'citer nommément ou par fonction',
          'montrer aussi les constats proposés',
          'actualiser automatiquement la version intermédiaire',
        ],
      },
      destructive: false,
      fields: () => ({
        introduction: nstr(20000).optional(),
        recommendations: nstr(20000).optional(),
        attribution: z.enum(['by_role', 'named']).optional(),
        named_interview_ids: z.array(id()).optional(),
        include_proposed: z.boolean().optional(),
        dismiss_suggestion: z.boolean().optional(),
        stage: z.enum(STAGES).optional(),
        auto_refresh_interim: z.boolean().optional(),
      }),
    }),
    op({
      name: 'preview_draft_evidence',
      title: 'Preview draft evidence',
      description: "An evidence as the draft deliverable would show it, with the draft's attribution applied.",
      method: 'GET',
      path: '/engagements/{engagement}/deliverable/draft/evidences/{evidence}/preview',
      example: { engagement: '$demo.engagement', evidence: '$demo.evidence' },
      askedAs: {
        en: ['how a quote will show in the report', 'how a quote will read in the deliverable'],
        fr: ['comment une citation apparaîtra dans le rapport', 'rendu d’une citation dans le livrable'],
      },
    }),
    op({
      name: 'preview_deliverable_draft',
      title: 'Preview deliverable draft',
      description: 'The draft deliverable rendered as it would be published. Check it before publish_deliverable.',
      method: 'GET',
      path: '/engagements/{engagement}/deliverable/draft/preview',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: [
          'preview the report before publishing',
          'what the client will see',
          'check the report before it goes out',
          'the report as the client would get it',
        ],
        fr: ['aperçu du rapport avant publication', 'ce que verra le client', 'relire le rapport avant qu’il parte', 'le rapport tel que le client le recevra'],
      },
    }),
    op({
      name: 'suggest_recommendations',
      title: 'Suggest recommendations',
      description: 'Ask the AI to suggest recommendations for the draft from the analysis; the suggestion can be kept or dismissed.',
      method: 'POST',
      path: '/engagements/{engagement}/deliverable/draft/suggest-recommendations',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: ['AI ideas for recommendations', 'what should we recommend', 'a first draft of recommendations'],
        fr: ['idées de recommandations', 'que devrions-nous recommander', 'premier jet de recommandations'],
      },
      // A suggestion beside the draft (dismiss_suggestion exists), not a rewrite of it.
      destructive: false,
      job: {
        label: 'recommendation suggestion',
        reads: [{ operation: 'get_deliverable_draft', args: { engagement: '$args.engagement' }, pick: { field: 'suggestion' } }],
      },
    }),
    op({
      name: 'publish_deliverable',
      title: 'Publish deliverable',
      description: 'Publish the draft as a new deliverable version, interim or final, visible to the client. Cannot be undone.',
      method: 'POST',
      path: '/engagements/{engagement}/deliverable/publish',
      askedAs: {
        en: [
          'issue the report',
          'share the deliverable with the client',
          'release the final version',
          'send the report to the client',
          'a version the client can comment on',
          'hand the interim report to the committee',
          'make the final report official',
        ],
        fr: [
          'diffuser le rapport',
          'partager le livrable avec le client',
          'publier la version finale',
          'envoyer le rapport au client',
          'une version que le client peut commenter',
          'remettre un rapport intermédiaire au comité',
          'officialiser le rapport final',
        ],
      },
      destructive: true,
      fields: () => ({ changelog: nstr(5000).optional(), stage: z.enum(STAGES).optional() }),
      consequences: [
        { when: { stage: 'final' }, says: 'stage: final. This publishes the final version of the deliverable to the client.' },
        { when: { stage: null }, says: 'No stage given: it is published at the stage the draft is set to, which may be final.' },
      ],
      surface: 'draft',
    }),
    op({
      name: 'list_deliverable_versions',
      title: 'List deliverable versions',
      description: "Published versions of the engagement's deliverable.",
      method: 'GET',
      path: '/engagements/{engagement}/deliverable/versions',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: ['versions we sent the client', 'report history', 'previous releases', 'past editions of the deliverable'],
        fr: ['versions envoyées au client', 'historique du rapport', 'éditions précédentes', 'toutes les éditions du rapport'],
      },
      paginated: true,
    }),
    op({
      name: 'get_deliverable_version',
      title: 'Get deliverable version',
      description: 'One published deliverable version; get_deliverable_snapshot gives its frozen content.',
      method: 'GET',
      path: '/engagements/{engagement}/deliverable/versions/{version}',
      example: { engagement: '$demo.engagement', version: '$demo.version' },
      askedAs: { en: ['one released version of the report', 'the details of one release'], fr: ['une version publiée du rapport', 'détails d’une édition'] },
    }),
    op({
      name: 'list_deliverable_comments',
      title: 'List deliverable comments',
      description: 'Comments left on a published deliverable version, to answer or close.',
      method: 'GET',
      path: '/engagements/{engagement}/deliverable/versions/{version}/comments',
      render: { keep: ['created_at'] },
      example: { engagement: '$demo.engagement', version: '$demo.version' },
      askedAs: {
        en: [
          "client's remarks on the report",
          'feedback on the deliverable',
          'questions the client raised',
          'notes the client left on a release',
          'how the client reacted to the report',
        ],
        fr: [
          'remarques du client sur le rapport',
          'retours sur le livrable',
          'questions soulevées par le client',
          'notes laissées par le client',
          'réaction du client au rapport',
        ],
      },
      paginated: true,
    }),
    op({
      name: 'get_deliverable_snapshot',
      title: 'Get deliverable snapshot',
      description: 'Frozen content of a published version, as it was when published.',
      method: 'GET',
      path: '/engagements/{engagement}/deliverable/versions/{version}/snapshot',
      example: { engagement: '$demo.engagement', version: '$demo.version' },
      askedAs: {
        en: [
          'what we sent the client',
          'the report as delivered',
          'content of a released version',
          'what the client received that day',
          'frozen content of a past release',
        ],
        fr: [
          'ce qu’on a envoyé au client',
          'le rapport tel que livré',
          'contenu d’une version publiée',
          'le rapport exactement tel que remis',
          'contenu figé d’une édition',
        ],
      },
    }),
    op({
      name: 'close_deliverable_comment',
      title: 'Close deliverable comment',
      description: 'Close a comment on a published version once it has been addressed.',
      method: 'POST',
      path: '/engagements/{engagement}/deliverable/comments/{comment}/close',
      askedAs: {
        en: ['mark a remark as handled', 'resolve a client comment', 'a remark we have dealt with'],
        fr: ['clore une remarque', 'marquer un commentaire comme traité', 'fermer un commentaire résolu'],
      },
      destructive: false,
    }),
    op({
      name: 'reply_deliverable_comment',
      title: 'Reply to deliverable comment',
      description: 'Answer a comment on a published deliverable version.',
      method: 'POST',
      path: '/engagements/{engagement}/deliverable/comments/{comment}/reply',
      askedAs: {
        en: ["respond to the client's remark", 'answer feedback on the report', 'answer a question the client asked on the report'],
        fr: ['répondre à une remarque du client', 'répondre à un retour sur le rapport', 'répondre à une question du client sur le rapport'],
      },
      destructive: false,
      fields: () => ({ body: str(5000).min(1) }),
    }),
    op({
      name: 'list_exports',
      title: 'List exports',
      description: 'Exports of an engagement and their state; fetch a finished one with download_export.',
      method: 'GET',
      path: '/engagements/{engagement}/exports',
      completes: { argument: 'export', label: 'kind' },
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: ['exported files', 'downloads prepared', 'files already produced for this audit'],
        fr: ['fichiers exportés', 'exports préparés', 'exports générés'],
      },
      paginated: true,
    }),
    op({
      name: 'get_export',
      title: 'Get export',
      description: 'One export with its status and progress: check on it until it succeeded, then download it.',
      method: 'GET',
      path: '/engagements/{engagement}/exports/{export}',
      askedAs: { en: ['is the export ready', 'is the export finished'], fr: ['l’export est-il prêt', 'le fichier est-il terminé'] },
      // Documented by the live description only; every export is followed through it.
      undocumented: true,
      // Not on the default surface: create_export follows the export to its file; a later check goes through call_operation.
    }),
    op({
      name: 'create_export',
      title: 'Create export',
      description:
        'Produce an export file in the background; document_* kinds export the document named by document_kind. Waits for it (wait), then fetches the file and says where it is (its text too when small); download_export fetches it later.',
      method: 'POST',
      path: '/engagements/{engagement}/exports',
      askedAs: {
        en: [
          'export to PDF',
          'make a PowerPoint of the report',
          'Word version',
          'CSV of findings',
          'BPMN diagram',
          'a spreadsheet of the findings',
          'the report as a Word document',
          'a file to print',
          'everything in one JSON bundle',
          'the process as a BPMN diagram',
          'opportunities as CSV',
        ],
        fr: [
          'exporter en PDF',
          'faire un PowerPoint du rapport',
          'version Word',
          'CSV des constats',
          'un tableur des constats',
          'le rapport en Word',
          'version imprimable',
          'export JSON complet',
          'diagramme BPMN du processus',
          'CSV des opportunités',
        ],
      },
      destructive: false,
      fields: () => ({
        kind: z.enum(EXPORT_KINDS),
        // The spec says only "string or null"; identifiers are ULIDs by its general rules.
        deliverable_version_id: nullableId().optional(),
        process_id: nullableId().optional(),
        document_kind: z.enum(DOCUMENT_KINDS).optional(),
      }),
      surface: 'draft',
      linksTo: 'export_file',
      job: {
        label: 'export',
        reads: [
          { operation: 'get_export', args: { engagement: '$args.engagement', export: '$id' }, pick: 'self' },
          { operation: 'list_exports', args: { engagement: '$args.engagement', limit: 50 }, pick: 'list' },
        ],
        download: { operation: 'download_export', args: { engagement: '$args.engagement', export: '$id' } },
      },
    }),
    op({
      name: 'download_export',
      title: 'Download export',
      description: 'File of a finished export.',
      method: 'GET',
      path: '/engagements/{engagement}/exports/{export}/download',
      askedAs: {
        en: ['get the exported file', 'download the PDF', 'the finished export file'],
        fr: ['récupérer le fichier exporté', 'télécharger le PDF', 'le fichier d’export terminé'],
      },
      response: 'file',
      // Not on the default surface: create_export fetches the file once ready (and the export_file resource serves it).
      resource: {
        name: 'export_file',
        title: 'Export file',
        uriTemplate: 'workspace://engagements/{engagement}/exports/{export}/file',
        description: 'The file of a finished export (PDF, DOCX, PPTX, CSV, BPMN, JSON).',
        mimeType: 'application/octet-stream',
      },
    }),
  ],
  // Transcripts, documents, findings and chat quote what interviewees, clients and members wrote.
  { quotesContent: true },
);
