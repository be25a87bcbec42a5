// Soak test (not in CI): the built server as a child process over stdio, driven with a mix of reads
// and writes at just under the rate limit against the sandbox, for N minutes. Every interval it
// records calls, errors, latency (p50/p99), the child's resident memory and its open file descriptors
// (sockets and files: the handles a leak would pile up). Prints a table and a verdict, and writes
// .bench-out/soak.json.
//
//   npm run soak -- --minutes 30            real time: 120 requests a minute, 2 calls/s
//   npm run soak -- --minutes 3 --scale 0.05 the sandbox's minute lasts 3 s: 20x the calls
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

type SandboxModule = typeof import('../src/sandbox/index.js');
const { startSandbox } = (await import('../dist/unbundled/src/sandbox/index.js' as string).catch(() => import('../src/sandbox/index.js'))) as SandboxModule;
const { ENGAGEMENT_AP, SESSION_AP_CLERK, INTERVIEW_AP_CLERK } = await import('../src/sandbox/data/ids.js');

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
}
const MINUTES = flag('minutes', 30);
const SCALE = flag('scale', 1);
const WINDOW_S = 60 * SCALE;
/** Calls per second: 95% of the budget, so the limiter shapes traffic without queueing it up. */
const RATE = (120 / WINDOW_S) * 0.95;
const SAMPLE_S = flag('sample-seconds', Math.max(5, Math.min(60, (MINUTES * 60) / 30)));
const WARMUP_S = Math.max(SAMPLE_S, MINUTES * 6); // the first tenth of the run

const sandbox = await startSandbox({ port: 0, rateLimit: true, timeScale: SCALE, logger: (l) => process.stderr.write(`${l}\n`) });
const home = mkdtempSync(join(tmpdir(), 'wcm-soak-'));
const child = spawn(process.execPath, [CLI], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? '',
    HOME: home,
    WORKSPACE_URL: sandbox.url,
    WORKSPACE_TOKEN: sandbox.tokens.write,
    WORKSPACE_TOOLSETS: 'all',
    WORKSPACE_RATE_LIMIT: `120/${WINDOW_S}`,
    WORKSPACE_JOB_WAIT_SECONDS: '0',
    WORKSPACE_DOWNLOAD_DIR: join(home, 'downloads'),
    WORKSPACE_CONFIG_DIR: join(home, 'config'),
    LOG_LEVEL: 'warn',
    // e.g. SOAK_NODE_OPTIONS=--max-old-space-size=64: a leak then ends in an out-of-memory crash,
    // while heap that is merely not yet collected stays under the cap.
    ...(process.env.SOAK_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SOAK_NODE_OPTIONS } : {}),
  },
  stdio: ['pipe', 'pipe', 'pipe'],
});
child.stderr.on('data', (d: Buffer) => process.stderr.write(d));

type Answer = { id?: number; result?: { isError?: boolean; structuredContent?: Record<string, unknown> }; error?: unknown };
const pending = new Map<number, (a: Answer) => void>();
let partial = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (d: string) => {
  partial += d;
  for (let nl = partial.indexOf('\n'); nl >= 0; nl = partial.indexOf('\n')) {
    const line = partial.slice(0, nl);
    partial = partial.slice(nl + 1);
    if (!line) continue;
    const msg = JSON.parse(line) as Answer;
    if (typeof msg.id === 'number') pending.get(msg.id)?.(msg);
    pending.delete(msg.id as number);
  }
});
let nextId = 1;
function rpc(method: string, params?: unknown): Promise<Answer> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
  });
}

await rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'soak', version: '1' } });
child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
await rpc('tools/list');

/** The mix: mostly reads, of every size (a transcript is large), and a write followed by its delete. */
const E = ENGAGEMENT_AP;
const READS: [string, Record<string, unknown>][] = [
  ['get_workspace', {}],
  ['get_current_member', {}],
  ['list_findings', { engagement: E, limit: 20 }],
  ['list_interviews', { engagement: E }],
  ['get_session_transcript', { session: SESSION_AP_CLERK }],
  ['get_interview', { interview: INTERVIEW_AP_CLERK }],
  ['get_usage_summary', {}],
  ['list_chat_threads', { engagement: E }],
  ['get_deliverable_draft', { engagement: E }],
  ['list_ai_drivers', {}],
];
const createdFindings: string[] = [];

function ok(name: string, r: Answer): boolean {
  const good = !r.error && !r.result?.isError;
  if (!good) firstError ??= `${name}: ${JSON.stringify(r).slice(0, 400)}`;
  return good;
}

