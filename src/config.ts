// Configuration from the environment and the matching command-line flags (flags win). Each setting
// is declared once, as a row of SETTINGS: its variable, flag, help, default, schema, the Config field
// it fills and the fix its refusal shows. The Config type, --help, the generated settings table
// (scripts/generate-docs.ts) and every refusal come from those rows; the rules that tie settings
// together (what each HTTP mode may listen on, what the remote mode needs) are in `compose`.
// Every bad value is refused with a message naming the variable, the flag and the shape it needs,
// in the member's language (WORKSPACE_LOCALE, else the system locale; the catalog is src/i18n.ts).
//
// A refusal never repeats the value it was given: clients keep a server's stderr in log files, and
// a token pasted into the wrong setting (the URL, its user-info, the locale, the toolsets...) must
// not land there. Messages say which setting, which part of it (the 2nd name of a list, a URL's
// path) and what it must look like, never what it holds.
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { detectLocale, type Locale, type MessageKey, t } from './i18n.js';
import { isLoopbackHost, loopbackListenAddress } from './net/loopback.js';
import { TOOLSETS, type Toolset } from './operation.js';
import { isRedisSentinelUrl, parseRedisSentinelUrl } from './store/redis-sentinel-url.js';

export type { Locale } from './i18n.js';
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** Where the audit trail is written: its own log stream on stderr, a file, or a capped Redis stream. */
export type AuditTarget = { kind: 'stderr' } | { kind: 'file'; path: string } | { kind: 'redis'; maxLen: number };

/** How many entries the Redis audit stream keeps, about (XADD MAXLEN ~), unless `redis:N` says. */
export const AUDIT_STREAM_DEFAULT_MAXLEN = 100_000;

export class ConfigError extends Error {
  /** The setting refused (its environment variable), when the refusal is about one. */
  readonly setting: string | undefined;
  constructor(message: string, setting?: string) {
    super(message);
    this.setting = setting;
  }
}

type FixKey = Extract<MessageKey, `config.fix.${string}`>;
type FixParams = Record<string, string | number>;

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const satisfies readonly LogLevel[];
const BOOLEAN_WORDS = ['true', 'false', '1', '0', 'yes', 'no'] as const;

/** Refuse the value being parsed with `fix` (and its parameters, which never hold the value). */
function refuse(ctx: z.RefinementCtx, fix: FixKey, params: FixParams = {}, path: string[] = []): typeof z.NEVER {
  ctx.addIssue({ code: 'custom', message: fix, params: { fix, fixParams: params }, path });
  return z.NEVER;
}

// Building blocks: each reads a setting's text (trimmed; unset and blank are both undefined).
const boolean = z
  .string()
  .toLowerCase()
  .pipe(z.enum(BOOLEAN_WORDS))
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const wholeNumber = (min: number, max: number) => z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(min).max(max));
const decimal = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .transform(Number)
    .pipe(z.number().min(min).max(max));
const absoluteFolder = z.string().refine((d) => isAbsolute(d));

/** A URL, or undefined (the text is never quoted: it may be a token pasted by mistake). */
function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** https, or http on a loopback host: a token sent in clear text on a network is a token given away. */
const secureOrLoopback = (u: URL) => u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname));

const workspaceUrl = z.string().transform((raw, ctx) => {
  const u = parseUrl(raw);
  if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:')) return refuse(ctx, 'config.fix.url_format');
  if (u.username || u.password) return refuse(ctx, 'config.fix.url_credentials');
  if (!secureOrLoopback(u)) return refuse(ctx, 'config.fix.url_https');
  // The API root is origin + /api/v1: accept a pasted API root or trailing slash, keep the origin.
  const path = u.pathname.replace(/\/+$/, '');
  if ((path !== '' && path !== '/api/v1') || u.search || u.hash) return refuse(ctx, 'config.fix.url_path');
  return u.origin;
});

