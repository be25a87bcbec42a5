// Configuration from the environment and the matching command-line flags (flags win), parsed by one
// zod schema (CONFIG_SCHEMA below). Every bad value is refused with a message naming the variable,
// the flag and the shape it needs, in the member's language (WORKSPACE_LOCALE, else the system
// locale; the catalog is src/i18n.ts).
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
export { isLoopbackHost } from './net/loopback.js';
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** The parsed configuration. Fields marked secret must never be logged or shown. */
export interface Config {
  /** Workspace origin; undefined means the embedded sandbox. */
  workspaceUrl?: string;
  /** Personal token (secret). Never set in remote mode, where each client signs in as its member. */
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
  /** The longest a call waits for the rate budget before it is answered with when to try again. */
  maxBudgetWaitMs: number;
  /** Where downloads are saved: stdio and --http only (the remote mode writes nothing to disk). */
  downloadDir: string;
  /** Folders uploads may read by path: WORKSPACE_UPLOAD_DIRS, or in remote mode WORKSPACE_REMOTE_UPLOAD_DIRS. */
  uploadDirs: string[];
  /** Tokens (an o200k estimate) of text one tool result may carry before it is cut at a record boundary. */
  responseBudget: number;
  /** Where state that outlives a session is kept (the cached live OpenAPI description). */
  configDir: string;
  /**
   * How long a job tool (analysis run, export, generation...) follows its job before answering with
   * its id and how to check again: an assistant's patience, not the job's length. 0: never follow.
   */
  jobWaitSeconds: number;
  /**
   * Serve Streamable HTTP on this loopback address instead of stdio; undefined means stdio (or
   * remote). `host` is one of loopbackHostNames() (src/net/loopback.ts), IPv6 without brackets, as
   * `listen` takes it, so the Host check accepts every request addressed to it.
   */
  http?: { host: string; port: number };
  /**
   * `serve --remote`: the remote mode, serving many members who each sign in (OAuth) over HTTP.
   * When set, `http` is not.
   */
  remote?: RemoteConfig;
  /** REDIS_URL (secret: its password): the shared state store (one Redis, or Sentinels and a master's name); undefined means in memory. */
  redisUrl?: string;
  /** WORKSPACE_STATE_KEY (secret): the 32-byte key that encrypts stored tokens. */
  stateKey?: Uint8Array;
  /** Keys of a key rotation in progress: stored tokens sealed with them are still opened (secrets). */
  previousStateKeys?: Uint8Array[];
  /** WORKSPACE_AUDIT: where the audit trail goes; undefined: no audit trail. */
  audit?: AuditTarget;
  /** WORKSPACE_METRICS_PORT (and _HOST): where Prometheus scrapes the metrics; undefined: no metrics. */
  metrics?: { host: string; port: number };
}

/** Where the audit trail is written: its own log stream on stderr, a file, or a capped Redis stream. */
export type AuditTarget = { kind: 'stderr' } | { kind: 'file'; path: string } | { kind: 'redis'; maxLen: number };

/** How many entries the Redis audit stream keeps, about (XADD MAXLEN ~), unless `redis:N` says. */
export const AUDIT_STREAM_DEFAULT_MAXLEN = 100_000;

export interface RemoteConfig {
  /** Any address: the server authenticates its clients. Default 127.0.0.1 (behind a proxy). */
  host: string;
  port: number;
  /**
   * WORKSPACE_PUBLIC_URL as an origin (no trailing slash): where clients reach the server, the base
   * of every link it publishes. Undefined only when `host` is loopback (then the listening address).
   */
  publicUrl?: string;
  /** WORKSPACE_ALLOW_PERSONAL_TOKENS: accept a member's personal token in a header (unattended agents). */
  allowPersonalTokens: boolean;
  /** WORKSPACE_DOWNLOAD_LINK_SECONDS: lifetime of a member's link to a file too large to embed. */
  downloadLinkSeconds: number;
  /** WORKSPACE_TRUSTED_PROXIES: addresses or networks whose X-Forwarded-For names the caller (src/remote/address.ts). */
  trustedProxies?: string[];
}

