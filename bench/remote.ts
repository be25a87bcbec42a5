// The remote mode under load: 50 concurrent MCP sessions (each its own client, signed in through
// OAuth), calling a read as fast as they are answered, against one replica and against two replicas
// of the real `serve --remote` on one real Redis, both behind the same round-robin balancer. Reports
// calls per second and p50/p99 latency for each. The budget's window is time-scaled (120 per 10 ms),
// as in bench/run.ts, so the limiter stays on the path without pacing the run to 2 calls a second.
// Run: `npx tsx bench/remote.ts` (part of `npm run bench`); needs redis-server (.ci/run installs it).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { ENGAGEMENT_AP } from '../src/sandbox/data/ids.js';
import { startSandbox } from '../src/sandbox/index.js';
import { startRedis } from '../test/helpers/redis.js';
import { ROOT } from '../test/helpers/spawn.js';
import { browse, STATE_KEY, startBalancer, TestOAuthProvider } from '../test/remote/helpers.js';

const SESSIONS = Number(process.env.BENCH_REMOTE_SESSIONS ?? 50);
const SECONDS = Number(process.env.BENCH_REMOTE_SECONDS ?? 10);

interface Figures {
  replicas: number;
  calls: number;
  callsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function replica(env: Record<string, string>): Promise<{ child: ChildProcessWithoutNullStreams; origin: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'serve', '--remote', '--host', '127.0.0.1', '--port', '0'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
  });
  let stderr = '';
  const origin = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /serving MCP \(remote mode\) at (http:\/\/[^/\s]+)\/mcp/.exec(stderr);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`replica exited ${code}: ${stderr}`)));
  });
  return { child, origin };
}

async function session(mcpUrl: URL): Promise<Client> {
  const provider = new TestOAuthProvider();
  await new Client({ name: 'bench', version: '1' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })).catch((e: unknown) => {
    if (!(e instanceof UnauthorizedError)) throw e;
  });
  const back = await browse((provider.authorizationUrl as URL).href, provider.redirectUrl);
  await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(back.searchParams);
  const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  await client.listTools();
  return client;
}

async function measure(replicas: number, redisUrl: string): Promise<Figures> {
  const sandbox = await startSandbox({ port: 0, rateLimit: false, oauth: { autoConsent: 'read' }, logger: () => {} });
  const lb = await startBalancer();
  const children: ChildProcessWithoutNullStreams[] = [];
  const clients: Client[] = [];
  try {
    for (let i = 0; i < replicas; i++) {
      const r = await replica({
        WORKSPACE_URL: sandbox.url,
        WORKSPACE_PUBLIC_URL: lb.url,
        REDIS_URL: redisUrl,
        WORKSPACE_STATE_KEY: STATE_KEY,
        WORKSPACE_RATE_LIMIT: '120/0.01',
      });
      children.push(r.child);
      lb.targets.push(r.origin);
    }
    const mcpUrl = new URL('/mcp', lb.url);
    for (let i = 0; i < SESSIONS; i++) clients.push(await session(mcpUrl));
    const latencies: number[] = [];
    let errors = 0;
    const until = performance.now() + SECONDS * 1000;
    const started = performance.now();
    await Promise.all(
      clients.map(async (c) => {
        while (performance.now() < until) {
          const t0 = performance.now();
          const r = await c.callTool({ name: 'list_findings', arguments: { engagement: ENGAGEMENT_AP, limit: 5 } }).catch(() => ({ isError: true }));
          latencies.push(performance.now() - t0);
          if (r.isError) errors++;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      replicas,
      calls: latencies.length,
      callsPerSecond: latencies.length / elapsed,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      errors,
    };
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    for (const child of children) child.kill('SIGTERM');
    await lb.close();
    await sandbox.close();
  }
}

const redis = await startRedis();
try {
  const one = await measure(1, redis.url);
  const two = await measure(2, redis.url);
  const rows = [
    ['replicas', 'sessions', 'calls', 'calls/s', 'p50 ms', 'p99 ms', 'errors'],
    ...[one, two].map((f) => [
      String(f.replicas),
      String(SESSIONS),
      String(f.calls),
      f.callsPerSecond.toFixed(0),
      f.p50Ms.toFixed(1),
      f.p99Ms.toFixed(1),
      String(f.errors),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  process.stdout.write(`remote mode: ${SESSIONS} concurrent sessions for ${SECONDS} s, list_findings through a round-robin balancer, state on one Redis\n`);
  for (const r of rows) process.stdout.write(`${r.map((c, i) => c.padStart(widths[i]!)).join('  ')}\n`);
} finally {
  await redis.stop();
}
