// What this server costs Claude Code's first turn, per surface, and what Claude Code's own tool search
// finds among its tools, measured with the real Claude Code CLI (a dev dependency) on a scratch HOME.
// No model is reachable here: a stand-in for the Messages API on loopback (ANTHROPIC_BASE_URL) records
// the requests Claude Code sends and answers them. What is measured: the request Claude Code builds for
// the first turn (its system prompt, messages and tool definitions, with and without this server), and
// the tools its ToolSearch answers for a query. What is estimated: tokens, counted with o200k
// (gpt-tokenizer), not Claude's own tokenizer; and the queries ToolSearch gets are the requests as
// people word them, where a model would pick its own keywords.
// Run: `npx tsx bench/claude-code.ts` (first turn, tool search on and off), `--search` (ToolSearch over
// the retrieval sets with the `all` surface, top 3).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SERVER_NAME = 'workspace-consulting';
/** How Claude Code names an MCP tool: mcp__<server>__<tool>. */
export const TOOL_PREFIX = `mcp__${SERVER_NAME}__`;
export type Surface = 'default' | 'all';

interface MessagesRequest {
  model: string;
  system?: unknown;
  messages: { role: string; content: unknown }[];
  tools?: { name: string; defer_loading?: boolean }[];
}

/** A turn the stand-in answers: text that ends the turn, or one tool call. */
type Reply = { text: string } | { tool: string; id: string; input: Record<string, unknown> };

// Each answer's own message id: Claude Code merges consecutive answers that share one.
let answers = 0;

