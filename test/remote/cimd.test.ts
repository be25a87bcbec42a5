// Client ID Metadata Documents: a client named by the URL of its document signs in without
// registering; the server fetches that URL only when it is https on a public host (loopback http is
// a test-only option), and only accepts a document that names itself and redirects we accept.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDocument, createMetadataFetcher, isNonPublicAddress, MAX_CONCURRENT_FETCHES, refuseMetadataUrl } from '../../src/remote/cimd.js';
import { browse, type Stack, startStack } from './helpers.js';

let stack: Stack | undefined;
let docServer: Server | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
  docServer?.closeAllConnections();
  await new Promise<void>((resolve) => (docServer ? docServer.close(() => resolve()) : resolve()));
  docServer = undefined;
});

const REDIRECT = 'http://127.0.0.1:45999/callback';

/** Serves one JSON document at /client.json (what `doc(url)` returns), counting fetches. */
async function serveDocument(doc: (url: string) => unknown) {
  let fetches = 0;
  docServer = createServer((req, res) => {
    fetches++;
    const body = JSON.stringify(doc(`http://127.0.0.1:${(docServer!.address() as AddressInfo).port}/client.json`));
    res.writeHead(req.url === '/client.json' ? 200 : 404, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
    res.end(body);
  });
  await new Promise<void>((resolve) => docServer!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(docServer.address() as AddressInfo).port}/client.json`, fetches: () => fetches };
}

describe('client ID metadata documents', () => {
  it('a client named by its document URL signs in and gets tokens without registering; the document is fetched once', async () => {
    stack = await startStack({ autoConsent: 'read', allowLoopbackClientMetadata: true });
    const doc = await serveDocument((url) => ({ client_id: url, client_name: 'Doc Client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }));
    const verifier = randomBytes(32).toString('base64url');
    const u = new URL(`${stack.replica.url}/oauth/authorize`);
    u.search = new URLSearchParams({
      response_type: 'code',
      client_id: doc.url,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'read',
    }).toString();
    const page = await (await fetch(u)).text();
    expect(page).toContain('Doc Client');
    expect(page).toContain(new URL(doc.url).host);
    const back = await browse(u.href, REDIRECT);
    const res = await fetch(`${stack.replica.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: doc.url,
        code: back.searchParams.get('code') ?? '',
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { scope: string }).scope).toBe('read');
    expect(doc.fetches()).toBe(1);
  });

  it('a document that does not name itself, or whose redirects we refuse, makes the client unknown', async () => {
    stack = await startStack({ allowLoopbackClientMetadata: true });
    const doc = await serveDocument(() => ({ client_id: 'https://other.example/client.json', client_name: 'Liar', redirect_uris: [REDIRECT] }));
    const res = await fetch(`${stack.replica.url}/oauth/authorize?client_id=${encodeURIComponent(doc.url)}&redirect_uri=${encodeURIComponent(REDIRECT)}`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/client_id differs from its URL/);
  });

  it('without the test option, loopback and private addresses are never fetched', async () => {
    stack = await startStack();
    const doc = await serveDocument((url) => ({ client_id: url, client_name: 'x', redirect_uris: [REDIRECT] }));
    const res = await fetch(`${stack.replica.url}/oauth/authorize?client_id=${encodeURIComponent(doc.url)}&redirect_uri=${encodeURIComponent(REDIRECT)}`);
    expect(res.status).toBe(400);
    expect(doc.fetches()).toBe(0);
  });

  it('the URL rules: https, a path, a public host', () => {
    expect(refuseMetadataUrl('https://app.example/client.json', false)).toBeUndefined();
    expect(refuseMetadataUrl('http://app.example/client.json', false)).toMatch(/https/);
    expect(refuseMetadataUrl('https://app.example/', false)).toMatch(/path/);
    expect(refuseMetadataUrl('https://u:p@app.example/c.json', false)).toMatch(/credentials/);
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '10.1.2.3', '192.168.0.4', '169.254.169.254', '[::ffff:10.0.0.1]', '[fd00::1]', 'app.localhost']) {
      expect(refuseMetadataUrl(`https://${host}/client.json`, false), host).toMatch(/public host/);
    }
    for (const a of ['10.0.0.1', '172.16.5.5', '100.64.0.1', '::1', 'fe80::1', '::ffff:127.0.0.1', '0.0.0.0']) expect(isNonPublicAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '2606:4700:4700::1111']) expect(isNonPublicAddress(a), a).toBe(false);
  });

  it('a host name that resolves to a non-public address is refused when the socket connects', async () => {
    const doc = await serveDocument((url) => ({ client_id: url, client_name: 'x', redirect_uris: [REDIRECT] }));
    const port = new URL(doc.url).port;
    // A public-looking name whose DNS answer is the loopback address where a document does answer.
    const fetcher = createMetadataFetcher({ resolve: (_host, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]) });
    await expect(fetcher.fetch(`https://client.example:${port}/client.json`)).rejects.toThrow(/client.example resolves to a non-public address/);
    await fetcher.close();
    expect(doc.fetches()).toBe(0);
  });

  it('the document rules: a name, its own URL, accepted redirects, a public client', () => {
    const id = 'https://app.example/c.json';
    expect(checkDocument(id, { client_id: id, client_name: 'A', redirect_uris: ['https://app.example/cb'] }).client_name).toBe('A');
    expect(() => checkDocument(id, { client_id: id, redirect_uris: ['https://app.example/cb'] })).toThrow(/client_name/);
    expect(() => checkDocument(id, { client_id: id, client_name: 'A', redirect_uris: ['http://evil.example/cb'] })).toThrow(/refused/);
    expect(() =>
      checkDocument(id, { client_id: id, client_name: 'A', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'private_key_jwt' }),
    ).toThrow(/public clients/);
    expect(() => checkDocument(id, [])).toThrow(/object/);
  });
});

