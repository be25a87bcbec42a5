// The apps' tools and views over both protocol eras and both transports: the server declares the
// MCP Apps extension, the three tools name their ui:// view and declare an output schema their
// answers conform to (the SDK client validates it), and each view reads as one self-contained HTML
// resource of the apps' mime type whose CSP names no domain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAppsBuilt } from '../../../scripts/build-apps.js';
import { APP_MIME_TYPE, UI_EXTENSION, VIEWS } from '../../../src/mcp/apps/views.js';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { connectHttp, connectStdio, ERAS, type EraClient, type ServerHome, serverHome, startHttpServer, WIRES } from '../../helpers/eras.js';
import type { HttpChild } from '../../helpers/spawn-http.js';

let sandbox: SandboxHandle;
let home: ServerHome;
let http: HttpChild;

beforeAll(async () => {
  await ensureAppsBuilt();
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  home = await serverHome(sandbox, { WORKSPACE_TOOLSETS: 'default' });
  http = await startHttpServer(home);
}, 120_000);

afterAll(async () => {
  await http?.stop();
  await sandbox?.close();
  await home?.cleanup();
});

const APP_TOOLS = {
  review_board: VIEWS.review_board.uri,
  engagement_overview: VIEWS.engagement_dashboard.uri,
  preview_deliverable_document: VIEWS.document_preview.uri,
};

for (const era of ERAS) {
  for (const wire of WIRES) {
    describe(`${era} era over ${wire}`, () => {
      let c: EraClient;
      beforeAll(async () => {
        c = wire === 'stdio' ? await connectStdio(era, home) : await connectHttp(era, http);
      }, 60_000);
      afterAll(async () => {
        await c?.close();
      });

      it('declares the MCP Apps extension and lists the three tools with their view and an output schema', async () => {
        const ext = (c.client.getServerCapabilities() as { extensions?: Record<string, { mimeTypes?: string[] }> } | undefined)?.extensions;
        expect(ext?.[UI_EXTENSION]?.mimeTypes).toContain(APP_MIME_TYPE);
        const { tools } = await c.client.listTools();
        for (const [name, uri] of Object.entries(APP_TOOLS)) {
          const tool = tools.find((t) => t.name === name);
          expect(tool, name).toBeDefined();
          expect((tool?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri).toBe(uri);
          expect(tool?.outputSchema?.type).toBe('object');
        }
      });

      it('review_board answers the proposed findings with their evidences, and the text the model reads', async () => {
        const r = await c.client.callTool({ name: 'review_board', arguments: { engagement: ENGAGEMENT_AP } });
        expect(r.isError).toBeFalsy();
        const sc = r.structuredContent as { findings: { review_status: string; evidences: { excerpt: string }[] }[]; total: number; can_write: boolean };
        expect(sc.findings.length).toBe(sc.total);
        expect(sc.findings.length).toBeGreaterThan(0);
        for (const f of sc.findings) expect(f.review_status).toBe('proposed');
        expect(sc.findings.every((f) => f.evidences.length > 0 && f.evidences.every((e) => e.excerpt.length > 0))).toBe(true);
        expect(sc.can_write).toBe(true);
        const text = (r.content as { type: string; text: string }[])[0]?.text ?? '';
        expect(text).toContain(`${sc.total} proposed findings`);
      });

      it('reads each view as one self-contained HTML resource whose CSP names no domain', async () => {
        for (const view of Object.values(VIEWS)) {
          const res = await c.client.readResource({ uri: view.uri });
          const content = res.contents[0] as { mimeType?: string; text?: string; _meta?: { ui?: { csp?: Record<string, string[]> } } };
          expect(content.mimeType).toBe(APP_MIME_TYPE);
          expect(content.text).toMatch(/^<!doctype html>/i);
          expect(content.text).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?https?:/i);
          const csp = content._meta?.ui?.csp ?? {};
          expect(Object.values(csp).flat()).toEqual([]);
        }
      });
    });
  }
}
