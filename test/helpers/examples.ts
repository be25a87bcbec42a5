// An entry's example arguments (its `example` facet) with the demo ids filled in: what the tests that
// call every operation send, so a new entry is called without a line written for it there.
import type { Operation } from '../../src/operation.js';
import { demoIds } from '../../src/sandbox/index.js';

let demo: Record<string, string> | undefined;

/** `$demo.<kind>` -> what it names on a freshly started sandbox (the areas' `demo` declarations). */
export function demoValues(): Record<string, string> {
  demo ??= demoIds();
  return demo;
}

/** The example's arguments, `$demo.<kind>` replaced by what it names; undefined for an entry without one. */
export function exampleArguments(op: Pick<Operation, 'name' | 'example'>): Record<string, unknown> | undefined {
  if (!op.example) return undefined;
  const values = demoValues();
  return Object.fromEntries(
    Object.entries(op.example).map(([k, v]) => {
      if (typeof v !== 'string' || !v.startsWith('$demo.')) return [k, v];
      const id = values[v.slice('$demo.'.length)];
      if (!id) throw new Error(`${op.name}: example ${k} names ${v}, which no sandbox area declares (${Object.keys(values).join(', ')})`);
      return [k, id];
    }),
  );
}
