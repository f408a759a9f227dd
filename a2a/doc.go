// Package a2a recognises Agent2Agent (A2A) tasks that are paused for a human, collects the
// human's answer, resumes the task and waits for its outcome, in both wire families: the 0.x
// JSON of protocol 0.3 ("input-required", kind discriminators, final) and the ProtoJSON of
// protocol 1.0 ("TASK_STATE_INPUT_REQUIRED"), over JSON-RPC and HTTP+JSON (REST).
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
package a2a
