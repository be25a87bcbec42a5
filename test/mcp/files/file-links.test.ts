// Links to a member's files on a shared server (src/mcp/files/file-links.ts) and the file answers that use
// them (src/mcp/render/member-file.ts): a link opens for its member only, until its time is up, and
// the store holds nothing that opens it; a file answer is embedded when small, linked when large, and
// a large one is not read whole to find that out.
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../../catalog/index.js';
import { ApiClient } from '../../../src/api/client.js';
import { RateLimiter } from '../../../src/api/limiter.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { FileLinks } from '../../../src/mcp/files/file-links.js';
import { OperationSet } from '../../../src/mcp/operations/operation-set.js';
import { ToolRegistry } from '../../../src/mcp/operations/registry.js';
import { Pipeline } from '../../../src/mcp/pipeline/pipeline.js';
import { EMBED_MAX_BYTES, renderMemberFile } from '../../../src/mcp/render/member-file.js';
import { ENGAGEMENT_AP, SESSION_AP_CLERK } from '../../../src/sandbox/data/ids.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { MemoryStore } from '../../../src/store/memory.js';
import { RecordingStore } from '../../remote/helpers.js';

const BASE = 'https://mcp.acme.example/files/';
const download = catalog.find((op) => op.name === 'download_artifact')!;
const args = { engagement: '01M1D4MS5080000000GGT70VZH', artifact: '01M8CJH9D9WA4WVYFF489JR338' };

function linksAt(clock: { now: number }, store = new MemoryStore()) {
  return new FileLinks({ store, base: BASE, ttlSeconds: 600, now: () => clock.now });
}

/** A body that counts what was read from it. */
function body(bytes: Buffer, chunk = 64 * 1024) {
  const seen = { read: 0, destroyed: false };
  let at = 0;
  const stream = new Readable({
    read() {
      if (at >= bytes.length) return void this.push(null);
      const c = bytes.subarray(at, at + chunk);
      at += c.length;
      seen.read = at;
      this.push(c);
    },
    destroy(err, cb) {
      seen.destroyed = true;
      cb(err);
    },
  });
  return { stream, seen };
}

describe('file links', () => {
  it('open for their member only, until they expire; the store keeps no link id', async () => {
    const clock = { now: 1_000_000 };
    const store = new RecordingStore();
    const links = linksAt(clock, store as unknown as MemoryStore);
    const { url, expiresAt } = await links
      .forMember('member:A')
      .issue({ op: 'download_artifact', args, name: 'x.bin', contentType: 'application/octet-stream' });
    expect(url.startsWith(BASE)).toBe(true);
    expect(expiresAt).toBe(clock.now + 600_000);
    const id = url.slice(BASE.length);
    expect(store.text()).not.toContain(id);
    expect(await links.open(id, 'member:A')).toMatchObject({ op: 'download_artifact', args, member: 'member:A' });
    expect(await links.open(id, 'member:B')).toBeUndefined();
    expect(await links.open(`${id.slice(0, -1)}x`, 'member:A')).toBeUndefined();
    expect(await links.open('../../etc/passwd', 'member:A')).toBeUndefined();
    clock.now = expiresAt;
    expect(await links.open(id, 'member:A')).toBeUndefined();
  });

  it('the store reads as nothing without the link: no file name, id or member in it, and an altered record opens nothing', async () => {
    const clock = { now: 1_000_000 };
    const store = new RecordingStore();
    const links = linksAt(clock, store as unknown as MemoryStore);
    const name = 'Plan social Berthier 2027.pdf';
    const { url } = await links.forMember('member:01M8CMR4802SAKBEJEA09TSMDE').issue({ op: 'download_artifact', args, name, contentType: 'application/pdf' });
    const id = url.slice(BASE.length);
    const stored = store.text();
    for (const clear of [name, 'Berthier', args.engagement, args.artifact, '01M8CMR4802SAKBEJEA09TSMDE', 'download_artifact', 'application/pdf']) {
      expect(stored).not.toContain(clear);
    }
    expect(await links.open(id, 'member:01M8CMR4802SAKBEJEA09TSMDE')).toMatchObject({ name, args });
    // Another link's id, or a record changed in the store, opens nothing.
    const other = (await links.forMember('member:B').issue({ op: 'download_artifact', args, name: 'b.pdf', contentType: 'application/pdf' })).url.slice(
      BASE.length,
    );
    expect(await links.open(other, 'member:01M8CMR4802SAKBEJEA09TSMDE')).toBeUndefined();
    const [first] = store.written as [{ key: string; value: string }];
    const flipped = Buffer.from(first.value, 'base64url');
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 1;
    await store.inner.set(first.key, flipped.toString('base64url'));
    expect(await links.open(id, 'member:01M8CMR4802SAKBEJEA09TSMDE')).toBeUndefined();
  });
});

