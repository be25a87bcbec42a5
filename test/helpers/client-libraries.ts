// What every client-library test checks, in one place: the tools the server lists on a surface (the
// catalog and the sandbox's live description, as the server builds them), and one call for each of
// the three jobs the server is for: brief me on an engagement, review findings, draft a document.
import { sandboxOperations, toolListFor } from '../../bench/tokens.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';

/** The names a client must see on its first listing, in the server's order. */
export function expectedToolNames(toolsets: 'default' | 'all'): string[] {
  return toolListFor({ toolsets, readOnly: false }, sandboxOperations()).tools.map((t) => t.name);
}

export interface JobCall {
  job: string;
  tool: string;
  args: Record<string, unknown>;
  /** Text the answer must hold: it is about what was asked. */
  says: RegExp;
}

export const THREE_JOBS: readonly JobCall[] = [
  { job: 'brief me on an engagement', tool: 'engagement_overview', args: { engagement: ENGAGEMENT_AP }, says: /by_review_status/ },
  { job: 'review findings', tool: 'list_findings', args: { engagement: ENGAGEMENT_AP, limit: 5 }, says: /\breview_status\b/ },
  { job: 'draft a document', tool: 'document_context', args: { engagement: ENGAGEMENT_AP, kind: 'executive_summary' }, says: /executive_summary/ },
];
