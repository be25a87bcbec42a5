// Operations the spec names without listing them ("engagement listing", "asking the audit chat a
// question", polling one job). The sandbox serves them so the MCP server can find them through
// openapi.json, as it would on a live workspace; they are marked `x-sandbox-assumed` there and are
// deliberately NOT in tools/: the curated catalog holds only what the spec documents.
import { z } from 'zod';
import { LOCALES, area, id, nullableId, op } from '../../tools/shared.js';
import type { SandboxOperation } from './types.js';

const isoDate = () => z.iso.date();

const assume = (ops: SandboxOperation[]): SandboxOperation[] => ops.map((o) => ({ ...o, assumed: true }));

export const assumedOperations: readonly SandboxOperation[] = [
  ...assume(
    area('engagements', [
      op({
        name: 'list_engagements',
        title: 'List engagements',
        description: 'Engagements of the workspace, newest first. Use to find the engagement id every engagement-scoped operation needs.',
        method: 'GET',
        path: '/engagements',
        paginated: true,
      }),
      op({
        name: 'get_engagement',
        title: 'Get engagement',
        description: 'One engagement: client company, method, locale, dates, status and stage.',
        method: 'GET',
        path: '/engagements/{engagement}',
      }),
      op({
        name: 'create_engagement',
        title: 'Create engagement',
        description: 'Open an engagement for a client company, optionally with an interview method.',
        method: 'POST',
        path: '/engagements',
        destructive: false,
        fields: {
          client_company_id: id(),
          name: z.string().min(1).max(255),
          method_id: nullableId().optional(),
          locale: z.enum(LOCALES).optional(),
          starts_on: isoDate().nullable().optional(),
          ends_on: isoDate().nullable().optional(),
        },
      }),
      op({
        name: 'get_client_company',
        title: 'Get client company',
        description: 'One client company of the workspace.',
        method: 'GET',
        path: '/client-companies/{company}',
      }),
    ]),
  ),
  ...assume(
    area('chat', [
      op({
        name: 'ask_audit_chat',
        title: 'Ask the audit chat',
        description: 'Ask a question about an engagement; the answer cites the transcript passages it rests on. Changes nothing.',
        method: 'POST',
        path: '/engagements/{engagement}/chat/ask',
        // The spec: a read token may ask the audit chat a question.
        scope: 'read',
        destructive: false,
        fields: { question: z.string().min(1).max(2000), thread_id: nullableId().optional() },
      }),
    ]),
  ),
  ...assume(
    area('analysis', [
      op({
        name: 'get_analysis_run',
        title: 'Get analysis run',
        description: 'One analysis run with its status and progress: poll it after starting a run.',
        method: 'GET',
        path: '/engagements/{engagement}/analysis/runs/{run}',
      }),
    ]),
  ),
  ...assume(
    area('deliverables', [
      op({
        name: 'get_export',
        title: 'Get export',
        description: 'One export with its status and progress: poll it until it succeeded, then download it.',
        method: 'GET',
        path: '/engagements/{engagement}/exports/{export}',
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