async function oneCall(n: number): Promise<boolean> {
  if (n % 10 === 0) {
    const r = await rpc('tools/call', { name: 'create_finding', arguments: { engagement: E, type: 'other', statement: `Soak finding ${n}` } });
    const id = r.result?.structuredContent?.id;
    if (typeof id === 'string') createdFindings.push(id);
    return ok('create_finding', r);
  }
  if (n % 10 === 5 && createdFindings.length > 0) {
    const r = await rpc('tools/call', { name: 'delete_finding', arguments: { engagement: E, finding: createdFindings.shift() } });
    return ok('delete_finding', r);
  }
  const [name, args] = READS[n % READS.length] as [string, Record<string, unknown>];
  const r = await rpc('tools/call', { name, arguments: args });
  return ok(name, r);
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}
const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

interface Sample {
  t: number;
  calls: number;
  errors: number;
  p50: number;
  p99: number;
  rssMb: number;
  fds: number;
}
const samples: Sample[] = [];
let latencies: number[] = [];
let calls = 0;
let errors = 0;
let totalCalls = 0;
let totalErrors = 0;
let firstError: string | undefined;
const allLatencies: number[] = [];
const started = performance.now();
const endAt = started + MINUTES * 60_000;
const inFlight = new Set<Promise<void>>();

const sampler = setInterval(() => {
  const pid = child.pid as number;
  const s: Sample = {
    t: Math.round((performance.now() - started) / 1000),
    calls,
    errors,
    p50: Math.round(pct(latencies, 50) * 10) / 10,
    p99: Math.round(pct(latencies, 99) * 10) / 10,
    rssMb: Math.round(rssMb(pid) * 10) / 10,
    fds: openFds(pid),
  };
  samples.push(s);
  process.stdout.write(
    `${String(s.t).padStart(6)} s  calls ${String(s.calls).padStart(5)}  errors ${s.errors}  p50 ${s.p50} ms  p99 ${s.p99} ms  RSS ${s.rssMb} MB  fds ${s.fds}\n`,
  );
  calls = 0;
  errors = 0;
  latencies = [];
}, SAMPLE_S * 1000);

process.stdout.write(`soak: ${MINUTES} min, sandbox minute = ${WINDOW_S} s, ${RATE.toFixed(1)} calls/s, sample every ${SAMPLE_S} s, warm-up ${WARMUP_S} s\n`);
for (let n = 0; performance.now() < endAt; n++) {
  const due = started + (n / RATE) * 1000;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const t0 = performance.now();
  const p: Promise<void> = oneCall(n).then((ok) => {
    const ms = performance.now() - t0;
    latencies.push(ms);
    allLatencies.push(ms);
    calls++;
    totalCalls++;
    if (!ok) {
      errors++;
      totalErrors++;
    }
    inFlight.delete(p);
  });
  inFlight.add(p);
}
await Promise.all(inFlight);
clearInterval(sampler);
child.stdin.end();
const exitCode = await new Promise<number | null>((r) => child.on('exit', r));
await sandbox.close();

const steady = samples.filter((s) => s.t >= WARMUP_S);
const first = steady[0] ?? samples[0];
const last = steady.at(-1) ?? samples.at(-1);
const growth = first && last ? ((last.rssMb - first.rssMb) / first.rssMb) * 100 : NaN;
const fds = steady.map((s) => s.fds);
const verdict = {
  minutes: MINUTES,
  scale: SCALE,
  calls: totalCalls,
  errors: totalErrors,
  p50Ms: Math.round(pct(allLatencies, 50) * 10) / 10,
  p99Ms: Math.round(pct(allLatencies, 99) * 10) / 10,
  rssAfterWarmupMb: first?.rssMb,
  rssEndMb: last?.rssMb,
  rssGrowthAfterWarmupPct: Math.round(growth * 10) / 10,
  fdsAfterWarmup: { min: Math.min(...fds), max: Math.max(...fds), last: fds.at(-1) },
  exitCode,
  ...(firstError ? { firstError } : {}),
};
process.stdout.write(`\n${JSON.stringify(verdict, null, 2)}\n`);
process.stdout.write(
  `RSS growth after warm-up ${verdict.rssGrowthAfterWarmupPct}% (target < 10%): ${growth < 10 ? 'ok' : 'TOO HIGH'}; ` +
    `open fds ${verdict.fdsAfterWarmup.min}..${verdict.fdsAfterWarmup.max}: ${verdict.fdsAfterWarmup.max - verdict.fdsAfterWarmup.min <= 4 ? 'flat' : 'NOT FLAT'}\n`,
);
mkdirSync(join(ROOT, '.bench-out'), { recursive: true });
writeFileSync(join(ROOT, '.bench-out', 'soak.json'), JSON.stringify({ verdict, samples }, null, 2));