describe('file answers on a shared server', () => {
  const links = () => linksAt({ now: Date.now() }).forMember('member:A');

  it('a small binary file is embedded as a resource, a small image as image content, nothing linked', async () => {
    const pdf = Buffer.from('%PDF-1.7 small');
    const r = await renderMemberFile(download, args, { contentType: 'application/pdf', filename: 'a.pdf', size: pdf.length, body: body(pdf).stream }, links());
    expect(r.content).toEqual([
      { type: 'text', text: `a.pdf (${pdf.length} bytes, application/pdf) is in this result.` },
      { type: 'resource', resource: { uri: expect.stringMatching(/^workspace:\/\//), mimeType: 'application/pdf', blob: pdf.toString('base64') } },
    ]);
    expect(r.structuredContent).toEqual({ file: { name: 'a.pdf', content_type: 'application/pdf', size: pdf.length, embedded: true } });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const i = await renderMemberFile(download, args, { contentType: 'image/png', filename: 'p.png', body: body(png).stream }, links());
    expect(i.content).toEqual([
      { type: 'text', text: `p.png (${png.length} bytes, image/png) is in this result.` },
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
    ]);
  });

  it(`a file over ${EMBED_MAX_BYTES} bytes whose size is known is linked without reading its body`, async () => {
    const big = Buffer.alloc(EMBED_MAX_BYTES + 1, 7);
    const { stream, seen } = body(big);
    const r = await renderMemberFile(download, args, { contentType: 'application/zip', filename: 'big.zip', size: big.length, body: stream }, links());
    expect(seen.read).toBeLessThanOrEqual(64 * 1024);
    expect(seen.destroyed).toBe(true);
    expect(r.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /^big\.zip \(\d+ bytes, application\/zip\) is too large to embed: GET https:\/\/mcp\.acme\.example\/files\/\S+ with your access token/,
        ),
      },
      expect.objectContaining({ type: 'resource_link', uri: expect.stringMatching(/^https:\/\/mcp\.acme\.example\/files\//), name: 'big.zip' }),
    ]);
    expect(r.structuredContent?.file).toMatchObject({ size: big.length, url: expect.any(String), expires_at: expect.any(String) });
  });

  it('a file of unknown size is read only up to the limit, then linked', async () => {
    const big = Buffer.alloc(EMBED_MAX_BYTES * 3, 7);
    const { stream, seen } = body(big);
    const r = await renderMemberFile(download, args, { contentType: 'application/octet-stream', filename: 'big.bin', body: stream }, links());
    expect(seen.read).toBeLessThan(big.length);
    expect(r.content.map((c) => c.type)).toEqual(['text', 'resource_link']);
  });

  it('a text file over the response budget is linked with its beginning shown', async () => {
    const text = 'line of a long export\n'.repeat(3000);
    const r = await renderMemberFile(download, args, { contentType: 'text/csv', filename: 'e.csv', body: body(Buffer.from(text)).stream }, links(), 500);
    expect(r.content.map((c) => c.type)).toEqual(['text', 'resource_link', 'text']);
    expect((r.content[0] as { text: string }).text).toMatch(/Its beginning follows\.$/);
    const shown = (r.content[2] as { text: string }).text;
    expect(shown.startsWith('line of a long export')).toBe(true);
    expect(shown).toMatch(/the rest is in the file at the link/);
    expect(shown.length).toBeLessThan(text.length);
  });
});

describe('the pipeline on a shared server', () => {
  it('answers an export followed to its file and a recording without writing anything, the recording as a link for its member', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'wcm-remote-pipeline-'));
    await writeFile(join(scratch, 'blocker'), 'a file, not a folder');
    const sandbox = await startSandbox({ port: 0, rateLimit: false, timeScale: 0.01, logger: () => {} });
    const { logger } = createLogger('silent');
    const client = new ApiClient({ baseUrl: sandbox.api, token: () => sandbox.tokens.write, limiter: new RateLimiter(), logger });
    try {
      const config = loadConfig(
        {
          WORKSPACE_URL: sandbox.url,
          WORKSPACE_DOWNLOAD_DIR: join(scratch, 'blocker', 'downloads'),
          WORKSPACE_JOB_WAIT_SECONDS: '20',
          WORKSPACE_TOOLSETS: 'all',
        },
        ['--remote'],
      );
      const store = new MemoryStore();
      const links = new FileLinks({ store, base: BASE, ttlSeconds: 600 });
      const registry = new ToolRegistry(new OperationSet({ catalog, logger, live: false }), { toolsets: 'all', readOnly: false });
      const pipeline = new Pipeline({ config, client, logger, registry, files: links.forMember('member:A') });
      const ctx = { signal: new AbortController().signal };

      const exported = await pipeline.call('create_export', { engagement: ENGAGEMENT_AP, kind: 'findings_csv' }, ctx);
      expect(exported.isError, JSON.stringify(exported.content)).toBeFalsy();
      expect((exported.structuredContent as Record<string, unknown>).file).toMatchObject({ content_type: expect.stringMatching(/csv/) });

      const session = (await client.request({ method: 'GET', path: '/sessions/{session}', pathParams: { session: SESSION_AP_CLERK } })).data as {
        recording_ids: string[];
      };
      const recording = await pipeline.call('get_session_recording', { session: SESSION_AP_CLERK, recording: session.recording_ids[0] }, ctx);
      expect(recording.isError, JSON.stringify(recording.content)).toBeFalsy();
      const url = (recording.structuredContent as { file: { url: string } }).file.url;
      expect(await links.open(url.slice(BASE.length), 'member:A')).toMatchObject({ op: 'get_session_recording', args: { session: SESSION_AP_CLERK } });
      expect(await links.open(url.slice(BASE.length), 'member:B')).toBeUndefined();

      const all = JSON.stringify([exported, recording]);
      expect(all).not.toContain('file://');
      expect(all).not.toContain(scratch);
      expect(await readdir(scratch)).toEqual(['blocker']);
    } finally {
      await client.close();
      await sandbox.close();
    }
  }, 60_000);
});
