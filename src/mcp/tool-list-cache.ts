// The answers to `initialize` and `tools/list`, computed at build time by the real server
// (src/mcp/tool-list-build.ts writes dist/tools-list.json) so that a fresh process can give them
// before zod, the SDK and the 141 catalog schemas are loaded: that import costs most of the startup.
// Runtime side: node built-ins and types only. A missing or stale file just means no early answers.
import { readFileSync, statSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Toolset } from '../operation.js';
import type { EarlyAnswers } from './early-stdio.js';

/** Written by the build next to dist/src; the modules it describes, to notice a stale file. */
export const TOOL_LIST_FILE = new URL('../../tools-list.json', import.meta.url);
const DESCRIBED_MODULES = [new URL('./server.js', import.meta.url), new URL('../../tools/index.js', import.meta.url)];

/** What the server answers to `initialize`, minus the negotiated protocol version. */
export interface InitializeAnswer {
  capabilities: Record<string, unknown>;
  serverInfo: Record<string, unknown>;
  instructions?: string;
}

export interface ToolListCache {
  /** The server version that wrote the file: a file left by another build is ignored. */
  serverVersion: string;
  /** The SDK's negotiation: the requested version if supported, else the latest. */
  protocolVersions: string[];
  latestProtocolVersion: string;
  /** The answers to `initialize` and `tools/list` by policy key (see policyKey). */
  answers: Record<string, { initialize: InitializeAnswer; tools: Tool[] }>;
  /** The area of each catalog tool, to answer for any list of toolsets from the `all` list. */
  toolsets: Record<string, Toolset>;
}

/** The parts of the session policy that change tools/list. */
export interface ListPolicy {
  toolsets: Toolset[] | 'all' | 'default';
  readOnly: boolean;
}

export function policyKey(p: { toolsets: 'all' | 'default'; readOnly: boolean }): string {
  return `${p.toolsets}${p.readOnly ? ':read-only' : ''}`;
}

/** The precomputed policies; any explicit list of toolsets is derived from `all`. */
export const PRECOMPUTED_POLICIES: ReadonlyArray<{ toolsets: 'all' | 'default'; readOnly: boolean }> = [
  { toolsets: 'all', readOnly: false },
  { toolsets: 'all', readOnly: true },
  { toolsets: 'default', readOnly: false },
  { toolsets: 'default', readOnly: true },
];

/**
 * The cache file, if it was written by this server version after the code it describes: a file left
 * by an earlier build (tsc run alone) is older than the modules and is ignored.
 */
export function loadToolListCache(file: URL, serverVersion: string, sources: URL[] = []): ToolListCache | undefined {
  try {
    const written = statSync(file).mtimeMs;
    if (sources.some((src) => statSync(src).mtimeMs > written)) return undefined;
    const cache = JSON.parse(readFileSync(file, 'utf8')) as ToolListCache;
    return cache.serverVersion === serverVersion ? cache : undefined;
  } catch {
    return undefined;
  }
}

/** The early answers for this policy, or undefined when the cache cannot vouch for them. */
export function cachedAnswers(cache: ToolListCache, policy: ListPolicy): { initialize: InitializeAnswer; tools: Tool[] } | undefined {
  if (!Array.isArray(policy.toolsets)) return cache.answers[policyKey({ toolsets: policy.toolsets, readOnly: policy.readOnly })];
  const all = cache.answers[policyKey({ toolsets: 'all', readOnly: policy.readOnly })];
  if (!all) return undefined;
  const wanted = new Set<string>(policy.toolsets);
  const out: Tool[] = [];
  for (const tool of all.tools) {
    const area = cache.toolsets[tool.name];
    // A tool the catalog does not know (generated from a live description) cannot be placed: let
    // the real server answer.
    if (area === undefined) return undefined;
    if (wanted.has(area)) out.push(tool);
  }
  return { initialize: all.initialize, tools: out };
}

/** The initialize result the SDK's Server would give for this requested protocol version. */
export function initializeResult(cache: ToolListCache, answer: InitializeAnswer, requestedVersion: unknown): Record<string, unknown> {
  const protocolVersion =
    typeof requestedVersion === 'string' && cache.protocolVersions.includes(requestedVersion) ? requestedVersion : cache.latestProtocolVersion;
  return { protocolVersion, ...answer };
}

/** The early answers of EarlyStdioTransport for this policy, when the built cache has them. */
export function earlyAnswersFor(policy: ListPolicy, serverVersion: string): EarlyAnswers | undefined {
  const cache = loadToolListCache(TOOL_LIST_FILE, serverVersion, DESCRIBED_MODULES);
  const answers = cache && cachedAnswers(cache, policy);
  if (!cache || !answers) return undefined;
  return {
    initialize: (params) => initializeResult(cache, answers.initialize, (params as { protocolVersion?: unknown } | undefined)?.protocolVersion),
    tools: answers.tools,
  };
}
