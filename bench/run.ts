// `npm run bench`: the built server against a generic OpenAPI-to-MCP bridge, side by side in one run,
// on the same sandbox (a separate process, so it shares neither CPU time nor heap with the measuring
// process): spawn-to-first-tools/list, per-call overhead over a direct HTTP request, and resident
// memory after the calls. Prints a table and writes .bench-out/results.json.
// Plain Node (types stripped): erasable TypeScript only, and one file, since Node needs `.ts` import
// specifiers that the shared tsconfig does not allow.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, '.bench-out');
const BASELINE_PACKAGE = '@ivotoby/openapi-mcp-server';
const BASELINE_DIR = join(OUT, 'baseline');
const BASELINE_BIN = join(BASELINE_DIR, 'node_modules', BASELINE_PACKAGE, 'bin', 'mcp-server.js');

const STARTUP_RUNS = Math.max(15, Number(process.env.BENCH_STARTUP_RUNS ?? 15));
const STARTUP_WARMUPS = 2;
const CALLS = Math.max(1000, Number(process.env.BENCH_CALLS ?? 1000));
const CALL_WARMUPS = 50;
const LIST_LIMIT = 5;

/** Kernel clock ticks per second, the unit of /proc/<pid>/stat CPU times. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

const TARGETS = { startupMs: 125, overheadMs: 0.5, rssBelowBaseline: 0.1 };

// ---------------------------------------------------------------------------------------------
// JSON-RPC over a child's stdio, written by hand: no SDK client weighs on the measurement.

type RpcResult = Record<string, unknown>;

class StdioPeer {
  readonly child: ChildProcessWithoutNullStreams;
  private nextId = 1;
  private buffer = '';
  private readonly waiting = new Map<number, { resolve: (r: RpcResult) => void; reject: (e: Error) => void }>();
  private stderr = '';

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
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line) as { id?: number; result?: RpcResult; error?: { message?: string } };
      if (typeof msg.id !== 'number') continue;
      const w = this.waiting.get(msg.id);
      if (!w) continue;
      this.waiting.delete(msg.id);
      if (msg.error) w.reject(new Error(`JSON-RPC error: ${msg.error.message ?? JSON.stringify(msg.error)}`));
      else w.resolve(msg.result ?? {});
    }
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

function ours(sb: SandboxInfo): ServerUnderTest {
  const bin = join(ROOT, 'dist/src/cli.js');
  return {
    label: 'ours',
    // As a client runs the installed bin: with the flags of its shebang.
    argv: [...binFlags(bin), bin],
    env: {
      WORKSPACE_URL: sb.url,
      WORKSPACE_TOKEN: sb.tokens.write,
      WORKSPACE_TOOLSETS: 'all',
      // The limiter stays on the path with a time-scaled window (120 per 10 ms): 1,000 calls would
      // otherwise take eight minutes at the API's real budget.
      WORKSPACE_RATE_LIMIT: '120/0.01',
      LOG_LEVEL: 'warn',
    },
    findingsCall: (_tools, engagement) => ({ name: 'list_findings', arguments: { engagement, limit: LIST_LIMIT } }),
  };
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

/**
 * The yardsticks (bench/floor-bridge.mjs): the same request and the same result shape with nothing
 * else on the path, by hand ('floor': what the machine charges any stdio bridge for this call) and
 * behind the MCP SDK's server ('sdk floor': what the SDK adds, which this server is built on).
 */
