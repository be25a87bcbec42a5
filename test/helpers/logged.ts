// Waiting for a child process to log something: what it wrote to stderr, as its caller gathers it,
// looked at again at each write. Whoever spawned the child registers the listener that gathers stderr
// first, so at each write it is read whole, that write included.
import type { ChildProcess } from 'node:child_process';

/**
 * Resolves with the first match of `pattern` in `read()` (the child's stderr so far), already written
 * or when it comes, or with the whole stderr once `pattern` (a test of it) holds. Rejects, naming
 * `what`, after `ms` or when the child's streams close without it.
 */
export function logged(child: ChildProcess, read: () => string, pattern: RegExp | ((stderr: string) => boolean), what: string, ms = 20_000): Promise<string> {
  const stderr = child.stderr;
  if (!stderr) throw new Error('the child has no stderr pipe to read');
  return new Promise((resolve, reject) => {
    const found = (): string | undefined => {
      const text = read();
      if (typeof pattern === 'function') return pattern(text) ? text : undefined;
      return pattern.exec(text)?.[0];
    };
    const stop = () => {
      clearTimeout(timer);
      stderr.off('data', look);
      child.off('close', closed);
    };
    const look = () => {
      const hit = found();
      if (hit === undefined) return;
      stop();
      resolve(hit);
    };
    const fail = (why: string) => {
      stop();
      reject(new Error(`no ${what} on stderr ${why}: ${read().slice(-2000)}`));
    };
    // 'close' comes once stdout and stderr have ended: whatever was written has been read by then.
    const closed = () => {
      if (found() === undefined) fail('before the process ended');
      else look();
    };
    const timer = setTimeout(() => fail(`within ${ms} ms`), ms);
    stderr.on('data', look);
    child.once('close', closed);
    look();
  });
}
