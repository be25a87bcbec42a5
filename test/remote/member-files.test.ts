// Files in `serve --remote`: nothing of the replica's disk is read or written for a member. Two
// replicas of the real CLI on one real Redis behind the round-robin balancer, a sandbox whose members
// sign in through its own pages, a canary file outside every folder the replicas are given, and a
// download folder no one can write to (its parent is a regular file: even root cannot create it).
// - A 2025-11-25 client declaring roots and answering roots/list with file:/// cannot have
//   upload_artifact read the canary, directly or through call_operation; the replicas never ask it
//   for its roots. WORKSPACE_UPLOAD_DIRS (the local setting) opens nothing in remote mode either.
// - An upload by content and a download work end to end for the member who asked: a small file comes
//   back embedded in the result, a large one as a link on the public URL that this member opens on
//   either replica, streamed from the workspace, while another member and no token get 404.
// - The link expires.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { keyExpiries } from '../helpers/redis.js';
import { type Era, negotiation } from '../helpers/stack.js';
import { remoteFixture } from './deployment.js';
import { browse, type ServeRemote, TestOAuthProvider } from './helpers.js';

type Json = Record<string, unknown>;
type Block = { type: string; text?: string; uri?: string; resource?: { uri: string; mimeType?: string; text?: string; blob?: string } };
type Result = { isError?: boolean; content: Block[]; structuredContent?: Json };

const CLAIRE = 'claire.dubois@atelier-conseil.fr';
const MARC = 'marc.lefevre@atelier-conseil.fr';
const CANARY = `canary ${Math.random().toString(36).slice(2)} of the replica's disk`;

const remote = remoteFixture();
const { closers } = remote;
let scratch: string;
/** Outside every folder any replica is given. */
let canary: string;
/** WORKSPACE_UPLOAD_DIRS of the replicas: the local setting, which remote mode must not read. */
let localUploads: string;
/** WORKSPACE_DOWNLOAD_DIR of the replicas: under a regular file, so it can never be created. */
let downloads: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'wcm-member-files-'));
  await mkdir(join(scratch, 'outside'));
  canary = join(scratch, 'outside', 'canary.txt');
  await writeFile(canary, CANARY);
  localUploads = join(scratch, 'local-uploads');
  await mkdir(localUploads);
  await writeFile(join(localUploads, 'local.txt'), `local ${CANARY}`);
  await writeFile(join(scratch, 'blocker'), 'a file, not a folder');
  downloads = join(scratch, 'blocker', 'downloads');
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Two replicas (or `n`) of serve --remote on the shared Redis, behind the balancer. */
function deployment(env: Record<string, string> = {}, n = 2) {
  return remote.deploy({ WORKSPACE_DOWNLOAD_DIR: downloads, WORKSPACE_UPLOAD_DIRS: localUploads, ...env }, n);
}

/** A member signed in through the workspace's pages; `roots` makes the client a 2025 one offering them. */
async function member(mcpUrl: URL, email: string, era: Era, roots?: { asked: number }) {
  const provider = new TestOAuthProvider();
  const make = () => {
    const client = new Client(
      { name: 'member-files', version: '1.0.0' },
      { versionNegotiation: negotiation(era), ...(roots ? { capabilities: { roots: { listChanged: true } } } : {}) },
    );
    if (roots) {
      client.setRequestHandler('roots/list', () => {
        roots.asked++;
        return { roots: [{ uri: 'file:///', name: 'the whole disk' }] };
      });
    }
    return client;
  };
  await make()
    .connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))
    .catch(() => {});
  const back = await browse((provider.authorizationUrl as URL).href, provider.redirectUrl, 'allow', { email, consent: 'write' });
  await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(back.searchParams);
  const client = make();
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  closers.push(() => client.close());
  const call = async (name: string, args: Json) => (await client.callTool({ name, arguments: args })) as Result;
  return { client, call, token: () => provider.stored?.access_token as string };
}

const textOf = (r: Result) => r.content.map((c) => c.text ?? '').join('\n');
const posts = (sandbox: SandboxHandle) => sandbox.requests().filter((q) => q.method !== 'GET');

