// Operations only a live description shows: the catalog does not curate them, so the MCP server meets
// them the way it meets a real workspace's extra operations, through openapi.json, and turns them into
// generated tools. They are marked `x-sandbox-assumed` there. (The operations the assistant needs
// first, engagements and the audit chat, are curated in catalog/ and marked undocumented instead.)
import { area, op } from '../../catalog/shared.js';
import type { SandboxOperation } from './types.js';

const assume = (ops: SandboxOperation[]): SandboxOperation[] => ops.map((o) => ({ ...o, assumed: true }));

export const assumedOperations: readonly SandboxOperation[] = [
  ...assume(
    area('engagements', [
      op({
        name: 'get_client_company',
        title: 'Get client company',
        description: 'One client company of the workspace.',
        method: 'GET',
        path: '/client-companies/{company}',
        example: { company: '$demo.client_company' },
      }),
    ]),
  ),
  // The spec documents only the download of a compliance document; without a listing nobody could
  // learn a document's id.
  ...assume(
    area('privacy', [
      op({
        name: 'list_compliance_documents',
        title: 'List compliance documents',
        description: 'Compliance documents of the workspace (DPA, security whitepaper); download one with download_compliance_document.',
        method: 'GET',
        path: '/compliance-documents',
        paginated: true,
      }),
    ]),
  ),
];
