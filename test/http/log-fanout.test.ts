// Several HTTP sessions, one logger: each session gets the lines at the level it asked for, and the
// logger itself is tapped at the lowest level any session still wants.
import { describe, expect, it } from 'vitest';
import { createLogger, type LogTap } from '../../src/log.js';
import { LogFanout } from '../../src/log-fanout.js';

describe('LogFanout', () => {
  it('gives each session the lines at or above its own level', () => {
    const { logger, setTap } = createLogger('silent', () => {});
    const fanout = new LogFanout(setTap);
    const [a, b] = [{}, {}];
    const got = { a: [] as string[], b: [] as string[] };
    fanout.forSession(a)((level, entry) => got.a.push(`${level}:${String(entry.msg)}`), 'debug');
    fanout.forSession(b)((level, entry) => got.b.push(`${level}:${String(entry.msg)}`), 'error');
    logger.debug('detail');
    logger.error('broken');
    expect(got.a).toEqual(['debug:detail', 'error:broken']);
    expect(got.b).toEqual(['error:broken']);
  });

  it('stops a closed session from receiving lines, and lets the logger drop to the level left', () => {
    const taps: [LogTap | undefined, string][] = [];
    const { logger, setTap } = createLogger('silent', () => {});
    const fanout = new LogFanout((tap, level) => {
      taps.push([tap, level]);
      setTap(tap, level);
    });
    const [a, b] = [{}, {}];
    const got: string[] = [];
    fanout.forSession(a)(() => got.push('a'), 'debug');
    fanout.forSession(b)(() => got.push('b'), 'warn');
    fanout.drop(a);
    expect(taps.at(-1)?.[1]).toBe('warn');
    logger.info('quiet');
    logger.warn('loud');
    expect(got).toEqual(['b']);
    fanout.drop(b);
    expect(taps.at(-1)?.[0]).toBeUndefined();
    logger.error('nobody');
    expect(got).toEqual(['b']);
  });
});
