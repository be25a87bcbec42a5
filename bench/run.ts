// `npm run bench`: the built server against the server as it was before the SDK v2 rebuild ("before",
// commit BEFORE_COMMIT, built once into .bench-out/before) and a generic OpenAPI-to-MCP bridge, side by
// side in one run, on the same sandbox (a separate process, so it shares neither CPU time nor heap
// with the measuring process): spawn to the first complete tools/list, per-call overhead over a
// direct HTTP request, and resident memory after the calls. Prints a table with the targets against
// before (TARGETS) and against the bridge (at most 1.0x, the ours/baseline column), the spread of
// the runs (p25-p75) and the load average, then where the time and memory go: the modules each
// server loads before its complete list (one recorded run each, by package) and what ours builds per
// tool (the catalog's zod schemas, the shown JSON Schemas, the list; median of runs), and writes
// .bench-out/results.json.
// Plain Node (types stripped): erasable TypeScript only, and one file, since Node needs `.ts` import
// specifiers that the shared tsconfig does not allow.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * The same build as separate modules (tsc's output; what runs is the bundle in dist/src): the
 * pieces imported one by one to count the operations and time what is built per tool.
 */
const UNBUNDLED = join(ROOT, 'dist/unbundled');
const OUT = join(ROOT, '.bench-out');
const BASELINE_PACKAGE = '@ivotoby/openapi-mcp-server';
const BASELINE_DIR = join(OUT, 'baseline');
const BASELINE_BIN = join(BASELINE_DIR, 'node_modules', BASELINE_PACKAGE, 'bin', 'mcp-server.js');
/** The last commit before the SDK v2 rebuild (SDK v1, the first tools/list answered from a build-time cache). */
const BEFORE_COMMIT = '64a6385471fc036cad4a9531e51889a5c61b2141';
const BEFORE_DIR = join(OUT, 'before');
const BEFORE_BIN = join(BEFORE_DIR, 'dist/src/cli.js');
/** Written last when preparing before: names the commit whose build is there. */
const BEFORE_MARK = join(BEFORE_DIR, '.bench-before');

const STARTUP_RUNS = Math.max(15, Number(process.env.BENCH_STARTUP_RUNS ?? 15));
const STARTUP_WARMUPS = 2;
const CALLS = Math.max(1000, Number(process.env.BENCH_CALLS ?? 1000));
const CALL_WARMUPS = 50;
const LIST_LIMIT = 5;

/** Kernel clock ticks per second, the unit of /proc/<pid>/stat CPU times. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/**
 * A complete first list within a second on the sandbox (below that a person perceives no
 * difference; a missing tool they do), and no more than 20% over before on overhead and memory.
 */
const TARGETS = { completeListMs: 1000, overheadVsBefore: 1.2, rssVsBefore: 1.2 };
/** How long a list short of the expected tools may wait for the server's list_changed. */
const LIST_CHANGE_WAIT_MS = 10_000;
/** A list that announced no change for this long is settled (ours waits up to 3 s for the description). */
const SETTLE_QUIET_MS = 5000;

// ---------------------------------------------------------------------------------------------
// JSON-RPC over a child's stdio, written by hand: no SDK client weighs on the measurement.

type RpcResult = Record<string, unknown>;

class StdioPeer {
  readonly child: ChildProcessWithoutNullStreams;
  private nextId = 1;
  private buffer = '';
  private readonly waiting = new Map<number, { resolve: (r: RpcResult) => void; reject: (e: Error) => void }>();
  private stderr = '';
  /** notifications/tools/list_changed received so far, and who waits for the next one. */
  listChanges = 0;
  private readonly changeWaiters = new Set<() => void>();

  constructor(child: ChildProcessWithoutNullStreams) {
    this.child = child;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.read(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      // Kept for the error message only; a chatty server must not grow this without bound.
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-4000);
    });
    child.on('exit', (code, signal) => {
      for (const w of this.waiting.values()) w.reject(new Error(`server exited (${code ?? signal}) before answering; stderr: ${this.stderr}`));
      this.waiting.clear();
    });
  }

  request(method: string, params: Record<string, unknown> = {}): Promise<RpcResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  async initialize(): Promise<void> {
    await this.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
    this.notify('notifications/initialized');
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line) as { id?: number; method?: string; result?: RpcResult; error?: { message?: string } };
      if (msg.method === 'notifications/tools/list_changed') {
        this.listChanges++;
        for (const w of this.changeWaiters) w();
        this.changeWaiters.clear();
      }
      if (typeof msg.id !== 'number') continue;
      const w = this.waiting.get(msg.id);
      if (!w) continue;
      this.waiting.delete(msg.id);
      if (msg.error) w.reject(new Error(`JSON-RPC error: ${msg.error.message ?? JSON.stringify(msg.error)}`));
      else w.resolve(msg.result ?? {});
    }
  }

  /** Whether a list_changed arrives (or has arrived) after the `seen`-th one, within `ms`. */
  listChangedAfter(seen: number, ms: number): Promise<boolean> {
    if (this.listChanges > seen) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.changeWaiters.delete(done);
        resolve(false);
      }, ms);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.changeWaiters.add(done);
    });
  }

  /** Ends the process and waits for it, so the next run does not share the CPU with it. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    await exited;
  }

  /** CPU time (user + system) the process has used so far, in ms; Linux /proc. */
  cpuMs(): number {
    const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  }

  rssMb(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
    return kb / 1024;
  }
}

// ---------------------------------------------------------------------------------------------
// The sandbox, and the two servers under test.

interface SandboxInfo {
  url: string;
  api: string;
  tokens: { read: string; write: string };
}

interface ListedTool {
  name: string;
  inputSchema?: { properties?: Record<string, unknown> };
}

interface ServerUnderTest {
  label: string;
  argv: string[];
  env: Record<string, string>;
  /** The tool that performs GET /engagements/{engagement}/findings, and its arguments. */
  findingsCall(tools: ListedTool[], engagement: string): { name: string; arguments: Record<string, unknown> };
}

function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? OUT };
}

