// No fixed sleep in test/: its tests and helpers await the event a test waits for, or move an
// injected clock, never a timer that only lets time pass (test/helpers/fixed-sleeps.ts says what
// counts). A sleep is slow when the machine is idle and flaky when it is busy.
import { describe, expect, it } from 'vitest';
import { type FixedSleep, scanFiles, scanSource, testSources } from '../helpers/fixed-sleeps.js';
import { ROOT } from '../helpers/spawn.js';
import { testFiles } from '../tiers.js';

const where = (f: FixedSleep) => `${f.file}:${f.line} (${f.kind}) ${f.text}`;

describe('fixed sleeps', () => {
  it('none in any file of test/: the tests, their helpers and the programs they start', () => {
    const files = testSources(ROOT);
    // Every test file is among them, and the helpers beside.
    expect(testFiles(ROOT).filter((f) => !files.includes(f))).toEqual([]);
    expect(files.length).toBeGreaterThan(testFiles(ROOT).length);
    expect(scanFiles(ROOT, files).map(where)).toEqual([]);
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
