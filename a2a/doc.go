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