function sse(res: ServerResponse, model: string, reply: Reply): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const ev = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const usage = { input_tokens: 1, output_tokens: 1 };
  ev('message_start', {
    message: { id: `msg_bench_${++answers}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage },
  });
  if ('text' in reply) {
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: reply.text } });
  } else {
    ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: reply.id, name: reply.tool, input: {} } });
    ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.input) } });
  }
  ev('content_block_stop', { index: 0 });
  ev('message_delta', { delta: { stop_reason: 'text' in reply ? 'end_turn' : 'tool_use', stop_sequence: null }, usage: { output_tokens: 1 } });
  ev('message_stop', {});
  res.end();
}

/**
 * The stand-in Messages API: `turn` sees each request of Claude Code's main thread (the one offered
 * ToolSearch or the full tool list) and says what to answer; side requests get a short text.
 */
async function standIn(turn: (req: MessagesRequest) => Reply): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const url = req.url ?? '';
      if (url.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"input_tokens":1}');
      }
      if (!url.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end('{}');
      }
      const parsed = JSON.parse(body) as MessagesRequest;
      const main = (parsed.tools ?? []).some((t) => t.name === 'ToolSearch' || t.name === 'Bash');
      sse(res, parsed.model, main ? turn(parsed) : { text: 'ok' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function run(args: string[], opts: { cwd: string; env: Record<string, string>; timeoutMs: number }): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'claude'), args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`claude ${args.join(' ')} did not end within ${opts.timeoutMs} ms\n${out}`));
    }, opts.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/**
 * One `claude -p` session in a scratch HOME, with this server registered on `surface` (none: no
 * server), talking to the stand-in. The server runs from this checkout's sources, on the embedded
 * sandbox (no workspace URL or token given).
 */
async function session(surface: Surface | 'none', toolSearch: boolean, turn: (req: MessagesRequest) => Reply, timeoutMs: number): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'wcm-claude-bench-'));
  const api = await standIn(turn);
  try {
    const cwd = join(home, 'project');
    mkdirSync(cwd);
    const env = {
      PATH: [dirname(process.execPath), process.env.PATH ?? ''].join(':'),
      HOME: home,
      LANG: 'C',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'sk-ant-api03-stand-in',
      ENABLE_TOOL_SEARCH: String(toolSearch),
      // Wait for the server before the first turn, as an interactive session has it by the time one types.
      MCP_CONNECTION_NONBLOCKING: 'false',
    };
    if (surface !== 'none') {
      const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
      const add = ['mcp', 'add', '--transport', 'stdio', '--scope', 'user', SERVER_NAME, '--env', `WORKSPACE_TOOLSETS=${surface}`, '--'];
      const r = await run([...add, process.execPath, '--import', tsx, join(ROOT, 'src', 'cli.ts')], { cwd, env, timeoutMs: 60_000 });
      if (r.code !== 0) throw new Error(`claude mcp add failed: ${r.out}`);
    }
    const r = await run(['-p', 'go', '--model', 'claude-sonnet-4-5', '--max-turns', '500'], { cwd, env, timeoutMs });
    if (r.code !== 0) throw new Error(`claude -p failed (${r.code}): ${r.out}`);
  } finally {
    await api.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const texts = (c: unknown): string =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c.map((x: { type?: string; text?: string }) => (x.type === 'text' ? (x.text ?? '') : JSON.stringify(x))).join('\n')
      : '';

/** o200k tokens of what the model reads in a request: system prompt, messages, tool definitions. */
function requestTokens(req: MessagesRequest): number {
  return (
    encode(texts(req.system)).length + encode(req.messages.map((m) => texts(m.content)).join('\n')).length + encode(JSON.stringify(req.tools ?? [])).length
  );
}

export interface FirstTurn {
  /** o200k tokens the first turn's request holds (estimate of what the model reads). */
  tokens: number;
  /** This server's tools Claude Code names in the first turn without loading them (tool search). */
  deferred: string[];
  /** This server's tools whose full definitions the first turn carries. */
  loaded: string[];
  /** The server's instructions are in the first turn. */
  instructions: boolean;
}

/** Claude Code's first request of a session, with this server on `surface` (or none). */
export async function firstTurn(surface: Surface | 'none', toolSearch: boolean): Promise<FirstTurn> {
  let first: MessagesRequest | undefined;
  await session(
    surface,
    toolSearch,
    (req) => {
      first ??= req;
      return { text: 'ok' };
    },
    120_000,
  );
  if (!first) throw new Error('Claude Code sent no request to the stand-in');
  const said = first.messages.map((m) => texts(m.content)).join('\n') + texts(first.system);
  const named = new Set([...said.matchAll(new RegExp(`${TOOL_PREFIX}(\\w+)`, 'g'))].map((m) => m[1] as string));
  const loaded = (first.tools ?? []).filter((t) => t.name.startsWith(TOOL_PREFIX) && !t.defer_loading).map((t) => t.name.slice(TOOL_PREFIX.length));
  return {
    tokens: requestTokens(first),
    deferred: [...named].filter((n) => !loaded.includes(n)),
    loaded,
    instructions: said.includes('Tools for one Workspace Consulting workspace'),
  };
}

/** What this server adds to Claude Code's first turn on each surface (tokens over a session without it). */
export async function firstTurnCost(toolSearch: boolean): Promise<Record<Surface, FirstTurn & { added: number }>> {
  const none = await firstTurn('none', toolSearch);
  const out = {} as Record<Surface, FirstTurn & { added: number }>;
  for (const s of ['default', 'all'] as const) {
    const t = await firstTurn(s, toolSearch);
    out[s] = { ...t, added: t.tokens - none.tokens };
  }
  return out;
}

/**
 * Claude Code's ToolSearch over this server's tools on `surface`: for each query, the tools it answers
 * (best first, at most `max`), in one session where each turn is one ToolSearch call.
 */
export async function toolSearch(surface: Surface, queries: readonly string[], max: number): Promise<string[][]> {
  const found: string[][] = [];
  let asked = 0;
  await session(
    surface,
    true,
    (req) => {
      // The answer to the search asked last: the tool_result of its call, by id.
      const last = req.messages.at(-1)?.content;
      const result = Array.isArray(last)
        ? last.find((c: { type?: string; tool_use_id?: string }) => c.type === 'tool_result' && c.tool_use_id === `toolu_search_${asked}`)
        : undefined;
      if (result && asked > found.length) {
        const names = [...JSON.stringify(result).matchAll(new RegExp(`${TOOL_PREFIX}(\\w+)`, 'g'))].map((m) => m[1] as string);
        found.push([...new Set(names)]);
      }
      if (asked < queries.length) {
        const query = queries[asked++];
        return { tool: 'ToolSearch', id: `toolu_search_${asked}`, input: { query, max_results: max } };
      }
      return { text: 'done' };
    },
    600_000,
  );
  return found;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '\0')) {
  if (process.argv.includes('--search')) {
    const { RETRIEVAL_SETS, retrievalSet } = await import('./retrieval.js');
    for (const name of Object.keys(RETRIEVAL_SETS) as (keyof typeof RETRIEVAL_SETS)[]) {
      const set = retrievalSet(name);
      const found = await toolSearch(
        'all',
        set.map((r) => r.query),
        3,
      );
      const hits = set.filter((r, i) => (found[i] ?? []).some((n) => r.expected.includes(n))).length;
      process.stdout.write(`ToolSearch over all, ${RETRIEVAL_SETS[name].label}: ${hits}/${set.length} in the top 3\n`);
    }
  } else {
    for (const on of [true, false]) {
      const cost = await firstTurnCost(on);
      for (const s of ['default', 'all'] as const) {
        const c = cost[s];
        process.stdout.write(
          `tool search ${on ? 'on ' : 'off'} ${s.padEnd(7)}: +${c.added} tokens (o200k) in the first turn; ${c.deferred.length} tools named, ${c.loaded.length} loaded; instructions ${c.instructions ? 'in' : 'absent'}\n`,
        );
      }
    }
  }
}
