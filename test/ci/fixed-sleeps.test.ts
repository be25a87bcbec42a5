// No fixed sleep in the quick tier: its files and the test helpers they import await the event a
// test waits for, or move an injected clock, never a timer that only lets time pass
// (test/helpers/fixed-sleeps.ts says what counts). A sleep is slow when the machine is idle and
// flaky when it is busy; the quick tier must be both fast and exact.
import { describe, expect, it } from 'vitest';
import { type FixedSleep, importClosure, scanFiles, scanSource } from '../helpers/fixed-sleeps.js';
import { ROOT } from '../helpers/spawn.js';
import { fastTestFiles, testFiles, tierPattern } from '../tiers.js';

/**
 * Files of the other tier held to none as well, as tier patterns (test/tiers.ts), with the helpers
 * they import: they await events or move a clock. The rest of test/ joins them as it is cleaned.
 */
const HELD = [
  'test/auth/store.test.ts',
  'test/mcp/limits.test.ts',
  'test/reliability/faults.test.ts',
  'test/reliability/shared-budget.test.ts',
  'test/remote/cimd.test.ts',
  'test/remote/faults.test.ts',
  'test/remote/member-files.test.ts',
  'test/remote/replicas-serve.test.ts',
  'test/remote/session-attacks.test.ts',
  'test/serve/banner.test.ts',
  'test/serve/local-http.test.ts',
  'test/serve/slow-clients.test.ts',
];

const where = (f: FixedSleep) => `${f.file}:${f.line} (${f.kind}) ${f.text}`;

describe('fixed sleeps', () => {
  it('none in a file of the quick tier or a helper it imports', () => {
    const fast = fastTestFiles(testFiles(ROOT));
    const files = importClosure(ROOT, fast);
    expect(files.length).toBeGreaterThan(fast.length);
    expect(scanFiles(ROOT, files).map(where)).toEqual([]);
  });

  it('none in the files of the other tier held to none so far, or a helper they import', () => {
    const all = testFiles(ROOT);
    const held = HELD.map((glob) => all.filter((f) => tierPattern(glob).test(f)));
    // Each entry still names a file: a renamed one is named again, not dropped from the guard.
    expect(HELD.filter((_, i) => held[i]?.length === 0)).toEqual([]);
    expect(scanFiles(ROOT, importClosure(ROOT, held.flat())).map(where)).toEqual([]);
  });

  it('counts a timer-resolved wait, alone, in a loop or through a helper, and a step taken after a fixed time', () => {
    const source = [
      "import { setTimeout as later } from 'node:timers/promises';",
      'const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));',
      'async function t(done: () => boolean, c: AbortController) {',
      '  await new Promise<void>((resolve) => setTimeout(() => resolve(), 300));',
      '  while (!done()) await new Promise((r) => setTimeout(r, 5));',
      '  await sleep(100);',
      '  for (;;) await sleep(20);',
      '  await later(50);',
      "  setTimeout(() => c.abort('too late'), 200);",
      '  await new Promise((resolve) => { const t = setInterval(() => { if (done()) { clearInterval(t); resolve(1); } }, 20); });',
      '}',
    ].join('\n');
    expect(scanSource(source, 'x.ts').map((f) => [f.line, f.kind])).toEqual([
      [2, 'sleep'],
      [4, 'sleep'],
      [5, 'poll'],
      [6, 'sleep'],
      [7, 'poll'],
      [8, 'sleep'],
      [9, 'delay'],
      [10, 'poll'],
    ]);
  });

  it('counts a sandbox fault that holds its answer a fixed time, unless the test moves a fake clock past it', () => {
    const source = [
      'async function t(sb: { admin: { fault(f: object): void } }, vi: { useFakeTimers(): void }) {',
      "  sb.admin.fault({ count: 1, delay_ms: 1_500, match: { method: 'GET' } });",
      '  sb.admin.fault({ count: 1, status: 503 });',
      '}',
      'async function u(sb: { admin: { fault(f: object): void } }, vi: { useFakeTimers(): void }) {',
      '  vi.useFakeTimers();',
      '  sb.admin.fault({ count: 1, delay_ms: 150 });',
      '}',
    ].join('\n');
    expect(scanSource(source, 'x.ts').map((f) => [f.line, f.kind])).toEqual([[2, 'delay']]);
  });

  it('lets a timer bound a wait: one that rejects, kills, or reports the time-out through another function', async () => {
    const source = [
      'async function t(child: { kill(s: string): void; once(e: string, f: () => void): void }, finish: (ok: boolean) => void) {',
      '  await new Promise((resolve, reject) => {',
      "    const timer = setTimeout(() => reject(new Error('no answer')), 5_000);",
      "    child.once('exit', () => { clearTimeout(timer); resolve(undefined); });",
      '  });',
      "  const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);",
      '  clearTimeout(kill);',
      '  await new Promise((resolve) => { const t = setTimeout(() => finish(false), 10_000); resolve(t); });',
      '  setImmediate(() => undefined);',
      '}',
    ].join('\n');
    expect(scanSource(source, 'x.ts')).toEqual([]);
  });
});
