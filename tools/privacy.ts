// Privacy: compliance documents of the workspace. Only their download is documented.
import { area, op } from './shared.js';

export const privacy = area('privacy', [
  op({
    name: 'download_compliance_document',
    title: 'Download compliance document',
    description: 'Download one compliance document of the workspace as a file.',
    method: 'GET',
    path: '/compliance-documents/{document}/download',
    response: 'file',
  }),
]);
