// `demo` as a child process: the transcript walks the three jobs with each tool call, its arguments
// and a short result, follows the jobs with a progress bar, and exits 0; --against walks a workspace
// read-only and sends it no write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from './cli.js';

describe('demo', () => {
  it('walks the three jobs on the embedded sandbox and exits 0', async () => {
    const r = await runCli(['demo'], {}, 120_000);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    // Piped: plain text, no colour codes, and each progress step on its own line.
    expect(out).not.toContain('\u001b[');
    const order = ['1. Brief me on the engagement', '→ list_engagements', '→ engagement_overview', '2. Review the proposed findings', '→ list_findings', '→ get_finding', '→ call_operation {"operation":"preview_evidence"', '→ review_findings', '3. Regenerate the executive summary', '→ generate_deliverable_document', '→ create_export', 'Done: the three jobs walked end to end.'];
    const at = order.map((s) => out.indexOf(s));
    for (const [i, p] of at.entries()) expect(p, `${order[i]} in\n${out}`).toBeGreaterThanOrEqual(0);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(out).toMatch(/→ engagement_overview \{"engagement":"[0-9A-Z]{26}"\}/);
    expect(out).toMatch(/✓ \d+ findings: \d+ validated, \d+ proposed/);
    expect(out).toContain('✓ 2 validated, 0 failed');
    expect(out).toMatch(/\[#{24}\] 100% document generation succeeded/);
    expect(out).toMatch(/\[#{24}\] 100% export succeeded/);
    expect(out).toMatch(/✓ export succeeded: \S+\.pdf \(\d+ bytes\) saved to \S+\.pdf/);
  }, 130_000);

  describe('--against URL', () => {
    let sb: SandboxHandle;
    beforeAll(async () => {
      sb = await startSandbox({ port: 0, logger: () => {} });
    });
    afterAll(() => sb.close());

    it('walks the same jobs read-only, says what it skipped, and sends no write', async () => {
      sb.clearRequests();
      const r = await runCli(['demo', '--against', sb.url, '--no-color'], { WORKSPACE_TOKEN: sb.tokens.read }, 120_000);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`Workspace ${sb.url}, as WORKSPACE_TOKEN. READ-ONLY`);
      expect(r.stdout).toMatch(/– read-only: would call review_findings to validate [0-9A-Z]{26} and [0-9A-Z]{26}/);
      expect(r.stdout).toContain('– read-only: would call generate_deliverable_document');
      expect(r.stdout).toContain('Done: the three jobs walked read-only.');
      const api = sb.requests().filter((q) => q.path.startsWith('/api/v1/'));
      expect(api.length).toBeGreaterThan(5);
      expect(api.filter((q) => q.method !== 'GET')).toEqual([]);
    }, 130_000);

    it('stops with exit 1 and points at doctor when the workspace refuses the token', async () => {
      const r = await runCli(['demo', '--against', sb.url], { WORKSPACE_TOKEN: 'pat_0000000000000000000000000000000000000000' }, 60_000);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/Demo stopped: list_engagements failed/);
      expect(r.stdout).toContain('workspace-consulting-mcp doctor');
    }, 70_000);
  });
});