async function startSandbox(): Promise<{ info: SandboxInfo; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'sandbox', '--port', '0', '--no-rate-limit'], {
    env: baseEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  const info = await new Promise<SandboxInfo>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as SandboxInfo);
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  return {
    info,
    stop: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The node flags of the bin's shebang (`#!/usr/bin/env -S node --flag`): the server runs with them when installed. */
function binFlags(file: string): string[] {
  const first = readFileSync(file, 'utf8').split('\n', 1)[0] ?? '';
  const m = /^#!\S*env\s+(?:-S\s+)?node((?:\s+--\S+)*)\s*$/.exec(first);
  return m?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
}

type Surface = 'all' | 'default';

/** This repository's server, built (ours) or as it was before the rebuild: same settings, same sandbox. */
function workspaceServer(label: string, bin: string, sb: SandboxInfo, surface: Surface): ServerUnderTest {
  return {
    label,
    // As a client runs the installed bin: with the flags of its shebang.
    argv: [...binFlags(bin), bin],
    env: {
      WORKSPACE_URL: sb.url,
      WORKSPACE_TOKEN: sb.tokens.write,
      WORKSPACE_TOOLSETS: surface,
      // The limiter stays on the path with a time-scaled window (120 per 10 ms): 1,000 calls would
      // otherwise take eight minutes at the API's real budget.
      WORKSPACE_RATE_LIMIT: '120/0.01',
      LOG_LEVEL: 'warn',
    },
    findingsCall: (_tools, engagement) => ({ name: 'list_findings', arguments: { engagement, limit: LIST_LIMIT } }),
  };
}

function ours(sb: SandboxInfo, surface: Surface = 'all'): ServerUnderTest {
  return workspaceServer('ours', join(ROOT, 'dist/src/cli.js'), sb, surface);
}

function before(sb: SandboxInfo, surface: Surface = 'all'): ServerUnderTest {
  return workspaceServer('before', BEFORE_BIN, sb, surface);
}

/** The generic bridge reads the description from a file: it cannot send a token when fetching it. */
function baseline(sb: SandboxInfo, specFile: string): ServerUnderTest {
  return {
    label: 'baseline',
    argv: [BASELINE_BIN],
    env: {
      API_BASE_URL: sb.api,
      OPENAPI_SPEC_PATH: specFile,
      API_HEADERS: `Authorization:Bearer ${sb.tokens.write}`,
      TRANSPORT_TYPE: 'stdio',
      TOOLS_MODE: 'all',
      VERBOSE: 'false',
    },
    findingsCall(tools, engagement) {
      // It abbreviates operationIds (list_findings becomes lst-findings): take the paginated tool
      // whose name ends in findings.
      const tool = tools.find((t) => /findings$/.test(t.name) && t.inputSchema?.properties?.cursor !== undefined);
      if (!tool) throw new Error(`baseline: no tool for GET /engagements/{engagement}/findings among ${tools.length}`);
      return { name: tool.name, arguments: { engagement, limit: LIST_LIMIT } };
    },
  };
}

/** Which yardstick of bench/floor-bridge.mjs: by hand, behind the SDK v2, behind before's SDK v1. */
type Floor = 'plain' | 'sdk' | 'sdk-v1';

/**
 * The yardsticks (bench/floor-bridge.mjs): the same request and the same result shape with nothing
 * else on the path, by hand ('floor': what the machine charges any stdio bridge for this call), behind
 * the MCP SDK v2 this server is built on ('sdk floor': what the SDK adds), and behind the SDK v1 that
 * before was built on, registered as before registered it ('sdk v1 floor'): the difference of the two
 * SDK floors is the SDK's share of any difference between before and ours. Run with this server's
 * node flags (its bin's shebang), so they differ from it only in the code on the path.
 */
function floorBridge(sb: SandboxInfo, floor: Floor): ServerUnderTest {
  const sdkEnv: Record<Floor, Record<string, string>> = {
    plain: {},
    sdk: { FLOOR_WITH_SDK: '1' },
    'sdk-v1': { FLOOR_WITH_SDK: 'v1', FLOOR_SDK_V1: join(BEFORE_DIR, 'node_modules/@modelcontextprotocol/sdk') },
  };
  return {
    label: floor === 'plain' ? 'floor' : floor === 'sdk' ? 'sdk floor' : 'sdk v1 floor',
    argv: [...binFlags(join(ROOT, 'dist/src/cli.js')), join(ROOT, 'bench/floor-bridge.mjs')],
    env: { WORKSPACE_API: sb.api, WORKSPACE_TOKEN: sb.tokens.write, ...sdkEnv[floor] },
    findingsCall: (_tools, engagement) => ({ name: 'list_findings', arguments: { engagement, limit: LIST_LIMIT } }),
  };
}

function spawnServer(s: ServerUnderTest): StdioPeer {
  const child = spawn(process.execPath, s.argv, { cwd: ROOT, env: { ...baseEnv(), ...s.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  return new StdioPeer(child);
}

// ---------------------------------------------------------------------------------------------
// Measurements.

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** The 25th to 75th percentile, as text: how far the runs spread on a shared machine. */
function spread(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  return `${fmt(at(0.25))}-${fmt(at(0.75))}`;
}

function toolCount(list: RpcResult): number {
  return (list.tools as unknown[]).length;
}

interface ListTiming {
  /** Spawn to the first tools/list answer, and how many tools it held. */
  firstMs: number;
  firstTools: number;
  /** Spawn to a tools/list holding every expected tool (re-listed on each list_changed until then). */
  completeMs: number;
  tools: number;
}

/**
 * Spawn, initialize, tools/list, and, while the list lacks expected tools, wait for the server's
 * list_changed and list again: the time before a client can offer every tool. A client that lists
 * once (most client libraries) sees only the first answer.
 */
async function timeToCompleteList(s: ServerUnderTest, expected: number): Promise<ListTiming> {
  const started = performance.now();
  const peer = spawnServer(s);
  try {
    await peer.initialize();
    let seen = peer.listChanges;
    let tools = toolCount(await peer.request('tools/list'));
    const firstMs = performance.now() - started;
    const firstTools = tools;
    while (tools < expected) {
      if (!(await peer.listChangedAfter(seen, LIST_CHANGE_WAIT_MS))) {
        throw new Error(`${s.label}: listed ${tools} of ${expected} tools, and announced no change within ${LIST_CHANGE_WAIT_MS} ms`);
      }
      seen = peer.listChanges;
      tools = toolCount(await peer.request('tools/list'));
    }
    if (tools > expected) throw new Error(`${s.label}: listed ${tools} tools, more than the ${expected} expected: the expected count is stale`);
    return { firstMs, firstTools, completeMs: performance.now() - started, tools };
  } finally {
    await peer.stop();
  }
}

/** What the server lists once it has announced no change for SETTLE_QUIET_MS: its complete list. */
async function settledToolCount(s: ServerUnderTest): Promise<number> {
  const peer = spawnServer(s);
  try {
    await peer.initialize();
    let seen = peer.listChanges;
    let tools = toolCount(await peer.request('tools/list'));
    while (await peer.listChangedAfter(seen, SETTLE_QUIET_MS)) {
      seen = peer.listChanges;
      tools = toolCount(await peer.request('tools/list'));
    }
    return tools;
  } finally {
    await peer.stop();
  }
}

/**
 * The catalog's operations plus those the sandbox's live description adds, as a build's own modules
 * count them: what WORKSPACE_TOOLSETS=all lists with a write token. Run in a child, so the measuring
 * process loads none of the server's modules. `modules`: where the build's tsc output is (src/ and catalog/).
 */
function catalogPlusGenerated(modules: string, specFile: string): number {
  const script = `
    const [modules, specFile] = process.argv.slice(1);
    const { readFileSync } = await import('node:fs');
    // A module by its path in this build or, for the build from before the folders were named for
    // their roles, its path there.
    const from = async (path, before) => import(modules + path).catch((err) => {
      if (err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
      return import(modules + before);
    });
    const { catalog } = await from('/catalog/index.js', '/tools/index.js');
    const { liveOperations } = await from('/src/mcp/operations/live-openapi.js', '/src/mcp/live-openapi.js');
    const doc = JSON.parse(readFileSync(specFile, 'utf8'));
    process.stdout.write(String(catalog.length + liveOperations(doc, catalog).length));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, modules, specFile], { encoding: 'utf8' });
  const n = Number(r.stdout.trim());
  if (r.status !== 0 || !Number.isInteger(n)) throw new Error(`counting the operations of ${modules} failed: ${r.stderr.slice(-500)}`);
  return n;
}

interface StartupCase {
  /** Key of the results: label and surface. */
  key: string;
  server: ServerUnderTest;
  /** Tools in its complete list. */
  expected: number;
}

interface StartupFigures {
  /** Spawn to the complete list, median over the runs (the measured figure). */
  medianMs: number;
  /** Spawn to the first list, whatever it held. */
  firstMedianMs: number;
  /** The fewest tools a first list held, and the complete list's. */
  firstTools: number;
  tools: number;
  expected: number;
  samples: number[];
}

/** Runs the cases in turn, so a burst of machine load weighs on all alike. */
async function measureStartup(cases: StartupCase[]): Promise<Map<string, StartupFigures>> {
  const runs = new Map<string, ListTiming[]>(cases.map((c) => [c.key, []]));
  for (let i = 0; i < STARTUP_WARMUPS + STARTUP_RUNS; i++) {
    for (const c of cases) {
      const r = await timeToCompleteList(c.server, c.expected);
      if (i >= STARTUP_WARMUPS) runs.get(c.key)?.push(r);
    }
  }
  return new Map(
    cases.map((c) => {
      const xs = runs.get(c.key) ?? [];
      const figures: StartupFigures = {
        firstTools: Math.min(...xs.map((x) => x.firstTools)),
        tools: c.expected,
        medianMs: median(xs.map((x) => x.completeMs)),
        firstMedianMs: median(xs.map((x) => x.firstMs)),
        samples: xs.map((x) => Number(x.completeMs.toFixed(1))),
        expected: c.expected,
      };
      return [c.key, figures];
    }),
  );
}

interface CallFigures {
  tool: string;
  calls: number;
  mcpMedianMs: number;
  directMedianMs: number;
  /** Median of (tool call - direct request) over pairs run back to back. */
  overheadMs: number;
  /** Its 25th to 75th percentile, as text. */
  overheadSpread: string;
  /** The server process's CPU time per measured call (user + system). */
  cpuMsPerCall: number;
  /** Millions of instructions the server executed per measured call (perf stat), when perf can count. */
  instructionsMPerCall?: number;
  rssMb: number;
}

/** Whether `perf stat` can count this user's instructions here (Linux, perf installed, counters allowed). */
const PERF_AVAILABLE = (() => {
  const r = spawnSync('perf', ['stat', '-x,', '-e', 'instructions', 'true'], { encoding: 'utf8' });
  return r.status === 0 && /^\d+,,instructions/m.test(r.stderr ?? '');
})();

/**
 * Instructions a process executes from now until `stop()`: unlike wall and CPU time, nearly
 * independent of what else the machine does (a shared VM's speed drifted 4x in one session).
 */
function countInstructions(pid: number): { stop(): Promise<number | undefined> } {
  if (!PERF_AVAILABLE) return { stop: () => Promise.resolve(undefined) };
  const perf = spawn('perf', ['stat', '-x,', '-e', 'instructions', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  perf.stderr.setEncoding('utf8');
  perf.stderr.on('data', (d: string) => (out += d));
  return {
    async stop() {
      const exited = new Promise<void>((resolve) => perf.once('exit', () => resolve()));
      perf.kill('SIGINT');
      await exited;
      const n = Number(/^(\d+),,instructions/m.exec(out)?.[1]);
      return Number.isFinite(n) ? n : undefined;
    },
  };
}

/**
 * One session per server, all open at once and called in turn: call i goes to each server before
 * call i+1 goes to any, so a drift in the machine's load (this is a shared VM) weighs on all of them
 * alike. Every call through a server is paired with the same request made directly with undici just
 * before it, so both see the same sandbox and machine state.
 */
async function measureCalls(servers: ServerUnderTest[], sb: SandboxInfo, engagement: string, agent: Agent): Promise<Map<string, CallFigures>> {
  const url = `${sb.api}/engagements/${encodeURIComponent(engagement)}/findings?limit=${LIST_LIMIT}`;
  const headers = { authorization: `Bearer ${sb.tokens.write}`, accept: 'application/json', 'accept-language': 'en' };
  const direct = async () => {
    const res = await request(url, { headers, dispatcher: agent });
    const body = (await res.body.json()) as { data?: unknown[] };
    if (res.statusCode !== 200 || !Array.isArray(body.data)) throw new Error(`direct request answered ${res.statusCode}`);
  };
  const sessions = servers.map((s) => ({
    s,
    peer: spawnServer(s),
    call: { name: '', arguments: {} as Record<string, unknown> },
    directMs: [] as number[],
    mcpMs: [] as number[],
    diffs: [] as number[],
    cpuBefore: 0,
  }));
  try {
    for (const x of sessions) {
      await x.peer.initialize();
      const list = await x.peer.request('tools/list');
      x.call = x.s.findingsCall(list.tools as ListedTool[], engagement);
    }
    const viaServer = async (x: (typeof sessions)[number]) => {
      const r = await x.peer.request('tools/call', x.call);
      if (r.isError) throw new Error(`${x.s.label}: ${x.call.name} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
    };
    for (let i = 0; i < CALL_WARMUPS; i++) {
      for (const x of sessions) {
        await direct();
        await viaServer(x);
      }
    }
    for (const x of sessions) x.cpuBefore = x.peer.cpuMs();
    const counters = sessions.map((x) => countInstructions(x.peer.child.pid as number));
    // perf attaches asynchronously: let it start counting before the first measured call.
    if (PERF_AVAILABLE) await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < CALLS; i++) {
      for (const x of sessions) {
        let t = performance.now();
        await direct();
        const d = performance.now() - t;
        t = performance.now();
        await viaServer(x);
        const m = performance.now() - t;
        x.directMs.push(d);
        x.mcpMs.push(m);
        x.diffs.push(m - d);
      }
    }
    const cpuAfter = sessions.map((x) => x.peer.cpuMs());
    const instructions = await Promise.all(counters.map((c) => c.stop()));
    return new Map(
      sessions.map((x, i) => {
        const n = instructions[i];
        const figures: CallFigures = {
          tool: x.call.name,
          calls: CALLS,
          mcpMedianMs: median(x.mcpMs),
          directMedianMs: median(x.directMs),
          overheadMs: median(x.diffs),
          overheadSpread: spread(x.diffs),
          cpuMsPerCall: ((cpuAfter[i] as number) - x.cpuBefore) / CALLS,
          rssMb: x.peer.rssMb(),
          ...(n !== undefined ? { instructionsMPerCall: n / CALLS / 1e6 } : {}),
        };
        return [x.s.label, figures] as const;
      }),
    );
  } finally {
    for (const x of sessions) await x.peer.stop();
  }
}

/** The sandbox engineer's throughput figure, when bench/sandbox.ts exists (run as its own process). */
function sandboxThroughput(): Record<string, unknown> | undefined {
  const script = join(ROOT, 'bench/sandbox.ts');
  if (!existsSync(script)) return undefined;
  const r = spawnSync(process.execPath, [script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  const line = r.stdout.trim().split('\n').pop();
  if (r.status !== 0 || !line) return { error: `bench/sandbox.ts exited ${r.status}: ${r.stderr.slice(-300)}` };
  return JSON.parse(line) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Where the time and memory go: what each server loads before its first complete list, and
// what ours builds per tool.

/**
 * A preload (node --import) that records every module the process loads (URL, when, source size) and
 * writes them to LOAD_RECORD_FILE on SIGUSR2: the bench asks once the list is complete, so the figure
 * is the start's, not the shutdown's.
 */
const LOAD_RECORDER = `
import module from 'node:module';
import { writeFileSync } from 'node:fs';
const seen = [];
module.registerHooks({ load(url, context, next) { const r = next(url, context); seen.push([url, performance.now(), r.source ? r.source.length : 0]); return r; } });
process.on('SIGUSR2', () => writeFileSync(process.env.LOAD_RECORD_FILE, JSON.stringify({ seen, rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed })));
`;

interface PackageLoad {
  /** npm package, or this repository's own code (src/..., catalog/), or node: builtins. */
  name: string;
  modules: number;
  sourceKb: number;
  /** Process time of its first module's load. */
  firstMs: number;
}

interface LoadBreakdown {
  label: string;
  modules: number;
  sourceKb: number;
  rssMb: number;
  heapMb: number;
  packages: PackageLoad[];
}

function packageOf(url: string): string {
  const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (m?.[1]) return m[1];
  if (url.startsWith('node:')) return 'node: builtins';
  // The bundle's entry and chunks (dist/src, flat): zod, the SDK and pino are in them too.
  if (/\/dist\/src\/[^/]+\.js$/.test(url)) return '(own) bundle';
  const own = /\/dist\/((?:src\/[^/.]+|tools))/.exec(url);
  return own?.[1] ? `(own) ${own[1]}` : url.replace(/^file:\/\/.*\//, '');
}

/** Spawns the server with the recorder, lists until complete, asks for the recording. */
async function loadBreakdown(s: ServerUnderTest, expected: number): Promise<LoadBreakdown> {
  const file = join(OUT, `loads-${s.label.replace(/\W+/g, '-')}.json`);
  rmSync(file, { force: true });
  const recorded: ServerUnderTest = {
    ...s,
    argv: ['--import', `data:text/javascript,${encodeURIComponent(LOAD_RECORDER)}`, ...s.argv],
    env: { ...s.env, LOAD_RECORD_FILE: file },
  };
  const peer = spawnServer(recorded);
  try {
    await peer.initialize();
    let seen = peer.listChanges;
    let tools = toolCount(await peer.request('tools/list'));
    while (tools < expected && (await peer.listChangedAfter(seen, LIST_CHANGE_WAIT_MS))) {
      seen = peer.listChanges;
      tools = toolCount(await peer.request('tools/list'));
    }
    peer.child.kill('SIGUSR2');
    for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
    // Written in one call: wait until it parses.
    let rec: { seen: Array<[string, number, number]>; rss: number; heap: number } | undefined;
    for (let i = 0; i < 20 && !rec; i++) {
      try {
        rec = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    if (!rec) throw new Error(`${s.label}: no load recording`);
    const byName = new Map<string, PackageLoad>();
    for (const [url, at, bytes] of rec.seen) {
      const name = packageOf(url);
      const p = byName.get(name) ?? { name, modules: 0, sourceKb: 0, firstMs: at };
      p.modules++;
      p.sourceKb += bytes / 1024;
      byName.set(name, p);
    }
    const packages = [...byName.values()].sort((a, b) => b.sourceKb - a.sourceKb);
    return {
      label: s.label,
      modules: rec.seen.length,
      sourceKb: packages.reduce((n, p) => n + p.sourceKb, 0),
      rssMb: rec.rss / 1048576,
      heapMb: rec.heap / 1048576,
      packages,
    };
  } finally {
    await peer.stop();
  }
}

/** Whether valgrind's callgrind runs here: it counts instructions where perf cannot (BENCH_CALLGRIND=0 skips it). */
const CALLGRIND_AVAILABLE = process.env.BENCH_CALLGRIND !== '0' && spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).status === 0;

/**
 * Instructions (all threads, callgrind) from spawn to the complete list, then SIGTERM (ours counts
 * its orderly shutdown too; the bridge just ends): unlike milliseconds, the same on a loaded machine.
 * About 30-60 s a server: valgrind runs it 20-50 times slower.
 */
async function startupInstructions(s: ServerUnderTest, expected: number): Promise<number | undefined> {
  if (!CALLGRIND_AVAILABLE) return undefined;
  const log = join(OUT, `callgrind-${s.label.replace(/\W+/g, '-')}.log`);
  rmSync(log, { force: true });
  const child = spawn('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', `--log-file=${log}`, process.execPath, ...s.argv], {
    cwd: ROOT,
    env: { ...baseEnv(), ...s.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const peer = new StdioPeer(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await peer.initialize();
    let seen = peer.listChanges;
    let tools = toolCount(await peer.request('tools/list'));
    // Under valgrind the description may miss the first list's wait: follow the changes, with time to spare.
    while (tools < expected && (await peer.listChangedAfter(seen, LIST_CHANGE_WAIT_MS * 10))) {
      seen = peer.listChanges;
      tools = toolCount(await peer.request('tools/list'));
    }
    child.kill('SIGTERM');
    await exited;
    const n = Number(/Collected : (\d+)/.exec(readFileSync(log, 'utf8'))?.[1]);
    return Number.isFinite(n) && n > 0 ? n : undefined;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
}

/** What ours builds for its tools, timed in a child from the build: the catalog, the schemas, the list. */
interface BuiltPerTool {
  operations: number;
  tools: number;
  catalogImportMs: number;
  catalogHeapMb: number;
  serverModulesMs: number;
  serverModulesHeapMb: number;
  /** Parsing the input schemas the build converted and bundled (their JSON text). */
  builtReadMs: number;
  inputSchemasMs: number;
  /** Converting them all with zod instead (their entries' zod inputs built too): a start from the sources. */
  convertedSchemasMs: number;
  /** Catalog entries whose zod input the listing built (each is built on first read). */
  inputsBuiltByList: number;
  outputSchemasMs: number;
  listRestMs: number;
  listAgainMs: number;
  builtHeapMb: number;
  listKb: number;
}

function builtPerTool(): BuiltPerTool | { error: string } {
  const script = `
    const modules = process.argv[1];
    const gc = globalThis.gc ?? (() => {});
    const heap = () => { gc(); return process.memoryUsage().heapUsed / 1048576; };
    const h0 = heap(); let t = performance.now();
    const { catalog } = await import(modules + '/catalog/index.js');
    const catalogImportMs = performance.now() - t; const h1 = heap(); t = performance.now();
    const { toolListFor } = await import(modules + '/src/mcp/server/session.js');
    const { operationSchema, convertOperationSchema } = await import(modules + '/src/mcp/pipeline/shown-schema.js');
    const { operationOutputSchema } = await import(modules + '/src/mcp/pipeline/result-schemas.js');
    const { useBuiltSchemas } = await import(modules + '/src/mcp/pipeline/built-schemas.js');
    const serverModulesMs = performance.now() - t; const h2 = heap();
    // What a bundle holds (the JSON text of every catalog schema, converted at build in another
    // process, so no input of this one is built), parsed as the bundle parses it.
    const bundledText = (await import('node:fs')).readFileSync(process.argv[2], 'utf8');
    t = performance.now(); useBuiltSchemas(JSON.parse(bundledText)); const builtReadMs = performance.now() - t;
    t = performance.now(); for (const op of catalog) operationSchema(op); const inputSchemasMs = performance.now() - t;
    t = performance.now(); for (const op of catalog) operationOutputSchema(op); const outputSchemasMs = performance.now() - t;
    const policy = { toolsets: 'all', readOnly: false };
    t = performance.now(); const tools = toolListFor(policy, catalog); const listRestMs = performance.now() - t;
    t = performance.now(); toolListFor(policy, catalog); const listAgainMs = performance.now() - t;
    const inputsBuiltByList = catalog.filter((op) => 'value' in (Object.getOwnPropertyDescriptor(op, 'input') ?? {})).length;
    const h3 = heap();
    t = performance.now(); for (const op of catalog) convertOperationSchema(op); const convertedSchemasMs = performance.now() - t;
    process.stdout.write(JSON.stringify({ operations: catalog.length, tools: tools.length, catalogImportMs, catalogHeapMb: h1 - h0,
      serverModulesMs, serverModulesHeapMb: h2 - h1, builtReadMs, inputSchemasMs, convertedSchemasMs, inputsBuiltByList, outputSchemasMs, listRestMs, listAgainMs, builtHeapMb: h3 - h2,
      listKb: JSON.stringify(tools).length / 1024 }));`;
  // The schemas a bundle holds: converted from the same modules, as scripts/build-schemas.ts converts them.
  const convert = `
    const { catalog } = await import(process.argv[1] + '/catalog/index.js');
    const { convertOperationSchema } = await import(process.argv[1] + '/src/mcp/pipeline/shown-schema.js');
    process.stdout.write(JSON.stringify(Object.fromEntries(catalog.map((op) => [op.name, convertOperationSchema(op)]))));`;
  const schemas = spawnSync(process.execPath, ['--input-type=module', '-e', convert, UNBUNDLED], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (schemas.status !== 0) return { error: schemas.stderr.slice(-300) };
  const schemasFile = join(OUT, 'shown-schemas.json');
  writeFileSync(schemasFile, schemas.stdout);
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', ...binFlags(join(ROOT, 'dist/src/cli.js')), '--input-type=module', '-e', script, UNBUNDLED, schemasFile],
    {
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) return { error: r.stderr.slice(-300) };
  return JSON.parse(r.stdout) as BuiltPerTool;
}

/** Medians of BENCH_BREAKDOWN_RUNS (default 3) interleaved runs of builtPerTool, each key apart. */
function builtPerToolMedian(runs: number): BuiltPerTool | { error: string } {
  const all: BuiltPerTool[] = [];
  for (let i = 0; i < runs; i++) {
    const b = builtPerTool();
    if ('error' in b) return b;
    all.push(b);
  }
  const first = all[0] as BuiltPerTool;
  const out = { ...first };
  for (const k of Object.keys(first) as Array<keyof BuiltPerTool>) out[k] = median(all.map((b) => b[k]));
  return out;
}

function breakdownText(loads: LoadBreakdown[], built: BuiltPerTool | { error: string }): string {
  const lines: string[] = [
    'where the time and memory go at start (one recorded run each: modules loaded before the first complete tools/list, by size of source; RSS and heap then):',
  ];
  for (const l of loads) {
    lines.push(
      `  ${l.label}: ${l.modules} modules, ${fmt(l.sourceKb)} KB of source, RSS ${fmt(l.rssMb)} MB, heap ${fmt(l.heapMb)} MB; largest: ` +
        l.packages
          .slice(0, 8)
          .map((p) => `${p.name} ${p.modules}/${fmt(p.sourceKb)} KB @${fmt(p.firstMs)} ms`)
          .join(', '),
    );
  }
  if ('error' in built) lines.push(`  built per tool: not measured (${built.error})`);
  else {
    const per = (ms: number) => `${fmt((ms * 1000) / built.operations)} us/tool`;
    lines.push(
      `  ours builds per tool (${built.operations} operations, ${built.tools} tools, median of runs, in one process from dist): catalog import ${fmt(built.catalogImportMs)} ms ` +
        `(+${fmt(built.catalogHeapMb)} MB heap: its entries; each builds its zod input on first read), server modules ${fmt(built.serverModulesMs)} ms (+${fmt(built.serverModulesHeapMb)} MB), ` +
        `shown input schemas as the bundle holds them (converted at build: parsed ${fmt(built.builtReadMs)} ms, then ${fmt(built.inputSchemasMs)} ms = ${per(built.inputSchemasMs)}; ` +
        `converting them with zod instead, inputs built: ${fmt(built.convertedSchemasMs)} ms = ${per(built.convertedSchemasMs)}), zod inputs the listing built: ${built.inputsBuiltByList}, output schemas ${fmt(built.outputSchemasMs)} ms, ` +
        `the rest of the list ${fmt(built.listRestMs)} ms, the list again (all cached) ${fmt(built.listAgainMs)} ms; +${fmt(built.builtHeapMb)} MB heap; the list is ${fmt(built.listKb)} KB of JSON`,
    );
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The run.

function ensureBaseline(): void {
  if (existsSync(BASELINE_BIN)) return;
  process.stderr.write(`installing ${BASELINE_PACKAGE}@1 into .bench-out/baseline (first run only)\n`);
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', BASELINE_DIR, `${BASELINE_PACKAGE}@1`], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0 || !existsSync(BASELINE_BIN)) throw new Error(`could not install ${BASELINE_PACKAGE}`);
}

/** Runs npm in another folder: with its own prefix, and none of the outer `npm run`'s package settings. */
function npmIn(dir: string, args: string[]): void {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('npm_package_') || k.startsWith('npm_lifecycle_') || k === 'npm_config_local_prefix') delete env[k];
  const r = spawnSync('npm', [...args, '--prefix', dir], { cwd: dir, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} in ${dir} exited ${r.status}`);
}

/**
 * The server as it was before the SDK v2 rebuild, built once into .bench-out/before from this
 * repository's history (git archive, npm ci, npm run build) and reused while the mark names the commit.
 */
function ensureBefore(): void {
  if (existsSync(BEFORE_BIN) && existsSync(BEFORE_MARK) && readFileSync(BEFORE_MARK, 'utf8').trim() === BEFORE_COMMIT) return;
  const has = spawnSync('git', ['-C', ROOT, 'cat-file', '-e', `${BEFORE_COMMIT}^{commit}`]);
  if (has.status !== 0)
    throw new Error(`commit ${BEFORE_COMMIT.slice(0, 7)} (the server before the rebuild) is not in this clone: fetch the full history (git fetch --unshallow)`);
  process.stderr.write(`preparing the server before the rebuild (${BEFORE_COMMIT.slice(0, 7)}) in .bench-out/before (first run only)\n`);
  rmSync(BEFORE_DIR, { recursive: true, force: true });
  mkdirSync(BEFORE_DIR, { recursive: true });
  const tar = join(OUT, 'before.tar');
  const archived = spawnSync('git', ['-C', ROOT, 'archive', '--format=tar', '-o', tar, BEFORE_COMMIT], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (archived.status !== 0) throw new Error(`git archive ${BEFORE_COMMIT} failed`);
  const extracted = spawnSync('tar', ['-xf', tar, '-C', BEFORE_DIR], { stdio: ['ignore', 'inherit', 'inherit'] });
  rmSync(tar, { force: true });
  if (extracted.status !== 0) throw new Error('extracting the archive of before failed');
  // Its lockfile as it was; no install scripts (its runtime dependencies have none; `prepare` would build twice).
  npmIn(BEFORE_DIR, ['ci', '--ignore-scripts', '--no-audit', '--no-fund']);
  npmIn(BEFORE_DIR, ['run', 'build']);
  if (!existsSync(BEFORE_BIN)) throw new Error(`building before left no ${BEFORE_BIN}`);
  writeFileSync(BEFORE_MARK, `${BEFORE_COMMIT}\n`);
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/src/cli.js'))) throw new Error('dist/ is missing: run `npm run bench` (it builds first)');
  mkdirSync(OUT, { recursive: true });
  ensureBaseline();
  ensureBefore();
  const baselineVersion = (JSON.parse(readFileSync(join(BASELINE_DIR, 'node_modules', BASELINE_PACKAGE, 'package.json'), 'utf8')) as { version: string })
    .version;
  const loadAtStart = loadavg();

  const sandbox = await startSandbox();
  const agent = new Agent({ connections: 1, keepAliveTimeout: 30_000 });
  try {
    const sb = sandbox.info;
    const auth = { authorization: `Bearer ${sb.tokens.write}`, accept: 'application/json' };
    const specRes = await request(`${sb.api}/openapi.json`, { headers: auth, dispatcher: agent });
    const specFile = join(OUT, 'sandbox-openapi.json');
    writeFileSync(specFile, await specRes.body.text());
    const engRes = await request(`${sb.api}/engagements?limit=1`, { headers: auth, dispatcher: agent });
    const engagement = ((await engRes.body.json()) as { data: Array<{ id: string }> }).data[0]?.id;
    if (!engagement) throw new Error('the sandbox lists no engagement');

    // The complete lists. Every tool (all): the catalog plus the description's generated operations,
    // as each build counts them, checked against what the server lists once it has settled. The
    // default surface: what the server lists once settled (25 by design).
    process.stderr.write(`complete lists: each server listed until it has announced no change for ${SETTLE_QUIET_MS} ms\n`);
    const cases: StartupCase[] = [];
    for (const [make, modules] of [
      [ours, UNBUNDLED],
      [before, join(BEFORE_DIR, 'dist')],
    ] as const) {
      const all = make(sb, 'all');
      const counted = catalogPlusGenerated(modules, specFile);
      const settled = await settledToolCount(all);
      if (settled !== counted) throw new Error(`${all.label}: settles on ${settled} tools, but its catalog and the live description make ${counted}`);
      cases.push({ key: `${all.label}/all`, server: all, expected: counted });
      const def = make(sb, 'default');
      cases.push({ key: `${def.label}/default`, server: def, expected: await settledToolCount(def) });
    }
    const bridge = baseline(sb, specFile);
    // It reads the description from a file before it answers: its first list is its whole list.
    cases.push({ key: 'baseline/all', server: bridge, expected: await settledToolCount(bridge) });
    // The yardsticks' starts (one tool each): what the machine and each SDK charge before any list,
    // the share of a startup gap that is the platform's, not this server's.
    for (const floor of ['plain', 'sdk', 'sdk-v1'] as const) {
      const f = floorBridge(sb, floor);
      cases.push({ key: f.label, server: f, expected: 1 });
    }

    process.stderr.write(`startup: ${STARTUP_WARMUPS} warm-ups + ${STARTUP_RUNS} runs of ${cases.map((c) => c.key).join(', ')}, interleaved\n`);
    const startup = await measureStartup(cases);
    const measured = [ours(sb), before(sb), bridge, floorBridge(sb, 'plain'), floorBridge(sb, 'sdk'), floorBridge(sb, 'sdk-v1')];
    process.stderr.write(`calls: ${measured.map((s) => s.label).join(', ')}: ${CALLS} calls each, in turn, paired with direct requests\n`);
    (globalThis as { gc?: () => void }).gc?.();
    const calls = await measureCalls(measured, sb, engagement, agent);
    const sandboxFigure = sandboxThroughput();
    process.stderr.write('breakdown: the modules each server loads before its complete list; what ours builds per tool\n');
    const oursAllCase = cases.find((c) => c.key === 'ours/all');
    const loads = [
      await loadBreakdown(ours(sb), oursAllCase?.expected ?? 0),
      await loadBreakdown(bridge, cases.find((c) => c.key === 'baseline/all')?.expected ?? 0),
    ];
    const built = builtPerToolMedian(Math.max(1, Number(process.env.BENCH_BREAKDOWN_RUNS ?? 3)));
    if (CALLGRIND_AVAILABLE) process.stderr.write('startup instructions: ours, baseline and the SDK floors under callgrind (BENCH_CALLGRIND=0 skips)\n');
    const instructions: Partial<Record<Column, number>> = {};
    for (const [col, server, expected] of [
      ['ours', ours(sb), oursAllCase?.expected ?? 0],
      ['baseline', bridge, cases.find((c) => c.key === 'baseline/all')?.expected ?? 0],
      ['sdkFloor', floorBridge(sb, 'sdk'), 1],
      ['sdkV1Floor', floorBridge(sb, 'sdk-v1'), 1],
    ] as const) {
      const n = await startupInstructions(server, expected);
      if (n !== undefined) instructions[col] = n / 1e6;
    }
    report({ startup, calls, sandboxFigure, baselineVersion, load: { start: loadAtStart, end: loadavg() }, breakdown: { loads, built }, instructions });
  } finally {
    await agent.close();
    await sandbox.stop();
  }
}

type Column = 'ours' | 'before' | 'baseline' | 'floor' | 'sdkFloor' | 'sdkV1Floor';
const COLUMNS: Array<[Column, string]> = [
  ['ours', 'ours'],
  ['before', 'before'],
  ['baseline', 'baseline'],
  ['floor', 'floor'],
  ['sdkFloor', 'sdk floor'],
  ['sdkV1Floor', 'sdk v1 floor'],
];

interface Metric {
  metric: string;
  values: Partial<Record<Column, number>>;
  target: string;
  met: boolean | undefined;
  /** A count (tools listed): no ours/before ratio. */
  count?: true;
  /** The bar against the generic bridge (baseline): ours at most 1.0x, in this same run. */
  vsBaseline?: true;
}

function report(r: {
  startup: Map<string, StartupFigures>;
  calls: Map<string, CallFigures>;
  sandboxFigure: Record<string, unknown> | undefined;
  baselineVersion: string;
  breakdown: { loads: LoadBreakdown[]; built: BuiltPerTool | { error: string } };
  /** Millions of instructions from spawn to the complete list (callgrind), when valgrind runs here. */
  instructions: Partial<Record<Column, number>>;
  load: { start: number[]; end: number[] };
}): void {
  const st = (key: string) => {
    const f = r.startup.get(key);
    if (!f) throw new Error(`the startup of ${key} is missing`);
    return f;
  };
  const oursAll = st('ours/all');
  const beforeAll = st('before/all');
  const baseAll = st('baseline/all');
  const floorStart: Partial<Record<Column, number>> = {
    floor: st('floor').medianMs,
    sdkFloor: st('sdk floor').medianMs,
    sdkV1Floor: st('sdk v1 floor').medianMs,
  };
  const oursDefault = st('ours/default');
  const beforeDefault = st('before/default');
  const call = (label: string) => {
    const f = r.calls.get(label);
    if (!f) throw new Error(`the calls of ${label} are missing`);
    return f;
  };
  const c: Record<Column, CallFigures> = {
    ours: call('ours'),
    before: call('before'),
    baseline: call('baseline'),
    floor: call('floor'),
    sdkFloor: call('sdk floor'),
    sdkV1Floor: call('sdk v1 floor'),
  };
  const each = (pick: (f: CallFigures) => number | undefined): Partial<Record<Column, number>> => {
    const out: Partial<Record<Column, number>> = {};
    for (const [col] of COLUMNS) {
      const v = pick(c[col]);
      if (v !== undefined) out[col] = v;
    }
    return out;
  };
  const overheadCeiling = c.before.overheadMs * TARGETS.overheadVsBefore;
  const rssCeiling = c.before.rssMb * TARGETS.rssVsBefore;
  const metrics: Metric[] = [
    {
      metric: 'spawn to complete tools/list (all), median ms',
      values: { ours: oursAll.medianMs, before: beforeAll.medianMs, baseline: baseAll.medianMs, ...floorStart },
      target: `< ${TARGETS.completeListMs}`,
      met: oursAll.medianMs < TARGETS.completeListMs,
      vsBaseline: true,
    },
    ...(r.instructions.ours !== undefined
      ? [
          {
            metric: 'spawn to complete tools/list (all), M instructions (callgrind, load-independent)',
            values: r.instructions,
            target: '',
            met: undefined,
            vsBaseline: true as const,
          },
        ]
      : []),
    {
      metric: 'spawn to complete tools/list (all), p25-p75 ms',
      values: {},
      target: `ours ${spread(oursAll.samples)}, before ${spread(beforeAll.samples)}, baseline ${spread(baseAll.samples)}`,
      met: undefined,
    },
    {
      metric: 'spawn to complete tools/list (default), median ms',
      values: { ours: oursDefault.medianMs, before: beforeDefault.medianMs },
      target: `< ${TARGETS.completeListMs}`,
      met: oursDefault.medianMs < TARGETS.completeListMs,
    },
    {
      metric: 'spawn to first tools/list (all), median ms',
      values: { ours: oursAll.firstMedianMs, before: beforeAll.firstMedianMs, baseline: baseAll.firstMedianMs },
      target: '',
      met: undefined,
    },
    {
      metric: 'spawn to first tools/list (default), median ms',
      values: { ours: oursDefault.firstMedianMs, before: beforeDefault.firstMedianMs },
      target: '',
      met: undefined,
    },
    {
      metric: 'tools in first list (all)',
      values: { ours: oursAll.firstTools, before: beforeAll.firstTools, baseline: baseAll.firstTools },
      target: '',
      met: undefined,
      count: true,
    },
    {
      metric: 'tools in complete list (all)',
      values: { ours: oursAll.tools, before: beforeAll.tools, baseline: baseAll.tools },
      target: '',
      met: undefined,
      count: true,
    },
    {
      metric: 'tools in first list (default)',
      values: { ours: oursDefault.firstTools, before: beforeDefault.firstTools },
      target: '',
      met: undefined,
      count: true,
    },
    { metric: 'tools in complete list (default)', values: { ours: oursDefault.tools, before: beforeDefault.tools }, target: '', met: undefined, count: true },
    {
      metric: 'tool call overhead, median ms',
      values: each((f) => f.overheadMs),
      target: `<= ${TARGETS.overheadVsBefore} x before = ${fmt(overheadCeiling)}`,
      met: c.ours.overheadMs <= overheadCeiling,
      vsBaseline: true,
    },
    {
      metric: 'tool call overhead, p25-p75 ms',
      values: {},
      target: `ours ${c.ours.overheadSpread}, before ${c.before.overheadSpread}, baseline ${c.baseline.overheadSpread}`,
      met: undefined,
    },
    {
      metric: `RSS after ${CALLS} calls, MB`,
      values: each((f) => f.rssMb),
      target: `<= ${TARGETS.rssVsBefore} x before = ${fmt(rssCeiling)}`,
      met: c.ours.rssMb <= rssCeiling,
      vsBaseline: true,
    },
    { metric: 'server CPU per call, ms', values: each((f) => f.cpuMsPerCall), target: '', met: undefined },
    // What each server's own code adds over the SDK it is built on (ours over the v2 floor, before over
    // the v1 floor): the regression that is this repository's, with the SDK's share taken out.
    {
      metric: 'overhead over its SDK floor, ms',
      values: { ours: c.ours.overheadMs - c.sdkFloor.overheadMs, before: c.before.overheadMs - c.sdkV1Floor.overheadMs },
      target: '',
      met: undefined,
    },
    {
      metric: 'CPU per call over its SDK floor, ms',
      values: { ours: c.ours.cpuMsPerCall - c.sdkFloor.cpuMsPerCall, before: c.before.cpuMsPerCall - c.sdkV1Floor.cpuMsPerCall },
      target: '',
      met: undefined,
    },
    ...(c.ours.instructionsMPerCall !== undefined
      ? [{ metric: 'server instructions per call, M', values: each((f) => f.instructionsMPerCall), target: '', met: undefined }]
      : []),
    { metric: 'tool call, median ms', values: each((f) => f.mcpMedianMs), target: '', met: undefined },
    { metric: 'direct request, median ms', values: each((f) => f.directMedianMs), target: '', met: undefined },
  ];
  const opt = (x: number | undefined) => (x === undefined ? '' : fmt(x));
  const ratio = (m: Metric) => (!m.count && m.values.ours !== undefined && m.values.before ? `${(m.values.ours / m.values.before).toFixed(2)}` : '');
  const vsBaseline = (m: Metric) => (!m.count && m.values.ours !== undefined && m.values.baseline ? `${(m.values.ours / m.values.baseline).toFixed(2)}` : '');
  const met21 = (m: Metric) => (m.vsBaseline && m.values.ours !== undefined && m.values.baseline ? (m.values.ours <= m.values.baseline ? 'yes' : 'NO') : '');
  const rows = [['metric', ...COLUMNS.map(([, title]) => title), 'ours/before', 'target', 'met', 'ours/baseline', '<= 1.0x baseline']].concat(
    metrics.map((m) => [
      m.metric,
      ...COLUMNS.map(([col]) => opt(m.values[col])),
      ratio(m),
      m.target,
      m.met === undefined ? '' : m.met ? 'yes' : 'NO',
      vsBaseline(m),
      met21(m),
    ]),
  );
  const widths = (rows[0] as string[]).map((_, i) => Math.max(...rows.map((row) => (row[i] as string).length)));
  const lines = rows.map((row) => `| ${row.map((cell, i) => cell.padEnd(widths[i] as number)).join(' | ')} |`);
  lines.splice(1, 0, `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  const sandboxLine = r.sandboxFigure
    ? `sandbox alone (bench/sandbox.ts, rate limit off): ${r.sandboxFigure.requests_per_second ?? '?'} simple GETs/s ${r.sandboxFigure.error ? `(${String(r.sandboxFigure.error)})` : ''}`
    : 'sandbox alone: bench/sandbox.ts not present';
  const header =
    `before: this server at ${BEFORE_COMMIT.slice(0, 7)}, before the SDK v2 rebuild (SDK v1; its first tools/list came from a build-time cache, the rest by list_changed)\n` +
    `baseline: ${BASELINE_PACKAGE}@${r.baselineVersion} (generic OpenAPI-to-MCP bridge, same sandbox, the live openapi.json saved to a file)\n` +
    'floor: bench/floor-bridge.mjs, the same request and result shape with no SDK, validation or limiter: what any stdio bridge pays here\n' +
    'sdk floor: the same behind the MCP SDK v2 (a low-level Server served by serveStdio): what the SDK adds\n' +
    "sdk v1 floor: the same behind before's SDK v1, tools/call registered past its parsing as before did: sdk floor minus this is the SDK's share of ours minus before\n" +
    'complete tools/list: spawn, initialize, tools/list, then on each list_changed tools/list again until every tool is listed';
  const perfLine =
    c.ours.instructionsMPerCall === undefined ? 'instructions per call: not counted (perf stat cannot count instructions on this machine)\n' : '';
  const loadLine = `load average (1, 5, 15 min) at start ${r.load.start.map((x) => x.toFixed(2)).join(' ')}, at end ${r.load.end.map((x) => x.toFixed(2)).join(' ')} on ${cpus().length} CPUs`;
  process.stdout.write(`${header}\n${lines.join('\n')}\n${sandboxLine}\n${perfLine}${loadLine}\n${breakdownText(r.breakdown.loads, r.breakdown.built)}\n`);

  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadavg: { start: r.load.start.map((x) => Number(x.toFixed(2))), end: r.load.end.map((x) => Number(x.toFixed(2))) },
    before: BEFORE_COMMIT,
    baseline: `${BASELINE_PACKAGE}@${r.baselineVersion}`,
    targets: TARGETS,
    metrics,
    startup: { runs: STARTUP_RUNS, warmups: STARTUP_WARMUPS, ...Object.fromEntries(r.startup) },
    calls: c,
    sandbox: r.sandboxFigure ?? null,
    breakdown: r.breakdown,
    startupInstructionsM: r.instructions,
  };
  writeFileSync(join(OUT, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`written: .bench-out/results.json\n`);
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(x < 10 ? 2 : 1);
}

await main();