const publicUrl = z.string().transform((raw, ctx) => {
  const u = parseUrl(raw);
  if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:')) return refuse(ctx, 'config.fix.public_url');
  if (u.username || u.password) return refuse(ctx, 'config.fix.url_credentials');
  if (!secureOrLoopback(u)) return refuse(ctx, 'config.fix.url_https');
  if ((u.pathname !== '' && u.pathname !== '/') || u.search || u.hash) return refuse(ctx, 'config.fix.public_url');
  return u.origin;
});

const redisUrl = z.string().transform((raw, ctx) => {
  // Sentinels, and the name of the master they watch: src/store/redis-sentinel-url.ts.
  if (isRedisSentinelUrl(raw)) return parseRedisSentinelUrl(raw) ? raw : refuse(ctx, 'config.fix.redis_url');
  const u = parseUrl(raw);
  if (!u || (u.protocol !== 'redis:' && u.protocol !== 'rediss:')) return refuse(ctx, 'config.fix.redis_url');
  // The optional path is the database number; node-redis reads nothing else from the URL.
  if (u.hostname === '' || !/^(\/\d*)?$/.test(u.pathname) || u.search || u.hash) return refuse(ctx, 'config.fix.redis_url');
  return raw;
});

// 32 bytes in base64 (standard or URL-safe alphabet): 43 characters, or 44 with the padding.
const stateKey = z
  .string()
  .regex(/^[A-Za-z0-9+/_-]{43}=?$/)
  .transform((raw, ctx) => {
    const key = Buffer.from(raw, 'base64');
    if (key.length !== 32) return refuse(ctx, 'config.fix.state_key');
    return new Uint8Array(key);
  });

/** Keys of a rotation in progress: a comma list of keys in the form of WORKSPACE_STATE_KEY. */
const previousStateKeys = z.string().transform((raw, ctx) => {
  const keys: Uint8Array[] = [];
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const parsed = stateKey.safeParse(part);
    if (!parsed.success) return refuse(ctx, 'config.fix.state_key');
    keys.push(parsed.data);
  }
  return keys.length ? keys : undefined;
});

const token = z.string().regex(/^pat_[A-Za-z0-9_-]{8,}$/);

const toolsets = z.string().transform((raw, ctx): Toolset[] | 'all' | 'default' | 'code' => {
  const lower = raw.toLowerCase();
  if (lower === 'all' || lower === 'default' || lower === 'code') return lower;
  const names = lower.split(',').map((s) => s.trim());
  const given = names.filter(Boolean);
  if (given.length === 0) return refuse(ctx, 'config.fix.toolsets_empty', { choices: TOOLSETS.join(', ') });
  for (const [i, name] of given.entries()) {
    if ((TOOLSETS as readonly string[]).includes(name)) continue;
    // The name is never quoted, but a near miss of an area is almost surely a typo of it.
    const near = TOOLSETS.find((area) => name.length >= 3 && editDistance(name, area) <= 2);
    return refuse(ctx, near ? 'config.fix.toolsets_typo' : 'config.fix.toolsets', {
      position: i + 1,
      count: given.length,
      area: near ?? '',
      choices: TOOLSETS.join(', '),
    });
  }
  return [...new Set(given)] as Toolset[];
});

const rateLimit = z.string().transform((raw, ctx) => {
  const m = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(raw);
  const limit = Number(m?.[1]);
  const windowMs = Math.round(Number(m?.[2]) * 1000);
  if (!m || limit < 1 || limit > 120 || windowMs < 10) return refuse(ctx, 'config.fix.rate_limit');
  return { limit, windowMs };
});

const uploadDirs = z.string().transform((raw, ctx) => {
  const dirs = raw
    .split(delimiter)
    .map((d) => d.trim())
    .filter(Boolean);
  const bad = dirs.findIndex((d) => !isAbsolute(d));
  if (bad >= 0) return refuse(ctx, 'config.fix.absolute_folders', { position: bad + 1, count: dirs.length });
  return dirs;
});

