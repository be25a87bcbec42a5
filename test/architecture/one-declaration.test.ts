// One way to declare a tool (docs/architecture.md, One declaration): catalog entries for operations, `defineTool` for every other
// tool (workflows, gateway, apps, scripts, block edits). A tool's name is written once, its hints are
// required by the type system, and its scope follows from them, so a ToolSpec literal written by hand
// (naming itself twice, its scope free to disagree with its hints) fails here, naming the module.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/mcp/pipeline/tool-spec.js';
import { ROOT } from '../helpers/spawn.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Where a tool's definition is built: defineTool, and an operation's tool from its catalog entry. */
const BUILDERS = ['src/mcp/pipeline/tool-spec.ts', 'src/mcp/pipeline/pipeline.ts'];

const input = z.strictObject({ engagement: z.string() });
const run = async () => ({ content: [] });

describe('one way to declare a tool', () => {
  it('no module but the two builders writes a tool definition or a ToolSpec literal by hand', () => {
    const found: string[] = [];
    for (const file of files(join(ROOT, 'src'))) {
      const rel = relative(ROOT, file);
      if (BUILDERS.includes(rel)) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/^\s+definition: \{|: ToolSpec = \{|ToolSpec => \(\{/.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('holds one tool in each file of src/mcp/tools, and nothing else there', () => {
    // docs/architecture.md, Layers: a reader finds a tool by its name, and infrastructure elsewhere.
    const dir = join(ROOT, 'src/mcp/tools');
    const declared = readdirSync(dir).map((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      // `name: 'x'`, or the shorthand `name` for a `const name = 'x'` the file also uses elsewhere.
      const constant = /const name = '([a-z_]+)'/.exec(text)?.[1];
      const names = [...text.matchAll(/defineTool\(\{\s*name(?:: '([a-z_]+)'|,)/g)].map((m) => m[1] ?? constant);
      return { name, names };
    });
    expect(declared.filter((d) => d.names.length !== 1)).toEqual([]);
    // Each file is named for its tool.
    expect(declared.filter((d) => d.name !== `${(d.names[0] ?? '').replace(/_/g, '-')}.ts`).map((d) => `${d.name}: ${d.names[0]}`)).toEqual([]);
  });

  it('names a tool once, lists its hints as the catalog does, and takes its scope from them', () => {
    const read = defineTool({ name: 'a_read', description: 'Reads.', annotations: { readOnlyHint: true }, input, outputSchema: { type: 'object' }, run });
    const write = defineTool({
      name: 'a_write',
      description: 'Writes.',
      annotations: { readOnlyHint: false, destructiveHint: true },
      input,
      outputSchema: { type: 'object' },
      run,
    });
    expect(read.name).toBe('a_read');
    expect(read.definition.name).toBe('a_read');
    expect(read.scope).toBe('read');
    expect(read.definition.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(read.definition.inputSchema).toMatchObject({ type: 'object', properties: { engagement: { type: 'string' } } });
    expect(read.quotesContent).toBe(false);
    expect(write.scope).toBe('write');
    expect(write.definition.annotations).toEqual({ destructiveHint: true, openWorldHint: false });
    // And refuses, when tsc checks this file, a tool without hints, without readOnlyHint or without an
    // output schema (docs/tool-results.md): never called, each line must fail to compile.
    // @ts-expect-error: annotations are required.
    const noHints = () => defineTool({ name: 'x', description: 'x', input, outputSchema: { type: 'object' }, run });
    // @ts-expect-error: readOnlyHint is required among the hints.
    const noReadOnly = () => defineTool({ name: 'x', description: 'x', annotations: {}, input, outputSchema: { type: 'object' }, run });
    // @ts-expect-error: outputSchema is required.
    const noOutput = () => defineTool({ name: 'x', description: 'x', annotations: { readOnlyHint: true }, input, run });
    expect([noHints, noReadOnly, noOutput]).toHaveLength(3);
  });
});
