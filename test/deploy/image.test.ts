// The shipped Dockerfile and deploy/compose.yaml, as far as they run without Docker. No image can be
// built where the tests run (no Docker daemon, and no registry for the node base images), so the
// Dockerfile's own steps are read from the file and carried out in folders that stand for its stages:
// COPY from the build context (as .dockerignore filters it) or from an earlier stage, RUN in the
// stage's WORKDIR, ENV. The last stage's ENTRYPOINT and CMD then run as a replica of the compose file
// runs them: its environment, resolved as Compose resolves `${VAR:?...}` and `${VAR:-default}`, on a
// real Redis for the compose file's `redis` service, against the sandbox, and the image's HEALTHCHECK
// command judges it. What this cannot see: the base images themselves (alpine's musl, the node user),
// the read-only root file system (checked instead: the replica writes nothing in its home), Caddy in
// front (test/remote/caddy.test.ts runs the shipped Caddyfile).
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, posix, relative } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { VIEWS } from '../../src/mcp/apps/views.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { freePort } from '../helpers/programs.js';
import { type RedisHandle, startRedis } from '../helpers/redis.js';
import { ROOT } from '../helpers/spawn.js';
import { browse, DEFAULT_SURFACE_TOOLS, STATE_KEY, TestOAuthProvider } from '../remote/helpers.js';

// ---------------------------------------------------------------------------------------------------
// The Dockerfile, read.

interface Stage {
  name: string;
  /** The stage's file system root, in a temp folder. */
  dir: string;
  workdir: string;
  env: Record<string, string>;
}

interface Image {
  stages: Stage[];
  user?: string;
  expose?: string;
  healthcheck?: string[];
  entrypoint: string[];
  cmd: string[];
}

/** Logical lines: continuations joined, comments and blank lines left out. */
function instructions(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    out.push(pending + line);
    pending = '';
  }
  return out;
}

/** .dockerignore's rules in order, the last match deciding (a `!` rule lets a path in). */
function contextFilter(): (path: string) => boolean {
  const rules = instructions(readFileSync(join(ROOT, '.dockerignore'), 'utf8')).map((r) => {
    const allow = r.startsWith('!');
    const glob = allow ? r.slice(1) : r;
    const source = glob
      .split('**')
      .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
      .join('.*');
    return { allow, re: new RegExp(`^${source}$`) };
  });
  return (path) => rules.reduce((inContext, rule) => (rule.re.test(path) ? rule.allow : inContext), true);
}

/** Copy `from` to `to` as COPY does: a folder's contents into `to`, a file to `to` (or into it, when `to` ends in /). */
function copy(from: string, to: string, into: boolean, keep: (abs: string) => boolean = () => true): void {
  if (!existsSync(from)) throw new Error(`COPY: ${from} does not exist`);
  if (statSync(from).isDirectory()) {
    for (const name of readdirSync(from)) {
      const child = join(from, name);
      if (statSync(child).isDirectory() || keep(child)) copy(child, join(to, name), false, keep);
    }
    return;
  }
  if (!keep(from)) throw new Error(`COPY: ${relative(ROOT, from)} is left out of the build context by .dockerignore`);
  const target = into ? join(to, basename(from)) : to;
  mkdirSync(dirname(target), { recursive: true });
  cpSync(from, target);
}

/** The environment a RUN sees: the machine's PATH and npm's settings (registry, cache), not this run's npm_ variables. */
function runEnv(stage: Stage): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('npm_') || k.startsWith('npm_config_cache')) env[k] = v;
  return { ...env, ...stage.env };
}

