// Package hxp is a client for Human Execution Protocol v0.1 servers: an agent asks a human to
// DECIDE among options, APPROVE an item, or PROVIDE a value, and gets back a receipt.
//
// [Client.Create] validates a [Request] against the spec (2–6 options, context ≤ 500
// characters, default_option among the options, input types, well-formed validation) and
// sends nothing when it fails. [Client.Wait] polls the request for the whole wait, the
// source of truth; when the server offers a WebSocket (either URL shape in use) it
// subscribes first and polls beside it, so a completion pushed over the socket ends the wait
// at once and a socket that fails only makes the decision known later. The receipt becomes
// the shared [transport.Result]. A default option the server applied on
// timeout (completed_by "system") is an expiry with DefaultApplied, never a human decision.
// [Receipt.Check] checks a result against its request; [Receipt.VerifyEvidence] recomputes
// the evidence hash when the caller holds the server's secret, with the spec's formula or
// the one the reference server uses.
//
// The human side ([Client.Inbox], [Client.Resolve]) serves human clients and tests. Errors
// of §5.3 are [*APIError] values matched with errors.Is against ErrBadRequest,
// transport.ErrUnauthorized, transport.ErrNotFound, ErrTimedOut, ErrAlreadyResolved and ErrInvalidResolution.
//
// Where the spec and the only public server disagree (hxptest can play either), the client
// accepts both: WebSocket URLs as /hxp/ws/{id} or /hxp/ws?request_id={id}, endpoints under a
// configurable prefix, both evidence formulas, timeouts ending with or without a receipt.
//
// # Clients
//
// As every client in hitlkit: NewClient(baseURL, opts ...transport.Option) with package
// transport's common options (WithHTTPClient, WithLogger, WithAuthorization for the agent's
// key as a [transport.Credential], WithPollInterval, WithMaxBody, WithRequestTimeout,
// WithMaxPollsInFlight, WithAllowPrivateAddresses) and this package's
// own: [WithHumanAuthorization] for the human's token, [WithAPIPrefix].
//
// # Bounded work
//
// A server's answers cost work linear in their size: a PROVIDE value is matched against the
// request's pattern within a fixed budget (a pattern is at most 1,000 compiled instructions,
// see [Validation]), an email address is read only up to 254 bytes. Measured with
//
//	go test -run '^$' -bench StateAndMessage ./hxp
//
// on poll answers and WebSocket messages holding a long value checked against a pattern,
// deep nesting, a long digit run or many members, the CPU time per byte (cpu-ns/B) on a
// loaded 2-core machine at 1 KiB, 64 KiB and 1 MiB, over the shapes: 60–288, 7–158, 0.3–109.
package hxp