export class ConfigError extends Error {
  /** The setting refused (its environment variable), when the refusal is about one. */
  readonly setting: string | undefined;
  constructor(message: string, setting?: string) {
    super(message);
    this.setting = setting;
  }
}

/**
 * One entry per setting: the variable, its flag, and what it accepts (shown in --help and the
 * README). `bare`: a boolean flag given without a value means true.
 */
export const SETTINGS = [
  {
    env: 'WORKSPACE_URL',
    flag: '--workspace-url',
    help: 'Workspace origin, e.g. https://acme.workspace-consulting.com (https; http only on loopback). Unset: the embedded sandbox.',
  },
  { env: 'WORKSPACE_TOKEN', flag: '--token', help: 'Personal access token (pat_...). Not with --remote, where each client signs in as its member.' },
  { env: 'WORKSPACE_LOCALE', flag: '--locale', help: 'en or fr: language of API messages. Default en.' },
  {
    env: 'WORKSPACE_TOOLSETS',
    flag: '--toolsets',
    help: `Unset: the default surface (24 tools for the three main jobs, and a gateway to every operation). Or a comma list of areas (${TOOLSETS.join(', ')}), or all (one tool per operation).`,
  },
  { env: 'WORKSPACE_READ_ONLY', flag: '--read-only', bare: true, help: 'true: write tools are neither listed nor callable.' },
  { env: 'LOG_LEVEL', flag: '--log-level', help: 'trace, debug, info, warn, error, fatal or silent. Default info (on stderr).' },
  { env: 'WORKSPACE_TIMEOUT_MS', flag: '--timeout-ms', help: 'Per-request timeout in milliseconds. Default 30000.' },
  { env: 'WORKSPACE_RATE_LIMIT', flag: '--rate-limit', help: 'Client-side budget as REQUESTS/SECONDS. Default 120/60 (the API limit).' },
  { env: 'WORKSPACE_MAX_RETRY_AFTER', flag: '--max-retry-after', help: 'Longest Retry-After (seconds) waited before giving up. Default 120.' },
  {
    env: 'WORKSPACE_MAX_BUDGET_WAIT',
    flag: '--max-budget-wait',
    help: 'Longest time (seconds, at most 60) one call waits for the rate budget, queued or after a 429. A call that would wait longer is answered at once with a tool error saying when the next slot opens, having sent nothing; a call that waits reports progress to clients that asked for it. Default 30.',
  },
  {
    env: 'WORKSPACE_DOWNLOAD_DIR',
    flag: '--download-dir',
    help: 'Folder for downloaded files. Default ~/Downloads/workspace-consulting. Not used with --remote, which writes nothing to disk.',
  },
  {
    env: 'WORKSPACE_RESPONSE_BUDGET',
    flag: '--response-budget',
    help: 'Most o200k tokens (estimated) of text in one tool result; longer results are cut at a record boundary with a note on how many records were left out and the exact call that gets them. Default 6000.',
  },
  {
    env: 'WORKSPACE_CONFIG_DIR',
    flag: '--config-dir',
    help: 'Folder for state kept between runs (cached API description). Default ~/.config/workspace-consulting-mcp.',
  },
  {
    env: 'WORKSPACE_JOB_WAIT_SECONDS',
    flag: '--job-wait-seconds',
    help: 'How long a tool that starts a job (analysis run, export, generation) follows it before answering with the job id and how to check again; 0 answers at once. Default 45.',
  },
  {
    env: 'WORKSPACE_UPLOAD_DIRS',
    flag: '--upload-dirs',
    help: "Folders (separated by : or ; on Windows) whose files may be uploaded by path, besides the client's roots. Not read with --remote (see WORKSPACE_REMOTE_UPLOAD_DIRS).",
  },
  {
    env: 'WORKSPACE_HTTP',
    flag: '--http',
    bare: true,
    help: 'true: serve MCP over Streamable HTTP at /mcp instead of stdio (for agents that speak HTTP). Default false.',
  },
  { env: 'WORKSPACE_HTTP_PORT', flag: '--port', help: 'Port of the HTTP endpoint (with --http or --remote); 0 picks a free one. Default 8765.' },
  {
    env: 'WORKSPACE_HTTP_HOST',
    flag: '--host',
    help: 'Address the HTTP endpoint listens on. With --http: 127.0.0.1, localhost or ::1 only, since it holds your workspace credentials and asks no client for any. With --remote: any address (e.g. 0.0.0.0), since each client signs in. Default 127.0.0.1.',
  },
  {
    env: 'WORKSPACE_REMOTE',
    flag: '--remote',
    bare: true,
    help: 'true: the remote mode, for a shared deployment: MCP over HTTP at /mcp, each client signing in as its member with OAuth (no WORKSPACE_TOKEN). Default false.',
  },
  {
    env: 'WORKSPACE_PUBLIC_URL',
    flag: '--public-url',
    help: 'With --remote: the origin clients reach the server at, e.g. https://mcp.acme.example (https; http only on loopback); every published link starts with it. Needed unless --host is loopback.',
  },
  {
    env: 'WORKSPACE_ALLOW_PERSONAL_TOKENS',
    flag: '--allow-personal-tokens',
    bare: true,
    help: "With --remote: true also accepts a member's personal token (pat_...) in a header, for unattended agents. Default false.",
  },
  {
    env: 'WORKSPACE_REMOTE_UPLOAD_DIRS',
    flag: '--remote-upload-dirs',
    help: "With --remote: folders of the server (separated by :) whose files every signed-in member may upload by path. Unset (the default): none; members send a file's content in the call. WORKSPACE_UPLOAD_DIRS and client roots are never read in remote mode.",
  },
  {
    env: 'WORKSPACE_DOWNLOAD_LINK_SECONDS',
    flag: '--download-link-seconds',
    help: 'With --remote: how long the link to a downloaded file too large to embed in the tool result stays valid (only for the member who asked). Default 600.',
  },
  {
    env: 'REDIS_URL',
    flag: '--redis-url',
    help: 'redis:// or rediss:// URL of a Redis shared by every process and replica (rate budgets, job handles, sign-ins), or redis-sentinel://[user:password@]host:port,host:port/name[/db]: the master those Sentinels know as name, followed through a failover. Unset: state in memory, one process. Its password is a secret: prefer the variable to the flag, which other users can see in the process list.',
  },
  {
    env: 'WORKSPACE_STATE_KEY',
    flag: '--state-key',
    help: 'With --remote and REDIS_URL: 32 random bytes in base64 (openssl rand -base64 32) that encrypt stored tokens; the same on every replica. A secret: prefer the variable to the flag.',
  },
  {
    env: 'WORKSPACE_STATE_KEY_PREVIOUS',
    flag: '--state-key-previous',
    help: 'With --remote, during a key rotation: the former WORKSPACE_STATE_KEY (a comma list for several), still read, never used to encrypt. A secret: prefer the variable to the flag.',
  },
  {
    env: 'WORKSPACE_AUDIT',
    flag: '--audit',
    help: 'Where the audit trail goes (one JSON event per tool call, sign-in, grant change and revocation; never argument values or results): stderr (its own log stream, logger "audit"), file:/absolute/path (appended, owner-only), or redis (a stream on REDIS_URL capped at about 100000 entries; redis:N for another cap). Unset: no audit trail.',
  },
  {
    env: 'WORKSPACE_METRICS_PORT',
    flag: '--metrics-port',
    help: 'Serve Prometheus metrics at /metrics on this port, apart from the MCP endpoint (never on the public port of --remote). Unset: no metrics.',
  },
  {
    env: 'WORKSPACE_METRICS_HOST',
    flag: '--metrics-host',
    help: 'Address the metrics port listens on. Default 127.0.0.1; 0.0.0.0 lets a scraper on another machine in (keep that port off the internet).',
  },
  {
    env: 'WORKSPACE_TRUSTED_PROXIES',
    flag: '--trusted-proxies',
    help: "With --remote: the proxies in front of the replicas (comma list of addresses or networks, e.g. 10.0.0.0/8), whose X-Forwarded-For names the caller for per-address limits (registrations). Unset: the connection's peer is the caller, so behind a proxy all callers share the proxy's count.",
  },
] as const;

