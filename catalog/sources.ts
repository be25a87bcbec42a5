// Sources: files uploaded to an engagement (artifacts) and external source files with their items.
import { z } from 'zod';
import { ARTIFACT_MAX_KIB, area, EXTERNAL_SOURCE_MAX_KIB, op, slug, str } from './shared.js';

// Line breaks are allowed: base64 is often wrapped at 76 columns.
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** Bytes a base64 text decodes to (whitespace ignored), without decoding it. */
function base64Bytes(b64: string): number {
  const s = b64.replace(/\s+/g, '');
  return Math.floor((s.length * 3) / 4) - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
}

/**
 * The file part of an upload, as a tool argument: an assistant holds a file as a local path, as text
 * it wrote, or as base64, and gives exactly one. Content given inline is measured here so an oversized
 * file is refused before any request; a `path` is measured by whoever reads it.
 */
export const uploadFile = (maxKib: number) =>
  z
    .strictObject({
      path: z.string().min(1).optional(),
      text: z.string().optional(),
      base64: z.string().regex(BASE64, 'must be base64').optional(),
      filename: z.string().max(255).optional(),
      content_type: z.string().max(127).optional(),
    })
    .refine((f) => [f.path, f.text, f.base64].filter((v) => v !== undefined).length === 1, {
      message: 'give exactly one of path, text or base64',
    })
    .refine((f) => f.text === undefined || Buffer.byteLength(f.text, 'utf8') <= maxKib * 1024, {
      message: `file too large: at most ${maxKib} KiB`,
      path: ['text'],
    })
    .refine((f) => f.base64 === undefined || base64Bytes(f.base64) <= maxKib * 1024, {
      message: `file too large: at most ${maxKib} KiB`,
      path: ['base64'],
    })
    .describe('exactly one of path (local file), text or base64');

