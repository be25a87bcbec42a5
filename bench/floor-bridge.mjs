// The least a stdio bridge can pay for the benchmark's tool call on this machine: one JSON-RPC line
// read, the same HTTP request made with undici, the page answered as structuredContent plus its JSON
// text copy (the shape the MCP spec recommends and this server returns), one line written. No
// validation, no rate limiter, no error handling: not a server anyone should run, a yardstick.
// Two of them:
// - plain (default): JSON-RPC by hand, no SDK: what the machine charges any bridge;
// - FLOOR_WITH_SDK=1: the same handler behind the MCP SDK's Server and StdioServerTransport, as this
//   server is built: what the SDK adds on its own.
// Reads WORKSPACE_API (origin + /api/v1) and WORKSPACE_TOKEN.
import { Agent, request } from 'undici';

const api = process.env.WORKSPACE_API;
const token = process.env.WORKSPACE_TOKEN;
const agent = new Agent();
const tool = { name: 'list_findings', inputSchema: { type: 'object', properties: { engagement: { type: 'string' }, limit: { type: 'integer' } } } };

async function callTool(args) {
  const res = await request(`${api}/engagements/${encodeURIComponent(args.engagement)}/findings?limit=${args.limit}`, {
    dispatcher: agent,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
  const body = await res.body.json();
  return { content: [{ type: 'text', text: JSON.stringify(body.data) }], structuredContent: { items: body.data, next_cursor: body.meta?.next_cursor ?? null } };
}

if (process.env.FLOOR_WITH_SDK === '1') {
  const [{ Server }, { StdioServerTransport }, { Protocol }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/shared/protocol.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const server = new Server({ name: 'floor-bridge-sdk', version: '0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [tool] }));
  // As src/mcp/server.ts registers it (no second parse of the request, no parse of the result).
  Protocol.prototype.setRequestHandler.call(server, CallToolRequestSchema, (req) => callTool(req.params.arguments));
  await server.connect(new StdioServerTransport());
} else {
  const answer = (msg) => {
    if (msg.method === 'initialize') {
      return Promise.resolve({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'floor-bridge', version: '0' } });
    }
    if (msg.method === 'tools/list') return Promise.resolve({ tools: [tool] });
    return callTool(msg.params.arguments);
  };
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
}