type Setting = (typeof SETTINGS)[number];
type SettingEnv = Setting['env'];
type FixKey = Extract<MessageKey, `config.fix.${string}`>;
type FixParams = Record<string, string | number>;

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
const BOOLEAN_WORDS = ['true', 'false', '1', '0', 'yes', 'no'] as const;

/**
 * The fix a refusal of each setting shows when its schema gives no more precise one: the type
 * makes every setting name its own.
 */
const DEFAULT_FIX: Record<SettingEnv, FixKey> = {
  WORKSPACE_URL: 'config.fix.url_format',
  WORKSPACE_TOKEN: 'config.fix.token',
  WORKSPACE_LOCALE: 'config.fix.locale',
  WORKSPACE_TOOLSETS: 'config.fix.toolsets_empty',
  WORKSPACE_READ_ONLY: 'config.fix.boolean',
  LOG_LEVEL: 'config.fix.log_level',
  WORKSPACE_TIMEOUT_MS: 'config.fix.timeout',
  WORKSPACE_RATE_LIMIT: 'config.fix.rate_limit',
  WORKSPACE_MAX_RETRY_AFTER: 'config.fix.retry_after',
  WORKSPACE_MAX_BUDGET_WAIT: 'config.fix.budget_wait',
  WORKSPACE_DOWNLOAD_DIR: 'config.fix.absolute_folder',
  WORKSPACE_RESPONSE_BUDGET: 'config.fix.response_budget',
  WORKSPACE_CONFIG_DIR: 'config.fix.absolute_folder',
  WORKSPACE_JOB_WAIT_SECONDS: 'config.fix.job_wait',
  WORKSPACE_UPLOAD_DIRS: 'config.fix.absolute_folder',
  WORKSPACE_HTTP: 'config.fix.boolean',
  WORKSPACE_HTTP_PORT: 'config.fix.http_port',
  WORKSPACE_HTTP_HOST: 'config.fix.http_host',
  WORKSPACE_REMOTE: 'config.fix.boolean',
  WORKSPACE_PUBLIC_URL: 'config.fix.public_url',
  WORKSPACE_ALLOW_PERSONAL_TOKENS: 'config.fix.boolean',
  WORKSPACE_REMOTE_UPLOAD_DIRS: 'config.fix.absolute_folder',
  WORKSPACE_DOWNLOAD_LINK_SECONDS: 'config.fix.download_link_seconds',
  REDIS_URL: 'config.fix.redis_url',
  WORKSPACE_STATE_KEY: 'config.fix.state_key',
  WORKSPACE_STATE_KEY_PREVIOUS: 'config.fix.state_key',
  WORKSPACE_AUDIT: 'config.fix.audit',
  WORKSPACE_METRICS_PORT: 'config.fix.http_port',
  WORKSPACE_METRICS_HOST: 'config.fix.metrics_host',
  WORKSPACE_TRUSTED_PROXIES: 'config.fix.trusted_proxies',
};

