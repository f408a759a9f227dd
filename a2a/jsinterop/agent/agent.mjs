// A tool-approval A2A agent on the official JavaScript SDK, serving JSON-RPC and HTTP+JSON at
// A2A 1.0 and, through the SDK's compatibility layer, 0.3. It listens on loopback, prints
// {"url": …} on its first line of output once it serves, and exits when its input closes.
//
// Each task asks whether a file may be deleted (a text part and a tool_approval data part) and
// ends completed on "approve", rejected on anything else. The first message's words choose a
// variant: "auth" asks for authorisation first, "slow" works until released, "twice" asks two
// questions, "crash" fails (the executor throws), "adk" asks as an ADK agent does (a
// confirmation function call in a data part, answered by a function response that the part's
// metadata marks; an answer it cannot read makes it ask again under a new id), "strict"
// takes only approve or deny (a data part's decision, or those words) and asks about the
// same call again, saying what it did not understand, on anything else. Test controls live under /admin: authorize/:id, release/:id, cut-next (the next
// event stream is cut after its first event), requests (what was asked, in order), streams
// (how many event streams are open).
import http from 'node:http';
import express from 'express';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { createLegacyAwarePushNotificationSender } from '@a2a-js/sdk/compat/v0_3/server';

const gates = new Map(); // "auth:<task>" or "release:<task>" → resolve
const opened = new Map(); // the same keys, opened before anyone waited
const requests = [];
let cutNext = false;
let streams = 0; // event streams open now

function gate(key) {
  if (opened.delete(key)) return Promise.resolve();
  return new Promise((resolve) => gates.set(key, resolve));
}

function open(key) {
  const resolve = gates.get(key);
  if (resolve) {
    gates.delete(key);
    resolve();
  } else {
    opened.set(key, true);
  }
}

const text = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });
const data = (value) => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: '' });

function agentMessage(ctx, parts) {
  return {
    messageId: `${ctx.taskId}-${Math.random().toString(16).slice(2)}`,
    contextId: ctx.contextId,
    taskId: ctx.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function status(ctx, state, parts) {
  return AgentEvent.statusUpdate({
    taskId: ctx.taskId,
    contextId: ctx.contextId,
    status: { state, message: parts ? agentMessage(ctx, parts) : undefined, timestamp: new Date().toISOString() },
    metadata: undefined,
  });
}

function words(message) {
  return (message?.parts ?? [])
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join(' ')
    .toLowerCase();
}

// decision reads the answer: a data part's "decision" (flat or in a "data" wrapper), else the text.
function decision(message) {
  for (const p of message?.parts ?? []) {
    if (p.content?.$case !== 'data') continue;
    const d = p.content.value ?? {};
    const v = d.decision ?? d.data?.decision;
    if (typeof v === 'string') return v.toLowerCase() === 'approve' ? 'approve' : 'deny';
  }
  return /\bapprove\b/.test(words(message)) ? 'approve' : 'deny';
}

const asked = new Map(); // task → questions asked
const variants = new Map(); // task → the first message's words

// understood reads a strict answer: "approve" or "deny" in a data part's decision or as the
// whole text; undefined for anything else.
function understood(message) {
  for (const p of message?.parts ?? []) {
    if (p.content?.$case !== 'data') continue;
    const d = p.content.value ?? {};
    const v = (d.decision ?? d.data?.decision ?? '').toLowerCase();
    if (v === 'approve' || v === 'deny') return v;
  }
  const w = words(message).trim();
  return w === 'approve' || w === 'deny' ? w : undefined;
}

function ask(ctx, bus, heard) {
  const n = (asked.get(ctx.taskId) ?? 0) + (heard === undefined ? 1 : 0);
  asked.set(ctx.taskId, n);
  const path = `/tmp/report-${n}.txt`;
  const prefix = heard === undefined ? '' : `I did not understand "${heard}". `;
  bus.publish(
    status(ctx, TaskState.TASK_STATE_INPUT_REQUIRED, [
      text(`${prefix}Tool approval required: delete_file ${path}. Reply approve or deny.`),
      data({ interaction_type: 'tool_approval', tool_name: 'delete_file', tool_input: { path }, options: ['approve', 'deny'] }),
    ]),
  );
}

// askADK asks as an ADK agent does: the confirmation is a data part alone, an
// adk_request_confirmation function call marked by its part metadata, with a new id each time.
function askADK(ctx, bus) {
  const n = (asked.get(ctx.taskId) ?? 0) + 1;
  asked.set(ctx.taskId, n);
  const call = {
    id: `adk-${ctx.taskId}-${n}`,
    name: 'adk_request_confirmation',
    args: { originalFunctionCall: { name: 'delete_file', args: { path: '/tmp/report.txt' } }, toolConfirmation: { hint: 'Delete /tmp/report.txt?' } },
  };
  const part = data(call);
  part.metadata = { adk_type: 'function_call', adk_is_long_running: true };
  bus.publish(status(ctx, TaskState.TASK_STATE_INPUT_REQUIRED, [part]));
}

// confirmation reads an ADK answer: a data part marked function_response for the call asked
// last. A part without that metadata is not an answer (ADK reads it as plain data).
function confirmation(ctx, message) {
  const id = `adk-${ctx.taskId}-${asked.get(ctx.taskId)}`;
  for (const p of message?.parts ?? []) {
    const v = p.content?.$case === 'data' ? p.content.value : undefined;
    if (v?.id === id && v?.name === 'adk_request_confirmation' && p.metadata?.adk_type === 'function_response') {
      return v.response?.confirmed === true ? 'approve' : 'deny';
    }
  }
  return undefined;
}

const executor = {
  async execute(ctx, bus) {
    const task = ctx.task;
    if (!task) {
      const said = words(ctx.userMessage);
      variants.set(ctx.taskId, said);
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        }),
      );
      bus.publish(status(ctx, TaskState.TASK_STATE_WORKING));
      if (said.includes('auth')) {
        bus.publish(status(ctx, TaskState.TASK_STATE_AUTH_REQUIRED, [text('Sign in to the file service to continue.')]));
        await gate(`auth:${ctx.taskId}`);
        bus.publish(status(ctx, TaskState.TASK_STATE_WORKING));
      }
      if (said.includes('slow')) await gate(`release:${ctx.taskId}`);
      if (said.includes('crash')) throw new Error('the file service is down');
      if (said.includes('adk')) askADK(ctx, bus);
      else ask(ctx, bus);
      bus.finished();
      return;
    }
    bus.publish(AgentEvent.task(task));
    let decided = decision(ctx.userMessage);
    if (variants.get(ctx.taskId)?.includes('adk')) {
      decided = confirmation(ctx, ctx.userMessage);
      if (decided === undefined) {
        // No confirmation it can read: the call is asked about again.
        askADK(ctx, bus);
        bus.finished();
        return;
      }
    }
    if (variants.get(ctx.taskId)?.includes('strict')) {
      decided = understood(ctx.userMessage);
      if (decided === undefined) {
        // Not an answer it takes: the same call is asked about again.
        ask(ctx, bus, words(ctx.userMessage));
        bus.finished();
        return;
      }
    }
    if (decided !== 'approve') {
      bus.publish(status(ctx, TaskState.TASK_STATE_REJECTED, [text('Denied: nothing was deleted.')]));
    } else if (variants.get(ctx.taskId)?.includes('twice') && asked.get(ctx.taskId) < 2) {
      bus.publish(status(ctx, TaskState.TASK_STATE_WORKING));
      ask(ctx, bus);
    } else {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          artifact: { artifactId: 'result', name: 'result', description: '', parts: [data({ deleted: asked.get(ctx.taskId) })], metadata: undefined, extensions: [] },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED, [text('Done.')]));
    }
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
    bus.finished();
  },
};

