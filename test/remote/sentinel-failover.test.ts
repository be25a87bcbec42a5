// Redis with Sentinel under a firm deployment: a master, one replica and three Sentinels, each a real
// redis-server process; two replicas of the real CLI's `serve --remote` on REDIS_URL=redis-sentinel://...
// behind the balancer, at more calls than the budget allows (reads and writes), while the master is
// killed (SIGKILL). Through the switch: no answer is a 500; every 503 says when to retry, and a call
// answered "nothing was done, retry" is retried as it was, so a write sent anyway would show twice in
// the workspace's log (none does); the replicas are answered again soon after the Sentinels name the
// new master, by the same processes; the member's grant and a 2025 session opened before the kill
// still work after; and the workspace never counts more than the budget in a rolling window.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { errorDetail } from '../../src/mcp/render/tool-result.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { masterSwitches, startSentinelGroup } from '../helpers/redis.js';
import { negotiation } from '../helpers/stack.js';
import { busiestWindow } from '../helpers/windows.js';
import { deployment, legacyCall, raw, signInAutoConsent } from './deployment.js';

const LIMIT = 120;
const SCALE = 0.05; // the sandbox's minute lasts 3 s
const WINDOW_MS = 60_000 * SCALE;
const WORKERS = 6;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => {});
});

/** One call's outcome, as the client saw it. */
interface Outcome {
  at: number;
  /** The HTTP status of the POST that carried it (the last one, when the SDK sent several). */
  status: number;
  retryAfter: string | null;
  /** ok: a result that is not an error; retry: "nothing was done, try again" (503, or that tool error); other: anything else. */
  kind: 'ok' | 'retry' | 'other';
  detail: string;
}

