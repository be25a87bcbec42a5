// Lists the exports of src/ and catalog/ that no other file uses: an export is used when a file that
// imports its module (a static or dynamic import, a re-export, or a path written out, as the bench
// builds them) names it. Tests count as users. Erring on the side of "used": a name that merely
// appears in an importing file keeps the export. `npx tsx scripts/unused-exports.ts` prints them, one
// per line as file: name; test/scripts/unused-exports.test.ts holds the list empty.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where exports are looked for. */
const CHECKED = ['src', 'catalog'];
/** Where their users may be. */
const SCANNED = ['src', 'catalog', 'scripts', 'test', 'bench', 'apps', 'lint'];

function tsFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return entries.filter((f) => /\.(ts|tsx|mts)$/.test(f) && !f.endsWith('.d.ts') && !f.split('/').includes('node_modules')).map((f) => join(dir, f));
}

/** The names a module exports (declarations, export lists and re-exports; not `default`). */
export function exportedNames(text: string): string[] {
  const names = new Set<string>();
  const declared = /^\s*export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;
  for (const m of text.matchAll(declared)) names.add(m[1] as string);
  for (const m of text.matchAll(/^\s*export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const part of (m[1] as string).split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name && name !== 'default') names.add(name);
    }
  }
  return [...names];
}

/** Module specifiers of a file: static and dynamic imports, re-exports. */
function specifiers(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)'([^']+)'/gm)].map((m) => m[1] as string);
}

/** The file a relative specifier names (`./x.js` is ./x.ts), or undefined for a package. */
function resolveSpecifier(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const target = join(dirname(from), spec).replace(/\.js$/, '');
  for (const ext of ['.ts', '.tsx', '.mts', '/index.ts']) {
    const candidate = target + ext;
    if (files.has(candidate)) return candidate;
  }
  return undefined;
}

const texts = new Map<string, string>();
for (const dir of SCANNED) for (const f of tsFiles(dir)) texts.set(f, readFileSync(join(ROOT, f), 'utf8'));
const files = new Set(texts.keys());

/** For each file, the files that import it (directly, through a re-export, or by a written-out path). */
function importers(): Map<string, Set<string>> {
  const by = new Map<string, Set<string>>();
  const add = (target: string, user: string) => {
    if (target === user) return;
    const set = by.get(target) ?? new Set<string>();
    set.add(user);
    by.set(target, set);
  };
  for (const [file, text] of texts) {
    for (const spec of specifiers(text)) {
      const target = resolveSpecifier(file, spec);
      if (target) add(target, file);
    }
    // Paths built at run time: `modules + '/src/mcp/server/session.js'`.
    for (const m of text.matchAll(/'\/((?:src|catalog)\/[\w/.-]+)\.js'/g)) {
      const target = `${m[1]}.ts`;
      if (files.has(target)) add(target, file);
    }
  }
  return by;
}

/** Every unused export of the checked folders, as `file: name`. */
export function unusedExports(): string[] {
  const by = importers();
  const out: string[] = [];
  for (const [file, text] of texts) {
    if (!CHECKED.some((d) => file.startsWith(`${d}/`))) continue;
    const users = by.get(file) ?? new Set<string>();
    for (const name of exportedNames(text)) {
      const word = new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`);
      if (![...users].some((u) => word.test(texts.get(u) ?? ''))) out.push(`${relative(ROOT, join(ROOT, file))}: ${name}`);
    }
  }
  return out.sort();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const list = unusedExports();
  process.stdout.write(list.length ? `${list.join('\n')}\n` : '');
  process.stderr.write(`${list.length} exports used nowhere outside their file\n`);
}