const audit = z.string().transform((raw, ctx): AuditTarget => {
  if (raw === 'stderr') return { kind: 'stderr' };
  const file = /^file:(.+)$/.exec(raw);
  if (file && isAbsolute(file[1] as string)) return { kind: 'file', path: resolve(file[1] as string) };
  const redis = /^redis(?::(\d{1,9}))?$/.exec(raw);
  if (redis) {
    const maxLen = redis[1] === undefined ? AUDIT_STREAM_DEFAULT_MAXLEN : Number(redis[1]);
    if (maxLen >= 1) return { kind: 'redis', maxLen };
  }
  return refuse(ctx, 'config.fix.audit');
});

const trustedProxies = z.string().transform((raw, ctx) => {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = entries.findIndex((e) => {
    const [address = '', bits, extra] = e.split('/');
    const family = isIP(address);
    if (family === 0 || extra !== undefined) return true;
    if (bits === undefined) return false;
    return !/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128);
  });
  if (bad >= 0) return refuse(ctx, 'config.fix.trusted_proxies', { position: bad + 1, count: entries.length });
  return entries.length ? entries : undefined;
});

/** A host name or an IP address (IPv6 with or without brackets), as `listen` takes it. */
function listenableHost(host: string): string | undefined {
  const h = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(h) !== 0) return h;
  return /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i.test(h) ? h : undefined;
}

/** A folder where the default is under the home folder: its absolute path. */
const underHome = (...parts: string[]) => join(homedir(), ...parts);

/**
 * One setting, declared once.
 * - `key`: the Config field it fills (or, for the settings `compose` combines, the name it reads).
 * - `schema`: reads the setting's text (trimmed; unset and blank are both unset).
 * - `default`: the text used when unset, parsed by the same schema, shown in --help and the docs as
 *   written (`shown`, with `text(env)` giving the text, when the default depends on the machine).
 *   A setting without one is undefined when unset.
 * - `fix`: what its refusal says to send when the schema names no more precise fix.
 * - `bare`: a boolean flag given without a value means true.
 */
interface SettingRow {
  readonly env: string;
  readonly flag: `--${string}`;
  readonly key: string;
  readonly help: string;
  readonly schema: z.ZodType<unknown, string>;
  readonly default?: string | { readonly shown: string; readonly text: (env: Record<string, string | undefined>) => string };
  readonly fix: FixKey;
  readonly bare?: true;
}