describe('client ID metadata documents: failures and load', () => {
  /**
   * A document server whose every answer waits for `release()` (or is a 500 when `fail`); counts
   * fetches, and those open at once; `onFetch` is told of each fetch as it comes.
   */
  async function holdingServer(fail: boolean, onFetch: () => void = () => {}) {
    let fetches = 0;
    let open = 0;
    let mostOpen = 0;
    const waiting: (() => void)[] = [];
    docServer = createServer((_req, res) => {
      fetches++;
      open++;
      mostOpen = Math.max(mostOpen, open);
      const answer = () => {
        open--;
        res.writeHead(fail ? 500 : 404, { 'content-type': 'application/json' }).end('{}');
      };
      if (fail) answer();
      else waiting.push(answer);
      onFetch();
    });
    await new Promise<void>((resolve) => docServer!.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(docServer.address() as AddressInfo).port}`;
    return {
      origin,
      fetches: () => fetches,
      open: () => open,
      mostOpen: () => mostOpen,
      release: () => {
        for (const w of waiting.splice(0)) w();
      },
    };
  }

  const authorize = (url: string, clientId: string) =>
    fetch(`${url}/oauth/authorize?client_id=${encodeURIComponent(clientId)}&redirect_uri=${encodeURIComponent(REDIRECT)}`, { redirect: 'manual' });

  it('a document that fails is remembered: asked for five times, it is fetched once', async () => {
    stack = await startStack({ allowLoopbackClientMetadata: true });
    const docs = await holdingServer(true);
    for (let i = 0; i < 5; i++) {
      const res = await authorize(stack.replica.url, `${docs.origin}/client.json`);
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/answered HTTP 500/);
    }
    expect(docs.fetches()).toBe(1);
  });

  it('fetches at once are capped: past the cap a request is answered temporarily_unavailable without a fetch', async () => {
    stack = await startStack({ allowLoopbackClientMetadata: true });
    // The refused ones answer while the others still wait for their documents (held until released):
    // each of the twenty is told as it is answered or fetched, until all are one or the other.
    const refused: Response[] = [];
    let allIn = () => {};
    const everyOneIn = new Promise<void>((r) => (allIn = r));
    const tally = () => {
      if (refused.length + docs.open() === 20) allIn();
    };
    const docs = await holdingServer(false, tally);
    const asked = Array.from({ length: 20 }, (_, i) =>
      authorize(stack!.replica.url, `${docs.origin}/client-${i}.json`).then((r) => {
        if (r.status !== 404 && r.status !== 400) refused.push(r);
        tally();
        return r;
      }),
    );
    await everyOneIn;
    const answeredWhileHeld = refused.length;
    docs.release();
    await Promise.all(asked);
    for (const r of refused) {
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBeTruthy();
      expect(await r.json()).toMatchObject({ error: 'temporarily_unavailable' });
    }
    expect(answeredWhileHeld).toBe(20 - MAX_CONCURRENT_FETCHES);
    expect(refused).toHaveLength(20 - MAX_CONCURRENT_FETCHES);
    expect(docs.mostOpen()).toBe(MAX_CONCURRENT_FETCHES);
    expect(docs.fetches()).toBe(MAX_CONCURRENT_FETCHES);
  });
});
