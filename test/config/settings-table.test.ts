// Each setting is declared once, as a row of SETTINGS in src/config.ts: the Config type, --help, the
// generated settings table and every refusal come from it. Adding a setting is adding its row.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderConfig } from '../../scripts/generate-docs.js';
import { ConfigError, loadConfig, SETTINGS, settingHelp } from '../../src/config.js';

const ROOT = join(import.meta.dirname, '../..');
const CONFIG_MODULE = readFileSync(join(ROOT, 'src/config.ts'), 'utf8');

/** How often `name` appears in `text` as a whole name (WORKSPACE_HTTP is not in WORKSPACE_HTTP_PORT). */
const occurrences = (text: string, name: string) => (text.match(new RegExp(`(?<![A-Z0-9_])${name}(?![A-Z0-9_])`, 'g')) ?? []).length;

/** The Markdown files holding the generated settings table (between the config markers). */
function settingsTables(): Array<{ file: string; block: string }> {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  const out: Array<{ file: string; block: string }> = [];
  for (const file of ['README.md', ...docs]) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const block = /<!-- config:start[^>]*-->\n([\s\S]*?)<!-- config:end -->/.exec(text)?.[1];
    if (block !== undefined) out.push({ file, block });
  }
  return out;
}

/** The (variable, flag) of each line of a generated settings table. */
const rowsOf = (block: string) =>
  [...block.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| `(--[a-z-]+)` \|/gm)].map((m) => ({ env: m[1] as string, flag: m[2] as string }));

describe('one declaration per setting', () => {
  it("names each setting's variable once or twice in the config module: its row, and at most a message", () => {
    const counts = Object.fromEntries(SETTINGS.map((s) => [s.env, occurrences(CONFIG_MODULE, s.env)]));
    for (const [env, n] of Object.entries(counts)) {
      expect(n, `${env} appears ${n} times in src/config.ts`).toBeGreaterThanOrEqual(1);
      expect(n, `${env} appears ${n} times in src/config.ts`).toBeLessThanOrEqual(2);
    }
    // Its row is where it is declared: `env: 'NAME'`, once.
    for (const s of SETTINGS) expect(CONFIG_MODULE.split(`env: '${s.env}',`).length - 1, s.env).toBe(1);
  });

  it('gives every setting its own variable, flag and Config field', () => {
    for (const field of ['env', 'flag', 'key'] as const) {
      const values = SETTINGS.map((s) => s[field]);
      expect(new Set(values).size, field).toBe(values.length);
    }
    for (const s of SETTINGS) expect(s.flag, s.env).toMatch(/^--[a-z][a-z-]*$/);
  });

  it('parses every default through its setting: the configuration with nothing set loads', () => {
    expect(() => loadConfig({})).not.toThrow();
  });

  it("refuses a bad value naming the row's variable and flag, whichever setting it is", () => {
    // A value no setting accepts as it is (a control character is no number, URL, folder or name).
    for (const s of SETTINGS.filter((st) => !['WORKSPACE_DOWNLOAD_DIR', 'WORKSPACE_HTTP_HOST', 'WORKSPACE_METRICS_HOST'].includes(st.env))) {
      let error: unknown;
      try {
        loadConfig({ LANG: 'C', [s.env]: 'x\u0001y' });
      } catch (e) {
        error = e;
      }
      expect(error, s.env).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).setting).toBe(s.env);
      expect((error as ConfigError).message).toMatch(new RegExp(`^Invalid ${s.env} \\(${s.flag}\\): \\S`));
    }
  });

  it('shows each default in --help, after the help of its row', () => {
    const timeout = SETTINGS.find((s) => s.env === 'WORKSPACE_TIMEOUT_MS');
    expect(timeout && settingHelp(timeout)).toBe('Per-request timeout in milliseconds. Default 30000.');
    const url = SETTINGS.find((s) => s.env === 'WORKSPACE_URL');
    expect(url && settingHelp(url)).toBe(url?.help);
  });
});

describe('the generated settings table', () => {
  it('is somewhere in the docs, and lists every setting with its flag, in the order of SETTINGS', () => {
    const tables = settingsTables();
    expect(tables.map((t) => t.file)).toHaveLength(1);
    const [{ block }] = tables as [{ file: string; block: string }];
    expect(rowsOf(block)).toEqual(SETTINGS.map((s) => ({ env: s.env, flag: s.flag })));
  });

  it('is rendered with a line per setting, its default or unset, and its help', () => {
    const lines = renderConfig().split('\n').slice(2);
    expect(rowsOf(lines.join('\n'))).toEqual(SETTINGS.map((s) => ({ env: s.env, flag: s.flag })));
    expect(lines.find((l) => l.startsWith('| `WORKSPACE_TIMEOUT_MS`'))).toBe(
      '| `WORKSPACE_TIMEOUT_MS` | `--timeout-ms` | `30000` | Per-request timeout in milliseconds. |',
    );
    expect(lines.find((l) => l.startsWith('| `REDIS_URL`'))).toMatch(/^\| `REDIS_URL` \| `--redis-url` \| unset \| redis:\/\//);
  });
});
