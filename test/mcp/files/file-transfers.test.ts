// Uploads and downloads through the tools, over HTTP: what is refused before any request (a file
// over the limit, a path outside the roots, a type that lies, an external source that fails the
// workspace's schema, a traversal in a server file name), and what goes through.

import { mkdtemp, open, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, Progress } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { catalog } from '../../../catalog/index.js';
import { ApiClient } from '../../../src/api/client.js';
import { RateLimiter } from '../../../src/api/limiter.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { OperationSet } from '../../../src/mcp/operations/operation-set.js';
import { ToolRegistry } from '../../../src/mcp/operations/registry.js';
import { Pipeline } from '../../../src/mcp/pipeline/pipeline.js';
import { ENGAGEMENT_AP, SESSION_AP_CLERK } from '../../../src/sandbox/data/ids.js';
import { type Stack, startStack, textOf } from '../../helpers/stack.js';

type Json = Record<string, any>;
let stack: Stack;
let root: string;
let outside: string;

const validSource = {
  format_version: '1',
  source: { name: 'Tickets', system: 'Zendesk' },
  items: [{ external_id: 'T-1', title: 'Invoice typed twice', body: 'The clerk re-enters each invoice.' }],
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'wcm-root-'));
  outside = await mkdtemp(join(tmpdir(), 'wcm-outside-'));
  stack = await startStack({ env: { WORKSPACE_UPLOAD_DIRS: root } });
});
afterAll(() => stack.close());
beforeEach(() => stack.sandbox.clearRequests());

const sent = () => stack.sandbox.requests().filter((q) => q.method !== 'GET');
const upload = (args: Json) => stack.call('upload_artifact', { engagement: ENGAGEMENT_AP, ...args });
const uploadSource = (file: Json) => stack.call('upload_external_source', { engagement: ENGAGEMENT_AP, name: 'Tickets', file });

