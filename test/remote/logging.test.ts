// Defence in depth behind "no token in a log line": if a message ever carried an OAuth token of the
// workspace (wco_) or of this server (wcm_), the logger's scrubber removes it, and the scanner every
// test file runs would flag it.
import { describe, expect, it } from 'vitest';
import { scrub } from '../../src/log.js';
import { findTokenMaterial } from '../reliability/token-scan.js';

describe('OAuth tokens in log lines', () => {
  it('are scrubbed by prefix wherever they appear, and flagged by the scanner when not', () => {
    const tokens = [
      `wco_at_${'A'.repeat(43)}`,
      `wco_rt_${'b-'.repeat(21)}x`,
      `wcm_at_${'c_'.repeat(21)}y`,
      `wcm_rt_${'d'.repeat(24)}.${'e'.repeat(43)}`,
      `wcm_ac_${'f'.repeat(43)}`,
    ];
    const line = JSON.stringify({ msg: `refresh failed for ${tokens[0]}`, cause: `invalid_grant (${tokens.slice(1).join(', ')})` });
    expect(findTokenMaterial(line).length).toBe(tokens.length);
    const clean = scrub(line);
    for (const t of tokens) expect(clean).not.toContain(t);
    expect(clean).toContain('wco_at_[redacted]');
    expect(findTokenMaterial(clean)).toEqual([]);
  });
});
