// Documents the client handed over (the AP procedure, an SAP extraction of blocked invoices) and one
// external source file: what the analysis reads besides the interviews.
import { createHash } from 'node:crypto';
import { pdf } from '../media.js';
import type { Rec, WorkspaceState } from '../types.js';
import { at, ENGAGEMENT_AP, MEMBER_CLAIRE, SESSION_AP_CLERK } from './ids.js';

const PROCEDURE_TITLE = 'Procédure de traitement des factures fournisseurs - v3 (2024)';
/** The procedure's text, one chunk per section: evidences cite artifacts chunk by chunk. */
const PROCEDURE_SECTIONS = [
  [
    '1. Réception : les factures sont reçues sur factures@berthier.fr ou par courrier au siège de Cholet.',
    'Les factures papier sont numérisées le jour même par l’accueil.',
  ],
  [
    '2. Saisie : toute facture est saisie dans SAP (transaction MIRO) dans les 5 jours ouvrés suivant sa réception.',
    'Une facture doit référencer un bon de commande ; à défaut, elle suit le circuit « hors commande ».',
  ],
  [
    '3. Rapprochement : la facture est rapprochée de la commande et de la réception (rapprochement à trois voies).',
    'Tolérance de prix : 2 % ou 50 euros. Au-delà, la facture est bloquée pour paiement.',
  ],
  [
    '4. Approbation hors commande : le responsable budgétaire valide sous 3 jours ouvrés ;',
    'au-dessus de 5 000 euros, le contrôle de gestion valide en second niveau.',
  ],
  [
    '5. Coordonnées bancaires : toute modification de RIB doit être confirmée par contre-appel',
    'au numéro de téléphone connu du fournisseur, et tracée dans le dossier fournisseur.',
  ],
] as const;

const BLOCKED_INVOICES_CSV = [
  'numero_facture;fournisseur;date_facture;montant_ttc;motif_blocage;jours_en_attente',
  'FA-2026-08812;Panneaux du Maine SARL;2026-08-28;14 220,00;Écart de quantité réception;18',
  'FA-2026-08840;Quincaillerie Lebrun;2026-08-29;1 184,40;Sans bon de commande;17',
  'FA-2026-08901;Transports Giraud;2026-09-01;3 960,00;Sans bon de commande;14',
  'FA-2026-08917;Vernis Ouest Industrie;2026-09-02;8 745,60;Écart de prix > 2 %;13',
  'FA-2026-08955;Panneaux du Maine SARL;2026-09-03;22 310,00;Réception non saisie;12',
  'FA-2026-09002;Maintenance Atlantique;2026-09-05;2 450,00;Approbation en attente;10',
  'FA-2026-09034;Tissus Roche & Fils;2026-09-08;6 102,90;Écart de prix > 2 %;7',
  'FA-2026-09071;Quincaillerie Lebrun;2026-09-09;744,00;Doublon suspecté;6',
  'FA-2026-09088;Emballages Vendée;2026-09-10;5 318,00;Réception non saisie;5',
].join('\n');

const EXTERNAL_ITEMS: { external_id: string; title: string; body: string; occurred_at: string; attributes: Record<string, unknown> }[] = [
  {
    external_id: '5105601881',
    title: 'Facture bloquée : écart de quantité',
    body: 'Panneaux du Maine SARL, 14 220,00 EUR. Quantité facturée 120, quantité réceptionnée 100.',
    occurred_at: '2026-08-28',
    attributes: { vendor: '100482', amount: 14220, currency: 'EUR', block_reason: 'Q' },
  },
  {
    external_id: '5105601902',
    title: 'Facture sans commande',
    body: 'Quincaillerie Lebrun, 1 184,40 EUR. Aucune commande de référence.',
    occurred_at: '2026-08-29',
    attributes: { vendor: '100917', amount: 1184.4, currency: 'EUR', block_reason: 'PO' },
  },
  {
    external_id: '5105601955',
    title: 'Facture sans commande',
    body: 'Transports Giraud, 3 960,00 EUR. Transport commandé par téléphone par l’atelier.',
    occurred_at: '2026-09-01',
    attributes: { vendor: '101233', amount: 3960, currency: 'EUR', block_reason: 'PO' },
  },
  {
    external_id: '5105601990',
    title: 'Facture bloquée : écart de prix',
    body: 'Vernis Ouest Industrie, 8 745,60 EUR. Prix facturé 4,1 % au-dessus de la fiche info-achat.',
    occurred_at: '2026-09-02',
    attributes: { vendor: '100355', amount: 8745.6, currency: 'EUR', block_reason: 'P' },
  },
  {
    external_id: '5105602011',
    title: 'Réception non saisie',
    body: 'Panneaux du Maine SARL, 22 310,00 EUR. Aucune entrée de marchandises enregistrée.',
    occurred_at: '2026-09-03',
    attributes: { vendor: '100482', amount: 22310, currency: 'EUR', block_reason: 'GR' },
  },
  {
    external_id: '5105602047',
    title: 'Approbation en attente',
    body: 'Maintenance Atlantique, 2 450,00 EUR. Demande d’approbation envoyée par e-mail le 5 septembre.',
    occurred_at: '2026-09-05',
    attributes: { vendor: '101870', amount: 2450, currency: 'EUR', block_reason: 'APPR' },
  },
  {
    external_id: '5105602093',
    title: 'Facture bloquée : écart de prix',
    body: 'Tissus Roche & Fils, 6 102,90 EUR. Prix contractuel mis à jour dans Excel, pas dans SAP.',
    occurred_at: '2026-09-08',
    attributes: { vendor: '100129', amount: 6102.9, currency: 'EUR', block_reason: 'P' },
  },
  {
    external_id: '5105602120',
    title: 'Doublon suspecté',
    body: 'Quincaillerie Lebrun, 744,00 EUR. Même montant et même date qu’une facture déjà comptabilisée.',
    occurred_at: '2026-09-09',
    attributes: { vendor: '100917', amount: 744, currency: 'EUR', block_reason: 'DUP' },
  },
];

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Split a text into chunks of whole lines of at most `size` characters: what evidences cite. */
export function chunkText(text: string, size = 1_000): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const line of text.split(/\r?\n/)) {
    if (current && current.length + line.length + 1 > size) {
      chunks.push(current);
      current = '';
    }
    current = current ? `${current}\n${line}` : line;
  }
  if (current.trim()) chunks.push(current);
  return chunks;
}