describe('uploads refused before any request', () => {
  it('a file over the spec limit (25600 KiB for an artifact)', async () => {
    const big = join(root, 'big.pdf');
    const fh = await open(big, 'w');
    await fh.truncate(25600 * 1024 + 1); // sparse: the size is what is checked
    await fh.close();
    const r = await upload({ file: { path: big } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/nothing was sent[\s\S]*file\.path: .*big\.pdf is 26214401 bytes, over the 25600 KiB limit/);
    expect(stack.sandbox.requests()).toHaveLength(0);
  });

  it('a path outside the client roots and the upload folders', async () => {
    const secret = join(outside, 'notes.txt');
    await writeFile(secret, 'private');
    const r = await upload({ file: { path: secret } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(`${secret} is outside the folders this server may read`);
    expect(stack.sandbox.requests()).toHaveLength(0);
  });

  it('content that is not the type it claims', async () => {
    const fake = join(root, 'report.pdf');
    await writeFile(fake, 'just text, not a PDF');
    const r = await upload({ file: { path: fake } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/file\.path: the content is declared application\/pdf but is not a PDF/);
    const r2 = await upload({ file: { base64: Buffer.from('hello').toString('base64'), filename: 'pic.png' } });
    expect(textOf(r2)).toMatch(/file\.base64: the content is declared image\/png but is not a PNG/);
    expect(stack.sandbox.requests()).toHaveLength(0);
  });

  it('an external source that fails the schema, every mismatch named; only the schema was read', async () => {
    const bad = { format_version: '1', source: { name: '', extra: true }, items: [{ external_id: 'A', title: 7, body: 'x' }], owner: 'me' };
    const r = await uploadSource({ text: JSON.stringify(bad) });
    expect(r.isError).toBe(true);
    const t = textOf(r);
    expect(t).toContain('does not match the external-source format 1');
    for (const field of ['source.name', 'source.system', 'source.extra: unknown field', 'items.0.title', 'owner: unknown field']) expect(t).toContain(field);
    expect(sent()).toHaveLength(0);
    expect(stack.sandbox.requests().map((q) => q.template)).toEqual(['/sources/schema/external-source/{version}']);
  });

  it('an external source that is not JSON, or names an unknown format version', async () => {
    const r = await uploadSource({ text: '{not json' });
    expect(textOf(r)).toMatch(/an external source must be a JSON file/);
    const r2 = await uploadSource({ text: JSON.stringify({ ...validSource, format_version: '9' }) });
    expect(textOf(r2)).toMatch(/format_version "9" is not a format this workspace knows/);
    expect(sent()).toHaveLength(0);
  });

  it('a traversal in a media path (a server file name) is refused before any request', async () => {
    const r = await stack.call('get_media', { disk: 'frames', path: 'a/../../secrets.png' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/nothing was sent[\s\S]*path/);
    expect(stack.sandbox.requests()).toHaveLength(0);
  });
});

describe('uploads that go through', () => {
  it('an artifact from a path inside the upload folder, streamed as multipart', async () => {
    const doc = join(root, 'procedure.md');
    const text = '# Invoice procedure\n\nEvery invoice is typed twice.\n';
    await writeFile(doc, text);
    const r = await upload({ file: { path: doc } });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ filename: 'procedure.md', size: text.length, status: 'processed' });
    const post = sent()[0]!;
    expect(post.body).toMatchObject({ files: { file: { filename: 'procedure.md', size: text.length } } });
  });

  it('a valid external source, checked then uploaded', async () => {
    const path = join(root, 'tickets.json');
    await writeFile(path, JSON.stringify(validSource));
    const r = await uploadSource({ path });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ item_count: 1, system: 'Zendesk' });
  });
});

describe('downloads', () => {
  let fake: Server;
  let fakeUrl: string;
  beforeAll(async () => {
    // A workspace whose file names try to escape the download folder.
    fake = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="../../escape.txt"' });
      res.end(`served ${req.url}`);
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => fake.close(() => r())));

  it('a traversal in the server file name is saved under its base name inside the download folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wcm-dl-'));
    const config = loadConfig({ WORKSPACE_URL: fakeUrl, WORKSPACE_TOKEN: 'pat_0123456789abcdef', WORKSPACE_DOWNLOAD_DIR: join(dir, 'inner') });
    const { logger } = createLogger('silent', () => {});
    const client = new ApiClient({ baseUrl: `${fakeUrl}/api/v1`, token: () => 'pat_0123456789abcdef', limiter: new RateLimiter(), logger });
    const registry = new ToolRegistry(new OperationSet({ catalog, logger, live: false }), { toolsets: 'all', readOnly: false });
    const pipeline = new Pipeline({ config, client, logger, registry });
    const r = await pipeline.call('download_artifact', { engagement: ENGAGEMENT_AP, artifact: ENGAGEMENT_AP }, { signal: new AbortController().signal });
    await client.close();
    expect((r.structuredContent as Json).file).toMatchObject({ name: 'escape.txt', path: join(dir, 'inner', 'escape.txt') });
    expect(await readdir(dir)).toEqual(['inner']);
    expect(await readFile(join(dir, 'inner', 'escape.txt'), 'utf8')).toMatch(/^served \/api\/v1\/engagements\//);
  });

  it('a recording streams to disk with progress notifications in order', async () => {
    const session = (await stack.api.request({ method: 'GET', path: '/sessions/{session}', pathParams: { session: SESSION_AP_CLERK } })).data as Json;
    const recording = (session.recording_ids as string[])[0]!;
    const seen: Progress[] = [];
    const r = (await stack.client.callTool(
      { name: 'get_session_recording', arguments: { session: SESSION_AP_CLERK, recording } },
      { onprogress: (p: Progress) => seen.push(p) },
    )) as CallToolResult;
    const file = (r.structuredContent as Json).file as Json;
    expect(file.content_type).toMatch(/audio\/wav/);
    const head = Buffer.alloc(12);
    const fh = await open(file.path, 'r');
    await fh.read(head, 0, 12, 0);
    await fh.close();
    expect(head.subarray(0, 4).toString()).toBe('RIFF');
    expect(head.subarray(8, 12).toString()).toBe('WAVE');
    expect(seen.length).toBeGreaterThan(10);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    expect(seen.at(-1)).toMatchObject({ progress: file.size, total: file.size });
    // Where it is, and the link: a recording is never inlined.
    expect(r.content.map((c) => c.type)).toEqual(['text', 'resource_link']);
    expect(r.content[0]).toEqual({ type: 'text', text: `Saved ${file.name} (${file.size} bytes, audio/wav) to ${file.path}.` });
  });
});
