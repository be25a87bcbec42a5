// Finds the fixed sleeps of test files: waits that end because time passed, not because something
// happened. Used by test/ci/fixed-sleeps.test.ts (none under test/) and, as a script, to list them:
// `npx tsx test/helpers/fixed-sleeps.ts [files...]`.
//
// What counts, read from the syntax tree (parsed as TypeScript):
// - a wait: a promise a timer settles by resolving it, `new Promise((r) => setTimeout(r, ms))` or
//   `setTimeout(() => r(value), ms)`, and every call of a local helper made of one (`sleep(ms)`);
//   `setTimeout`/`setInterval`/`scheduler.wait` of node:timers/promises alike. Kind 'poll' when the
//   wait sits in a loop or is an interval (a pause between reads of a condition), 'sleep' otherwise. Both let time pass
//   instead of awaiting the event: the guard refuses both.
// - a timed action ('delay'): a timer whose handle is dropped (it can never be cleared) outside a
//   promise's executor, `setTimeout(() => controller.abort(), 200)`: the step happens after a fixed time.
//   So is a sandbox fault that holds its answer for a fixed time, a `delay_ms` in the object given to
//   `fault(...)` (a guess at "slower than what the test waits for"), unless the function that sets it
//   runs on vitest's fake timers (it calls useFakeTimers): the delay then ends when the test moves the clock.
// What does not: a timer that bounds a wait (it rejects, kills, aborts or resolves through another
// function such as a `finish(false)` that reports the time-out, and is cleared when the event comes),
// fake timers (vi.useFakeTimers, vi.advanceTimersByTime) and setImmediate (a turn, not a time).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseAst } from 'vitest/node';

export interface FixedSleep {
  /** Path relative to the repository root, with forward slashes. */
  file: string;
  line: number;
  kind: 'sleep' | 'poll' | 'delay';
  /** The line's text, trimmed. */
  text: string;
}

type Node = { type: string; start: number; end: number; [key: string]: unknown };

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && typeof (v as Node).type === 'string';
const isFunction = (n: Node) => n.type === 'ArrowFunctionExpression' || n.type === 'FunctionExpression' || n.type === 'FunctionDeclaration';
const isLoop = (n: Node) => /^(For|ForIn|ForOf|While|DoWhile)Statement$/.test(n.type);
const TIMERS = new Set(['setTimeout', 'setInterval']);

/** Every node with its ancestors (nearest last). */
function walk(root: Node, visit: (node: Node, ancestors: Node[]) => void): void {
  const stack: Node[] = [];
  const go = (node: Node) => {
    visit(node, stack);
    stack.push(node);
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type' || key === 'start' || key === 'end') continue;
      if (Array.isArray(value)) for (const v of value) isNode(v) && go(v);
      else if (isNode(value)) go(value);
    }
    stack.pop();
  };
  go(root);
}

function identifierName(n: unknown): string | undefined {
  return isNode(n) && n.type === 'Identifier' ? (n.name as string) : undefined;
}

function calls(root: Node, name: string): boolean {
  let found = false;
  walk(root, (n) => {
    if (n.type === 'CallExpression' && identifierName(n.callee) === name) found = true;
  });
  return found;
}

/** The name a call is made by: `f(...)` or `x.f(...)`. */
function calleeName(call: Node): string | undefined {
  const callee = call.callee as Node;
  return identifierName(callee) ?? (callee.type === 'MemberExpression' ? identifierName(callee.property) : undefined);
}

/** Whether `root` calls `name(...)` or `x.name(...)` anywhere. */
function callsByName(root: Node, name: string): boolean {
  let found = false;
  walk(root, (n) => {
    if (n.type === 'CallExpression' && calleeName(n) === name) found = true;
  });
  return found;
}

/** `setTimeout(...)`, `globalThis.setTimeout(...)`, `timers.setTimeout(...)`: the timer's name. */
function timerCalled(call: Node): string | undefined {
  const name = calleeName(call);
  return name && TIMERS.has(name) ? name : undefined;
}