describe('serve --remote on Redis with Sentinel', () => {
  it('through a failover of the master: no 500, no write sent twice, answered again within 10 s of the switch by the same replicas, sign-in and session kept, the budget exact', async () => {
    const group = await startSentinelGroup();
    closers.push(() => group.stop());
    const d = await deployment(
      group,
      2,
      { WORKSPACE_RATE_LIMIT: `${LIMIT}/${WINDOW_MS / 1000}` },
      { oauth: { autoConsent: 'write' }, rateLimit: true, timeScale: SCALE },
    );
    closers.push(() => d.close());
    const pids = d.replicas.map((r) => r.child.pid);

    // Signed in before the kill (the grant and the access token live in Redis), with a 2025 session open.
    const { client: member, provider } = await signInAutoConsent(d.mcpUrl, 'modern', 'failover-test');
    closers.push(() => member.close());
    const signInPage = provider.authorizationUrl;
    const token = provider.stored?.access_token ?? '';
    const session = new Client({ name: 'failover-legacy', version: '1' }, { versionNegotiation: negotiation('legacy') });
    await session.connect(new StreamableHTTPClientTransport(d.mcpUrl, { authProvider: provider }));
    closers.push(() => session.close());
    expect((await session.callTool({ name: 'get_workspace', arguments: {} })).isError).toBeFalsy();

    const outcomes: Outcome[] = [];
    const heard = new Set<() => void>();
    const record = (o: Outcome) => {
      outcomes.push(o);
      for (const check of heard) check();
    };
    /** Resolves once `done` holds, read again at each outcome; fails past `boundMs`. */
    const when = (done: () => boolean, boundMs: number, what: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!done()) return;
          clearTimeout(timer);
          heard.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          heard.delete(check);
          reject(new Error(`${what} within ${boundMs} ms: ${JSON.stringify(outcomes.slice(-3))}`));
        }, boundMs);
        heard.add(check);
        check();
      });
    const switches = await masterSwitches(group);
    closers.push(() => switches.close());
    let stop = false;
    // Each worker has its own client on the member's sign-in, and sees the HTTP answer of each call.
    const worker = async (n: number) => {
      let last: { status: number; retryAfter: string | null } = { status: 0, retryAfter: null };
      const transport = new StreamableHTTPClientTransport(d.mcpUrl, {
        authProvider: provider,
        fetch: async (url, init) => {
          const res = await fetch(url, init);
          last = { status: res.status, retryAfter: res.headers.get('retry-after') };
          return res;
        },
      });
      const client = new Client({ name: `failover-worker-${n}`, version: '1' }, { versionNegotiation: negotiation('modern') });
      await client.connect(transport);
      closers.push(() => client.close());
      for (let i = 0; !stop; i++) {
        // Every other call a write, each with its own statement: a write sent twice shows in the log.
        const write = i % 2 === 1;
        const statement = `failover ${n}-${i}`;
        for (;;) {
          let outcome: Outcome;
          try {
            const r = write
              ? await client.callTool({
                  name: 'call_operation',
                  arguments: { operation: 'create_finding', arguments: { engagement: ENGAGEMENT_AP, type: 'risk', statement } },
                })
              : await client.callTool({ name: 'get_workspace', arguments: {} });
            const code = errorDetail(r)?.code;
            const kind = !r.isError ? 'ok' : code === 'workspace.briefly_unavailable' ? 'retry' : 'other';
            outcome = { at: Date.now(), ...last, kind, detail: JSON.stringify(r.content).slice(0, 300) };
          } catch (err) {
            const kind = last.status === 503 ? 'retry' : 'other';
            outcome = { at: Date.now(), ...last, kind, detail: String(err).slice(0, 300) };
          }
          record(outcome);
          // "Nothing was done": the same call again, as a careful client would; anything else is not
          // retried. Not before the Sentinels all name the new master: until then every call would
          // be answered the same.
          if (outcome.kind !== 'retry' || stop) break;
          await switches.all;
        }
      }
    };

    const workers = Array.from({ length: WORKERS }, (_, n) => worker(n));
    // More calls answered than the budget holds, so the budget paces them before the kill.
    await when(() => outcomes.filter((o) => o.kind === 'ok').length > LIMIT, 30_000, 'no load before the kill');
    const killedAt = Date.now();
    await group.master.kill();
    const switchedAt = await Promise.race([
      switches.first,
      new Promise<number>((_, reject) => setTimeout(() => reject(new Error('no +switch-master within 20 s')), 20_000)),
    ]);
    // Served again within 10 s of the switch, then one more window of load (the budget is checked across it).
    const firstOk = () => outcomes.find((o) => o.at > switchedAt && o.kind === 'ok')?.at;
    await when(() => firstOk() !== undefined, 10_000, 'no call answered after the switch');
    const firstOkAfter = firstOk() as number;
    await when(() => outcomes.some((o) => o.at >= firstOkAfter + WINDOW_MS), 2 * WINDOW_MS, 'a window of load after the switch');
    stop = true;
    await Promise.all(workers);

    const during = outcomes.filter((o) => o.at >= killedAt);
    const counts = (k: Outcome['kind']) => outcomes.filter((o) => o.kind === k).length;
    const sandboxLog = d.sandbox.requests().filter((r) => r.path.startsWith('/api/v1/'));
    const writes = sandboxLog.filter((r) => r.method === 'POST' && r.template === '/engagements/{engagement}/findings');
    const statements = writes.map((w) => (w.body as { statement?: string } | null)?.statement ?? '');
    const counted = sandboxLog.map((r) => r.counted_ms).filter((t): t is number => t !== undefined);
    process.stderr.write(
      `Sentinel failover: switch ${switchedAt - killedAt} ms after the kill, answered again ${firstOkAfter - switchedAt} ms after the switch; ` +
        `${outcomes.length} calls (${counts('ok')} ok, ${counts('retry')} "retry", ${counts('other')} other), ${during.filter((o) => o.status === 503).length} answers 503; ` +
        `${writes.length} writes sent, ${new Set(statements).size} distinct; busiest window ${busiestWindow(counted, WINDOW_MS)}/${LIMIT}\n`,
    );

    // No 500, nor any other failure than "nothing was done, retry"; every 503 says when.
    expect(outcomes.filter((o) => o.status >= 500 && o.status !== 503)).toEqual([]);
    expect(outcomes.filter((o) => o.kind === 'other')).toEqual([]);
    expect(outcomes.filter((o) => o.status === 503 && !(Number(o.retryAfter) > 0))).toEqual([]);
    // No write sent twice, though every "retry" was retried.
    expect(statements.length).toBe(new Set(statements).size);
    // The budget held across the switch.
    expect(busiestWindow(counted, WINDOW_MS)).toBeLessThanOrEqual(LIMIT);
    expect(sandboxLog.filter((r) => r.status === 429)).toEqual([]);

    // Each replica, asked directly, answers with the member's token from before the kill: the same
    // processes, never restarted, on the new master.
    for (const r of d.replicas) {
      const answer = await raw(r.origin, d.lb.url, legacyCall(token, undefined, 'tools/list'));
      expect(answer.status, answer.body).toBe(200);
      expect(r.child.exitCode).toBeNull();
      expect(r.child.signalCode).toBeNull();
    }
    expect(d.replicas.map((r) => r.child.pid)).toEqual(pids);
    // The 2025 session and the sign-in from before the kill carry on: no new sign-in.
    const again = await session.callTool({ name: 'get_workspace', arguments: {} });
    expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
    expect((await member.callTool({ name: 'get_workspace', arguments: {} })).isError).toBeFalsy();
    expect(provider.authorizationUrl).toBe(signInPage);
  }, 90_000);
});