/** Every setting, in the order --help, the docs and refusals list them. */
export const SETTINGS = [
  {
    env: 'WORKSPACE_URL',
    flag: '--workspace-url',
    key: 'workspaceUrl',
    help: 'Workspace origin, e.g. https://acme.workspace-consulting.com (https; http only on loopback). Unset: the embedded sandbox.',
    schema: workspaceUrl,
    fix: 'config.fix.url_format',
  },
  {
    env: 'WORKSPACE_TOKEN',
    flag: '--token',
    key: 'token',
    help: 'Personal access token (pat_...), a secret. Not with --remote, where each client signs in as its member.',
    schema: token,
    fix: 'config.fix.token',
  },
  {
    env: 'WORKSPACE_LOCALE',
    flag: '--locale',
    key: 'locale',
    help: 'en or fr: language of API messages.',
    schema: z
      .string()
      .toLowerCase()
      .pipe(z.enum(['en', 'fr'] as const satisfies readonly Locale[])),
    default: 'en',
    fix: 'config.fix.locale',
  },
  {
    env: 'WORKSPACE_TOOLSETS',
    flag: '--toolsets',
    key: 'toolsets',
    help: `What tools/list shows: default, the default surface (24 tools for the three main jobs, and a gateway to every operation); a comma list of areas (${TOOLSETS.join(', ')}), one tool per operation of those areas; all, one tool per operation; or code, code mode only (the two script tools, find_operations and describe_operation).`,
    schema: toolsets,
    default: 'default',
    fix: 'config.fix.toolsets_empty',
  },
  {
    env: 'WORKSPACE_READ_ONLY',
    flag: '--read-only',
    key: 'readOnly',
    bare: true,
    help: 'true: write tools are neither listed nor callable.',
    schema: boolean,
    default: 'false',
    fix: 'config.fix.boolean',
  },
  {
    env: 'LOG_LEVEL',
    flag: '--log-level',
    key: 'logLevel',
    help: 'trace, debug, info, warn, error, fatal or silent; logs go to stderr.',
    schema: z.string().toLowerCase().pipe(z.enum(LOG_LEVELS)),
    default: 'info',
    fix: 'config.fix.log_level',
  },
  {
    env: 'WORKSPACE_TIMEOUT_MS',
    flag: '--timeout-ms',
    key: 'timeoutMs',
    help: 'Per-request timeout in milliseconds.',
    schema: wholeNumber(100, 600_000),
    default: '30000',
    fix: 'config.fix.timeout',
  },
  {
    env: 'WORKSPACE_RATE_LIMIT',
    flag: '--rate-limit',
    key: 'rateLimit',
    help: 'Client-side budget as REQUESTS/SECONDS (the default is the API limit).',
    schema: rateLimit,
    default: '120/60',
    fix: 'config.fix.rate_limit',
  },
  {
    env: 'WORKSPACE_MAX_RETRY_AFTER',
    flag: '--max-retry-after',
    key: 'maxRetryAfterSeconds',
    help: 'Longest Retry-After (seconds) waited before giving up.',
    schema: decimal(0, 3600),
    default: '120',
    fix: 'config.fix.retry_after',
  },
  {
    env: 'WORKSPACE_MAX_BUDGET_WAIT',
    flag: '--max-budget-wait',
    key: 'maxBudgetWaitMs',
    help: 'Longest time (seconds, at most 60) one call waits for the rate budget, queued or after a 429. A call that would wait longer is answered at once with a tool error saying when the next slot opens, having sent nothing; a call that waits reports progress to clients that asked for it.',
    schema: decimal(0, 60).transform((seconds) => Math.round(seconds * 1000)),
    default: '30',
    fix: 'config.fix.budget_wait',
  },
  {
    env: 'WORKSPACE_MAX_BUDGET_WAIT_WITH_PROGRESS',
    flag: '--max-budget-wait-with-progress',
    key: 'maxBudgetWaitWithProgressMs',
    help: 'Longest time (seconds, at most 3600) one call waits for the rate budget when its client gave a progress token: it is told while it waits what it waits for and about when its turn comes, and a cancellation ends the wait at once.',
    schema: decimal(0, 3600).transform((seconds) => Math.round(seconds * 1000)),
    default: '300',
    fix: 'config.fix.retry_after',
  },
  {
    env: 'WORKSPACE_DOWNLOAD_DIR',
    flag: '--download-dir',
    key: 'downloadDir',
    help: 'Folder for downloaded files. Not used with --remote, which writes nothing to disk.',
    schema: z.string().transform((d) => resolve(d)),
    default: { shown: '~/Downloads/workspace-consulting', text: () => underHome('Downloads', 'workspace-consulting') },
    fix: 'config.fix.absolute_folder',
  },
  {
    env: 'WORKSPACE_RESPONSE_BUDGET',
    flag: '--response-budget',
    key: 'responseBudget',
    help: 'Most o200k tokens (estimated) of text in one tool result; longer results are cut at a record boundary with a note on how many records were left out and the exact call that gets them.',
    schema: wholeNumber(500, 250_000),
    default: '6000',
    fix: 'config.fix.response_budget',
  },
  {
    env: 'WORKSPACE_CONFIG_DIR',
    flag: '--config-dir',
    key: 'configDir',
    help: 'Folder for state kept between runs (cached API description, sign-ins, and the rate budget shared by local processes, in state/state.db); its default is under XDG_CONFIG_HOME when that is set.',
    schema: absoluteFolder,
    default: {
      shown: '~/.config/workspace-consulting-mcp',
      text: ({ XDG_CONFIG_HOME: xdg }) => join(xdg && isAbsolute(xdg) ? xdg : underHome('.config'), 'workspace-consulting-mcp'),
    },
    fix: 'config.fix.absolute_folder',
  },
  {
    env: 'WORKSPACE_JOB_WAIT_SECONDS',
    flag: '--job-wait-seconds',
    key: 'jobWaitSeconds',
    help: "How long a tool that starts a job (analysis run, export, generation) follows it before answering with the job id and how to check again (an assistant's patience, not the job's length); 0 answers at once.",
    schema: decimal(0, 600),
    default: '45',
    fix: 'config.fix.job_wait',
  },
  {
    env: 'WORKSPACE_UPLOAD_DIRS',
    flag: '--upload-dirs',
    key: 'localUploadDirs',
    help: "Folders (separated by : or ; on Windows) whose files may be uploaded by path, besides the client's roots. Not read with --remote (see --remote-upload-dirs).",
    schema: uploadDirs,
    fix: 'config.fix.absolute_folder',
  },
  {
    env: 'WORKSPACE_HTTP',
    flag: '--http',
    key: 'serveHttp',
    bare: true,
    help: 'true: serve MCP over Streamable HTTP at /mcp instead of stdio (for agents that speak HTTP).',
    schema: boolean,
    default: 'false',
    fix: 'config.fix.boolean',
  },
  {
    env: 'WORKSPACE_HTTP_PORT',
    flag: '--port',
    key: 'httpPort',
    help: 'Port of the HTTP endpoint (with --http or --remote); 0 picks a free one.',
    schema: wholeNumber(0, 65_535),
    default: '8765',
    fix: 'config.fix.http_port',
  },
  {
    env: 'WORKSPACE_HTTP_HOST',
    flag: '--host',
    key: 'httpHost',
    help: 'Address the HTTP endpoint listens on. With --http: 127.0.0.1, localhost or ::1 only, since it holds your workspace credentials and asks no client for any. With --remote: any address (e.g. 0.0.0.0), since each client signs in.',
    schema: z.string(),
    default: '127.0.0.1',
    fix: 'config.fix.http_host',
  },
  {
    env: 'WORKSPACE_REMOTE',
    flag: '--remote',
    key: 'serveRemote',
    bare: true,
    help: 'true: the remote mode, for a shared deployment: MCP over HTTP at /mcp, each client signing in as its member with OAuth (no personal token).',
    schema: boolean,
    default: 'false',
    fix: 'config.fix.boolean',
  },
  {
    env: 'WORKSPACE_PUBLIC_URL',
    flag: '--public-url',
    key: 'publicUrl',
    help: 'With --remote: the origin clients reach the server at, e.g. https://mcp.acme.example (https; http only on loopback); every published link starts with it. Needed unless --host is loopback.',
    schema: publicUrl,
    fix: 'config.fix.public_url',
  },
  {
    env: 'WORKSPACE_ALLOW_PERSONAL_TOKENS',
    flag: '--allow-personal-tokens',
    key: 'allowPersonalTokens',
    bare: true,
    help: "With --remote: true also accepts a member's personal token (pat_...) in a header, for unattended agents.",
    schema: boolean,
    default: 'false',
    fix: 'config.fix.boolean',
  },
  {
    env: 'WORKSPACE_REMOTE_UPLOAD_DIRS',
    flag: '--remote-upload-dirs',
    key: 'remoteUploadDirs',
    help: "With --remote: folders of the server (separated by :) whose files every signed-in member may upload by path. Unset (the default): none; members send a file's content in the call. --upload-dirs and client roots are never read in remote mode.",
    schema: uploadDirs,
    fix: 'config.fix.absolute_folder',
  },
  {
    env: 'WORKSPACE_DOWNLOAD_LINK_SECONDS',
    flag: '--download-link-seconds',
    key: 'downloadLinkSeconds',
    help: 'With --remote: how long the link to a downloaded file too large to embed in the tool result stays valid (only for the member who asked).',
    schema: wholeNumber(1, 86_400),
    default: '600',
    fix: 'config.fix.download_link_seconds',
  },
  {
    env: 'REDIS_URL',
    flag: '--redis-url',
    key: 'redisUrl',
    help: 'redis:// or rediss:// URL of a Redis shared by every process and replica (rate budgets, job handles, sign-ins), or redis-sentinel://[user:password@]host:port,host:port/name[/db]: the master those Sentinels know as name, followed through a failover. Unset: state in memory, one process. Its password is a secret: prefer the variable to the flag, which other users can see in the process list.',
    schema: redisUrl,
    fix: 'config.fix.redis_url',
  },
  {
    env: 'WORKSPACE_STATE_KEY',
    flag: '--state-key',
    key: 'stateKey',
    help: 'With --remote and a Redis: 32 random bytes in base64 (openssl rand -base64 32) that encrypt stored tokens; the same on every replica. A secret: prefer the variable to the flag.',
    schema: stateKey,
    fix: 'config.fix.state_key',
  },
  {
    env: 'WORKSPACE_STATE_KEY_PREVIOUS',
    flag: '--state-key-previous',
    key: 'previousStateKeys',
    help: 'With --remote, during a key rotation: the former state key (a comma list for several), still read, never used to encrypt. A secret: prefer the variable to the flag.',
    schema: previousStateKeys,
    fix: 'config.fix.state_key',
  },
  {
    env: 'WORKSPACE_AUDIT',
    flag: '--audit',
    key: 'audit',
    help: 'Where the audit trail goes (one JSON event per tool call, sign-in, grant change and revocation; never argument values or results): stderr (its own log stream, logger "audit"), file:/absolute/path (appended, owner-only), or redis (a stream in the shared Redis capped at about 100000 entries; redis:N for another cap). Unset: no audit trail.',
    schema: audit,
    fix: 'config.fix.audit',
  },
  {
    env: 'WORKSPACE_METRICS_PORT',
    flag: '--metrics-port',
    key: 'metricsPort',
    help: 'Serve Prometheus metrics at /metrics on this port, apart from the MCP endpoint (never on the public port of --remote). Unset: no metrics.',
    schema: wholeNumber(0, 65_535),
    fix: 'config.fix.http_port',
  },
  {
    env: 'WORKSPACE_METRICS_HOST',
    flag: '--metrics-host',
    key: 'metricsHost',
    help: 'Address the metrics port listens on; 0.0.0.0 lets a scraper on another machine in (keep that port off the internet).',
    schema: z.string(),
    default: '127.0.0.1',
    fix: 'config.fix.metrics_host',
  },
  {
    env: 'WORKSPACE_TRUSTED_PROXIES',
    flag: '--trusted-proxies',
    key: 'trustedProxies',
    help: "With --remote: the proxies in front of the replicas (comma list of addresses or networks, e.g. 10.0.0.0/8), whose X-Forwarded-For names the caller for per-address limits (registrations). Unset: the connection's peer is the caller, so behind a proxy all callers share the proxy's count.",
    schema: trustedProxies,
    fix: 'config.fix.trusted_proxies',
  },
] as const satisfies readonly SettingRow[];

