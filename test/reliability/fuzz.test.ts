// Property-based tests over every tool, with arguments generated from the tool's own schema: valid
// arguments reach exactly the operation's endpoint once (a reference read may be served from the
// cache instead), and broken arguments come back as an error naming the field, with nothing sent.
// `npm test` runs a small seeded sample; FUZZ_RUNS=10000 (npm run test:full) the full campaign.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as demo from '../../src/sandbox/data/ids.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import type { Operation } from '../../src/operation.js';
import { catalog } from '../../tools/index.js';
import { startStack, textOf, type Stack } from '../helpers/stack.js';
import { brokenArguments, validArguments } from './arbitraries.js';
import { LogScan } from './token-scan.js';

/** Generated calls per run, split evenly over valid and broken arguments of every tool. */
const TOTAL = Number(process.env.FUZZ_RUNS ?? 1_700);
const PER_TOOL = Math.max(1, Math.ceil(TOTAL / (2 * catalog.length)));
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_108);

const knownIds: string[] = Object.values(demo as Record<string, unknown>).filter((v): v is string => typeof v === 'string' && v.length === 26);

let sandbox: SandboxHandle;
let stack: Stack;
const scan = new LogScan();
const figures = { valid: 0, broken: 0, sentForBroken: 0, cacheHits: 0, contentRefused: 0, crashes: 0 };
const reference = new Set(catalog.filter((o) => o.reference).map((o) => o.path));

beforeAll(async () => {
  // No server-side limit; the client keeps its 120-per-window rule on a 50 ms window.
  sandbox = await startSandbox({ port: 0, rateLimit: false, timeScale: 0.001 });
  stack = await startStack({
    sandboxHandle: sandbox,
    liveOpenApi: false,
    env: {
      WORKSPACE_RATE_LIMIT: '120/0.05',
      // A job is started and answered at once: following it would add polls to the one request counted.
      WORKSPACE_JOB_WAIT_SECONDS: '0',
      LOG_LEVEL: 'debug',
    },
  });
});
afterAll(async () => {
  scan.add(stack.logs.join('\n'));
  await stack?.close();
  await sandbox?.close();
  process.stderr.write(
    `fuzz figures: ${figures.valid + figures.broken} generated calls (${figures.valid} valid, ${figures.broken} broken), ` +
      `${figures.sentForBroken} requests sent for broken input, ${figures.cacheHits} answered from the cache, ${figures.contentRefused} uploads refused on content before sending, ${figures.crashes} crashes\n`,
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
          const error = (r.structuredContent as { error?: { code?: string; status?: number } } | undefined)?.error;
          const own = seen.filter((q) => q.method === op.method && q.template === op.path);
          // Besides the call itself, only reference reads may go out (an upload's format, looked up once).
          const others = seen.filter((q) => !own.includes(q));
          expect(others.every((q) => q.method === 'GET' && reference.has(q.template ?? '')), `${op.name}: ${others.map((q) => q.path)}`).toBe(true);
          if (error?.code === 'invalid_argument') {
            // Content the schema cannot judge (an upload's bytes against its type or format) was
            // refused before the call: nothing reached the operation's endpoint.
            expect(op.body, `${op.name}: ${textOf(r)}`).toBe('multipart');
            expect(own).toHaveLength(0);
            expect(textOf(r)).toMatch(/nothing was sent/);
            figures.contentRefused++;
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
          if (r.isError && error?.code !== 'invalid_argument') {
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
        expect((r.structuredContent as { error?: { code?: string } }).error?.code).toMatch(/^invalid_argument/);
      }),
      { numRuns: PER_TOOL, seed: SEED },
    );
  });
});
