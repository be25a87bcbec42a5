// Property-based tests over every tool, with arguments generated from the tool's own schema: valid
// arguments reach exactly the operation's endpoint once (a reference read may be served from the
// cache instead; a write of document blocks first reads what its blocks cite, and is refused, nothing
// written, for an id not of its engagement), and broken arguments come back as an error naming the
// field, with nothing sent.
// Then whole messages a broken or hostile client may write (non-object arguments, malformed
// `_meta` and progress tokens, nesting up to 100,000 levels, prototype keys, a request that is also a
// response, non-objects, non-JSON), raw over stdio (a spawned server) and HTTP, in both protocol
// eras: each is answered or dropped by JSON-RPC's rules, nothing is sent, and the server keeps serving.
// `npm test` runs a small seeded sample; FUZZ_RUNS=10000 (npm run test:full) the full campaign.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog/index.js';
import { errorDetail } from '../../src/mcp/render/tool-result.js';
import type { Operation } from '../../src/operation.js';
import * as demo from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { HttpPeer } from '../helpers/spawn-http.js';
import { type Stack, startStack, textOf } from '../helpers/stack.js';
import { type Abuse, abusiveMessages, brokenArguments, validArguments } from './arbitraries.js';
import { type Era, eraParams, type Rpc, StdioPeer } from './stdio-peer.js';
import { LogScan } from './token-scan.js';

/** Generated calls per run, split evenly over valid and broken arguments of every tool. */
const TOTAL = Number(process.env.FUZZ_RUNS ?? 1_700);
const PER_TOOL = Math.max(1, Math.ceil(TOTAL / (2 * catalog.length)));
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_108);
/** Abusive messages per transport and era: a twentieth of the calls (85 each in npm test, 500 in the full run). */
const MESSAGE_RUNS = Math.max(40, Math.ceil(TOTAL / 20));

const knownIds: string[] = Object.values(demo as Record<string, unknown>).filter((v): v is string => typeof v === 'string' && v.length === 26);

let sandbox: SandboxHandle;
let stack: Stack;
const scan = new LogScan();
const figures = {
  valid: 0,
  broken: 0,
  sentForBroken: 0,
  cacheHits: 0,
  contentRefused: 0,
  citationsRefused: 0,
  crashes: 0,
  messages: 0,
  sentForMessages: 0,
  deepest: 0,
};
const messageKinds: Record<string, number> = {};
const peers = new Map<Era, StdioPeer>();
const reference = new Set(catalog.filter((o) => o.reference).map((o) => o.path));

beforeAll(async () => {
  // No server-side limit; the client keeps its 120-per-window rule on a 50 ms window.
  sandbox = await startSandbox({ port: 0, rateLimit: false, timeScale: 0.001 });
  const env = {
    WORKSPACE_RATE_LIMIT: '120/0.05',
    // A job is started and answered at once: following it would add polls to the one request counted.
    WORKSPACE_JOB_WAIT_SECONDS: '0',
    LOG_LEVEL: 'debug',
  };
  stack = await startStack({ sandboxHandle: sandbox, liveOpenApi: false, env });
  // The same server over stdio, one process per era, for the raw messages.
  await Promise.all(
    (['legacy', 'modern'] as const).map(async (era) => {
      const peer = new StdioPeer('source', { ...env, WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.write, WORKSPACE_TOOLSETS: 'all' }, scan);
      peers.set(era, peer);
      await peer.open(era);
    }),
  );
}, 60_000);
afterAll(async () => {
  scan.add(stack.logs.join('\n'));
  for (const peer of peers.values()) if (peer.child.exitCode === null) peer.child.kill();
  await stack?.close();
  await sandbox?.close();
  process.stderr.write(
    `fuzz figures: ${figures.valid + figures.broken} generated calls (${figures.valid} valid, ${figures.broken} broken), ` +
      `${figures.sentForBroken} requests sent for broken input, ${figures.cacheHits} answered from the cache, ${figures.contentRefused} uploads refused on content before sending, ${figures.citationsRefused} writes of blocks refused for what they cite, ${figures.crashes} crashes; ` +
      `${figures.messages} abusive messages (${Object.entries(messageKinds)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ')}), ${figures.sentForMessages} requests sent for them, the deepest nested ${figures.deepest} levels\n`,
  );
  expect(figures.valid + figures.broken).toBeGreaterThanOrEqual(TOTAL);
  expect(scan.leaks(Object.values(sandbox.tokens))).toEqual([]);
});

const apiRequests = () => sandbox.requests().filter((r) => r.path.startsWith('/api/v1/'));
const sameCall = (op: Operation, args: unknown) => `${op.name} ${JSON.stringify(args)}`;

