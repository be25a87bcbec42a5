// Privacy: compliance documents of the workspace. Only their download is documented.
import { area, op } from './shared.js';

export const privacy = area('privacy', [
  op({
    name: 'download_compliance_document',
    title: 'Download compliance document',
    description: 'Download one compliance document of the workspace as a file.',
    method: 'GET',
    path: '/compliance-documents/{document}/download',
    example: { document: '$demo.compliance_document' },
    askedAs: {
      en: [
        'GDPR documents',
        'data protection agreement',
        'security and privacy certificate',
        'the DPA for the client’s data protection officer',
        'privacy paperwork',
      ],
      fr: ['documents RGPD', 'accord de protection des données', 'attestation de conformité', 'documents de conformité à fournir', 'pièces RGPD'],
    },
    response: 'file',
  }),
]);