type Row = (typeof SETTINGS)[number];
type SettingKey = Row['key'];
/** Each setting's parsed value by its key; undefined when unset, unless the row has a default. */
type Settings = { [R in Row as R['key']]: R extends { default: unknown } ? z.output<R['schema']> : z.output<R['schema']> | undefined };
/** `T` with its possibly-undefined fields made optional, as Config leaves unset settings out. */
type OmitUndefined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** The default of a setting, as it is shown (undefined: the setting is off when unset). */
export function settingDefault(row: Row): string | undefined {
  return 'default' in row ? (typeof row.default === 'string' ? row.default : row.default.shown) : undefined;
}

/** A setting's help as --help shows it: the row's help, then its default. */
export function settingHelp(row: Row): string {
  const shown = settingDefault(row);
  return shown === undefined ? row.help : `${row.help} Default ${shown}.`;
}

/** The settings' lines of --help: flag, variable, help. */
export function settingsUsage(): string {
  return SETTINGS.map((s) => `  ${s.flag.padEnd(23)} ${s.env.padEnd(31)} ${settingHelp(s)}`).join('\n');
}

/** Refuse the configuration on the setting `key` (a rule between settings, not one setting's shape). */
const refuseSetting = (ctx: z.RefinementCtx, key: SettingKey, fix: FixKey): typeof z.NEVER => refuse(ctx, fix, {}, [key]);

