// Compliance documents the workspace offers its clients: the data processing agreement and the
// security whitepaper. Their text is stored; the PDF is rendered on download.
import type { WorkspaceState } from '../types.js';
import { at } from './ids.js';

// Fixed ids: no documented operation lists compliance documents, so clients (and tests) need stable ones.
export const COMPLIANCE_DPA = '01M1D5CRS0P00000DPA0000001';
export const COMPLIANCE_WHITEPAPER = '01M1D5CRS0P0000SECWP000002';

export function seedPrivacy(ws: WorkspaceState): void {
  ws.c('compliance_documents').insert({
    id: COMPLIANCE_DPA,
    name: 'Accord de traitement des données (DPA)',
    kind: 'dpa',
    version: '2026.2',
    locale: 'fr',
    filename: 'accord-traitement-donnees-2026-2.pdf',
    sections: [
      {
        title: 'Objet',
        text: 'Le présent accord encadre les traitements de données personnelles réalisés par la plateforme pour le compte du client (article 28 du RGPD).',
      },
      {
        title: 'Données traitées',
        text: "Enregistrements audio et vidéo des entretiens, transcriptions, captures d'écran partagées, identité professionnelle des participants.",
      },
      {
        title: 'Sous-traitants ultérieurs',
        text: "Fournisseurs de modèles d'IA configurés par l'espace de travail ; liste tenue à jour dans l'espace Confidentialité.",
      },
      { title: 'Durées de conservation', text: "Données brutes et livrables conservés selon les durées fixées par l'espace de travail (1 à 3650 jours)." },
      { title: 'Sécurité', text: 'Chiffrement en transit et au repos, cloisonnement par espace de travail, journalisation des accès.' },
    ],
    created_at: at(-120),
  });
  ws.c('compliance_documents').insert({
    id: COMPLIANCE_WHITEPAPER,
    name: 'Security whitepaper',
    kind: 'security_whitepaper',
    version: '2026.3',
    locale: 'en',
    filename: 'security-whitepaper-2026-3.pdf',
    sections: [
      { title: 'Tenant isolation', text: 'Each workspace is reached on its own host; records of one workspace are never returned to another.' },
      { title: 'Access control', text: 'Personal tokens and OAuth 2.1 with PKCE; read and write scopes; two-step verification for the web application.' },
      { title: 'Encryption', text: 'TLS 1.2+ in transit; AES-256 at rest; provider keys stored encrypted and never returned by the API.' },
      { title: 'AI providers', text: 'Workspaces choose drivers and models per usage; EU-hosted models can be required per engagement.' },
    ],
    created_at: at(-60),
  });
}