const app = express();
const server = http.createServer(app);
server.listen(0, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: 'hitlkit tool-approval peer',
    description: 'Asks before it deletes a file.',
    supportedInterfaces: duplicateInterfacesForLegacy(
      [
        { url: `${base}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
        { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
      ],
      ['JSONRPC', 'HTTP+JSON'],
    ),
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [{ id: 'delete', name: 'delete files', description: 'Deletes files once approved.', tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const pushStore = new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    executor,
    undefined,
    pushStore,
    createLegacyAwarePushNotificationSender(pushStore),
  );
  const compat = { enabled: true };

  app.use((req, res, next) => {
    if (!req.path.startsWith('/admin')) {
      // Logged as the answer starts, when the A2A handlers have read the body.
      const writeHead = res.writeHead.bind(res);
      let logged = false;
      res.writeHead = (...args) => {
        if (!logged) {
          logged = true;
          requests.push({ path: req.originalUrl.split('?')[0], method: req.body?.method ?? '', version: req.get('A2A-Version') ?? '', status: res.statusCode });
          if (String(res.getHeader('Content-Type') ?? '').startsWith('text/event-stream')) {
            streams++;
            res.on('close', () => streams--);
          }
        }
        return writeHead(...args);
      };
    }
    if (cutNext) {
      const write = res.write.bind(res);
      res.write = (...args) => {
        const ok = write(...args);
        if (cutNext && String(res.getHeader('Content-Type') ?? '').startsWith('text/event-stream')) {
          // The event goes out, then the connection ends without the stream's last chunk.
          cutNext = false;
          res.socket?.end();
        }
        return ok;
      };
    }
    next();
  });
  app.post('/admin/authorize/:id', (req, res) => {
    open(`auth:${req.params.id}`);
    res.json({});
  });
  app.post('/admin/release/:id', (req, res) => {
    open(`release:${req.params.id}`);
    res.json({});
  });
  app.post('/admin/cut-next', (req, res) => {
    cutNext = true;
    res.json({});
  });
  app.get('/admin/requests', (req, res) => res.json(requests));
  app.get('/admin/streams', (req, res) => res.json({ open: streams }));
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card, legacyCompat: compat }));
  app.use('/rpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: compat }));
  app.use('/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: compat }));
  process.stdout.write(JSON.stringify({ url: base }) + '\n');
});

process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
