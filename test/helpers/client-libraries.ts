// What every client-library test checks, in one place: the tools the server lists on a surface (the
// catalog and the sandbox's live description, as the server builds them), and one call for each of
// the three jobs the server is for: brief me on an engagement, review findings, draft a document.
import { afterAll, beforeAll } from 'vitest';
import { sandboxOperations, toolListFor } from '../../bench/tokens.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { UNKNOWN_ID } from './error-calls.js';
import { type StdioServer, stdioServer } from './stdio-server.js';

export interface LibraryServers {
  readonly sandbox: SandboxHandle;
  /**
   * A stdio server on the sandbox listing `toolsets`, and what `connect` makes of it with the
   * library (closed before the server when the file ends, even if it failed half way).
   */
  start<C extends { close(): Promise<unknown> }>(toolsets: 'default' | 'all', connect: (server: StdioServer) => Promise<C>): Promise<C>;
}

/** The sandbox for one library's test file, and the servers its tests start, all stopped when the file ends. */
export function useLibraryServers(): LibraryServers {
  let sandbox: SandboxHandle | undefined;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, rateLimit: false });
  });
  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
    await sandbox?.close();
  });
  const started = () => {
    if (!sandbox) throw new Error('the sandbox is not started: use it inside a test');
    return sandbox;
  };
  return {
    get sandbox() {
      return started();
    },
    async start(toolsets, connect) {
      const server = await stdioServer(started(), { WORKSPACE_TOOLSETS: toolsets });
      let client: { close(): Promise<unknown> } | undefined;
      closers.push(async () => {
        await client?.close();
        await server.cleanup();
      });
      const made = await connect(server);
      client = made;
      return made;
    },
  };
}

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

/**
 * Calls a model gets wrong in ways the listed schema cannot catch (the client validates what it can
 * before sending): an engagement id that names nothing, and one decision per finding given twice. The
 * answer is an error whose text must reach the model.
 */
export const WRONG_CALLS: readonly JobCall[] = [
  {
    job: 'an engagement that does not exist',
    tool: 'list_findings',
    args: { engagement: UNKNOWN_ID },
    says: new RegExp(`not found[\\s\\S]*engagement "${UNKNOWN_ID}"`),
  },
  {
    job: 'two decisions for one finding',
    tool: 'review_findings',
    args: {
      engagement: ENGAGEMENT_AP,
      reviews: [
        { finding: UNKNOWN_ID, review_status: 'validated' },
        { finding: UNKNOWN_ID, review_status: 'rejected' },
      ],
    },
    says: /- reviews: give one decision per finding/,
  },
];