/** The fixed sleeps of one source text (`file` only names them). */
export function scanSource(source: string, file: string): FixedSleep[] {
  const ast = parseAst(source, { lang: 'ts' }, file) as unknown as Node;
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const lines = source.split('\n');
  const found = new Map<string, FixedSleep>();
  const add = (node: Node, kind: FixedSleep['kind']) => {
    const line = lineOf(node.start);
    found.set(`${line}:${kind}`, { file, line, kind, text: (lines[line - 1] ?? '').trim() });
  };
  /** A wait found at `node` whose enclosing code is `ancestors`: a poll in a loop, a helper, or a sleep. */
  const helpers = new Set<string>();
  const wait = (node: Node, ancestors: Node[]) => {
    // Up to the function that holds the wait: a loop on the way makes it a poll.
    for (let i = ancestors.length - 1; i >= 0; i--) {
      const a = ancestors[i]!;
      if (isLoop(a)) return add(node, 'poll');
      if (isFunction(a)) {
        // `const sleep = (ms) => new Promise(...)` or `function sleep(ms) { return new Promise(...) }`:
        // the helper's calls are the waits.
        const holder = a.type === 'FunctionDeclaration' ? identifierName(a.id) : identifierName((ancestors[i - 1] as Node | undefined)?.id);
        const only = a.type === 'ArrowFunctionExpression' && a.expression === true;
        const body = a.body as Node;
        const single = body.type === 'BlockStatement' && (body.body as Node[]).length === 1;
        if (holder && (only || single)) {
          helpers.add(holder);
          return add(node, 'sleep');
        }
        return add(node, 'sleep');
      }
    }
    return add(node, 'sleep');
  };

  const promiseTimers = new Set<string>();
  walk(ast, (node, ancestors) => {
    // `fault({ ..., delay_ms: 1_500 })`, outside a function on fake timers.
    if (node.type === 'Property' && (identifierName(node.key) ?? (node.key as Node).value) === 'delay_ms') {
      const [call, object] = [ancestors.at(-2), ancestors.at(-1)];
      if (call?.type !== 'CallExpression' || calleeName(call) !== 'fault' || !(call.arguments as Node[]).includes(object as Node)) return;
      const fn = ancestors.findLast(isFunction);
      if (!fn || !callsByName(fn, 'useFakeTimers')) add(node, 'delay');
      return;
    }
    if (node.type === 'ImportDeclaration' && /^(node:)?timers\/promises$/.test(String((node.source as Node).value))) {
      for (const s of node.specifiers as Node[]) promiseTimers.add(identifierName(s.local) ?? '');
      return;
    }
    if (node.type !== 'CallExpression') return;
    const callee = identifierName(node.callee);
    if (callee && promiseTimers.has(callee)) return wait(node, ancestors);
    const calleeNode = node.callee as Node;
    if (calleeNode.type === 'MemberExpression' && promiseTimers.has(identifierName(calleeNode.object) ?? '')) return wait(node, ancestors);
    if (!timerCalled(node)) return;
    const cb = (node.arguments as Node[])[0];
    // The function the timer is set in, and whether it is a promise's executor.
    let fnIndex = -1;
    for (let i = ancestors.length - 1; i >= 0; i--) {
      if (isFunction(ancestors[i]!)) {
        fnIndex = i;
        break;
      }
    }
    const fn = ancestors[fnIndex];
    const outer = ancestors[fnIndex - 1];
    const executor = fn && outer?.type === 'NewExpression' && identifierName(outer.callee) === 'Promise' && (outer.arguments as Node[])[0] === fn;
    if (executor && fn && outer) {
      const resolveName = identifierName((fn.params as Node[])[0]);
      const resolves = resolveName !== undefined && cb !== undefined && (identifierName(cb) === resolveName || (isFunction(cb) && calls(cb, resolveName)));
      // An interval that resolves once a condition holds reads it again and again: a poll.
      if (resolves) timerCalled(node) === 'setInterval' ? add(node, 'poll') : wait(outer, ancestors.slice(0, fnIndex - 1));
      return;
    }
    if (ancestors.at(-1)?.type === 'ExpressionStatement') add(node, 'delay');
  });
  if (helpers.size > 0) {
    walk(ast, (node, ancestors) => {
      if (node.type === 'CallExpression' && helpers.has(identifierName(node.callee) ?? '')) wait(node, ancestors);
    });
  }
  return [...found.values()].sort((a, b) => a.line - b.line);
}

/** The fixed sleeps of files (paths relative to `root`). */
export function scanFiles(root: string, files: string[]): FixedSleep[] {
  return files.flatMap((f) => scanSource(readFileSync(join(root, f), 'utf8'), f));
}

/**
 * Every TypeScript file under test/ (paths relative to `root`): tests, their helpers and the
 * programs they start (the fixtures' programs included), but not the snapshots.
 */
export function testSources(root: string): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const p = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return entry.name.endsWith('snapshots') ? [] : under(p);
      return entry.name.endsWith('.ts') ? [p] : [];
    });
  return under('test').sort();
}

/** As a script: the fixed sleeps of the files named, or of every one of testSources. */
function main(): void {
  const root = resolve(import.meta.dirname, '../..');
  const files = process.argv.length > 2 ? process.argv.slice(2) : testSources(root);
  const found = scanFiles(root, files);
  for (const f of found) process.stdout.write(`${f.file}:${f.line}\t${f.kind}\t${f.text}\n`);
  process.stdout.write(`${found.length} fixed sleeps in ${new Set(found.map((f) => f.file)).size} files\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
