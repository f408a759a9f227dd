// The JavaScript SDK's own client completing one tool approval: node client.mjs BINDING URL,
// BINDING one of jsonrpc/1.0, rest/1.0, jsonrpc/0.3, rest/0.3 and URL the interface URL. It
// sends a request, expects the task to ask for input, answers "approve" (a text part and a data
// part {"decision":"approve"}) until the task ends, and prints the outcome as one JSON line:
// {"task": id, "questions": n, "state": final state, "streamed": events seen}.
import { Role, TaskState } from '@a2a-js/sdk';
import { JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport, LegacyRestTransport } from '@a2a-js/sdk/compat/v0_3/client';

const [binding, url] = process.argv.slice(2);
// A request without A2A-Version is 0.3 (A2A 1.0 §3.6): the 1.0 transports are told to send it.
const options = binding.endsWith('/1.0') ? { serviceParameters: { 'A2A-Version': '1.0' } } : undefined;

async function transport() {
  const card = { name: 'peer', description: '', supportedInterfaces: [], version: '1', capabilities: { streaming: true, extensions: [] }, securitySchemes: {}, securityRequirements: [], defaultInputModes: [], defaultOutputModes: [], skills: [], signatures: [] };
  switch (binding) {
    case 'jsonrpc/1.0':
      return new JsonRpcTransportFactory().create(url, card);
    case 'rest/1.0':
      return new RestTransportFactory().create(url, card);
    case 'jsonrpc/0.3':
      return new LegacyJsonRpcTransport({ endpoint: url });
    case 'rest/0.3':
      return new LegacyRestTransport({ endpoint: url });
  }
  throw new Error(`unknown binding ${binding}`);
}

const part = (content) => ({ content, metadata: undefined, filename: '', mediaType: '' });

function message(parts, task) {
  return {
    messageId: `m-${Math.random().toString(16).slice(2)}`,
    contextId: task?.contextId ?? '',
    taskId: task?.id ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const request = (m) => ({ tenant: '', message: m, configuration: undefined, metadata: undefined });

function asTask(result) {
  if (!result || !result.status) throw new Error(`answered without a task: ${JSON.stringify(result)}`);
  return result;
}

const t = await transport();
let task = asTask(await t.sendMessage(request(message([part({ $case: 'text', value: 'clean up the reports' })])), options));
let questions = 0;
while (task.status.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
  if (++questions > 10) throw new Error('kept asking');
  task = asTask(
    await t.sendMessage(
      request(message([part({ $case: 'text', value: 'approve' }), part({ $case: 'data', value: { decision: 'approve' } })], task)),
      options,
    ),
  );
}
const final = await t.getTask({ tenant: '', id: task.id, historyLength: undefined }, options);
// The same over a stream: a new task, read until it asks.
let streamed = 0;
for await (const ev of t.sendMessageStream(request(message([part({ $case: 'text', value: 'clean up again' })])), options)) {
  streamed++;
  const state = ev.payload?.value?.status?.state;
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) break;
}
process.stdout.write(JSON.stringify({ task: task.id, questions, state: TaskState[final.status.state], streamed }) + '\n');
