// The least a stdio bridge can pay for the benchmark's tool call on this machine: one JSON-RPC line
// read, the same HTTP request made with node:http as the server's API client makes it, the page
// answered as structuredContent plus its JSON text copy (the shape the MCP spec recommends and this
// server returns), one line written. No
// validation, no rate limiter, no error handling: not a server anyone should run, a yardstick.
// Three of them:
// - plain (default): JSON-RPC by hand, no SDK: what the machine charges any bridge;
// - FLOOR_WITH_SDK=1: the same handler behind the MCP SDK v2 as this server is built on it: a
//   low-level Server from a factory served by serveStdio over its StdioServerTransport, tools/call
//   registered with setRequestHandler and its result projected by the SDK: what the SDK adds.
// - FLOOR_WITH_SDK=v1: the same behind the SDK v1 package at FLOOR_SDK_V1 (the one the server before
//   the rebuild was built on, from its install), tools/call registered past the SDK's request and
//   result parsing as that server did: the yardstick it was measured against, for the SDK's share.
// Reads WORKSPACE_API (origin + /api/v1) and WORKSPACE_TOKEN.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// As src/api/client.ts: require(), since node:http's ESM facade loads Node's bundled undici.
const http = createRequire(import.meta.url)('node:http');

const api = process.env.WORKSPACE_API;
const token = process.env.WORKSPACE_TOKEN;
const agent = new http.Agent({ keepAlive: true });
const tool = { name: 'list_findings', inputSchema: { type: 'object', properties: { engagement: { type: 'string' }, limit: { type: 'integer' } } } };

function getJson(url) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      res.on('error', reject);
    });
    req.end();
  });
}

async function callTool(args) {
  const body = await getJson(`${api}/engagements/${encodeURIComponent(args.engagement)}/findings?limit=${args.limit}`);
  return { content: [{ type: 'text', text: JSON.stringify(body.data) }], structuredContent: { items: body.data, next_cursor: body.meta?.next_cursor ?? null } };
}

if (process.env.FLOOR_WITH_SDK === '1') {
  const [{ Server }, { serveStdio }] = await Promise.all([import('@modelcontextprotocol/server'), import('@modelcontextprotocol/server/stdio')]);
  serveStdio(() => {
    const server = new Server({ name: 'floor-bridge-sdk', version: '0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({ tools: [tool] }));
    // As src/mcp/server/server.ts registers it: the SDK's handler, the result through the SDK's projection.
    server.setRequestHandler('tools/call', async (req) => server.projectCallToolResult(await callTool(req.params.arguments), undefined));
    return server;
  });
} else if (process.env.FLOOR_WITH_SDK === 'v1') {
  const sdk = process.env.FLOOR_SDK_V1;
  const [{ Server }, { StdioServerTransport }, { Protocol }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all(
    ['server/index.js', 'server/stdio.js', 'shared/protocol.js', 'types.js'].map((m) => import(pathToFileURL(join(sdk, 'dist/esm', m)).href)),
  );
  const server = new Server({ name: 'floor-bridge-sdk-v1', version: '0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [tool] }));
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
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const msg = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (msg.id === undefined) continue;
      void answer(msg).then((result) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n`));
    }
  });
}
