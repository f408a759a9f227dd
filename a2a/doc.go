// Package a2a carries Agent2Agent (A2A) tasks that are paused for a human to their end:
// it recognises the pause, puts the question to the agent's human through an [Asker], resumes
// the task with the answer and waits for its outcome, a [transport.Result] whose Approved is
// the only go-ahead.
//
//	c, err := a2a.NewClient(transport.WithAuthorization(transport.StaticToken(apiKey)))
//	if err != nil {
//		return err
//	}
//	ep := a2a.Endpoint{URL: "https://files.example/a2a", Binding: a2a.JSONRPC10}
//	ev, err := c.Send(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("Delete last month's reports.")}}, nil)
//	if err != nil {
//		return err
//	}
//	if p := a2a.NewPause(ep, ev.Task); p != nil {
//		res, err := c.Run(ctx, p, ask, nil) // ask: an Asker; a2a.Approve(p) or a2a.Reject(p) answers
//		if err != nil {
//			return err // the outcome is unknown
//		}
//		if !res.Approved() {
//			return nil // refused, or no one decided
//		}
//	}
//
// It reads both wire families: the 0.x JSON of protocol 0.3 ("input-required", kind
// discriminators, final) and the ProtoJSON of protocol 1.0 ("TASK_STATE_INPUT_REQUIRED"), over
// JSON-RPC and HTTP+JSON (REST). Package a2atest has fake agents and relays for tests.
//
// # Reading and carrying tasks
//
// A response is read with [Decode] (one body) or [Client.Send] (one call) into an [Event];
// [Classify] says what its task means for the caller: finished, still working, or paused —
// for input, for authorisation, behind a relay that holds it until an administrator decides
// ("working" with metadata.relay_task), or in a relay's legacy form ("completed" with
// metadata.hitl_pending, which is not done). A paused task becomes a [Pause], which marshals
// to JSON so that another process can carry on with it.
//
// [Client.Run] is the whole loop: ask the agent's human through an [Asker], resume the task
// with the answer (same taskId and contextId, a fresh messageId, parts spelled for the
// binding and version the task came from), and keep going while the task asks again, until
// it ends. [Client.Wait] waits for a task to leave a waiting state, by polling tasks/get (or
// GET /tasks/{id}), by streaming (falling back to polling when the server will not stream a
// paused task), or woken by a [PushReceiver]. Every outcome is a [transport.Result].
//
// # Answers
//
// An [Asker] returns the human's [Answer]. [Approve], [Reject] and [Text] build one for any
// pause, spelled the way its agent reads an answer: a yes or a no, or free text. Use them
// first. The vendor-specific builders they choose from are there for callers who need one
// spelling: [HectorDecision] and [HectorToolApproval] (Hector v1 and v2),
// [ADKConfirmation] (an ADK tool confirmation), [ADKFunctionResponse] (an ADK long-running
// call) and [TRPCResume] (a trpc-agent-go graph interrupt, which the agent reports as a
// completed task carrying a [Checkpoint]). [Pause.ToolCall] names the call a pause is about,
// in Hector's, ADK's, Mastra's and trpc-agent-go's shapes.
//
// [Client.Run] puts every question to the human and never answers for them. When an agent
// asks again about the tool call it was just answered on, the human is asked again and
// [Pause.NotTaken] (and the prompt) says the previous answer was not taken; after
// RunOptions.MaxAsksPerCall asks (default 3) Run ends with a [*RepeatedCallError]. The
// Result's Data holds the final task ([TaskOf]) and every answer, in order ([AnswersOf]).
//
// Every call takes a context first and returns promptly when it ends. Nothing is logged
// unless a logger is given, and never a credential.
//
// # Clients
//
// As every client in hitlkit: NewClient(opts ...transport.Option) — an agent's endpoint is
// given per call — with package transport's common options (WithHTTPClient, WithLogger,
// WithAuthorization with a [transport.Credential], WithPollInterval, WithMaxBody,
// WithRequestTimeout, WithMaxPollsInFlight, WithAllowPrivateAddresses)
// and this package's own: [WithAuthorize], a per-request hook for signing schemes, and
// [WithMessageIDs]. Agents must be at https URLs on public addresses unless those options say
// otherwise; a request to any other URL is refused before it is sent.
//
// # Runs and waits
//
// Run asks through the Asker, resumes the same task (same taskId and contextId, a fresh
// messageId, role and parts spelled for the binding and version the task came from), and
// loops while the task keeps asking; it polls tasks/get (every 5 s unless the agent says
// otherwise, WithPollInterval) through auth-required and relay holds, telling you of each hold
// through RunOptions.Notify. A relay's failed is the administrator's no: a rejected Result
// with the reason. The Result's Action and Decision are the human's answer whatever the
// agent did with it (a "deny" ends completed at one agent, rejected at another: Decision is
// reject and Approved() false at both); its Status is the task's final state. Wait can also subscribe to the task (falling back to polling when the agent
// will not stream a paused task, as a2a-go answers -32001), and be woken by a PushReceiver
// (an http.Handler that checks the token in either X-A2A-Notification-Token or
// A2A-Notification-Token, the Authorization it was promised or an RS256 JWT against the
// sender's JWKS, ignores tasks it does not expect and deliveries it has seen). Agent errors are
// *a2a.Error matching a sentinel per code (ErrTaskNotFound, ErrTaskTerminal for both ways
// agents refuse an ended task, …); a body that is not A2A is a *a2a.MalformedError naming the
// problem, never a pause.
//
// Every answer belongs to its question. A reply, task query, stream event or push about
// another task is never an outcome: a resume answered by another task (agents of the previous
// Hector generation start a new task for an id they do not know or that has ended) is
// an error matching transport.ErrMismatch that names both ids, and the new task's
// question never reaches the Asker; a task query answered with another task is ignored and the
// wait goes on, so the real answer is not lost. A resume answered with the question just
// answered (an agent that replies before it reads) makes Run poll until the task moves on,
// never ask the human twice; a task query that spells the same question otherwise (Hector v1's
// "metadata": null on each part, key order, spacing) is the same question. An agent that asks again
// about the tool call it was just answered on gets the human asked again ("Answers" above). A saved
// pause is checked before its question goes to the human: a task cancelled meanwhile is a
// cancelled Result. The same transient agent error eight times in a row
// (DefaultMaxRepeats) ends a wait with ErrRepeatedError; invalid request, method not found
// and invalid params end it at once.
//
// More verbs. Client.Cancel(ctx, ep, taskID) cancels a task on any binding (a Run
// waiting on it returns a cancelled Result); SendOptions{NonBlocking: true} returns the task
// as the agent accepted it, and a2a.Track(ep, task) gives Wait and Run a handle on a task
// that is only submitted or working. Pause.ToolCall() says which tool call is being approved
// (name, arguments as JSON, call id, offered options) from Hector's data part (with tool_input
// as an object or a JSON string), ADK's adk_request_confirmation call or its
// originalFunctionCall alone, Hector v2's metadata or an artifact holding the call (args or
// arguments). A question without text (ADK's confirmation is a data part) gets a Prompt()
// from its hint or its tool call, so a forwarder always has words to show.
// WaitOptions.Interval paces one wait's task queries.
//
// Real agents, modelled. a2atest.WithProfile makes the fake behave as a family of real
// agents, and the table-driven tests run against each: ProfileSpec (the specifications, as
// a2a-go v2 implements them), ProfileA2AGoV03 (an a2a-go v0.3 agent: text/plain JSON-RPC
// answers, -32602 with the reason in data.error for an ended task, streams that begin with a
// status update, completion without a status message), and ProfileLegacyHector (data parts in
// their {"data":{"data":…}} wrapper, tool_input as a string, the decision read only from a
// wrapped data part, a new task for an unknown or ended id, replies that are stale snapshots
// without part metadata where task queries send "metadata": null, tasks/get and
// tasks/cancel by {"name":"tasks/<id>"} with an id refused as Hector v1.9.9 does, -32603
// "… task name is required", a REST 404 of {"error":"Task not found"}). The client handles
// each: wrapped parts are unwrapped, HectorDecision and HectorToolApproval also put the
// decision where the older generation reads it, a task query or cancel refused as invalid params
// or for want of a task name is asked once more by name, a question streamed as an agent's message after the task ends the turn with the
// task waiting for input, and a refusal of an ended task matches ErrTaskTerminal whether the
// phrase is in the message, the data or data.error.
//
// # Tested against real SDKs
//
// Each on loopback in a module of its own:
//
//   - github.com/a2aproject/a2a-go/v2 v2.4.0 server (a2a/interop): bindings: JSON-RPC and
//     REST, 1.0 and 0.3; what runs: pause, ask, resume to completion, a typed error for a
//     resume of the completed task, streams, push
//   - @a2a-js/sdk 1.3.0 agent (a2a/jsinterop): bindings: JSON-RPC and REST at 1.0, and at 0.3
//     through the SDK's legacyCompat layer; what runs: blocking and non-blocking sends, two
//     questions and a denial, streams (none left open), a stream the agent cuts,
//     resubscription, push into PushReceiver, cancel, auth-required, a failing executor, the
//     REST 0.3 201 and an unmarked JSON-RPC 0.3 message/send through hitl.Detect and
//     Client.Do, every error shape typed; an ADK-style confirmation, whose part metadata the
//     REST 0.3 layer drops (the call asked again goes to the human again, up to RunOptions.MaxAsksPerCall)
//   - @a2a-js/sdk 1.3.0 client (a2a/jsinterop) against a2atest: bindings: JsonRpcTransport,
//     RestTransport (1.0), LegacyJsonRpcTransport, LegacyRestTransport (0.3); what runs: an
//     approval to completion, a streamed turn to its question
//
// a2a/jsinterop needs Node.js and npm ci in a2a/jsinterop/agent (the lockfile pins the
// SDK); without them its tests skip, or fail when HITLKIT_CI is set, as .ci/run sets it.
// Hector and ADK are not run: their shapes are modelled in a2atest's profiles and styles.
//
// # Reliability and security: what the tests hold
//
//   - task polling: 503, 429, HTML 502 from a proxy, truncated JSON, the agent's internal
//     error, on all four bindings: outcome: backs off, then the outcome; test:
//     TestWaitRidesOutFaults
//
//   - resume: reply lost after the agent acted, 503 then a failing task query, proxy page,
//     429: outcome: the answer reaches the agent exactly once; test: TestRunDeliversAnswerOnce
//
//   - push: wrong or missing token or credential, bad signature, stale iat, unknown task,
//     duplicate, oversized: outcome: 401, ignored, or delivered once; test:
//     TestCase31PushReceiver, TestCase32SignedPush, and against the real a2a-go server
//     TestPushWrongToken
//
//   - Every case of the protocol digest's detection list is a named table row (both wire
//     families, relays, streams in every framing, malformed JSON-RPC bodies each a distinct typed
//     error, every error code).
//
//   - A call redirected (307) to another host that answers with the task: the credential belongs
//     to the first host, and resumes and tasks/get on the other carry none
//     (TestRedirectedA2ACallGetsNoCredentials).
//
//   - An agent echoing the bearer token in an error (a message, data or an unknown kind),
//     padded to 100 KB: redacted, and the error cut under 400 bytes
//     (TestEchoedSecretsStayOutOfErrors).
//
//   - The push receiver reads at most 64 KiB per body and 64 bodies at once: 1,000 connections
//     declaring 1 MiB get 413; 1,000 pushes with a wrong token are refused on their headers, the
//     body never read (TestPushReceiverFlood).
//
//   - FuzzDecode and FuzzReadStream run every body and stream shape the tests know, and CI
//     20,000 inputs more.
package a2a
