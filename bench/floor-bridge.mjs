// The least any stdio bridge can pay for the benchmark's tool call on this machine: one JSON-RPC line
// read, the same HTTP request made with undici, the page answered as structuredContent plus its JSON
// text copy (the shape the MCP spec recommends and this server returns), one line written. No SDK, no
// validation, no rate limiter, no error handling: not a server anyone should run, a yardstick. What a
// real server adds on top of this is its own cost; this row is the part no server can avoid.
// Reads WORKSPACE_API (origin + /api/v1) and WORKSPACE_TOKEN; answers initialize and tools/list with
// the bare minimum so the benchmark's client can talk to it like to the others.
import { Agent, request } from 'undici';

const api = process.env.WORKSPACE_API;
const token = process.env.WORKSPACE_TOKEN;
const agent = new Agent();
const tool = { name: 'list_findings', inputSchema: { type: 'object', properties: { engagement: { type: 'string' }, limit: { type: 'integer' } } } };

async function answer(msg) {
  if (msg.method === 'initialize') {
    return { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'floor-bridge', version: '0' } };
  }
  if (msg.method === 'tools/list') return { tools: [tool] };
  const args = msg.params.arguments;
  const res = await request(`${api}/engagements/${encodeURIComponent(args.engagement)}/findings?limit=${args.limit}`, {
    dispatcher: agent,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
  const body = await res.body.json();
  return { content: [{ type: 'text', text: JSON.stringify(body.data) }], structuredContent: { items: body.data, next_cursor: body.meta?.next_cursor ?? null } };
}

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    const msg = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    if (msg.id === undefined) continue;
    void answer(msg).then((result) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n`));
  }
});
