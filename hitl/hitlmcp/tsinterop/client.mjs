// An MCP client on the official TypeScript SDK calling the Go server's delete_file tool, for
// the Go server's tests. Usage:
//   node client.mjs v1|v2|v2-default|v2-form stdio|<url> call|replay|two|again|progress
// v1 is @modelcontextprotocol/sdk (protocol 2025-11-25); v2 is @modelcontextprotocol/client
// with versionNegotiation 'auto' (2026-07-28 with a server that offers it); v2-default is
// @modelcontextprotocol/client at its defaults (2025-11-25); v2-form is v2 declaring form
// elicitation only (elicitation: {form: {}}), as clients with only a form handler do. Over stdio the
// client speaks on its own stdin/stdout (the Go test holds the other ends). What happens is
// written to stderr, one "EVENT <json>" line each.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HTTPV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ElicitationCompleteNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HTTPV2 } from '@modelcontextprotocol/client';

const [sdk, where, scenario] = process.argv.slice(2);
const event = (e) => process.stderr.write(`EVENT ${JSON.stringify(e)}\n`);

// PipeTransport is newline-delimited JSON-RPC on this process's stdin and stdout (MCP stdio).
class PipeTransport {
  async start() {
    let buf = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line) this.onmessage?.(JSON.parse(line));
      }
    });
    process.stdin.on('end', () => this.onclose?.());
  }
  setProtocolVersion(v) {
    this.protocolVersion = v;
  }
  async send(message) {
    process.stdout.write(JSON.stringify(message) + '\n');
  }
  async close() {
    process.stdin.pause();
    this.onclose?.();
  }
}

const info = { name: `ts-${sdk}-client`, version: '1' };
const capabilities = sdk === 'v2-form' ? { elicitation: { form: {} } } : { elicitation: { form: {}, url: {} } };
let client;
if (sdk === 'v1') {
  client = new ClientV1(info, { capabilities });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    event({ elicit: req.params });
    return { action: 'accept' };
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (n) => event({ complete: n.params.elicitationId }));
} else {
  // v2-default: the client as most build it, which stays on 2025-11-25.
  client = new ClientV2(info, sdk === 'v2-default' ? { capabilities } : { capabilities, versionNegotiation: { mode: 'auto' } });
  client.setRequestHandler('elicitation/create', async (req) => {
    event({ elicit: req.params });
    return { action: 'accept' };
  });
}
const transport = where === 'stdio' ? new PipeTransport() : sdk === 'v1' ? new HTTPV1(new URL(where)) : new HTTPV2(new URL(where));
await client.connect(transport);
event({ protocol: client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null });

const call = { name: 'delete_file', arguments: { path: '/tmp/report.txt' } };
const accept = { review: { action: 'accept' } };
const attempt = async (params, options) => {
  try {
    return { result: await (sdk === 'v1' ? client.callTool(params, undefined, options) : client.callTool(params, options)) };
  } catch (e) {
    return { error: { code: e.code, message: e.message } };
  }
};

// rounds calls the tool by hand (2026-07-28): the first call, then retries with the last
// requestState while the result asks for input; it returns every state it was given.
const rounds = async (first, c = call) => {
  const states = [];
  let r = first;
  while (r.result && r.result.resultType === 'input_required') {
    states.push(r.result.requestState);
    r = await attempt({ ...c, requestState: r.result.requestState, inputResponses: accept }, { allowInputRequired: true });
  }
  return { r, states };
};

if (scenario === 'call') {
  event(await attempt(call));
} else if (scenario === 'replay') {
  const { r, states } = await rounds(await attempt(call, { allowInputRequired: true }));
  event({ states: states.length, ...r });
  event({ replay: await attempt({ ...call, requestState: states.at(-1), inputResponses: accept }, { allowInputRequired: true }) });
  event({ replayFirst: await attempt({ ...call, requestState: states[0], inputResponses: accept }, { allowInputRequired: true }) });
} else if (scenario === 'two') {
  // Two calls with other arguments: two cases.
  const one = await attempt(call, { allowInputRequired: true });
  const other = { ...call, arguments: { path: '/tmp/other.txt' } };
  const two = await attempt(other, { allowInputRequired: true });
  event({ paused: [one.result?.resultType, two.result?.resultType] });
  const second = await rounds(two, other);
  event({ second: second.r });
  event({ first: await attempt({ ...call, requestState: one.result?.requestState, inputResponses: accept }, { allowInputRequired: true }) });
} else if (scenario === 'again') {
  // The model calls the same tool again while the answer is "not done", up to five times.
  const results = [];
  for (let i = 0; i < 5; i++) {
    const r = await attempt(call);
    results.push(r);
    if (!r.result?.isError) break;
  }
  event({ again: results });
} else if (scenario === 'progress') {
  const progress = [];
  const r = await attempt(call, { onprogress: (p) => progress.push(p) });
  event({ progress, ...r });
} else {
  event({ error: { message: `unknown scenario ${scenario}` } });
}
await client.close();
process.exit(0);
