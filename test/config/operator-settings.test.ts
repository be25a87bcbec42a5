// The settings of the rate budget's edge and of what the operator is told: WORKSPACE_MAX_BUDGET_WAIT
// (seconds, at most 60: past it, clients give up on a call that waits silently), WORKSPACE_AUDIT
// (stderr, file:/absolute/path, redis or redis:N, the last needing REDIS_URL) and the metrics port and
// host (off unless a port is given; loopback unless told otherwise).
import { describe, expect, it } from 'vitest';
import { AUDIT_STREAM_DEFAULT_MAXLEN, loadConfig } from '../../src/config.js';

describe('operator settings', () => {
  it('the budget wait is bounded by 30 s by default, settable up to 60 s and no further, flag or variable', () => {
    expect(loadConfig({}).maxBudgetWaitMs).toBe(30_000);
    expect(loadConfig({ WORKSPACE_MAX_BUDGET_WAIT: '7.5' }).maxBudgetWaitMs).toBe(7_500);
    expect(loadConfig({}, ['--max-budget-wait', '60']).maxBudgetWaitMs).toBe(60_000);
    expect(() => loadConfig({ WORKSPACE_MAX_BUDGET_WAIT: '61' })).toThrow(/WORKSPACE_MAX_BUDGET_WAIT.*--max-budget-wait.*between 0 and 60/);
    expect(() => loadConfig({ WORKSPACE_MAX_BUDGET_WAIT: 'soon' })).toThrow(/WORKSPACE_MAX_BUDGET_WAIT/);
  });

  it('a call whose client gave a progress token may wait longer: 300 s by default, settable up to an hour', () => {
    expect(loadConfig({}).maxBudgetWaitWithProgressMs).toBe(300_000);
    expect(loadConfig({ WORKSPACE_MAX_BUDGET_WAIT_WITH_PROGRESS: '45' }).maxBudgetWaitWithProgressMs).toBe(45_000);
    expect(loadConfig({}, ['--max-budget-wait-with-progress', '3600']).maxBudgetWaitWithProgressMs).toBe(3_600_000);
    expect(() => loadConfig({ WORKSPACE_MAX_BUDGET_WAIT_WITH_PROGRESS: '3601' })).toThrow(/WORKSPACE_MAX_BUDGET_WAIT_WITH_PROGRESS.*between 0 and 3600/);
  });

  it('no audit trail and no metrics unless asked', () => {
    const c = loadConfig({});
    expect(c.audit).toBeUndefined();
    expect(c.metrics).toBeUndefined();
  });

  it('the audit trail goes to stderr, an absolute file, or a capped Redis stream when there is a Redis', () => {
    expect(loadConfig({ WORKSPACE_AUDIT: 'stderr' }).audit).toEqual({ kind: 'stderr' });
    expect(loadConfig({ WORKSPACE_AUDIT: 'file:/var/log/wcm/audit.log' }).audit).toEqual({ kind: 'file', path: '/var/log/wcm/audit.log' });
    const redis = { REDIS_URL: 'redis://127.0.0.1:6379' };
    expect(loadConfig({ ...redis, WORKSPACE_AUDIT: 'redis' }).audit).toEqual({ kind: 'redis', maxLen: AUDIT_STREAM_DEFAULT_MAXLEN });
    expect(loadConfig({ ...redis }, ['--audit', 'redis:5000']).audit).toEqual({ kind: 'redis', maxLen: 5000 });
    expect(() => loadConfig({ WORKSPACE_AUDIT: 'redis' })).toThrow(/WORKSPACE_AUDIT.*REDIS_URL/);
    for (const bad of ['file:relative.log', 'syslog', 'redis:0', 'file:']) expect(() => loadConfig({ WORKSPACE_AUDIT: bad })).toThrow(/WORKSPACE_AUDIT/);
  });

  it('metrics listen on loopback unless another address is given', () => {
    expect(loadConfig({ WORKSPACE_METRICS_PORT: '9464' }).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadConfig({ WORKSPACE_METRICS_PORT: '0', WORKSPACE_METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ host: '0.0.0.0', port: 0 });
    expect(() => loadConfig({ WORKSPACE_METRICS_PORT: '70000' })).toThrow(/WORKSPACE_METRICS_PORT/);
    expect(() => loadConfig({ WORKSPACE_METRICS_PORT: '9464', WORKSPACE_METRICS_HOST: 'not a host!' })).toThrow(/WORKSPACE_METRICS_HOST/);
  });
});