/** Store an artifact and its text chunks. Used by the seed and by uploads. */
export function storeArtifact(
  ws: WorkspaceState,
  fields: { engagement_id: string; session_id: string | null; filename: string; content_type: string; content: Buffer; uploaded_by: string },
  chunks: string[],
  dates: Partial<Rec> = {},
): Rec {
  const id = ws.newId(`artifact\n${fields.engagement_id}\n${fields.filename}`);
  const artifact = ws.c('artifacts').insert({
    id,
    ...fields,
    size: fields.content.length,
    sha256: sha256(fields.content),
    status: 'processed',
    chunk_count: chunks.length,
    // A generated page image stands for the first page: the web application shows it as a preview.
    media: { disk: 'artifacts', path: `engagements/${fields.engagement_id}/artifacts/${id}/preview.png` },
    ...dates,
  });
  for (const [i, text] of chunks.entries()) {
    ws.c('artifact_chunks').insert({
      engagement_id: fields.engagement_id,
      artifact_id: artifact.id,
      session_id: fields.session_id,
      position: i + 1,
      text,
      ...dates,
    });
  }
  return artifact;
}

export function seedSources(ws: WorkspaceState): void {
  const procedureLines = PROCEDURE_SECTIONS.flatMap((s) => [...s, '']);
  storeArtifact(
    ws,
    {
      engagement_id: ENGAGEMENT_AP,
      // Shared on screen by the AP clerk during her interview.
      session_id: SESSION_AP_CLERK,
      filename: 'Procédure de traitement des factures fournisseurs v3.pdf',
      content_type: 'application/pdf',
      content: pdf(PROCEDURE_TITLE, procedureLines),
      uploaded_by: MEMBER_CLAIRE,
    },
    PROCEDURE_SECTIONS.map((s) => s.join(' ')),
    { created_at: at(2, 2), updated_at: at(2, 2) },
  );
  const csv = Buffer.from(BLOCKED_INVOICES_CSV, 'utf8');
  storeArtifact(
    ws,
    {
      engagement_id: ENGAGEMENT_AP,
      session_id: null,
      filename: 'extraction_factures_bloquees_septembre.csv',
      content_type: 'text/csv',
      content: csv,
      uploaded_by: MEMBER_CLAIRE,
    },
    chunkText(BLOCKED_INVOICES_CSV, 400),
    { created_at: at(3, 9), updated_at: at(3, 9) },
  );

  const source = ws.c('external_sources').insert({
    engagement_id: ENGAGEMENT_AP,
    name: 'Export SAP - factures en attente',
    format_version: '1',
    system: 'SAP S/4HANA (MRBR)',
    filename: 'export_sap_factures_en_attente.json',
    item_count: EXTERNAL_ITEMS.length,
    uploaded_by: MEMBER_CLAIRE,
    created_at: at(3, 10),
    updated_at: at(3, 10),
  });
  for (const [i, item] of EXTERNAL_ITEMS.entries()) {
    ws.c('external_source_items').insert({
      engagement_id: ENGAGEMENT_AP,
      source_id: source.id,
      position: i + 1,
      ...item,
      created_at: at(3, 10),
      updated_at: at(3, 10),
    });
  }
}
