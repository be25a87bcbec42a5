// How each scenario of the official conformance suite stands with this server, per protocol revision:
// read from test/conformance/expected-failures-REVISION.yml, which is at once the suite's baseline
// (its `server` key) and the classification test/conformance/conformance.test.ts checks against a run.
// scripts/generate-docs.ts writes the figures of docs/development.md from it, so they hold as long as that test does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The requirement sets of the suite this server is run against: one per protocol era it speaks. */
export const REVISIONS = ['2026-07-28', '2025-11-25'] as const;
export type Revision = (typeof REVISIONS)[number];

/** Kinds of reason a baselined failure may give, and of pass that does not count. */
export const FAILURE_KINDS = ['fixture', 'tasks', 'not offered'] as const;
export const UNCOUNTED_KINDS = ['unknown tool', 'skipped'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];
export type UncountedKind = (typeof UNCOUNTED_KINDS)[number];

export interface Entry {
  /** `scenario`, or `scenario:check` for one check of a scenario. */
  name: string;
  scenario: string;
  check?: string;
  /** The comment lines above the entry's group, joined. */
  reason: string;
  /** The kinds the reason starts with (`fixture, not offered: ...`). */
  kinds: string[];
}

export interface Classification {
  revision: Revision;
  file: string;
  /** Scenarios that exercise this server: every check passes but those baselined one by one. */
  applicable: Entry[];
  /** Scenarios that pass without exercising this server: not counted as passes. */
  uncounted: Entry[];
  /** The suite's baseline: whole scenarios, or single checks, that fail, each for its reason. */
  failing: Entry[];
}

export const classificationFile = (revision: Revision) => join(ROOT, `test/conformance/expected-failures-${revision}.yml`);

const SECTIONS = { applicable: 'applicable', passes_not_counted: 'uncounted', server: 'failing' } as const;

/**
 * Reads the file's own small subset of YAML: top-level keys, list entries, and comment groups (comment
 * lines, then the entries they give the reason of, up to a blank line). Anything else is refused, so a
 * line this reader would misread cannot slip through while the suite's YAML parser reads it otherwise.
 */
export function parseClassification(text: string, revision: Revision, file = classificationFile(revision)): Classification {
  const out: Classification = { revision, file, applicable: [], uncounted: [], failing: [] };
  let section: (typeof SECTIONS)[keyof typeof SECTIONS] | undefined;
  let reason: string[] = [];
  let afterEntry = false;
  text.split('\n').forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    if (/^\s*$/.test(line)) {
      reason = [];
      afterEntry = false;
      return;
    }
    const comment = /^\s*#\s?(.*)$/.exec(line);
    if (comment) {
      if (afterEntry) reason = [];
      afterEntry = false;
      reason.push((comment[1] as string).trim());
      return;
    }
    const key = /^([a-z_]+):\s*$/.exec(line);
    if (key) {
      const s = SECTIONS[key[1] as keyof typeof SECTIONS];
      if (!s) throw new Error(`${where}: unknown key "${key[1]}" (known: ${Object.keys(SECTIONS).join(', ')})`);
      section = s;
      reason = [];
      return;
    }
    const entry = /^ {2}- ([a-z0-9-]+)(?::([a-z0-9-]+))?\s*$/.exec(line);
    if (!entry || !section) throw new Error(`${where}: not a key, an entry "  - scenario[:check]" under a key, or a comment: ${line}`);
    const text = reason.join(' ');
    const kinds = /^([a-z ,]+):/.exec(text)?.[1]?.split(/,\s*/) ?? [];
    out[section].push({
      name: entry[2] ? `${entry[1]}:${entry[2]}` : (entry[1] as string),
      scenario: entry[1] as string,
      ...(entry[2] ? { check: entry[2] } : {}),
      reason: text,
      kinds,
    });
    afterEntry = true;
  });
  return out;
}

export function readClassification(revision: Revision): Classification {
  return parseClassification(readFileSync(classificationFile(revision), 'utf8'), revision);
}

/** Every scenario the classification names, once each (a scenario with baselined checks is applicable). */
export function scenariosOf(c: Classification): string[] {
  return [...new Set([...c.applicable, ...c.uncounted, ...c.failing].map((e) => e.scenario))];
}

/** The figures docs/development.md quotes for one revision: the scenarios the suite runs, and those that apply (all pass). */
export function figures(revision: Revision): { run: number; applicable: number } {
  const c = readClassification(revision);
  return { run: scenariosOf(c).length, applicable: c.applicable.length };
}

/** The version of the suite installed, which the test runs. */
export function suiteVersion(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/conformance/package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