function floorBridge(sb: SandboxInfo, withSdk: boolean): ServerUnderTest {
  return {
    label: withSdk ? 'sdk floor' : 'floor',
    argv: [join(ROOT, 'bench/floor-bridge.mjs')],
    env: { WORKSPACE_API: sb.api, WORKSPACE_TOKEN: sb.tokens.write, ...(withSdk ? { FLOOR_WITH_SDK: '1' } : {}) },
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

/** Spawn, initialize, tools/list: the time a client waits before it can offer the tools. */
async function timeToToolsList(s: ServerUnderTest): Promise<{ ms: number; tools: number }> {
  const started = performance.now();
  const peer = spawnServer(s);
  try {
    await peer.initialize();
    const list = await peer.request('tools/list');
    const ms = performance.now() - started;
    return { ms, tools: (list.tools as unknown[]).length };
  } finally {
    await peer.stop();
  }
}

/** Runs the two servers in turn, so a burst of machine load weighs on both alike. */
async function measureStartup(servers: ServerUnderTest[]): Promise<Map<string, { medianMs: number; samples: number[]; tools: number }>> {
  const samples = new Map<string, number[]>(servers.map((s) => [s.label, []]));
  const tools = new Map<string, number>();
  for (let i = 0; i < STARTUP_WARMUPS + STARTUP_RUNS; i++) {
    for (const s of servers) {
      const r = await timeToToolsList(s);
      tools.set(s.label, r.tools);
      if (i >= STARTUP_WARMUPS) samples.get(s.label)?.push(r.ms);
    }
  }
  return new Map(
    servers.map((s) => {
      const xs = samples.get(s.label) ?? [];
      return [s.label, { medianMs: median(xs), samples: xs.map((x) => Number(x.toFixed(1))), tools: tools.get(s.label) ?? 0 }];
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
  const sessions = servers.map((s) => ({ s, peer: spawnServer(s), call: { name: '', arguments: {} as Record<string, unknown> }, directMs: [] as number[], mcpMs: [] as number[], diffs: [] as number[], cpuBefore: 0 }));
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

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/src/cli.js'))) throw new Error('dist/ is missing: run `npm run bench` (it builds first)');
  mkdirSync(OUT, { recursive: true });
  ensureBaseline();
  const baselineVersion = (JSON.parse(readFileSync(join(BASELINE_DIR, 'node_modules', BASELINE_PACKAGE, 'package.json'), 'utf8')) as { version: string }).version;

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

    const servers = [ours(sb), baseline(sb, specFile)];
    process.stderr.write(`startup: ${STARTUP_WARMUPS} warm-ups + ${STARTUP_RUNS} runs each, interleaved\n`);
    const startup = await measureStartup(servers);
    const measured = [...servers, floorBridge(sb, false), floorBridge(sb, true)];
    process.stderr.write(`calls: ${measured.map((s) => s.label).join(', ')}: ${CALLS} calls each, in turn, paired with direct requests\n`);
    (globalThis as { gc?: () => void }).gc?.();
    const calls = await measureCalls(measured, sb, engagement, agent);
    const sandboxFigure = sandboxThroughput();
    report({ startup, calls, sandboxFigure, baselineVersion });
  } finally {
    await agent.close();
    await sandbox.stop();
  }
}

function report(r: {
  startup: Map<string, { medianMs: number; samples: number[]; tools: number }>;
  calls: Map<string, CallFigures>;
  sandboxFigure: Record<string, unknown> | undefined;
  baselineVersion: string;
}): void {
  const so = r.startup.get('ours');
  const sb = r.startup.get('baseline');
  const co = r.calls.get('ours');
  const cb = r.calls.get('baseline');
  const cf = r.calls.get('floor');
  const cs = r.calls.get('sdk floor');
  if (!so || !sb || !co || !cb || !cf || !cs) throw new Error('a measurement is missing');
  const rssCeiling = cb.rssMb * (1 - TARGETS.rssBelowBaseline);
  type Metric = { metric: string; ours: number; baseline: number; floor?: number; sdkFloor?: number; target: string; met: boolean | undefined };
  const metrics: Metric[] = [
    { metric: 'spawn to tools/list, median ms', ours: so.medianMs, baseline: sb.medianMs, target: `< ${TARGETS.startupMs}`, met: so.medianMs < TARGETS.startupMs },
    { metric: 'tool call overhead, median ms', ours: co.overheadMs, baseline: cb.overheadMs, floor: cf.overheadMs, sdkFloor: cs.overheadMs, target: `< ${TARGETS.overheadMs}`, met: co.overheadMs < TARGETS.overheadMs },
    { metric: `RSS after ${CALLS} calls, MB`, ours: co.rssMb, baseline: cb.rssMb, floor: cf.rssMb, sdkFloor: cs.rssMb, target: `<= ${rssCeiling.toFixed(1)} (10% below)`, met: co.rssMb <= rssCeiling },
    { metric: 'server CPU per call, ms', ours: co.cpuMsPerCall, baseline: cb.cpuMsPerCall, floor: cf.cpuMsPerCall, sdkFloor: cs.cpuMsPerCall, target: '', met: undefined },
    ...(co.instructionsMPerCall !== undefined && cb.instructionsMPerCall !== undefined
      ? [{ metric: 'server instructions per call, M', ours: co.instructionsMPerCall, baseline: cb.instructionsMPerCall, floor: cf.instructionsMPerCall, sdkFloor: cs.instructionsMPerCall, target: '', met: undefined }]
      : []),
    { metric: 'tool call, median ms', ours: co.mcpMedianMs, baseline: cb.mcpMedianMs, floor: cf.mcpMedianMs, sdkFloor: cs.mcpMedianMs, target: '', met: undefined },
    { metric: 'direct request, median ms', ours: co.directMedianMs, baseline: cb.directMedianMs, floor: cf.directMedianMs, sdkFloor: cs.directMedianMs, target: '', met: undefined },
    { metric: 'tools listed', ours: so.tools, baseline: sb.tools, target: '', met: undefined },
  ];
  const opt = (x: number | undefined) => (x === undefined ? '' : fmt(x));
  const rows = [['metric', 'ours', 'baseline', 'floor', 'sdk floor', 'target', 'met']].concat(
    metrics.map((m) => [m.metric, fmt(m.ours), fmt(m.baseline), opt(m.floor), opt(m.sdkFloor), m.target, m.met === undefined ? '' : m.met ? 'yes' : 'NO']),
  );
  const widths = (rows[0] as string[]).map((_, i) => Math.max(...rows.map((row) => (row[i] as string).length)));
  const lines = rows.map((row) => `| ${row.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`);
  lines.splice(1, 0, `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  const sandboxLine = r.sandboxFigure
    ? `sandbox alone (bench/sandbox.ts, rate limit off): ${r.sandboxFigure.requests_per_second ?? '?'} simple GETs/s ${r.sandboxFigure.error ? `(${String(r.sandboxFigure.error)})` : ''}`
    : 'sandbox alone: bench/sandbox.ts not present';
  // Ours answers the first tools/list with the catalog from the build; the live description's extra
  // operations follow with notifications/tools/list_changed once the server has merged them.
  const header =
    `baseline: ${BASELINE_PACKAGE}@${r.baselineVersion} (generic OpenAPI-to-MCP bridge, same sandbox, the live openapi.json saved to a file)\n` +
    'floor: bench/floor-bridge.mjs, the same request and result shape with no SDK, validation or limiter: what any stdio bridge pays here\n' +
    'sdk floor: the same behind the MCP SDK server and stdio transport: what the SDK adds';
  process.stdout.write(`${header}\n${lines.join('\n')}\n${sandboxLine}\n`);

  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadavg: loadavg().map((x) => Number(x.toFixed(2))),
    baseline: `${BASELINE_PACKAGE}@${r.baselineVersion}`,
    targets: TARGETS,
    metrics,
    startup: { runs: STARTUP_RUNS, warmups: STARTUP_WARMUPS, ours: so, baseline: sb },
    calls: { ours: co, baseline: cb, floor: cf, sdkFloor: cs },
    sandbox: r.sandboxFigure ?? null,
  };
  writeFileSync(join(OUT, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`written: .bench-out/results.json\n`);
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(x < 10 ? 2 : 1);
}

await main();