describe('valid arguments reach exactly their endpoint, once', () => {
  const seenReference = new Set<string>();
  it.each(catalog.map((op) => [op.name, op] as const))('%s', async (_name, op) => {
    try {
      await fc.assert(
        fc.asyncProperty(validArguments(op, { knownIds }), async (args) => {
          // The log keeps the last 10,000 requests: start each call from an empty one.
          sandbox.clearRequests();
          const r = await stack.call(op.name, args);
          figures.valid++;
          const seen = apiRequests();
          const key = sameCall(op, args);
          const error = errorDetail(r);
          const own = seen.filter((q) => q.method === op.method && q.template === op.path);
          // Besides the call itself, only reference reads may go out (an upload's format, looked up once),
          // and the reads a write of document blocks makes to check what they cite (docs/architecture.md, Cited ids).
          const others = seen.filter((q) => !own.includes(q));
          expect(
            others.every((q) => q.method === 'GET' && (reference.has(q.template ?? '') || op.citesIn !== undefined)),
            `${op.name}: ${others.map((q) => q.path)}`,
          ).toBe(true);
          if (error?.code === 'invalid_argument') {
            // Content the schema cannot judge (an upload's bytes against its type or format) was
            // refused before the call: nothing reached the operation's endpoint.
            expect(op.body, `${op.name}: ${textOf(r)}`).toBe('multipart');
            expect(own).toHaveLength(0);
            expect(textOf(r)).toMatch(/nothing was sent/);
            figures.contentRefused++;
          } else if (op.citesIn && own.length === 0) {
            // Refused before the write: an id its blocks cite is not of the engagement, or the check's
            // read failed as the write would (a 404 for a random engagement).
            expect(error?.code === 'unknown_reference' || typeof error?.status === 'number', `${op.name}: ${textOf(r)}`).toBe(true);
            expect(others.length).toBeGreaterThan(0);
            figures.citationsRefused++;
          } else if (op.reference && own.length === 0) {
            // Served from the cache: only an identical earlier call can have filled it.
            expect(seenReference.has(key), `${op.name} sent nothing for a first call`).toBe(true);
            figures.cacheHits++;
          } else {
            expect(own.length, `${op.name}(${JSON.stringify(args).slice(0, 300)}): ${textOf(r).slice(0, 300)}`).toBe(1);
          }
          if (op.reference) seenReference.add(key);
          // Whatever the workspace answered (a 404 for a random id is fine), a failure is an API error
          // the assistant can read, not a thrown bug.
          if (r.isError && error?.code !== 'invalid_argument' && error?.code !== 'unknown_reference') {
            expect(error?.status, `${op.name}: ${textOf(r)}`).toBeTypeOf('number');
          }
        }),
        { numRuns: PER_TOOL, seed: SEED },
      );
    } finally {
      // Writes pile up (created findings, deleted members): every tool starts from the seed.
      sandbox.admin.reset();
    }
  });
});

describe('broken arguments are refused, naming the field, and send nothing', () => {
  it.each(catalog.map((op) => [op.name, op] as const))('%s', async (_name, op) => {
    await fc.assert(
      fc.asyncProperty(brokenArguments(op, { knownIds }), async (broken) => {
        sandbox.clearRequests();
        const r = await stack.call(op.name, broken.args);
        figures.broken++;
        const sent = apiRequests().length;
        figures.sentForBroken += sent;
        const text = textOf(r);
        const what = `${op.name} ${broken.kind} ${broken.field}: ${JSON.stringify(broken.args).slice(0, 300)}`;
        expect(sent, what).toBe(0);
        expect(r.isError, what).toBe(true);
        expect(text, what).toMatch(/nothing was sent/);
        // The field is named on a line of its own: "- engagement: required", or for an argument the
        // tool does not have, "- (arguments): unknown argument colour: remove it".
        const line = broken.kind === 'unknown_key' ? `^- \\(arguments\\): unknown arguments? (.*, )?${broken.field}(,|:)` : `^- ${broken.field}(\\.[^:]*)?: `;
        expect(text, what).toMatch(new RegExp(line, 'm'));
        expect(errorDetail(r)?.code).toMatch(/^invalid_argument/);
      }),
      { numRuns: PER_TOOL, seed: SEED },
    );
  });
});

/** A refusal of the arguments as a tool result: isError, the field named, nothing sent. */
function expectRefused(m: Rpc | undefined, field: string, what: string): void {
  const r = m?.result as { isError?: boolean; content?: Array<{ text?: string }>; _meta?: Record<string, unknown> } | undefined;
  expect(r?.isError, what).toBe(true);
  expect(Object.keys((r && errorDetail(r)?.fields) ?? {}), what).toContain(field);
  expect(r?.content?.[0]?.text, what).toMatch(/nothing was sent/);
}

