// The CI audit step: a high or critical advisory in the runtime dependencies fails the build; an
// advisory service that cannot be asked is reported as not checked. A stand-in npm plays the service.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/audit-runtime.mjs', import.meta.url));

function runWith(report: unknown) {
  const dir = mkdtempSync(join(tmpdir(), 'wcm-audit-'));
  const npm = join(dir, 'npm');
  writeFileSync(npm, `#!/bin/sh\ncat <<'JSON'\n${JSON.stringify(report)}\nJSON\n[ "$3" = "--json" ] || echo "human report"\n`);
  chmodSync(npm, 0o755);
  return spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', env: { ...process.env, PATH: `${dir}:${process.env.PATH}` } });
}

describe('CI audit of runtime dependencies', () => {
  it('fails on a high or critical advisory', () => {
    const r = runWith({ metadata: { vulnerabilities: { low: 0, moderate: 1, high: 1, critical: 0 } } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/1 high or critical/);
  });

  it('passes with none', () => {
    const r = runWith({ metadata: { vulnerabilities: { low: 2, moderate: 1, high: 0, critical: 0 } } });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/0 high or critical, 1 moderate, 2 low/);
  });

  it('says loudly that nothing was checked when the service refuses', () => {
    const r = runWith({ message: '405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk', statusCode: 405 });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/WARNING: the advisory service could not be asked \(405 Method Not Allowed/);
    expect(r.stderr).toMatch(/NOT checked/);
  });
});
