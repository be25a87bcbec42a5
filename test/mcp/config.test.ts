import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const base = { WORKSPACE_URL: 'https://acme.workspace-consulting.com', WORKSPACE_TOKEN: 'pat_abcdefghijklmnop' };

describe('configuration', () => {
  it('reads the environment, with defaults', () => {
    const c = loadConfig(base);
    expect(c.workspaceUrl).toBe('https://acme.workspace-consulting.com');
    expect(c.locale).toBe('en');
    expect(c.toolsets).toBe('default');
    expect(c.readOnly).toBe(false);
    expect(c.rateLimit).toEqual({ limit: 120, windowMs: 60_000 });
    expect(c.timeoutMs).toBe(30_000);
  });

  it('flags win over the environment', () => {
    const c = loadConfig(base, ['--locale', 'fr', '--read-only', '--toolsets=analysis,deliverables']);
    expect(c.locale).toBe('fr');
    expect(c.readOnly).toBe(true);
    expect(c.toolsets).toEqual(['analysis', 'deliverables']);
  });

  it('accepts a pasted API root and keeps the origin', () => {
    expect(loadConfig({ ...base, WORKSPACE_URL: 'https://acme.workspace-consulting.com/api/v1/' }).workspaceUrl).toBe('https://acme.workspace-consulting.com');
  });

  it.each([
    [{ WORKSPACE_URL: 'http://acme.example.com' }, /WORKSPACE_URL.*https/],
    [{ WORKSPACE_URL: 'not a url' }, /WORKSPACE_URL.*full URL/],
    [{ WORKSPACE_URL: 'https://a.example.com/some/path' }, /without a path/],
    [{ WORKSPACE_LOCALE: 'de' }, /WORKSPACE_LOCALE.*en or fr/],
    [{ WORKSPACE_TOOLSETS: 'analysis,nope' }, /WORKSPACE_TOOLSETS.*name 2 of 2 is not an area/],
    [{ WORKSPACE_READ_ONLY: 'maybe' }, /WORKSPACE_READ_ONLY.*true or false/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ WORKSPACE_RATE_LIMIT: '500/60' }, /WORKSPACE_RATE_LIMIT.*at most 120/],
    [{ WORKSPACE_TIMEOUT_MS: '-3' }, /WORKSPACE_TIMEOUT_MS/],
  ])('refuses %o with a message naming the setting and the fix', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });

  it('allows plain http on loopback only', () => {
    expect(loadConfig({ WORKSPACE_URL: 'http://127.0.0.1:8080' }).workspaceUrl).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ WORKSPACE_URL: 'http://globex.localhost:8080' }).workspaceUrl).toBe('http://globex.localhost:8080');
  });

  it('never echoes a malformed token', () => {
    try {
      loadConfig({ ...base, WORKSPACE_TOKEN: 'secret-value-123' });
      expect.unreachable();
    } catch (err) {
      expect(String(err)).toMatch(/WORKSPACE_TOKEN/);
      expect(String(err)).not.toContain('secret-value-123');
    }
  });

  it('refuses unknown flags and flags without a value', () => {
    expect(() => loadConfig(base, ['--nope'])).toThrow(/Unknown option --nope/);
    expect(() => loadConfig(base, ['--locale'])).toThrow(/needs a value/);
  });

  it('chooses the surface: unset or default, all, or a list of areas', () => {
    expect(loadConfig(base).toolsets).toBe('default');
    expect(loadConfig({ ...base, WORKSPACE_TOOLSETS: 'default' }).toolsets).toBe('default');
    expect(loadConfig({ ...base, WORKSPACE_TOOLSETS: 'ALL' }).toolsets).toBe('all');
    expect(() => loadConfig({ ...base, WORKSPACE_TOOLSETS: 'analysis,nope' })).toThrow(/name 2 of 2 is not an area; give a comma list of areas from ai, /);
    expect(() => loadConfig({ ...base, WORKSPACE_TOOLSETS: 'analysys' })).toThrow(/name 1 of 1 is not an area \(did you mean analysis\?\)/);
  });

  it('reads the response budget and the config folder, refusing nonsense', () => {
    expect(loadConfig(base).responseBudget).toBe(6_000);
    expect(loadConfig({ ...base, WORKSPACE_RESPONSE_BUDGET: '5000' }).responseBudget).toBe(5000);
    expect(() => loadConfig({ ...base, WORKSPACE_RESPONSE_BUDGET: '10' })).toThrow(/WORKSPACE_RESPONSE_BUDGET .*between 500 and 250000/);
    expect(loadConfig({ ...base, XDG_CONFIG_HOME: '/xdg' }).configDir).toBe('/xdg/workspace-consulting-mcp');
    expect(loadConfig({ ...base, WORKSPACE_CONFIG_DIR: '/state/wcm' }).configDir).toBe('/state/wcm');
    expect(() => loadConfig({ ...base, WORKSPACE_CONFIG_DIR: 'relative' })).toThrow(/absolute folder path/);
  });
});
