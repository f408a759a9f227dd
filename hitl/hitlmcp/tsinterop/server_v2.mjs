// An MCP server on @modelcontextprotocol/server (v2, protocol 2026-07-28) whose tools ask the
// client for input with input_required results, for the Go client's tests. Usage:
//   node server_v2.mjs stdio          serve on stdin/stdout
//   node server_v2.mjs http           serve Streamable HTTP on 127.0.0.1, print "LISTEN <url>"
import { createServer } from 'node:http';
import { McpServer, createMcpHandler, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { profile } from './profile.mjs';

let calls = 0; // the process outlives the per-request server instances

function build() {
  const server = new McpServer({ name: 'ts-v2-server', version: '1' }, { capabilities: { tools: {} } });
  const text = (t) => ({ content: [{ type: 'text', text: t }] });
  // approve sends the person to a page (URL mode, no elicitationId in 2026-07-28), and keeps
  // which call it is in requestState; a retry that says the page is done gets the result.
  server.registerTool('approve', { description: 'asks a person on a page' }, async (ctx) => {
    const r = inputResponse(ctx.mcpReq.inputResponses, 'review');
    const state = ctx.mcpReq.requestState();
    if (state && r.kind === 'elicit' && r.action === 'accept') return text(`approved ${state}`);
    const n = state || `call-${++calls}`;
    return inputRequired({
      inputRequests: { review: inputRequired.elicitUrl({ message: 'Approve the deploy', url: `https://deploy.example/approve/${n}` }) },
      requestState: n,
    });
  });
  server.registerTool('form', { description: 'asks for a profile' }, async (ctx) => {
    const r = inputResponse(ctx.mcpReq.inputResponses, 'profile');
    if (r.kind === 'elicit') return text(JSON.stringify({ action: r.action, content: r.content }));
    return inputRequired({ inputRequests: { profile: inputRequired.elicit({ message: 'Your profile?', requestedSchema: profile }) } });
  });
  return server;
}

const mode = process.argv[2];
if (mode === 'stdio') {
  serveStdio(build);
} else if (mode === 'http') {
  const handler = createMcpHandler(build);
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers, body });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const c of response.body) res.write(c);
    }
    res.end();
  });
  http.listen(0, '127.0.0.1', () => console.log(`LISTEN http://127.0.0.1:${http.address().port}/mcp`));
} else {
  console.error('usage: node server_v2.mjs stdio|http');
  process.exit(2);
}
