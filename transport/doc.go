// Package transport is the waiting machinery shared by every protocol in hitlkit: the [Result]
// every wait yields, and the ways of learning it.
//
//   - [Poll] and [PollOnWake] GET a status URL until it reports a terminal state, honouring
//     server pacing (Retry-After, ETag and 304), backing off on transient failures without
//     ever ending a long wait, and ending on permanent ones with a typed error. PollOnWake also
//     polls early when told the state changed. [Slots] bound the polls in flight per origin
//     across every loop, and every client, that shares them.
//   - [Subscribe] follows a Server-Sent Events stream, reconnecting with Last-Event-ID after a
//     drop, a clean close or a silent half-open connection, and reports [ErrStreamUnavailable]
//     when the server has none.
//   - [Receiver] is an http.Handler for notifications a server POSTs to the agent (signed
//     callbacks, push notifications); it verifies them ([VerifyHMACSHA256]) and hands them to a
//     [Mailbox], which wakes the wait they concern, or keeps them until it begins.
//
// [Waiter] is the shape of one way of learning an outcome, whatever the protocol: each
// protocol's client offers its wait as one, and hitl composes several for one case.
//
// A protocol package combines them: a notification or an event is only a reason to poll
// at once, and the poll is the source of truth.
//
// It knows nothing of what a response means: the protocol packages (hitl, a2a, hxp, hi) pass
// a decoder that turns one response body into "keep waiting" or a terminal value.
//
// [Credential] is the one credential shape every client takes (WithAuthorization), with
// [StaticToken] and [BearerToken] for the common cases; [PublicDialer] dials public addresses
// only; [MismatchError] reports an answer about another case, request, task or interaction.
//
// # Cancellation
//
// Every call takes a context first. When it ends, waits return context.Cause(ctx) promptly and
// leave no goroutine behind. Give the context a deadline with a cause
// (context.WithDeadlineCause) to tell a case's expiry from the caller's own cancel.
package transport
