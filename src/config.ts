// Configuration from the environment and the matching command-line flags (flags win).
// Every bad value is refused with a message naming the variable, the flag and the fix, in the
// member's language (WORKSPACE_LOCALE, else the system locale; the catalog is src/i18n.ts).
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { detectLocale, t, type Locale, type MessageKey } from './i18n.js';
import { TOOLSETS, type Toolset } from './operation.js';

export type { Locale } from './i18n.js';
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

export interface Config {
  /** Workspace origin; undefined means the embedded sandbox. */
  workspaceUrl?: string;
  token?: string;
  locale: Locale;
  /**
   * What tools/list shows: 'default' (unset) = the small assistant surface plus the catalog gateway;
   * 'all' = one tool per operation; a list of areas = one tool per operation of those areas.
   */
  toolsets: Toolset[] | 'all' | 'default';
  readOnly: boolean;
  logLevel: LogLevel;
  timeoutMs: number;
  rateLimit: { limit: number; windowMs: number };
  maxRetryAfterSeconds: number;
  downloadDir: string;
  uploadDirs: string[];
  /** Characters of text one tool result may carry before it is cut at a record boundary. */
  responseBudget: number;
  /** Where state that outlives a session is kept (the cached live OpenAPI description). */
  configDir: string;
  /**
   * How long a job tool (analysis run, export, generation...) follows its job before answering with
   * its id and how to check again: an assistant's patience, not the job's length. 0: never follow.
   */
  jobWaitSeconds: number;
  /** Serve Streamable HTTP on this loopback address instead of stdio; undefined means stdio. */
  http?: { host: string; port: number };
}

export class ConfigError extends Error {}

/** One entry per setting: the variable, its flag, and what it accepts (shown in errors and --help). */
export const SETTINGS = [
  { env: 'WORKSPACE_URL', flag: '--workspace-url', help: 'Workspace origin, e.g. https://acme.workspace-consulting.com (https; http only on loopback). Unset: the embedded sandbox.' },
  { env: 'WORKSPACE_TOKEN', flag: '--token', help: 'Personal access token (pat_...).' },
  { env: 'WORKSPACE_LOCALE', flag: '--locale', help: 'en or fr: language of API messages. Default en.' },
  { env: 'WORKSPACE_TOOLSETS', flag: '--toolsets', help: `Unset: the default surface (25 tools for the three main jobs, and a gateway to every operation). Or a comma list of areas (${TOOLSETS.join(', ')}), or all (one tool per operation).` },
  { env: 'WORKSPACE_READ_ONLY', flag: '--read-only', help: 'true: write tools are neither listed nor callable.' },
  { env: 'LOG_LEVEL', flag: '--log-level', help: 'trace, debug, info, warn, error, fatal or silent. Default info (on stderr).' },
  { env: 'WORKSPACE_TIMEOUT_MS', flag: '--timeout-ms', help: 'Per-request timeout in milliseconds. Default 30000.' },
  { env: 'WORKSPACE_RATE_LIMIT', flag: '--rate-limit', help: 'Client-side budget as REQUESTS/SECONDS. Default 120/60 (the API limit).' },
  { env: 'WORKSPACE_MAX_RETRY_AFTER', flag: '--max-retry-after', help: 'Longest Retry-After (seconds) waited before giving up. Default 120.' },
  { env: 'WORKSPACE_DOWNLOAD_DIR', flag: '--download-dir', help: 'Folder for downloaded files. Default ~/Downloads/workspace-consulting.' },
  { env: 'WORKSPACE_RESPONSE_BUDGET', flag: '--response-budget', help: 'Most characters of text in one tool result; longer results are cut at a record boundary with a note on how to get the rest. Default 20000.' },
  { env: 'WORKSPACE_CONFIG_DIR', flag: '--config-dir', help: 'Folder for state kept between runs (cached API description). Default ~/.config/workspace-consulting-mcp.' },
  { env: 'WORKSPACE_JOB_WAIT_SECONDS', flag: '--job-wait-seconds', help: 'How long a tool that starts a job (analysis run, export, generation) follows it before answering with the job id and how to check again; 0 answers at once. Default 45.' },
  { env: 'WORKSPACE_UPLOAD_DIRS', flag: '--upload-dirs', help: "Folders (separated by : or ; on Windows) whose files may be uploaded by path, besides the client's roots." },
  { env: 'WORKSPACE_HTTP', flag: '--http', help: 'true: serve MCP over Streamable HTTP at /mcp instead of stdio (for agents that speak HTTP). Default false.' },
  { env: 'WORKSPACE_HTTP_PORT', flag: '--port', help: 'Port of the HTTP endpoint (with --http); 0 picks a free one. Default 8765.' },
  { env: 'WORKSPACE_HTTP_HOST', flag: '--host', help: 'Address the HTTP endpoint listens on (with --http): loopback only (127.0.0.1, ::1 or localhost), since it holds your workspace credentials and asks no client for any. Default 127.0.0.1.' },
] as const;

