// Run before every test file (vitest setupFiles): what this test worker writes to stderr, and what
// every child process it spawns writes to stderr (servers, logins, the sandbox command), is kept and
// scanned for token material once the file's tests are done. Loggers that write to a test's own sink
// are scanned by the files that own them (test/reliability/*: LogScan).
import type { ChildProcess } from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { afterAll, expect } from 'vitest';
import { findTokenMaterial } from './token-scan.js';

const PATCHED = Symbol.for('workspace-consulting-mcp.log-scan');
const chunks: string[] = [];
const g = globalThis as { [PATCHED]?: boolean };

if (!g[PATCHED]) {
  g[PATCHED] = true;
  // Patch the builtin's CommonJS object, then sync its ESM named exports: `import { spawn }` in the
  // tests and helpers sees the wrapper.
  const cp = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  const spawn = cp.spawn;
  cp.spawn = function (this: unknown, ...args: unknown[]) {
    const child = (spawn as (...a: unknown[]) => ChildProcess).apply(this, args);
    child.stderr?.on('data', (d: Buffer | string) => chunks.push(String(d)));
    return child;
  } as typeof cp.spawn;
  syncBuiltinESMExports();
  const write = process.stderr.write.bind(process.stderr) as (...a: unknown[]) => boolean;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
}

afterAll(() => {
  expect(findTokenMaterial(chunks.join('\n')), 'token material on stderr (this worker or a child process)').toEqual([]);
});