/** Carry out the Dockerfile's steps under `root`; the build context is the repository as .dockerignore filters it. */
function build(root: string): Image {
  const inContext = contextFilter();
  const args: Record<string, string> = {};
  const image: Image = { stages: [], entrypoint: [], cmd: [] };
  const stage = () => {
    const s = image.stages.at(-1);
    if (!s) throw new Error('an instruction before FROM');
    return s;
  };
  const at = (s: Stage, path: string) => join(s.dir, posix.resolve(s.workdir, path));
  for (const line of instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))) {
    const [keyword = '', ...words] = line.split(/\s+/);
    const rest = line.slice(keyword.length).trim();
    switch (keyword.toUpperCase()) {
      case 'ARG': {
        const [name = '', value = ''] = rest.split('=');
        args[name] = value;
        break;
      }
      case 'FROM': {
        const name = /\bAS\s+(\S+)$/i.exec(rest)?.[1] ?? String(image.stages.length);
        const dir = join(root, `stage-${name}`);
        mkdirSync(dir, { recursive: true });
        image.stages.push({ name, dir, workdir: '/', env: {} });
        break;
      }
      case 'WORKDIR':
        stage().workdir = posix.resolve(stage().workdir, rest);
        mkdirSync(at(stage(), '.'), { recursive: true });
        break;
      case 'ENV': {
        const [name = '', ...value] = rest.split('=');
        stage().env[name] = value.join('=');
        break;
      }
      case 'COPY': {
        const from = words[0]?.startsWith('--from=') ? words.shift()?.slice('--from='.length) : undefined;
        const dest = words.pop() ?? '';
        const into = dest.endsWith('/') || words.length > 1;
        for (const src of words) {
          if (from !== undefined) {
            const source = image.stages.find((s) => s.name === from);
            if (!source) throw new Error(`COPY --from=${from}: no such stage`);
            copy(join(source.dir, posix.resolve(source.workdir, src)), at(stage(), dest), into);
          } else {
            copy(join(ROOT, src), at(stage(), dest), into, (abs) => inContext(relative(ROOT, abs).split('\\').join('/')));
          }
        }
        break;
      }
      case 'RUN': {
        const r = spawnSync('sh', ['-c', rest], { cwd: at(stage(), '.'), env: runEnv(stage()), encoding: 'utf8', timeout: 240_000 });
        if (r.status !== 0) throw new Error(`RUN ${rest} in stage ${stage().name} exited ${r.status}: ${r.stderr.slice(-2000)}`);
        break;
      }
      case 'USER':
        image.user = rest;
        break;
      case 'EXPOSE':
        image.expose = rest;
        break;
      case 'HEALTHCHECK':
        image.healthcheck = JSON.parse(rest.slice(rest.indexOf('CMD') + 3).trim()) as string[];
        break;
      case 'ENTRYPOINT':
        image.entrypoint = JSON.parse(rest) as string[];
        break;
      case 'CMD':
        image.cmd = JSON.parse(rest) as string[];
        break;
      default:
        throw new Error(`an instruction this reading does not know: ${keyword}`);
    }
  }
  for (const [name, value] of Object.entries(args)) expect(value, `ARG ${name} has a default`).not.toBe('');
  return image;
}

// ---------------------------------------------------------------------------------------------------
// The compose file, read.

/** A replica's environment as Compose gives it: `${VAR:?message}` from `given` (required), `${VAR:-default}` its default. */
function replicaEnvironment(given: Record<string, string>): Record<string, string> {
  const compose = parseYaml(readFileSync(join(ROOT, 'deploy/compose.yaml'), 'utf8')) as {
    services: Record<string, { environment?: Record<string, string>; build?: { context: string } }>;
  };
  const replicas = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
  expect(replicas.map(([name]) => name)).toEqual(['mcp-1', 'mcp-2']);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(replicas[0]?.[1].environment ?? {})) {
    env[name] = String(value).replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_all, v: string, kind?: string, text?: string) => {
      if (given[v] !== undefined) return given[v];
      if (kind === '-') return text ?? '';
      throw new Error(`compose.yaml needs ${v}${kind === '?' ? `: ${text}` : ''}`);
    });
  }
  return env;
}

/** deploy/.env.example's settings, as docs/deploying.md has a firm copy it to deploy/.env. */
function envExample(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of instructions(readFileSync(join(ROOT, 'deploy/.env.example'), 'utf8'))) {
    const at = line.indexOf('=');
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

/** The values a firm must fill in, for a deployment on `publicUrl`. */
function required(publicUrl: string): Record<string, string> {
  return { WORKSPACE_URL: sandbox.url, WORKSPACE_PUBLIC_URL: publicUrl, WORKSPACE_STATE_KEY: STATE_KEY };
}

// ---------------------------------------------------------------------------------------------------

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

let work: string;
let image: Image;
let app: string;
let sandbox: SandboxHandle;
let redis: RedisHandle;
let replica: ChildProcessWithoutNullStreams | undefined;
let replicaStderr = '';

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'wcm-image-'));
  image = build(work);
  const last = image.stages.at(-1) as Stage;
  app = join(last.dir, last.workdir);
  [sandbox, redis] = await Promise.all([startSandbox({ port: 0, rateLimit: false, oauth: { autoConsent: 'write' }, logger: () => {} }), startRedis()]);
}, 420_000);

