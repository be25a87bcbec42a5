// The quick tier of the tests (`npm run test:fast`, a name other programs rely on: docs/architecture.md, Tests): the catalog, argument
// reading, the pipeline, rendering, the limiter and the stores, each in process or over loopback
// (the sandbox on a port, Redis on a port), no child process, no browser, no install. `npm test` (what
// CI runs) runs the quick tier first, then the rest, each file once (`--project fast`, then
// `--project rest`: vitest.config.ts); `vitest run` alone runs both tiers together. The quick tier's
// files share a module graph per worker: they leave no process-wide state behind, and hold no fixed
// sleep (test/ci/fixed-sleeps.test.ts): an injected clock or an awaited event instead.
//
// Left to the rest: files that start processes (stdio servers, the CLI, Redis-backed workers, Caddy,
// Chromium, installs), and files that wait on real time windows no clock is injected into yet
// (test/mcp/limits.test.ts overloads a real minute window; test/mcp/tools/gateway-live.test.ts waits out
// the live description's bound).
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const FAST_TESTS = [
  // The catalog and the layout.
  'test/catalog/catalog.test.ts',
  'test/catalog/spec-constraints-*.test.ts',
  'test/catalog/every-operation.test.ts',
  'test/architecture/*.test.ts',
  'test/i18n.test.ts',
  'test/fs/directories.test.ts',
  'test/ci/tiers.test.ts',
  'test/ci/fixed-sleeps.test.ts',
  // Arguments, as models send them.
  'test/mcp/pipeline/arguments.test.ts',
  'test/mcp/pipeline/schema-portability.test.ts',
  'test/mcp/config.test.ts',
  'test/config/operator-settings.test.ts',
  'test/config/settings-table.test.ts',
  'test/install/dependencies.test.ts',
  'test/scripts/unused-exports.test.ts',
  // One of each HTTP helper: body reading, answers, the loopback rule.
  'test/net/*.test.ts',
  // The pipeline and what it serves: tools, gateway, workflows, jobs, files, resources, prompts.
  'test/mcp/pipeline/calls.test.ts',
  'test/mcp/tools/gateway.test.ts',
  'test/mcp/tools/surface.test.ts',
  'test/mcp/tools/surface-workflows.test.ts',
  'test/mcp/tool-results.test.ts',
  'test/mcp/result-shapes.test.ts',
  'test/mcp/read-results.test.ts',
  'test/mcp/tool-snapshots.test.ts',
  'test/mcp/pipeline/built-schemas.test.ts',
  'test/mcp/pipeline/lazy-inputs.test.ts',
  'test/mcp/pipeline/one-door.test.ts',
  'test/mcp/pipeline/confirmation-questions.test.ts',
  'test/mcp/operations/resources.test.ts',
  'test/mcp/server/prompts.test.ts',
  'test/mcp/retrieval.test.ts',
  'test/mcp/files/downloads.test.ts',
  'test/mcp/files/file-transfers.test.ts',
  'test/mcp/log.test.ts',
  'test/mcp/pipeline/jobs/*.test.ts',
  // Block edits, the apps' tools (not their views in a browser), search and code mode's signatures.
  'test/mcp/documents/block-edits.test.ts',
  'test/mcp/tools/edit-document-blocks.test.ts',
  'test/mcp/files/file-links.test.ts',
  'test/mcp/apps/app-tools.test.ts',
  'test/mcp/operations/search.test.ts',
  'test/mcp/scripts/signatures.test.ts',
  // The operator's metrics and audit trail, in process (the trail's Redis stream on loopback).
  'test/metrics/metrics.test.ts',
  'test/audit/trail.test.ts',
  'test/remote/audit-events.test.ts',
  // Rendering (job-cost.test.ts runs a bench script as a process: the rest).
  'test/mcp/render/budget.test.ts',
  'test/mcp/render/omissions.test.ts',
  'test/mcp/render/concise.test.ts',
  'test/mcp/render/list-tools.test.ts',
  'test/mcp/render/notation.test.ts',
  'test/mcp/render/response-format.test.ts',
  'test/mcp/render/tokens.test.ts',
  // The API client and its limiter.
  'test/api/*.test.ts',
  // The stores (Redis over loopback).
  'test/store/contract.test.ts',
  // The sandbox the rest stands on (main.test.ts and auto-consent-cli.test.ts start the CLI: the rest).
  'test/sandbox/handlers/*.test.ts',
  'test/sandbox/files.test.ts',
  'test/sandbox/malformed-requests.test.ts',
  'test/sandbox/me.test.ts',
  'test/sandbox/openapi.test.ts',
  'test/sandbox/pipeline.test.ts',
  'test/sandbox/ratelimit-faults.test.ts',
  'test/sandbox/router.test.ts',
  'test/sandbox/state.test.ts',
];

/** Every test file under `root`/test, relative to `root` with forward slashes. */
export function testFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.test.ts') ? [relative(root, p).split('\\').join('/')] : [];
    });
  return walk(join(root, 'test'));
}

/** A tier pattern as a regular expression (`*` within one path segment, as vitest's globs). */
export const tierPattern = (glob: string) => new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);

/** The quick tier's test files, of `all`. */
export const fastTestFiles = (all: string[]) => all.filter((f) => FAST_TESTS.some((g) => tierPattern(g).test(f)));