/** Refuse the value being parsed with `fix` (and its parameters, which never hold the value). */
function refuse(ctx: z.RefinementCtx, fix: FixKey, params: FixParams = {}, path: SettingEnv[] = []): typeof z.NEVER {
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
  return keys;
});

const token = z.string().regex(/^pat_[A-Za-z0-9_-]{8,}$/);

const toolsets = z.string().transform((raw, ctx): Config['toolsets'] => {
  const lower = raw.toLowerCase();
  if (lower === 'all' || lower === 'default') return lower;
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
  return entries;
});

/** A host name or an IP address (IPv6 with or without brackets), as `listen` takes it. */
function listenableHost(host: string): string | undefined {
  const h = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(h) !== 0) return h;
  return /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i.test(h) ? h : undefined;
}

/** The settings' texts; each field is the setting's own schema. XDG_CONFIG_HOME is read, never refused. */
const SETTINGS_SCHEMA = z.object({
  WORKSPACE_URL: workspaceUrl.optional(),
  WORKSPACE_TOKEN: token.optional(),
  WORKSPACE_LOCALE: z
    .string()
    .toLowerCase()
    .pipe(z.enum(['en', 'fr']))
    .default('en'),
  WORKSPACE_TOOLSETS: toolsets.default('default'),
  WORKSPACE_READ_ONLY: boolean.default(false),
  LOG_LEVEL: z.string().toLowerCase().pipe(z.enum(LOG_LEVELS)).default('info'),
  WORKSPACE_TIMEOUT_MS: wholeNumber(100, 600_000).default(30_000),
  WORKSPACE_RATE_LIMIT: rateLimit.default({ limit: 120, windowMs: 60_000 }),
  WORKSPACE_MAX_RETRY_AFTER: decimal(0, 3600).default(120),
  WORKSPACE_MAX_BUDGET_WAIT: decimal(0, 60).default(30),
  WORKSPACE_DOWNLOAD_DIR: z
    .string()
    .transform((d) => resolve(d))
    .optional(),
  WORKSPACE_RESPONSE_BUDGET: wholeNumber(500, 250_000).default(6_000),
  WORKSPACE_CONFIG_DIR: absoluteFolder.optional(),
  WORKSPACE_JOB_WAIT_SECONDS: decimal(0, 600).default(45),
  WORKSPACE_UPLOAD_DIRS: uploadDirs.default([]),
  WORKSPACE_HTTP: boolean.default(false),
  WORKSPACE_HTTP_PORT: wholeNumber(0, 65_535).default(8765),
  WORKSPACE_HTTP_HOST: z.string().default('127.0.0.1'),
  WORKSPACE_REMOTE: boolean.default(false),
  WORKSPACE_PUBLIC_URL: publicUrl.optional(),
  WORKSPACE_ALLOW_PERSONAL_TOKENS: boolean.default(false),
  WORKSPACE_REMOTE_UPLOAD_DIRS: uploadDirs.default([]),
  WORKSPACE_DOWNLOAD_LINK_SECONDS: wholeNumber(1, 86_400).default(600),
  REDIS_URL: redisUrl.optional(),
  WORKSPACE_STATE_KEY: stateKey.optional(),
  WORKSPACE_STATE_KEY_PREVIOUS: previousStateKeys.optional(),
  WORKSPACE_AUDIT: audit.optional(),
  WORKSPACE_METRICS_PORT: wholeNumber(0, 65_535).optional(),
  WORKSPACE_METRICS_HOST: z.string().default('127.0.0.1'),
  WORKSPACE_TRUSTED_PROXIES: trustedProxies.optional(),
  XDG_CONFIG_HOME: z.string().optional(),
});

