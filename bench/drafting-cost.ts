// `npm run bench`, the drafting part: the deliverable job of an unattended agent (bench/drafting.ts)
// done four ways through the built server on a sandbox at real speed with its rate limit on (120
// requests a minute). Prints the table and writes bench/results/drafting.json, which docs/code-mode.md's
// table is generated from (npm run docs); fails when a way costs more than its ceiling.
// Run: npx tsx bench/drafting-cost.ts (after npm run build).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DRAFTING_RESULTS, draftingTable, overCeilings, runDrafting } from './drafting.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, '.bench-out');
const CLI = join(ROOT, 'dist/src/cli.js');

if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npm run bench` (it builds first)');
mkdirSync(OUT, { recursive: true });
process.stderr.write('drafting: one deliverable job four ways at real speed on a rate-limited sandbox\n');
const results = await runDrafting({ command: process.execPath, args: [CLI], cwd: ROOT, scale: 1 });
const costs = results.map((r) => r.cost);
process.stdout.write(
  `drafting: the executive summary refreshed from the validated findings and exported as PDF; o200k tokens of what the model reads and writes\n${draftingTable(costs)}\n`,
);
const record = `${JSON.stringify({ date: new Date().toISOString(), node: process.version, costs }, null, 2)}\n`;
writeFileSync(join(OUT, 'drafting.json'), record);
writeFileSync(DRAFTING_RESULTS, record);
process.stdout.write('written: .bench-out/drafting.json and bench/results/drafting.json\n');
const over = overCeilings(costs);
if (over.length) {
  process.stderr.write(`drafting: over the ceiling:\n${over.join('\n')}\n`);
  process.exitCode = 1;
}
