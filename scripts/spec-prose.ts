// Writes catalog/spec-prose.ts: what the API's specification says about each operation, for
// find_operations to search (at a low weight, beside each entry's own words). Taken from the spec's
// text (test/fixtures/workspace-consulting-api.md, the copy of the API's public specification kept
// beside its list of documented operations):
// - each area's purpose, from the table of functional areas;
// - each endpoint's payload cell, from the endpoint tables (where it says more than "list");
// - for a write, the fields and values of the resource its body takes (Resources and their fields),
//   named by its payload ("body AI profile", "guide topic", "multipart artifact upload"), or below
//   where the payload names none.
// Types and constraints (string, required, max 255) are left out: they say nothing of what an
// operation is for. test/catalog/spec-prose.test.ts checks that the file is what this script
// writes from the spec. Run: `npx tsx scripts/spec-prose.ts [spec.md]`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { catalog } from '../catalog/index.js';
import { type Operation, type SpecProse, TOOLSETS } from '../src/operation.js';

export const SPEC = fileURLToPath(new URL('../test/fixtures/workspace-consulting-api.md', import.meta.url));
const OUT = fileURLToPath(new URL('../catalog/spec-prose.ts', import.meta.url));

/** Bodies whose payload cell names no resource of the spec: the resource (or its sentence) they take. */
const BODY_OF: Readonly<Record<string, string>> = {
  'PATCH /me': 'Current member update',
  'POST /workspace/invitations': 'Invitation create',
  'PATCH /workspace/members/{member}': 'Member update',
  'PATCH /workspace/branding': 'Branding',
  'POST /engagements/{engagement}/deliverable/comments/{comment}/reply': 'Deliverable comment',
  'POST /engagements/{engagement}/change-proposals/accept-all': 'Change proposal',
  'POST /engagements/{engagement}/change-proposals/reject-all': 'Change proposal',
};

interface Section {
  title: string;
  lines: string[];
}

/** The `### ` sections under one `## ` heading. */
function sections(md: string, chapter: string): Section[] {
  const lines = md.split('\n');
  const from = lines.indexOf(`## ${chapter}`);
  if (from < 0) throw new Error(`the spec has no chapter "${chapter}"`);
  const out: Section[] = [];
  for (const line of lines.slice(from + 1)) {
    if (line.startsWith('## ')) break;
    if (line.startsWith('### ')) out.push({ title: line.slice(4).trim(), lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

/** The rows of the tables among these lines, cells trimmed, header and rule rows left out. */
function rows(lines: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    if (!l.startsWith('|')) continue;
    const next = lines[i + 1] ?? '';
    if (/^\|[-| ]+\|$/.test(l) || /^\|[-| ]+\|$/.test(next)) continue;
    out.push(
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  return out;
}

/** A field table's words without its types and constraints. */
function clean(text: string): string {
  return text
    .replace(/\b(?:inner shape not given|not shown|string or null|array of|length \d+|max \d+(?: chars| items?)?|min \d+(?: items?)?)\b/g, ' ')
    .replace(/\b(?:string|integer|boolean|number|object|null|required|optional|yes|no|field|type|constraint)\b/gi, ' ')
    .replace(/\d+/g, ' ')
    .replace(/[^\p{L}_,.:;() -]+/gu, ' ')
    .replace(/\b(?:answers|result returned with|or)\b(?=\s*[);,.]|\s*$)/g, ' ')
    .replace(/\(\s*(?:or\s*)?\)/g, ' ')
    .replace(/\s+([,;:.)])/g, '$1')
    .replace(/([,;:(])(?:\s*[,;:])+/g, '$1')
    .replace(/[,;:]\s*(?=[.)]|$)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Each resource of "Resources and their fields" and its words: a table row of its own where a table lists several. */
function resources(md: string): Map<string, string> {
  const out = new Map<string, string>();
  const name = (title: string) =>
    title
      .replace(/\(.*?\)/g, '')
      .trim()
      .toLowerCase();
  for (const s of sections(md, 'Resources and their fields')) {
    if (/^(common conventions|other resources named only)$/i.test(s.title)) continue;
    const table = rows(s.lines);
    const header = s.lines.find((l) => l.startsWith('|')) ?? '';
    if (/^\| Resource \|/.test(header)) {
      for (const [r = '', fields = ''] of table) out.set(name(r), clean(`${r} ${fields}`));
      continue;
    }
    // Sentences of their own ("Branding: primary_color ..."): a resource of their own.
    const text: string[] = [];
    for (const l of s.lines) {
      const own = /^([A-Z][a-z]+): (.*)$/.exec(l);
      if (own && !l.startsWith('|')) out.set(name(own[1] as string), clean(l));
      else text.push(l.startsWith('|') ? '' : l);
    }
    out.set(name(s.title), clean(`${s.title.replace(/\(.*?\)/g, '')} ${table.map((r) => r.join(' ')).join(' ')} ${text.join(' ')}`));
  }
  return out;
}

const key = (method: string, path: string) => `${method} ${path}`;

export function specProse(md: string, ops: readonly Operation[]): SpecProse {
  const areas: Record<string, string> = {};
  const service = md.slice(md.indexOf('## What the service does'), md.indexOf('## Resources and their fields'));
  for (const [tag = '', purpose = ''] of rows(service.split('\n'))) {
    const t = tag
      .replace(/\(.*?\)/g, '')
      .trim()
      .toLowerCase();
    const toolset = (TOOLSETS as readonly string[]).includes(t) ? t : t.replace(/s$/, '');
    if (!(TOOLSETS as readonly string[]).includes(toolset)) throw new Error(`the spec's area "${tag}" is no toolset`);
    areas[toolset] = purpose;
  }
  const bodies = resources(md);
  const byRoute = new Map(ops.map((o) => [key(o.method, o.path), o]));
  const operations: Record<string, string> = {};
  for (const s of sections(md, 'Endpoints')) {
    for (const [method = '', path = '', , payload = ''] of rows(s.lines)) {
      const op = byRoute.get(key(method, path));
      if (!op) continue;
      const said = [payload.replace(/\b(?:list|none|\d{3})\b/g, ' ')];
      if (method !== 'GET') {
        // The resource the payload names, outside its parentheses (which list values: "workspace, method").
        const named = BODY_OF[key(method, path)]?.toLowerCase();
        const lower = payload.toLowerCase().replace(/\(.*?\)/g, ' ');
        for (const [r, text] of bodies) if (named === r || new RegExp(`\\b${r}\\b`).test(lower)) said.push(text);
      }
      const text = clean(said.join('. ')).replace(/^[.\s]+/, '');
      if (text) operations[op.name] = text;
    }
  }
  return { areas, operations };
}

function render(p: SpecProse): string {
  const obj = (o: Record<string, string>) =>
    `{\n${Object.entries(o)
      .map(([k, v]) => `  ${k}: ${JSON.stringify(v)},`)
      .join('\n')}\n}`;
  return `// Generated by scripts/spec-prose.ts from the API's specification: do not edit (run the script).
// What the spec says about each area and each operation it documents, which find_operations searches.
import type { SpecProse } from '../src/operation.js';

export const specProse: SpecProse = {
  areas: ${obj(p.areas)},
  operations: ${obj(p.operations)},
};
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const md = readFileSync(process.argv[2] ?? SPEC, 'utf8');
  writeFileSync(OUT, render(specProse(md, catalog)));
  execFileSync(process.execPath, [fileURLToPath(new URL('../node_modules/@biomejs/biome/bin/biome', import.meta.url)), 'format', '--write', OUT], {
    stdio: 'inherit',
  });
}