/**
 * The configuration schema: every setting parsed by its field, then the rules that tie settings
 * together (the host each HTTP mode may listen on, what the remote mode needs), then the Config.
 */
export const CONFIG_SCHEMA = SETTINGS_SCHEMA.transform((s, ctx): Config => {
  let http: Config['http'];
  let remote: Config['remote'];
  if (s.WORKSPACE_REMOTE) {
    // The remote server authenticates every client, so it may listen on any address.
    const host = listenableHost(s.WORKSPACE_HTTP_HOST);
    if (host === undefined) return refuse(ctx, 'config.fix.remote_host', {}, ['WORKSPACE_HTTP_HOST']);
    // With a personal token every client would act as its owner: remote clients sign in.
    if (s.WORKSPACE_TOKEN !== undefined) return refuse(ctx, 'config.fix.token_in_remote', {}, ['WORKSPACE_TOKEN']);
    // The links it publishes (metadata, the 401's resource_metadata) must name where clients reach it.
    if (s.WORKSPACE_PUBLIC_URL === undefined && loopbackListenAddress(host) === undefined) {
      return refuse(ctx, 'config.fix.public_url_required', {}, ['WORKSPACE_PUBLIC_URL']);
    }
    // Replicas share the store: tokens kept there must be encrypted with the key they all hold.
    if (s.REDIS_URL !== undefined && s.WORKSPACE_STATE_KEY === undefined) {
      return refuse(ctx, 'config.fix.state_key_required', {}, ['WORKSPACE_STATE_KEY']);
    }
    remote = {
      host,
      port: s.WORKSPACE_HTTP_PORT,
      ...(s.WORKSPACE_PUBLIC_URL !== undefined ? { publicUrl: s.WORKSPACE_PUBLIC_URL } : {}),
      allowPersonalTokens: s.WORKSPACE_ALLOW_PERSONAL_TOKENS,
      downloadLinkSeconds: s.WORKSPACE_DOWNLOAD_LINK_SECONDS,
      ...(s.WORKSPACE_TRUSTED_PROXIES?.length ? { trustedProxies: s.WORKSPACE_TRUSTED_PROXIES } : {}),
    };
  } else if (s.WORKSPACE_HTTP) {
    // The endpoint has no client authentication of its own and acts with the member's token, so it
    // must not be reachable from another machine; and it must answer to the Host its clients send.
    const host = loopbackListenAddress(s.WORKSPACE_HTTP_HOST);
    if (host === undefined) return refuse(ctx, 'config.fix.http_host', {}, ['WORKSPACE_HTTP_HOST']);
    http = { host, port: s.WORKSPACE_HTTP_PORT };
  }

  // The stream lives in the shared Redis: without one there is nowhere to write it.
  if (s.WORKSPACE_AUDIT?.kind === 'redis' && s.REDIS_URL === undefined) return refuse(ctx, 'config.fix.audit_redis', {}, ['WORKSPACE_AUDIT']);
  let metrics: Config['metrics'];
  if (s.WORKSPACE_METRICS_PORT !== undefined) {
    const host = listenableHost(s.WORKSPACE_METRICS_HOST);
    if (host === undefined) return refuse(ctx, 'config.fix.metrics_host', {}, ['WORKSPACE_METRICS_HOST']);
    metrics = { host, port: s.WORKSPACE_METRICS_PORT };
  }

  const xdg = s.XDG_CONFIG_HOME;
  return {
    ...(s.WORKSPACE_URL !== undefined ? { workspaceUrl: s.WORKSPACE_URL } : {}),
    ...(s.WORKSPACE_TOKEN !== undefined ? { token: s.WORKSPACE_TOKEN } : {}),
    locale: s.WORKSPACE_LOCALE,
    toolsets: s.WORKSPACE_TOOLSETS,
    readOnly: s.WORKSPACE_READ_ONLY,
    logLevel: s.LOG_LEVEL,
    timeoutMs: s.WORKSPACE_TIMEOUT_MS,
    rateLimit: s.WORKSPACE_RATE_LIMIT,
    maxRetryAfterSeconds: s.WORKSPACE_MAX_RETRY_AFTER,
    maxBudgetWaitMs: Math.round(s.WORKSPACE_MAX_BUDGET_WAIT * 1000),
    downloadDir: s.WORKSPACE_DOWNLOAD_DIR ?? join(homedir(), 'Downloads', 'workspace-consulting'),
    // Remote mode: only the folders the operator opened to every member (none by default); the
    // local setting is never read there, so a local configuration reused for a deployment opens nothing.
    uploadDirs: remote ? s.WORKSPACE_REMOTE_UPLOAD_DIRS : s.WORKSPACE_UPLOAD_DIRS,
    responseBudget: s.WORKSPACE_RESPONSE_BUDGET,
    configDir: s.WORKSPACE_CONFIG_DIR ?? join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), 'workspace-consulting-mcp'),
    jobWaitSeconds: s.WORKSPACE_JOB_WAIT_SECONDS,
    ...(http ? { http } : {}),
    ...(remote ? { remote } : {}),
    ...(s.REDIS_URL !== undefined ? { redisUrl: s.REDIS_URL } : {}),
    ...(s.WORKSPACE_STATE_KEY !== undefined ? { stateKey: s.WORKSPACE_STATE_KEY } : {}),
    ...(s.WORKSPACE_STATE_KEY_PREVIOUS?.length ? { previousStateKeys: s.WORKSPACE_STATE_KEY_PREVIOUS } : {}),
    ...(s.WORKSPACE_AUDIT !== undefined ? { audit: s.WORKSPACE_AUDIT } : {}),
    ...(metrics ? { metrics } : {}),
  };
});

