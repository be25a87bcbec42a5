// `demo` as a child process: the transcript walks the three jobs with each tool call, its arguments
// and a short result, follows the jobs with a progress bar, and exits 0; a list that is not whole says
// so and how to get the rest; --against walks a workspace read-only and sends it no write.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page } from '../../src/demo/walk.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { newcomerPath, runShell } from '../helpers/shell.js';

describe('demo', () => {
  it('walks the three jobs on the embedded sandbox and exits 0', async () => {
    const r = await runCli(['demo'], {}, 120_000);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    // Piped: plain text, no colour codes, and each progress step on its own line.
    expect(out).not.toContain('\u001b[');
    const order = [
      '1. Brief me on the engagement',
      '→ list_engagements',
      '→ engagement_overview',
      '2. Review the proposed findings',
      '→ list_findings',
      '→ get_finding',
      '→ call_operation {"operation":"preview_evidence"',
      '→ review_findings',
      '3. Regenerate the executive summary',
      '→ generate_deliverable_document',
      '→ create_export',
      'Done: the three jobs walked end to end.',
    ];
    const at = order.map((s) => out.indexOf(s));
    for (const [i, p] of at.entries()) expect(p, `${order[i]} in\n${out}`).toBeGreaterThanOrEqual(0);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(out).toMatch(/→ engagement_overview \{"engagement":"[0-9A-Z]{26}"\}/);
    // The list the review works from is the whole list the overview counts, and says so by its count.
    const counted = /✓ (\d+) findings: (?:.*, )?(\d+) proposed/.exec(out);
    const listed = /✓ (\d+) finding\(s\) listed, (\d+) of them proposed/.exec(out);
    expect(counted, out).not.toBeNull();
    expect(listed?.slice(1), out).toEqual(counted?.slice(1));
    expect(out).not.toContain('page cut');
    expect(out).toContain('✓ 2 validated, 0 failed');
    expect(out).toMatch(/\[#{24}\] 100% document generation succeeded/);
    expect(out).toMatch(/\[#{24}\] 100% export succeeded/);
    expect(out).toMatch(/✓ export succeeded: \S+\.pdf \(\d+ bytes\) saved to \S+\.pdf/);
  }, 130_000);

  it('says when a list was cut to fit the response budget, and the call that gets the rest', async () => {
    // The budget is in tokens: a page of 22 findings with four fields needs more than 600.
    const r = await runCli(['demo', '--no-color'], { WORKSPACE_RESPONSE_BUDGET: '600' }, 120_000);
    expect(r.code, r.stderr).toBe(0);
    const total = /✓ (\d+) findings: /.exec(r.stdout)?.[1];
    const listed =
      /✓ (\d+) of (\d+) finding\(s\) listed, \d+ of them proposed\n {4}! page cut to stay within the response budget \(WORKSPACE_RESPONSE_BUDGET\): (\d+) more left out\. For the rest, call list_findings again with cursor "([^"]+)", or ask for fewer fields\.\n/.exec(
        r.stdout,
      );
    expect(listed, r.stdout).not.toBeNull();
    const [shown, of, omitted] = (listed as RegExpExecArray).slice(1, 4).map(Number) as [number, number, number];
    expect(of).toBe(Number(total));
    expect(shown + omitted).toBe(of);
  }, 130_000);

  it('says when more records are on further pages, with the cursor to follow', async () => {
    // A real page from the server, as the demo reads it: list_findings with a limit below the count.
    const sb = await startSandbox({ port: 0, logger: () => {} });
    const client = new Client({ name: 'demo-page', version: '1' });
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ['--import', 'tsx', join(ROOT, 'src/cli.ts')],
          env: { PATH: process.env.PATH ?? '', WORKSPACE_URL: sb.url, WORKSPACE_TOKEN: sb.tokens.read, LOG_LEVEL: 'silent' },
        }),
      );
      const engagements = page(await client.callTool({ name: 'list_engagements', arguments: {} }), 'list_engagements');
      const engagement = String(engagements.items[0]?.id);
      const first = page(await client.callTool({ name: 'list_findings', arguments: { engagement, limit: 5, fields: ['id'] } }), 'list_findings');
      expect(first.items).toHaveLength(5);
      expect(first.count).toBe('5 (first page)');
      const cursor = /^more on the next page: call list_findings again with cursor "([^"]+)"\.$/.exec(first.rest ?? '')?.[1];
      expect(cursor, first.rest).toBeDefined();
      const second = page(await client.callTool({ name: 'list_findings', arguments: { engagement, limit: 5, fields: ['id'], cursor } }), 'list_findings');
      expect(second.items.map((f) => f.id)).not.toContain(first.items[0]?.id);
    } finally {
      await client.close();
      await sb.close();
    }
  });

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
      // The doctor it points at runs as printed, on the same workspace, and finds the refused token.
      const line = /^To see why, run: (.+)$/m.exec(r.stdout)?.[1];
      expect(line, r.stdout).toBeDefined();
      const doctor = await runShell(line as string, {
        cwd: ROOT,
        env: { PATH: newcomerPath(), HOME: process.env.HOME ?? '', LANG: 'C', WORKSPACE_TOKEN: 'pat_0000000000000000000000000000000000000000' },
      });
      expect(doctor.code, doctor.stdout).toBe(1);
      expect(doctor.stdout).toContain(`workspace ${sb.url}`);
      expect(doctor.stdout).toMatch(/^FAIL +Token +/m);
    }, 70_000);
  });
});
