// An MCP server on @modelcontextprotocol/sdk (v1, up to protocol 2025-11-25) whose tools ask
// the client for input with elicitation/create, for the Go client's tests. Usage:
//   node server_v1.mjs stdio          serve on stdin/stdout
//   node server_v1.mjs http           serve Streamable HTTP on 127.0.0.1, print "LISTEN <url>"
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { profile } from './profile.mjs';

let approved = false; // the person has finished on the deploy page (any session)

function build() {
  const server = new McpServer({ name: 'ts-v1-server', version: '1' });
  const text = (t) => ({ content: [{ type: 'text', text: t }] });
  server.registerTool('form', { description: 'asks for a profile' }, async () => {
    const r = await server.server.elicitInput({ mode: 'form', message: 'Your profile?', requestedSchema: profile });
    return text(JSON.stringify(r));
  });
  server.registerTool('url', { description: 'sends the person to a page' }, async () => {
    const r = await server.server.elicitInput({
      mode: 'url', message: 'Sign in to the file service', url: 'https://files.example/connect?s=1', elicitationId: 'el-v1',
    });
    return text(JSON.stringify(r));
  });
  server.registerTool('approve_first', { description: 'answers -32042 until approved' }, async () => {
    if (!approved) {
      approved = true; // the next call finds the page done
      throw new UrlElicitationRequiredError([
        { mode: 'url', message: 'Approve the deploy', url: 'https://deploy.example/approve/1', elicitationId: 'el-deploy' },
      ]);
    }
    return text('deployed');
  });
  return server;
}

const mode = process.argv[2];
if (mode === 'stdio') {
  await build().connect(new StdioServerTransport());
} else if (mode === 'http') {
  // One transport and server per session, as the SDK's sessionful examples do.
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    let body;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }
    let transport = sessions.get(req.headers['mcp-session-id']);
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      await build().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.listen(0, '127.0.0.1', () => console.log(`LISTEN http://127.0.0.1:${http.address().port}/mcp`));
} else {
  console.error('usage: node server_v1.mjs stdio|http');
  process.exit(2);
}