/**
 * The Config from the parsed settings: those that fill a field of their own pass through (left out
 * when unset); the others are combined here, with the rules that tie settings together.
 */
function compose(s: Settings, ctx: z.RefinementCtx) {
  const {
    serveHttp,
    serveRemote,
    httpHost,
    httpPort,
    publicUrl,
    allowPersonalTokens,
    downloadLinkSeconds,
    trustedProxies,
    localUploadDirs,
    remoteUploadDirs,
    metricsPort,
    metricsHost,
    ...own
  } = s;
  /**
   * `serve --http`: Streamable HTTP on a loopback address instead of stdio. `host` is one of
   * loopbackHostNames() (src/net/loopback.ts), IPv6 without brackets, as `listen` takes it, so the
   * Host check accepts every request addressed to it.
   */
  let http: { host: string; port: number } | undefined;
  /** `serve --remote`: many members who each sign in (OAuth) over HTTP. When set, `http` is not. */
  let remote: RemoteConfig | undefined;
  if (serveRemote) {
    // The remote server authenticates every client, so it may listen on any address.
    const host = listenableHost(httpHost);
    if (host === undefined) return refuseSetting(ctx, 'httpHost', 'config.fix.remote_host');
    // With a personal token every client would act as its owner: remote clients sign in.
    if (own.token !== undefined) return refuseSetting(ctx, 'token', 'config.fix.token_in_remote');
    // The links it publishes (metadata, the 401's resource_metadata) must name where clients reach it.
    if (publicUrl === undefined && loopbackListenAddress(host) === undefined) return refuseSetting(ctx, 'publicUrl', 'config.fix.public_url_required');
    // Replicas share the store: tokens kept there must be encrypted with the key they all hold.
    if (own.redisUrl !== undefined && own.stateKey === undefined) return refuseSetting(ctx, 'stateKey', 'config.fix.state_key_required');
    remote = {
      host,
      port: httpPort,
      ...(publicUrl !== undefined ? { publicUrl } : {}),
      allowPersonalTokens,
      downloadLinkSeconds,
      ...(trustedProxies !== undefined ? { trustedProxies } : {}),
    };
  } else if (serveHttp) {
    // The endpoint has no client authentication of its own and acts with the member's token, so it
    // must not be reachable from another machine; and it must answer to the Host its clients send.
    const host = loopbackListenAddress(httpHost);
    if (host === undefined) return refuseSetting(ctx, 'httpHost', 'config.fix.http_host');
    http = { host, port: httpPort };
  }

  // The stream lives in the shared Redis: without one there is nowhere to write it.
  if (own.audit?.kind === 'redis' && own.redisUrl === undefined) return refuseSetting(ctx, 'audit', 'config.fix.audit_redis');
  /** Where Prometheus scrapes the metrics; undefined: no metrics. */
  let metrics: { host: string; port: number } | undefined;
  if (metricsPort !== undefined) {
    const host = listenableHost(metricsHost);
    if (host === undefined) return refuseSetting(ctx, 'metricsHost', 'config.fix.metrics_host');
    metrics = { host, port: metricsPort };
  }

  const config = {
    ...(Object.fromEntries(Object.entries(own).filter(([, v]) => v !== undefined)) as OmitUndefined<typeof own>),
    // Remote mode: only the folders the operator opened to every member (none by default); the
    // local setting is never read there, so a local configuration reused for a deployment opens nothing.
    uploadDirs: (remote ? remoteUploadDirs : localUploadDirs) ?? [],
  };
  return { ...config, ...(http ? { http } : {}), ...(remote ? { remote } : {}), ...(metrics ? { metrics } : {}) } as typeof config & {
    http?: typeof http & {};
    remote?: RemoteConfig;
    metrics?: typeof metrics & {};
  };
}

