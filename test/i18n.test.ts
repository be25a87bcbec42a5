// Messages a person reads follow the member's language, like the API's: WORKSPACE_LOCALE, else the
// system locale, else English.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { detectLocale } from '../src/i18n.js';

describe('locale of messages', () => {
  it.each([
    [{}, 'en'],
    [{ LANG: 'fr_FR.UTF-8' }, 'fr'],
    [{ LANG: 'fr' }, 'fr'],
    [{ LANG: 'en_US.UTF-8', LC_ALL: 'fr_CA.UTF-8' }, 'fr'],
    [{ LANG: 'fr_FR.UTF-8', LC_ALL: 'C' }, 'en'],
    [{ LANG: 'fr_FR.UTF-8', WORKSPACE_LOCALE: 'en' }, 'en'],
    [{ LANG: 'en_GB', WORKSPACE_LOCALE: 'fr' }, 'fr'],
    [{ LANG: 'french' }, 'en'],
  ])('%o speaks %s', (env, locale) => {
    expect(detectLocale(env)).toBe(locale);
  });

  // The value itself is never repeated (it may be a secret pasted into the wrong setting).
  it('refuses a setting in French for a French member, naming the same setting and flag', () => {
    const env = { WORKSPACE_URL: 'http://acme.example.com', LANG: 'fr_FR.UTF-8' };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(
      "WORKSPACE_URL (--workspace-url) invalide : utilisez https (http simple n'est accepté que pour les adresses locales comme 127.0.0.1)",
    );
    expect(() => loadConfig({ WORKSPACE_LOCALE: 'fr' }, ['--nope'])).toThrow('Option inconnue --nope');
    expect(() => loadConfig({}, ['--locale', 'fr', '--timeout-ms', '5'])).toThrow(
      /WORKSPACE_TIMEOUT_MS \(--timeout-ms\) invalide : utilisez un nombre entier de millisecondes/,
    );
  });

  it('keeps English for everyone else, word for word', () => {
    expect(() => loadConfig({ WORKSPACE_LOCALE: 'de' })).toThrow('Invalid WORKSPACE_LOCALE (--locale): use en or fr');
  });
});
