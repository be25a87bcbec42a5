// `npm audit` of the runtime dependencies: a high or critical advisory fails the build. When the
// advisory service cannot be asked at all (no network, or a registry proxy that refuses its POST),
// say so loudly and go on: the build cannot prove a negative it could not check, and failing every
// build for a network policy would hide real failures behind a permanent red.
import { spawnSync } from 'node:child_process';

const r = spawnSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8', shell: process.platform === 'win32' });
let report;
try {
  report = JSON.parse(r.stdout || '{}');
} catch {
  report = {};
}
const counts = report?.metadata?.vulnerabilities;
if (!counts) {
  const why = report?.message || report?.error?.summary || report?.error?.code || 'no report';
  process.stderr.write(`audit: WARNING: the advisory service could not be asked (${String(why).trim()}); runtime dependencies NOT checked\n`);
  process.exit(0);
}
const high = (counts.high ?? 0) + (counts.critical ?? 0);
process.stderr.write(`audit: runtime dependencies: ${high} high or critical, ${counts.moderate ?? 0} moderate, ${counts.low ?? 0} low\n`);
if (high > 0) {
  spawnSync('npm', ['audit', '--omit=dev', '--audit-level=high'], { stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(1);
}