interface RemoteConfig {
  /** Any address: the server authenticates its clients. Default 127.0.0.1 (behind a proxy). */
  host: string;
  port: number;
  /**
   * The public URL as an origin (no trailing slash): where clients reach the server, the base of
   * every link it publishes. Undefined only when `host` is loopback (then the listening address).
   */
  publicUrl?: string;
  /** Accept a member's personal token in a header (unattended agents). */
  allowPersonalTokens: boolean;
  /** Lifetime of a member's link to a file too large to embed. */
  downloadLinkSeconds: number;
  /** Addresses or networks whose X-Forwarded-For names the caller (src/remote/address.ts). */
  trustedProxies?: string[];
}

/** Every setting parsed by its row's schema, keyed by the row's key. */
const SETTINGS_SCHEMA = z.object(Object.fromEntries(SETTINGS.map((s) => [s.key, 'default' in s ? s.schema : s.schema.optional()]))) as unknown as z.ZodType<
  Settings,
  Partial<Record<SettingKey, string>>
>;

/** The configuration schema: every setting parsed by its row, then `compose` (the rules between them). */
const CONFIG_SCHEMA = SETTINGS_SCHEMA.transform(compose);

/**
 * The parsed configuration: the fields of the settings that fill their own (token, redisUrl,
 * stateKey and previousStateKeys are secrets: never logged or shown), plus http, remote, metrics
 * and uploadDirs, which `compose` makes of several.
 */