/** An option name fit to be repeated: a flag's shape, not text that could be a pasted secret. */
const OPTION_NAME = /^--[a-z][a-z-]{0,40}$/;

/** Parse `--flag value`, `--flag=value` and bare boolean flags into env-style keys. */
export function flagsToEnv(argv: string[], locale: Locale = detectLocale()): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    // Its position, not its text: a stray argument is as likely a token pasted after a bare flag.
    if (!arg.startsWith('--')) throw new ConfigError(t(locale, 'config.unexpected_argument', { position: i + 1 }));
    const [name, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const setting: Setting | undefined = SETTINGS.find((s) => s.flag === name);
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
    if (value === undefined) throw new ConfigError(t(locale, 'config.needs_value', { name, help: setting.help }), setting.env);
    out[setting.env] = value;
  }
  return out;
}

/** The configuration from `env` and `argv` (flags win), or a ConfigError naming the first bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = []): Config {
  const merged = { ...env, ...flagsToEnv(argv, detectLocale(env)) } as Record<string, string | undefined>;
  // The language of every refusal: the flags' --locale counts too, when it is valid.
  const L = detectLocale(merged);
  // Unset and blank are the same: a client's form leaves optional fields empty.
  const input: Record<string, string> = {};
  for (const key of [...SETTINGS.map((s) => s.env), 'XDG_CONFIG_HOME']) {
    const text = merged[key]?.trim();
    if (text) input[key] = text;
  }
  const parsed = CONFIG_SCHEMA.safeParse(input);
  if (parsed.success) return parsed.data;
  // The first refusal, in SETTINGS order. zod's own issue text is never shown: it may quote the input.
  const order = (issue: z.core.$ZodIssue) => SETTINGS.findIndex((s) => s.env === issue.path[0]);
  const issue = [...parsed.error.issues].sort((a, b) => order(a) - order(b))[0] as z.core.$ZodIssue;
  const setting = issue.path[0] as SettingEnv;
  const flag = SETTINGS.find((s) => s.env === setting)?.flag ?? '';
  const custom = issue.code === 'custom' ? (issue.params as { fix?: FixKey; fixParams?: FixParams } | undefined) : undefined;
  const fix = (t as (l: Locale, k: MessageKey, p: FixParams) => string)(L, custom?.fix ?? DEFAULT_FIX[setting], {
    choices: TOOLSETS.join(', '),
    ...custom?.fixParams,
  });
  throw new ConfigError(t(L, 'config.invalid', { env: setting, flag, fix }), setting);
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