type SettingEnv = (typeof SETTINGS)[number]['env'];

type FixKey = Extract<MessageKey, `config.fix.${string}`>;

/** Refuses a setting in the member's language (src/i18n.ts): the setting, its flag, the value, the fix. */
function fail<K extends FixKey>(locale: Locale, env: SettingEnv, value: string, fix: K, ...params: Parameters<typeof t<K>> extends [Locale, K, ...infer P] ? P : never): never {
  const flag = SETTINGS.find((s) => s.env === env)?.flag ?? '';
  const fixText = (t as (l: Locale, k: MessageKey, ...p: unknown[]) => string)(locale, fix, ...params);
  throw new ConfigError(t(locale, 'config.invalid', { env, flag, value: JSON.stringify(value), fix: fixText }));
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Parse `--flag value`, `--flag=value` and bare boolean flags into env-style keys. */
export function flagsToEnv(argv: string[], locale: Locale = detectLocale()): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new ConfigError(t(locale, 'config.unexpected_argument', { arg: JSON.stringify(arg) }));
    const [name, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const setting = SETTINGS.find((s) => s.flag === name);
    if (!setting) throw new ConfigError(t(locale, 'config.unknown_option', { name }));
    if ((name === '--read-only' || name === '--http') && inline === undefined) {
      out[setting.env] = 'true';
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(t(locale, 'config.needs_value', { name, help: setting.help }));
    out[setting.env] = value;
  }
  return out;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = []): Config {
  const v = { ...env, ...flagsToEnv(argv, detectLocale(env)) } as Record<string, string | undefined>;
  // The language of every refusal below: the flags' --locale counts too, when it is valid.
  const L = detectLocale(v);
  const get = (k: SettingEnv) => {
    const x = v[k]?.trim();
    return x === '' ? undefined : x;
  };

  let workspaceUrl: string | undefined;
  const rawUrl = get('WORKSPACE_URL');
  if (rawUrl !== undefined) {
    let u: URL;
    try {
      u = new URL(rawUrl);
    } catch {
      fail(L, 'WORKSPACE_URL', rawUrl, 'config.fix.url_format');
    }
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopbackHost(u.hostname))) {
      fail(L, 'WORKSPACE_URL', rawUrl, 'config.fix.url_https');
    }
    if (u.username || u.password) fail(L, 'WORKSPACE_URL', rawUrl, 'config.fix.url_credentials');
    // The API root is origin + /api/v1: accept a pasted API root or trailing slash, keep the origin.
    const path = u.pathname.replace(/\/+$/, '');
    if (path !== '' && path !== '/api/v1') fail(L, 'WORKSPACE_URL', rawUrl, 'config.fix.url_path', { origin: u.origin });
    workspaceUrl = u.origin;
  }

  const token = get('WORKSPACE_TOKEN');
  if (token !== undefined && !/^pat_[A-Za-z0-9_-]{8,}$/.test(token)) {
    // Never echo a token back, even a malformed one.
    throw new ConfigError(t(L, 'config.bad_token'));
  }

  const locale = get('WORKSPACE_LOCALE') ?? 'en';
  if (locale !== 'en' && locale !== 'fr') fail(L, 'WORKSPACE_LOCALE', locale, 'config.fix.locale');

  let toolsets: Toolset[] | 'all' | 'default' = 'default';
  const rawSets = get('WORKSPACE_TOOLSETS');
  if (rawSets?.toLowerCase() === 'all') toolsets = 'all';
  else if (rawSets?.toLowerCase() === 'default') toolsets = 'default';
  else if (rawSets !== undefined) {
    const names = rawSets.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
    const unknown = names.filter((n) => !(TOOLSETS as readonly string[]).includes(n));
    if (unknown.length || names.length === 0) fail(L, 'WORKSPACE_TOOLSETS', rawSets, 'config.fix.toolsets', { unknown: unknown.join(', ') || '(empty)', choices: TOOLSETS.join(', ') });
    toolsets = [...new Set(names)] as Toolset[];
  }

  const rawRo = get('WORKSPACE_READ_ONLY') ?? 'false';
  const ro = rawRo.toLowerCase();
  if (!['true', 'false', '1', '0', 'yes', 'no'].includes(ro)) fail(L, 'WORKSPACE_READ_ONLY', rawRo, 'config.fix.boolean');
  const readOnly = ro === 'true' || ro === '1' || ro === 'yes';

  const logLevel = (get('LOG_LEVEL') ?? 'info').toLowerCase();
  if (!['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'].includes(logLevel)) {
    fail(L, 'LOG_LEVEL', logLevel, 'config.fix.log_level');
  }

  const timeoutRaw = get('WORKSPACE_TIMEOUT_MS') ?? '30000';
  const timeoutMs = Number(timeoutRaw);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 600_000) {
    fail(L, 'WORKSPACE_TIMEOUT_MS', timeoutRaw, 'config.fix.timeout');
  }

  const rateRaw = get('WORKSPACE_RATE_LIMIT') ?? '120/60';
  const m = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(rateRaw);
  const limit = Number(m?.[1]);
  const windowMs = Math.round(Number(m?.[2]) * 1000);
  if (!m || limit < 1 || limit > 120 || windowMs < 10) {
    fail(L, 'WORKSPACE_RATE_LIMIT', rateRaw, 'config.fix.rate_limit');
  }

  const capRaw = get('WORKSPACE_MAX_RETRY_AFTER') ?? '120';
  const maxRetryAfterSeconds = Number(capRaw);
  if (!Number.isFinite(maxRetryAfterSeconds) || maxRetryAfterSeconds < 0 || maxRetryAfterSeconds > 3600) {
    fail(L, 'WORKSPACE_MAX_RETRY_AFTER', capRaw, 'config.fix.retry_after');
  }

  const downloadDir = resolve(get('WORKSPACE_DOWNLOAD_DIR') ?? join(homedir(), 'Downloads', 'workspace-consulting'));

  const rawUploads = get('WORKSPACE_UPLOAD_DIRS');
  const uploadDirs = (rawUploads ?? '').split(delimiter).map((d) => d.trim()).filter(Boolean);
  for (const d of uploadDirs) if (!isAbsolute(d)) fail(L, 'WORKSPACE_UPLOAD_DIRS', d, 'config.fix.absolute_folders');

  const budgetRaw = get('WORKSPACE_RESPONSE_BUDGET') ?? '20000';
  const responseBudget = Number(budgetRaw);
  if (!Number.isInteger(responseBudget) || responseBudget < 1000 || responseBudget > 1_000_000) {
    fail(L, 'WORKSPACE_RESPONSE_BUDGET', budgetRaw, 'config.fix.response_budget');
  }

  const rawConfigDir = get('WORKSPACE_CONFIG_DIR');
  if (rawConfigDir !== undefined && !isAbsolute(rawConfigDir)) fail(L, 'WORKSPACE_CONFIG_DIR', rawConfigDir, 'config.fix.absolute_folder');
  const xdg = v.XDG_CONFIG_HOME?.trim();
  const configDir = rawConfigDir ?? join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), 'workspace-consulting-mcp');

  const waitRaw = get('WORKSPACE_JOB_WAIT_SECONDS') ?? '45';
  const jobWaitSeconds = Number(waitRaw);
  if (!/^\d+(\.\d+)?$/.test(waitRaw) || jobWaitSeconds > 600) {
    fail(L, 'WORKSPACE_JOB_WAIT_SECONDS', waitRaw, 'config.fix.job_wait');
  }

  const rawHttp = get('WORKSPACE_HTTP') ?? 'false';
  if (!['true', 'false', '1', '0', 'yes', 'no'].includes(rawHttp.toLowerCase())) fail(L, 'WORKSPACE_HTTP', rawHttp, 'config.fix.boolean');
  let http: Config['http'];
  if (['true', '1', 'yes'].includes(rawHttp.toLowerCase())) {
    const portRaw = get('WORKSPACE_HTTP_PORT') ?? '8765';
    const port = Number(portRaw);
    if (!Number.isInteger(port) || port < 0 || port > 65535) fail(L, 'WORKSPACE_HTTP_PORT', portRaw, 'config.fix.http_port');
    const host = get('WORKSPACE_HTTP_HOST') ?? '127.0.0.1';
    // The endpoint has no client authentication of its own and acts with the member's token, so it
    // must not be reachable from another machine.
    if (!isLoopbackHost(host)) fail(L, 'WORKSPACE_HTTP_HOST', host, 'config.fix.http_host');
    http = { host, port };
  }

  return {
    workspaceUrl,
    token,
    locale,
    toolsets,
    readOnly,
    logLevel: logLevel as LogLevel,
    timeoutMs,
    rateLimit: { limit, windowMs },
    maxRetryAfterSeconds,
    downloadDir,
    uploadDirs,
    responseBudget,
    configDir,
    jobWaitSeconds,
    ...(http ? { http } : {}),
  };
}