/**
 * Nothing was written where downloads would have gone, and nothing of the disk in a result: no file
 * link, no canary text, and (`quoted` aside: paths the member sent, which a refusal names) no path.
 */
async function nothingOnDisk(results: Result[], quoted = false) {
  expect((await readdir(scratch)).sort()).toEqual(['blocker', 'local-uploads', 'outside']);
  expect(await readdir(join(scratch, 'outside'))).toEqual(['canary.txt']);
  const all = JSON.stringify(results);
  expect(all).not.toContain('file://');
  if (!quoted) expect(all).not.toContain(scratch);
  expect(all).not.toContain(CANARY);
}

describe('serve --remote reads no file of the replica for a member', () => {
  it('a 2025 client whose roots are file:/// cannot upload the canary, directly or through call_operation, on either replica', async () => {
    const { sandbox, lb, replicas, mcpUrl } = await deployment();
    const roots = { asked: 0 };
    const claire = await member(mcpUrl, CLAIRE, 'legacy', roots);
    sandbox.clearRequests();
    const mark = lb.served.length;
    const results: Result[] = [];
    // First on one replica alone (where a server asking the client for its roots gets the answer back,
    // as the tester's did), then round-robin over both.
    lb.targets.splice(1);
    for (const phase of [1, 2]) {
      if (phase === 2) lb.targets.push((replicas[1] as ServeRemote).origin);
      for (const path of [canary, join(localUploads, 'local.txt')]) {
        results.push(await claire.call('upload_artifact', { engagement: ENGAGEMENT_AP, file: { path } }));
        results.push(await claire.call('call_operation', { operation: 'upload_artifact', arguments: { engagement: ENGAGEMENT_AP, file: { path } } }));
      }
    }
    for (const r of results) {
      expect(r.isError, textOf(r)).toBe(true);
      // The refusal names the field, what was given and what to send instead.
      expect(textOf(r)).toMatch(/file\.path/);
      expect(textOf(r)).toMatch(/file\.base64/);
    }
    expect(textOf(results[0] as Result)).toContain(JSON.stringify(canary));
    // Nothing reached the workspace, the client was never asked for its roots, and both replicas answered.
    expect(posts(sandbox)).toEqual([]);
    expect(roots.asked).toBe(0);
    expect(new Set(lb.served.slice(mark).map((s) => s.target))).toEqual(new Set(lb.targets));
    // What the model sees: content in the call, no path on a server that opened no folder.
    const described = await claire.call('describe_operation', { operation: 'upload_artifact' });
    const schema = (described.structuredContent as Json).input_schema as { properties: { file: { properties: Json; description: string } } };
    expect(Object.keys(schema.properties.file.properties)).not.toContain('path');
    expect(schema.properties.file.description).toMatch(/base64.*at most 25600 KiB/);
    await nothingOnDisk(results, true);
  }, 120_000);

  it('an upload by content comes back by download: embedded when small, a link for its member only when large, on both replicas', async () => {
    const { sandbox, lb, mcpUrl } = await deployment();
    const claire = await member(mcpUrl, CLAIRE, 'modern');
    const marc = await member(mcpUrl, MARC, 'legacy');
    const results: Result[] = [];

    // Small: text content in, embedded resource out.
    const note = 'Invoices are typed twice: once in the ERP, once in the bank portal.\n';
    const small = await claire.call('upload_artifact', { engagement: ENGAGEMENT_AP, file: { text: note, filename: 'note.txt', content_type: 'text/plain' } });
    expect(small.isError, textOf(small)).toBeFalsy();
    const smallId = (small.structuredContent as Json).id as string;
    const got = await claire.call('download_artifact', { engagement: ENGAGEMENT_AP, artifact: smallId });
    expect(got.isError, textOf(got)).toBeFalsy();
    expect(got.content).toEqual([
      { type: 'text', text: expect.stringMatching(/ \(\d+ bytes, text\/plain\) is in this result\.$/) },
      { type: 'resource', resource: expect.objectContaining({ mimeType: 'text/plain', text: note }) },
    ]);
    results.push(small, got);

    // Large: 3 MiB of bytes in base64, past the embedding limit: a link.
    const bytes = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 251;
    const big = await claire.call('upload_artifact', {
      engagement: ENGAGEMENT_AP,
      file: { base64: bytes.toString('base64'), filename: 'ledger.bin', content_type: 'application/octet-stream' },
    });
    expect(big.isError, textOf(big)).toBeFalsy();
    const bigId = (big.structuredContent as Json).id as string;
    const linked = await claire.call('download_artifact', { engagement: ENGAGEMENT_AP, artifact: bigId });
    expect(linked.isError, textOf(linked)).toBeFalsy();
    results.push(big, linked);
    const link = linked.content.find((c) => c.type === 'resource_link')?.uri as string;
    expect(link.startsWith(`${lb.url}/files/`)).toBe(true);
    expect((linked.structuredContent as Json).file).toMatchObject({ name: 'ledger.bin', size: bytes.length, url: link });

    // The member who asked opens it on each replica, streamed from the workspace each time.
    const open = (token?: string) => fetch(link, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    sandbox.clearRequests();
    const mark = lb.served.length;
    for (let i = 0; i < 2; i++) {
      const res = await open(claire.token());
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toContain('ledger.bin');
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    }
    const fetched = sandbox.requests().filter((q) => q.template === '/engagements/{engagement}/artifacts/{artifact}/download');
    expect(fetched).toHaveLength(2);
    // Another member, and no token at all, find nothing there, on either replica; the workspace is not asked.
    for (let i = 0; i < 2; i++) {
      const other = await open(marc.token());
      expect(other.status).toBe(404);
      await other.body?.cancel();
      const anonymous = await open();
      expect(anonymous.status).toBe(404);
      await anonymous.body?.cancel();
    }
    expect(sandbox.requests().filter((q) => q.template === '/engagements/{engagement}/artifacts/{artifact}/download')).toHaveLength(2);
    expect(new Set(lb.served.slice(mark).map((s) => s.target))).toEqual(new Set(lb.targets));
    // A made-up link id finds nothing, even with a valid token.
    const guessed = await fetch(`${lb.url}/files/${'A'.repeat(43)}`, { headers: { authorization: `Bearer ${claire.token()}` } });
    expect(guessed.status).toBe(404);
    await guessed.body?.cancel();
    await nothingOnDisk(results);
  }, 120_000);

  it('a link stops opening once its time is up', async () => {
    const { mcpUrl } = await deployment({ WORKSPACE_DOWNLOAD_LINK_SECONDS: '3' }, 1);
    const claire = await member(mcpUrl, CLAIRE, 'modern');
    // The replica keeps the link in Redis for its lifetime: Redis says when it drops it (a keyspace
    // notification), and which key is the link's is the one the download adds.
    const redis = createClient({ url: remote.redis.url });
    await redis.connect();
    const expiries = await keyExpiries(remote.redis.url);
    closers.push(async () => {
      await expiries.close();
      await redis.close();
    });
    const linkKeys = async () => new Set(await redis.keys('*file-link:*'));
    const keysBefore = await linkKeys();
    const bytes = Buffer.alloc(1024 * 1024 + 1, 1);
    const up = await claire.call('upload_artifact', {
      engagement: ENGAGEMENT_AP,
      file: { base64: bytes.toString('base64'), filename: 'big.bin', content_type: 'application/octet-stream' },
    });
    expect(up.isError, textOf(up)).toBeFalsy();
    const linked = await claire.call('download_artifact', { engagement: ENGAGEMENT_AP, artifact: (up.structuredContent as Json).id as string });
    const file = (linked.structuredContent as Json).file as { url: string; expires_at: string };
    const open = () => fetch(file.url, { headers: { authorization: `Bearer ${claire.token()}` } });
    const [linkKey, ...others] = [...(await linkKeys())].filter((k) => !keysBefore.has(k));
    expect(others).toEqual([]);
    const gone = expiries.expired(linkKey as string);
    const before = await open();
    expect(before.status).toBe(200);
    await before.body?.cancel();
    // Past the expiry the link reads as one that never existed.
    await gone;
    const after = await open();
    expect(after.status).toBe(404);
    await after.body?.cancel();
  }, 120_000);
});