afterAll(async () => {
  if (replica && replica.exitCode === null) {
    const exited = new Promise((r) => replica?.once('exit', r));
    replica.kill('SIGTERM');
    await exited;
  }
  await sandbox?.close();
  await redis?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the Dockerfile, its steps carried out without Docker', () => {
  it('ships the build and the runtime dependencies only, run by an unprivileged user', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const installed = new Set(
      readdirSync(join(app, 'node_modules')).flatMap((n) => (n.startsWith('@') ? readdirSync(join(app, 'node_modules', n)).map((m) => `${n}/${m}`) : [n])),
    );
    for (const dep of Object.keys(pkg.dependencies)) expect(installed.has(dep), dep).toBe(true);
    for (const dep of Object.keys(pkg.devDependencies)) expect(installed.has(dep), `dev dependency ${dep} in the image`).toBe(false);
    expect(existsSync(join(app, 'dist/src/cli.js'))).toBe(true);
    // The MCP Apps views, built into one HTML file each.
    for (const view of Object.keys(VIEWS)) expect(existsSync(join(app, 'dist/apps', `${view}.html`)), view).toBe(true);
    // Nothing but the built code, its dependencies and package.json: no sources, tests or lock file.
    expect(readdirSync(app).sort()).toEqual(['dist', 'node_modules', 'package.json']);
    expect(image.user).toBe('node');
    expect(image.expose).toBe('8080');
  });

  it("the compose file's replica environment is one the server accepts, from its defaults and from .env.example", () => {
    const flags = image.cmd.slice(image.cmd.indexOf('serve') + 1);
    const example = envExample();
    expect(example.WORKSPACE_STATE_KEY, 'left for the firm to fill in').toBe('');
    const fromDefaults = replicaEnvironment(required('https://mcp.example.com'));
    const fromExample = replicaEnvironment({ ...example, ...required(example.WORKSPACE_PUBLIC_URL as string) });
    for (const env of [fromDefaults, fromExample]) {
      const config = loadConfig({ ...env, HOME: work }, flags);
      expect(config.rateLimit).toEqual({ limit: 120, windowMs: 60_000 });
      expect(config.remote).toBeDefined();
    }
  });

  it('runs as a replica of the compose file, healthy by its own HEALTHCHECK, and serves a member who signs in', async () => {
    const port = String(await freePort());
    const publicUrl = `http://127.0.0.1:${port}`;
    const withPort = (argv: string[]) => argv.map((a) => a.replaceAll(image.expose as string, port));
    // Compose's service name `redis` is the test's Redis.
    const env = replicaEnvironment({ ...envExample(), ...required(publicUrl) });
    expect(env.REDIS_URL).toBe('redis://redis:6379');
    env.REDIS_URL = redis.url;
    const home = join(work, 'home');
    const temp = join(work, 'tmpfs');
    mkdirSync(home);
    mkdirSync(temp);
    const last = image.stages.at(-1) as Stage;
    const [command, ...args] = withPort([...image.entrypoint, ...image.cmd]);
    expect(command).toBe('node');
    replica = spawn(process.execPath, args, { cwd: app, env: { PATH: process.env.PATH ?? '', HOME: home, TMPDIR: temp, ...last.env, ...env } });
    const child = replica;
    child.stderr.on('data', (d: Buffer) => {
      replicaStderr += d.toString();
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the replica did not start: ${replicaStderr}`)), 30_000);
      const check = () => {
        if (/serving MCP \(remote mode\)/.test(replicaStderr)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stderr.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the replica exited with ${code}: ${replicaStderr}`));
      });
    });

    const [hcCommand, ...hcArgs] = withPort(image.healthcheck ?? []);
    expect(hcCommand).toBe('node');
    const health = spawnSync(process.execPath, hcArgs, { encoding: 'utf8', timeout: 10_000 });
    expect(health.status, health.stderr).toBe(0);

    // A member signs in through the 401 and works, on the image's code and dependencies alone.
    const mcpUrl = new URL('/mcp', publicUrl);
    const provider = new TestOAuthProvider();
    const first = new Client({ name: 'image-test', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    const back = await browse((provider.authorizationUrl as URL).href, provider.redirectUrl);
    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(back.searchParams);
    const client = new Client({ name: 'image-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    try {
      expect((await client.listTools()).tools).toHaveLength(DEFAULT_SURFACE_TOOLS);
      const r = await client.callTool({ name: 'list_engagements', arguments: {} });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      // A host asking for a view gets the one the image was built with.
      const view = await client.readResource({ uri: VIEWS.review_board.uri });
      expect((view.contents[0] as { text?: string } | undefined)?.text).toBe(readFileSync(join(app, 'dist/apps/review_board.html'), 'utf8'));
    } finally {
      await client.close();
    }
    // compose.yaml runs the replicas on a read-only root with a tmpfs /tmp: nothing may be written elsewhere.
    expect(filesUnder(home)).toEqual([]);
  }, 120_000);
});