export type Config = z.output<typeof CONFIG_SCHEMA>;

/** An option name fit to be repeated: a flag's shape, not text that could be a pasted secret. */
const OPTION_NAME = /^--[a-z][a-z-]{0,40}$/;

/** Parse `--flag value`, `--flag=value` and bare boolean flags into env-style keys. */
function flagsToEnv(argv: string[], locale: Locale = detectLocale()): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    // Its position, not its text: a stray argument is as likely a token pasted after a bare flag.
    if (!arg.startsWith('--')) throw new ConfigError(t(locale, 'config.unexpected_argument', { position: i + 1 }));
    const [name, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const setting: Row | undefined = SETTINGS.find((s) => s.flag === name);
    if (!setting) {
      throw new ConfigError(
        OPTION_NAME.test(name) ? t(locale, 'config.unknown_option', { name }) : t(locale, 'config.unknown_option_unnamed', { position: i + 1 }),
      );
    }
    if ('bare' in setting && inline === undefined) {
      out[setting.env] = 'true';
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(t(locale, 'config.needs_value', { name, help: settingHelp(setting) }), setting.env);
    out[setting.env] = value;
  }
  return out;
}

/** The configuration from `env` and `argv` (flags win), or a ConfigError naming the first bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = []): Config {
  const merged = { ...env, ...flagsToEnv(argv, detectLocale(env)) } as Record<string, string | undefined>;
  // The language of every refusal: the flags' --locale counts too, when it is valid.
  const L = detectLocale(merged);
  // Unset and blank are the same: a client's form leaves optional fields empty. An unset setting
  // with a default reads the default's text, through the same schema.
  const input: Partial<Record<SettingKey, string>> = {};
  for (const s of SETTINGS as readonly SettingRow[]) {
    const text = merged[s.env]?.trim() || (typeof s.default === 'string' ? s.default : s.default?.text(merged));
    if (text) input[s.key as SettingKey] = text;
  }
  const parsed = CONFIG_SCHEMA.safeParse(input);
  if (parsed.success) return parsed.data;
  // The first refusal, in SETTINGS order. zod's own issue text is never shown: it may quote the input.
  const order = (issue: z.core.$ZodIssue) => SETTINGS.findIndex((s) => s.key === issue.path[0]);
  const issue = [...parsed.error.issues].sort((a, b) => order(a) - order(b))[0] as z.core.$ZodIssue;
  const setting = SETTINGS[order(issue)] as Row;
  const custom = issue.code === 'custom' ? (issue.params as { fix?: FixKey; fixParams?: FixParams } | undefined) : undefined;
  const fix = (t as (l: Locale, k: MessageKey, p: FixParams) => string)(L, custom?.fix ?? setting.fix, {
    choices: TOOLSETS.join(', '),
    ...custom?.fixParams,
  });
  throw new ConfigError(t(L, 'config.invalid', { env: setting.env, flag: setting.flag, fix }), setting.env);
}

/** Levenshtein distance, for "did you mean" on short names. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length] as number;
}
