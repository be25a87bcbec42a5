// What a member's file link and the apps' views give away on a shared server, attacked as a member
// would: two replicas of the real `serve --remote` on one real Redis behind the round-robin balancer.
// - A link's answer is a download, never a page of the public origin: attachment, a name that cannot
//   add a header, nosniff, no-store, whatever name and type the file was uploaded with; once the
//   member's sign-in is revoked it opens for no one, and the workspace is not asked.
// - A view (ui://) reads the same for every member on every replica and declares no domain; no
//   ui:// name, however made, reaches a file of the replica.
import type { CallToolResult } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAppsBuilt } from '../../scripts/build-apps.js';
import { VIEWS } from '../../src/mcp/apps/views.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { CLAIRE, MARC, remoteFixture } from './deployment.js';
import { revoke } from './helpers.js';

type Json = Record<string, unknown>;

const { deploy, signIn } = remoteFixture();
beforeAll(async () => {
  await ensureAppsBuilt();
}, 120_000);

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe("a member's file link", () => {
  it('answers a download, never a page: attachment under a name that adds no header, nosniff, no-store; revoked, it opens for no one', async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write');
    // An HTML page with a name made to break out of the header, past the embedding limit.
    const page = `<html><body><script>document.title = 'run on the public origin'</script>${'x'.repeat(1024 * 1024 + 10)}</body></html>`;
    const name = 'inv"oice; filename=evil.html\\..\\é.html';
    const up = (await claire.client.callTool({
      name: 'upload_artifact',
      arguments: { engagement: ENGAGEMENT_AP, file: { text: page, filename: name, content_type: 'text/html' } },
    })) as CallToolResult;
    expect(up.isError, text(up)).toBeFalsy();
    const linked = (await claire.client.callTool({
      name: 'download_artifact',
      arguments: { engagement: ENGAGEMENT_AP, artifact: (up.structuredContent as Json).id as string },
    })) as CallToolResult;
    expect(linked.isError, text(linked)).toBeFalsy();
    const url = ((linked.structuredContent as Json).file as { url: string }).url;
    const open = () => fetch(url, { headers: { authorization: `Bearer ${claire.token}` } });

    for (let i = 0; i < 2; i++) {
      const res = await open();
      expect(res.status).toBe(200);
      const disposition = res.headers.get('content-disposition') as string;
      // One attachment, one plain filename parameter (quoted, nothing unescaped inside) and its UTF-8 form.
      expect(disposition).toMatch(/^attachment; filename="[^"\\]*"; filename\*=UTF-8''[A-Za-z0-9%!'()*._~-]+$/);
      expect(disposition.match(/filename=/g)).toHaveLength(1);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      // Rendered in place all the same, it would run nothing and load nothing on the public origin.
      expect(res.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
      expect(await res.text()).toBe(page);
    }

    // Her sign-in ends (her client revokes it): the link opens for no one, and the workspace is not asked.
    const clientId = (claire.provider.clientInformation() as { client_id: string }).client_id;
    const revoked = await revoke(d.lb.url, clientId, claire.provider.stored?.refresh_token as string);
    expect(revoked.status).toBe(200);
    d.sandbox.clearRequests();
    for (let i = 0; i < 2; i++) {
      const res = await open();
      expect([401, 404]).toContain(res.status);
      await res.body?.cancel();
    }
    expect(d.sandbox.requests().filter((q) => q.template?.endsWith('/download'))).toEqual([]);
  }, 180_000);
});

describe('the views (ui://)', () => {
  it('read the same for every member on every replica, declare no domain, and no ui:// name reaches a file', async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write');
    const marc = await signIn(d, MARC, 'read');
    for (const view of Object.values(VIEWS)) {
      const seen = new Set<string>();
      // Twice each: the balancer takes turns, so each member reads from both replicas.
      for (const m of [claire, marc, claire, marc]) {
        const { contents } = await m.client.readResource({ uri: view.uri });
        expect(contents).toHaveLength(1);
        const [c] = contents as [{ uri: string; text?: string; _meta?: Json }];
        expect(c.uri).toBe(view.uri);
        expect(c._meta?.ui).toEqual({ csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true });
        seen.add(c.text as string);
      }
      expect(seen.size).toBe(1);
      const html = [...seen][0] as string;
      // Nothing of either member, nor of the replica, in the page.
      for (const leak of [claire.token, marc.token, 'claire', 'marc', d.lb.url, process.cwd()]) expect(html).not.toContain(leak);
    }

    const made = [
      'ui://workspace-consulting/../../../../etc/passwd',
      'ui://workspace-consulting/review-board/../../../package.json',
      'ui://workspace-consulting/%2e%2e/%2e%2e/package.json',
      'ui://workspace-consulting/review_board',
      'ui://workspace-consulting/review-board.html',
      'ui:///etc/passwd',
      'ui://../dist/apps/review_board.html',
      `ui://workspace-consulting/${'a/'.repeat(2000)}`,
    ];
    for (const uri of made) {
      const err = await claire.client.readResource({ uri }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err, uri).toBeInstanceOf(Error);
      const message = (err as Error).message;
      expect(message).toMatch(/not found|Unknown view|Invalid params/i);
      for (const leak of ['root:', '"devDependencies"', '<html', process.cwd()]) expect(message, uri).not.toContain(leak);
      expect(message.length).toBeLessThan(2_000);
    }
  }, 180_000);
});