export const sources = area(
  'sources',
  [
    op({
      name: 'list_artifacts',
      title: 'List artifacts',
      description: 'Files uploaded to an engagement (procedures, screenshots, exports) that the analysis reads as sources.',
      method: 'GET',
      path: '/engagements/{engagement}/artifacts',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: ['documents the client provided', 'files we received', 'uploaded procedures and exports', 'material the client gave us'],
        fr: ['documents fournis par le client', 'fichiers reçus', 'pièces déposées', 'documents au dossier'],
      },
      paginated: true,
    }),
    op({
      name: 'upload_artifact',
      title: 'Upload artifact',
      description: `Add a file to an engagement as a source for the analysis, up to ${ARTIFACT_MAX_KIB / 1024} MiB.`,
      method: 'POST',
      path: '/engagements/{engagement}/artifacts',
      askedAs: {
        en: [
          'add a document to the engagement',
          'upload a file from the client',
          'share a procedure with the analysis',
          'give the analysis a procedure to read',
          'attach a PDF the client handed over',
        ],
        fr: [
          'ajouter un document à la mission',
          'déposer un fichier du client',
          'téléverser une procédure',
          'donner une procédure à l’analyse',
          'joindre un PDF remis par le client',
        ],
      },
      destructive: false,
      body: 'multipart',
      fields: () => ({ file: uploadFile(ARTIFACT_MAX_KIB) }),
      upload: { maxKib: ARTIFACT_MAX_KIB },
    }),
    op({
      name: 'get_artifact',
      title: 'Get artifact',
      description: 'Record of one uploaded artifact; download_artifact gives its content.',
      method: 'GET',
      path: '/engagements/{engagement}/artifacts/{artifact}',
      example: { engagement: '$demo.engagement', artifact: '$demo.artifact' },
      askedAs: {
        en: ['details of an uploaded document', 'metadata of an uploaded document', 'record of a file we hold'],
        fr: ['fiche d’un document déposé', 'qui a déposé un fichier et quand', 'taille et type d’un fichier'],
      },
    }),
    op({
      name: 'delete_artifact',
      title: 'Delete artifact',
      description: 'Delete an uploaded artifact for good.',
      method: 'DELETE',
      path: '/engagements/{engagement}/artifacts/{artifact}',
      askedAs: { en: ['remove an uploaded document', 'remove a wrong upload'], fr: ['supprimer un document déposé', 'un fichier déposé par erreur'] },
      destructive: true,
    }),
    op({
      name: 'download_artifact',
      title: 'Download artifact',
      description: 'Content of an uploaded artifact file.',
      method: 'GET',
      path: '/engagements/{engagement}/artifacts/{artifact}/download',
      example: { engagement: '$demo.engagement', artifact: '$demo.artifact' },
      askedAs: {
        en: ['get a copy of an uploaded file', 'open a document we received', 'read the procedure itself'],
        fr: ['récupérer un fichier déposé', 'ouvrir un document reçu', 'le contenu d’un fichier déposé'],
      },
      response: 'file',
    }),
    op({
      name: 'list_external_sources',
      title: 'List external sources',
      description: 'External source files of an engagement: structured data in the external-source format.',
      method: 'GET',
      path: '/engagements/{engagement}/external-sources',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: ['data imports of the engagement', 'structured data files', 'data extracts already loaded'],
        fr: ['données importées de la mission', 'fichiers de données structurées', 'extractions déjà chargées'],
      },
      paginated: true,
    }),
    op({
      name: 'upload_external_source',
      title: 'Upload external source',
      description: `Add an external source file (up to ${EXTERNAL_SOURCE_MAX_KIB / 1024} MiB) in the format of get_external_source_schema.`,
      method: 'POST',
      path: '/engagements/{engagement}/external-sources',
      askedAs: {
        en: ['import data from the ERP', 'feed a system extract to the analysis', 'load a data file', 'load a system export for the analysis'],
        fr: ['importer des données de l’ERP', 'charger un extrait du système', 'importer un fichier de données', 'charger un export du logiciel'],
      },
      destructive: false,
      body: 'multipart',
      fields: () => ({ file: uploadFile(EXTERNAL_SOURCE_MAX_KIB), name: str(255).min(1) }),
      upload: { maxKib: EXTERNAL_SOURCE_MAX_KIB, format: 'external-source' },
    }),
    op({
      name: 'delete_external_source',
      title: 'Delete external source',
      description: 'Delete an external source file and its items for good.',
      method: 'DELETE',
      path: '/engagements/{engagement}/external-sources/{source}',
      askedAs: {
        en: ['remove an imported data file', 'remove a data import and its lines'],
        fr: ['supprimer un fichier de données importé', 'retirer une extraction périmée'],
      },
      destructive: true,
    }),
    op({
      name: 'list_external_source_items',
      title: 'List external source items',
      description: 'Items read from one external source file; evidences can cite them.',
      method: 'GET',
      path: '/engagements/{engagement}/external-sources/{source}/items',
      example: { engagement: '$demo.engagement', source: '$demo.external_source' },
      askedAs: {
        en: ['rows of an imported data file', 'records of a data import', 'entries parsed from imported data'],
        fr: ['lignes d’un fichier de données', 'enregistrements importés', 'lignes lues dans une extraction'],
      },
      paginated: true,
    }),
    op({
      name: 'get_external_source_schema',
      title: 'Get external source schema',
      description: 'Schema of the external-source file format for a version, to prepare a file before uploading it.',
      method: 'GET',
      path: '/sources/schema/external-source/{version}',
      example: { version: '1' },
      askedAs: {
        en: ['format of the data import file', 'how to prepare a data file', 'columns expected in an import'],
        fr: ['format du fichier d’import', 'préparer un fichier de données', 'la structure attendue d’un fichier de données'],
      },
      pathSchemas: () => ({ version: slug() }),
      reference: true,
    }),
  ],
  // Transcripts, documents, findings and chat quote what interviewees, clients and members wrote.
  { quotesContent: true },
);
