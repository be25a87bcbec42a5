import { describe, expect, it } from 'vitest';
import { createLogger, scrub } from '../../src/log.js';

describe('logging', () => {
  it('scrubs tokens wherever they appear in a line', () => {
    const line = JSON.stringify({ msg: 'calling with pat_abcdef1234567890', headers: 'Authorization: Bearer eyJhbGciOi.x.y', refresh_token: 'r-123' });
    const out = scrub(line);
    expect(out).not.toContain('pat_abcdef1234567890');
    expect(out).not.toContain('eyJhbGciOi');
    expect(out).not.toContain('r-123');
  });

  it('writes to the given sink (stderr in production), never a token, at every level', () => {
    const lines: string[] = [];
    const { logger } = createLogger('trace', (l) => lines.push(l));
    for (const lv of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const) {
      logger[lv]({ token: 'pat_leak000000000000', nested: { authorization: 'Bearer pat_leak2222222222' } }, `msg with pat_leak111111111111`);
    }
    expect(lines).toHaveLength(6);
    for (const l of lines) expect(l).not.toMatch(/pat_leak/);
  });

  it('forwards to a tap at the level asked, even below the stderr level', () => {
    const lines: string[] = [];
    const tapped: string[] = [];
    const { logger, setTap } = createLogger('warn', (l) => lines.push(l));
    logger.debug('hidden');
    setTap((level) => tapped.push(level), 'debug');
    logger.debug('to the client only');
    logger.warn('both');
    expect(tapped).toEqual(['debug', 'warn']);
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['both']);
  });
});