/** Checks what the server did with one message, over either transport, and that it still serves. */
type Deliver = (abuse: Abuse, what: string) => Promise<void>;

function overStdio(era: Era): Deliver {
  let n = 0;
  return async (abuse, what) => {
    const peer = peers.get(era) as StdioPeer;
    const before = peer.messages.length;
    peer.raw(`${abuse.text}\n`);
    // The next request is served (and, the guard being in order, everything about the message is in by then).
    const sentinel = `sentinel-${++n}`;
    peer.send({ id: sentinel, method: 'tools/list', params: eraParams(era) });
    expect((await peer.answer(sentinel)).result, what).toMatchObject({ tools: expect.any(Array) });
    const due = abuse.due;
    if ('dropped' in due) {
      expect(
        peer.messages.slice(before).map((m) => m.id),
        what,
      ).toEqual([sentinel]);
    } else if ('refused' in due) {
      expectRefused(await peer.answer(due.id), due.refused, what);
    } else if (due.id === null) {
      expect(
        peer.messages
          .slice(before)
          .filter((m) => m.id === null)
          .map((m) => m.error?.code),
        what,
      ).toEqual([due.error]);
    } else {
      const answers = peer.messages.slice(before).filter((m) => m.id === due.id);
      expect(
        answers.map((m) => m.error?.code),
        what,
      ).toEqual([due.error]);
    }
    expect(peer.child.exitCode, what).toBeNull();
  };
}

function overHttp(era: Era): Deliver {
  let peer: HttpPeer | undefined;
  let n = 0;
  return async (abuse, what) => {
    peer ??= await HttpPeer.open(Number(new URL(stack.url).port), era);
    const r = await peer.post(abuse.text);
    const due = abuse.due;
    if ('refused' in due) {
      expect(r.status, what).toBe(200);
      expectRefused(
        r.messages.find((m) => m.id === due.id),
        due.refused,
        what,
      );
    } else {
      // HTTP answers every POST: what JSON-RPC answers, or drops, is a 400 with the error.
      expect(r.status, what).toBe(400);
      expect(r.messages, what).toHaveLength(1);
      expect(r.messages[0]?.id, what).toBe('dropped' in due ? null : due.id);
      if (!('dropped' in due)) expect(r.messages[0]?.error?.code, what).toBe(due.error);
    }
    const next = await peer.send({ id: `sentinel-${++n}`, method: 'tools/list', params: eraParams(era) });
    expect(next.status, what).toBe(200);
  };
}

describe.each(['stdio', 'HTTP'] as const)(
  'abusive messages over %s are answered or dropped by JSON-RPC rules, send nothing, and the server keeps serving',
  (transport) => {
    it.each(['legacy', 'modern'] as Era[])('%s era', { timeout: 300_000 }, async (era) => {
      // A seed of its own per transport and era: four different samples, each reproducible.
      const seed = SEED + (transport === 'stdio' ? 0 : 2) + (era === 'legacy' ? 0 : 1);
      const deliver = transport === 'stdio' ? overStdio(era) : overHttp(era);
      const messages = abusiveMessages(catalog, (p) => eraParams(era, p), {
        knownIds,
        listTool: { name: 'list_findings', args: { engagement: demo.ENGAGEMENT_AP } },
      });
      await fc.assert(
        fc.asyncProperty(messages, async (abuse) => {
          sandbox.clearRequests();
          const what = `${abuse.kind} ${transport} ${era}: ${abuse.text.slice(0, 300)}`;
          await deliver(abuse, what);
          figures.messages++;
          messageKinds[abuse.kind] = (messageKinds[abuse.kind] ?? 0) + 1;
          figures.deepest = Math.max(figures.deepest, abuse.depth ?? 0);
          // The stdio servers' own fetch of the live description at start aside.
          const sent = apiRequests().filter((r) => !r.path.endsWith('/openapi.json')).length;
          figures.sentForMessages += sent;
          expect(sent, what).toBe(0);
        }),
        { numRuns: MESSAGE_RUNS, seed },
      );
    });

    if (transport === 'stdio') {
      it('each stdio server ends cleanly on EOF after them all: exit 0, only JSON-RPC on stdout', async () => {
        for (const peer of peers.values()) {
          expect(await peer.close()).toEqual({ code: 0, signal: null });
          expect(peer.strayLines).toEqual([]);
          expect(peer.stderr).not.toMatch(/RangeError|Maximum call stack|TypeError|uncaught|unhandled/i);
        }
      });
    }
  },
);
